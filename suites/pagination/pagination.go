package pagination

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// invalidCursor is a cursor no server issues (PAG-INVALID-01).
const invalidCursor = "x-conformance-invalid-@@"

// onePage is the skip message of the checks that need a list of several pages.
const onePage = "the list fits one page; paging was not exercised (a server whose tool list is longer than its page size exercises it, e.g. the reference server, which pages by 5)"

// paged is what every check of this package starts from: the main session's
// memoized walk, read under the empty-cursor policy; when there is nothing to judge
// it ends the check with the verdict that explains why.
func paged(t *conform.T) view {
	if !toolkit.Declared(t.Session()) {
		t.SkipNow(conform.NotApplicable, "the server did not declare the tools capability, so tools/list is not paged")
	}
	l := toolkit.List(t)
	toolkit.RequireListing(t, l)
	return interpret(l, t.Session().Modern())
}

// PAG-NEXTCURSOR-01 — {rev}/server/utilities/pagination.mdx; schema PaginatedResult.
var _ = conform.Register(conform.Check{
	ID: "PAG-NEXTCURSOR-01", Title: "nextCursor is a string while more tools exist, and left out at the end",
	Run: func(t *conform.T) conform.Verdict {
		v := paged(t)
		return judgeNextCursor(v, t.Options().MaxPages)
	},
})

// judgeNextCursor judges the end marker and the cursors of a walk.
func judgeNextCursor(v view, maxPages int) conform.Verdict {
	for i, p := range v.pages {
		if raw, ok := p.Result["nextCursor"]; ok && string(raw) == "null" {
			return conform.Violation("nextCursor left out at the end of the list, or a string", fmt.Sprintf("page %d (%s) has nextCursor null", i+1, cursorLabel(p)))
		}
	}
	last := v.pages[len(v.pages)-1]
	n := len(v.pages)
	switch v.stop {
	case toolkit.StopBadCursor:
		return conform.Violation("nextCursor left out at the end of the list, or a string", fmt.Sprintf("page %d (%s) has nextCursor %s", n, cursorLabel(last), conform.ClipBytes(last.NextRaw, 80)))
	case toolkit.StopRepeatedCursor:
		return conform.Violation("a new nextCursor on every page until it is left out", fmt.Sprintf("page %d (%s) returned nextCursor %q, which had already been returned and followed: the walk would loop", n, cursorLabel(last), conform.Clip(v.repeated, 80)))
	case toolkit.StopMaxPages:
		return conform.Warn(fmt.Sprintf("the end of the list (a page without nextCursor) within --max-pages=%d pages", maxPages),
			fmt.Sprintf("%d pages, each with a new nextCursor, and the last one still has one; raise --max-pages to follow a longer list (a list that never ends is a server fault)", n))
	case toolkit.StopError, toolkit.StopMalformed:
		return conform.Note("%s", fmt.Sprintf("%d nextCursor strings followed, each new; page %d (%s) gave %s (judged by PAG-FOLLOW-01), so the end of the list was not seen", n-1, n, cursorLabel(last), describePage(last)))
	}
	if !v.multiPage() {
		msg := onePage
		if v.emptyAt >= 0 {
			msg += "; " + v.describeEmpty() + " (judged by PAG-EMPTY-CURSOR-R5-01)"
		}
		return conform.Skip(conform.NotExercised, "%s", msg)
	}
	msg := fmt.Sprintf("%d pages, every nextCursor a new string, the last page without one", n)
	var notes []string
	if v.emptyAt >= 0 {
		msg = fmt.Sprintf("%d pages, every nextCursor a new string", n)
		notes = append(notes, v.describeEmpty()+" (judged by PAG-EMPTY-CURSOR-R5-01)")
	}
	if len(last.Tools) == 0 {
		notes = append(notes, "the last page is empty, which the schema allows (\"there may be more results\")")
	}
	if len(notes) > 0 {
		return conform.Note("%s", msg+"; "+strings.Join(notes, "; "))
	}
	return conform.Pass("%s", msg)
}

// PAG-FOLLOW-01 — {rev}/server/utilities/pagination.mdx (derived).
var _ = conform.Register(conform.Check{
	ID: "PAG-FOLLOW-01", Title: "every cursor the server issued is accepted and gives a valid next page",
	Run: func(t *conform.T) conform.Verdict {
		v := paged(t)
		return judgeFollow(v, func(raw json.RawMessage) error { return t.Rev.Validate("ListToolsResult", raw) })
	},
})

// judgeFollow judges every follow-up page of the list; validate checks a result
// against the revision's ListToolsResult.
func judgeFollow(v view, validate func(json.RawMessage) error) conform.Verdict {
	if !v.multiPage() {
		return conform.Skip(conform.NotExercised, "%s", onePage)
	}
	var problems conform.Findings
	for i, p := range v.pages[1:] {
		n := i + 2
		want := fmt.Sprintf("page %d: a ListToolsResult for %s, which the server issued", n, cursorLabel(p))
		switch {
		case p.Err != nil:
			return conform.Silence(want, p.Err)
		case p.Resp.IsError():
			problems.Fail(fmt.Sprintf("page %d (%s): %s", n, cursorLabel(p), conform.Describe(p.Resp, nil)))
		case p.Result == nil:
			problems.Fail(fmt.Sprintf("page %d (%s): %s", n, cursorLabel(p), describePage(p)))
		default:
			if err := validate(p.Resp.Result); err != nil {
				problems.Fail(fmt.Sprintf("page %d (%s): %v", n, cursorLabel(p), err))
			}
		}
	}
	if problems.Failed() {
		return problems.Violation("every cursor the server issued answered with a valid ListToolsResult")
	}
	return conform.Pass("%s", fmt.Sprintf("%d follow-up pages, each a valid ListToolsResult", len(v.pages)-1))
}

// PAG-STABLE-01 — {rev}/server/utilities/pagination.mdx (Implementation Guidelines).
var _ = conform.Register(conform.Check{
	ID: "PAG-STABLE-01", Title: "the same cursor on an unchanged list gives the same page",
	Run: func(t *conform.T) conform.Verdict {
		v := paged(t)
		if !v.multiPage() {
			return conform.Skip(conform.NotExercised, onePage)
		}
		return judgeStable(stableProbes(t, v))
	},
})

// stableProbe is one cursor requested twice after the walk.
type stableProbe struct {
	cursor string
	walk   *toolkit.Page // the walk's page for the cursor; nil when the list changed since
	first  toolkit.Page
	second toolkit.Page
	// changed is set when notifications/tools/list_changed arrived during the probe.
	changed bool
}

// stableProbes requests the walk's first and last non-empty cursors twice each on
// the main session (reading does not disturb it).
func stableProbes(t *conform.T, v view) []stableProbe {
	s := t.Session()
	var cursors []int
	for i, p := range v.pages {
		if i > 0 && p.Cursor != nil && *p.Cursor != "" && p.Result != nil {
			cursors = append(cursors, i)
		}
	}
	if len(cursors) > 2 {
		cursors = []int{cursors[0], cursors[len(cursors)-1]}
	}
	var out []stableProbe
	for _, i := range cursors {
		c := *v.pages[i].Cursor
		pr := stableProbe{cursor: c}
		if first := v.pages[0].Resp; !listChanged(s, first.Seq-1, 0) {
			pr.walk = &v.pages[i]
		}
		before := s.Conn.Seq()
		pr.first = toolkit.FetchPage(t, s, map[string]any{"cursor": c})
		pr.second = toolkit.FetchPage(t, s, map[string]any{"cursor": c})
		pr.changed = listChanged(s, before, 0)
		out = append(out, pr)
	}
	return out
}

// judgeStable compares the replies to each cursor.
func judgeStable(probes []stableProbe) conform.Verdict {
	if len(probes) == 0 {
		return conform.Skip(conform.NotExercised, "%s", "no cursor other than \"\" led to a valid page, so no cursor could be requested again")
	}
	var problems conform.Findings
	var asked []string
	for _, pr := range probes {
		label := fmt.Sprintf("cursor %q", conform.Clip(pr.cursor, 80))
		switch {
		case pr.changed:
			return conform.Skip(conform.NotExercised, "%s", "the tool list changed (notifications/tools/list_changed) while "+label+" was requested again, so the list was not unchanged")
		case pr.first.Err != nil:
			return conform.Silence("a page for "+label+", requested again", pr.first.Err)
		case pr.second.Err != nil:
			return conform.Silence("a page for "+label+", requested a third time", pr.second.Err)
		case pr.walk == nil && pr.first.Result == nil && pr.second.Result == nil:
			return conform.Skip(conform.NotExercised, "%s", "the tool list changed since the walk and "+label+" is no longer accepted ("+describePage(pr.first)+"); stability needs an unchanged list")
		}
		if d := samePage(pr.first, pr.second); d != "" {
			problems.Fail(label + " requested twice: " + d)
		} else if pr.walk != nil {
			if d := samePage(*pr.walk, pr.first); d != "" {
				problems.Fail(label + " during the walk and again: " + d)
			}
		}
		asked = append(asked, label)
	}
	if problems.Failed() {
		return problems.Violation("the same page each time a cursor is requested on an unchanged list")
	}
	return conform.Pass("%s", strings.Join(asked, " and ")+" gave the same page during the walk and twice more")
}

// PAG-NODUP-01 — {rev}/server/utilities/pagination.mdx (derived).
var _ = conform.Register(conform.Check{
	ID: "PAG-NODUP-01", Title: "no tool appears on two pages of an unchanged list",
	Run: func(t *conform.T) conform.Verdict {
		v := paged(t)
		changed := false
		if v.multiPage() {
			first, last := v.pages[0].Resp, v.pages[len(v.pages)-1].Resp
			end := 0
			if last != nil {
				end = last.Seq
			}
			changed = listChanged(t.Session(), first.Seq-1, end)
		}
		return judgeNoDup(v, changed)
	},
})

// judgeNoDup looks for tools repeated across pages; changed says the list changed
// during the walk, which would explain a repeat.
func judgeNoDup(v view, changed bool) conform.Verdict {
	switch {
	case !v.multiPage():
		return conform.Skip(conform.NotExercised, "%s", onePage)
	case changed:
		return conform.Skip(conform.NotExercised, "%s", "the tool list changed during the walk (notifications/tools/list_changed), so a repeated tool may have moved")
	}
	if d := duplicates(v.pages); d.Failed() {
		return d.Violation("each tool on one page only")
	}
	total := 0
	for _, p := range v.pages {
		total += len(p.Tools)
	}
	return conform.Pass("%s", fmt.Sprintf("%d tools over %d pages, none on two pages", total, len(v.pages)))
}

// PAG-INVALID-01 — {rev}/server/utilities/pagination.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "PAG-INVALID-01", Title: "an invalid cursor is answered with -32602",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		if !toolkit.Declared(t.Session()) {
			return conform.Skip(conform.NotApplicable, "the server did not declare the tools capability, so tools/list is not paged")
		}
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no fresh session for the invalid-cursor probe: %v", err)
		}
		first := toolkit.CurrentFirstPage(t, s)
		switch {
		case first.Err != nil:
			return conform.Silence("a tools/list result on a fresh session", first.Err)
		case first.Result == nil:
			return conform.Skip(conform.NotExercised, "tools/list without a cursor gave %s on a fresh session (judged by TOOLS-LIST-01)", describePage(first))
		}
		probe := toolkit.FetchPage(t, s, map[string]any{"cursor": invalidCursor})
		var alive error
		if probe.Err == nil {
			_, alive = s.Call(t.Ctx, s.Conn.BarrierMethod(), nil)
		}
		if t.Ctx.Err() != nil {
			return conform.Errorf("not verified: %v", t.Ctx.Err())
		}
		return judgeInvalidCursor(first, probe, alive)
	},
})

// judgeInvalidCursor judges the reply to tools/list{cursor: invalidCursor}: first
// is the first page of the same session, alive the outcome of a ping sent after the
// reply (nil when the server answered it).
func judgeInvalidCursor(first, probe toolkit.Page, alive error) conform.Verdict {
	want := fmt.Sprintf("JSON-RPC error -32602 for tools/list{cursor: %q}", invalidCursor)
	return toolkit.JudgeInvalidCursor(want, probe.Resp, probe.Err, alive, probe.Result != nil && samePage(first, probe) == "")
}

// PAG-EMPTY-CURSOR-R5-01 — 2026-07-28/server/utilities/pagination.mdx; the
// catalogue row's note. Both halves: in 2026-07-28 the walk follows "" as a real cursor and the
// server must honour it; before, a "" nextCursor is a warning.
var _ = conform.Register(conform.Check{
	ID: "PAG-EMPTY-CURSOR-R5-01", Title: "an empty-string nextCursor continues the list (2026-07-28); before, no \"\" whose meaning is left open",
	Run: func(t *conform.T) conform.Verdict {
		v := paged(t)
		if t.Session().Modern() {
			return judgeEmptyCursorModern(v)
		}
		return judgeEmptyCursor(v)
	},
})

// judgeEmptyCursor warns about an empty-string nextCursor in a legacy revision.
func judgeEmptyCursor(v view) conform.Verdict {
	if v.emptyAt < 0 {
		return conform.Pass("%s", fmt.Sprintf("no page of %d carried nextCursor \"\"", len(v.pages)))
	}
	return conform.Warn("nextCursor left out at the end of the list, or a non-empty cursor (before 2026-07-28 the meaning of \"\" is undefined: some clients stop, others follow it)", v.describeEmpty())
}

// judgeEmptyCursorModern judges a 2026-07-28 walk, which followed "" as a cursor: the
// server that issued "" must continue the list from it, as a client must follow it.
func judgeEmptyCursorModern(v view) conform.Verdict {
	switch v.empty {
	case emptyNone:
		return conform.Pass("%s", fmt.Sprintf("no page of %d carried nextCursor \"\" (nothing to follow)", len(v.pages)))
	case emptyUnfollowed:
		return conform.Skip(conform.NotExercised, "%s", v.describeEmpty())
	case emptyRejected, emptyRestart:
		return conform.Violation("the list continued from nextCursor \"\" (2026-07-28: \"\" is a valid cursor, never the end of results)", v.describeEmpty())
	case emptyTwice:
		return conform.Note("page %d carried nextCursor \"\", which was followed as a cursor; \"\" then came back, a repeated cursor (judged by PAG-NEXTCURSOR-01)", v.emptyAt+1)
	}
	return conform.Pass("%s", v.describeEmpty())
}

// PAG-TTL-R5-01 — 2026-07-28/server/utilities/caching.mdx (Pagination).
var _ = conform.Register(conform.Check{
	ID: "PAG-TTL-R5-01", Title: "every complete tools/list page carries ttlMs ≥ 0 and cacheScope, the same cacheScope on every page",
	Run: func(t *conform.T) conform.Verdict {
		v := paged(t)
		return judgePageCaching(v)
	},
})

// judgePageCaching judges the caching members page by page and the one cacheScope
// of the list.
func judgePageCaching(v view) conform.Verdict {
	var problems conform.Findings
	first, firstAt := "", 0
	judged := 0
	for i, p := range v.pages {
		if p.Result == nil {
			continue // an error or a malformed page: judged by PAG-FOLLOW-01
		}
		judged++
		scope, probs := toolkit.CacheHints(p.Result)
		if len(probs) > 0 {
			problems.Fail(fmt.Sprintf("page %d (%s): %s", i+1, cursorLabel(p), strings.Join(probs, ", ")))
		}
		switch {
		case scope == "":
		case first == "":
			first, firstAt = scope, i+1
		case scope != first:
			problems.Fail(fmt.Sprintf("page %d (%s) has cacheScope %q, page %d %q", i+1, cursorLabel(p), scope, firstAt, first))
		}
	}
	if problems.Failed() {
		return problems.Violation("ttlMs (an integer ≥ 0) and cacheScope on every complete page, the same cacheScope on all pages of the list")
	}
	if judged < 2 {
		return conform.Pass("%d page, with ttlMs and cacheScope %q (one page: no cross-page scope to compare)", judged, first)
	}
	return conform.Pass("%d pages, each with ttlMs and cacheScope %q", judged, first)
}
