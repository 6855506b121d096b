package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Subscriptions of 2026-07-28 (spec-matrix §2.13 NOTIF-LISTEN-*, §2.4 STDIO-SUBID):
// a list change reaches the client only on a subscriptions/listen stream it opened.
// Every check opens its own subscription on the column's session, cancels it when
// done, and judges absence only after a barrier (conform.Subscription.Sync).

// lsTools is the filter that asks for tool list changes.
var lsTools = map[string]any{"toolsListChanged": true}

// lsOpen opens a subscription and waits for the barrier after it. open is how many
// subscriptions (this one included) are open on the session. A verdict is returned
// when the check cannot go on: the listen could not be sent, or the server refused
// it (an error reply: the server offers no subscription, which the rows do not
// judge).
func lsOpen(t *conform.T, filter map[string]any, open int) (*conform.Subscription, *conform.Verdict) {
	sub, err := t.Session().Listen(t.Ctx, filter)
	if err != nil {
		v := conform.Errorf("%v", err)
		return nil, &v
	}
	if err := sub.Sync(t.Ctx, open); err != nil {
		lsCancel(t, sub)
		v := conform.Errorf("%v", err)
		return nil, &v
	}
	// The acknowledgement (or a refusal) is owed; over HTTP it may trail the barrier.
	sub.Await(t.Ctx, 0, func(wire.Entry) bool { return true })
	for _, e := range sub.Messages() {
		if e.Msg != nil && e.Msg.IsResponse() && e.Msg.Error != nil {
			lsCancel(t, sub)
			v := conform.Skip(reports.NotApplicable, "the server refused subscriptions/listen (id %s) with error %d %q: it opens no subscription to judge", sub.ID, e.Msg.Error.Code, conform.Clip(e.Msg.Error.Message, 120))
			return nil, &v
		}
	}
	return sub, nil
}

// lsCancel ends a subscription; a failure to cancel changes no verdict (the session
// closes at the end of the column anyway).
func lsCancel(t *conform.T, sub *conform.Subscription) {
	_ = sub.Cancel(context.WithoutCancel(t.Ctx))
}

// lsTagProblem says what is wrong with a message's subscription tag ("" when it
// names the subscription).
func lsTagProblem(sub *conform.Subscription, m *wire.Message) string {
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

// lsWhat names a message for findings.
func lsWhat(e wire.Entry) string {
	switch {
	case e.Msg == nil:
		return fmt.Sprintf("#%d (not a JSON-RPC message)", e.Seq)
	case e.Msg.IsResponse():
		return fmt.Sprintf("#%d (the response to the listen request)", e.Seq)
	}
	return fmt.Sprintf("#%d %s", e.Seq, e.Msg.Method)
}

// lsJudgeAck judges the first message of a subscription.
func lsJudgeAck(t *conform.T, sub *conform.Subscription, msgs []wire.Entry) conform.Verdict {
	want := fmt.Sprintf("%s as the subscription's first message, tagged with _meta %s %s", conform.MethodAcknowledged, conform.MetaSubscriptionID, sub.ID)
	if len(msgs) == 0 {
		return t.Violation(want, fmt.Sprintf("no message of subscription %s had arrived when the %s sent after it was answered", sub.ID, t.Session().Conn.BarrierMethod()))
	}
	first := msgs[0]
	if first.Msg == nil || first.Msg.Method != conform.MethodAcknowledged || first.Msg.IsResponse() {
		return t.Violation(want, "the first message is "+lsWhat(first))
	}
	if p := lsTagProblem(sub, first.Msg); p != "" {
		return t.Violation(want, "the acknowledgement "+p)
	}
	var params struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	if err := json.Unmarshal(first.Msg.Params, &params); err != nil || params.Notifications == nil {
		return t.Violation("an acknowledgement whose notifications object lists the honoured subset of the filter", "params.notifications is absent or not an object")
	}
	var extra []string
	for k := range params.Notifications {
		if _, asked := sub.Filter[k]; !asked {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return t.Violation("an acknowledged filter that is a subset of the one requested", "it also names "+strings.Join(extra, ", "))
	}
	return conform.Pass("%s arrived first (entry #%d), tagged with subscription id %s, honouring %s", conform.MethodAcknowledged, first.Seq, sub.ID, conform.Clip(string(first.Msg.Params), 200))
}

// NOTIF-LISTEN-ACK-R5-01 — 2026-07-28/basic/patterns/subscriptions.mdx (Acknowledgment).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-ACK-R5-01", Title: "a subscription starts with notifications/subscriptions/acknowledged tagged with its id",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupNotif, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `2026-07-28/basic/patterns/subscriptions.mdx (Acknowledgment): "The server MUST send notifications/subscriptions/acknowledged as the first message carrying the subscription's ID in _meta under io.modelcontextprotocol/subscriptionId"; "The notifications field in the acknowledgment reflects the subset the server agreed to honor."`,
	Run: func(t *conform.T) conform.Verdict {
		sub, v := lsOpen(t, lsTools, 1)
		if v != nil {
			return *v
		}
		defer lsCancel(t, sub)
		return lsJudgeAck(t, sub, sub.Messages())
	},
})

// lsFire changes the tool list with the trigger (fixture tool, --trigger-tool or
// --trigger-cmd) and returns the listings before and after, or a verdict when the
// change could not be made.
func lsFire(t *conform.T, trig *ctTrigger) (before, after *toolkit.Listing, v *conform.Verdict) {
	s := t.Session()
	before = toolkit.Walk(t, s)
	if lv := toolkit.ListVerdict(t, before); lv != nil {
		e := conform.Errorf("no tools/list before the change: %s", lv.Message)
		return nil, nil, &e
	}
	if fv := trig.fire(t, s, before); fv != nil {
		return nil, nil, fv
	}
	after = toolkit.Walk(t, s)
	if lv := toolkit.ListVerdict(t, after); lv != nil {
		e := conform.Errorf("no tools/list after the change: %s", lv.Message)
		return nil, nil, &e
	}
	return before, after, nil
}

// lsChange changes the tool list for a check that judges only what the change sends
// (NOTIF-LISTEN-TAG-R5-01, STDIO-SUBID-R5-01, NOTIF-LISTEN-LC-R5-01's retry). Around
// the change it asks for the first tools/list page, the very requests lsFire's walks
// make on a list of one page, so that such a server sees the same exchange (the page
// before is also the time a just-acknowledged subscription has had to be registered);
// a long list is not walked twice for listings nobody reads. The trigger tool's
// definition comes from the revision's memoized listing.
func lsChange(t *conform.T, trig *ctTrigger) *conform.Verdict {
	s := t.Session()
	if v := lsFirstPage(t, s, "before"); v != nil {
		return v
	}
	if fv := trig.fire(t, s, toolkit.List(t)); fv != nil {
		return fv
	}
	return lsFirstPage(t, s, "after")
}

// lsFirstPage asks for the first tools/list page; a verdict when none came back.
func lsFirstPage(t *conform.T, s *conform.Session, when string) *conform.Verdict {
	if p := toolkit.FetchPage(t, s, nil); p.Err != nil || p.Resp.IsError() {
		e := conform.Errorf("no tools/list %s the change: %s", when, conform.Describe(p.Resp, p.Err))
		return &e
	}
	return nil
}

// lsTagFindings judges the tag of every message of the subscriptions.
func lsTagFindings(f *conform.Findings, subs ...*conform.Subscription) {
	for _, sub := range subs {
		for _, e := range sub.Messages() {
			f.Judged++
			if e.Msg == nil {
				continue
			}
			if p := lsTagProblem(sub, e.Msg); p != "" {
				f.Fail(fmt.Sprintf("subscription %s: %s %s", sub.ID, lsWhat(e), p))
			}
		}
	}
}

// NOTIF-LISTEN-TAG-R5-01 — 2026-07-28/basic/index.mdx; basic/patterns/subscriptions.mdx.
// It judges the acknowledgement, and the notifications a tool list change brings
// when something can change the list (the final response comes only when the server
// ends a subscription itself, which the suite cannot provoke; one that arrives is
// judged too).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-TAG-R5-01", Title: "every message on a listen stream carries _meta subscriptionId",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupNotif, Needs: conform.NeedsAny, Phase: conform.PhaseStateChange,
	Source: `2026-07-28/basic/index.mdx: "On notifications delivered via a subscriptions/listen stream, the server MUST include io.modelcontextprotocol/subscriptionId in _meta"; subscriptions.mdx (Graceful Closure): "Like every other message on the stream, the response carries io.modelcontextprotocol/subscriptionId in _meta"`,
	Run: func(t *conform.T) conform.Verdict {
		sub, v := lsOpen(t, lsTools, 1)
		if v != nil {
			return *v
		}
		defer lsCancel(t, sub)
		changed := ""
		if trig := ctPickTrigger(t); trig != nil && toolkit.ListChangedDeclared(t.Session()) {
			if fv := lsChange(t, trig); fv != nil {
				return *fv
			}
			if err := sub.Sync(t.Ctx, 1); err != nil {
				return conform.Errorf("%v", err)
			}
			changed = " (after a tool list change with " + trig.what + ")"
		}
		var f conform.Findings
		lsTagFindings(&f, sub)
		if f.Judged == 0 {
			return conform.Skip(reports.NotExercised, "subscription %s delivered no message%s", sub.ID, changed)
		}
		return f.Verdict("every message of the subscription tagged with _meta "+conform.MetaSubscriptionID+" "+sub.ID.String(), "",
			fmt.Sprintf("%d message%s of subscription %s%s, all tagged with its id", f.Judged, ctPlural(f.Judged), sub.ID, changed))
	},
})

// STDIO-SUBID-R5-01 — 2026-07-28/basic/transports/stdio.mdx; subscriptions.mdx.
// Two subscriptions share the channel at once: each message must name its own.
var _ = conform.Register(conform.Check{
	ID: "STDIO-SUBID-R5-01", Title: "stdio: two concurrent subscriptions are told apart by _meta subscriptionId",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupStdio, Needs: conform.NeedsAny, Phase: conform.PhaseStateChange,
	Source: `2026-07-28/basic/patterns/subscriptions.mdx (Multiple Concurrent Subscriptions): "every notification on the stream carries that ID in io.modelcontextprotocol/subscriptionId so clients can demultiplex them"; basic/index.mdx: "the server MUST include io.modelcontextprotocol/subscriptionId in _meta"; basic/transports/stdio.mdx: "Clients MUST correlate these using the io.modelcontextprotocol/subscriptionId field in _meta"`,
	Run: func(t *conform.T) conform.Verdict {
		if t.Session().Kind != "stdio" {
			return conform.Skip(reports.NotApplicable, "the channel is %s, not stdio: each subscription has a stream of its own", t.Session().Kind)
		}
		a, v := lsOpen(t, lsTools, 1)
		if v != nil {
			return *v
		}
		defer lsCancel(t, a)
		b, v := lsOpen(t, lsTools, 2)
		if v != nil {
			return *v
		}
		defer lsCancel(t, b)
		changed := ""
		if trig := ctPickTrigger(t); trig != nil && toolkit.ListChangedDeclared(t.Session()) {
			if fv := lsChange(t, trig); fv != nil {
				return *fv
			}
			if err := b.Sync(t.Ctx, 2); err != nil {
				return conform.Errorf("%v", err)
			}
			changed = " (after a tool list change with " + trig.what + ")"
		}
		var f conform.Findings
		// An untagged subscription notification is owned by both; judging it
		// under a alone reports it once.
		lsTagFindings(&f, a)
		for _, e := range b.Messages() {
			f.Judged++
			if e.Msg == nil {
				continue
			}
			if _, ok := conform.SubscriptionTag(e.Msg); ok {
				if p := lsTagProblem(b, e.Msg); p != "" {
					f.Fail(fmt.Sprintf("subscription %s: %s %s", b.ID, lsWhat(e), p))
				}
			}
		}
		return f.Verdict(fmt.Sprintf("every message of subscriptions %s and %s tagged with its own id", a.ID, b.ID), "",
			fmt.Sprintf("%d messages of the two subscriptions %s and %s on the one channel%s, each tagged with its own id", f.Judged, a.ID, b.ID, changed))
	},
})

// lsSplit sorts the list_changed notifications received after seq into those the
// subscription delivered and the others, described. On stdio a notification is the
// subscription's only when it is tagged with its id: the shared channel has nothing
// else to tell it by (an untagged one is also NOTIF-LISTEN-TAG-R5-01's finding); over
// HTTP it is the subscription's when its stream carried it.
func lsSplit(t *conform.T, sub *conform.Subscription, after int) (on []wire.Entry, outside []string) {
	mine := map[int]bool{}
	for _, e := range sub.Messages() {
		mine[e.Seq] = true
	}
	stdio := t.Session().Kind == "stdio"
	for _, e := range t.Session().Conn.Received(after) {
		if e.Msg == nil || e.Msg.Method != ctListChanged {
			continue
		}
		switch {
		case mine[e.Seq] && (!stdio || lsTagProblem(sub, e.Msg) == ""):
			on = append(on, e)
		case stdio:
			outside = append(outside, fmt.Sprintf("#%d (%s)", e.Seq, ctOr(lsTagProblem(sub, e.Msg), "tagged")))
		default:
			outside = append(outside, fmt.Sprintf("#%d on %s", e.Seq, ctOr(e.Source, "the connection")))
		}
	}
	return on, outside
}

// NOTIF-LISTEN-LC-R5-01 — 2026-07-28/server/tools.mdx (List Changed Notification).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-LC-R5-01", Title: "a tool list change is announced on the listen stream that asked for toolsListChanged, and only there",
	Level: conform.Should, Revisions: revision.Span("R5"), Group: conform.GroupNotif, Needs: conform.NeedsFixture, Phase: conform.PhaseStateChange,
	Source: `2026-07-28/server/tools.mdx (List Changed Notification): "When the list of available tools changes, servers that declared the listChanged capability SHOULD send a notification to clients that have opened a subscriptions/listen stream with toolsListChanged: true"; "listChanged indicates whether the server will emit notifications when the list of available tools changes"`,
	Run: func(t *conform.T) conform.Verdict {
		declared := toolkit.ListChangedDeclared(t.Session())
		const undeclared = "capabilities.tools.listChanged is not true: the server does not offer list_changed notifications"
		if _, ok := t.Session().Capabilities()["tools"]; !ok && !declared {
			// TOOLS-CAP-01's business; the suite calls no tool of an undeclared capability.
			return conform.Skip(reports.NotApplicable, "%s (it declares no tools capability)", undeclared)
		}
		trig := ctPickTrigger(t)
		switch {
		case trig == nil && !declared:
			return conform.Skip(reports.NotApplicable, "%s, and nothing can change the tool list to see that none comes", undeclared)
		case trig == nil:
			return conform.Skip(reports.NeedsFixture, "nothing can change the tool list: list the fixture tool %s (spec-matrix §3.2), or give --trigger-tool NAME[=JSON] or --trigger-cmd \"shell command\"", ctTriggerFixture)
		}
		sub, v := lsOpen(t, lsTools, 1)
		if v != nil {
			return *v
		}
		defer lsCancel(t, sub)
		seq := t.Session().Conn.Seq()
		before, after, fv := lsFire(t, trig)
		if fv != nil {
			return *fv
		}
		if err := sub.Sync(t.Ctx, 1); err != nil {
			return conform.Errorf("%v", err)
		}
		if declared {
			// The announcement is owed; a server may send it a moment later.
			sub.Await(t.Ctx, seq, func(e wire.Entry) bool { return e.Msg != nil && e.Msg.Method == ctListChanged })
		}
		got, out := lsSplit(t, sub, seq)
		retried := ""
		if declared && len(got) == 0 && len(out) == 0 {
			// A change made right after the acknowledgement may race the server's
			// own registration of the subscription (the spec orders the
			// acknowledgement first, not the registration): one more change tells
			// a late start from a server that never announces.
			if fv := lsChange(t, trig); fv == nil && sub.Sync(t.Ctx, 1) == nil {
				sub.Await(t.Ctx, seq, func(e wire.Entry) bool { return e.Msg != nil && e.Msg.Method == ctListChanged })
				if got, out = lsSplit(t, sub, seq); len(got) > 0 {
					retried = "; the first change was not announced, the second was"
				}
			}
		}
		if len(out) > 0 {
			return t.Violation(ctListChanged+" only on the listen stream that asked for it",
				fmt.Sprintf("%s arrived outside subscription %s: %s", ctListChanged, sub.ID, strings.Join(out, ", ")))
		}
		added, removed := ctNameDiff(before, after)
		change := fmt.Sprintf("tools/list before and after: %s", ctDiffText(added, removed, len(before.Tools)))
		if !declared {
			// The row's "only if listChanged is declared": the change is made all
			// the same, so that an announcement the server did not offer is seen.
			if len(got) > 0 {
				return t.Violation("no "+ctListChanged+" from a server whose capabilities.tools.listChanged is not true",
					fmt.Sprintf("it arrived on subscription %s (entry #%d) after %s", sub.ID, got[0].Seq, trig.what))
			}
			return conform.Skip(reports.NotApplicable, "%s; none came on subscription %s after %s (%s)", undeclared, sub.ID, trig.what, change)
		}
		switch {
		case len(got) > 0 && len(added)+len(removed) > 0:
			return conform.Pass("%s arrived on subscription %s (entry #%d) after %s; %s%s", ctListChanged, sub.ID, got[0].Seq, trig.what, change, retried)
		case len(got) > 0:
			return t.Violation("a tools/list showing the change that "+ctListChanged+" announced", fmt.Sprintf("the notification arrived after %s, but %s", trig.what, change))
		case len(added)+len(removed) > 0:
			return t.Violation(fmt.Sprintf("%s on subscription %s after a change of the tool list", ctListChanged, sub.ID),
				fmt.Sprintf("none by the time the %s after %s was answered, though %s", t.Session().Conn.BarrierMethod(), trig.what, change))
		}
		return conform.Skip(reports.NotExercised, "%s did not change the tool list (%s) and no %s came: nothing to announce", trig.what, change, ctListChanged)
	},
})

// NOTIF-LISTEN-FILTER-R5-01 — 2026-07-28/basic/patterns/subscriptions.mdx (Opening a Stream).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-FILTER-R5-01", Title: "a subscription gets only the notification types it asked for",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupNotif, Needs: conform.NeedsFixture, Phase: conform.PhaseStateChange,
	Source: `2026-07-28/basic/patterns/subscriptions.mdx (Opening a Stream): "The server MUST NOT send notification types the client has not explicitly requested."`,
	Run: func(t *conform.T) conform.Verdict {
		trig := ctPickTrigger(t)
		if trig == nil {
			return conform.Skip(reports.NeedsFixture, "nothing can change the tool list: list the fixture tool %s (spec-matrix §3.2), or give --trigger-tool NAME[=JSON] or --trigger-cmd \"shell command\"", ctTriggerFixture)
		}
		sub, v := lsOpen(t, map[string]any{"promptsListChanged": true}, 1)
		if v != nil {
			return *v
		}
		defer lsCancel(t, sub)
		before, after, fv := lsFire(t, trig)
		if fv != nil {
			return *fv
		}
		if err := sub.Sync(t.Ctx, 1); err != nil {
			return conform.Errorf("%v", err)
		}
		var f conform.Findings
		for _, e := range sub.Messages() {
			if e.Msg == nil || e.Msg.IsResponse() || e.Msg.Method == conform.MethodAcknowledged {
				continue
			}
			f.Judged++
			if e.Msg.Method != "notifications/prompts/list_changed" {
				f.Fail(fmt.Sprintf("%s on a subscription that asked for promptsListChanged only", lsWhat(e)))
			}
		}
		added, removed := ctNameDiff(before, after)
		if len(f.Fails()) == 0 && len(added)+len(removed) == 0 {
			return conform.Skip(reports.NotExercised, "%s did not change the tool list, so nothing was there to hold back", trig.what)
		}
		return f.Verdict("only the notification types the filter requested (promptsListChanged)", "",
			fmt.Sprintf("nothing but what was asked for on subscription %s {promptsListChanged: true} after %s changed the tool list (%s)", sub.ID, trig.what, ctDiffText(added, removed, len(before.Tools))))
	},
})

// lsObserved holds what the observed checks read from the revision's sessions: every
// received entry, with the ids of the listen requests the session sent.
type lsObserved struct {
	label   string          // the session's label
	listens map[string]bool // Key of each listen request id
	streams map[string]bool // its raw JSON id: the POST stream's key over HTTP
	entries []wire.Entry
}

// lsObserve settles the main session (a barrier round trip: on stdio every message
// sent before it has been read; ctSettle) and collects the revision's sessions.
func lsObserve(t *conform.T) []lsObserved {
	ctSettle(t)
	var out []lsObserved
	for _, s := range ctSessions(t) {
		o := lsObserved{label: s.Label, listens: map[string]bool{}, streams: map[string]bool{}}
		all, _ := s.Conn.Transcript()
		for _, e := range all {
			switch {
			case e.Dir == wire.Sent && e.Msg != nil && e.Msg.Method == conform.MethodListen:
				o.listens[e.Msg.ID.Key()] = true
				o.streams[string(e.Msg.ID.Raw())] = true
			case e.Dir == wire.Received:
				o.entries = append(o.entries, e)
			}
		}
		out = append(out, o)
	}
	return out
}

// onListen reports whether a received message came on a listen stream: over HTTP the
// listen POST's SSE reply carried it; on stdio it is tagged with a listen request's id
// or is a subscription notification.
func (o lsObserved) onListen(e wire.Entry) bool {
	if e.Stream != "" {
		return o.streams[e.Stream]
	}
	if e.Msg == nil {
		return false
	}
	if id, ok := conform.SubscriptionTag(e.Msg); ok && o.listens[id.Key()] {
		return true
	}
	// A subscription notification that names no listen request is still one of
	// theirs (as conform.Subscription attributes it); a progress or message without
	// a tag cannot be told from a request's own.
	return len(o.listens) > 0 && conform.IsSubscriptionMethod(e.Msg.Method)
}

// NOTIF-LISTEN-SCOPE-R5-01 — 2026-07-28/server/utilities/logging.mdx; basic/transports/streamable-http.mdx.
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-SCOPE-R5-01", Title: "no notifications/progress or notifications/message on a listen stream",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupNotif, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `2026-07-28/server/utilities/logging.mdx: "notifications/message is request-scoped: the server MUST NOT deliver it on a subscriptions/listen stream"; basic/transports/streamable-http.mdx: "Request-scoped notifications like notifications/progress and notifications/message are not delivered on the listen stream"`,
	Run:    func(t *conform.T) conform.Verdict { return lsJudgeScope(lsObserve(t)) },
})

// lsJudgeScope judges the messages of every listen stream observed.
func lsJudgeScope(obs []lsObserved) conform.Verdict {
	var f conform.Findings
	subs := 0
	for _, o := range obs {
		subs += len(o.listens)
		for _, e := range o.entries {
			if !o.onListen(e) {
				continue
			}
			f.Judged++
			if m := e.Msg; m != nil && (m.Method == "notifications/progress" || m.Method == "notifications/message") {
				f.Fail(fmt.Sprintf("%s #%d %s on a listen stream", o.label, e.Seq, m.Method))
			}
		}
	}
	if subs == 0 || f.Judged == 0 {
		return conform.Skip(reports.NotExercised, "no message of a subscriptions/listen stream was received in this revision's sessions")
	}
	return f.Verdict("no request-scoped notification (progress, message) on a listen stream", "",
		fmt.Sprintf("%d message%s on %d listen stream%s, none of them progress or message", f.Judged, ctPlural(f.Judged), subs, ctPlural(subs)))
}

// CANCEL-R5-SERVER-01 — 2026-07-28/basic/patterns/cancellation.mdx.
var _ = conform.Register(conform.Check{
	ID: "CANCEL-R5-SERVER-01", Title: "the server sends notifications/cancelled only to tear down a subscription",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupUtil, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `2026-07-28/basic/patterns/cancellation.mdx: "Servers MUST NOT send notifications/cancelled for any other purpose."; "Server-sent cancellation notifications MUST reference a subscriptions/listen request, to terminate that subscription stream"`,
	Run:    func(t *conform.T) conform.Verdict { return lsJudgeCancel(lsObserve(t)) },
})

// lsJudgeCancel judges every notifications/cancelled the server sent.
func lsJudgeCancel(obs []lsObserved) conform.Verdict {
	var f conform.Findings
	for _, o := range obs {
		for _, e := range o.entries {
			if e.Msg == nil || e.Msg.Method != "notifications/cancelled" || e.Msg.IsResponse() {
				continue
			}
			f.Judged++
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(e.Msg.Params, &p)
			id, err := wire.ParseID(p.RequestID)
			if err != nil || id.IsZero() || !o.listens[id.Key()] {
				f.Fail(fmt.Sprintf("%s #%d notifications/cancelled names requestId %s, which is no subscriptions/listen request of the session", o.label, e.Seq, ctOr(string(p.RequestID), "(none)")))
			}
		}
	}
	if f.Judged == 0 {
		return conform.Skip(reports.NotExercised, "the server sent no notifications/cancelled in this revision's sessions")
	}
	return f.Verdict("notifications/cancelled only for a subscriptions/listen request", "",
		fmt.Sprintf("%d notifications/cancelled, each tearing down a subscription", f.Judged))
}
