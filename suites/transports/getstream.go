package transports

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The GET stream rows: every legacy Streamable HTTP session of the suite opens the
// optional GET stream right after initialize (conform's legacy driver), so its
// answer and everything it carried are in the session's record.

// getStreams returns a session's GET exchanges that opened a stream of their own (not
// a resumption).
func getStreams(hs transport.HTTPSession) (streams []transport.Exchange, refused []transport.Exchange) {
	for _, x := range hs.Exchanges() {
		if x.Method != http.MethodGet || x.LastEventID != "" || x.Probe {
			continue
		}
		if x.Stream != nil {
			streams = append(streams, x)
		} else {
			refused = append(refused, x)
		}
	}
	return streams, refused
}

// SHTTP-GET-01 — {rev}/basic/transports.mdx (Listening for Messages from the Server).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-GET-01", Title: "GET with Accept: text/event-stream is answered with an event stream or 405",
	Run: func(t *conform.T) conform.Verdict {
		_, hs := conform.TransportOf[probeStreamer](t)
		for _, x := range hs.Exchanges() {
			if x.Method != http.MethodGet || x.LastEventID != "" || x.Probe {
				continue
			}
			// The session's GET after initialize, with Mcp-Session-Id and (from
			// 2025-06-18) MCP-Protocol-Version, as the session sends every request.
			switch {
			case x.Status == http.StatusMethodNotAllowed:
				return conform.Pass("GET → HTTP 405: the server offers no GET stream")
			case x.Status >= 200 && x.Status < 300 && x.Stream != nil:
				return conform.Pass("GET → HTTP %d, Content-Type %q", x.Status, x.ContentType)
			}
			return conform.Violation("Content-Type: text/event-stream or HTTP 405", fmt.Sprintf("HTTP %d with Content-Type %q", x.Status, x.ContentType))
		}
		return conform.Errorf("not verified: the session's GET after initialize got no HTTP reply")
	},
})

// SHTTP-GET-NORESP-01 — {rev}/basic/transports.mdx (Listening for Messages from the Server).
var _ = conform.Register(httpTranscriptCheck(conform.Check{
	ID: "SHTTP-GET-NORESP-01", Title: "the GET stream carries no JSON-RPC response",
}, func(t *conform.T, ss []*conform.Session, hss []transport.HTTPSession) conform.Verdict {
	open := 0
	for _, hs := range hss {
		streams, _ := getStreams(hs)
		open += len(streams)
	}
	var f conform.Findings
	receivedOverHTTP(t, func(s *conform.Session, e wire.Entry, _ sessionRequests) {
		// The suite never resumes on the session's own GET streams: every
		// frame from one is from a stream of its own.
		if e.Source != "get" {
			return
		}
		f.Judged++
		if e.Msg.IsResponse() {
			f.Fail(fmt.Sprintf("%s: a response (id %s) on the GET stream", where(s, e), e.Msg.ID))
		}
	})
	switch {
	case open == 0:
		return conform.Skip(conform.NotApplicable, "no GET stream was open (the server answered GET without an event stream)")
	case f.Judged == 0:
		return conform.Skip(conform.NotExercised, "the %d GET stream(s) carried no message", open)
	}
	return f.Verdict("no response on a GET stream", "", fmt.Sprintf("%d message(s) on %d GET stream(s), none a response", f.Judged, open))
}))

// SHTTP-GET-UNRELATED-01 — {rev}/basic/transports.mdx (Listening for Messages from the Server).
var _ = conform.Register(httpMessageCheck(conform.Check{
	ID: "SHTTP-GET-UNRELATED-01", Title: "the GET stream carries no message of a request of the client's",
}, func(s *conform.Session, e wire.Entry, sent sessionRequests, f *conform.Findings) {
	if e.Source != "get" {
		return
	}
	f.Judged++
	// What ties a message to a request provably: its progress token, or
	// the request a cancellation names. A token of another session is
	// SHTTP-NO-BROADCAST-01's finding.
	switch e.Msg.Method {
	case "notifications/progress":
		if id, ok := sent.byToken[progressToken(e.Msg)]; ok {
			f.Fail(fmt.Sprintf("%s: progress for the request with id %s on the GET stream", where(s, e), id))
		}
	case "notifications/cancelled":
		if id, ok := cancelledRequest(e.Msg); ok {
			if _, own := sent.tokens[id]; own {
				f.Fail(fmt.Sprintf("%s: notifications/cancelled for the request with id %s on the GET stream", where(s, e), id))
			}
		}
	}
}, "no GET stream carried a message",
	"messages on the GET stream unrelated to the client's requests",
	"%d message(s) on GET streams, none tied to a request of the suite's"))

// broadcastTool is the fixture tool whose progress SHTTP-NO-BROADCAST-01 follows.
const broadcastTool = "test_tool_with_progress"

// SHTTP-NO-BROADCAST-01 — {rev}/basic/transports.mdx (Multiple Connections).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-NO-BROADCAST-01", Title: "each message goes on one stream: not on every stream or every session",
	// One session of its own per column: the session whose call's messages must not
	// reach another session's streams (a broadcast to every session, as the issue's
	// server does, is seen the same way on every run only with a session the check
	// itself holds open; other columns' sessions come and go).
	FreshSessions: 1,
	// A transcript check: it judges once the column has settled, when both
	// sessions are closed and every stream the server ended has been read to its
	// end, so that a progress sent to any of their streams is in without a grace of
	// its own.
	Probe: func(t *conform.T) { broadcastProbeOf(t) },
	Run:   runNoBroadcast,
})

// broadcastProbe is what SHTTP-NO-BROADCAST-01's probe did: a call of
// broadcastTool on a second session, while the main session listened.
type broadcastProbe struct {
	skip       *conform.Verdict // why the probe was not made
	caller     *conform.Session
	second     bool // the calling session opened a second GET stream
	markMain   int
	markCaller int
	call       *toolkit.Outcome
	token      string // the call's progressToken, raw JSON
}

// broadcastProbeOf makes the probe once per column: it opens the calling session
// (with a second GET stream where the server allows one) and calls broadcastTool
// there. It waits for nothing after the call's reply: the column's settle does.
func broadcastProbeOf(t *conform.T) *broadcastProbe {
	s, hs := conform.TransportOf[probeStreamer](t)
	return t.Once("shttp.no-broadcast:"+s.Label, func() any {
		stop := func(v conform.Verdict) *broadcastProbe { return &broadcastProbe{skip: &v} }
		if streams, _ := getStreams(hs); len(streams) == 0 {
			return stop(conform.Skip(conform.NotApplicable, "the session has no GET stream (the server answered GET without one): every message has the one stream of its request"))
		}
		if _, ok := fixtureTool(t, broadcastTool); !ok {
			return stop(conform.Skip(conform.MissingFixture, "list the fixture tool %s (the fixture contract, refserver/doc.go) to follow one call's progress across streams", broadcastTool))
		}
		caller, err := t.NewSession()
		if err != nil {
			return stop(conform.Errorf("not verified: open a second session: %v", err))
		}
		p := &broadcastProbe{caller: caller}
		if chs, ok := caller.Conn.Transport().(transport.HTTPSession); ok {
			p.second, _ = chs.OpenGetStream(t.Ctx)
		}
		p.markMain, p.markCaller = s.Conn.Seq(), caller.Conn.Seq()
		p.call = toolkit.Call(t, caller, broadcastTool, json.RawMessage(`{}`))
		if p.call.Err != nil || p.call.Resp == nil {
			return stop(conform.Errorf("not verified: tools/call %s on the second session: %s", broadcastTool, p.call.Describe()))
		}
		tok, _ := json.Marshal(p.call.Token)
		p.token = string(tok)
		return p
	}).(*broadcastProbe)
}

func runNoBroadcast(t *conform.T) conform.Verdict {
	p := broadcastProbeOf(t)
	if p.skip != nil {
		return *p.skip
	}
	s, caller := t.Session(), p.caller
	var f conform.Findings
	seen := map[string]int{}
	for e := range caller.Conn.EachReceived(p.markCaller) {
		if e.Msg != nil && e.Msg.Method == "notifications/progress" && progressToken(e.Msg) == p.token {
			f.Judged++
			seen[string(e.Msg.Params)]++
			if seen[string(e.Msg.Params)] == 2 {
				f.Fail(fmt.Sprintf("%s: progress %s arrived again (from %s)", where(caller, e), conform.ClipBytes(e.Msg.Params, 80), e.Source))
			}
		}
	}
	for e := range s.Conn.EachReceived(p.markMain) {
		if e.Msg != nil && e.Msg.Method == "notifications/progress" && progressToken(e.Msg) == p.token {
			f.Fail(fmt.Sprintf("%s: progress of the other session's call (token %s) on this session's %s stream", where(s, e), p.token, e.Source))
		}
	}
	if f.Judged == 0 && !f.Failed() {
		return conform.Skip(conform.NotExercised, "%s sent no progress notification (%s)", broadcastTool, p.call.Describe())
	}
	streams := "its POST stream and its GET stream"
	if p.second {
		streams = "its POST stream and two GET streams"
	}
	return f.Verdict("each progress notification once, on one stream of the calling session", "",
		fmt.Sprintf("%d progress notification(s) of one call, each once across %s, none on another session's stream", f.Judged, streams))
}
