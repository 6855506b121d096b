package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Listing checks of 2026-07-28 only (the 2026-07-28 TOOLS-LIST rows): the caching members
// of every tools/list page, and a deterministic order.

// judgeListCacheHints judges the caching members of every page that came back.
func judgeListCacheHints(t *conform.T, pages []toolkit.Page) conform.Verdict {
	var problems conform.Findings
	scopes := map[string]int{}
	judged := 0
	for i, p := range pages {
		if p.Result == nil {
			continue // an error or a malformed page: judged by TOOLS-LIST-01 and the PAG-* checks
		}
		judged++
		scope, probs := toolkit.CacheHints(p.Result)
		if len(probs) > 0 {
			problems.Fail(fmt.Sprintf("page %d (%s): %s", i+1, listCursorLabel(p), strings.Join(probs, ", ")))
		}
		if scope != "" {
			scopes[scope]++
		}
	}
	if problems.Failed() {
		return problems.Violation("resultType, ttlMs (an integer ≥ 0) and cacheScope (\"public\" or \"private\") on every complete tools/list page")
	}
	return conform.Pass("%d page(s) carry resultType, ttlMs and cacheScope (%s)", judged, describeScopes(scopes))
}

func describeScopes(scopes map[string]int) string {
	var out []string
	for _, s := range []string{"public", "private"} {
		if scopes[s] > 0 {
			out = append(out, fmt.Sprintf("%s ×%d", s, scopes[s]))
		}
	}
	return strings.Join(out, ", ")
}

func listCursorLabel(p toolkit.Page) string {
	if p.Cursor == nil {
		return "no cursor"
	}
	return fmt.Sprintf("cursor %q", conform.Clip(*p.Cursor, 60))
}

// judgeListOrder compares the tool order of two listings of the same set.
func judgeListOrder(a, b *toolkit.Listing) conform.Verdict {
	if !a.Complete() || !b.Complete() {
		return conform.Skip(conform.NotExercised, "a walk did not see the whole list (%s, then %s): the order of two whole listings cannot be compared", a.Stop, b.Stop)
	}
	na, nb := listNames(a), listNames(b)
	sa, sb := slices.Sorted(slices.Values(na)), slices.Sorted(slices.Values(nb))
	if !slices.Equal(sa, sb) {
		return conform.Skip(conform.NotExercised, "the two listings hold different tools (%d, then %d): the set changed, so the order may too", len(na), len(nb))
	}
	if len(na) < 2 {
		return conform.Skip(conform.NotExercised, "the list holds %d tool(s): no order to compare", len(na))
	}
	for i := range na {
		if na[i] != nb[i] {
			return conform.Violation("the same tool order in two listings of an unchanged set",
				fmt.Sprintf("position %d is %q in the first listing and %q in the second", i+1, na[i], nb[i]))
		}
	}
	return conform.Pass("two listings of %d tools, in the same order", len(na))
}

func listNames(l *toolkit.Listing) []string {
	out := make([]string, len(l.Tools))
	for i, tl := range l.Tools {
		out[i] = tl.Name
	}
	return out
}
