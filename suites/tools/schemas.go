package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Tool schema checks (TOOLS-INSCHEMA-*, TOOLS-OUTSCHEMA-01): the root
// type of inputSchema, whether inputSchema and outputSchema are valid JSON Schema in
// the dialect the revision implies (with a note on the no-parameter recommendation). Remote $refs
// are never fetched.

// TOOLS-INSCHEMA-TYPE-01 — schema Tool.inputSchema.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-INSCHEMA-TYPE-01", Title: "every inputSchema has \"type\": \"object\" at its root",
	Run: func(t *conform.T) conform.Verdict {
		l := defList(t)
		var bad conform.Findings
		n, open := 0, 0
		var first []string                  // the first open parameterless tools, named
		facts := map[string]inSchemaFacts{} // by schema text: tools share schemas
		for _, d := range l.Tools {
			raw := d.Fields.Get("inputSchema")
			f, seen := facts[string(raw)]
			if !seen {
				f = readInSchema(raw)
				facts[string(raw)] = f
			}
			if !f.object {
				continue // missing or not an object: TOOLS-DEF-01
			}
			n++
			if !f.typeObject {
				bad.Fail(fmt.Sprintf("%s: type is %s", d.Pointer("/inputSchema/type"), f.typeText))
			}
			if f.openNoParams {
				open++
				if len(first) < 5 {
					first = append(first, d.String())
				}
			}
		}
		switch {
		case n == 0:
			return defNone(l, "has an object inputSchema", "TOOLS-DEF-01 judges the missing ones")
		case bad.Failed():
			return bad.Violation("\"type\": \"object\" at the root of every inputSchema")
		}
		if open > 0 && t.Rev.AtLeast("2025-11-25") {
			names := strings.Join(first, "; ")
			if open > len(first) {
				names += fmt.Sprintf("; … and %d more", open-len(first))
			}
			return conform.Note("%d inputSchema(s) with \"type\": \"object\" at the root%s; %d parameterless tool(s) use the open form {\"type\":\"object\"}, one of the page's valid approaches (it recommends {\"type\":\"object\",\"additionalProperties\":false}): %s",
				n, l.partial(), open, names)
		}
		return conform.Pass("%d inputSchema(s) with \"type\": \"object\" at the root%s", n, l.partial())
	},
})

// defDescribe renders a raw member for messages ("absent" when missing).
func defDescribe(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "absent"
	}
	return conform.ClipBytes(raw, 60)
}

// defInconclusive reports whether a compile error says the suite could not decide
// (a remote $ref it does not fetch, a pattern RE2 cannot compile, a dialect the
// validator does not know) rather than that the schema is invalid.
func defInconclusive(err error) bool {
	return errors.Is(err, revision.ErrRemoteRef) || errors.Is(err, revision.ErrRegex) || errors.Is(err, revision.ErrUnsupportedDialect) || errors.Is(err, revision.ErrTooComplex)
}

// defCompiled sums up compiling a set of schemas.
type defCompiled struct {
	verified     int
	dialects     map[string]int
	invalid      []string
	inconclusive []string
}

// add counts one schema's result; where names it, built only for a finding (at
// 100,000 tools a name for every valid schema was a tenth of the run's CPU).
func (c *defCompiled) add(where func() string, dialect string, err error) {
	switch {
	case err == nil:
		c.verified++
		if c.dialects == nil {
			c.dialects = map[string]int{}
		}
		c.dialects[revision.DialectName(dialect)]++
	case defInconclusive(err):
		c.inconclusive = append(c.inconclusive, fmt.Sprintf("%s: %v", where(), err))
	default:
		c.invalid = append(c.invalid, fmt.Sprintf("%s: %v", where(), err))
	}
}

// dialectSummary renders "2020-12: 3, draft-07: 1".
func (c *defCompiled) dialectSummary() string {
	names := make([]string, 0, len(c.dialects))
	for n := range c.dialects {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s: %d", n, c.dialects[n])
	}
	return strings.Join(parts, ", ")
}

// defCompileStrict compiles a schema under its declared dialect, or 2020-12 when it
// declares none (the 2025-11-25 rule).
func defCompileStrict(raw json.RawMessage) (string, error) {
	ts, err := revision.CompileToolSchema(raw, revision.Draft2020)
	if err != nil {
		return "", err
	}
	return ts.Dialect(), nil
}

// TOOLS-INSCHEMA-VALID-01 — 2025-11-25/server/tools.mdx; basic/index.mdx (JSON
// Schema Usage).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-INSCHEMA-VALID-01", Title: "every inputSchema is a valid JSON Schema under its declared dialect (default 2020-12)",
	Run: func(t *conform.T) conform.Verdict { return defInputSchemasCompile(t, defCompileStrict) },
})

// defInputSchemasCompile compiles every listed inputSchema with compile (which names
// the dialect it used) and judges the results; an invalid one is a violation.
func defInputSchemasCompile(t *conform.T, compile func(json.RawMessage) (string, error)) conform.Verdict {
	l := defList(t)
	var c defCompiled
	for _, d := range l.with("inputSchema") {
		dialect, err := compile(d.Fields.Get("inputSchema"))
		c.add(func() string { return d.Pointer("/inputSchema") }, dialect, err)
	}
	return judgeCompiled(t, l, &c, "inputSchema", conform.Violation)
}

// judgeCompiled turns compile results into a verdict; invalid is how an invalid
// schema is judged.
func judgeCompiled(t *conform.T, l *defListing, c *defCompiled, member string, invalid func(expected, actual string) conform.Verdict) conform.Verdict {
	switch {
	case len(c.invalid) > 0:
		return invalid("every "+member+" a valid JSON Schema", conform.JoinAtMost(c.invalid, 5))
	case c.verified == 0 && len(c.inconclusive) > 0:
		return defNone(l, "has an "+member+" the suite can verify offline", "inconclusive: "+conform.JoinAtMost(c.inconclusive, 3))
	case c.verified == 0:
		return defNone(l, "has an "+member, "TOOLS-DEF-01 judges the missing ones")
	case len(c.inconclusive) > 0:
		return conform.Note("%d %s(s) compile (%s); not verified: %s", c.verified, member, c.dialectSummary(), conform.JoinAtMost(c.inconclusive, 3))
	}
	return conform.Pass("%d %s(s) compile (%s)%s", c.verified, member, c.dialectSummary(), l.partial())
}

// TOOLS-INSCHEMA-VALID-R1-01 — 2024-11-05 … 2025-06-18 server/tools.mdx.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-INSCHEMA-VALID-R1-01", Title: "every inputSchema compiles as JSON Schema (2020-12 or draft-07)",
	Run: func(t *conform.T) conform.Verdict { return defInputSchemasCompile(t, revision.CompileAnyDialect) },
})

// defNoParams reports whether an inputSchema object declares no parameter at all
// (nothing that could admit or describe a property).
func defNoParams(schema map[string]json.RawMessage) bool {
	for _, k := range []string{"properties", "patternProperties", "required", "dependentSchemas", "dependentRequired", "dependencies"} {
		if obj := toolkit.Object(schema[k]); len(obj) > 0 {
			return false
		}
		if arr, ok := toolkit.Array(schema[k]); ok && len(arr) > 0 {
			return false
		}
	}
	for _, k := range []string{"$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "not"} {
		if _, ok := schema[k]; ok {
			return false
		}
	}
	return toolkit.JSONKind(schema["additionalProperties"]) != "object" && toolkit.JSONKind(schema["unevaluatedProperties"]) != "object"
}

// inSchemaFacts is what TOOLS-INSCHEMA-TYPE-01 reads in one inputSchema.
type inSchemaFacts struct {
	object       bool   // the schema is a JSON object
	typeObject   bool   // its "type" is "object"
	typeText     string // its "type", for a finding
	openNoParams bool   // a parameterless schema in the open form (defOpenNoParams)
}

// readInSchema reads an inputSchema's facts.
func readInSchema(raw json.RawMessage) inSchemaFacts {
	schema := toolkit.Object(raw)
	if schema == nil {
		return inSchemaFacts{}
	}
	typ, ok := toolkit.String(schema["type"])
	return inSchemaFacts{object: true, typeObject: ok && typ == "object", typeText: defDescribe(schema["type"]), openNoParams: defOpenNoParams(schema)}
}

// defOpenNoParams reports whether a parameterless inputSchema accepts any object.
// 2025-11-25/server/tools.mdx lists that form as one of two "valid approaches" and
// calls the closed form "Recommended" — an ordinary word, not a BCP 14 key word (the
// revision's conventions: key words apply "when, and only when, they appear in all
// capitals"). So it is never a violation: TOOLS-INSCHEMA-TYPE-01 only notes it, and
// catalogue row TOOLS-INSCHEMA-NOPARAMS-01 ("(recommended)", INFO) has no check of its
// own, since a check that cannot fail proves nothing.
func defOpenNoParams(schema map[string]json.RawMessage) bool {
	return defNoParams(schema) && string(schema["additionalProperties"]) != "false" && string(schema["unevaluatedProperties"]) != "false"
}

// TOOLS-OUTSCHEMA-01 — 2025-06-18+/server/tools.mdx (Output Schema); schema
// Tool.outputSchema.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-OUTSCHEMA-01", Title: "every outputSchema is valid under the revision's Tool schema (root type object before 2026-07-28) and compiles",
	Run: runOutSchema,
})

func runOutSchema(t *conform.T) conform.Verdict {
	l := defList(t)
	withOut := l.with("outputSchema")
	if len(withOut) == 0 {
		return defNone(l, "has an outputSchema", "the fixture contract's test_structured_output has one")
	}
	var shape []string
	var c defCompiled
	for _, d := range withOut {
		if p := defOutShape(t.Rev, d); p != "" {
			shape = append(shape, p)
			continue
		}
		var dialect string
		var err error
		if t.Rev.Has(revision.DefaultDialect2020) {
			dialect, err = defCompileStrict(d.Fields.Get("outputSchema"))
		} else {
			dialect, err = revision.CompileAnyDialect(d.Fields.Get("outputSchema"))
		}
		c.add(func() string { return d.Pointer("/outputSchema") }, dialect, err)
	}
	switch {
	case len(shape) > 0:
		want := "outputSchema valid under the " + t.Rev.Name + " schema (an object with root type \"object\")"
		if t.Session().Modern() {
			want = "outputSchema valid under the " + t.Rev.Name + " schema (a JSON Schema object)"
		}
		return conform.Violation(want, conform.JoinAtMost(append(shape, c.invalid...), 5))
	case len(c.invalid) > 0 && t.Rev.Has(revision.DefaultDialect2020):
		return conform.Violation("every outputSchema valid under its declared or default (2020-12) dialect", conform.JoinAtMost(c.invalid, 5))
	case len(c.invalid) > 0:
		// The dialect is open before 2025-11-25: valid under neither is derived.
		return conform.Warn("every outputSchema compiling as 2020-12 or draft-07 JSON Schema", conform.JoinAtMost(c.invalid, 5))
	}
	return judgeCompiled(t, l, &c, "outputSchema", conform.Violation)
}

// defOutShape validates the tool against the revision's Tool definition and keeps
// the problems under /outputSchema ("" when there are none).
func defOutShape(rev revision.Revision, d defTool) string {
	err := rev.Validate("Tool", d.Raw)
	var ve *revision.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return ""
	}
	var probs []string
	for _, p := range ve.Problems {
		if p.Pointer == "/outputSchema" || strings.HasPrefix(p.Pointer, "/outputSchema/") {
			probs = append(probs, p.String())
		}
	}
	if len(probs) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s", d, strings.Join(probs, "; "))
}

// TOOLS-INSCHEMA-REF-01 — 2026-07-28/basic/index.mdx (JSON Schema Usage, $ref Resolution).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-INSCHEMA-REF-01", Title: "no inputSchema or outputSchema leans on a $ref outside itself, which clients do not fetch",
	Run: func(t *conform.T) conform.Verdict {
		l := defList(t)
		var schemas []refSchema
		for _, d := range l.Tools {
			for _, member := range []string{"inputSchema", "outputSchema"} {
				if d.Has(member) {
					schemas = append(schemas, refSchema{tool: d, member: member, raw: d.Fields.Get(member)})
				}
			}
		}
		if len(schemas) == 0 {
			return defNone(l, "has an inputSchema or outputSchema", "TOOLS-DEF-01 judges the missing ones")
		}
		return judgeExternalRefs(schemas)
	},
})

// refSchema is one tool schema and where it stands in the listing.
type refSchema struct {
	tool   toolkit.Tool
	member string
	raw    json.RawMessage
}

// where names the schema for a finding (built only for one).
func (s refSchema) where() string { return s.tool.Pointer("/" + s.member) }

// judgeExternalRefs finds, in every schema, the references a client would have to
// fetch: those found by reading the schema, and the one its offline compile stopped at.
func judgeExternalRefs(schemas []refSchema) conform.Verdict {
	var f conform.Findings
	for _, s := range schemas {
		f.Judged++
		refs := externalRefs(s.raw)
		if _, err := revision.CompileToolSchema(s.raw, revision.Draft2020); errors.Is(err, revision.ErrRemoteRef) && len(refs) == 0 {
			refs = append(refs, err.Error())
		}
		for _, r := range refs {
			f.Fail(fmt.Sprintf("%s: $ref %s", s.where(), r))
		}
	}
	return f.Verdict("every $ref of a tool schema resolving inside the schema (a fragment or an embedded $id); a client does not fetch a network $ref and should reject the schema", "",
		fmt.Sprintf("%d tool schemas, no $ref outside the schema", f.Judged))
}

// externalRefs returns the $ref and $dynamicRef values of a schema that resolve
// neither to a fragment of it nor to a resource it embeds with $id. Instance data
// (enum, const, default, examples) is not read.
func externalRefs(raw json.RawMessage) []string {
	// Many tools share a schema (interned by the walk): each text is read once.
	if v, ok := externalRefsOf.Load(string(raw)); ok {
		return v.([]string)
	}
	refs := readExternalRefs(raw)
	externalRefsOf.Store(string(raw), refs[:len(refs):len(refs)])
	return refs
}

// externalRefsOf memoizes externalRefs by schema text.
var externalRefsOf sync.Map

// readExternalRefs is externalRefs without the memo.
func readExternalRefs(raw json.RawMessage) []string {
	var doc any
	if json.Unmarshal(raw, &doc) != nil {
		return nil
	}
	ids := map[string]bool{}
	var refs []string
	var walk func(v any)
	walk = func(v any) {
		switch n := v.(type) {
		case map[string]any:
			for k, c := range n {
				switch k {
				case "enum", "const", "default", "examples":
					continue
				case "$id":
					if s, ok := c.(string); ok {
						ids[strings.TrimSuffix(s, "#")] = true
					}
				case "$ref", "$dynamicRef":
					if s, ok := c.(string); ok {
						refs = append(refs, s)
					}
				}
				walk(c)
			}
		case []any:
			for _, c := range n {
				walk(c)
			}
		}
	}
	walk(doc)
	var out []string
	for _, r := range refs {
		target, _, _ := strings.Cut(r, "#")
		if target == "" || ids[target] || embeddedID(ids, target) {
			continue
		}
		out = append(out, strconv.Quote(r))
	}
	sort.Strings(out)
	return out
}

// embeddedID reports whether a relative reference names an embedded resource by the
// last path segment of its $id (e.g. "item.json" for "https://example.com/item.json").
func embeddedID(ids map[string]bool, target string) bool {
	if strings.Contains(target, ":") {
		return false
	}
	for id := range ids {
		if strings.HasSuffix(id, "/"+strings.TrimPrefix(target, "./")) {
			return true
		}
	}
	return false
}
