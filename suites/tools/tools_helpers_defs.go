package tools

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Helpers of the capability, listing and definition checks (capabilities.go,
// definitions.go, icons.go, schemas.go, leakage.go). Unexported names start with
// "def" so that they cannot clash with the other files of the package.

// defTool is a listed tool with where it came from: its page of the walk and its
// index in that page's tools array (toolkit.Tool's String and Pointer name both).
type defTool = toolkit.Tool

// defListing is the memoized tools/list walk of the revision's main session, with
// every tool located.
type defListing struct {
	*toolkit.Listing
	Tools []defTool
}

// defList returns the main session's listing, or ends the check when it has none
// to judge (tools/list failed, or listed no tool).
func defList(t *conform.T) *defListing {
	l := toolkit.List(t)
	toolkit.RequireListing(t, l)
	// Built once per listing and shared, read-only, by every definition check: a
	// listing of 10,000 tools is not copied per check.
	dl := t.Once(fmt.Sprintf("tools.deflist:%p", l), func() any {
		return defListOf(l)
	}).(*defListing)
	if len(dl.Tools) == 0 {
		t.Stop(defNoTool(dl))
	}
	return dl
}

// defListOf locates every tool of a listing.
func defListOf(l *toolkit.Listing) *defListing {
	return &defListing{Listing: l, Tools: l.Tools} // the listing's own array: no copy per revision
}

// defNoTool is the skip of a definition check whose listing has no tool.
func defNoTool(l *defListing) conform.Verdict {
	return conform.Skip(conform.NotExercised, "tools/list listed no tool%s: no definition to judge", l.partial())
}

// partial says, for messages, that the walk did not see the whole list.
func (l *defListing) partial() string {
	if l.Complete() {
		return ""
	}
	return fmt.Sprintf(" (the tools/list walk stopped early: %s after %d pages)", l.Stop, len(l.Pages))
}

// with returns the tools that have a member.
func (l *defListing) with(member string) []defTool {
	var out []defTool
	for _, d := range l.Tools {
		if d.Has(member) {
			out = append(out, d)
		}
	}
	return out
}

// defWith returns the main session's listed tools that have member, ending the
// check with defNone's skip (what none of them has, and how to unlock the check)
// when none does: an optional member's check has nothing else to judge.
func defWith(t *conform.T, member, noneWhat, noneHint string) []defTool {
	l := defList(t)
	with := l.with(member)
	if len(with) == 0 {
		t.Stop(defNone(l, noneWhat, noneHint))
	}
	return with
}

// defNone is the skip of a check none of whose subjects occurred.
func defNone(l *defListing, what, unlock string) conform.Verdict {
	return conform.Skip(conform.NotExercised, "none of the %d listed tools %s%s; %s", len(l.Tools), what, l.partial(), unlock)
}
