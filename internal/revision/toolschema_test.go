package revision

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

func TestCompileToolSchema(t *testing.T) {
	tests := []struct {
		name        string
		schema      string
		dflt        string
		wantDialect string
		wantErr     error  // sentinel; nil means it compiles
		wantMsg     string // substring of the error
	}{
		{"2020-12 $defs and local $ref",
			`{"type":"object","properties":{"p":{"$ref":"#/$defs/point"}},"$defs":{"point":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}}}`,
			Draft2020, Draft2020, nil, ""},
		{"draft-07 definitions and local $ref",
			`{"type":"object","properties":{"p":{"$ref":"#/definitions/point"}},"definitions":{"point":{"type":"object","required":["x"]}}}`,
			Draft07, Draft07, nil, ""},
		{"declared draft-07 without #", `{"$schema":"http://json-schema.org/draft-07/schema","type":"object"}`,
			Draft2020, Draft07, nil, ""},
		{"declared draft-07 over https", `{"$schema":"https://json-schema.org/draft-07/schema#","type":"object"}`,
			Draft2020, Draft07, nil, ""},
		{"declared 2020-12 with #", `{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object"}`,
			Draft07, Draft2020, nil, ""},
		{"declared 2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}`,
			Draft07, Draft2019, nil, ""},
		{"declared draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`,
			Draft2020, Draft04, nil, ""},
		{"declared draft-06", `{"$schema":"http://json-schema.org/draft-06/schema#","type":"object"}`,
			Draft2020, Draft06, nil, ""},
		{"anchor ref", `{"$defs":{"a":{"$anchor":"pt","type":"string"}},"properties":{"x":{"$ref":"#pt"}}}`,
			Draft2020, Draft2020, nil, ""},
		{"ref to a meta-schema is built in", `{"$ref":"https://json-schema.org/draft/2020-12/schema"}`,
			Draft2020, Draft2020, nil, ""},
		{"remote $ref", `{"type":"object","properties":{"a":{"$ref":"https://example.invalid/x.json"}}}`,
			Draft2020, "", ErrRemoteRef, "remote $ref not fetched: https://example.invalid/x.json"},
		{"relative $ref", `{"$ref":"other.json#/a"}`, Draft07, "", ErrRemoteRef, `"other.json"`},
		{"remote $ref under $id", `{"$id":"https://example.invalid/root.json","$ref":"sibling.json"}`,
			Draft2020, "", ErrRemoteRef, "https://example.invalid/sibling.json"},
		{"unknown dialect", `{"$schema":"https://example.invalid/my-dialect","type":"object"}`,
			Draft2020, "", ErrUnsupportedDialect, "https://example.invalid/my-dialect"},
		{"unknown default dialect", `{"type":"object"}`, "draft-99", "", ErrUnsupportedDialect, "draft-99"},
		{"$schema not a string", `{"$schema":7}`, Draft2020, "", ErrInvalidSchema, "$schema"},
		{"type objekt", `{"type":"objekt"}`, Draft2020, "", ErrInvalidSchema, "/type"},
		{"type objekt draft-07", `{"type":"objekt"}`, Draft07, "", ErrInvalidSchema, "/type"},
		{"type number", `{"type":5}`, Draft2020, "", ErrInvalidSchema, "/type"},
		{"required string", `{"required":"x"}`, Draft07, "", ErrInvalidSchema, "/required: expected array"},
		{"minimum string", `{"minimum":"a"}`, Draft2020, "", ErrInvalidSchema, "/minimum: expected number"},
		{"nested invalid keyword", `{"properties":{"a":{"type":"strin"}}}`, Draft2020, "", ErrInvalidSchema, "/properties/a/type"},
		{"dangling local $ref", `{"$ref":"#/$defs/nope"}`, Draft2020, "", ErrInvalidSchema, "#/$defs/nope not found"},
		{"null", `null`, Draft2020, "", ErrInvalidSchema, "got null"},
		{"array", `[]`, Draft2020, "", ErrInvalidSchema, "got array"},
		{"boolean", `true`, Draft2020, "", ErrInvalidSchema, "got boolean"},
		{"not JSON", `{"type":`, Draft2020, "", ErrInvalidSchema, ""},
		{"lookahead pattern 2020-12", `{"properties":{"a":{"pattern":"^(?=x)"}}}`, Draft2020, "", ErrRegex, "(?="},
		{"lookahead pattern draft-07", `{"properties":{"a":{"pattern":"^(?=x)"}}}`, Draft07, "", ErrRegex, "(?="},
		{"lookahead patternProperties", `{"patternProperties":{"^(?!x)":{}}}`, Draft2020, "", ErrRegex, ""},
	}
	// The compiler must never fall back to the library's global loader.
	saved := jsonschema.LoadURL
	jsonschema.LoadURL = func(s string) (io.ReadCloser, error) {
		t.Errorf("global loader asked for %s", s)
		return nil, errors.New("no")
	}
	defer func() { jsonschema.LoadURL = saved }()

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := CompileToolSchema(json.RawMessage(tt.schema), tt.dflt)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if ts.Dialect() != tt.wantDialect {
					t.Errorf("Dialect() = %q, want %q", ts.Dialect(), tt.wantDialect)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q lacks %q", err, tt.wantMsg)
			}
			if strings.Contains(err.Error(), "mcp-conform.invalid") {
				t.Errorf("error leaks the synthetic URL: %v", err)
			}
		})
	}
}

func TestToolSchemaValidate(t *testing.T) {
	schema := `{"type":"object","properties":{
		"n":{"type":"integer","minimum":0},
		"tags":{"type":"array","items":{"type":"string"}},
		"p":{"$ref":"#/$defs/point"},
		"email":{"type":"string","format":"email"},
		"blob":{"type":"string","contentEncoding":"base64"}},
		"required":["n"],"additionalProperties":false,
		"$defs":{"point":{"type":"object","required":["x","y"]}}}`
	for _, dialect := range []string{Draft2020, Draft07} {
		ts, err := CompileToolSchema(json.RawMessage(schema), dialect)
		if err != nil {
			t.Fatalf("%s: %v", dialect, err)
		}
		tests := []struct {
			name            string
			instance        any
			pointer, substr string // empty: valid
		}{
			{"valid", json.RawMessage(`{"n":3,"tags":["a"],"p":{"x":1,"y":2}}`), "", ""},
			{"decoded valid", map[string]any{"n": 3.0}, "", ""},
			{"big integer", json.RawMessage(`{"n":123456789012345678901234567890}`), "", ""},
			{"formats not asserted", json.RawMessage(`{"n":1,"email":"nope","blob":"%%%"}`), "", ""},
			{"missing required", json.RawMessage(`{}`), "", "'n'"},
			{"negative", json.RawMessage(`{"n":-1}`), "/n", ">= 0"},
			{"not integer", json.RawMessage(`{"n":1.5}`), "/n", "integer"},
			{"array item", json.RawMessage(`{"n":1,"tags":["a",2]}`), "/tags/1", "string"},
			{"through $ref", json.RawMessage(`{"n":1,"p":{"x":1}}`), "/p", "'y'"},
			{"extra member", json.RawMessage(`{"n":1,"zz":0}`), "", "zz"},
			{"not an object", json.RawMessage(`[1]`), "", "object"},
		}
		for _, tt := range tests {
			t.Run(DialectName(dialect)+"/"+tt.name, func(t *testing.T) {
				err := ts.Validate(tt.instance)
				if tt.pointer == "" && tt.substr == "" {
					if err != nil {
						t.Fatalf("want valid, got %v", err)
					}
					return
				}
				ve := wantProblem(t, err, tt.pointer, tt.substr)
				if ve.Definition != "outputSchema" || ve.Revision != "" {
					t.Errorf("Definition/Revision = %q/%q", ve.Definition, ve.Revision)
				}
			})
		}
	}
	ts, err := CompileToolSchema(json.RawMessage(`{"type":"object"}`), Draft2020)
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Validate(json.RawMessage(`{`)); err == nil || errors.As(err, new(*ValidationError)) {
		t.Errorf("malformed instance: got %v, want a plain error", err)
	}
	if got := ts.Validate(json.RawMessage(`{"a":1}`)); got != nil {
		t.Errorf("got %v", got)
	}
}

func TestCompileAnyDialect(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		want    string
		wantErr []string // substrings; nil means it compiles
	}{
		{"plain", `{"type":"object"}`, Draft2020, nil},
		{"draft-07 only (array items)", `{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"}]}}}`, Draft07, nil},
		{"declared dialect wins", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, Draft04, nil},
		{"declared unknown dialect", `{"$schema":"https://example.invalid/d"}`, "", []string{"unsupported dialect"}},
		{"same failure in both", `{"type":"objekt"}`, "", []string{"2020-12", "same under draft-07"}},
		{"different failures", `{"type":"objekt","items":[true]}`, "", []string{"neither 2020-12", "nor draft-07", "/items"}},
		{"null", `null`, "", []string{"got null"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CompileAnyDialect(json.RawMessage(tt.schema))
			if tt.wantErr == nil {
				if err != nil || got != tt.want {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("compiled as %q", got)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
	if _, err := CompileAnyDialect(json.RawMessage(`{"type":"objekt","items":[true]}`)); !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("sentinel lost: %v", err)
	}
}

func TestDialectName(t *testing.T) {
	for uri, want := range map[string]string{
		Draft07:                                  "draft-07",
		Draft2020:                                "2020-12",
		"http://json-schema.org/draft-07/schema": "draft-07",
		"https://json-schema.org/schema":         "2020-12",
		"https://example.invalid/x":              "https://example.invalid/x",
	} {
		if got := DialectName(uri); got != want {
			t.Errorf("DialectName(%q) = %q, want %q", uri, got, want)
		}
	}
}

func TestCompileToolSchemaBoundsDepthAndSize(t *testing.T) {
	deep := func(n int) json.RawMessage {
		return json.RawMessage(strings.Repeat(`{"type":"object","properties":{"a":`, n) + `{}` + strings.Repeat(`}}`, n))
	}
	tests := []struct {
		name    string
		raw     json.RawMessage
		wantErr bool
		text    string
	}{
		{"moderate nesting compiles", deep(20), false, ""},
		{"4000 levels is too deep", deep(4000), true, "nests 8001 levels"},
		{"brackets inside strings do not count", json.RawMessage(`{"type":"object","description":"` + strings.Repeat("{[", 500) + `"}`), false, ""},
		{"over a mebibyte", json.RawMessage(`{"description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`), true, "bytes, more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileToolSchema(tt.raw, Draft2020)
			if tt.wantErr != errors.Is(err, ErrTooComplex) || (tt.wantErr && !strings.Contains(err.Error(), tt.text)) {
				t.Fatalf("CompileToolSchema = %v; want ErrTooComplex %v containing %q", err, tt.wantErr, tt.text)
			}
			if !tt.wantErr && err != nil {
				t.Fatalf("CompileToolSchema = %v", err)
			}
			_, err = CompileAnyDialect(tt.raw)
			if tt.wantErr != errors.Is(err, ErrTooComplex) {
				t.Fatalf("CompileAnyDialect = %v", err)
			}
		})
	}
}

// A schema is compiled once per distinct bytes and default dialect: the same bytes
// give the same compiled schema, other bytes or another dialect another one.
func TestCompileToolSchemaOncePerBytes(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"once":{"type":"integer"}}}`)
	a, err := CompileToolSchema(raw, Draft2020)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := CompileToolSchema(append(json.RawMessage(nil), raw...), Draft2020)
	c, _ := CompileToolSchema(raw, Draft07)
	d, _ := CompileToolSchema(json.RawMessage(`{"type":"object","properties":{"once":{"type":"string"}}}`), Draft2020)
	if a != b {
		t.Error("the same bytes were compiled twice")
	}
	if a == c || a == d {
		t.Error("another dialect or other bytes shared a compiled schema")
	}
	if err := b.Validate(json.RawMessage(`{"once":"x"}`)); err == nil {
		t.Error("the cached schema accepts what it must reject")
	}
}

// Validating the same bytes twice gives the same answer from the memo, valid or not.
func TestValidateMemoized(t *testing.T) {
	r := MustLookup("2025-06-18")
	good := json.RawMessage(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`)
	bad := json.RawMessage(`{"tools":[{"inputSchema":{"type":"object"}}]}`)
	for i := 0; i < 2; i++ {
		if err := r.Validate("ListToolsResult", good); err != nil {
			t.Errorf("run %d: valid listing rejected: %v", i, err)
		}
		var ve *ValidationError
		if err := r.Validate("ListToolsResult", bad); !errors.As(err, &ve) {
			t.Errorf("run %d: invalid listing: %v, want a *ValidationError", i, err)
		}
	}
}
