package transports

import (
	"fmt"
	"net/http"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// The rows of a POST answered with an SSE stream (2025-03-26 to 2025-11-25): the
// transport records the request each stream answers (Exchange.Request) and tags every
// message read from it with that request's id (wire.Entry.Stream).

// cancelledBySuite returns the raw ids of the requests the session cancelled with
// notifications/cancelled: their streams owe no response.
func cancelledBySuite(entries []wire.Entry) map[string]bool {
	out := map[string]bool{}
	for _, e := range entries {
		if e.Dir == wire.Sent && e.Msg != nil && e.Msg.Method == "notifications/cancelled" {
			if id, ok := cancelledRequest(e.Msg); ok {
				out[id] = true
			}
		}
	}
	return out
}

// SHTTP-POST-SSE-RESP-01 — {rev}/basic/transports.mdx (Sending Messages to the Server).
var _ = conform.Register(httpTranscriptCheck(conform.Check{
	ID: "SHTTP-POST-SSE-RESP-01", Title: "a request's SSE stream carries its response",
}, func(t *conform.T, ss []*conform.Session, hss []transport.HTTPSession) conform.Verdict {
	var f conform.Findings
	for i, s := range ss {
		entries := t.Transcript(s)
		cancelled := cancelledBySuite(entries)
		onStream, elsewhere := map[string]bool{}, map[string]string{}
		for _, e := range entries {
			if e.Dir != wire.Received || e.Msg == nil || !e.Msg.IsResponse() {
				continue
			}
			id := string(e.Msg.ID.Raw())
			if e.Stream == id {
				onStream[id] = true
			} else if e.Stream == "" {
				elsewhere[id] = e.Source
			}
		}
		for _, x := range hss[i].Exchanges() {
			if x.Method != http.MethodPost || x.Probe || x.Stream == nil || x.Request == "" || x.Stream.EndReason != "eof" || cancelled[x.Request] {
				continue // only streams the server ended, of requests still owed a response
			}
			switch {
			case onStream[x.Request]:
				f.Judged++
			case elsewhere[x.Request] != "":
				f.Judged++
				f.Fail(fmt.Sprintf("%s: the response to %s (id %s) came on the %s stream, not on the request's SSE stream", s.Label, x.RPCMethod, x.Request, elsewhere[x.Request]))
			case s.Rev.AtLeast("2025-11-25") && len(x.Stream.IDs) > 0:
				// 2025-11-25 lets a server close the connection after an event
				// with an id and be polled; the session's client does not poll.
				f.Note(fmt.Sprintf("%s: the stream of %s (id %s) ended without its response after event id %s (polling is allowed; SHTTP-RESUME-01 follows a resumption)", s.Label, x.RPCMethod, x.Request, x.Stream.IDs[len(x.Stream.IDs)-1]))
			default:
				f.Judged++
				f.Fail(fmt.Sprintf("%s: the stream of %s (id %s) ended after %d event(s) without its response", s.Label, x.RPCMethod, x.Request, x.Stream.Events))
			}
		}
	}
	return f.VerdictOrNone("no request was answered with an SSE stream that the server ended",
		"the response on the SSE stream of its request",
		fmt.Sprintf("%d request SSE stream(s), each carrying its response", f.Judged))
}))

// SHTTP-POST-SSE-RELATED-01 — {rev}/basic/transports.mdx (Sending Messages to the Server).
var _ = conform.Register(httpMessageCheck(conform.Check{
	ID: "SHTTP-POST-SSE-RELATED-01", Title: "progress on a request's SSE stream is that request's",
}, func(s *conform.Session, e wire.Entry, sent sessionRequests, f *conform.Findings) {
	// A progress token is what ties a notification to a request provably.
	if e.Stream == "" || e.Msg.Method != "notifications/progress" {
		return
	}
	f.Judged++
	if task := sent.tasks[e.Stream]; task != "" && relatedTask(e.Msg) == task {
		// 2025-11-25 basic/utilities/tasks.mdx: a task's progress keeps the
		// original token for the task's lifetime, a message related to a
		// task carries the related-task _meta, and "maintaining an SSE
		// stream on tasks/result" is how a server may deliver them: the
		// stream of tasks/result for that task is theirs.
		return
	}
	if got, want := progressToken(e.Msg), sent.tokens[e.Stream]; got != want {
		if want == "" {
			want = "none"
		}
		f.Fail(fmt.Sprintf("%s: progress for token %s on the stream of %s (id %s), whose token is %s", where(s, e), got, sent.methods[e.Stream], e.Stream, want))
	}
}, "no progress notification came on a request's SSE stream",
	"progress on a request's stream for that request's token",
	"%d progress notification(s) on request streams, each for that request's token"))

// SHTTP-POST-SSE-END-01 — {rev}/basic/transports.mdx (Sending Messages to the Server).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-POST-SSE-END-01", Title: "a request's SSE stream ends after its response, and (2025-03-26, 2025-06-18) not before",
	Run: runEndCheck,
})

// runEndCheck is the Run of SHTTP-POST-SSE-END-01 and H5-SSE-END-01: one end probe,
// judged with polling from 2025-11-25 on (2026-07-28, H5-SSE-END-01's only revision,
// keeps the allowance).
func runEndCheck(t *conform.T) conform.Verdict {
	s, ps := conform.TransportOf[probeStreamer](t)
	p := runEndProbe(t, s, ps)
	return judgeEnd(t, p, s.Rev.AtLeast("2025-11-25"))
}

// judgeEnd judges an end probe; polling says a stream may close before its response
// (2025-11-25 and 2026-07-28 drop the rule against it; 2025-11-25 polls).
func judgeEnd(t *conform.T, p endProbe, polling bool) conform.Verdict {
	what := "tools/call " + p.tool
	switch {
	case p.notStream != "":
		return conform.Skip(conform.NotExercised, "%s was answered with %s, not an SSE stream", what, p.notStream)
	case p.before.err != nil && !p.before.response:
		return conform.Silence("the response to "+what+" on its SSE stream", p.before.err)
	case !p.before.response && polling:
		return conform.Skip(conform.NotExercised, "the stream of %s ended before its response after %d event(s) (a closed connection this revision allows: the client may poll)", what, len(p.before.events))
	case !p.before.response:
		return conform.Violation("the stream open until the response to "+what, fmt.Sprintf("the stream ended after %d event(s), without the response", len(p.before.events)))
	case p.open:
		return conform.Violation("the stream ended once the response to "+what+" was sent",
			fmt.Sprintf("the stream was still open %s after the response (%d more event(s))", lingerBound(t), len(p.after.events)))
	}
	return conform.Pass("the stream of %s ended after its response (%d event(s) before it)", what, len(p.before.events))
}
