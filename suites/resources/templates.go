package resources

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
)

// RES-TPL-LIST-01 — {rev}/server/resources.mdx (Resource Templates); schema
// ListResourceTemplatesResult.
var _ = conform.Register(conform.Check{
	ID: "RES-TPL-LIST-01", Title: "every resources/templates/list page is a valid ListResourceTemplatesResult",
	Run: func(t *conform.T) conform.Verdict {
		requireResources(t)
		l := templateList(t)
		if methodNotFound(l.First()) {
			return conform.Skip(conform.NotApplicable, "resources/templates/list is answered -32601: the server offers no resource templates")
		}
		return judgeListPages(l, "ListResourceTemplatesResult", func(def string, raw json.RawMessage) error { return t.Rev.Validate(def, raw) })
	},
})

// RES-TPL-01 — schema ResourceTemplate.uriTemplate (RFC 6570).
var _ = conform.Register(conform.Check{
	ID: "RES-TPL-01", Title: "every resource template's uriTemplate is an RFC 6570 URI template",
	Run: func(t *conform.T) conform.Verdict {
		requireResources(t)
		l := templateList(t)
		if methodNotFound(l.First()) {
			return conform.Skip(conform.NotApplicable, "resources/templates/list is answered -32601: the server offers no resource templates")
		}
		requireFirstPage(t, l, "RES-TPL-LIST-01")
		return judgeTemplates(l.Items)
	},
})

// judgeTemplates parses every string uriTemplate (a missing or non-string one is
// RES-TPL-LIST-01's).
func judgeTemplates(items []listwalk.Item) conform.Verdict {
	var f conform.Findings
	for _, it := range items {
		tpl, ok := it.String("uriTemplate")
		if !ok {
			continue
		}
		f.Judged++
		if err := ParseURITemplate(tpl); err != nil {
			f.Fail(fmt.Sprintf("%s is %q: %v", it.Where("/uriTemplate"), conform.Clip(tpl, 80), err))
		}
	}
	if f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "resources/templates/list lists no template with a string uriTemplate")
	}
	return f.Verdict("uriTemplate in RFC 6570 syntax", "", fmt.Sprintf("%d uriTemplate%s, each valid RFC 6570 syntax", f.Judged, plural(f.Judged)))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
