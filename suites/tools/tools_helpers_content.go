package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Helpers of the content, structured-output, list_changed and progress checks
// (content.go, structured.go, listchanged.go, progress.go). Unexported names start
// with "ct" so that they cannot clash with the other files of the package.

// ctTriggerFixture is the fixture tool that changes the tool list; content probes
// never call it (it changes the session's state).
const ctTriggerFixture = "test_trigger_tool_change"

// ctContentFixtures are the fixture-contract tools whose results carry the content
// blocks the content and structured-output checks judge (spec-matrix §3.2). They are
// side-effect-free and called once per session through toolkit.CallTool.
var ctContentFixtures = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
	"test_multiple_content_types", "test_resource_link", "test_annotated_content", "test_structured_output",
	"test_structured_no_schema", "test_structured_error", ctStructArrayFixture,
}

// ctSessions returns the revision's sessions that negotiated the revision under test:
// a session that settled on another version is judged by that version's rules, in its
// own column.
func ctSessions(t *conform.T) []*conform.Session {
	var out []*conform.Session
	for _, s := range t.Sessions() {
		if s.Negotiated == t.Rev.Name && s.InitErr == nil {
			out = append(out, s)
		}
	}
	return out
}

// ctSettle sends the barrier request (ping; server/discover in 2026-07-28, which has
// no ping) on the main session and waits for its reply: on stdio that proves every
// message the server sent before it has been read, so a transcript-wide check also
// sees what arrived just now. A failed barrier is ignored (PING-01 judges ping).
// A barrier still standing (nothing sent or received since) is not sent again.
func ctSettle(t *conform.T) {
	if s := t.Session(); s != nil && s.Conn != nil && s.Conn.Err() == nil {
		_ = s.Barrier(t.Ctx)
	}
}

// ctInputRequired reports whether a result of a 2026-07-28 session is an
// InputRequiredResult (resultType "input_required"): the server asks for input
// before it completes the call, so the result is no CallToolResult and the checks
// of tool results do not judge it (the MRTR checks do).
func ctInputRequired(s *conform.Session, fields map[string]json.RawMessage) bool {
	var rt string
	return s.Modern() && json.Unmarshal(fields["resultType"], &rt) == nil && rt == "input_required"
}

// ctResult is one tools/call result seen in a session's transcript.
type ctResult struct {
	Session *conform.Session
	Seq     int    // transcript sequence number of the reply
	Tool    string // the tool the request named ("" when unknown)
	Fields  map[string]json.RawMessage
	IsError bool
	// Content holds the raw blocks (nil when content is absent or not an array).
	Content []json.RawMessage
}

// where names the result for messages: session, transcript entry and tool.
func (r *ctResult) where() string {
	tool := "(unknown tool)"
	if r.Tool != "" {
		tool = r.Tool
	}
	return fmt.Sprintf("%s #%d %s", r.Session.Label, r.Seq, tool)
}

// Structured returns the structuredContent member and whether it is present.
func (r *ctResult) Structured() (json.RawMessage, bool) {
	raw, ok := r.Fields["structuredContent"]
	return raw, ok
}

// ctResults returns every tools/call result received in the revision's sessions.
func ctResults(t *conform.T) []*ctResult {
	var out []*ctResult
	for _, s := range ctSessions(t) {
		out = append(out, ctSessionResults(s)...)
	}
	return out
}

// ctSessionResults returns the tools/call results of one session, in order.
func ctSessionResults(s *conform.Session) []*ctResult {
	entries, _ := s.Conn.Transcript()
	names, loose := map[string]string{}, map[string]string{}
	var out []*ctResult
	for _, e := range entries {
		if e.Msg == nil {
			continue
		}
		if e.Dir == wire.Sent && e.Msg.Kind == wire.KindRequest && e.Msg.Method == "tools/call" {
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(e.Msg.Params, &p)
			names[e.Msg.ID.Key()], loose[e.Msg.ID.LooseKey()] = p.Name, p.Name
			continue
		}
		if e.Dir != wire.Received || e.Msg.Kind != wire.KindResult || e.ForMethod != "tools/call" {
			continue
		}
		r := &ctResult{Session: s, Seq: e.Seq, Tool: names[e.Msg.ID.Key()]}
		if e.LooseID {
			r.Tool = loose[e.Msg.ID.LooseKey()]
		}
		if json.Unmarshal(e.Msg.Result, &r.Fields) != nil {
			continue // not an object: BASE-SCHEMA-01 judges it
		}
		if ctInputRequired(s, r.Fields) {
			continue
		}
		var isErr bool
		if json.Unmarshal(r.Fields["isError"], &isErr) == nil {
			r.IsError = isErr
		}
		_ = json.Unmarshal(r.Fields["content"], &r.Content)
		out = append(out, r)
	}
	return out
}

// ctBlock is one content block of a tools/call result.
type ctBlock struct {
	*ctResult
	Index  int
	Raw    json.RawMessage
	Fields map[string]json.RawMessage // nil when the block is not an object
	Type   string                     // "" when type is absent or not a string
	// TypeRaw is the type member as sent (nil when absent).
	TypeRaw json.RawMessage
}

// at names a member of the block for messages, as a JSON pointer into the result.
func (b ctBlock) at(suffix string) string {
	return fmt.Sprintf("%s /content/%d%s", b.where(), b.Index, suffix)
}

// Rev is the revision whose schema governs the block.
func (b ctBlock) Rev() revision.Revision { return b.Session.Rev }

// ctBlocksOf returns the blocks of the results.
func ctBlocksOf(results []*ctResult) []ctBlock {
	var out []ctBlock
	for _, r := range results {
		for i, raw := range r.Content {
			b := ctBlock{ctResult: r, Index: i, Raw: raw}
			if json.Unmarshal(raw, &b.Fields) == nil && b.Fields != nil {
				b.TypeRaw = b.Fields["type"]
				_ = json.Unmarshal(b.TypeRaw, &b.Type)
			}
			out = append(out, b)
		}
	}
	return out
}

// ctBlocks returns every content block of every tools/call result of the revision.
func ctBlocks(t *conform.T) []ctBlock { return ctBlocksOf(ctResults(t)) }

// ctOfType keeps the blocks of one type.
func ctOfType(blocks []ctBlock, typ string) []ctBlock {
	var out []ctBlock
	for _, b := range blocks {
		if b.Type == typ {
			out = append(out, b)
		}
	}
	return out
}

// ctContentTool reports whether the content probes call the tool: a content fixture,
// or a tool the operator allowed with --call (never the list-changing trigger).
func ctContentTool(t *conform.T, name string) bool {
	opts := t.Options()
	if name == ctTriggerFixture || (opts.TriggerTool != nil && opts.TriggerTool.Name == name) {
		return false
	}
	if slices.Contains(ctContentFixtures, name) {
		return true
	}
	return slices.ContainsFunc(opts.Calls, func(c conform.CallSpec) bool { return c.Name == name })
}

// ctExercise makes sure the content-producing tools the suite may call have been
// called on the main session (once per session: toolkit.CallTool memoizes), and
// returns the main session's listing.
func ctExercise(t *conform.T) *toolkit.Listing {
	l := toolkit.List(t)
	for _, c := range toolkit.Callable(t, l) {
		if ctContentTool(t, c.Name) {
			toolkit.CallTool(t, c)
		}
	}
	return l
}

// ctCall returns the memoized call of a listed tool the suite may call on the main
// session, or nil when the server does not list it (or it may not be called).
func ctCall(t *conform.T, l *toolkit.Listing, name string) *toolkit.Outcome {
	tl := l.Find(name)
	if tl == nil {
		return nil
	}
	p := toolkit.Allowed(t, *tl)
	if !p.Allowed {
		return nil
	}
	return toolkit.CallTool(t, toolkit.CallableTool{Tool: *tl, Permission: p})
}

// ctUnexercised is the skip of a check whose subject never appeared: not-exercised
// when the fixture tool that would produce it was called and did not, needs-fixture
// when the server does not list it.
func ctUnexercised(t *conform.T, l *toolkit.Listing, fixture, what string) conform.Verdict {
	if o := ctCall(t, l, fixture); o != nil {
		return conform.Skip(reports.NotExercised, "no %s in any tools/call result of this revision's sessions; the fixture tool %s returned %s", what, fixture, ctOutcome(o))
	}
	return conform.Skip(reports.NeedsFixture, "no %s in any tools/call result of this revision's sessions: list the fixture tool %s (spec-matrix §3.2), or allow a tool that produces one with --call NAME[=JSON]", what, fixture)
}

// ctOutcome describes a call's outcome, with the block types of a result.
func ctOutcome(o *toolkit.Outcome) string {
	if o.Result == nil {
		return o.Describe()
	}
	types := ctTypes(o.Content)
	kind := "a result"
	if o.IsError {
		kind = "an isError:true result"
	}
	if len(types) == 0 {
		return kind + " with no content block"
	}
	return fmt.Sprintf("%s with content types [%s]", kind, strings.Join(types, ", "))
}

// ctTypes lists the type members of raw blocks, in order ("?" for a block without a
// string type).
func ctTypes(content []json.RawMessage) []string {
	var out []string
	for _, raw := range content {
		var b struct {
			Type *string `json:"type"`
		}
		if json.Unmarshal(raw, &b) != nil || b.Type == nil {
			out = append(out, "?")
			continue
		}
		out = append(out, *b.Type)
	}
	return out
}

// ctProblems renders a validation error with every problem's pointer prefixed by
// where the validated value sits (e.g. "2025-06-18#1 #9 tool /content/0").
func ctProblems(err error, where string) string {
	var ve *revision.ValidationError
	if !errors.As(err, &ve) {
		return strings.TrimSpace(where) + ": " + err.Error()
	}
	parts := make([]string, 0, len(ve.Problems))
	for _, p := range ve.Problems {
		parts = append(parts, strings.TrimSpace(where+p.Pointer)+": "+p.Message)
	}
	if ve.Omitted > 0 {
		parts = append(parts, fmt.Sprintf("… and %d more", ve.Omitted))
	}
	return strings.Join(parts, "; ")
}

// ctPlural is "" for 1 and "s" otherwise.
func ctPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
