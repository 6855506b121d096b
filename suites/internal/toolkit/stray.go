package toolkit

import (
	"errors"
	"fmt"
	"iter"
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
	return SendStrayUntil(t, s, func(replies []wire.Entry, fromRefusals int) bool {
		return want > 0 && fromRefusals+len(replies) >= want
	}, raws...)
}

// SendStrayUntil is SendStray with the test for a complete answer spelled out:
// complete is asked, once the barrier's reply is in, with the stray replies so far and
// how many other replies came (in refused POSTs' bodies, or with no id and not kept
// by the transcript: completeWith); true ends the wait at once.
func SendStrayUntil(t *conform.T, s *conform.Session, complete func(replies []wire.Entry, fromRefusals int) bool, raws ...[]byte) StrayAnswer {
	p := SendUnsettled(t, s, raws...)
	if p.Answer.Err != nil {
		return p.Answer
	}
	if err := s.Conn.Flush(t.Ctx, p.completeWith(complete)); err != nil {
		a := p.Answer
		a.Err = err
		return a
	}
	return p.SettledFor(t)
}

// StrayProbe is stray input sent with no barrier after it, for a transcript-wide check
// that makes its probe while the column is open and judges it after the column has
// settled (T.SpareSession, conform's settle): the end of the session, or the settle
// barrier, proves the replies complete, with no grace period to wait out.
type StrayProbe struct {
	// Answer holds what the sends themselves returned (HTTP statuses, refusals'
	// bodies, a send that failed); Settled adds the replies.
	Answer StrayAnswer
	s      *conform.Session
	after  int
	// ended is the session's end, found by the barrier after the probe
	// (ProbeBeforeSettle): the probe's outcome, which Settled reports as Err.
	ended error
}

// SendUnsettled sends each of raws as it is on s and returns at once.
func SendUnsettled(t *conform.T, s *conform.Session, raws ...[]byte) StrayProbe {
	p := StrayProbe{s: s}
	a := &p.Answer
	if s == nil || s.Conn == nil {
		a.Err = errors.New("no session")
		return p
	}
	hs, _ := s.Conn.Transport().(transport.HTTPSession)
	s.AwaitStrayGrace(t.Ctx) // the window before this one stays open through its grace
	p.after = s.Conn.Seq()
	s.MarkStray(p.after)
	for _, raw := range raws {
		n := 0
		if hs != nil {
			n = hs.ExchangeCount()
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
			a.Err = fmt.Errorf("sending %s: %w", conform.ClipBytes(raw, 60), err)
			return p
		case hs != nil:
			if xs := hs.ExchangesFrom(n); len(xs) > 0 {
				a.Accepted = append(a.Accepted, xs[0].Status)
			}
		}
	}
	a.FromRefusals = len(a.Replies)
	return p
}

// SendBeforeSettle is SendUnsettled for a transcript-wide check's probe: after the
// sends a request round trip ends the probe's window before the next probe on the
// session (conform.Session.MarkStray) and shows the server still serving; the
// column's settle, not a grace period, proves the replies in (read them with
// Settled when judging).
func SendBeforeSettle(t *conform.T, s *conform.Session, raws ...[]byte) StrayProbe {
	p := SendUnsettled(t, s, raws...)
	if p.Answer.Err == nil {
		if err := s.Barrier(t.Ctx); err != nil {
			p.Answer.Err = fmt.Errorf("the request after the probe: %w", err)
		}
	}
	return p
}

// ProbeBeforeSettle is SendBeforeSettle for a probe owed a reply that the server may
// not send, or that may end the session (a batch, a request with "id": null), made by
// a check that declares SilenceProbe. complete is asked with the stray replies once
// the barrier's reply is in (as SendStrayUntil's): true leaves no silence to prove.
// Otherwise the silence is proven when the column settles, with the proof
// wire.Conn.Flush would give it at once (conform.T.ProveSilence): the barrier's
// reply, then wire.BarrierGrace counted from it while the column goes on (on stdio
// the session's output then read to its end), or on Streamable HTTP the end of the
// session's streams. A barrier that finds the session gone is the probe's outcome,
// not a failure to make it: Settled reports it as Err, after the replies that came
// before the end.
func ProbeBeforeSettle(t *conform.T, s *conform.Session, complete func(replies []wire.Entry, fromRefusals int) bool, raws ...[]byte) StrayProbe {
	p := SendUnsettled(t, s, raws...)
	if p.Answer.Err != nil {
		return p
	}
	switch err := t.ProveSilence(s, p.completeWith(complete)); {
	case err != nil && conform.Gone(err):
		p.ended = fmt.Errorf("the request after the probe: %w", err)
	case err != nil:
		p.Answer.Err = fmt.Errorf("the request after the probe: %w", err)
	}
	return p
}

// completeWith is complete asked of the probe's answer so far: the stray replies, and
// beside them those that came in refused POSTs' bodies and the replies with no id
// the transcript did not keep (a 100,000-tool listing answering "id": null): those
// came, so they leave no silence to prove, though Settled reports the probe not
// verified.
func (p StrayProbe) completeWith(complete func(replies []wire.Entry, fromRefusals int) bool) func() bool {
	return func() bool {
		lost := p.s.Conn.DroppedIDlessRepliesIn(p.after, p.s.StrayEnd(p.after))
		return complete(p.strays(), p.Answer.FromRefusals+lost)
	}
}

// Received is everything the session received since the probe's send (read it after
// the settle to have it all), for a judge that looks past the stray replies.
func (p StrayProbe) Received() []wire.Entry {
	if p.s == nil || p.s.Conn == nil {
		return nil
	}
	return p.s.Conn.Received(p.after)
}

// strays are the responses that arrived on the session since the send and answer no
// call of the suite's: neither claimed by a call nor carrying an id the suite sent
// on the session (a late reply to an abandoned call is not the probe's).
func (p StrayProbe) strays() []wire.Entry {
	if p.s == nil || p.s.Conn == nil {
		return nil
	}
	var out []wire.Entry
	end := p.s.StrayEnd(p.after)
	for e := range eachStray(p.s, p.after) {
		if end > 0 && e.Seq > end {
			break // the next stray probe's
		}
		out = append(out, e)
	}
	return out
}

// eachStray yields the responses received on s after seq that answer no call of the
// suite's: neither claimed by a call nor carrying an id the suite sent on s (a late
// reply to an abandoned call is not a probe's).
func eachStray(s *conform.Session, after int) iter.Seq[wire.Entry] {
	return func(yield func(wire.Entry) bool) {
		var ours map[string]bool
		for e := range s.Conn.EachReceived(after) {
			if e.Msg == nil || !e.Msg.IsResponse() || e.ForMethod != "" {
				continue
			}
			if !e.Msg.ID.IsZero() && !e.Msg.ID.IsNull() {
				if ours == nil {
					ours = sentIDs(s)
				}
				if ours[e.Msg.ID.LooseKey()] {
					continue
				}
			}
			if !yield(e) {
				return
			}
		}
	}
}

// sentIDs are the loose keys of the ids of the well-formed requests the suite sent on
// s, before the probe or after it (a barrier whose call gave up under load): a late
// reply to one is not the probe's. A stray probe's own raw bytes are never a
// well-formed request with an id of the suite's.
func sentIDs(s *conform.Session) map[string]bool {
	ids := map[string]bool{}
	entries, _ := s.Conn.Transcript()
	for _, e := range entries {
		if e.Dir == wire.Sent && e.Msg != nil && e.Msg.Kind == wire.KindRequest && e.Msg.Problem == "" && !e.Msg.ID.IsZero() {
			ids[e.Msg.ID.LooseKey()] = true
		}
	}
	return ids
}

// Settled is the answer with every stray reply that has arrived since the send: read
// it after the column settled (or after a barrier) to have them all.
func (p StrayProbe) Settled() StrayAnswer {
	a := p.Answer
	if a.Err != nil {
		return a
	}
	if n, unsure := p.s.Conn.DroppedRepliesIn(p.after, p.s.StrayEnd(p.after)); n > 0 || unsure {
		// A reply the transcript did not keep would read as silence: what it lost
		// could have been the probe's reply, so nothing is verified. Dropped
		// notifications, server requests, replies claimed by the suite's calls
		// and the suite's own sends are no reply to the probe and leave it judged.
		what := fmt.Sprintf("%d message(s) that could have been its reply (a response no call claimed, or a frame that did not decode)", n)
		if unsure {
			what = "messages that could have been its reply"
		}
		a.Err = fmt.Errorf("%w: the transcript's bounds dropped %s after the probe", ErrLostReply, what)
		return a
	}
	a.Replies = append([]*wire.Message(nil), a.Replies...)
	for _, e := range p.strays() {
		a.Replies = append(a.Replies, e.Msg)
		if e.InBatch {
			a.Arrays++
		}
	}
	a.Err = p.ended
	return a
}

// ErrLostReply is a StrayAnswer's Err when the transcript's bounds dropped a
// message that could have been the probe's reply: the probe is not verified, never
// a finding (SettledFor ends the check with an error).
var ErrLostReply = errors.New("a possible reply was not kept")

// SettledFor is Settled for a check's judging run: a probe whose possible reply the
// transcript lost ends the check with an error (not verified), since a lost record
// is no evidence of silence.
func (p StrayProbe) SettledFor(t *conform.T) StrayAnswer {
	a := p.Settled()
	if errors.Is(a.Err, ErrLostReply) {
		t.ErrorNow("not verified: %v", a.Err)
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
	return fmt.Sprintf("a result %s (%s)", conform.ClipBytes(m.Result, 60), id)
}

// SendStrayEach makes several stray probes at once, each a request with an id of its
// own (ids[i] is raws[i]'s): they share one window, a barrier after each shows the
// server still serving, and one grace after the last proves every reply in, where
// probes one at a time wait out a grace each (a server silent on three invalid
// requests cost 600 ms a revision). Each reply is the probe's whose id it carries. A
// server that ends the session over the first probe (its barrier goes unanswered)
// gets the one answer one at a time gives it: that probe's, with the end as Err. ok
// is false when the answers cannot be read probe by probe, and the caller makes the
// probes one at a time instead: a reply that carries no probe's id (a null id, which
// one at a time a window would place), a session that ended after a later probe
// (which one ended it is what one at a time shows), a transcript that dropped a
// possible reply, or HTTP, where each POST answers for itself and no grace is waited.
func SendStrayEach(t *conform.T, s *conform.Session, ids []wire.ID, raws ...[]byte) (answers []StrayAnswer, ok bool) {
	if s == nil || s.Conn == nil || len(raws) == 0 || len(ids) != len(raws) {
		return nil, false
	}
	if _, isHTTP := s.Conn.Transport().(transport.HTTPSession); isHTTP {
		return nil, false
	}
	index := map[string]int{}
	for i, id := range ids {
		index[id.Key()] = i
	}
	barrierOnly := func() bool { return true }
	p := SendUnsettled(t, s, raws[0])
	if p.Answer.Err != nil {
		return []StrayAnswer{p.Answer}, true
	}
	if err := s.Conn.Flush(t.Ctx, barrierOnly); err != nil {
		a := p.Answer
		a.Err = err
		return []StrayAnswer{a}, true
	}
	for _, raw := range raws[1:] {
		if s.Conn.SendRaw(t.Ctx, raw) != nil || s.Conn.Flush(t.Ctx, barrierOnly) != nil {
			return nil, false
		}
	}
	answered := func() bool {
		got := map[int]bool{}
		for _, e := range p.strays() {
			if i, known := index[e.Msg.ID.Key()]; known {
				got[i] = true
			}
		}
		return len(got) == len(raws)
	}
	if s.Conn.Flush(t.Ctx, answered) != nil {
		return nil, false
	}
	if n, unsure := s.Conn.DroppedRepliesIn(p.after, s.StrayEnd(p.after)); n > 0 || unsure {
		return nil, false
	}
	answers = make([]StrayAnswer, len(raws))
	for _, e := range p.strays() {
		i, known := index[e.Msg.ID.Key()]
		if !known {
			// The probes go again one at a time: first a barrier and its grace,
			// so that nothing late of these lands in their windows.
			_ = s.Conn.Flush(t.Ctx, nil)
			return nil, false
		}
		answers[i].Replies = append(answers[i].Replies, e.Msg)
		if e.InBatch {
			answers[i].Arrays++
		}
	}
	return answers, true
}
