package transports

import (
	"fmt"
	"net/http"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// The MCP endpoint of Streamable HTTP (2025-03-26 to 2025-11-25): one path for POST
// and GET, what a POST is answered with (202 for a notification or response, JSON
// or SSE for a request, an error status for what the server cannot accept), and the
// Origin check of the Security Warning. Probes that send what a server cannot accept
// go to the spare session (T.SpareSession), which a server may end.

// badOrigin is an origin no local server can call its own: a reserved, unresolvable
// name (the attacker's page of a DNS-rebinding attack).
const badOrigin = "http://mcp-conform.invalid"

// is2xx reports whether status is a success.
func is2xx(status int) bool { return status >= 200 && status < 300 }

// SHTTP-ENDPOINT-01 — {rev}/basic/transports.mdx (Streamable HTTP).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-ENDPOINT-01", Title: "one MCP endpoint path takes both POST and GET",
	Run: func(t *conform.T) conform.Verdict {
		_, hs := conform.TransportOf[*transport.StreamableHTTP](t)
		return judgeEndpoint(hs.Exchanges())
	},
})

// judgeEndpoint reads the session's opening: initialize POSTed to the endpoint (it
// was served, or there would be no session), then the GET the suite sends the same
// URL when a session opens. A GET the path does not take (404, 501) or sends
// elsewhere (a redirect) breaks the rule; 405 is the spec's own way to decline a
// stream; what else a GET gets is SHTTP-GET-01's to judge.
func judgeEndpoint(xs []transport.Exchange) conform.Verdict {
	for _, x := range xs {
		if x.Method != http.MethodGet {
			continue
		}
		switch {
		case x.Status == http.StatusNotFound || x.Status == http.StatusNotImplemented || (x.Status >= 300 && x.Status < 400):
			return conform.Violation("POST and GET at the MCP endpoint (GET may get 405)", fmt.Sprintf("initialize was POSTed there, but a GET of it → HTTP %d", x.Status))
		case x.Status == http.StatusMethodNotAllowed:
			return conform.Pass("initialize POSTed to the endpoint; GET of it → HTTP 405 (no stream offered, as the spec allows)")
		case is2xx(x.Status):
			return conform.Pass("initialize POSTed to the endpoint; GET of it → HTTP %d (%s)", x.Status, x.ContentType)
		}
		return conform.Note("initialize POSTed to the endpoint; GET of it → HTTP %d, which SHTTP-GET-01 judges", x.Status)
	}
	return conform.Errorf("not verified: the session's opening GET of the endpoint got no reply")
}

// SHTTP-POST-202-01 — {rev}/basic/transports.mdx (Sending Messages to the Server).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-POST-202-01", Title: "an accepted notification or response is answered 202 with no body",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		s, hs, err := scratchHTTP(t)
		if err != nil {
			return conform.Errorf("not verified: %v", err)
		}
		var cases []h5Case
		// The session's own notifications so far (notifications/initialized).
		for i, x := range hs.Exchanges() {
			if x.Method == http.MethodPost && (x.Carried == "notification" || x.Carried == "response") {
				cases = append(cases, post202Case(fmt.Sprintf("the %s of POST #%d", x.Carried, i+1), x, false))
			}
		}
		// A cancellation of a request the server never saw, which a receiver may
		// ignore, and a response to a request the server never sent: either may be
		// accepted or refused, and the status must say which.
		for _, p := range []struct{ what, raw string }{
			{"notifications/cancelled for an unknown request", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcp-conform-never-sent","reason":"conformance probe"}}`},
			{"a response to a request the server never sent", `{"jsonrpc":"2.0","id":"mcp-conform-unsolicited","result":{}}`},
		} {
			n, frames := hs.ExchangeCount(), hs.Delivered()
			err := s.Conn.SendRaw(t.Ctx, []byte(p.raw))
			xs := hs.ExchangesFrom(n)
			if len(xs) == 0 {
				return conform.Errorf("not verified: the POST of %s got no reply: %v", p.what, err)
			}
			cases = append(cases, post202Case(p.what, xs[0], hs.Delivered() > frames))
		}
		return h5Judge(t, "202 Accepted with no body for an accepted notification or response (an HTTP error status for one refused)", cases)
	},
})

// post202Case judges one notification or response POST: body says a reply body was
// delivered (known only for the probes).
func post202Case(what string, x transport.Exchange, body bool) h5Case {
	c := h5Case{what: what}
	switch {
	case x.Status == http.StatusAccepted && body:
		c.bad = "HTTP 202 with a body"
	case is2xx(x.Status) && x.Status != http.StatusAccepted:
		c.bad = fmt.Sprintf("accepted with HTTP %d (Content-Type %q)", x.Status, x.ContentType)
	case x.Status != http.StatusAccepted:
		c.what += fmt.Sprintf(" (refused with HTTP %d, which the rule allows)", x.Status)
	}
	return c
}

// scratchHTTP returns a scratch session (t.Scratch: through the main session's
// connection, so with the user's headers) and the column's Streamable HTTP
// transport; TransportOf ends the check in a column of another transport.
func scratchHTTP(t *conform.T) (*conform.Session, *transport.StreamableHTTP, error) {
	_, hs := conform.TransportOf[*transport.StreamableHTTP](t)
	s, err := t.Scratch()
	return s, hs, err
}

// spareHTTP returns the spare session and its Streamable HTTP transport.
func spareHTTP(t *conform.T) (*conform.Session, *transport.StreamableHTTP, error) {
	s, err := t.SpareSession()
	if err != nil {
		return nil, nil, err
	}
	hs, ok := s.Conn.Transport().(*transport.StreamableHTTP)
	if !ok {
		return nil, nil, fmt.Errorf("the spare session runs over %s, not Streamable HTTP", s.Kind)
	}
	return s, hs, nil
}

// postRaw POSTs raw bytes on a session and returns the exchange of that POST.
func postRaw(t *conform.T, s *conform.Session, hs *transport.StreamableHTTP, raw string) (*transport.Exchange, error) {
	n := hs.ExchangeCount()
	err := s.Conn.SendRaw(t.Ctx, []byte(raw))
	if xs := hs.ExchangesFrom(n); len(xs) > 0 {
		return &xs[0], nil
	}
	return nil, fmt.Errorf("the POST got no reply: %w", err)
}

// SHTTP-POST-REJECT-01 — {rev}/basic/transports.mdx (Sending Messages to the Server).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-POST-REJECT-01", Title: "a notification the server cannot accept is answered with an HTTP error status",
	Phase: conform.PhaseOddInput, Spare: true,
	// Spare: a server may end a session that sends what it cannot accept.
	Run: func(t *conform.T) conform.Verdict {
		s, hs, err := spareHTTP(t)
		if err != nil {
			return conform.Errorf("not verified: %v", err)
		}
		// No id, and a method that is no string: no notification a server can
		// accept (JSON-RPC 2.0 §4: method "A String").
		const raw = `{"jsonrpc":"2.0","method":5}`
		x, err := postRaw(t, s, hs, raw)
		if err != nil {
			return conform.Errorf("not verified: %v", err)
		}
		return judgeReject(raw, *x)
	},
})

func judgeReject(raw string, x transport.Exchange) conform.Verdict {
	if x.Status >= 400 {
		return conform.Pass("%s → HTTP %d", raw, x.Status)
	}
	return conform.Violation("an HTTP error status (such as 400) for "+raw, fmt.Sprintf("HTTP %d", x.Status))
}

// SHTTP-BADBODY-01 — {rev}/basic/transports.mdx (Sending Messages to the Server); JSON-RPC 2.0 §5.1.
var _ = conform.Register(conform.Check{
	ID: "SHTTP-BADBODY-01", Title: "an unparseable POST body is answered with a 4xx status",
	Phase: conform.PhaseOddInput, Spare: true,
	// Spare: a server may end a session that sends what it cannot parse.
	Run: func(t *conform.T) conform.Verdict {
		s, hs, err := spareHTTP(t)
		if err != nil {
			return conform.Errorf("not verified: %v", err)
		}
		n := hs.ExchangeCount()
		err = s.Conn.SendRaw(t.Ctx, []byte(`{`))
		xs := hs.ExchangesFrom(n)
		if len(xs) == 0 {
			return conform.Errorf("not verified: the POST got no reply: %v", err)
		}
		return judgeBadBody(xs[0], err)
	},
})

// judgeBadBody: 400 is the answer; another 4xx is a note; a success or a server
// error is a warning (the rule is derived).
func judgeBadBody(x transport.Exchange, err error) conform.Verdict {
	code := ""
	if rpc, ok := conform.RPCErrorIn(err); ok {
		code = fmt.Sprintf(" with JSON-RPC error %d", rpc.Code)
	}
	got := fmt.Sprintf("HTTP %d%s", x.Status, code)
	switch {
	case x.Status == http.StatusBadRequest:
		return conform.Pass("an unparseable body → %s", got)
	case x.Status > 400 && x.Status < 500:
		return conform.Note("an unparseable body → %s (400 Bad Request is the usual answer)", got)
	}
	return conform.Violation("a 4xx status (400 Bad Request) for an unparseable body", got)
}

// SHTTP-POST-CT-01 — {rev}/basic/transports.mdx (Sending Messages to the Server).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-POST-CT-01", Title: "a request POST is answered application/json or text/event-stream",
	// One request of its own, so that a request other than initialize is judged
	// whichever checks ran; its reply is judged like every other.
	Probe: func(t *conform.T) {
		main, _ := conform.TransportOf[*transport.StreamableHTTP](t)
		_, _ = main.Call(t.Ctx, "ping", nil)
	},
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, s := range t.Sessions() {
			hs, ok := s.Conn.Transport().(*transport.StreamableHTTP)
			if !ok {
				continue
			}
			for i, x := range hs.Exchanges() {
				if x.Method != http.MethodPost || x.Carried != "request" || !is2xx(x.Status) {
					continue // an error status is the rules' of rejections, not this one's
				}
				f.Judged++
				if !validPostType(x.ContentType) {
					f.Fail(fmt.Sprintf("%s POST #%d (a request) → HTTP %d with Content-Type %q", s.Label, i+1, x.Status, x.ContentType))
				}
			}
		}
		return f.VerdictOrNone("no request POST was answered with a success status",
			"Content-Type application/json or text/event-stream on the reply to every request POST",
			fmt.Sprintf("%d request POSTs, each answered application/json or text/event-stream", f.Judged))
	},
})

// originProbe is what the Origin probes of a revision found.
type originProbe struct {
	err   error
	cases []originCase
}

type originCase struct {
	what   string
	status int // 0: no reply
	reply  string
}

// probeOrigin sends, once per revision, two requests with a foreign Origin: a new
// initialize (no session id), as a DNS-rebinding page would start, and a ping in
// the main session. A session the server wrongly opened is DELETEd at once.
func probeOrigin(t *conform.T, s *conform.Session, hs *transport.StreamableHTTP) *originProbe {
	return t.Once("shttp-origin:"+t.Rev.Name, func() any {
		p := &originProbe{}
		raw, err := wire.EncodeRequest(s.Conn.NextID(), "initialize", conform.InitializeParams(t.Rev.Name, "origin-probe"))
		if err != nil {
			p.err = fmt.Errorf("encode initialize: %w", err)
			return p
		}
		r := httpCallRaw(t, s, hs, "initialize", raw, hdr("Origin", badOrigin, headerSessionID, "", transport.HeaderProtocolVersion, ""))
		p.cases = append(p.cases, originCase{what: "initialize (no session) with Origin: " + badOrigin, status: r.status(), reply: r.describe()})
		if r.x != nil {
			if sid := r.x.Header.Get(headerSessionID); sid != "" && sid != hs.SessionID() {
				_, _ = hs.Probe(t.Ctx, http.MethodDelete, hdr(headerSessionID, sid))
			}
		}
		r = httpCall(t, s, hs, "ping", nil, hdr("Origin", badOrigin))
		p.cases = append(p.cases, originCase{what: "ping in the session with Origin: " + badOrigin, status: r.status(), reply: r.describe()})
		return p
	}).(*originProbe)
}

// originRun is the body of an Origin check: ok says whether a status rejects the
// request as the check's rule wants.
func originRun(expected string, ok func(status int) bool) func(t *conform.T) conform.Verdict {
	return func(t *conform.T) conform.Verdict {
		s, hs, err := scratchHTTP(t)
		if err != nil {
			return conform.Errorf("not verified: %v", err)
		}
		p := probeOrigin(t, s, hs)
		if p.err != nil {
			return conform.Errorf("not verified: %v", p.err)
		}
		return judgeOrigin(expected, ok, p.cases)
	}
}

func judgeOrigin(expected string, ok func(status int) bool, cases []originCase) conform.Verdict {
	var f conform.Findings
	var seen []string
	for _, c := range cases {
		if c.status == 0 {
			return conform.Silence(expected+" for "+c.what, fmt.Errorf("%s", c.reply))
		}
		if !ok(c.status) {
			f.Fail(c.what + ": " + c.reply)
		}
		seen = append(seen, fmt.Sprintf("%s → HTTP %d", c.what, c.status))
	}
	if f.Failed() {
		return f.Violation(expected)
	}
	return conform.Pass("%s", conform.JoinAtMost(seen, 4))
}

// SHTTP-ORIGIN-01 — {rev}/basic/transports.mdx (Security Warning).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-ORIGIN-01", Title: "a request from a foreign Origin is refused",
	Phase: conform.PhaseOddInput,
	Run:   originRun("a 4xx status for a foreign Origin", func(status int) bool { return status >= 400 && status < 500 }),
})

// SHTTP-ORIGIN-403-01 — 2025-11-25/basic/transports.mdx (Security Warning).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-ORIGIN-403-01", Title: "a present, invalid Origin is answered 403 Forbidden",
	Phase: conform.PhaseOddInput,
	Run:   originRun("HTTP 403 Forbidden for a foreign Origin", func(status int) bool { return status == http.StatusForbidden }),
})
