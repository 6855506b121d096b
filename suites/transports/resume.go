package transports

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The resumability rows (2025-03-26 to 2025-11-25: Resumability and Redelivery, and
// 2025-11-25's priming and polling). Event ids come from the transport's record of
// every stream; resumption is one probe per column (resumeProbeOf), shared by
// SHTTP-RESUME-01, SHTTP-DISCONNECT-01 and SHTTP-RETRY-01.

// SHTTP-EVENTID-01 — {rev}/basic/transports.mdx (Resumability and Redelivery).
var _ = conform.Register(httpTranscriptCheck(conform.Check{
	ID: "SHTTP-EVENTID-01", Title: "SSE event ids are unique across the session's streams",
}, func(t *conform.T, ss []*conform.Session, hss []transport.HTTPSession) conform.Verdict {
	var f conform.Findings
	streams := 0
	for _, hs := range hss {
		first := map[string]int{} // id → the stream (exchange index) that carried it first
		for i, x := range hs.Exchanges() {
			// A resumed stream carries again ids the server already sent: they
			// are the cursor of that stream, not new events (SHTTP-RESUME-01).
			if x.Stream == nil || x.LastEventID != "" {
				continue
			}
			if len(x.Stream.IDs) > 0 {
				streams++
			}
			for _, id := range x.Stream.IDs {
				f.Judged++
				if j, dup := first[id]; dup {
					where := "earlier on that stream"
					if j != i {
						where = "on another stream"
					}
					f.Fail(fmt.Sprintf("event id %q on a %s stream, already used %s", id, x.Method, where))
					continue
				}
				first[id] = i
			}
		}
	}
	return f.VerdictOrNone("no SSE event carried an id (ids are optional)",
		"every event id once in the session",
		fmt.Sprintf("%d event ids on %d stream(s), each once", f.Judged, streams))
}))

// SHTTP-PRIME-01 — 2025-11-25/basic/transports.mdx (Sending Messages to the Server).
var _ = conform.Register(httpTranscriptCheck(conform.Check{
	ID: "SHTTP-PRIME-01", Title: "a POST's SSE stream starts with a priming event (an id, empty data)",
}, func(t *conform.T, ss []*conform.Session, hss []transport.HTTPSession) conform.Verdict {
	var f conform.Findings
	for i, hs := range hss {
		if ss[i].Requested != t.Rev.Name {
			// A session that asked another version (a negotiation probe) had its
			// initialize stream primed, or not, by that version's rules.
			continue
		}
		for _, x := range hs.Exchanges() {
			// New streams only: a resumed stream goes on from its cursor. And a
			// POST's stream only: the sentence is the POST section's; a GET stream
			// owes a retry field only when its connection closes early
			// (Listening for Messages from the Server), not a priming event.
			if x.Stream == nil || x.LastEventID != "" || x.Stream.Events == 0 || x.Method != http.MethodPost {
				continue
			}
			f.Judged++
			kind := "the stream of " + toolkit.Or(x.RPCMethod, "a POST")
			switch {
			case !x.Stream.FirstHasID:
				f.Fail(fmt.Sprintf("%s: %s starts with an event without an id", ss[i].Label, kind))
			case !x.Stream.FirstEmpty:
				f.Fail(fmt.Sprintf("%s: %s starts with event %q, which carries data", ss[i].Label, kind, x.Stream.FirstID))
			default:
				continue
			}
			t.Cite(ss[i], requestSeq(ss[i], x.Request))
		}
	}
	return f.VerdictOrNone("no POST's SSE stream carried an event",
		"every POST's SSE stream primed: a first event with an id and empty data",
		fmt.Sprintf("%d SSE stream(s) of POSTs, each primed", f.Judged))
}))

// resumeTool is the fixture's slow tool: a call long enough to drop and resume.
const resumeTool = "test_slow"

// resumeMs bounds the probe's call: the fixture's untilResumed (refserver/doc.go)
// has it work until its stream is resumed, so the order of drop, resumption and
// response comes from the requests, not from a duration; the bound ends a call
// whose stream is never resumed.
const resumeMs = 450

// resumeProbe is what the column's resumption probe saw.
type resumeProbe struct {
	skip *conform.Verdict // the probe did not run: why

	id, token string // the slow call's raw id and progress token
	first     streamRead
	dropped   bool // the suite dropped the stream (the server had not ended it)
	retry     int  // the last retry field before the stream ended (-1: none)
	lastID    string

	otherIDs  map[string]bool // ids of the session's other streams
	otherCall string          // raw id of the call made while away

	status   int    // the resuming GET's HTTP status (0: none sent)
	notSSE   string // the GET's reply when it was no event stream
	resumed  streamRead
	lastCanc string // test_last_cancellation's answer afterwards ("" when not listed)
}

// resumeProbeOf runs the column's resumption probe once: a test_slow call whose
// stream is dropped (by the suite at its first message with an id, or, in
// 2025-11-25, by a server that polls), another call while away, then a GET with
// Last-Event-ID, read until the slow call's response or the stream's end. A probe
// that could not run ends the check with why, as it would end each of its checks.
func resumeProbeOf(t *conform.T) *resumeProbe {
	s, ps := conform.TransportOf[probeStreamer](t)
	p := t.Once("shttp.resume:"+s.Label, func() any { return runResumeProbe(t, s, ps) }).(*resumeProbe)
	if p.skip != nil {
		t.Stop(*p.skip)
	}
	return p
}

func runResumeProbe(t *conform.T, s *conform.Session, ps probeStreamer) *resumeProbe {
	p := &resumeProbe{retry: -1}
	if _, ok := fixtureTool(t, resumeTool); !ok {
		v := conform.Skip(conform.MissingFixture, "list the fixture tool %s (the fixture contract, refserver/doc.go): a call long enough to drop and resume", resumeTool)
		p.skip = &v
		return p
	}
	// Before 2025-11-25 the suite drops the stream at the call's first message
	// with an id, its progress as it starts. From 2025-11-25 a primed stream may
	// be closed by the server to poll, and the probe leaves the chance to it: the
	// call asks no progress, so nothing ends the read before the server's close
	// (or the response, from a server that does not poll).
	if !t.Rev.AtLeast("2025-11-25") {
		p.token = "mcp-conform-resume-" + s.Label
	}
	id, body, err := toolCallBody(s, resumeTool, map[string]any{"ms": resumeMs, "untilResumed": true}, p.token)
	if err != nil {
		v := conform.Errorf("%v", err)
		p.skip = &v
		return p
	}
	p.id = string(id.Raw())
	rep, err := ps.OpenProbeStream(t.Ctx, http.MethodPost, body, nil)
	if err != nil {
		v := conform.Silence("a reply to tools/call "+resumeTool, err)
		p.skip = &v
		return p
	}
	if rep.Stream == nil {
		v := conform.Skip(conform.NotExercised, "tools/call %s was answered with HTTP %d (%q), not an SSE stream: there is no stream to resume", resumeTool, rep.Exchange.Status, rep.Exchange.ContentType)
		p.skip = &v
		return p
	}
	// Drop at the first message with an id: what follows must wait for the client.
	p.first = readUntil(t.Ctx, rep.Stream, t.Timeout()+resumeMs*time.Millisecond, p.id, func(ev transport.Event) bool {
		return ev.HasID && ev.Data != ""
	})
	for _, ev := range p.first.events {
		if ev.Retry >= 0 {
			p.retry = ev.Retry
		}
		if ev.HasID {
			p.lastID = ev.ID
		}
	}
	p.dropped = !p.first.ended
	rep.Stream.Close()
	if p.first.response || p.lastID == "" {
		return p
	}
	// Another call while away: its events must not come back on the resumed stream.
	if _, ok := fixtureTool(t, "test_simple_text"); ok {
		oid, obody, err := toolCallBody(s, "test_simple_text", map[string]any{}, "")
		if err == nil {
			if orep, err := ps.OpenProbeStream(t.Ctx, http.MethodPost, obody, nil); err == nil && orep.Stream != nil {
				p.otherCall = string(oid.Raw())
				readUntil(t.Ctx, orep.Stream, t.Timeout(), p.otherCall, nil)
				orep.Stream.Close()
			}
		}
	}
	p.otherIDs = map[string]bool{}
	for _, x := range ps.Exchanges() {
		if x.Stream != nil && x.LastEventID == "" && !(x.Probe && x.Request == p.id) {
			for _, id := range x.Stream.IDs {
				p.otherIDs[id] = true
			}
		}
	}
	if p.retry > 0 && !p.dropped {
		// The client MUST wait the retry the server asked for (bounded by --timeout).
		time.Sleep(min(time.Duration(p.retry)*time.Millisecond, t.Timeout()))
	}
	rrep, err := ps.OpenProbeStream(t.Ctx, http.MethodGet, nil, http.Header{"Last-Event-ID": {p.lastID}})
	if err != nil {
		v := conform.Silence("a reply to the GET with Last-Event-ID", err)
		p.skip = &v
		return p
	}
	p.status = rrep.Exchange.Status
	if rrep.Stream == nil {
		p.notSSE = fmt.Sprintf("HTTP %d with Content-Type %q", rrep.Exchange.Status, rrep.Exchange.ContentType)
	} else {
		p.resumed = readUntil(t.Ctx, rrep.Stream, t.Timeout()+resumeMs*time.Millisecond, p.id, func(ev transport.Event) bool {
			return responseTo(ev.Data, p.id)
		})
		rrep.Stream.Close()
	}
	if args, ok := fixtureTool(t, "test_last_cancellation"); ok {
		if args == nil {
			args = json.RawMessage(`{}`)
		}
		o := toolkit.Call(t, s, "test_last_cancellation", args)
		if o.Succeeded() && len(o.Content) > 0 {
			var b struct{ Text string }
			_ = json.Unmarshal(o.Content[0], &b)
			p.lastCanc = b.Text
		}
	}
	return p
}

// SHTTP-RESUME-01 — {rev}/basic/transports.mdx (Resumability and Redelivery).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-RESUME-01", Title: "a resumed stream replays only that stream's events",
	Run: func(t *conform.T) conform.Verdict {
		p := resumeProbeOf(t)
		switch {
		case p.first.response:
			return conform.Skip(conform.NotExercised, "the response to %s came before any other event with an id: nothing was left to resume", resumeTool)
		case p.lastID == "":
			return conform.Skip(conform.NotExercised, "the stream of %s carried no event id (ids are optional): it cannot be resumed", resumeTool)
		case p.notSSE != "":
			return conform.Skip(conform.NotExercised, "GET with Last-Event-ID %q was answered with %s: the server does not resume streams (it MAY)", p.lastID, p.notSSE)
		}
		var f conform.Findings
		for _, ev := range p.resumed.events {
			if ev.Data == "" {
				continue
			}
			f.Judged++
			m, err := decodeEvent(ev.Data)
			switch {
			case ev.HasID && p.otherIDs[ev.ID]:
				f.Fail(fmt.Sprintf("event %q, first sent on another stream, was replayed", ev.ID))
			case err != nil:
			case m.IsResponse() && string(m.ID.Raw()) != p.id:
				f.Fail(fmt.Sprintf("the response to another request (id %s) was replayed", m.ID))
			}
		}
		return f.VerdictOrNone(fmt.Sprintf("the resumed stream (GET with Last-Event-ID %q) carried no message", p.lastID),
			"only the resumed stream's messages",
			fmt.Sprintf("the stream resumed from event %q carried %d message(s), all of that stream", p.lastID, f.Judged))
	},
})

// SHTTP-DISCONNECT-01 — {rev}/basic/transports.mdx (Sending Messages to the Server).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-DISCONNECT-01", Title: "a dropped connection does not cancel the request",
	Run: func(t *conform.T) conform.Verdict {
		p := resumeProbeOf(t)
		switch {
		case p.first.response || p.lastID == "":
			return conform.Skip(conform.NotExercised, "the stream of %s could not be dropped before its response and resumed (no earlier event with an id)", resumeTool)
		}
		how := "the suite dropped the stream"
		if !p.dropped {
			how = "the server closed the connection"
		}
		if p.lastCanc == p.id {
			return conform.Violation(fmt.Sprintf("the call running on after %s", how),
				fmt.Sprintf("test_last_cancellation names the call (id %s): the disconnect cancelled it", p.id))
		}
		if p.resumed.response {
			return conform.Pass("%s after event %q; the call ran on, and its response came on the resumed stream", how, p.lastID)
		}
		if p.notSSE != "" {
			return conform.Skip(conform.NotExercised, "%s; GET with Last-Event-ID was answered with %s, so whether the call ran on cannot be seen", how, p.notSSE)
		}
		return conform.Skip(conform.NotExercised, "%s; the resumed stream ended without the response (%d event(s)), and nothing tells whether the call was cancelled", how, len(p.resumed.events))
	},
})

// SHTTP-RETRY-01 — 2025-11-25/basic/transports.mdx (Sending Messages to the Server).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-RETRY-01", Title: "a connection closed before its stream ends is preceded by a retry field",
	Run: func(t *conform.T) conform.Verdict {
		p := resumeProbeOf(t)
		switch {
		case p.first.response || p.dropped || p.lastID == "":
			return conform.Skip(conform.NotExercised, "the server kept the connection of %s's stream open (it did not poll): the rule binds a server that closes it early", resumeTool)
		case p.retry >= 0:
			return conform.Pass("the connection closed after %d event(s), a retry of %d ms among them", len(p.first.events), p.retry)
		}
		return conform.Violation("a retry field before the connection closed", fmt.Sprintf("the connection closed after %d event(s) (last id %q), none with a retry field", len(p.first.events), p.lastID))
	},
})

// decodeEvent decodes an event's data as one JSON-RPC message.
func decodeEvent(data string) (*wire.Message, error) {
	return wire.Decode([]byte(strings.TrimSpace(data)))
}
