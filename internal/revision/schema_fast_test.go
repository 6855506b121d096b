package revision

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// fastRounds is how many instances each differential test makes per schema; set
// MCPCONFORM_FAST_ROUNDS for a longer search.
func fastRounds(t *testing.T, def int) int {
	if s := os.Getenv("MCPCONFORM_FAST_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("MCPCONFORM_FAST_ROUNDS=%q", s)
		}
		return n
	}
	return def
}

// TestProvenValidNeverContradictsTheLibrary generates instances for every definition
// of every embedded schema, guided by the schema and broken at random, and holds
// provenValid to the library: it may fail to prove a valid instance, but it must
// never call valid one the library rejects. It also shows that the proofs happen:
// most valid instances of the definitions a listing is made of are proven.
func TestProvenValidNeverContradictsTheLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	rounds := fastRounds(t, 12)
	var allValid, allProven int
	for _, name := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		s, err := schemaFor(name, "")
		if err != nil {
			t.Fatal(err)
		}
		defs := make([]string, 0, len(s.defs))
		for d := range s.defs {
			defs = append(defs, d)
		}
		sort.Strings(defs)
		for _, def := range defs {
			node, sch := nodeAndSchema(t, s, def)
			valid, proven := 0, 0
			for range rounds {
				v := roundTrip(t, genInstance(rng, sch, 0))
				b, _ := json.Marshal(v)
				p := provenValid(node, v, 0)
				lib := sch.Validate(v)
				if p && lib != nil {
					t.Fatalf("%s %s: proven valid, but the library says %v\n%s", name, def, lib, b)
				}
				if pr := provenValidRaw(node, b, 0); pr != p {
					t.Fatalf("%s %s: proven valid on the text %v, on the decoded value %v (library: %v)\n%s", name, def, pr, p, lib, b)
				}
				if lib == nil {
					valid++
					if p {
						proven++
					}
				}
			}
			allValid += valid
			allProven += proven
			if def == "Tool" || def == "ListToolsResult" {
				if valid > 0 && proven*2 < valid {
					t.Errorf("%s %s: only %d of %d valid instances proven valid", name, def, proven, valid)
				}
			}
		}
	}
	t.Logf("%d of %d valid instances proven valid", allProven, allValid)
}

// TestProvenValidToolSchemas does the same for tool schemas made up at random from
// the keywords provenValid evaluates and some it does not, under both dialects.
func TestProvenValidToolSchemas(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	rounds := fastRounds(t, 300)
	var proven int
	for range rounds {
		schemaDoc := genSchema(rng, 0)
		raw, _ := json.Marshal(schemaDoc)
		for _, dialect := range []string{Draft07, Draft2020} {
			ts, err := CompileToolSchema(raw, dialect)
			if err != nil {
				continue
			}
			for range 8 {
				v := roundTrip(t, genInstance(rng, ts.schema, 0))
				b, _ := json.Marshal(v)
				p := provenValid(ts.node(), v, 0)
				lib := ts.schema.Validate(v)
				if p && lib != nil {
					t.Fatalf("schema %s (%s): proven valid, but the library says %v\n%s", raw, dialect, lib, b)
				}
				if pr := provenValidRaw(ts.node(), b, 0); pr != p {
					t.Fatalf("schema %s (%s): proven valid on the text %v, on the decoded value %v (library: %v)\n%s", raw, dialect, pr, p, lib, b)
				}
				if p {
					proven++
				}
			}
		}
	}
	if proven == 0 {
		t.Error("no instance of a random tool schema was proven valid")
	}
}

// TestProvenValidCases pins the rules that differ between JSON types.
func TestProvenValidCases(t *testing.T) {
	for _, tc := range []struct {
		schema, instance string
		want             bool
	}{
		{`{"type":"integer"}`, `1.0`, true},
		{`{"type":"integer"}`, `1e2`, true},
		{`{"type":"integer"}`, `1.5`, false},
		{`{"type":"number","minimum":1}`, `0.999`, false},
		{`{"type":"number","maximum":1}`, `1e0`, true},
		{`{"const":1}`, `1.0`, true},
		{`{"enum":[{"a":[1]}]}`, `{"a":[1.0]}`, true},
		{`{"enum":["a"]}`, `"b"`, false},
		{`{"type":"object","additionalProperties":false,"properties":{"a":{}}}`, `{"a":1,"b":2}`, false},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, `{"a":"x"}`, true},
		{`{"type":"object","required":["a"]}`, `{}`, false},
		{`{"anyOf":[{"type":"string"},{"type":"null"}]}`, `null`, true},
		{`{"allOf":[{"type":"string"},{"minLength":2}]}`, `"ab"`, false}, // minLength: not evaluated, so not proven
		{`{"type":"array","items":{"type":"string"},"maxItems":1}`, `["a","b"]`, false},
		{`{"not":{}}`, `1`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, ` { "a" : "x" , "b" : [ 1 ] } `, true},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, `{"\u0061":1}`, false},
		{`{"type":"object","required":["a"]}`, `{"\u0061":1}`, true},
		{`{"type":"integer","minimum":2}`, ` 2.0 `, true},
	} {
		ts, err := CompileToolSchema(json.RawMessage(tc.schema), Draft2020)
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		v, err := decodeJSON([]byte(tc.instance))
		if err != nil {
			t.Fatal(err)
		}
		if got := provenValid(ts.node(), v, 0); got != tc.want {
			t.Errorf("provenValid(%s, %s) = %v, want %v", tc.schema, tc.instance, got, tc.want)
		}
		if got := provenValid(ts.node(), v, 0); got && ts.schema.Validate(v) != nil {
			t.Errorf("provenValid(%s, %s) contradicts the library", tc.schema, tc.instance)
		}
		if got := provenValidRaw(ts.node(), []byte(tc.instance), 0); got != tc.want {
			t.Errorf("provenValidRaw(%s, %s) = %v, want %v", tc.schema, tc.instance, got, tc.want)
		}
	}
}

// TestProvenValidRawRepeatedKey: a repeated key decodes to its last value, which may
// be valid; on the text every value is checked, so it is not proven, and the library
// decides.
func TestProvenValidRawRepeatedKey(t *testing.T) {
	ts, err := CompileToolSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`), Draft2020)
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte(`{"a":1,"a":"x"}`)
	if provenValidRaw(ts.node(), raw, 0) {
		t.Error("a repeated key with an invalid first value was proven valid on the text")
	}
	if err := ts.Validate(json.RawMessage(raw)); err != nil {
		t.Errorf("the library rejects what it decodes as valid: %v", err)
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := decodeJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var genStrings = []string{"", "a", "user", "assistant", "text", "object", "https://example.com/x", "2025-01-01T00:00:00Z", "aGk=", "image/png", "2.0"}

// genScalar is any JSON value, small.
func genScalar(rng *rand.Rand) any {
	switch rng.IntN(8) {
	case 0:
		return nil
	case 1:
		return rng.IntN(2) == 0
	case 2:
		return json.Number([]string{"0", "1", "-1", "1.5", "1e2", "100", "0.5"}[rng.IntN(7)])
	case 3:
		return map[string]any{}
	case 4:
		return []any{}
	case 5:
		return map[string]any{genStrings[rng.IntN(len(genStrings))]: genScalar(rng)}
	default:
		return genStrings[rng.IntN(len(genStrings))]
	}
}

// genInstance makes a value for s: mostly one that follows it, sometimes not.
func genInstance(rng *rand.Rand, s *jsonschema.Schema, depth int) any {
	if depth > 7 || rng.IntN(25) == 0 {
		return genScalar(rng)
	}
	if s.Ref != nil && rng.IntN(5) != 0 {
		return genInstance(rng, s.Ref, depth+1)
	}
	if len(s.AnyOf) > 0 && rng.IntN(5) != 0 {
		return genInstance(rng, s.AnyOf[rng.IntN(len(s.AnyOf))], depth+1)
	}
	if len(s.OneOf) > 0 && rng.IntN(5) != 0 {
		return genInstance(rng, s.OneOf[rng.IntN(len(s.OneOf))], depth+1)
	}
	if len(s.AllOf) > 0 && rng.IntN(2) == 0 {
		return genInstance(rng, s.AllOf[rng.IntN(len(s.AllOf))], depth+1)
	}
	if len(s.Constant) > 0 && rng.IntN(6) != 0 {
		return s.Constant[0]
	}
	if len(s.Enum) > 0 && rng.IntN(6) != 0 {
		return s.Enum[rng.IntN(len(s.Enum))]
	}
	typ := ""
	if len(s.Types) > 0 {
		typ = s.Types[rng.IntN(len(s.Types))]
	} else if len(s.Properties) > 0 || len(s.Required) > 0 {
		typ = "object"
	} else {
		typ = []string{"object", "array", "string", "integer", "number", "boolean", "null"}[rng.IntN(7)]
	}
	switch typ {
	case "object":
		m := map[string]any{}
		for _, r := range s.Required {
			if rng.IntN(12) != 0 {
				if sub, ok := s.Properties[r]; ok {
					m[r] = genInstance(rng, sub, depth+1)
				} else {
					m[r] = genScalar(rng)
				}
			}
		}
		for name, sub := range s.Properties {
			if rng.IntN(3) == 0 {
				m[name] = genInstance(rng, sub, depth+1)
			}
		}
		if rng.IntN(4) == 0 {
			if ap, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
				m["extra"] = genInstance(rng, ap, depth+1)
			} else {
				m["extra"] = genScalar(rng)
			}
		}
		return m
	case "array":
		var items *jsonschema.Schema
		if it, ok := s.Items.(*jsonschema.Schema); ok {
			items = it
		} else if s.Items2020 != nil {
			items = s.Items2020
		}
		n := rng.IntN(3)
		a := make([]any, 0, n)
		for range n {
			if items != nil {
				a = append(a, genInstance(rng, items, depth+1))
			} else {
				a = append(a, genScalar(rng))
			}
		}
		return a
	case "string":
		return genStrings[rng.IntN(len(genStrings))]
	case "integer":
		return json.Number([]string{"0", "1", "2", "-1", "1.0", "100"}[rng.IntN(6)])
	case "number":
		return json.Number([]string{"0", "0.5", "1", "-2.5", "1e2", "0.999"}[rng.IntN(6)])
	case "boolean":
		return rng.IntN(2) == 0
	}
	return nil
}

// genSchema makes up a tool schema from common keywords and a few rarer ones.
func genSchema(rng *rand.Rand, depth int) map[string]any {
	s := map[string]any{}
	types := []string{"object", "array", "string", "integer", "number", "boolean", "null"}
	if rng.IntN(5) != 0 {
		s["type"] = types[rng.IntN(len(types))]
	}
	if depth < 3 {
		switch rng.IntN(12) {
		case 0:
			s["anyOf"] = []any{genSchema(rng, depth+1), genSchema(rng, depth+1)}
		case 1:
			s["allOf"] = []any{genSchema(rng, depth+1)}
		case 2:
			s["oneOf"] = []any{genSchema(rng, depth+1), genSchema(rng, depth+1)}
		case 3:
			s["not"] = genSchema(rng, depth+1)
		case 4:
			s["$ref"] = "#/$defs/d"
			s["$defs"] = map[string]any{"d": genSchema(rng, 3)}
		}
		props := map[string]any{}
		for _, name := range []string{"a", "b", "c"} {
			if rng.IntN(2) == 0 {
				props[name] = genSchema(rng, depth+1)
			}
		}
		if len(props) > 0 {
			s["properties"] = props
		}
		if rng.IntN(3) == 0 {
			s["required"] = []any{"a"}
		}
		switch rng.IntN(4) {
		case 0:
			s["additionalProperties"] = false
		case 1:
			s["additionalProperties"] = genSchema(rng, depth+1)
		}
		if rng.IntN(3) == 0 {
			s["items"] = genSchema(rng, depth+1)
		}
	}
	switch rng.IntN(10) {
	case 0:
		s["enum"] = []any{"a", json.Number("1"), nil}
	case 1:
		s["const"] = json.Number("1")
	case 2:
		s["minimum"] = json.Number("0.5")
	case 3:
		s["maximum"] = json.Number("1")
	case 4:
		s["minLength"] = json.Number("2")
	case 5:
		s["maxItems"] = json.Number("1")
	case 6:
		s["pattern"] = "^a"
	case 7:
		s["uniqueItems"] = true
	case 8:
		s["format"] = "uri"
	}
	if rng.IntN(15) == 0 {
		s[fmt.Sprintf("x-ext-%d", rng.IntN(3))] = true
	}
	return s
}
