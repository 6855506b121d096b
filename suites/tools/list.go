package tools

import (
	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// TOOLS-LIST-01 — {rev}/server/tools.mdx (Listing Tools); schema ListToolsResult.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-LIST-01", Title: "every tools/list page is a valid ListToolsResult {tools, nextCursor?}",
	Run: runToolsList,
})

// TOOLS-LIST-R5-01 — 2026-07-28/server/utilities/caching.mdx (Cacheable Results);
// schema ListToolsResult.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-LIST-R5-01", Title: "every complete tools/list page carries resultType, ttlMs (an integer ≥ 0) and cacheScope (public or private)",
	Run: func(t *conform.T) conform.Verdict {
		l := toolkit.List(t)
		toolkit.RequireListing(t, l)
		return judgeListCacheHints(t, l.Pages)
	},
})

// TOOLS-LIST-ORDER-01 — 2026-07-28/server/tools.mdx (Listing Tools).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-LIST-ORDER-01", Title: "two listings of an unchanged tool set give the tools in the same order",
	Run: func(t *conform.T) conform.Verdict {
		// The session's listing (toolkit.List) and a second one: the column's kept
		// second walk (MOD-STATELESS-01's, toolkit.Relisted) or a fresh walk. The
		// checks between them change no tool set in this phase, and judgeListOrder
		// skips if the set changed all the same. At 10,000 tools a walk is about
		// 100 requests.
		a := toolkit.List(t)
		toolkit.RequireListing(t, a)
		b := toolkit.Relisted(t)
		return judgeListOrder(a, b)
	},
})
