package resources

import (
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The pagination rules (server/utilities/pagination.mdx) on the two resource lists,
// as PAG-* judge them on tools/list.

// invalidCursor is a cursor no server issues (RES-PAG-INVALID-01).
const invalidCursor = "x-conformance-invalid-@@"

// walks are the resource lists the server serves: resources/list always (its
// refusal is RES-LIST-01's), the templates unless refused with -32601.
func walks(t *conform.T) []*listwalk.Listing {
	requireResources(t)
	out := []*listwalk.Listing{resourceList(t)}
	if tl := templateList(t); !methodNotFound(tl.First()) {
		out = append(out, tl)
	}
	return out
}

// RES-PAG-NEXTCURSOR-01 — {rev}/server/utilities/pagination.mdx; schema
// PaginatedResult.
var _ = conform.Register(conform.Check{
	ID: "RES-PAG-NEXTCURSOR-01", Title: "on the resource lists, nextCursor is a new string while more exist, and left out at the end",
	Run: func(t *conform.T) conform.Verdict {
		return judgeNextCursors(walks(t), t.Options().MaxPages)
	},
})

// judgeNextCursors judges the end marker and the cursors of each walk.
func judgeNextCursors(ls []*listwalk.Listing, maxPages int) conform.Verdict {
	var f conform.Findings
	var said []string
	paged := false
	for _, l := range ls {
		if len(l.Pages) == 0 {
			continue
		}
		for i, p := range l.Pages {
			if raw, ok := p.Result["nextCursor"]; ok && string(raw) == "null" {
				f.Fail(fmt.Sprintf("%s page %d (%s) has nextCursor null", l.Method, i+1, listwalk.CursorLabel(p)))
			}
		}
		n := len(l.Pages)
		last := l.Pages[n-1]
		switch l.Stop {
		case toolkit.StopBadCursor:
			f.Fail(fmt.Sprintf("%s page %d (%s) has nextCursor %s, not a string", l.Method, n, listwalk.CursorLabel(last), conform.ClipBytes(last.NextRaw, 80)))
		case toolkit.StopRepeatedCursor:
			f.Fail(fmt.Sprintf("%s page %d (%s) returned nextCursor %q, which had already been returned and followed: the walk would loop", l.Method, n, listwalk.CursorLabel(last), conform.Clip(l.Repeated, 80)))
		case toolkit.StopMaxPages:
			f.Warn(fmt.Sprintf("%s: %d pages, each with a new nextCursor, and the last one still has one (--max-pages=%d)", l.Method, n, maxPages))
		case toolkit.StopError, toolkit.StopMalformed:
			if n > 1 {
				paged = true
				f.Note(fmt.Sprintf("%s: %d nextCursor strings followed, each new; page %d (%s) gave %s (judged by RES-PAG-FOLLOW-01), so the end was not seen", l.Method, n-1, n, listwalk.CursorLabel(last), listwalk.Describe(last, l.Key)))
			}
			continue
		}
		if n > 1 {
			paged = true
		}
		said = append(said, fmt.Sprintf("%s: %d page%s", l.Method, n, toolkit.Plural(n)))
	}
	if f.Failed() || f.Warned() {
		return f.Verdict("nextCursor a new string while more results exist, left out at the end", "nextCursor left out at the end of the list", "")
	}
	if !paged {
		return conform.Skip(conform.NotExercised, "each resource list fits one page (%s); paging was not exercised (the reference server pages resources/list by 5)", strings.Join(said, ", "))
	}
	if len(f.Notes()) > 0 {
		return conform.Note("%s; %s", strings.Join(said, ", "), strings.Join(f.Notes(), "; "))
	}
	return conform.Pass("%s, every nextCursor a new string, the last page without one", strings.Join(said, ", "))
}

// RES-PAG-FOLLOW-01 — {rev}/server/utilities/pagination.mdx (derived).
var _ = conform.Register(conform.Check{
	ID: "RES-PAG-FOLLOW-01", Title: "every cursor a resource list issued is accepted and gives a valid next page",
	Run: func(t *conform.T) conform.Verdict {
		defs := map[string]string{methodList: "ListResourcesResult", methodTemplates: "ListResourceTemplatesResult"}
		return judgeFollow(walks(t), func(l *listwalk.Listing, p listwalk.Page) error { return t.Rev.Validate(defs[l.Method], p.Resp.Result) })
	},
})

// judgeFollow judges every follow-up page of each walk.
func judgeFollow(ls []*listwalk.Listing, validate func(*listwalk.Listing, listwalk.Page) error) conform.Verdict {
	var f conform.Findings
	for _, l := range ls {
		for i, p := range l.Pages {
			if i == 0 {
				continue
			}
			f.Judged++
			where := fmt.Sprintf("%s page %d (%s)", l.Method, i+1, listwalk.CursorLabel(p))
			switch {
			case p.Err != nil:
				return conform.Silence("a page for "+where+", a cursor the server issued", p.Err)
			case p.Resp.IsError() || p.Result == nil:
				f.Fail(where + ": " + listwalk.Describe(p, l.Key))
			default:
				if err := validate(l, p); err != nil {
					f.Fail(toolkit.Problems(err, where+": "))
				}
			}
		}
	}
	if f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "each resource list fits one page: no cursor was issued to follow")
	}
	return f.Verdict("every cursor the server issued answered with a valid page", "", fmt.Sprintf("%d follow-up page%s, each valid", f.Judged, toolkit.Plural(f.Judged)))
}

// RES-PAG-INVALID-01 — {rev}/server/utilities/pagination.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "RES-PAG-INVALID-01", Title: "an invalid cursor on resources/list is answered with -32602",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		l := requireListed(t)
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no session for the invalid-cursor probe: %v", err)
		}
		probe := listwalk.Fetch(t, s, methodList, keyList, map[string]any{"cursor": invalidCursor})
		if t.Ctx.Err() != nil {
			return conform.Errorf("not verified: %v", t.Ctx.Err())
		}
		return judgeInvalidCursor(*l.First(), probe)
	},
})

// judgeInvalidCursor judges the reply to resources/list{cursor: invalidCursor};
// first is the walk's first page.
func judgeInvalidCursor(first, probe listwalk.Page) conform.Verdict {
	want := fmt.Sprintf("JSON-RPC error -32602 for resources/list{cursor: %q}", invalidCursor)
	return toolkit.JudgeInvalidCursor(want, probe.Resp, probe.Err, nil, probe.Result != nil && first.Result != nil && sameItems(first, probe))
}

// sameItems reports whether two pages list the same items (by bytes).
func sameItems(a, b listwalk.Page) bool {
	if len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Items {
		if string(a.Items[i]) != string(b.Items[i]) {
			return false
		}
	}
	return true
}
