package toolkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// TriggerFixture is the fixture tool that changes the tool list; content probes
// never call it (it changes the session's state).
const TriggerFixture = "test_trigger_tool_change"

// RevisionSessions returns the revision's sessions that negotiated the revision under test:
// a session that settled on another version is judged by that version's rules, in its
// own column.
func RevisionSessions(t *conform.T) []*conform.Session {
	var out []*conform.Session
	for _, s := range t.Sessions() {
		if s.Negotiated == t.Rev.Name && s.InitErr == nil {
			out = append(out, s)
		}
	}
	return out
}

// Settle sends the barrier request (ping; server/discover in 2026-07-28, which has
// no ping) on the main session and waits for its reply: on stdio that proves every
// message the server sent before it has been read, so a transcript-wide check also
// sees what arrived just now. A failed barrier is ignored (PING-01 judges ping).
// A barrier still standing (the reply to a ping that was the last message sent, and
// nothing sent or received since: wire.Conn.Standing) is not sent again.
func Settle(t *conform.T) {
	if s := t.Session(); s != nil && s.Conn != nil && s.Conn.Err() == nil {
		_ = s.Barrier(t.Ctx)
	}
}

// CallIfAllowed returns the memoized call of a listed tool the suite may call on the main
// session, or nil when the server does not list it (or it may not be called).
func CallIfAllowed(t *conform.T, l *Listing, name string) *Outcome {
	tl := l.Find(name)
	if tl == nil {
		return nil
	}
	p := Allowed(t, *tl)
	if !p.Allowed {
		return nil
	}
	return CallTool(t, CallableTool{Tool: *tl, Permission: p})
}

// DescribeOutcome describes a call's outcome, with the block types of a result.
func DescribeOutcome(o *Outcome) string {
	if o.Result == nil {
		return o.Describe()
	}
	types := ContentTypes(o.Content)
	kind := "a result"
	if o.IsError {
		kind = "an isError:true result"
	}
	if len(types) == 0 {
		return kind + " with no content block"
	}
	return fmt.Sprintf("%s with content types [%s]", kind, strings.Join(types, ", "))
}

// ContentTypes lists the type members of raw blocks, in order ("?" for a block without a
// string type).
func ContentTypes(content []json.RawMessage) []string {
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

// Problems renders a validation error with every problem's pointer prefixed by
// where the validated value sits (e.g. "2025-06-18#1 #9 tool /content/0").
func Problems(err error, where string) string {
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

// Plural is "" for 1 and "s" otherwise.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Or returns s, or def when s is empty.
func Or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// SessionEntry is a transcript entry with its session.
type SessionEntry struct {
	Session *conform.Session
	wire.Entry
}

// Where names the entry for messages.
func (e SessionEntry) Where() string { return fmt.Sprintf("%s #%d", e.Session.Label, e.Seq) }
