package conform

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

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
		return fmt.Sprintf("HTTP %d (%s) with body %s", se.Status, se.ContentType, clip(string(se.Body), 200))
	case errors.Is(err, wire.ErrTimeout):
		return "no reply before the deadline"
	case errors.Is(err, wire.ErrClosed):
		return "the connection ended: " + err.Error()
	case err != nil:
		return err.Error()
	case resp == nil:
		return "nothing"
	case resp.IsError():
		s := fmt.Sprintf("JSON-RPC error %d %q", resp.Error.Code, clip(resp.Error.Message, 120))
		if !resp.IDExact {
			s += fmt.Sprintf(" (with id %s, sent as %s)", resp.Msg.ID, idSentType(resp))
		}
		return s
	default:
		s := "result " + clip(string(resp.Result), 200)
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

func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "�")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Silent turns a call that got no reply into a verdict: a server that is still
// connected but did not answer broke the rule (expected says what it should have
// sent); a transport that died or a run that was cancelled is an error, because
// nothing was verified.
func (t *T) Silent(expected string, err error) Verdict {
	if t.Ctx.Err() != nil {
		return Errorf("not verified: %v", t.Ctx.Err())
	}
	var nr *wire.ErrNoReply
	if errors.As(err, &nr) {
		return t.Violation(expected, fmt.Sprintf("no reply (the ping sent after the request was answered, and %s later no reply had come)", nr.Grace))
	}
	if errors.Is(err, wire.ErrTimeout) {
		return t.Violation(expected, fmt.Sprintf("no reply within %s", t.Timeout()))
	}
	return Errorf("not verified: %s", Describe(nil, err))
}

// ExpectRPCError judges a reply that must be the JSON-RPC error code: the code →
// pass; another error code → violation; a result → violation; silence → Silent.
func (t *T) ExpectRPCError(resp *wire.Response, err error, code int, what string) Verdict {
	want := fmt.Sprintf("JSON-RPC error %d for %s", code, what)
	switch {
	case err != nil:
		var se *transport.HTTPStatusError
		if errors.As(err, &se) {
			if rpcCode, ok := errorCodeInBody(se.Body); ok && rpcCode == code {
				return Pass("HTTP %d carrying JSON-RPC error %d", se.Status, code)
			}
			return t.Violation(want, Describe(nil, err))
		}
		return t.Silent(want, err)
	case !resp.IsError():
		return t.Violation(want, Describe(resp, nil))
	case resp.Error.Code != code:
		return t.Violation(want, Describe(resp, nil))
	default:
		return Pass("JSON-RPC error %d %q", code, clip(resp.Error.Message, 80))
	}
}

// errorCodeInBody reads a JSON-RPC error code from an HTTP error body.
func errorCodeInBody(body []byte) (int, bool) {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil || m.Error == nil {
		return 0, false
	}
	return m.Error.Code, true
}

// ExpectResult returns the reply's result or the verdict that explains why there is
// none (silence, an error reply, an HTTP failure).
func (t *T) ExpectResult(resp *wire.Response, err error, what string) (json.RawMessage, *Verdict) {
	if err != nil {
		var se *transport.HTTPStatusError
		if errors.As(err, &se) {
			v := t.Violation("a result for "+what, Describe(nil, err))
			return nil, &v
		}
		v := t.Silent("a result for "+what, err)
		return nil, &v
	}
	if resp.IsError() {
		v := t.Violation("a result for "+what, Describe(resp, nil))
		return nil, &v
	}
	return resp.Result, nil
}
