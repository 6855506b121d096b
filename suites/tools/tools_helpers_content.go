package tools

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Helpers of the content, structured-output, list_changed and progress checks
// (content.go, structured.go, listchanged.go, progress.go). Unexported names start
// with "ct" so that they cannot clash with the other files of the package.

// ctContentFixtures are the fixture-contract tools whose results carry the content
// blocks the content and structured-output checks judge (the fixture contract, refserver/doc.go). They are
// side-effect-free and called once per session through toolkit.CallTool.
var ctContentFixtures = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
	"test_multiple_content_types", "test_resource_link", "test_annotated_content", "test_structured_output",
	"test_structured_no_schema", "test_structured_error", ctStructArrayFixture,
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
// Its callers are transcript checks, judged once the column has settled: the
// transcripts are complete then, so the results are gathered once per revision
// for the dozen checks that read them. Callers must not modify them.
func ctResults(t *conform.T) []*ctResult {
	return t.Once("ct.results:"+t.Rev.Name, func() any {
		var out []*ctResult
		for _, s := range toolkit.RevisionSessions(t) {
			out = append(out, ctSessionResults(s)...)
		}
		return out
	}).([]*ctResult)
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
			raw, _ := rawjson.Lookup(e.Msg.Params, "name")
			name, _ := rawjson.StringOfValid(raw)
			names[e.Msg.ID.Key()], loose[e.Msg.ID.LooseKey()] = name, name
			continue
		}
		if e.Dir != wire.Received || e.Msg.Kind != wire.KindResult || e.ForMethod != "tools/call" {
			continue
		}
		r := &ctResult{Session: s, Seq: e.Seq, Tool: names[e.Msg.ID.Key()]}
		if e.LooseID {
			r.Tool = loose[e.Msg.ID.LooseKey()]
		}
		fields, err := rawjson.ObjectOfValid(e.Msg.Result)
		if err != nil {
			continue // not an object: BASE-SCHEMA-01 judges it
		}
		r.Fields = fields
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

// ctBlocks returns every content block of every tools/call result of the revision,
// decoded once per revision (ctResults). Callers must not modify them.
func ctBlocks(t *conform.T) []ctBlock {
	return t.Once("ct.blocks:"+t.Rev.Name, func() any { return ctBlocksOf(ctResults(t)) }).([]ctBlock)
}

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
	if name == toolkit.TriggerFixture || (opts.TriggerTool != nil && opts.TriggerTool.Name == name) {
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

// ctUnexercised is the skip of a check whose subject never appeared: not-exercised
// when the fixture tool that would produce it was called and did not, needs-fixture
// when the server does not list it.
func ctUnexercised(t *conform.T, l *toolkit.Listing, fixture, what string) conform.Verdict {
	if o := toolkit.CallIfAllowed(t, l, fixture); o != nil {
		return conform.Skip(conform.NotExercised, "no %s in any tools/call result of this revision's sessions; the fixture tool %s returned %s", what, fixture, toolkit.DescribeOutcome(o))
	}
	return conform.Skip(conform.MissingFixture, "no %s in any tools/call result of this revision's sessions: list the fixture tool %s (the fixture contract, refserver/doc.go), or allow a tool that produces one with --call NAME[=JSON]", what, fixture)
}

// ctProbe is the Probe of a check that judges tool results in the transcript: the
// content probes (ctExercise), then the call of each fixture tool whose result its
// Run may name when it finds nothing to judge (ctUnexercised; toolkit.CallIfAllowed
// memoizes it). Run calls the same memoized helpers after the column settled, and
// so sends nothing.
func ctProbe(fixtures ...string) func(*conform.T) {
	return func(t *conform.T) {
		l := ctExercise(t)
		for _, f := range fixtures {
			toolkit.CallIfAllowed(t, l, f)
		}
	}
}
