package notifications

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Subscriptions of 2026-07-28 (NOTIF-LISTEN-*, STDIO-SUBID-R5-01):
// a list change reaches the client only on a subscriptions/listen stream it opened.
// Every check opens its own subscription on the column's session, cancels it when
// done, and judges absence only after a barrier (conform.Subscription.Sync).

// lsJudgeAck judges the first message of a subscription.
func lsJudgeAck(t *conform.T, sub *conform.Subscription, msgs []wire.Entry) conform.Verdict {
	want := fmt.Sprintf("%s as the subscription's first message, tagged with _meta %s %s", conform.MethodAcknowledged, conform.MetaSubscriptionID, sub.ID)
	if len(msgs) == 0 {
		return conform.Violation(want, fmt.Sprintf("no message of subscription %s had arrived when the %s sent after it was answered, nor within the grace after", sub.ID, t.Session().Conn.BarrierMethod()))
	}
	first := msgs[0]
	if first.Msg == nil || first.Msg.Method != conform.MethodAcknowledged || first.Msg.IsResponse() {
		return conform.Violation(want, "the first message is "+subscribe.What(first))
	}
	if p := subscribe.TagProblem(sub, first.Msg); p != "" {
		return conform.Violation(want, "the acknowledgement "+p)
	}
	var params struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	if err := json.Unmarshal(first.Msg.Params, &params); err != nil || params.Notifications == nil {
		return conform.Violation("an acknowledgement whose notifications object lists the honoured subset of the filter", "params.notifications is absent or not an object")
	}
	names := make([]string, 0, len(params.Notifications))
	for k := range params.Notifications {
		names = append(names, k)
	}
	sort.Strings(names)
	var extra conform.Findings
	for _, k := range names {
		if _, asked := sub.Filter[k]; !asked {
			extra.Fail("it also names " + k)
		}
	}
	if extra.Failed() {
		return extra.Violation("an acknowledged filter that is a subset of the one requested")
	}
	return conform.Pass("%s arrived first (entry #%d), tagged with subscription id %s, honouring %s", conform.MethodAcknowledged, first.Seq, sub.ID, conform.ClipBytes(first.Msg.Params, 200))
}

// NOTIF-LISTEN-ACK-R5-01 — 2026-07-28/basic/patterns/subscriptions.mdx (Acknowledgment).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-ACK-R5-01", Title: "a subscription starts with notifications/subscriptions/acknowledged tagged with its id",
	Run: func(t *conform.T) conform.Verdict {
		sub := subscribe.MustOpen(t, subscribe.Tools, 1)
		defer subscribe.Cancel(t, sub)
		return lsJudgeAck(t, sub, sub.Messages())
	},
})

// NOTIF-LISTEN-TAG-R5-01 — 2026-07-28/basic/index.mdx; basic/patterns/subscriptions.mdx.
// It judges the acknowledgement, and the notifications a tool list change brings
// when something can change the list (the final response comes only when the server
// ends a subscription itself, which the suite cannot provoke; one that arrives is
// judged too).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-TAG-R5-01", Title: "every message on a listen stream carries _meta subscriptionId",
	Changes: conform.StateToolList,
	Run: func(t *conform.T) conform.Verdict {
		sub := subscribe.MustOpen(t, subscribe.Tools, 1)
		defer subscribe.Cancel(t, sub)
		changed := ""
		if trig := subscribe.PickTrigger(t); trig != nil && toolkit.ListChangedDeclared(t.Session()) {
			subscribe.MustChange(t, trig)
			if err := sub.Sync(t.Ctx, 1); err != nil {
				return conform.Errorf("%v", err)
			}
			changed = " (after a tool list change with " + trig.What + ")"
		}
		var f conform.Findings
		subscribe.TagFindings(&f, sub)
		if f.Judged == 0 {
			return conform.Skip(conform.NotExercised, "subscription %s delivered no message%s", sub.ID, changed)
		}
		return f.Verdict("every message of the subscription tagged with _meta "+conform.MetaSubscriptionID+" "+sub.ID.String(), "",
			fmt.Sprintf("%d message%s of subscription %s%s, all tagged with its id", f.Judged, toolkit.Plural(f.Judged), sub.ID, changed))
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
	for e := range t.Session().Conn.EachReceived(after) {
		if e.Msg == nil || e.Msg.Method != ctListChanged {
			continue
		}
		switch {
		case mine[e.Seq] && (!stdio || subscribe.TagProblem(sub, e.Msg) == ""):
			on = append(on, e)
		case stdio:
			outside = append(outside, fmt.Sprintf("#%d (%s)", e.Seq, toolkit.Or(subscribe.TagProblem(sub, e.Msg), "tagged")))
		default:
			outside = append(outside, fmt.Sprintf("#%d on %s", e.Seq, toolkit.Or(e.Source, "the connection")))
		}
	}
	return on, outside
}

// NOTIF-LISTEN-LC-R5-01 — 2026-07-28/server/tools.mdx (List Changed Notification).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-LC-R5-01", Title: "a tool list change is announced on the listen stream that asked for toolsListChanged, and only there",
	Changes:    conform.StateToolList,
	ReadsFirst: true, // its listing before (subscribe.Before) comes before its subscription
	Run: func(t *conform.T) conform.Verdict {
		declared := toolkit.ListChangedDeclared(t.Session())
		const undeclared = "capabilities.tools.listChanged is not true: the server does not offer list_changed notifications"
		if _, ok := t.Session().Capabilities()["tools"]; !ok && !declared {
			// TOOLS-CAP-01's business; the suite calls no tool of an undeclared capability.
			return conform.Skip(conform.NotApplicable, "%s (it declares no tools capability)", undeclared)
		}
		trig := subscribe.PickTrigger(t)
		switch {
		case trig == nil && !declared:
			return conform.Skip(conform.NotApplicable, "%s, and nothing can change the tool list to see that none comes", undeclared)
		case trig == nil:
			return conform.Skip(conform.MissingFixture, "nothing can change the tool list: list the fixture tool %s (the fixture contract, refserver/doc.go), or give --trigger-tool NAME[=JSON] or --trigger-cmd \"shell command\"", toolkit.TriggerFixture)
		}
		before := subscribe.Before(t)
		sub := subscribe.MustOpen(t, subscribe.Tools, 1)
		defer subscribe.Cancel(t, sub)
		seq := t.Session().Conn.Seq()
		after := subscribe.FireListed(t, trig, before)
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
			if fv := subscribe.Change(t, trig); fv == nil && sub.Sync(t.Ctx, 1) == nil {
				sub.Await(t.Ctx, seq, func(e wire.Entry) bool { return e.Msg != nil && e.Msg.Method == ctListChanged })
				if got, out = lsSplit(t, sub, seq); len(got) > 0 {
					retried = "; the first change was not announced, the second was"
				}
			}
		}
		if len(out) > 0 {
			var f conform.Findings
			for _, o := range out {
				f.Fail(fmt.Sprintf("%s arrived outside subscription %s: %s", ctListChanged, sub.ID, o))
			}
			return f.Violation(ctListChanged + " only on the listen stream that asked for it")
		}
		added, removed := subscribe.NameDiff(ctNames(before), ctNames(after))
		change := fmt.Sprintf("tools/list before and after: %s", subscribe.DiffText(added, removed, ctSame(before)))
		if !declared {
			// The row's "only if listChanged is declared": the change is made all
			// the same, so that an announcement the server did not offer is seen.
			if len(got) > 0 {
				return conform.Violation("no "+ctListChanged+" from a server whose capabilities.tools.listChanged is not true",
					fmt.Sprintf("it arrived on subscription %s (entry #%d) after %s", sub.ID, got[0].Seq, trig.What))
			}
			return conform.Skip(conform.NotApplicable, "%s; none came on subscription %s after %s (%s)", undeclared, sub.ID, trig.What, change)
		}
		switch {
		case len(got) > 0 && len(added)+len(removed) > 0:
			return conform.Pass("%s arrived on subscription %s (entry #%d) after %s; %s%s", ctListChanged, sub.ID, got[0].Seq, trig.What, change, retried)
		case len(got) > 0:
			return conform.Violation("a tools/list showing the change that "+ctListChanged+" announced", fmt.Sprintf("the notification arrived after %s, but %s", trig.What, change))
		case len(added)+len(removed) > 0:
			return conform.Violation(fmt.Sprintf("%s on subscription %s after a change of the tool list", ctListChanged, sub.ID),
				fmt.Sprintf("none by the time the %s after %s was answered, though %s", t.Session().Conn.BarrierMethod(), trig.What, change))
		}
		return conform.Skip(conform.NotExercised, "%s did not change the tool list (%s) and no %s came: nothing to announce", trig.What, change, ctListChanged)
	},
})

// NOTIF-LISTEN-FILTER-R5-01 — 2026-07-28/basic/patterns/subscriptions.mdx (Opening a Stream).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-FILTER-R5-01", Title: "a subscription gets only the notification types it asked for",
	Changes:    conform.StateToolList,
	ReadsFirst: true, // its listing before (subscribe.Before) comes before its subscription
	Run: func(t *conform.T) conform.Verdict {
		trig := subscribe.PickTrigger(t)
		if trig == nil {
			return conform.Skip(conform.MissingFixture, "nothing can change the tool list: list the fixture tool %s (the fixture contract, refserver/doc.go), or give --trigger-tool NAME[=JSON] or --trigger-cmd \"shell command\"", toolkit.TriggerFixture)
		}
		before := subscribe.Before(t)
		sub := subscribe.MustOpen(t, map[string]any{"promptsListChanged": true}, 1)
		defer subscribe.Cancel(t, sub)
		after := subscribe.FireListed(t, trig, before)
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
				f.Fail(fmt.Sprintf("%s on a subscription that asked for promptsListChanged only", subscribe.What(e)))
			}
		}
		added, removed := subscribe.NameDiff(ctNames(before), ctNames(after))
		if len(f.Fails()) == 0 && len(added)+len(removed) == 0 {
			return conform.Skip(conform.NotExercised, "%s did not change the tool list, so nothing was there to hold back", trig.What)
		}
		return f.Verdict("only the notification types the filter requested (promptsListChanged)", "",
			fmt.Sprintf("nothing but what was asked for on subscription %s {promptsListChanged: true} after %s changed the tool list (%s)", sub.ID, trig.What, subscribe.DiffText(added, removed, ctSame(before))))
	},
})

// NOTIF-LISTEN-SCOPE-R5-01 — 2026-07-28/server/utilities/logging.mdx; basic/transports/streamable-http.mdx.
var _ = conform.Register(subscribe.ObservedCheck(conform.Check{
	ID: "NOTIF-LISTEN-SCOPE-R5-01", Title: "no notifications/progress or notifications/message on a listen stream",
}, lsJudgeScope))

// lsJudgeScope judges the messages of every listen stream observed.
func lsJudgeScope(obs []subscribe.Observed) conform.Verdict {
	var f conform.Findings
	subs := 0
	for _, o := range obs {
		subs += len(o.Listens)
		for _, e := range o.Entries {
			if !o.OnListen(e) {
				continue
			}
			f.Judged++
			if m := e.Msg; m != nil && (m.Method == "notifications/progress" || m.Method == "notifications/message") {
				f.Fail(fmt.Sprintf("%s #%d %s on a listen stream", o.Label, e.Seq, m.Method))
			}
		}
	}
	if subs == 0 || f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "no message of a subscriptions/listen stream was received in this revision's sessions")
	}
	return f.Verdict("no request-scoped notification (progress, message) on a listen stream", "",
		fmt.Sprintf("%d message%s on %d listen stream%s, none of them progress or message", f.Judged, toolkit.Plural(f.Judged), subs, toolkit.Plural(subs)))
}

// lsEndFixture is the fixture tool that makes the server end a subscription itself
// (the fixture contract, refserver/doc.go): without it a server does so only at
// shutdown, after every check.
const lsEndFixture = "test_end_subscription"

// NOTIF-LISTEN-CLOSE-R5-01 — 2026-07-28/basic/patterns/subscriptions.mdx (Graceful
// Closure) against basic/patterns/cancellation.mdx.
//
// The two pages disagree about how a server that ends a subscription itself says
// so: subscriptions.mdx SHOULD answer the listen request with a completion result,
// cancellation.mdx MUST send notifications/cancelled naming it. They disagree about
// which message, not about whether one is owed, so a server that follows either page
// passes, with a note saying which (the row's "accept either one; report which"). A
// server that sends neither follows no reading of the specification: both pages
// are broken, and the stricter one, cancellation.mdx's MUST, sets the verdict
// (fail). The same on every transport: over stdio the tool's reply and a barrier
// bound what the server sent before it; over HTTP the subscription's own stream must
// end (bounded by the timeout), which puts every event it carried in.
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LISTEN-CLOSE-R5-01", Title: "a subscription the server ends itself ends with a completion result or notifications/cancelled",
	Changes: conform.StateToolList,
	Run:     runListenClose,
})

func runListenClose(t *conform.T) conform.Verdict {
	l := toolkit.List(t)
	toolkit.RequireListing(t, l)
	tl := l.Find(lsEndFixture)
	if tl == nil {
		return conform.Skip(conform.MissingFixture, "the fixture tool %s (the fixture contract, refserver/doc.go) is not listed: nothing makes the server end a subscription itself before it shuts down", lsEndFixture)
	}
	if p := toolkit.Allowed(t, *tl); !p.Allowed {
		return conform.Skip(conform.CallsNotAllowed, "%s: %s", lsEndFixture, p.Why)
	}
	s := t.Session()
	before := s.Conn.Seq()
	sub := subscribe.MustOpen(t, subscribe.Tools, 1)
	args, err := json.Marshal(map[string]any{"subscriptionId": sub.ID})
	if err != nil {
		subscribe.Cancel(t, sub)
		return conform.Errorf("encode the arguments of %s: %v", lsEndFixture, err)
	}
	if o := toolkit.Call(t, s, lsEndFixture, args); !o.Succeeded() {
		subscribe.Cancel(t, sub)
		return conform.Errorf("not verified: %s did not end subscription %s: %s", lsEndFixture, sub.ID, o.Describe())
	}
	// No listen stream may stay open (HTTP: the ended one's stream must close), then
	// the barrier: what the server sent for the subscription is in.
	ctx, cancel := context.WithTimeout(t.Ctx, t.Timeout())
	syncErr := sub.Sync(ctx, 0)
	cancel()
	end := lsEndOf(sub.ID, s.Conn.Received(before))
	if end.result == nil && end.cancelled == nil {
		// As far as the client can tell the subscription is still open: end it.
		subscribe.Cancel(t, sub)
	}
	return lsJudgeClose(sub.ID, end, syncErr)
}

// lsEnd is how a subscription ended: the first response to its listen request (a
// result, or an error) and the first notifications/cancelled naming it.
type lsEnd struct {
	result, refusal, cancelled *wire.Entry
}

// lsEndOf finds the end of subscription id among received entries.
func lsEndOf(id wire.ID, received []wire.Entry) lsEnd {
	var end lsEnd
	for i := range received {
		e := &received[i]
		m := e.Msg
		switch {
		case m == nil:
		case m.IsResponse() && m.ID.Key() == id.Key() && m.Error != nil:
			if end.refusal == nil {
				end.refusal = e
			}
		case m.IsResponse() && m.ID.Key() == id.Key():
			if end.result == nil {
				end.result = e
			}
		case m.Kind == wire.KindNotification && m.Method == "notifications/cancelled" && end.cancelled == nil:
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				if rid, err := wire.ParseID(p.RequestID); err == nil && !rid.IsZero() && rid.Key() == id.Key() {
					end.cancelled = e
				}
			}
		}
	}
	return end
}

// lsJudgeClose judges how the server ended subscription id itself; syncErr is why
// the wait for its stream's end and the barrier after it failed (nil when they
// worked).
func lsJudgeClose(id wire.ID, end lsEnd, syncErr error) conform.Verdict {
	switch {
	case end.result != nil && end.cancelled != nil:
		return conform.Pass("subscription %s ended with notifications/cancelled naming it (#%d) and a completion result (#%d): both pages followed", id, end.cancelled.Seq, end.result.Seq)
	case end.result != nil:
		var r struct {
			ResultType json.RawMessage `json:"resultType"`
		}
		_ = json.Unmarshal(end.result.Msg.Result, &r)
		return conform.Note("subscription %s ended with a result for its listen request (#%d, resultType %s), the graceful closure of subscriptions.mdx; no notifications/cancelled, which cancellation.mdx requires: the pages conflict, and either is accepted",
			id, end.result.Seq, toolkit.Or(string(r.ResultType), "absent"))
	case end.cancelled != nil:
		return conform.Note("subscription %s ended with notifications/cancelled naming it (#%d), as cancellation.mdx requires; no completion result, which subscriptions.mdx recommends: the pages conflict, and either is accepted", id, end.cancelled.Seq)
	case syncErr != nil && conform.Gone(syncErr):
		return conform.Errorf("not verified: the session ended after %s ended subscription %s (%v)", lsEndFixture, id, syncErr)
	}
	const want = "when the server ends a subscription itself, a completion result for its listen request (subscriptions.mdx, SHOULD) or notifications/cancelled naming it (cancellation.mdx, MUST)"
	actual := fmt.Sprintf("after %s ended subscription %s, neither came", lsEndFixture, id)
	switch {
	case end.refusal != nil:
		actual = fmt.Sprintf("after %s ended subscription %s its listen request was answered with error %d %q (#%d), which is no completion result, and no notifications/cancelled came",
			lsEndFixture, id, end.refusal.Msg.Error.Code, conform.Clip(end.refusal.Msg.Error.Message, 80), end.refusal.Seq)
	case syncErr != nil:
		actual += fmt.Sprintf(", and its stream did not end (%v)", syncErr)
	default:
		actual += " (the subscription just stopped)"
	}
	return conform.Violation(want, actual)
}
