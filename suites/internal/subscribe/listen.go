package subscribe

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Tools is the filter that asks for tool list changes.
var Tools = map[string]any{"toolsListChanged": true}

// Open opens a subscription and waits for the barrier after it. open is how many
// subscriptions (this one included) are open on the session. A verdict is returned
// when the check cannot go on: the listen could not be sent, or the server refused
// it (an error reply: the server offers no subscription, which the rows do not
// judge).
func Open(t *conform.T, filter map[string]any, open int) (*conform.Subscription, *conform.Verdict) {
	sub, err := t.Session().Listen(t.Ctx, filter)
	if err != nil {
		v := conform.Errorf("%v", err)
		return nil, &v
	}
	if err := sub.Sync(t.Ctx, open); err != nil {
		Cancel(t, sub)
		v := conform.Errorf("%v", err)
		return nil, &v
	}
	// The acknowledgement (or a refusal) is owed; it may trail the barrier's reply by
	// the barrier's grace.
	sub.AwaitFirst(t.Ctx)
	for _, e := range sub.Messages() {
		if e.Msg != nil && e.Msg.IsResponse() && e.Msg.Error != nil {
			Cancel(t, sub)
			v := conform.Skip(conform.NotApplicable, "the server refused subscriptions/listen (id %s) with error %d %q: it opens no subscription to judge", sub.ID, e.Msg.Error.Code, conform.Clip(e.Msg.Error.Message, 120))
			return nil, &v
		}
	}
	return sub, nil
}

// MustOpen is Open for a check that cannot go on without the subscription: it ends
// the check with Open's verdict.
func MustOpen(t *conform.T, filter map[string]any, open int) *conform.Subscription {
	sub, v := Open(t, filter, open)
	if v != nil {
		t.Stop(*v)
	}
	return sub
}

// Cancel ends a subscription; a failure to cancel changes no verdict (the session
// closes at the end of the column anyway). A barrier round trip follows, so that the
// server has read the cancellation and answered a later request before the next
// check opens a subscription of its own: the Go SDK (v1.8.0) keeps one
// list-change subscription per session and, when a cancelled listen's handler
// ends, deletes whichever is registered then, the next check's too when that one
// was opened before the handler ran.
func Cancel(t *conform.T, sub *conform.Subscription) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Ctx), t.Timeout())
	defer cancel()
	if sub.Cancel(ctx) == nil {
		s := t.Session()
		_, _ = s.Conn.Call(ctx, s.Conn.BarrierMethod(), nil)
	}
}

// TagProblem says what is wrong with a message's subscription tag ("" when it
// names the subscription).
func TagProblem(sub *conform.Subscription, m *wire.Message) string {
	id, ok := conform.SubscriptionTag(m)
	switch {
	case !ok:
		return "carries no _meta " + conform.MetaSubscriptionID
	case id.IsZero():
		return "carries a _meta " + conform.MetaSubscriptionID + " that is not a JSON-RPC id"
	case id.Key() != sub.ID.Key():
		return fmt.Sprintf("carries _meta %s %s, not the listen request's id %s", conform.MetaSubscriptionID, id, sub.ID)
	}
	return ""
}

// What names a message for findings.
func What(e wire.Entry) string {
	switch {
	case e.Msg == nil:
		return fmt.Sprintf("#%d (not a JSON-RPC message)", e.Seq)
	case e.Msg.IsResponse():
		return fmt.Sprintf("#%d (the response to the listen request)", e.Seq)
	}
	return fmt.Sprintf("#%d %s", e.Seq, e.Msg.Method)
}

// Before is the main session's tool list before a change of the check's
// (toolkit.BeforeChange), ending the check when no page of it came back. A check
// that reads first (conform.Check.ReadsFirst) takes it before it opens its
// subscription: the subscription then opens once the previous change check has
// ended, when no announcement of that check's change is still on its way to it.
func Before(t *conform.T) *toolkit.Listing {
	before := toolkit.BeforeChange(t, t.Session())
	if lv := toolkit.ListVerdict(t, before); lv != nil {
		t.ErrorNow("no tools/list before the change: %s", lv.Message)
	}
	return before
}

// FireListed changes the tool list with the trigger (fixture tool, --trigger-tool or
// --trigger-cmd) and returns the listing after; it ends the check when the change
// could not be made. before is the listing before (Before), made before the
// subscription opened: the first page is asked for again before the change, the
// request a walk of a one-page list makes, so that a just-acknowledged subscription
// has had that time to be registered, as it had when every check walked anew.
func FireListed(t *conform.T, trig *Trigger, before *toolkit.Listing) (after *toolkit.Listing) {
	s := t.Session()
	if v := FirstPage(t, s, "before"); v != nil {
		t.Stop(*v)
	}
	trig.MustFire(t, s, before)
	after = toolkit.Current(t, s)
	if lv := toolkit.ListVerdict(t, after); lv != nil {
		t.ErrorNow("no tools/list after the change: %s", lv.Message)
	}
	return after
}

// Change changes the tool list for a check that judges only what the change sends
// (NOTIF-LISTEN-TAG-R5-01, STDIO-SUBID-R5-01, NOTIF-LISTEN-LC-R5-01's retry). Around
// the change it asks for the first tools/list page, the very requests FireListed's walks
// make on a list of one page, so that such a server sees the same exchange (the page
// before is also the time a just-acknowledged subscription has had to be registered);
// a long list is not walked twice for listings nobody reads. The trigger tool's
// definition comes from the revision's memoized listing.
func Change(t *conform.T, trig *Trigger) *conform.Verdict {
	s := t.Session()
	if v := FirstPage(t, s, "before"); v != nil {
		return v
	}
	if fv := trig.Fire(t, s, toolkit.List(t)); fv != nil {
		return fv
	}
	return FirstPage(t, s, "after")
}

// MustChange is Change for a check that cannot go on without the change: it ends the
// check with Change's verdict.
func MustChange(t *conform.T, trig *Trigger) {
	if v := Change(t, trig); v != nil {
		t.Stop(*v)
	}
}

// FirstPage asks for the first tools/list page; a verdict when none came back.
func FirstPage(t *conform.T, s *conform.Session, when string) *conform.Verdict {
	if p := toolkit.FetchPage(t, s, nil); p.Err != nil || p.Resp.IsError() {
		e := conform.Errorf("no tools/list %s the change: %s", when, conform.Describe(p.Resp, p.Err))
		return &e
	}
	return nil
}

// TagFindings judges the tag of every message of the subscriptions.
func TagFindings(f *conform.Findings, subs ...*conform.Subscription) {
	for _, sub := range subs {
		for _, e := range sub.Messages() {
			f.Judged++
			if e.Msg == nil {
				continue
			}
			if p := TagProblem(sub, e.Msg); p != "" {
				f.Fail(fmt.Sprintf("subscription %s: %s %s", sub.ID, What(e), p))
			}
		}
	}
}

// Observed holds what the observed checks read from the revision's sessions: every
// received entry, with the ids of the listen requests the session sent.
type Observed struct {
	Label   string          // the session's label
	Listens map[string]bool // Key of each listen request id
	Streams map[string]bool // its raw JSON id: the POST stream's key over HTTP
	Entries []wire.Entry
}

// Observe collects the revision's sessions. Its users are transcript checks, judged
// after the column settled, which proved every message in: it sends nothing.
func Observe(t *conform.T) []Observed {
	var out []Observed
	for _, s := range toolkit.RevisionSessions(t) {
		o := Observed{Label: s.Label, Listens: map[string]bool{}, Streams: map[string]bool{}}
		all, _ := s.Conn.Transcript()
		for _, e := range all {
			switch {
			case e.Dir == wire.Sent && e.Msg != nil && e.Msg.Method == conform.MethodListen:
				o.Listens[e.Msg.ID.Key()] = true
				o.Streams[string(e.Msg.ID.Raw())] = true
			case e.Dir == wire.Received:
				o.Entries = append(o.Entries, e)
			}
		}
		out = append(out, o)
	}
	return out
}

// OnListen reports whether a received message came on a listen stream: over HTTP the
// listen POST's SSE reply carried it; on stdio it is tagged with a listen request's id
// or is a subscription notification.
func (o Observed) OnListen(e wire.Entry) bool {
	if e.Stream != "" {
		return o.Streams[e.Stream]
	}
	if e.Msg == nil {
		return false
	}
	if id, ok := conform.SubscriptionTag(e.Msg); ok && o.Listens[id.Key()] {
		return true
	}
	// A subscription notification that names no listen request is still one of
	// theirs (as conform.Subscription attributes it); a progress or message without
	// a tag cannot be told from a request's own.
	return len(o.Listens) > 0 && conform.IsSubscriptionMethod(e.Msg.Method)
}

// ObservedCheck is a transcript check (PhaseTranscript) that judges the revision's
// sessions as Observe collects them.
func ObservedCheck(c conform.Check, judge func(obs []Observed) conform.Verdict) conform.Check {
	c.Phase = conform.PhaseTranscript
	c.Run = func(t *conform.T) conform.Verdict { return judge(Observe(t)) }
	return c
}

// ObservedOf builds an Observed session from scripted traffic, for verdict tables:
// the listen ids sent, and received messages (raw JSON; a "stream|" prefix names the
// POST stream that carried one).
func ObservedOf(listens []wire.ID, msgs ...string) (Observed, error) {
	o := Observed{Label: "main", Listens: map[string]bool{}, Streams: map[string]bool{}}
	for _, id := range listens {
		o.Listens[id.Key()] = true
		o.Streams[string(id.Raw())] = true
	}
	for i, raw := range msgs {
		stream := ""
		if s, rest, ok := strings.Cut(raw, "|"); ok {
			stream, raw = s, rest
		}
		m, err := wire.Decode([]byte(raw))
		if err != nil {
			return o, fmt.Errorf("decode %s: %w", raw, err)
		}
		o.Entries = append(o.Entries, wire.Entry{Seq: i + 1, Dir: wire.Received, Raw: []byte(raw), Msg: m, Stream: stream})
	}
	return o, nil
}

// MustObservedOf is ObservedOf for verdict tables: a script that does not decode
// fails the test.
func MustObservedOf(tb testing.TB, listens []wire.ID, msgs ...string) Observed {
	tb.Helper()
	o, err := ObservedOf(listens, msgs...)
	if err != nil {
		tb.Fatal(err)
	}
	return o
}
