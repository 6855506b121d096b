package resources

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// RES-DEF-URI-01 — schema Resource.uri (format uri); {rev}/server/resources.mdx
// (Custom URI Schemes, 2025-06-18+).
var _ = conform.Register(conform.Check{
	ID: "RES-DEF-URI-01", Title: "every listed resource's uri is a URI with a scheme (RFC 3986)",
	Run: func(t *conform.T) conform.Verdict {
		return judgeURIs(requireListed(t).Items)
	},
})

// judgeURIs parses every string uri (a missing or non-string one is RES-LIST-01's).
func judgeURIs(items []listwalk.Item) conform.Verdict {
	f := judgeStrings(items, "uri", toolkit.URIProblem)
	if f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "resources/list lists no resource with a string uri")
	}
	return f.Verdict("every resource uri a URI (RFC 3986: scheme \":\" hier-part)", "", fmt.Sprintf("%d resource uri%s, each a URI with a scheme", f.Judged, toolkit.Plural(f.Judged)))
}

// RES-DEF-ANNOT-01 — schema Annotations; {rev}/server/resources.mdx (Annotations).
var _ = conform.Register(conform.Check{
	ID: "RES-DEF-ANNOT-01", Title: "listed resources' and templates' annotations are valid: audience, priority 0–1, lastModified ISO 8601",
	Run: func(t *conform.T) conform.Verdict {
		items := requireListed(t).Items
		if tl := templateList(t); !methodNotFound(tl.First()) {
			items = append(items[:len(items):len(items)], tl.Items...)
		}
		return judgeAnnotations(t.Rev, items)
	},
})

// judgeAnnotations validates each annotations object and parses its lastModified.
func judgeAnnotations(rev revision.Revision, items []listwalk.Item) conform.Verdict {
	var f conform.Findings
	for _, it := range items {
		raw, ok := it.Fields["annotations"]
		if !ok {
			continue
		}
		f.Judged++
		where := it.Where("/annotations")
		if err := validateAnnotations(rev, raw); err != nil {
			f.Fail(toolkit.Problems(err, where+" "))
			continue
		}
		a := toolkit.Object(raw)
		lm, ok := a["lastModified"]
		if !ok {
			continue
		}
		s, isString := toolkit.String(lm)
		switch {
		case !isString:
			f.Fail(fmt.Sprintf("%s/lastModified is %s, not a string", where, conform.ClipBytes(lm, 60)))
		case !iso8601(s):
			f.Fail(fmt.Sprintf("%s/lastModified is %q, which is no ISO 8601 timestamp", where, conform.Clip(s, 60)))
		}
	}
	if f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "no listed resource or template carries annotations")
	}
	return f.Verdict("annotations valid under the "+rev.Name+" schema, lastModified an ISO 8601 timestamp", "",
		fmt.Sprintf("%d annotations object%s, each valid", f.Judged, toolkit.Plural(f.Judged)))
}

// validateAnnotations validates annotations against Annotations where the revision
// defines it, else (2024-11-05) as the annotations member of Annotated.
func validateAnnotations(rev revision.Revision, raw json.RawMessage) error {
	if rev.HasDefinition("Annotations") {
		return rev.Validate("Annotations", raw)
	}
	err := rev.Validate("Annotated", json.RawMessage(`{"annotations":`+string(raw)+`}`))
	var ve *revision.ValidationError
	if errors.As(err, &ve) {
		for i, p := range ve.Problems {
			ve.Problems[i].Pointer = strings.TrimPrefix(p.Pointer, "/annotations")
		}
	}
	return err
}

// iso8601 reports whether s is an ISO 8601 date-time in the RFC 3339 profile (the
// spec's example: "2025-01-12T15:00:58Z").
func iso8601(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}
