package notifications

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
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
	FreshSessions: 1, // only for a server without listChanged: provokeUndeclared
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
	before := toolkit.Walk(t, s)
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
	after := toolkit.Walk(t, s)
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
	before := toolkit.Walk(t, s)
	if v := toolkit.ListVerdict(t, before); v != nil {
		return conform.Errorf("no tools/list before the change: %s", v.Message)
	}
	if v := trig.Fire(t, s, before); v != nil && v.Status == reports.Error {
		return *v
	}
	// The second walk is the barrier: on stdio a notification sent with the change
	// has been read once its reply is in.
	after := toolkit.Walk(t, s)
	added, removed := ctNameDiff(before, after)
	return conform.Skip(conform.NotApplicable, "%s; the tool list was changed anyway with %s (%s) so that NOTIF-LC-UNDECLARED-01 judges any notification the change provoked",
		why, trig.What, ctDiffText(added, removed, len(before.Tools)))
}

// ctJudgeListChange judges the probe: a notification, and a tools/list that differs.
func ctJudgeListChange(t *conform.T, trig *subscribe.Trigger, notified bool, e wire.Entry, wait time.Duration, before, after *toolkit.Listing) conform.Verdict {
	added, removed := ctNameDiff(before, after)
	changed := len(added)+len(removed) > 0
	change := fmt.Sprintf("tools/list before and after: %s", ctDiffText(added, removed, len(before.Tools)))
	switch {
	case notified && changed:
		return conform.Pass("%s arrived (on %s, entry #%d) after %s; %s", ctListChanged, toolkit.Or(e.Source, "the connection"), e.Seq, trig.What, change)
	case notified:
		return conform.Violation("a tools/list showing the change that "+ctListChanged+" announced",
			fmt.Sprintf("the notification arrived after %s, but %s", trig.What, change))
	case changed:
		return conform.Violation(fmt.Sprintf("%s within %s of a change of the tool list", ctListChanged, wait),
			fmt.Sprintf("no notification after %s, though %s", trig.What, change))
	}
	return conform.Skip(conform.NotExercised, "%s did not change the tool list (%s) and no %s came within %s: nothing to announce", trig.What, change, ctListChanged, wait)
}

// ctNameDiff returns the tool names only after lists (added) and only before lists
// (removed), sorted.
func ctNameDiff(before, after *toolkit.Listing) (added, removed []string) {
	names := func(l *toolkit.Listing) map[string]bool {
		m := map[string]bool{}
		for _, tl := range l.Tools {
			m[tl.Name] = true
		}
		return m
	}
	b, a := names(before), names(after)
	for n := range a {
		if !b[n] {
			added = append(added, n)
		}
	}
	for n := range b {
		if !a[n] {
			removed = append(removed, n)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}

// ctDiffText describes a change of the tool list.
func ctDiffText(added, removed []string, n int) string {
	if len(added)+len(removed) == 0 {
		return fmt.Sprintf("the same %d tool%s", n, toolkit.Plural(n))
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "added "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed "+strings.Join(removed, ", "))
	}
	return strings.Join(parts, "; ")
}

// ctListChangedSeen returns every list_changed received in the revision's sessions.
// Its users are transcript checks: the column's settle proved every message in, so
// it sends nothing (no barrier) of its own.
func ctListChangedSeen(t *conform.T) []toolkit.SessionEntry {
	var out []toolkit.SessionEntry
	for _, s := range toolkit.RevisionSessions(t) {
		for _, e := range s.Conn.Received(0) {
			if e.Msg != nil && e.Msg.Method == ctListChanged {
				out = append(out, toolkit.SessionEntry{Session: s, Entry: e})
			}
		}
	}
	return out
}

// NOTIF-LC-UNDECLARED-01 — {rev}/basic/lifecycle.mdx (Operation).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LC-UNDECLARED-01", Title: "list_changed only from a server that declared tools.listChanged",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		seen := ctListChangedSeen(t)
		if len(seen) == 0 {
			return conform.Skip(conform.NotExercised, "no %s was received in this revision's sessions", ctListChanged)
		}
		var f conform.Findings
		for _, e := range seen {
			if !toolkit.ListChangedDeclared(e.Session) {
				f.Fail(fmt.Sprintf("%s in a session whose capabilities.tools is %s", e.Where(), toolkit.Or(string(e.Session.Capabilities()["tools"]), "absent")))
			}
		}
		return f.Verdict(ctListChanged+" only after declaring tools.listChanged: true", "", fmt.Sprintf("%d %s notification%s, all in sessions that declared tools.listChanged", len(seen), ctListChanged, toolkit.Plural(len(seen))))
	},
})

// NOTIF-LC-SHAPE-01 — schema ToolListChangedNotification.
var _ = conform.Register(conform.Check{
	ID: "NOTIF-LC-SHAPE-01", Title: "list_changed is a notification (no id) with at most params{_meta}",
	Phase: conform.PhaseTranscript,
	Run:   runListChangedShape,
})

func runListChangedShape(t *conform.T) conform.Verdict {
	seen := ctListChangedSeen(t)
	if len(seen) == 0 {
		return conform.Skip(conform.NotExercised, "no %s was received in this revision's sessions", ctListChanged)
	}
	var f conform.Findings
	for _, e := range seen {
		f.Judged++
		if e.Msg.Members["id"] {
			f.Fail(fmt.Sprintf("%s carries id %s: a request, not a notification", e.Where(), e.Msg.ID))
			continue
		}
		if def, ok := e.Session.Rev.NotificationDefinition(ctListChanged); ok {
			if err := e.Session.Rev.Validate(def, json.RawMessage(e.Msg.Raw)); err != nil {
				f.Fail(toolkit.Problems(err, e.Where()+" "))
				continue
			}
		}
		var params map[string]json.RawMessage
		if json.Unmarshal(e.Msg.Params, &params) == nil {
			var extra []string
			for k := range params {
				if k != "_meta" {
					extra = append(extra, k)
				}
			}
			if len(extra) > 0 {
				sort.Strings(extra)
				f.Note(fmt.Sprintf("%s has params members besides _meta (%s), which the schema tolerates", e.Where(), strings.Join(extra, ", ")))
			}
		}
	}
	return f.Verdict(ctListChanged+" as a notification valid under the "+t.Rev.Name+" schema", "",
		fmt.Sprintf("%d %s notification%s valid", f.Judged, ctListChanged, toolkit.Plural(f.Judged)))
}
