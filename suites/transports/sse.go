package transports

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The 2024-11-05 HTTP+SSE transport: a GET event stream whose first event names the
// endpoint for POSTs, and server messages as "message" events. Its rules bind only a
// session that runs over it (a target served as HTTP+SSE, given with --transport sse
// or found by transport detection).

// sseOpening returns the column's opening record over HTTP+SSE. An opening check
// runs also in a column whose session failed to open, which the runner cannot
// place on a transport: there another transport's rule does not apply, and a target
// that could not be dialled at all gave nothing to judge.
func sseOpening(t *conform.T) conform.Opening {
	o := t.Opening()
	switch {
	case o.Kind == "sse" && o.SSE != nil:
		return o
	case o.Kind == "":
		t.ErrorNow("not verified: no transport was opened: %v", o.Err)
	}
	t.SkipNow(conform.NotApplicable, "the session runs over %s, not HTTP+SSE (this rule is of the 2024-11-05 HTTP+SSE transport)", o.Kind)
	return o
}

// sseOpeningCheck is an opening check of HTTP+SSE (Opening): judge reads the
// column's opening record over HTTP+SSE (sseOpening).
func sseOpeningCheck(c conform.Check, judge func(o conform.Opening) conform.Verdict) conform.Check {
	c.Opening = true
	c.Run = func(t *conform.T) conform.Verdict { return judge(sseOpening(t)) }
	return c
}

// SSE-ENDPOINT-EVENT-01 — 2024-11-05/basic/transports.mdx (HTTP with SSE). An opening
// check: a stream without a usable endpoint event is exactly a column that cannot
// open, so the verdict comes from the record of the GET, in every column.
var _ = conform.Register(sseOpeningCheck(conform.Check{
	ID: "SSE-ENDPOINT-EVENT-01", Title: "the event stream opens with an endpoint event naming the POST URI",
}, func(o conform.Opening) conform.Verdict { return judgeEndpointEvent(*o.SSE) }))

// judgeEndpointEvent judges what the GET of the event stream showed.
func judgeEndpointEvent(op transport.SSEOpening) conform.Verdict {
	const expected = "a 2xx text/event-stream reply to the GET whose first event is endpoint, its data a URI that resolves to an http(s) URL on the server's origin"
	x := op.Exchange
	if x == nil {
		return conform.Errorf("not verified: the GET of %s got no reply: %v", op.URL, op.Problem)
	}
	got := fmt.Sprintf("GET %s → HTTP %d (Content-Type %q)", op.URL, x.Status, x.ContentType)
	if op.First != nil {
		// An event with no type is read as a message event.
		got += fmt.Sprintf(", first event of type %q with data %q", toolkit.Or(op.First.Type, "message"), conform.Clip(op.First.Data, 120))
	}
	var se *transport.HTTPStatusError
	switch {
	case op.Problem == nil:
		return conform.Pass("%s: the POST URI %s", got, op.Endpoint)
	case errors.As(op.Problem, &se):
		return conform.Violation(expected, got)
	case errors.Is(op.Problem, transport.ErrNoEndpointEvent):
		return conform.Violation(expected, got+": "+problemOf(op.Problem))
	case op.First == nil && errors.Is(op.Problem, context.DeadlineExceeded):
		return conform.Violation(expected, got+", and no event before the opening's deadline (--start-timeout)")
	}
	return conform.Errorf("not verified: %s: %v", got, op.Problem)
}

// problemOf is the last clause of a DialSSE error, the part that says what was wrong
// (the GET and its URL are already said).
func problemOf(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "GET ") {
		msg = msg[i+2:]
	}
	return msg
}

// SSE-POST-01 — 2024-11-05/basic/transports.mdx (HTTP with SSE). An opening check: the
// handshake's messages are the first POSTs, and a server that refuses them loses the
// session, so the verdict comes from their record, in every column.
var _ = conform.Register(sseOpeningCheck(conform.Check{
	ID: "SSE-POST-01", Title: "the POST endpoint accepts the client's messages with 2xx",
}, judgeSSEPosts))

// judgeSSEPosts judges the status of every message the opening POSTed.
func judgeSSEPosts(o conform.Opening) conform.Verdict {
	if o.SSE.Problem != nil {
		return conform.Errorf("not verified: no message was POSTed, the event stream named no usable endpoint (SSE-ENDPOINT-EVENT-01): %v", o.SSE.Problem)
	}
	var f conform.Findings
	var seen []string
	for _, x := range o.Exchanges {
		if x.Method != http.MethodPost {
			continue
		}
		f.Judged++
		// Carried is empty for a body that was not one JSON-RPC message.
		what := fmt.Sprintf("POST of a %s to %s → HTTP %d", toolkit.Or(x.Carried, "message"), o.SSE.Endpoint, x.Status)
		seen = append(seen, what)
		if x.Status < 200 || x.Status > 299 {
			f.Fail(what)
		}
	}
	if f.Judged == 0 {
		return conform.Errorf("not verified: no POST to %s got a reply: %v", o.SSE.Endpoint, o.Err)
	}
	return f.Verdict("a 2xx status for every message POSTed to the endpoint", "", strings.Join(seen, "; "))
}

// SSE-ORIGIN-01 — 2024-11-05/basic/transports.mdx (HTTP with SSE, Security Warning).
var _ = conform.Register(conform.Check{
	ID: "SSE-ORIGIN-01", Title: "a connection from a foreign Origin is refused",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		_, tr := conform.TransportOf[*transport.SSE](t)
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
		n := tr.ExchangeCount()
		raw, err := wire.EncodeRequest(s.Conn.NextID(), "ping", nil)
		if err != nil {
			return conform.Errorf("encode ping: %v", err)
		}
		m, _ := wire.Decode(raw)
		resp, err := s.Conn.CallRaw(transport.WithHeaders(t.Ctx, hdr("Origin", badOrigin)), m.ID, "ping", raw)
		c := originCase{what: "ping POSTed with Origin: " + badOrigin, reply: conform.Describe(resp, err)}
		for _, x := range tr.ExchangesFrom(n) {
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
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
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
			return conform.Skip(conform.NotExercised, "no server message arrived on the event stream")
		}
		return conform.Pass("%d server messages, each in an event of type message; no data under another type", messages)
	},
})
