package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Shared verifiers: they describe what came back and judge the common outcomes, so
// that every check words its evidence the same way and leniency lives in one place.

// Describe says in a few words what a call produced.
func Describe(resp *wire.Response, err error) string {
	var se *transport.HTTPStatusError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("HTTP %d (%s) with body %s", se.Status, se.ContentType, ClipBytes(se.Body, 200))
	case errors.Is(err, wire.ErrTimeout):
		return "no reply before the deadline"
	case errors.Is(err, transport.ErrNoReply):
		return "no reply: the server closed the connection without answering"
	case errors.Is(err, wire.ErrClosed), errors.Is(err, transport.ErrGone):
		return "the connection ended: " + err.Error()
	case err != nil:
		return err.Error()
	case resp == nil:
		return "nothing"
	case resp.IsError():
		s := fmt.Sprintf("JSON-RPC error %d %q", resp.Error.Code, Clip(resp.Error.Message, 120))
		if !resp.IDExact {
			s += fmt.Sprintf(" (with id %s, sent as %s)", resp.Msg.ID, idSentType(resp))
		}
		return s
	default:
		s := "result " + ClipBytes(resp.Result, 200)
		if !resp.IDExact {
			s += fmt.Sprintf(" (with id %s, sent as %s)", resp.Msg.ID, idSentType(resp))
		}
		return s
	}
}

func idSentType(resp *wire.Response) string {
	if resp.Msg.ID.IsString() {
		return "a number"
	}
	return "a string"
}

// Clip shortens text for a verdict's message: at most n bytes, cut at a character
// boundary, with "…" where something was cut; invalid UTF-8 shows as U+FFFD. Every
// check clips its evidence with it, so that messages read alike.
func Clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ClipBytes is ClipBytes(b, n) without copying all of b first: evidence may be a
// reply of many megabytes (100,000 tools), of which a message shows a line.
func ClipBytes(b []byte, n int) string {
	out := make([]byte, 0, min(len(b), n))
	invalid := false // inside a run of invalid bytes, which shows as one U+FFFD
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		piece := b[i : i+size]
		switch {
		case r == utf8.RuneError && size == 1 && invalid:
			i++
			continue
		case r == utf8.RuneError && size == 1:
			invalid, piece = true, []byte("\uFFFD")
		default:
			invalid = false
		}
		if len(out)+len(piece) > n {
			return string(out) + "…"
		}
		out = append(out, piece...)
		i += size
	}
	return string(out)
}

// RPCErrorIn reads the JSON-RPC error an HTTP error status carries in its body (a
// server may reject a request with 400 and a JSON-RPC error object): the one place
// that rule is written. ok is false when err is not an HTTP status error or its body
// holds no error object.
func RPCErrorIn(err error) (e wire.Error, ok bool) {
	var se *transport.HTTPStatusError
	if !errors.As(err, &se) {
		return wire.Error{}, false
	}
	var m struct {
		Error *wire.Error `json:"error"`
	}
	if json.Unmarshal(se.Body, &m) != nil || m.Error == nil {
		return wire.Error{}, false
	}
	return *m.Error, true
}

// silent turns a call that got no reply into a verdict: a server that is still
// connected but did not answer broke the rule (expected says what it should have
// sent); a transport that died or a run that was cancelled is an error, because
// nothing was verified. "Did not answer" is the same behaviour on every transport
// (issue 9 item 3): silence until the deadline (stdio, or an HTTP server that never
// sends a status line) and an HTTP request whose connection the server ended with no
// response (transport.ErrNoReply) are both judged as no reply.
func (t *T) silent(expected string, err error) Verdict {
	if t.Ctx.Err() != nil {
		return Errorf("not verified: %v", t.Ctx.Err())
	}
	var nr *wire.BarrierError
	switch {
	case errors.As(err, &nr) && nr.Owed:
		return t.violation(expected, fmt.Sprintf("no reply (the barrier request sent after it was answered, and no reply had come when the session settled, %s or more later)", nr.Grace))
	case errors.As(err, &nr):
		return t.violation(expected, fmt.Sprintf("no reply (the barrier request sent after it was answered, and %s later no reply had come)", nr.Grace))
	}
	if timedOut(err) {
		return t.violation(expected, fmt.Sprintf("no reply within %s", t.Timeout()))
	}
	var se *transport.HTTPStatusError
	if errors.Is(err, transport.ErrNoReply) || errors.As(err, &se) {
		// An HTTP status without a JSON-RPC error in its body is an answer too:
		// the wrong one.
		return t.violation(expected, Describe(nil, err))
	}
	return Errorf("not verified: %s", Describe(nil, err))
}

// timedOut reports whether err says the request went unanswered until its deadline:
// the wire's timeout, or a request deadline that ended an HTTP round trip before its
// reply head.
func timedOut(err error) bool {
	return errors.Is(err, wire.ErrTimeout) || errors.Is(err, context.DeadlineExceeded)
}

// Unanswered reports whether a request's error says the server did not answer it
// (silence until the deadline, or an HTTP connection ended without a reply) while
// the session itself is still there: the behaviour Silent judges as a violation.
func Unanswered(err error) bool {
	return timedOut(err) || errors.Is(err, transport.ErrNoReply)
}

// Gone reports whether a request's error says the server itself is gone: its stdio
// transport ended, or its HTTP endpoint refuses connections.
func Gone(err error) bool {
	return errors.Is(err, wire.ErrClosed) || errors.Is(err, transport.ErrGone)
}

// RPCErrorReply turns an HTTP error status whose body carries a JSON-RPC error into
// the reply it stands for, so that a check judges the error the same way on every
// transport (the same rule as RPCErrorIn; Msg.Raw keeps the body as evidence).
func RPCErrorReply(err error, method string) (*wire.Response, bool) {
	e, ok := RPCErrorIn(err)
	if !ok {
		return nil, false
	}
	var se *transport.HTTPStatusError
	_ = errors.As(err, &se)
	return &wire.Response{Msg: &wire.Message{Kind: wire.KindError, Raw: se.Body, Error: &e}, Method: method, Error: &e, IDExact: true}, true
}

// ExpectRPCError judges a reply that must be the JSON-RPC error code: the code →
// pass; another error code → violation; a result → violation; silence → Silent.
func (t *T) ExpectRPCError(resp *wire.Response, err error, code int, what string) Verdict {
	want := fmt.Sprintf("JSON-RPC error %d for %s", code, what)
	switch {
	case err != nil:
		var se *transport.HTTPStatusError
		if errors.As(err, &se) {
			if rpc, ok := RPCErrorIn(err); ok && rpc.Code == code {
				return Pass("HTTP %d carrying JSON-RPC error %d", se.Status, code)
			}
			return t.violation(want, Describe(nil, err))
		}
		return t.silent(want, err)
	case !resp.IsError():
		return t.violation(want, Describe(resp, nil))
	case resp.Error.Code != code:
		return t.violation(want, Describe(resp, nil))
	default:
		return Pass("JSON-RPC error %d %q", code, Clip(resp.Error.Message, 80))
	}
}

// ExpectResult returns the reply's result, or ends the check with the verdict that
// explains why there is none (silence, an error reply, an HTTP failure).
func (t *T) ExpectResult(resp *wire.Response, err error, what string) json.RawMessage {
	if err != nil {
		var se *transport.HTTPStatusError
		if errors.As(err, &se) {
			t.Stop(t.violation("a result for "+what, Describe(nil, err)))
		}
		t.Stop(t.silent("a result for "+what, err))
	}
	if resp.IsError() {
		t.Stop(t.violation("a result for "+what, Describe(resp, nil)))
	}
	return resp.Result
}
