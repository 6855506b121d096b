package notifications

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Tool list change notifications (the NOTIF-LC rows). NOTIF-LC-01 provokes a change
// in a fresh session and expects the notification; the other two judge every
// list_changed seen in the revision's sessions.

// ctListChanged is the notification's method.
const ctListChanged = "notifications/tools/list_changed"

// ctListChangedWait is how long NOTIF-LC-01 waits for the notification (the row's
// 2 s, or the request timeout when that is longer).
const ctListChangedWait = 2 * time.Second

// NOTIF-LC-01 — {rev}/server/tools.mdx (List Changed Notification).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LC-01", Title: "a change of the tool list is announced with notifications/tools/list_changed",
	Changes:       conform.StateToolList,
	ReadsFirst:    true, // its listing before is walked while the previous change check reads after its own
	FreshSessions: 1,    // only for a server without listChanged: provokeUndeclared
	Run:           runListChangedProbe,
})

func runListChangedProbe(t *conform.T) conform.Verdict {
	if !toolkit.ListChangedDeclared(t.Session()) {
		return provokeUndeclared(t)
	}
	trig := subscribe.PickTrigger(t)
	if trig == nil {
		return conform.Skip(conform.MissingFixture, "nothing can change the tool list: list the fixture tool %s (the fixture contract, refserver/doc.go), or give --trigger-tool NAME[=JSON] or --trigger-cmd \"shell command\"", toolkit.TriggerFixture)
	}
	// The main session: this check runs after every check that needs the list as the
	// server started with it (PhaseStateChange).
	s := t.Session()
	// The listing before is the session's own when nothing has changed the list
	// since it was made (toolkit.Current).
	before := toolkit.BeforeChange(t, s)
	if v := toolkit.ListVerdict(t, before); v != nil {
		return conform.Errorf("no tools/list before the change, so none can be seen: %s", v.Message)
	}
	seq := s.Conn.Seq()
	trig.MustFire(t, s, before)
	wait := max(ctListChangedWait, t.Timeout())
	ctx, cancel := context.WithTimeout(t.Ctx, wait)
	e, werr := s.Conn.WaitFor(ctx, seq, func(e wire.Entry) bool { return e.Msg != nil && e.Msg.Method == ctListChanged })
	cancel()
	if werr != nil && !errors.Is(werr, wire.ErrTimeout) {
		return conform.Errorf("waiting for %s after %s: %v", ctListChanged, trig.What, werr)
	}
	after := toolkit.Current(t, s)
	if v := toolkit.ListVerdict(t, after); v != nil {
		return conform.Errorf("no tools/list after the change: %s", v.Message)
	}
	return ctJudgeListChange(t, trig, werr == nil, e, wait, before, after)
}

// provokeUndeclared is NOTIF-LC-01 for a server that declared tools without
// listChanged: true. The row does not apply, but a trigger that exists is fired all
// the same, in a fresh session, so that a notification the server sends undeclared
// is in the revision's transcript for NOTIF-LC-UNDECLARED-01 (which runs after this
// check) to judge; without the change nothing would provoke one (issue 9 item 1). A
// server with no tools capability at all is left alone: TOOLS-CAP-01 judges it, and
// the suite does not call tools a server did not declare.
func provokeUndeclared(t *conform.T) conform.Verdict {
	const why = "capabilities.tools.listChanged is not true: the server does not offer list_changed notifications"
	if _, ok := t.Session().Capabilities()["tools"]; !ok {
		return conform.Skip(conform.NotApplicable, "%s (it declares no tools capability)", why)
	}
	trig := subscribe.PickTrigger(t)
	if trig == nil {
		return conform.Skip(conform.NotApplicable, "%s; nothing can change the tool list, so NOTIF-LC-UNDECLARED-01 judges only notifications sent unprovoked", why)
	}
	s, err := t.NewSession()
	if err != nil {
		return conform.Errorf("no fresh session to change the tool list with %s: %v", trig.What, err)
	}
	before := toolkit.BeforeChange(t, s)
	if v := toolkit.ListVerdict(t, before); v != nil {
		return conform.Errorf("no tools/list before the change: %s", v.Message)
	}
	if v := trig.Fire(t, s, before); v != nil && v.Status == reports.Error {
		return *v
	}
	// The second walk is the barrier: on stdio a notification sent with the change
	// has been read once its reply is in.
	after := toolkit.Walk(t, s)
	added, removed := subscribe.NameDiff(ctNames(before), ctNames(after))
	return conform.Skip(conform.NotApplicable, "%s; the tool list was changed anyway with %s (%s) so that NOTIF-LC-UNDECLARED-01 judges any notification the change provoked",
		why, trig.What, subscribe.DiffText(added, removed, ctSame(before)))
}

// ctJudgeListChange judges the probe: a notification, and a tools/list that differs.
func ctJudgeListChange(t *conform.T, trig *subscribe.Trigger, notified bool, e wire.Entry, wait time.Duration, before, after *toolkit.Listing) conform.Verdict {
	return subscribe.ListChange{
		List: "tools/list", Items: "tool list", Method: ctListChanged, What: trig.What, Wait: wait,
		Before: ctNames(before), After: ctNames(after), Same: ctSame(before),
		Notified: notified, Where: fmt.Sprintf(" (on %s, entry #%d)", toolkit.Or(e.Source, "the connection"), e.Seq), Waited: true,
	}.Judge()
}

// ctNames lists a walk's tool names.
func ctNames(l *toolkit.Listing) []string {
	if len(l.Tools) == 0 {
		return nil
	}
	out := make([]string, 0, len(l.Tools))
	for _, tl := range l.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// ctSame words an unchanged tool list.
func ctSame(l *toolkit.Listing) string {
	return fmt.Sprintf("the same %d tool%s", len(l.Tools), toolkit.Plural(len(l.Tools)))
}

// NOTIF-LC-UNDECLARED-01 — {rev}/basic/lifecycle.mdx (Operation).
var _ = conform.Register(subscribe.UndeclaredCheck(conform.Check{
	ID: "NOTIF-LC-UNDECLARED-01", Title: "list_changed only from a server that declared tools.listChanged",
}, "tools", ctListChanged))

// NOTIF-LC-SHAPE-01 — schema ToolListChangedNotification.
var _ = conform.Register(subscribe.ShapeCheck(conform.Check{
	ID: "NOTIF-LC-SHAPE-01", Title: "list_changed is a notification (no id) with at most params{_meta}",
}, ctListChanged))
