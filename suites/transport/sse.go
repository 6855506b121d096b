package transport

import (
	"fmt"
	"net/http"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The 2024-11-05 HTTP+SSE transport: a GET event stream whose first event names the
// endpoint for POSTs, and server messages as "message" events. Its rules bind only a
// session that runs over it (a target served as HTTP+SSE, given with --transport sse
// or found by transport detection).

// ssePage is the spec page of the SSE rows.
const ssePage = `2024-11-05/basic/transports.mdx`

// sseSession returns the revision's main session and its HTTP+SSE transport, or the
// verdict of a column that has none: over stdio or Streamable HTTP the rule is not
// applicable.
func sseSession(t *conform.T) (*conform.Session, *transport.SSE, *conform.Verdict) {
	s := t.Session()
	if s == nil || s.Conn == nil {
		v := conform.Errorf("not verified: the revision has no session: %v", t.ColumnErr())
		return nil, nil, &v
	}
	tr, ok := s.Conn.Transport().(*transport.SSE)
	if s.Kind != "sse" || !ok {
		v := conform.Skip(reports.NotApplicable, "the session runs over %s, not HTTP+SSE (this rule is of the 2024-11-05 HTTP+SSE transport)", s.Kind)
		return nil, nil, &v
	}
	return s, tr, nil
}

// SSE-ORIGIN-01 — 2024-11-05/basic/transports.mdx (HTTP with SSE, Security Warning).
var _ = conform.Register(conform.Check{
	ID: "SSE-ORIGIN-01", Title: "a connection from a foreign Origin is refused",
	Level: conform.Must, Revisions: revision.Span("R1"), Group: conform.GroupSSE, Phase: conform.PhaseOddInput, Needs: conform.NeedsAny,
	Source: ssePage + ` (Security Warning): "Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks" (a foreign Origin refused with a 4xx status; later revisions name 403)`,
	Run: func(t *conform.T) conform.Verdict {
		_, tr, v := sseSession(t)
		if v != nil {
			return *v
		}
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("not verified: %v", err)
		}
		var cases []originCase
		// A new event stream, as a DNS-rebinding page would open (closed at once:
		// a stream the server wrongly opened ends the session it started).
		x, err := tr.ProbeStream(t.Ctx, hdr("Origin", badOrigin))
		if err != nil {
			return conform.Errorf("not verified: GET with a foreign Origin: %v", err)
		}
		cases = append(cases, originCase{what: "GET of the SSE endpoint with Origin: " + badOrigin, status: x.Status, reply: fmt.Sprintf("HTTP %d", x.Status)})
		// A message POSTed to the session's endpoint.
		n := len(tr.Exchanges())
		raw, err := wire.EncodeRequest(s.Conn.NextID(), "ping", nil)
		if err != nil {
			return conform.Errorf("encode ping: %v", err)
		}
		m, _ := wire.Decode(raw)
		resp, err := s.Conn.CallRaw(transport.WithHeaders(t.Ctx, hdr("Origin", badOrigin)), m.ID, "ping", raw)
		c := originCase{what: "ping POSTed with Origin: " + badOrigin, reply: conform.Describe(resp, err)}
		for _, x := range tr.Exchanges()[n:] {
			if x.Method == http.MethodPost {
				c.status = x.Status
				c.reply = fmt.Sprintf("HTTP %d", x.Status)
				break
			}
		}
		cases = append(cases, c)
		return judgeOrigin("a 4xx status for a foreign Origin", func(status int) bool { return status >= 400 && status < 500 }, cases)
	},
})

// SSE-MESSAGE-EVENT-01 — 2024-11-05/basic/transports.mdx (HTTP with SSE).
var _ = conform.Register(conform.Check{
	ID: "SSE-MESSAGE-EVENT-01", Title: "server messages are SSE events of type message",
	Level: conform.Descriptive, Revisions: revision.Span("R1"), Group: conform.GroupSSE, Phase: conform.PhaseTranscript, Needs: conform.NeedsAny,
	Source: ssePage + ` (HTTP with SSE): "Server messages are sent as SSE message events, with the message content encoded as JSON in the event data."`,
	Run: func(t *conform.T) conform.Verdict {
		if _, _, v := sseSession(t); v != nil {
			return *v
		}
		var f conform.Findings
		messages := 0
		for _, s := range t.Sessions() {
			tr, ok := s.Conn.Transport().(*transport.SSE)
			if !ok {
				continue
			}
			for _, e := range t.Transcript(s) {
				if e.Dir == wire.Received && e.Source == "sse" {
					messages++
				}
			}
			ignored, n := tr.Ignored()
			for _, ev := range ignored {
				f.Fail(fmt.Sprintf("%s: an event of type %q carries %s", s.Label, ev.Type, conform.Clip(ev.Data, 80)))
			}
			if n > len(ignored) {
				f.Fail(fmt.Sprintf("%s: %d more events of other types with data", s.Label, n-len(ignored)))
			}
		}
		if f.Failed() {
			return f.Violation("every server message in an event of type message (the type a client reads)")
		}
		if messages == 0 {
			return conform.Skip(reports.NotExercised, "no server message arrived on the event stream")
		}
		return conform.Pass("%d server messages, each in an event of type message; no data under another type", messages)
	},
})
