package resources

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// RES-LIST-01 — {rev}/server/resources.mdx (Listing Resources); schema
// ListResourcesResult.
var _ = conform.Register(conform.Check{
	ID: "RES-LIST-01", Title: "every resources/list page is a valid ListResourcesResult {resources, nextCursor?}",
	Run: func(t *conform.T) conform.Verdict {
		requireResources(t)
		l := resourceList(t)
		return judgeListPages(l, "ListResourcesResult", func(def string, raw json.RawMessage) error { return t.Rev.Validate(def, raw) })
	},
})

// judgeListPages validates every page of a walk that came back as a result against
// def. The first page must be a result (a server that declares resources answers
// resources/list); a later error is RES-PAG-FOLLOW-01's.
func judgeListPages(l *listwalk.Listing, def string, validate func(string, json.RawMessage) error) conform.Verdict {
	first := l.First()
	switch {
	case first == nil:
		return conform.Errorf("%s was not called (--max-pages?)", l.Method)
	case first.Err != nil:
		return conform.Silence("a "+def+" for "+l.Method, first.Err)
	case first.Resp.IsError():
		return conform.Violation("a "+def+" for "+l.Method+" from a server that declared the resources capability", conform.Describe(first.Resp, nil))
	}
	var f conform.Findings
	for i, p := range l.Pages {
		if p.Err != nil || p.Resp.IsError() {
			continue // a refused cursor: RES-PAG-FOLLOW-01
		}
		f.Judged++
		if err := validate(def, p.Resp.Result); err != nil {
			f.Fail(toolkit.Problems(err, fmt.Sprintf("page %d (%s): ", i+1, listwalk.CursorLabel(p))))
		}
	}
	return f.Verdict(fmt.Sprintf("every %s page a valid %s", l.Method, def), "",
		fmt.Sprintf("%d page%s, %d %s, each page a valid %s", f.Judged, toolkit.Plural(f.Judged), len(l.Items), l.Key, def))
}

// RES-R5-CACHE-01 — 2026-07-28/server/utilities/caching.mdx (Cacheable Results).
var _ = conform.Register(conform.Check{
	ID: "RES-R5-CACHE-01", Title: "every complete resources/list, resources/templates/list and resources/read result carries ttlMs ≥ 0 and cacheScope",
	Run: func(t *conform.T) conform.Verdict {
		requireResources(t)
		type judged struct {
			where  string
			result json.RawMessage
		}
		var all []judged
		for _, l := range []*listwalk.Listing{resourceList(t), templateList(t)} {
			for i, p := range l.Pages {
				if p.Err == nil && !p.Resp.IsError() {
					all = append(all, judged{fmt.Sprintf("%s page %d (%s)", l.Method, i+1, listwalk.CursorLabel(p)), p.Resp.Result})
				}
			}
		}
		for _, r := range reads(t) {
			if r.resp.raw != nil {
				all = append(all, judged{fmt.Sprintf("resources/read %q", conform.Clip(r.uri, 80)), r.resp.raw})
			}
		}
		if len(all) == 0 {
			return conform.Skip(conform.NotExercised, "no resources/list, resources/templates/list or resources/read result came back")
		}
		var f conform.Findings
		for _, j := range all {
			f.Judged++
			res := toolkit.Object(j.result)
			if res == nil {
				f.Fail(j.where + ": the result is not an object")
				continue
			}
			if _, probs := toolkit.CacheHints(res); len(probs) > 0 {
				f.Fail(j.where + ": " + strings.Join(probs, ", "))
			}
		}
		return f.Verdict("ttlMs (an integer ≥ 0) and cacheScope on every complete resources result", "",
			fmt.Sprintf("%d results (list pages and reads), each with ttlMs and cacheScope", f.Judged))
	},
})

// methodNotFound reports whether a page was refused with -32601.
func methodNotFound(p *listwalk.Page) bool {
	return p != nil && p.Err == nil && p.Resp.IsError() && p.Resp.Error.Code == wire.CodeMethodNotFound
}

// RES-R5-LIST-SET-01 — 2026-07-28/server/resources.mdx (Capabilities).
var _ = conform.Register(conform.Check{
	ID: "RES-R5-LIST-SET-01", Title: "resources/list gives the same set of resources on another connection",
	// The rule is about another connection: a session of its own, opened in the
	// clean phase, where the list is as every connection's opening left it. (The
	// column's spare session is no substitute: it serves the odd-input phase, after
	// the fixture trigger may have changed the list on a shared server.) It is
	// opened as soon as the column's main session has declared resources, so that
	// over stdio the column does not wait here for a server process to start.
	FreshSessions: 1,
	FreshAhead:    func(main *conform.Session) bool { _, ok := main.Capabilities()["resources"]; return ok },
	Run: func(t *conform.T) conform.Verdict {
		requireResources(t)
		a := resourceList(t)
		requireFirstPage(t, a, "RES-LIST-01")
		s, err := t.NewSession()
		if err != nil {
			return conform.Errorf("not verified: open a second connection: %v", err)
		}
		b := listwalk.Walk(t, s, methodList, keyList)
		return judgeSameSet(a, b)
	},
})

// judgeSameSet compares the URIs of two complete walks as sets.
func judgeSameSet(a, b *listwalk.Listing) conform.Verdict {
	for _, l := range []*listwalk.Listing{a, b} {
		if l.Stop != toolkit.StopEnd {
			last := l.Pages[len(l.Pages)-1]
			return conform.Skip(conform.NotExercised, "a walk of resources/list ended before the end of the list (%s: %s), so the sets cannot be compared", l.Stop, listwalk.Describe(last, l.Key))
		}
	}
	uris := func(l *listwalk.Listing) map[string]bool {
		m := map[string]bool{}
		for _, it := range l.Items {
			if u, ok := it.String("uri"); ok {
				m[u] = true
			}
		}
		return m
	}
	ua, ub := uris(a), uris(b)
	var onlyA, onlyB []string
	for u := range ua {
		if !ub[u] {
			onlyA = append(onlyA, fmt.Sprintf("%q", conform.Clip(u, 80)))
		}
	}
	for u := range ub {
		if !ua[u] {
			onlyB = append(onlyB, fmt.Sprintf("%q", conform.Clip(u, 80)))
		}
	}
	if len(onlyA)+len(onlyB) == 0 {
		return conform.Pass("%d resources, the same set on the main connection and on a second one", len(ua))
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return conform.Violation("the same set of resources on every connection (same credentials)",
		fmt.Sprintf("only on the main connection: [%s]; only on the second: [%s]", conform.Clip(strings.Join(onlyA, ", "), 200), conform.Clip(strings.Join(onlyB, ", "), 200)))
}
