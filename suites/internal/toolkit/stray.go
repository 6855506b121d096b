package toolkit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// StrayAnswer is what a server did with bytes the suite sent as they are (input no
// request id of the suite's can claim a reply to: unparseable JSON, invalid
// requests, a notification, a batch).
type StrayAnswer struct {
	// Replies are the responses that arrived after the send and answer no call of
	// the suite's, in arrival order; over HTTP a refused POST's JSON-RPC body is one.
	Replies []*wire.Message
	// FromRefusals counts the Replies, first in the list, that came in the bodies of
	// refused POSTs: over HTTP a refusal may carry a JSON-RPC error with no id even
	// for a notification ("The HTTP response body MAY comprise a JSON-RPC error
	// response that has no id").
	FromRefusals int
	// Arrays counts the replies that came inside a JSON array (a batch reply).
	Arrays int
	// Refused are the HTTP error statuses the POSTs were answered with.
	Refused []*transport.HTTPStatusError
	// Accepted are the 2xx statuses of the POSTs the server took (HTTP only).
	Accepted []int
	// Err is why there is no answer to judge: the send failed, or the barrier that
	// proves the replies complete went unanswered or the session ended.
	Err error
}

// SendStray sends each of raws as it is, then proves with the barrier that every reply
// the server owes them is in. want is how many replies a conformant server sends: once
// that many are in when the barrier's reply arrives, no silence is left to prove.
func SendStray(t *conform.T, s *conform.Session, want int, raws ...[]byte) StrayAnswer {
	var a StrayAnswer
	if s == nil || s.Conn == nil {
		a.Err = errors.New("no session")
		return a
	}
	hs, _ := s.Conn.Transport().(transport.HTTPSession)
	after := s.Conn.Seq()
	for _, raw := range raws {
		n := 0
		if hs != nil {
			n = len(hs.Exchanges())
		}
		err := s.Conn.SendRaw(t.Ctx, raw)
		var se *transport.HTTPStatusError
		switch {
		case errors.As(err, &se):
			a.Refused = append(a.Refused, se)
			if m, derr := wire.Decode(se.Body); derr == nil && m.IsResponse() {
				a.Replies = append(a.Replies, m)
			}
		case err != nil:
			a.Err = fmt.Errorf("sending %s: %w", conform.Clip(string(raw), 60), err)
			return a
		case hs != nil:
			if xs := hs.Exchanges(); len(xs) > n {
				a.Accepted = append(a.Accepted, xs[n].Status)
			}
		}
	}
	a.FromRefusals = len(a.Replies)
	refusedReplies := a.FromRefusals
	strays := func() []wire.Entry {
		var out []wire.Entry
		for _, e := range s.Conn.Received(after) {
			if e.Msg != nil && e.Msg.IsResponse() && e.ForMethod == "" {
				out = append(out, e)
			}
		}
		return out
	}
	enough := func() bool { return want > 0 && refusedReplies+len(strays()) >= want }
	if err := s.Conn.Flush(t.Ctx, enough); err != nil {
		a.Err = err
		return a
	}
	for _, e := range strays() {
		a.Replies = append(a.Replies, e.Msg)
		if e.InBatch {
			a.Arrays++
		}
	}
	return a
}

// Describe lists what came back, for a verdict.
func (a StrayAnswer) Describe() string {
	var parts []string
	for _, se := range a.Refused {
		parts = append(parts, fmt.Sprintf("HTTP %d", se.Status))
	}
	for _, st := range a.Accepted {
		parts = append(parts, fmt.Sprintf("HTTP %d", st))
	}
	for _, m := range a.Replies {
		parts = append(parts, DescribeReply(m))
	}
	if len(parts) == 0 {
		return "no reply (proven by the barrier)"
	}
	return strings.Join(parts, ", ")
}

// DescribeReply says what one reply is: its id and its error or result.
func DescribeReply(m *wire.Message) string {
	id := "no id"
	if !m.ID.IsZero() {
		id = "id " + m.ID.String()
	}
	if m.Error != nil {
		return fmt.Sprintf("error %d %q (%s)", m.Error.Code, conform.Clip(m.Error.Message, 60), id)
	}
	return fmt.Sprintf("a result %s (%s)", conform.Clip(string(m.Result), 60), id)
}
