package resources

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// RES-TPL-LIST-01 — {rev}/server/resources.mdx (Resource Templates); schema
// ListResourceTemplatesResult.
var _ = conform.Register(conform.Check{
	ID: "RES-TPL-LIST-01", Title: "every resources/templates/list page is a valid ListResourceTemplatesResult",
	Run: func(t *conform.T) conform.Verdict {
		return judgeListPages(requireTemplates(t), "ListResourceTemplatesResult", func(def string, raw json.RawMessage) error { return t.Rev.Validate(def, raw) })
	},
})

// RES-TPL-01 — schema ResourceTemplate.uriTemplate (RFC 6570).
var _ = conform.Register(conform.Check{
	ID: "RES-TPL-01", Title: "every resource template's uriTemplate is an RFC 6570 URI template",
	Run: func(t *conform.T) conform.Verdict {
		l := requireTemplates(t)
		requireFirstPage(t, l, "RES-TPL-LIST-01")
		return judgeTemplates(l.Items)
	},
})

// judgeTemplates parses every string uriTemplate (a missing or non-string one is
// RES-TPL-LIST-01's).
func judgeTemplates(items []listwalk.Item) conform.Verdict {
	f := judgeStrings(items, "uriTemplate", func(tpl string) string {
		if err := ParseURITemplate(tpl); err != nil {
			return err.Error()
		}
		return ""
	})
	if f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "resources/templates/list lists no template with a string uriTemplate")
	}
	return f.Verdict("uriTemplate in RFC 6570 syntax", "", fmt.Sprintf("%d uriTemplate%s, each valid RFC 6570 syntax", f.Judged, toolkit.Plural(f.Judged)))
}

// judgeStrings judges the string member of every item with problem ("" when it
// is fine; RES-DEF-URI-01's uri, RES-TPL-01's uriTemplate); an item without one is
// not judged (the list rows judge it).
func judgeStrings(items []listwalk.Item, member string, problem func(string) string) conform.Findings {
	var f conform.Findings
	for _, it := range items {
		v, ok := it.String(member)
		if !ok {
			continue
		}
		f.Judged++
		if p := problem(v); p != "" {
			f.Fail(fmt.Sprintf("%s is %q: %s", it.Where("/"+member), conform.Clip(v, 80), p))
		}
	}
	return f
}
