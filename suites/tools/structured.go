package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Structured tool output (the STRUCT rows): structuredContent and outputSchema,
// judged on every tools/call result seen in the revision's sessions after the
// fixture test_structured_output (and the tools allowed with --call) were called.

// ctStructFixture is the fixture tool with an outputSchema.
const ctStructFixture = "test_structured_output"

// ctStructArrayFixture is the 2026-07-28 fixture tool whose outputSchema and
// structuredContent are an array.
const ctStructArrayFixture = "test_structured_array"

// STRUCT-TYPE-01 — 2025-06-18/2025-11-25 tools.mdx (Structured Content); schema CallToolResult.
var _ = conform.Register(conform.Check{
	ID: "STRUCT-TYPE-01", Title: "structuredContent, when present, is a JSON object",
	Probe: ctProbe(ctStructFixture),
	Run: func(t *conform.T) conform.Verdict {
		f := ctEachStructured(t, func(r *ctResult, raw json.RawMessage) string {
			if k := toolkit.JSONKind(raw); k != "object" {
				return fmt.Sprintf("%s /structuredContent is %s: %s", r.where(), ctArticle(k), conform.ClipBytes(raw, 80))
			}
			return ""
		})
		return f.Verdict("structuredContent as a JSON object", "",
			fmt.Sprintf("%d structuredContent value%s, all objects", f.Judged, toolkit.Plural(f.Judged)))
	},
})

// STRUCT-TYPE-R5-01 — 2026-07-28/server/tools.mdx (Structured Content).
var _ = conform.Register(conform.Check{
	ID: "STRUCT-TYPE-R5-01", Title: "structuredContent may be any JSON value, and then fits the tool's outputSchema",
	Probe: ctProbe(ctStructArrayFixture),
	Run:   runStructTypeR5,
})

func runStructTypeR5(t *conform.T) conform.Verdict {
	l := ctExercise(t)
	schemas := ctOutputSchemas(l)
	compiled, broken := map[string]*revision.ToolSchema{}, map[string]error{}
	var f conform.Findings
	var kinds []string
	for _, r := range ctResults(t) {
		raw, ok := r.Structured()
		if !ok || toolkit.JSONKind(raw) == "object" {
			continue
		}
		f.Judged++
		kinds = append(kinds, fmt.Sprintf("%s: %s", r.where(), ctArticle(toolkit.JSONKind(raw))))
		schema, declared := schemas[r.Tool]
		if !declared || r.IsError {
			continue // any value is allowed without a schema; isError:true is exempt (ERR-ISERROR-STRUCT-01)
		}
		ts, err := ctCompiled(r.Session.Rev, r.Tool, schema, compiled, broken)
		if err != nil {
			f.Note(fmt.Sprintf("%s not judged: its outputSchema does not compile (%v; see STRUCT-OUTSCHEMA-VALID-01)", r.where(), err))
			continue
		}
		if err := ts.Validate(raw); err != nil {
			f.Fail(toolkit.Problems(err, r.where()+" /structuredContent"))
		}
	}
	if f.Judged == 0 {
		return ctUnexercised(t, l, ctStructArrayFixture, "structuredContent other than an object")
	}
	return f.Verdict("structuredContent of any JSON type that conforms to the tool's outputSchema", "",
		fmt.Sprintf("%d structuredContent value%s other than an object, each fitting its outputSchema where one is declared (%s)", f.Judged, toolkit.Plural(f.Judged), conform.JoinAtMost(kinds, 4)))
}

// STRUCT-CONFORM-01 — R3+ tools.mdx (Output Schema).
var _ = conform.Register(conform.Check{
	ID: "STRUCT-CONFORM-01", Title: "every successful result of a tool with an outputSchema carries structuredContent valid against it",
	Probe: ctProbe(ctStructFixture),
	Run:   runStructConform,
})

// ctOutputSchemas maps listed tool names to their outputSchema.
func ctOutputSchemas(l *toolkit.Listing) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, tl := range l.Tools {
		if raw, ok := tl.Fields.Lookup("outputSchema"); ok && tl.Name != "" {
			out[tl.Name] = raw
		}
	}
	return out
}

// ctCompileOutput compiles an outputSchema in its dialect: the declared $schema, else
// the revision's default — 2020-12 from 2025-11-25; before that no dialect is
// mandated, so the one it compiles under (2020-12, then draft-07).
func ctCompileOutput(rev revision.Revision, raw json.RawMessage) (*revision.ToolSchema, error) {
	if rev.Has(revision.DefaultDialect2020) {
		return revision.CompileToolSchema(raw, revision.Draft2020)
	}
	d, err := revision.CompileAnyDialect(raw)
	if err != nil {
		return nil, fmt.Errorf("compile outputSchema: %w", err)
	}
	return revision.CompileToolSchema(raw, d)
}

func runStructConform(t *conform.T) conform.Verdict {
	l := ctExercise(t)
	schemas := ctOutputSchemas(l)
	compiled := map[string]*revision.ToolSchema{}
	broken := map[string]error{}
	var f conform.Findings
	exempt, uncompiled := 0, 0
	for _, r := range ctResults(t) {
		raw, ok := schemas[r.Tool]
		if !ok {
			continue
		}
		if r.IsError {
			exempt++
			continue
		}
		ts, err := ctCompiled(r.Session.Rev, r.Tool, raw, compiled, broken)
		if err != nil {
			uncompiled++
			continue
		}
		f.Judged++
		sc, present := r.Structured()
		if !present {
			f.Fail(r.where() + ": a successful result without structuredContent")
			continue
		}
		if err := ts.Validate(json.RawMessage(sc)); err != nil {
			f.Fail(toolkit.Problems(err, r.where()+" /structuredContent"))
		}
	}
	if f.Judged == 0 {
		return ctConformUnjudged(t, l, len(schemas), exempt, uncompiled, broken)
	}
	if exempt > 0 {
		f.Note(fmt.Sprintf("%d isError:true result%s exempt (ERR-ISERROR-STRUCT-01)", exempt, toolkit.Plural(exempt)))
	}
	for name, err := range broken {
		f.Note(fmt.Sprintf("%s not judged: its outputSchema does not compile (%v; see STRUCT-OUTSCHEMA-VALID-01)", name, err))
	}
	return f.Verdict("structuredContent valid against the tool's outputSchema in every successful result", "",
		fmt.Sprintf("%d successful result%s, each with structuredContent valid against the outputSchema", f.Judged, toolkit.Plural(f.Judged)))
}

// ctCompiled compiles a tool's outputSchema once per check.
func ctCompiled(rev revision.Revision, name string, raw json.RawMessage, compiled map[string]*revision.ToolSchema, broken map[string]error) (*revision.ToolSchema, error) {
	if ts, ok := compiled[name]; ok {
		return ts, nil
	}
	if err, ok := broken[name]; ok {
		return nil, err
	}
	ts, err := ctCompileOutput(rev, raw)
	if err != nil {
		broken[name] = err
		return nil, err
	}
	compiled[name] = ts
	return ts, nil
}

// ctConformUnjudged is STRUCT-CONFORM-01's skip when no result could be judged.
func ctConformUnjudged(t *conform.T, l *toolkit.Listing, schemas, exempt, uncompiled int, broken map[string]error) conform.Verdict {
	switch {
	case uncompiled > 0:
		var why []string
		for name, err := range broken {
			why = append(why, fmt.Sprintf("%s: %v", name, err))
		}
		return conform.Skip(conform.NotExercised, "the results of tools with an outputSchema could not be judged, their schemas do not compile (see STRUCT-OUTSCHEMA-VALID-01): %s", conform.JoinAtMost(why, 3))
	case exempt > 0:
		return conform.Skip(conform.NotExercised, "only isError:true results of tools with an outputSchema were seen (%d), which the rule exempts (ERR-ISERROR-STRUCT-01)", exempt)
	case schemas > 0 && l.Find(ctStructFixture) == nil:
		return conform.Skip(conform.NotExercised, "%d listed tool%s declare an outputSchema but none was called: allow one with --call NAME[=JSON], or list the fixture tool %s", schemas, toolkit.Plural(schemas), ctStructFixture)
	}
	return ctUnexercised(t, l, ctStructFixture, "successful result of a tool with an outputSchema")
}

// ctEachStructured judges every structuredContent of the revision's tools/call
// results with problem (the failure, "" when there is none) after the content
// probes, and ends the check with ctUnexercised's skip when no result carried one.
func ctEachStructured(t *conform.T, problem func(r *ctResult, raw json.RawMessage) string) conform.Findings {
	l := ctExercise(t)
	var f conform.Findings
	for _, r := range ctResults(t) {
		raw, ok := r.Structured()
		if !ok {
			continue
		}
		f.Judged++
		if p := problem(r, raw); p != "" {
			f.Fail(p)
		}
	}
	if f.Judged == 0 {
		t.Stop(ctUnexercised(t, l, ctStructFixture, "structuredContent"))
	}
	return f
}

// STRUCT-TEXT-MIRROR-01 — R3+ tools.mdx (Structured Content).
var _ = conform.Register(conform.Check{
	ID: "STRUCT-TEXT-MIRROR-01", Title: "a result with structuredContent also carries it serialized in a text block",
	Probe: ctProbe(ctStructFixture),
	Run: func(t *conform.T) conform.Verdict {
		f := ctEachStructured(t, func(r *ctResult, raw json.RawMessage) string {
			if why := ctMirror(r, raw); why != "" {
				return r.where() + ": " + why
			}
			return ""
		})
		return f.Verdict("a text block holding the serialized JSON of structuredContent", "",
			fmt.Sprintf("%d result%s with structuredContent, each mirroring it in a text block", f.Judged, toolkit.Plural(f.Judged)))
	},
})

// ctMirror says why no text block of the result deep-equals structuredContent once
// parsed ("" when one does).
func ctMirror(r *ctResult, structured json.RawMessage) string {
	var want any
	if json.Unmarshal(structured, &want) != nil {
		return "structuredContent is not JSON"
	}
	texts := 0
	for _, b := range ctBlocksOf([]*ctResult{r}) {
		if b.Type != "text" {
			continue
		}
		var text string
		if json.Unmarshal(b.Fields["text"], &text) != nil {
			continue
		}
		texts++
		var got any
		if json.Unmarshal([]byte(text), &got) == nil && reflect.DeepEqual(got, want) {
			return ""
		}
	}
	if texts == 0 {
		return fmt.Sprintf("no text block (content types [%s])", strings.Join(toolkit.ContentTypes(r.Content), ", "))
	}
	return fmt.Sprintf("none of the %d text block%s parses to JSON equal to structuredContent %s", texts, toolkit.Plural(texts), conform.ClipBytes(structured, 80))
}

// ctOutputSchema is one listed tool's outputSchema.
type ctOutputSchema struct {
	tool string // the tool's name, quoted for messages
	raw  json.RawMessage
}

// ctListedOutputSchemas is the outputSchema of every listed tool that declares one
// (a tool with no name too, unlike ctOutputSchemas). It
// ends the check as toolkit.RequireListing does when the listing failed, and not
// applicable when no tool declares an outputSchema.
func ctListedOutputSchemas(t *conform.T) []ctOutputSchema {
	l := toolkit.List(t)
	toolkit.RequireListing(t, l)
	var out []ctOutputSchema
	for _, tl := range l.Tools {
		if raw, ok := tl.Fields.Lookup("outputSchema"); ok {
			out = append(out, ctOutputSchema{tool: toolkit.Quote(tl.Name), raw: raw})
		}
	}
	if len(out) == 0 {
		t.SkipNow(conform.NotApplicable, "none of the %d listed tools declares an outputSchema", len(l.Tools))
	}
	return out
}

// STRUCT-OUTSCHEMA-ROOT-01 — 2025-06-18/2025-11-25 schema Tool.outputSchema.
var _ = conform.Register(conform.Check{
	ID: "STRUCT-OUTSCHEMA-ROOT-01", Title: "every outputSchema has root type \"object\"",
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, o := range ctListedOutputSchemas(t) {
			f.Judged++
			var s map[string]json.RawMessage
			if json.Unmarshal(o.raw, &s) != nil || s == nil {
				f.Fail(fmt.Sprintf("%s: outputSchema is %s", o.tool, ctArticle(toolkit.JSONKind(o.raw))))
				continue
			}
			if typ, ok := s["type"]; !ok || string(typ) != `"object"` {
				f.Fail(fmt.Sprintf("%s: outputSchema/type is %s", o.tool, toolkit.Or(string(typ), "absent")))
			}
		}
		return f.Verdict(`outputSchema with "type": "object" at the root`, "",
			fmt.Sprintf("every outputSchema (%d) has root type \"object\"", f.Judged))
	},
})

// STRUCT-OUTSCHEMA-VALID-01 — 2025-11-25 tools.mdx; basic/index.mdx (JSON Schema Usage).
var _ = conform.Register(conform.Check{
	ID: "STRUCT-OUTSCHEMA-VALID-01", Title: "every outputSchema is a valid JSON Schema in its dialect (default 2020-12)",
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		var compiled, inconclusive []string
		for _, o := range ctListedOutputSchemas(t) {
			f.Judged++
			ts, err := revision.CompileToolSchema(o.raw, revision.Draft2020)
			switch {
			case defInconclusive(err):
				// The suite could not decide (a remote $ref it does not fetch, an
				// ECMA-only regex, a dialect it does not know): nothing the server
				// did wrong, so never a warning.
				inconclusive = append(inconclusive, fmt.Sprintf("%s: %v", o.tool, err))
			case err != nil:
				f.Fail(fmt.Sprintf("%s: %v", o.tool, err))
			default:
				compiled = append(compiled, fmt.Sprintf("%s compiles under %s", o.tool, revision.DialectName(ts.Dialect())))
			}
		}
		switch {
		case len(f.Fails()) > 0:
			return f.Verdict("every outputSchema a valid JSON Schema in its dialect", "", "")
		case len(compiled) == 0:
			return conform.Skip(conform.NotExercised, "no outputSchema the suite can verify offline: %s", conform.JoinAtMost(inconclusive, 3))
		case len(inconclusive) > 0:
			return conform.Note("%d outputSchema(s) compile: %s; not verified: %s", len(compiled), conform.JoinAtMost(compiled, 4), conform.JoinAtMost(inconclusive, 3))
		}
		return conform.Pass("every outputSchema (%d) compiles: %s", f.Judged, conform.JoinAtMost(compiled, 4))
	},
})

// STRUCT-NOSCHEMA-01 — R3+ tools.mdx (Structured Content).
var _ = conform.Register(conform.Check{
	ID: "STRUCT-NOSCHEMA-01", Title: "structuredContent without an outputSchema is allowed, and still mirrored in a text block",
	Probe: ctProbe(),
	Run: func(t *conform.T) conform.Verdict {
		l := ctExercise(t)
		schemas := ctOutputSchemas(l)
		var unmirrored conform.Findings
		var seen []string
		for _, r := range ctResults(t) {
			sc, ok := r.Structured()
			if !ok {
				continue
			}
			if _, declared := schemas[r.Tool]; !declared {
				seen = append(seen, r.where())
				if why := ctMirror(r, sc); why != "" {
					unmirrored.Warn(r.where() + ": " + why)
				}
			}
		}
		if len(seen) == 0 {
			return conform.Skip(conform.NotExercised, "no result carried structuredContent from a tool without an outputSchema")
		}
		if unmirrored.Warned() {
			return unmirrored.Warning("structuredContent without an outputSchema also serialized in a text block")
		}
		return conform.Note("structuredContent from tools without an outputSchema (allowed): %s", conform.JoinAtMost(seen, 5))
	},
})

// STRUCT-R12-01 — 2024-11-05 and 2025-03-26 schemas (no structured output).
var _ = conform.Register(conform.Check{
	ID: "STRUCT-R12-01", Title: "preferably no structuredContent or outputSchema before 2025-06-18",
	Probe: ctProbe(),
	Run:   runStructR12,
})

func runStructR12(t *conform.T) conform.Verdict {
	l := ctExercise(t)
	var seen conform.Findings
	for _, tl := range l.Tools {
		if tl.Has("outputSchema") {
			seen.Warn(toolkit.Quote(tl.Name) + " declares an outputSchema")
		}
	}
	results := ctResults(t)
	for _, r := range results {
		if _, ok := r.Structured(); ok {
			seen.Warn(r.where() + " carries structuredContent")
		}
	}
	switch {
	case seen.Warned():
		return seen.Warning("no structured output in a " + t.Rev.Name + " session, which has none (tolerated as extra members, preferably absent)")
	case len(l.Pages) == 0 || l.Pages[0].Result == nil:
		if len(results) == 0 {
			return conform.Skip(conform.NotExercised, "no tools/list result and no tools/call result to look at")
		}
	}
	return conform.Pass("no outputSchema among %d listed tools, no structuredContent in %d tools/call result%s", len(l.Tools), len(results), toolkit.Plural(len(results)))
}

// ctArticle puts an article before a JSON type name.
func ctArticle(kind string) string {
	switch kind {
	case "null", "absent":
		return kind
	case "array", "object":
		return "an " + kind
	}
	return "a " + kind
}
