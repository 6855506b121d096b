package subscribe

import (
	"fmt"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// ListChangeWait is how long a list change probe waits for the notification a
// change owes (as NOTIF-LC-01: 2 s, or the request timeout when that is longer). A
// server that announces the change costs no wait.
const ListChangeWait = 2 * time.Second

// ListProbe is the list change probe of a list the trigger changes along with the
// tool list (PROMPT-LC-01, RES-LC-01; {rev}/server/prompts.mdx and resources.mdx,
// List Changed Notification): walk the whole list, fire the trigger, walk it again,
// wait for the notification a change owes, and judge.
type ListProbe struct {
	Capability string         // capabilities.<Capability>.listChanged gates the probe
	Filter     string         // the listen filter that asks for the notification (2026-07-28)
	Method     string         // the notification
	List, Key  string         // the list method and its result's array
	Params     map[string]any // the walk's base params (listwalk.WalkParams)
	Member     string         // the item's member that names it ("name", "uri")
	Items      string         // the list, for messages ("prompt list")
	Noun       string         // its items, for messages ("prompt(s)")
	Judges     string         // the checks that judge the walk itself
	Label      func(string) string
}

// Check completes c (ID, Title) as the check that runs p once require (which ends
// the check when the server did not declare p's capability) lets it: the trigger
// changes the tool list, so the check says so (Changes).
func (p ListProbe) Check(c conform.Check, require func(*conform.T)) conform.Check {
	c.Changes = conform.StateToolList
	c.Run = func(t *conform.T) conform.Verdict {
		require(t)
		return p.Run(t)
	}
	return c
}

// Run runs the probe on the main session; the caller has checked that the server
// declared the capability.
func (p ListProbe) Run(t *conform.T) conform.Verdict {
	s := t.Session()
	if !toolkit.CapListChanged(s, p.Capability) {
		return conform.Skip(conform.NotApplicable, "capabilities.%s.listChanged is not true: the server does not offer %s list_changed notifications", p.Capability, p.Capability)
	}
	trig := PickTrigger(t)
	switch {
	case trig == nil:
		return conform.Skip(conform.MissingFixture, "nothing can change the %s: list the fixture tool %s (the fixture contract, refserver/doc.go), or give --trigger-tool NAME[=JSON] or --trigger-cmd \"shell command\" that changes it", p.Items, toolkit.TriggerFixture)
	case trig.Tool != "" && !toolkit.Declared(s):
		return conform.Skip(conform.NotApplicable, "the trigger is the tool %q, and the server declares no tools capability (the suite calls no tool of an undeclared capability)", trig.Tool)
	}
	var sub *conform.Subscription
	if s.Modern() {
		// 2026-07-28: the notification goes to listen streams that asked for it
		// (basic/patterns/subscriptions.mdx, Notification Filter).
		sub = MustOpen(t, map[string]any{p.Filter: true}, 1)
		defer Cancel(t, sub)
	}
	before := listwalk.WalkParams(t, s, p.List, p.Key, p.Params)
	if before.Stop != toolkit.StopEnd {
		return conform.Skip(conform.NotExercised, "no whole %s before the change (%s after %d page(s)), so no change of it can be seen; %s judge the walk", p.List, before.Stop, len(before.Pages), p.Judges)
	}
	seq := s.Conn.Seq()
	trig.MustFire(t, s, toolkit.List(t))
	after := listwalk.WalkParams(t, s, p.List, p.Key, p.Params)
	if after.Stop != toolkit.StopEnd {
		return conform.Skip(conform.NotExercised, "no whole %s after the change (%s after %d page(s)), so the change cannot be seen; %s judge the walk", p.List, after.Stop, len(after.Pages), p.Judges)
	}
	c := ListChange{
		List: p.List, Items: p.Items, Method: p.Method, What: trig.What, Wait: max(ListChangeWait, t.Timeout()),
		Before: p.names(before), After: p.names(after), Same: fmt.Sprintf("the same %d %s", len(before.Items), p.Noun),
		Label: p.Label,
	}
	added, removed := NameDiff(c.Before, c.After)
	notified, err := AwaitListChanged(t, s, sub, seq, p.Method, len(added)+len(removed) > 0, c.Wait, trig.What)
	if err != nil {
		return conform.Errorf("%v", err)
	}
	c.Notified = notified
	return c.Judge()
}

// names are the string Member of a walk's items.
func (p ListProbe) names(l *listwalk.Listing) []string {
	var out []string
	for _, it := range l.Items {
		if n, ok := it.String(p.Member); ok {
			out = append(out, n)
		}
	}
	return out
}
