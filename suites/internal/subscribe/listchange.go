package subscribe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// What a list change probe and the transcript checks of its notification share
// (NOTIF-LC-* on tools/list, PROMPT-LC-* on prompts/list; {rev}/server/tools.mdx
// and prompts.mdx, List Changed Notification).

// NotificationsSeen returns every notification of method received in the
// revision's sessions. Its users are transcript checks: the column's settle proved
// every message in, so it sends nothing (no barrier) of its own.
func NotificationsSeen(t *conform.T, method string) []toolkit.SessionEntry {
	var out []toolkit.SessionEntry
	for _, s := range toolkit.RevisionSessions(t) {
		for e := range s.Conn.EachReceived(0) {
			if e.Msg != nil && e.Msg.Method == method {
				out = append(out, toolkit.SessionEntry{Session: s, Entry: e})
			}
		}
	}
	return out
}

// UndeclaredCheck completes c (ID, Title) as the transcript check that
// notifications of method came only in sessions whose
// capabilities.<capability>.listChanged is true ({rev}/basic/lifecycle.mdx,
// Operation): NOTIF-LC-UNDECLARED-01, PROMPT-LC-UNDECLARED-01 and
// RES-LC-UNDECLARED-01, whose rule differs only in the capability.
func UndeclaredCheck(c conform.Check, capability, method string) conform.Check {
	c.Phase = conform.PhaseTranscript
	c.Run = func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, e := range NotificationsSeen(t, method) {
			f.Judged++
			if !toolkit.CapListChanged(e.Session, capability) {
				f.Fail(fmt.Sprintf("%s: %s in a session whose capabilities.%s is %s", e.Where(), method, capability, toolkit.Or(string(e.Session.Capabilities()[capability]), "absent")))
			}
		}
		return f.VerdictOrNone(fmt.Sprintf("no %s was received in this revision's sessions", method),
			fmt.Sprintf("%s only after declaring %s.listChanged: true", method, capability),
			fmt.Sprintf("%d %s notification%s, all in sessions that declared %s.listChanged", f.Judged, method, toolkit.Plural(f.Judged), capability))
	}
	return c
}

// ShapeCheck completes c (ID, Title) as the transcript check that every
// notification of method received is a notification (no id) valid under its
// session's revision schema, noting params members besides _meta, which the
// schema tolerates: NOTIF-LC-SHAPE-01 and PROMPT-LC-SHAPE-01 (schema
// ToolListChangedNotification, PromptListChangedNotification).
func ShapeCheck(c conform.Check, method string) conform.Check {
	c.Phase = conform.PhaseTranscript
	c.Run = func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, e := range NotificationsSeen(t, method) {
			f.Judged++
			if p := shapeProblem(e, method); p != "" {
				f.Fail(p)
			} else if extra := extraParams(e.Msg.Params); len(extra) > 0 {
				f.Note(fmt.Sprintf("%s has params members besides _meta (%s), which the schema tolerates", e.Where(), strings.Join(extra, ", ")))
			}
		}
		return f.VerdictOrNone(fmt.Sprintf("no %s was received in this revision's sessions", method),
			method+" as a notification valid under the "+t.Rev.Name+" schema",
			fmt.Sprintf("%d %s notification%s valid", f.Judged, method, toolkit.Plural(f.Judged)))
	}
	return c
}

// shapeProblem says why e, a notification of method, is not one valid under its
// session's revision schema ("" when it is).
func shapeProblem(e toolkit.SessionEntry, method string) string {
	if e.Msg.Members["id"] {
		return fmt.Sprintf("%s carries id %s: a request, not a notification", e.Where(), e.Msg.ID)
	}
	if def, ok := e.Session.Rev.NotificationDefinition(method); ok {
		if err := e.Session.Rev.Validate(def, e.Msg.Raw); err != nil {
			return toolkit.Problems(err, e.Where()+" ")
		}
	}
	return ""
}

// extraParams returns the members of params other than _meta, sorted.
func extraParams(params json.RawMessage) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return nil
	}
	var extra []string
	for k := range m {
		if k != "_meta" {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	return extra
}

// NameDiff returns the names only after lists (added) and only before lists
// (removed), sorted.
func NameDiff(before, after []string) (added, removed []string) {
	// Sized up front: at 10,000 tools growing the sets was most of the work.
	b, a := make(map[string]struct{}, len(before)), make(map[string]struct{}, len(after))
	for _, n := range before {
		b[n] = struct{}{}
	}
	for _, n := range after {
		a[n] = struct{}{}
	}
	for n := range a {
		if _, ok := b[n]; !ok {
			added = append(added, n)
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			removed = append(removed, n)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

// DiffText describes a change of a list; same is the text when nothing changed.
func DiffText(added, removed []string, same string) string {
	if len(added)+len(removed) == 0 {
		return same
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

// ListChange is what a list change probe saw: the list before and after the
// trigger fired, and whether the notification came.
type ListChange struct {
	List   string // the list method ("tools/list")
	Items  string // the list, for messages ("tool list")
	Method string // the notification ("notifications/tools/list_changed")
	What   string // the trigger, for messages (Trigger.What)
	Wait   time.Duration
	// Before and After are the listed names; Same words an unchanged list ("the
	// same 3 tools").
	Before, After []string
	Same          string
	Notified      bool
	// Where says where the notification came (" (on …, entry #N)"), or "".
	Where string
	// Waited is true when the probe waited for the notification whether or not
	// the list changed (its skip then says "within Wait").
	Waited bool
	// Label renders a name for messages (nil: as it is).
	Label func(string) string
}

// Judge wants the notification exactly when the list changed: a change announced
// passes; an announcement without a change, or a change unannounced within Wait,
// is a violation; neither is nothing to judge.
func (c ListChange) Judge() conform.Verdict {
	added, removed := NameDiff(c.Before, c.After)
	changed := len(added)+len(removed) > 0
	if c.Label != nil {
		for _, names := range [][]string{added, removed} {
			for i, n := range names {
				names[i] = c.Label(n)
			}
		}
	}
	change := c.List + " before and after: " + DiffText(added, removed, c.Same)
	switch {
	case c.Notified && changed:
		return conform.Pass("%s arrived%s after %s; %s", c.Method, c.Where, c.What, change)
	case c.Notified:
		return conform.Violation("a "+c.List+" showing the change that "+c.Method+" announced",
			fmt.Sprintf("the notification arrived after %s, but %s", c.What, change))
	case changed:
		return conform.Violation(fmt.Sprintf("%s within %s of a change of the %s", c.Method, c.Wait, c.Items),
			fmt.Sprintf("no notification after %s, though %s", c.What, change))
	}
	within := ""
	if c.Waited {
		within = " within " + c.Wait.String()
	}
	return conform.Skip(conform.NotExercised, "%s did not change the %s (%s) and no %s came%s: nothing to announce", c.What, c.Items, change, c.Method, within)
}

// AwaitListChanged reports whether the list change notification method came after
// the transcript position seq: on the listen subscription sub in 2026-07-28 (the
// notification goes to the streams that asked for it), else on the session. A
// notification a change owes (changed) that has not come yet is awaited up to wait,
// as NOTIF-LC-01 awaits its own; one without a change is looked for only in what
// came. what names the trigger for the error.
func AwaitListChanged(t *conform.T, s *conform.Session, sub *conform.Subscription, seq int, method string, changed bool, wait time.Duration, what string) (bool, error) {
	isLC := func(e wire.Entry) bool { return e.Msg != nil && e.Msg.Method == method }
	if sub != nil {
		if err := sub.Sync(t.Ctx, 1); err != nil {
			return false, err
		}
		if slices.ContainsFunc(sub.Messages(), func(e wire.Entry) bool { return e.Seq > seq && isLC(e) }) {
			return true, nil
		}
		return changed && sub.Await(t.Ctx, seq, isLC), nil
	}
	for e := range s.Conn.EachReceived(seq) {
		if isLC(e) {
			return true, nil
		}
	}
	if !changed {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(t.Ctx, wait)
	defer cancel()
	_, err := s.Conn.WaitFor(ctx, seq, isLC)
	if err != nil && !errors.Is(err, wire.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
		return false, fmt.Errorf("waiting for %s after %s: %v", method, what, err)
	}
	return err == nil, nil
}
