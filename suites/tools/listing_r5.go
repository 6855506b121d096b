package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Listing checks of 2026-07-28 only (spec-matrix §2.8 R5 rows): the caching members
// of every tools/list page, and a deterministic order.

// TOOLS-LIST-R5-01 — 2026-07-28/server/utilities/caching.mdx (Cacheable Results);
// schema ListToolsResult.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-LIST-R5-01", Title: "every complete tools/list page carries resultType, ttlMs (an integer ≥ 0) and cacheScope (public or private)",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupTools, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `2026-07-28/server/utilities/caching.mdx (Cacheable Results): "Servers MUST include caching hints on results with resultType: "complete" returned by the following operations" (tools/list among them) … "Servers MUST provide a ttlMs value that is >= 0."; schema ListToolsResult: "required": ["cacheScope", "resultType", "tools", "ttlMs"], cacheScope: "private" | "public"`,
	Run: func(t *conform.T) conform.Verdict {
		l := toolkit.List(t)
		if v := toolkit.ListVerdict(t, l); v != nil {
			return *v
		}
		return judgeListCacheHints(t, l.Pages)
	},
})

// judgeListCacheHints judges the caching members of every page that came back.
func judgeListCacheHints(t *conform.T, pages []toolkit.Page) conform.Verdict {
	var problems []string
	scopes := map[string]int{}
	judged := 0
	for i, p := range pages {
		if p.Result == nil {
			continue // an error or a malformed page: judged by TOOLS-LIST-01 and the PAG-* checks
		}
		judged++
		scope, probs := toolkit.CacheHints(p.Result)
		if len(probs) > 0 {
			problems = append(problems, fmt.Sprintf("page %d (%s): %s", i+1, listCursorLabel(p), strings.Join(probs, ", ")))
		}
		if scope != "" {
			scopes[scope]++
		}
	}
	if len(problems) > 0 {
		return t.Violation("resultType, ttlMs (an integer ≥ 0) and cacheScope (\"public\" or \"private\") on every complete tools/list page", conform.JoinAtMost(problems, 5))
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

// TOOLS-LIST-ORDER-01 — 2026-07-28/server/tools.mdx (Listing Tools).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-LIST-ORDER-01", Title: "two listings of an unchanged tool set give the tools in the same order",
	Level: conform.Should, Revisions: revision.Span("R5"), Group: conform.GroupTools, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `2026-07-28/server/tools.mdx (Listing Tools): "Servers SHOULD return tools in a deterministic order (i.e., the same ordering across requests when the underlying set of tools has not changed)."`,
	Run: func(t *conform.T) conform.Verdict {
		// The session's listing (toolkit.List) and a fresh walk: the checks between
		// them change no tool set in this phase, and judgeListOrder skips if the set
		// changed all the same. At 10,000 tools a walk is about 100 requests.
		a := toolkit.List(t)
		if v := toolkit.ListVerdict(t, a); v != nil {
			return *v
		}
		b := toolkit.Walk(t, t.Session())
		return judgeListOrder(a, b)
	},
})

// judgeListOrder compares the tool order of two listings of the same set.
func judgeListOrder(a, b *toolkit.Listing) conform.Verdict {
	if !a.Complete() || !b.Complete() {
		return conform.Skip(reports.NotExercised, "a walk did not see the whole list (%s, then %s): the order of two whole listings cannot be compared", a.Stop, b.Stop)
	}
	na, nb := listNames(a), listNames(b)
	sa, sb := slices.Sorted(slices.Values(na)), slices.Sorted(slices.Values(nb))
	if !slices.Equal(sa, sb) {
		return conform.Skip(reports.NotExercised, "the two listings hold different tools (%d, then %d): the set changed, so the order may too", len(na), len(nb))
	}
	if len(na) < 2 {
		return conform.Skip(reports.NotExercised, "the list holds %d tool(s): no order to compare", len(na))
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
