package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The 2026-07-28 rows of a request's own SSE stream: what it may carry, when it
// ends, and that closing it cancels the request.

// changeNotification reports whether method is a long-lived change notification,
// which 2026-07-28 delivers on a subscriptions/listen stream only.
func changeNotification(method string) bool {
	return strings.HasSuffix(method, "/list_changed") || method == "notifications/resources/updated"
}

// H5-SSE-RELATED-01 — 2026-07-28/basic/transports/streamable-http.mdx (Receiving Messages).
var _ = conform.Register(conform.Check{
	ID: "H5-SSE-RELATED-01", Title: "a request's SSE stream carries only notifications of that request, and no request",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupH5, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: h5Page + ` (Receiving Messages): "These notifications MUST relate to the originating client request." "The server MUST NOT send independent JSON-RPC requests on this stream." "Long-lived notification streams are obtained by sending a subscriptions/listen request."`,
	Run: func(t *conform.T) conform.Verdict {
		ss, _, v := httpSessions(t)
		if v != nil {
			return *v
		}
		var f conform.Findings
		for _, s := range ss {
			entries := t.Transcript(s)
			tokens, methods := sentRequests(s, entries)
			for _, e := range entries {
				if e.Dir != wire.Received || e.Stream == "" || e.Msg == nil || e.Msg.IsResponse() {
					continue
				}
				if methods[e.Stream] == "subscriptions/listen" {
					continue // the listen stream's rules are NOTIF-LISTEN-*'s
				}
				f.Judged++
				what := fmt.Sprintf("%s: on the stream of %s (id %s)", where(s, e), methods[e.Stream], e.Stream)
				switch {
				case e.Msg.Kind == wire.KindRequest:
					f.Fail(fmt.Sprintf("%s: a %s request", what, e.Msg.Method))
				case changeNotification(e.Msg.Method):
					f.Fail(fmt.Sprintf("%s: %s, a change notification that belongs on a subscriptions/listen stream", what, e.Msg.Method))
				case e.Msg.Method == "notifications/progress" && progressToken(e.Msg) != tokens[e.Stream]:
					f.Fail(fmt.Sprintf("%s: progress for token %s, not the request's (%s)", what, progressToken(e.Msg), toolkit.Or(tokens[e.Stream], "none")))
				}
			}
		}
		if f.Judged == 0 {
			return conform.Skip(reports.NotExercised, "no request's SSE stream carried a message before its response")
		}
		return f.Verdict("only notifications of the originating request on its stream", "",
			fmt.Sprintf("%d message(s) on request streams, each a notification of its request", f.Judged))
	},
})

// H5-SSE-END-01 — 2026-07-28/basic/transports/streamable-http.mdx (Receiving Messages).
var _ = conform.Register(conform.Check{
	ID: "H5-SSE-END-01", Title: "a request's SSE stream ends with its final response",
	Level: conform.Should, Revisions: revision.Span("R5"), Group: conform.GroupH5, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: h5Page + ` (Receiving Messages): "The final JSON-RPC response SHOULD terminate the stream."`,
	Run: func(t *conform.T) conform.Verdict {
		s, ps, v := httpSession(t)
		if v != nil {
			return *v
		}
		p, v := runEndProbe(t, s, ps)
		if v != nil {
			return *v
		}
		return judgeEnd(t, p, true)
	},
})

// cancelTool is the slow fixture tool H5-CANCEL-CLOSE-01 cancels.
const cancelTool = "test_slow"

// H5-CANCEL-CLOSE-01 — 2026-07-28/basic/transports/streamable-http.mdx (Cancellation).
var _ = conform.Register(conform.Check{
	ID: "H5-CANCEL-CLOSE-01", Title: "closing a request's SSE stream cancels the request",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupH5, Phase: conform.PhaseClean, Needs: conform.NeedsFixture,
	Source: h5Page + ` (Cancellation): "Closing the SSE response stream MUST be treated by the server as cancellation of that request." "The server SHOULD stop work on the cancelled request as soon as practical and MUST NOT send any further messages for it."; 2026-07-28/basic/patterns/cancellation.mdx`,
	Run: func(t *conform.T) conform.Verdict {
		s, ps, v := httpSession(t)
		if v != nil {
			return *v
		}
		for _, name := range []string{cancelTool, "test_last_cancellation"} {
			if _, ok := fixtureTool(t, name); !ok {
				return conform.Skip(reports.NeedsFixture, "list the fixture tools %s and test_last_cancellation (the fixture contract, fixtures/doc.go): the slow call to cancel and the record of its cancellation", cancelTool)
			}
		}
		id, body, err := toolCallBody(s, cancelTool, map[string]any{"ms": 5000}, "mcp-conform-cancel-"+s.Label)
		if err != nil {
			return conform.Errorf("%v", err)
		}
		raw := string(id.Raw())
		rep, err := ps.OpenProbeStream(t.Ctx, http.MethodPost, body, nil)
		if err != nil {
			return conform.Silence("a reply to tools/call "+cancelTool, err)
		}
		if rep.Stream == nil {
			return conform.Skip(reports.NotExercised, "tools/call %s was answered with HTTP %d (%q), not an SSE stream to close", cancelTool, rep.Exchange.Status, rep.Exchange.ContentType)
		}
		// The first event proves the call is running; then the stream is closed.
		r := readUntil(t.Ctx, rep.Stream, t.Timeout(), raw, func(transport.Event) bool { return true })
		rep.Stream.Close()
		if r.response || r.ended || r.err != nil {
			return conform.Skip(reports.NotExercised, "the stream of %s ended or answered before the suite could close it (%d event(s))", cancelTool, len(r.events))
		}
		// The server learns of the close when its side of the connection fails: ask
		// until it has recorded a cancellation of the call, within --timeout.
		deadline := time.Now().Add(t.Timeout())
		last := ""
		for {
			o := toolkit.Call(t, s, "test_last_cancellation", json.RawMessage(`{}`))
			if o.Succeeded() && len(o.Content) > 0 {
				var b struct{ Text string }
				_ = json.Unmarshal(o.Content[0], &b)
				last = b.Text
			}
			if last == raw {
				return conform.Pass("the call (id %s) was cancelled when its stream was closed: test_last_cancellation names it", raw)
			}
			if time.Now().After(deadline) {
				break
			}
			select {
			case <-t.Ctx.Done():
				return conform.Errorf("not verified: %v", t.Ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
		return conform.Violation(fmt.Sprintf("the call (id %s) cancelled when its stream was closed", raw),
			fmt.Sprintf("test_last_cancellation still answers %q %s after the close", last, t.Timeout()))
	},
})
