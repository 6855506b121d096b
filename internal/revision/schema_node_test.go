package revision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestEmbeddedSchemasMeetMetaSchema proves, once, what a run no longer checks: every
// embedded official schema is valid against its dialect's meta-schema. Compiling the
// document makes the library validate the whole of it; a document broken on purpose
// shows that the same compile rejects one that is not.
func TestEmbeddedSchemasMeetMetaSchema(t *testing.T) {
	compile := func(raw []byte) error {
		c := newOfflineCompiler(func(url string) error { return fmt.Errorf("remote schema not fetched: %s", url) })
		const url = schemaBaseURL + "meta-check/schema.json"
		if err := c.AddResource(url, bytes.NewReader(raw)); err != nil {
			return err
		}
		_, err := c.Compile(url)
		return err
	}
	for _, r := range schemaRevisions(t) {
		t.Run(r.Name, func(t *testing.T) {
			raw, err := schemaFS.ReadFile("schemas/" + r.Name + "/schema.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := compile(raw); err != nil {
				t.Errorf("the embedded schema breaks its meta-schema: %v", err)
			}
			broken := bytes.Replace(raw, []byte(`"type": "object"`), []byte(`"type": "objekt"`), 1)
			if bytes.Equal(broken, raw) {
				t.Fatal(`no "type": "object" to break`)
			}
			if err := compile(broken); err == nil || !strings.Contains(err.Error(), "/type' does not validate with") {
				t.Errorf("a schema with type objekt compiled: %v", err)
			}
		})
	}
}

// freshSchemaSet makes the next use of the revision load its schema anew, as a run
// starts, and puts the set other tests loaded back when t ends.
func freshSchemaSet(t *testing.T, rev string) {
	t.Helper()
	schemaSetsMu.Lock()
	old, had := schemaSets[rev]
	delete(schemaSets, rev)
	schemaSetsMu.Unlock()
	t.Cleanup(func() {
		schemaSetsMu.Lock()
		defer schemaSetsMu.Unlock()
		if had {
			schemaSets[rev] = old
		} else {
			delete(schemaSets, rev)
		}
	})
}

// TestNormalPathCompilesNothing: a run whose results are all valid never compiles
// an official schema (so the library never validates it against its meta-schema),
// whether the results arrive as JSON text or as decoded values; the first invalid
// one compiles its definition, once, for the library's error.
func TestNormalPathCompilesNothing(t *testing.T) {
	for _, r := range All() {
		t.Run(r.Name, func(t *testing.T) {
			freshSchemaSet(t, r.Name)
			r.Warm()
			results := typicalResults(r)
			for def, raw := range results {
				if err := r.Validate(def, raw); err != nil {
					t.Errorf("%s: %v", def, err)
				}
				v, err := decodeJSON(raw)
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Validate(def, v); err != nil {
					t.Errorf("%s, decoded: %v", def, err)
				}
			}
			s, err := r.set()
			if err != nil {
				t.Fatal(err)
			}
			for _, def := range r.Definitions() {
				if n := compileCount(r.Name, def); n != 0 {
					t.Errorf("%s compiled %d times", def, n)
				}
			}
			s.mu.Lock()
			compiler := s.compiler
			s.mu.Unlock()
			if compiler != nil {
				t.Error("a compiler was made for valid instances")
			}

			err = r.Validate("CallToolResult", json.RawMessage(`{"content":[{"type":"text","text":5}],"resultType":"complete"}`))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("invalid CallToolResult: want *ValidationError, got %v", err)
			}
			if n := compileCount(r.Name, "CallToolResult"); n != 1 {
				t.Errorf("CallToolResult compiled %d times after an invalid instance, want 1", n)
			}
		})
	}
}

// mutants returns variations of a valid JSON value that often break a schema: each
// member of each object dropped, each value replaced by values of every JSON type
// (1.5 is a number that is not an integer, "x" a string no enum lists), and an extra
// member of each of those values added to each object.
func mutants(v any) []any {
	replacements := []any{json.Number("1.5"), json.Number("-1"), "x", nil, true, map[string]any{}, []any{}}
	var out []any
	out = append(out, replacements...)
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			dropped := copyObject(v)
			delete(dropped, k)
			out = append(out, dropped)
			for _, m := range mutants(v[k]) {
				changed := copyObject(v)
				changed[k] = m
				out = append(out, changed)
			}
		}
		for _, r := range replacements {
			extra := copyObject(v)
			extra["zzz"] = r
			out = append(out, extra)
		}
	case []any:
		for i := range v {
			for _, m := range mutants(v[i]) {
				changed := append([]any(nil), v...)
				changed[i] = m
				out = append(out, changed)
			}
		}
	}
	return out
}

func copyObject(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestProvenValidMutants holds the proof to the library on the typical results of
// every revision and on every mutant of them: the valid results are proven (so the
// fast path is really taken), and no mutant the library rejects is proven valid,
// on the text or on the decoded value.
func TestProvenValidMutants(t *testing.T) {
	for _, r := range All() {
		s, err := r.set()
		if err != nil {
			t.Fatal(err)
		}
		for def, raw := range typicalResults(r) {
			t.Run(r.Name+"/"+def, func(t *testing.T) {
				node, sch := nodeAndSchema(t, s, def)
				if !provenValidRaw(node, raw, 0) {
					t.Errorf("the valid result is not proven valid: %s", raw)
				}
				v, _ := decodeJSON(raw)
				if rejected := checkMutants(t, node, sch, mutants(v)); rejected == 0 {
					t.Error("the library rejected no mutant: the test shows nothing")
				}
			})
		}
	}
}

// TestProvenValidMutantsOfEveryDefinition does the same for every definition of
// every embedded schema, on a valid instance made by genInstance and (a bounded
// number of) its mutants.
func TestProvenValidMutantsOfEveryDefinition(t *testing.T) {
	const maxMutants = 60
	rng := rand.New(rand.NewPCG(13, 17))
	var defsSeen, rejected int
	for _, r := range schemaRevisions(t) {
		s, err := r.set()
		if err != nil {
			t.Fatal(err)
		}
		defs := r.Definitions()
		sort.Strings(defs)
		for _, def := range defs {
			node, sch := nodeAndSchema(t, s, def)
			var valid any
			for range 20 {
				if v := roundTrip(t, genInstance(rng, sch, 0)); sch.Validate(v) == nil {
					valid = v
					break
				}
			}
			if valid == nil {
				continue // none made: TestProvenValidNeverContradictsTheLibrary covers it
			}
			defsSeen++
			if !provenValid(node, valid, 0) {
				t.Errorf("%s %s: a valid instance is not proven valid: %v", r.Name, def, valid)
			}
			ms := mutants(valid)
			rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
			rejected += checkMutants(t, node, sch, ms[:min(len(ms), maxMutants)])
		}
	}
	if defsSeen < 300 || rejected == 0 {
		t.Errorf("%d definitions with a valid instance, %d mutants rejected: too few to show anything", defsSeen, rejected)
	}
	t.Logf("%d definitions, %d mutants the library rejects, none proven valid", defsSeen, rejected)
}

func nodeAndSchema(t *testing.T, s *schemaSet, def string) (*schemaNode, *jsonschema.Schema) {
	t.Helper()
	node, err := s.node(def)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := s.definition(def)
	if err != nil {
		t.Fatal(err)
	}
	return node, sch
}

// checkMutants fails t when a mutant the library rejects is proven valid, or when
// the proofs on the text and on the decoded value disagree; it returns how many
// mutants the library rejected.
func checkMutants(t *testing.T, node *schemaNode, sch *jsonschema.Schema, ms []any) (rejected int) {
	t.Helper()
	for _, m := range ms {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		m = roundTrip(t, m)
		lib := sch.Validate(m)
		p := provenValid(node, m, 0)
		if p && lib != nil {
			t.Fatalf("proven valid, but the library says %v\n%s", lib, b)
		}
		if pr := provenValidRaw(node, b, 0); pr != p {
			t.Fatalf("proven on the text %v, on the decoded value %v\n%s", pr, p, b)
		}
		if lib != nil {
			rejected++
		}
	}
	return rejected
}

// TestProvenValidNamedMutations pins mutations of each kind the proof must leave to
// the library, which rejects them all, each with the error it gave before proofs
// existed.
func TestProvenValidNamedMutations(t *testing.T) {
	for _, tc := range []struct {
		rev, def, instance, pointer, message string
	}{
		{"2026-07-28", "DiscoverResult", `{"resultType":"complete","cacheScope":"public","ttlMs":1.5,"supportedVersions":[],"capabilities":{}}`, "/ttlMs", "expected integer, but got number"},
		{"2026-07-28", "DiscoverResult", `{"resultType":"complete","cacheScope":"shared","ttlMs":1,"supportedVersions":[],"capabilities":{}}`, "/cacheScope", `value must be one of "private", "public"`},
		{"2026-07-28", "DiscoverResult", `{"resultType":"complete","cacheScope":"public","ttlMs":-1,"supportedVersions":[],"capabilities":{}}`, "/ttlMs", "must be >= 0 but found -1"},
		{"2026-07-28", "DiscoverResult", `{"resultType":"complete","cacheScope":"public","ttlMs":1,"supportedVersions":[]}`, "", "missing properties: 'capabilities'"},
		{"2025-11-25", "CallToolResult", `{"content":[{"type":"text","text":5}]}`, "/content/0/text", "expected string, but got number"},
		{"2025-06-18", "InitializeResult", `{"protocolVersion":5,"capabilities":{},"serverInfo":{"name":"a","version":"1"}}`, "/protocolVersion", "expected string, but got number"},
		{"2024-11-05", "ListToolsResult", `{"tools":[{"name":"t","inputSchema":{"type":"array"}}]}`, "/tools/0/inputSchema/type", `value must be "object"`},
	} {
		t.Run(tc.rev+"/"+tc.def, func(t *testing.T) {
			r := MustLookup(tc.rev)
			s, err := r.set()
			if err != nil {
				t.Fatal(err)
			}
			node, err := s.node(tc.def)
			if err != nil {
				t.Fatal(err)
			}
			if provenValidRaw(node, []byte(tc.instance), 0) {
				t.Errorf("proven valid: %s", tc.instance)
			}
			wantProblem(t, r.Validate(tc.def, json.RawMessage(tc.instance)), tc.pointer, tc.message)
		})
	}
}

// TestSchemaNodeDialectCare: keywords the node builder does not evaluate, tuple
// items, and references it does not resolve make a node unsupported, so instances
// that ignoring them would wrongly prove are left to the library; local definition
// references (and the root, "#") are resolved, recursion included.
func TestSchemaNodeDialectCare(t *testing.T) {
	for _, tc := range []struct {
		schema, dialect, instance string
		want                      bool
	}{
		{`{"minimum":1,"exclusiveMinimum":true}`, Draft04, `1`, false},
		{`{"type":"array","items":[{"type":"string"}]}`, Draft07, `[1]`, false},
		{`{"type":"array","items":[{"type":"string"}]}`, Draft07, `["a"]`, false}, // valid, but unsupported
		{`{"type":"array","prefixItems":[{"type":"string"}]}`, Draft2020, `[1]`, false},
		{`{"type":"string","minLength":3}`, Draft2020, `"ab"`, false},
		{`{"type":"string","x-vendor":1}`, Draft2020, `"ab"`, false}, // unknown keyword: not proven
		{`{"$id":"https://example.invalid/s","type":"string"}`, Draft2020, `"a"`, false},
		{`{"$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a"}`, Draft2020, `"a"`, true},
		{`{"$defs":{"a":{"type":"string"}},"$ref":"#/$defs/a"}`, Draft2020, `1`, false},
		{`{"definitions":{"a":{"type":"integer"}},"properties":{"n":{"$ref":"#/definitions/a"}}}`, Draft07, `{"n":2.0}`, true},
		{`{"definitions":{"a":{"type":"integer"}},"properties":{"n":{"$ref":"#/definitions/a"}}}`, Draft07, `{"n":1.5}`, false},
		{`{"$defs":{"a~b":{"type":"string"}},"$ref":"#/$defs/a~0b"}`, Draft2020, `"a"`, false}, // escaped pointer: left to the library
		{`{"type":"object","properties":{"a":{"$ref":"#"}}}`, Draft2020, `{"a":{"a":{}}}`, true},
		{`{"type":"object","properties":{"a":{"$ref":"#"}}}`, Draft2020, `{"a":{"a":1}}`, false},
		{`{"type":"object","additionalProperties":false,"properties":{"a":{}}}`, Draft07, `{"a":1,"b":2}`, false},
		{`{"type":"object","properties":{"a":{"const":1}}}`, Draft2020, `{"a":1.0}`, true},
		// An embedded resource claiming the document's own URL does not change what
		// "#/$defs/a" names for the library: the root's definition, as for the nodes.
		{`{"$defs":{"x":{"$id":"https://tool-schema.mcp-conform.invalid/schema.json","$defs":{"a":{"type":"integer"}}},"a":{"type":"string"}},"$ref":"#/$defs/a"}`, Draft2020, `"s"`, true},
		{`{"$defs":{"x":{"$id":"https://tool-schema.mcp-conform.invalid/schema.json","$defs":{"a":{"type":"integer"}}},"a":{"type":"string"}},"$ref":"#/$defs/a"}`, Draft2020, `1`, false},
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, Draft2020, `{"a":1e2}`, true},
	} {
		ts, err := CompileToolSchema(json.RawMessage(tc.schema), tc.dialect)
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		v, err := decodeJSON([]byte(tc.instance))
		if err != nil {
			t.Fatal(err)
		}
		got := provenValid(ts.node(), v, 0)
		if got != tc.want {
			t.Errorf("provenValid(%s, %s) = %v, want %v", tc.schema, tc.instance, got, tc.want)
		}
		if got && ts.schema.Validate(v) != nil {
			t.Errorf("provenValid(%s, %s) contradicts the library", tc.schema, tc.instance)
		}
		if raw := provenValidRaw(ts.node(), []byte(tc.instance), 0); raw != got {
			t.Errorf("provenValidRaw(%s, %s) = %v, provenValid %v", tc.schema, tc.instance, raw, got)
		}
	}
}
