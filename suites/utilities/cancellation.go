package utilities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// CANCEL-R5-SERVER-01 — 2026-07-28/basic/patterns/cancellation.mdx.
var _ = conform.Register(subscribe.ObservedCheck(conform.Check{
	ID: "CANCEL-R5-SERVER-01", Title: "the server sends notifications/cancelled only to tear down a subscription",
}, lsJudgeCancel))

// lsJudgeCancel judges every notifications/cancelled the server sent.
func lsJudgeCancel(obs []subscribe.Observed) conform.Verdict {
	var f conform.Findings
	for _, o := range obs {
		for _, e := range o.Entries {
			if e.Msg == nil || e.Msg.Method != "notifications/cancelled" || e.Msg.IsResponse() {
				continue
			}
			f.Judged++
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(e.Msg.Params, &p)
			id, err := wire.ParseID(p.RequestID)
			if err != nil || id.IsZero() || !o.Listens[id.Key()] {
				f.Fail(fmt.Sprintf("%s #%d notifications/cancelled names requestId %s, which is no subscriptions/listen request of the session", o.Label, e.Seq, toolkit.Or(string(p.RequestID), "(none)")))
			}
		}
	}
	if f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "the server sent no notifications/cancelled in this revision's sessions")
	}
	return f.Verdict("notifications/cancelled only for a subscriptions/listen request", "",
		fmt.Sprintf("%d notifications/cancelled, each tearing down a subscription", f.Judged))
}

// The cancellation probes use two fixture tools (the fixture contract,
// refserver/doc.go): test_slow works for the given milliseconds and honours
// cancellation; test_last_cancellation names the last request the server cancelled
// while in flight, which is how the suite observes a cancellation it cannot see on
// the wire.
const (
	cnSlowFixture = "test_slow"
	cnLastFixture = "test_last_cancellation"
	// cnSlowMs is how long test_slow is asked to work: long enough that its work
	// cannot end before the cancellation reaches it.
	cnSlowMs = 2000
)

// cnMethod is the cancellation notification's method.
const cnMethod = "notifications/cancelled"

// CANCEL-IGNORE-01 — {rev}/basic/utilities/cancellation.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "CANCEL-IGNORE-01", Title: "cancellations naming an unknown or finished request, or none, are ignored: no reply, the server keeps serving",
	Probe: func(t *conform.T) { cnIgnoreOnce(t) },
	Run:   runCancelIgnore,
})

// cnIgnoreOnce is CANCEL-IGNORE-01's probe, made once per revision while the column
// is open (Probe).
func cnIgnoreOnce(t *conform.T) cnIgnoreProbe {
	return t.Once("CANCEL-IGNORE-01:"+t.Rev.Name, func() any { return cnProbeIgnore(t) }).(cnIgnoreProbe)
}

// runCancelIgnore judges the probe after the column settles, whose barrier proves
// every reply in: a server that ignores the cancellations, as it should, costs no
// grace.
func runCancelIgnore(t *conform.T) conform.Verdict {
	p := cnIgnoreOnce(t)
	if p.err != nil {
		return conform.Errorf("%v", p.err)
	}
	return cnJudgeIgnore(p.SettledFor(t), p.what)
}

// cnIgnoreProbe is CANCEL-IGNORE-01's probe: three cancellations on the main session.
type cnIgnoreProbe struct {
	toolkit.StrayProbe
	what string
	err  error // the probe could not be made
}

func cnProbeIgnore(t *conform.T) cnIgnoreProbe {
	s := t.Session()
	if s == nil || s.Conn == nil {
		return cnIgnoreProbe{err: fmt.Errorf("no session for the cancellation probes: %v", t.ColumnErr())}
	}
	// A request the server has answered: its id is a finished request's.
	done := s.Conn.NextID()
	if _, err := s.Conn.CallID(t.Ctx, done, s.Conn.BarrierMethod(), nil); err != nil {
		return cnIgnoreProbe{err: fmt.Errorf("the request whose cancellation is sent once it is answered (%s) failed: %s", s.Conn.BarrierMethod(), conform.Describe(nil, err))}
	}
	probes := []struct {
		what   string
		params map[string]any
	}{
		{"an unknown id", map[string]any{"requestId": "mcp-conform-never-sent", "reason": "mcp-conform: CANCEL-IGNORE-01"}},
		{"a finished request", map[string]any{"requestId": done, "reason": "mcp-conform: CANCEL-IGNORE-01"}},
		{"no requestId", map[string]any{"reason": "mcp-conform: CANCEL-IGNORE-01"}},
	}
	raws := make([][]byte, 0, len(probes))
	whats := make([]string, 0, len(probes))
	for _, p := range probes {
		raw, err := wire.EncodeNotification(cnMethod, s.Conn.Stamp(p.params))
		if err != nil {
			return cnIgnoreProbe{err: fmt.Errorf("encode the cancellation of %s: %v", p.what, err)}
		}
		raws, whats = append(raws, raw), append(whats, p.what)
	}
	// The request after them shows the server still serving (SendBeforeSettle).
	return cnIgnoreProbe{StrayProbe: toolkit.SendBeforeSettle(t, s, raws...), what: strings.Join(whats, ", ")}
}

// cnJudgeIgnore judges what the server did with the three cancellations.
func cnJudgeIgnore(a toolkit.StrayAnswer, what string) conform.Verdict {
	const want = "cancellations naming no request in flight ignored: no reply, no refusal, the server still serving"
	switch {
	case len(a.Replies) > 0 || len(a.Refused) > 0:
		return conform.Violation(want, "answered: "+a.Describe())
	case a.Err != nil:
		return conform.Violation(want, "after the cancellations, "+conform.Describe(nil, a.Err))
	}
	return conform.Pass("cancellations of %s ignored: %s (proven when the session settled), and the server still served", what, a.Describe())
}

// cnFixtures ends the check when the fixture tools a probe needs are not listed or
// may not be called.
func cnFixtures(t *conform.T, names ...string) {
	l := toolkit.List(t)
	if v := toolkit.ListVerdict(t, l); v != nil {
		t.Stop(*v)
	}
	for _, name := range names {
		tl := l.Find(name)
		if tl == nil {
			t.SkipNow(conform.MissingFixture, "the fixture tool %s (the fixture contract, refserver/doc.go) is not listed", name)
		}
		if p := toolkit.Allowed(t, *tl); !p.Allowed {
			t.SkipNow(conform.CallsNotAllowed, "%s: %s", name, p.Why)
		}
	}
}

// cnText is the first text block of a successful call, or "".
func cnText(o *toolkit.Outcome) string {
	if !o.Succeeded() {
		return ""
	}
	for _, raw := range o.Content {
		var b struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &b) == nil && b.Type == "text" {
			return strings.TrimSpace(b.Text)
		}
	}
	return ""
}

// cnInflight is what the in-flight cancellation probe saw.
type cnInflight struct {
	s        *conform.Session
	call     *wire.Call
	after    int // the transcript's sequence number before the call
	id       wire.ID
	token    string         // the call's progressToken
	cancels  int            // the transcript's sequence number before the cancellation
	early    string         // why the call could not be cancelled in flight ("" when it was)
	cancelAt time.Time      // when the cancellation was sent
	reply    *wire.Response // the reply to the cancelled call, when one came
	replyAt  time.Time
	replyErr error  // the call's end other than a reply (the connection ended)
	last     string // what test_last_cancellation said after the cancellation
	lastErr  string // why test_last_cancellation gave no text
	barrier  error  // why the barrier after the cancellation failed
	waited   bool   // the server did not report the cancellation: the call's end was awaited
}

// CANCEL-INFLIGHT-01 — {rev}/basic/utilities/cancellation.mdx (Behavior Requirements).
var _ = conform.Register(conform.Check{
	ID: "CANCEL-INFLIGHT-01", Title: "a request cancelled in flight is stopped and gets no response",
	Probe: func(t *conform.T) { cnInflightOf(t) },
	Run:   runCancelInflight,
	NotOn: []conform.NotOn{{Revision: "2026-07-28", Transport: "http",
		Why: "a request is cancelled by closing its response stream, not with notifications/cancelled (2026-07-28/basic/patterns/cancellation.mdx, Transport-Specific Cancellation): H5-CANCEL-CLOSE-01's probe"}},
})

// cnInflightOf is CANCEL-INFLIGHT-01's probe, which STDIO-CANCEL-R5-01 shares: made
// once per revision, in the column's probe pass (one revision at a time on a shared
// server, as test_last_cancellation is the server's state). It ends the check where
// its fixtures are missing.
func cnInflightOf(t *conform.T) cnInflight {
	s := t.Session()
	cnFixtures(t, cnSlowFixture, cnLastFixture)
	return t.Once("CANCEL-INFLIGHT-01:"+t.Rev.Name, func() any { return cnProbeInflight(t, s) }).(cnInflight)
}

// runCancelInflight judges the probe after the column settles, whose barrier proves
// whether the cancelled call was answered: it costs no grace period.
func runCancelInflight(t *conform.T) conform.Verdict {
	return cnJudgeInflight(cnInflightOf(t).settled())
}

// settled adds to the probe the reply to the cancelled call, if one has come: read
// after the column settled, every reply the server sent before its barrier is in.
func (p cnInflight) settled() cnInflight {
	if p.call == nil || p.reply != nil || p.replyErr != nil || p.early != "" {
		return p
	}
	// The transcript, not the call's Done, says whether the reply came: the call
	// takes its reply on a goroutine of its own, a moment after the reader recorded
	// it, and over Streamable HTTP the settle's DELETE ends the cancelled call's
	// open stream, which is no sign of the server's (the probe's own barrier judged
	// whether it still served).
	e, replied := cnReplyEntry(p.s, p.call.ID, p.after)
	if !replied {
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p.reply, p.replyErr = p.call.Wait(ctx)
	p.replyAt = time.Now()
	if !e.At.IsZero() {
		p.replyAt = e.At
	}
	return p
}

// cnProbeInflight calls test_slow, cancels it once it is at work, asks
// test_last_cancellation, and proves with a barrier what arrived.
func cnProbeInflight(t *conform.T, s *conform.Session) cnInflight {
	token := fmt.Sprintf("mcp-conform-cancel-%d", time.Now().UnixNano())
	after := s.Conn.Seq()
	call, err := s.Conn.Start(t.Ctx, "tools/call", map[string]any{
		"name": cnSlowFixture, "arguments": map[string]any{"ms": cnSlowMs},
		"_meta": map[string]any{"progressToken": token},
	})
	if err != nil {
		return cnInflight{early: "the call could not be sent: " + conform.Describe(nil, err)}
	}
	p := cnInflight{s: s, call: call, after: after, id: call.ID, token: token}
	// At work: its first progress notification, or (a server that sends none) the
	// request read, which stdio's order guarantees before the cancellation.
	ctx, cancel := context.WithTimeout(t.Ctx, t.Timeout())
	_, _ = s.Conn.WaitFor(ctx, after, func(e wire.Entry) bool {
		return e.Msg != nil && e.Msg.Method == ctProgressMethod && strings.Contains(string(e.Msg.Params), token)
	})
	cancel()
	select {
	case <-call.Done():
		resp, err := call.Wait(t.Ctx)
		p.early = fmt.Sprintf("%s returned before it was cancelled: %s", cnSlowFixture, conform.Describe(resp, err))
		return p
	default:
	}
	p.cancelAt, p.cancels = time.Now(), s.Conn.Seq()
	if err := s.Conn.Notify(t.Ctx, cnMethod, s.Conn.Stamp(map[string]any{"requestId": call.ID, "reason": "mcp-conform: CANCEL-INFLIGHT-01"})); err != nil {
		p.early = "the cancellation could not be sent: " + conform.Describe(nil, err)
		return p
	}
	o := toolkit.Call(t, s, cnLastFixture, json.RawMessage(`{}`))
	if p.last = cnText(o); p.last == "" {
		p.lastErr = toolkit.DescribeOutcome(o)
	}
	select {
	case <-call.Done():
	default:
		if p.last == string(call.ID.Raw()) {
			// Cancelled: whether a reply comes anyway is read after the settle.
			switch err := s.Barrier(t.Ctx); {
			case err != nil && conform.Gone(err):
				p.replyErr = err // the server stopped serving
			case err != nil:
				p.barrier = err
			}
			return p
		}
		// The server did not report the cancellation: its work goes on, so watch
		// for the reply until that work would have ended.
		p.waited = true
		ctx, cancel := context.WithTimeout(t.Ctx, time.Duration(cnSlowMs)*time.Millisecond+t.Timeout())
		defer cancel()
		if _, err := call.Wait(ctx); err != nil && !errors.Is(err, wire.ErrClosed) {
			return p
		}
	}
	p.reply, p.replyErr = call.Wait(t.Ctx)
	p.replyAt = time.Now()
	if p.reply != nil {
		if e, ok := cnReplyEntry(s, call.ID, after); ok {
			p.replyAt = e.At
		}
	}
	return p
}

// cnReplyEntry finds the transcript entry of the reply to id.
func cnReplyEntry(s *conform.Session, id wire.ID, after int) (wire.Entry, bool) {
	for e := range s.Conn.EachReceived(after) {
		if e.Msg != nil && e.Msg.IsResponse() && e.Msg.ID.Key() == id.Key() {
			return e, true
		}
	}
	return wire.Entry{}, false
}

// cnJudgeInflight judges the in-flight cancellation.
func cnJudgeInflight(p cnInflight) conform.Verdict {
	const want = "no response to a request cancelled in flight"
	last := p.last
	if last == "" {
		last = "no text (" + p.lastErr + ")"
	}
	switch {
	case p.early != "":
		return conform.Errorf("not verified: %s", p.early)
	case p.reply != nil:
		return conform.Violation(want, fmt.Sprintf("%s (id %s) was answered %s after its cancellation: %s; %s then said %s",
			cnSlowFixture, p.id, p.replyAt.Sub(p.cancelAt).Round(time.Millisecond), conform.Describe(p.reply, nil), cnLastFixture, last))
	case p.replyErr != nil && errors.Is(p.replyErr, wire.ErrClosed):
		return conform.Violation(want, "after the cancellation the server stopped serving: "+conform.Describe(nil, p.replyErr))
	case p.barrier != nil:
		return conform.Errorf("not verified: the request after the cancellation failed (%v), so nothing proves the response is not on its way", p.barrier)
	case p.waited:
		return conform.Errorf("not verified: %s does not name the cancelled request %s (it said %s), yet no response came within %d ms of work and the timeout", cnLastFixture, p.id, last, cnSlowMs)
	}
	return conform.Pass("%s (id %s) cancelled in flight: %s names it, and no response came (proven by the barrier when the session settled)", cnSlowFixture, p.id, cnLastFixture)
}

// STDIO-CANCEL-R5-01 — 2026-07-28/basic/transports/stdio.mdx (Cancellation).
//
// One probe, two rows: CANCEL-INFLIGHT-01's cancellation of test_slow (T.Once). That
// row judges the SHOULD of every revision that no response follows; this one the
// stdio MUST NOT of 2026-07-28, which forbids any further message for the request:
// its response, and its progress notifications (the only notifications stdio can tie
// to a request: by their token). A response after the cancellation fails whenever it
// comes: test_slow was asked for 2000 ms of work and cancelled as it started, so no
// completion can cross the cancellation. Progress is sent on the server's own clock,
// and one written before the server read the cancellation may still be on its way
// ("Both parties MUST handle these race conditions gracefully", cancellation.mdx,
// Timing Considerations): only progress that follows the reply to a request sent
// after the cancellation fails, because stdin is one ordered stream and a server
// that answered a later request had read the cancellation. The column's settle
// proves the silence after it, with no wait of its own.
var _ = conform.Register(conform.Check{
	ID: "STDIO-CANCEL-R5-01", Title: "over stdio, nothing more is sent for a request the client cancelled: no response, no progress",
	Probe: func(t *conform.T) { stdioCancelOf(t) },
	Run:   runStdioCancel,
})

// stdioCancelOf is CANCEL-INFLIGHT-01's probe (cnInflightOf); the check is of the
// STDIO group, so the runner calls it over stdio only.
func stdioCancelOf(t *conform.T) cnInflight {
	return cnInflightOf(t)
}

func runStdioCancel(t *conform.T) conform.Verdict {
	return cnJudgeStdioR5(stdioCancelOf(t).settled(), t.Transcript(t.Session()))
}

// cnAfterCancel is what the server sent for the cancelled call after the
// cancellation, read from the session's transcript.
type cnAfterCancel struct {
	// read is the transcript position of the first reply to a request sent after
	// the cancellation: by then the server had read it (0: no such reply).
	read      int
	responses []wire.Entry // responses to the cancelled call
	late      []wire.Entry // its progress after read
	crossed   []wire.Entry // its progress between the cancellation and read
}

// cnSortAfterCancel sorts the messages of entries, a session's transcript, that
// came after the cancellation p sent.
func cnSortAfterCancel(p cnInflight, entries []wire.Entry) cnAfterCancel {
	var a cnAfterCancel
	later := map[string]bool{} // requests sent after the cancellation
	for _, e := range entries {
		if e.Seq <= p.cancels || e.Msg == nil {
			continue
		}
		m := e.Msg
		switch {
		case e.Dir == wire.Sent && m.Kind == wire.KindRequest && !m.ID.IsZero():
			later[m.ID.Key()] = true
		case e.Dir != wire.Received:
		case m.IsResponse() && m.ID.Key() == p.id.Key():
			a.responses = append(a.responses, e)
		case m.IsResponse() && a.read == 0 && later[m.ID.Key()]:
			a.read = e.Seq
		case m.Method == ctProgressMethod && cnProgressFor(m, p.token):
			if a.read == 0 {
				a.crossed = append(a.crossed, e)
			} else {
				a.late = append(a.late, e)
			}
		}
	}
	return a
}

// cnProgressFor reports whether a progress notification names the token.
func cnProgressFor(m *wire.Message, token string) bool {
	var params struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(m.Params, &params) != nil {
		return false
	}
	id, err := wire.ParseID(params.Token)
	return err == nil && !id.IsZero() && id.Key() == wire.StringID(token).Key()
}

// cnJudgeStdioR5 judges what followed the cancellation of test_slow over stdio.
func cnJudgeStdioR5(p cnInflight, entries []wire.Entry) conform.Verdict {
	const want = "no further message for a request cancelled with notifications/cancelled: no response, no progress"
	if p.early != "" {
		return conform.Errorf("not verified: %s", p.early)
	}
	a := cnSortAfterCancel(p, entries)
	var f conform.Findings
	for _, e := range a.responses {
		f.Fail(fmt.Sprintf("#%d answers the cancelled %s: %s", e.Seq, cnSlowFixture, toolkit.DescribeReply(e.Msg)))
	}
	for _, e := range a.late {
		f.Fail(fmt.Sprintf("#%d %s for its token %s, after the server answered a request sent after the cancellation (#%d)", e.Seq, ctProgressMethod, p.token, a.read))
	}
	if f.Failed() {
		return f.Violation(want)
	}
	switch {
	case p.replyErr != nil && errors.Is(p.replyErr, wire.ErrClosed):
		return conform.Errorf("not verified: after the cancellation the server stopped serving (%s)", conform.Describe(nil, p.replyErr))
	case p.barrier != nil:
		return conform.Errorf("not verified: the request after the cancellation failed (%v), so nothing proves the silence", p.barrier)
	case a.read == 0:
		// The later requests went unanswered as far as the suite can tell (a reply
		// whose id matches none is BASE-RESP-ID-01's): no evidence either way.
		return conform.Skip(conform.NotExercised, "no request sent after the cancellation was answered, so nothing shows the server read it")
	}
	for _, e := range a.crossed {
		f.Note(fmt.Sprintf("#%d %s for its token came before the server answered a later request (#%d): it may have crossed the cancellation", e.Seq, ctProgressMethod, a.read))
	}
	pass := fmt.Sprintf("%s (id %s) cancelled in flight: no response and no progress after the server answered a later request (#%d), proven when the session settled", cnSlowFixture, p.id, a.read)
	if p.waited {
		pass += fmt.Sprintf("; %s did not name it, and nothing came while its %d ms of work would have run", cnLastFixture, cnSlowMs)
	}
	return f.Verdict(want, "", pass)
}

// CANCEL-DIRECTION-01 — {rev}/basic/utilities/cancellation.mdx (Behavior Requirements).
var _ = conform.Register(toolkit.TranscriptCheck(conform.Check{
	ID: "CANCEL-DIRECTION-01", Title: "the server cancels only requests it issued itself",
}, toolkit.RevisionSessions, cnJudgeDirection,
	"the server sent no notifications/cancelled in this revision's sessions",
	"notifications/cancelled only for requests the server issued",
	"%d notifications/cancelled, each naming a request the server issued"))

// cnJudgeDirection judges the server's cancellations in one session's transcript.
func cnJudgeDirection(f *conform.Findings, label string, entries []wire.Entry) {
	serverReqs := map[string]bool{} // ids of the server's requests so far
	answered := map[string]bool{}   // of those, the ones the suite answered
	clientReqs := map[string]bool{} // ids of the suite's requests so far
	for _, e := range entries {
		if e.Msg == nil {
			continue
		}
		switch {
		case e.Dir == wire.Received && e.Msg.Kind == wire.KindRequest:
			serverReqs[e.Msg.ID.Key()] = true
		case e.Dir == wire.Sent && e.Msg.Kind == wire.KindRequest:
			clientReqs[e.Msg.ID.Key()] = true
		case e.Dir == wire.Sent && e.Msg.IsResponse():
			answered[e.Msg.ID.Key()] = true
		case e.Dir == wire.Received && e.Msg.Method == cnMethod && !e.Msg.IsResponse():
			f.Judged++
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(e.Msg.Params, &p)
			id, err := wire.ParseID(p.RequestID)
			where := fmt.Sprintf("%s #%d notifications/cancelled", label, e.Seq)
			switch {
			case err != nil || id.IsZero() || id.IsNull():
				f.Fail(fmt.Sprintf("%s names requestId %s, which is no request id", where, toolkit.Or(string(p.RequestID), "(none)")))
			case serverReqs[id.Key()] && answered[id.Key()]:
				f.Note(fmt.Sprintf("%s names the server's request %s, which the suite had already answered (a race the specification allows)", where, id))
			case serverReqs[id.Key()]:
			case clientReqs[id.Key()]:
				f.Fail(fmt.Sprintf("%s names %s, a request the client sent: the wrong direction", where, id))
			default:
				f.Fail(fmt.Sprintf("%s names %s, which no request of the server's carried", where, id))
			}
		}
	}
}
