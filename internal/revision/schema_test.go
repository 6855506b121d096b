package revision

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
)

// schemaRevisions returns every registered revision plus, for embedded schemas of
// revisions not (yet) in the registry, a bare Revision naming them, so that every
// embedded file is exercised.
func schemaRevisions(t testing.TB) []Revision {
	t.Helper()
	revs := All()
	entries, err := fs.ReadDir(schemaFS, "schemas")
	if err != nil {
		t.Fatalf("read embedded schemas: %v", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, ok := Lookup(e.Name()); !ok {
			revs = append(revs, Revision{Name: e.Name(), DefsKeyword: "$defs", Dialect: Draft2020})
		}
	}
	return revs
}

func TestRegistryMatchesEmbeddedSchemas(t *testing.T) {
	for _, r := range All() {
		t.Run(r.Name, func(t *testing.T) {
			raw, err := schemaFS.ReadFile("schemas/" + r.Name + "/schema.json")
			if err != nil {
				t.Fatalf("no embedded schema: %v", err)
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal(raw, &top); err != nil {
				t.Fatal(err)
			}
			var dialect string
			if err := json.Unmarshal(top["$schema"], &dialect); err != nil {
				t.Fatal(err)
			}
			if dialect != r.Dialect {
				t.Errorf("$schema = %q, registry says %q", dialect, r.Dialect)
			}
			if _, ok := top[r.DefsKeyword]; !ok {
				t.Errorf("schema has no %q", r.DefsKeyword)
			}
		})
	}
}

// Every definition of every embedded schema compiles (no remote reference, nothing
// the validator rejects).
func TestEveryDefinitionCompiles(t *testing.T) {
	for _, r := range schemaRevisions(t) {
		t.Run(r.Name, func(t *testing.T) {
			defs := r.Definitions()
			if len(defs) < 70 {
				t.Fatalf("only %d definitions", len(defs))
			}
			s, err := r.set()
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range defs {
				if _, err := s.definition(d); err != nil {
					t.Errorf("%s: %v", d, err)
				}
			}
		})
	}
}

func initResult(rev string) map[string]any {
	return map[string]any{
		"protocolVersion": rev,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
		"serverInfo":      map[string]any{"name": "fixture", "version": "1.0.0"},
	}
}

func TestValidateInitializeResult(t *testing.T) {
	for _, r := range InEra(Legacy) { // 2026-07-28 has no initialize
		t.Run(r.Name, func(t *testing.T) {
			if err := r.Validate("InitializeResult", initResult(r.Name)); err != nil {
				t.Errorf("valid result rejected: %v", err)
			}

			noInfo := initResult(r.Name)
			delete(noInfo, "serverInfo")
			wantProblem(t, r.Validate("InitializeResult", noInfo), "", "serverInfo")

			badFlag := initResult(r.Name)
			badFlag["capabilities"] = map[string]any{"tools": map[string]any{"listChanged": "yes"}}
			wantProblem(t, r.Validate("InitializeResult", badFlag), "/capabilities/tools/listChanged", "boolean")
		})
	}
}

// wantProblem asserts err is a *ValidationError with a problem at pointer whose
// message contains substr.
func wantProblem(t *testing.T, err error, pointer, substr string) *ValidationError {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %T: %v", err, err)
	}
	for _, p := range ve.Problems {
		if p.Pointer == pointer && strings.Contains(p.Message, substr) {
			return ve
		}
	}
	t.Errorf("no problem at %q containing %q in %v", pointer, substr, ve)
	return ve
}

func TestValidate(t *testing.T) {
	const (
		r1 = "2024-11-05"
		r2 = "2025-03-26"
		r3 = "2025-06-18"
		r4 = "2025-11-25"
	)
	audio := `{"content":[{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}]}`
	link := `{"content":[{"type":"resource_link","uri":"file:///a.txt","name":"a.txt"}]}`
	tests := []struct {
		name string
		rev  string
		def  string
		// instance is JSON text when a string, an already-decoded value otherwise.
		instance any
		// pointer and substr describe the expected problem; valid when both empty.
		pointer, substr string
	}{
		{"tool without inputSchema", r3, "ListToolsResult",
			`{"tools":[{"name":"echo"}]}`, "/tools/0", "inputSchema"},
		{"inputSchema type not object", r3, "ListToolsResult",
			`{"tools":[{"name":"echo","inputSchema":{"type":"array"}}]}`, "/tools/0/inputSchema/type", `"object"`},
		{"tool list valid", r1, "ListToolsResult",
			`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"nextCursor":"c2"}`, "", ""},
		{"audio in 2025-03-26", r2, "CallToolResult", audio, "", ""},
		{"audio in 2024-11-05", r1, "CallToolResult", audio, "/content/0/type", `"audio" is not one of`},
		{"resource_link in 2025-06-18", r3, "CallToolResult", link, "", ""},
		{"resource_link in 2025-03-26", r2, "CallToolResult", link, "/content/0/type", `"resource_link"`},
		{"unknown content type names allowed ones", r4, "CallToolResult",
			`{"content":[{"type":"video","data":"AA=="}]}`, "/content/0/type", `"text"`},
		{"known content type, missing member", r3, "CallToolResult",
			`{"content":[{"type":"image","data":"AA=="}]}`, "/content/0", "mimeType"},
		{"content block without type", r3, "CallToolResult",
			`{"content":[{"data":"AA=="}]}`, "/content/0", "no alternative matched"},
		{"embedded blob not a string", r3, "CallToolResult",
			`{"content":[{"type":"resource","resource":{"uri":"a:b","blob":5}}]}`, "/content/0/resource/blob", "string"},
		{"content missing", r1, "CallToolResult", `{"isError":true}`, "", "content"},
		{"structuredContent object", r3, "CallToolResult",
			`{"content":[],"structuredContent":{"n":1}}`, "", ""},
		{"structuredContent array", r3, "CallToolResult",
			`{"content":[],"structuredContent":[1]}`, "/structuredContent", "object"},
		{"icons on tool", r4, "ListToolsResult",
			`{"tools":[{"name":"t","inputSchema":{"type":"object"},"icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]}]}`, "", ""},
		{"icon without src", r4, "ListToolsResult",
			`{"tools":[{"name":"t","inputSchema":{"type":"object"},"icons":[{"mimeType":"image/png"}]}]}`, "/tools/0/icons/0", "src"},
		{"icon theme", r4, "InitializeResult",
			`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1","icons":[{"src":"data:image/png;base64,AA==","theme":"blue"}]}}`,
			"/serverInfo/icons/0/theme", "dark"},
		{"tools list_changed", r3, "ToolListChangedNotification",
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, "", ""},
		{"tools list_changed misspelt", r3, "ToolListChangedNotification",
			`{"jsonrpc":"2.0","method":"notifications/tools/listChanged"}`, "/method", "list_changed"},
		{"server notification union by method", r4, "ServerNotification",
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`, "/params", "progress"},
		{"ping result", r1, "EmptyResult", `{}`, "", ""},
		{"ping result with _meta", r4, "EmptyResult", `{"_meta":{"k":1}}`, "", ""},
		{"ping result not an object", r4, "EmptyResult", `[]`, "", "object"},
		{"big integer id", r3, "JSONRPCResponse",
			`{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}`, "", ""},
		{"huge integer id beyond float64", r3, "JSONRPCResponse",
			`{"jsonrpc":"2.0","id":1e400,"result":{}}`, "", ""},
		{"big fractional id", r3, "JSONRPCResponse",
			`{"jsonrpc":"2.0","id":12345678901234567890.5,"result":{}}`, "/id", "integer"},
		{"error response 2024-11-05", r1, "JSONRPCError",
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`, "", ""},
		{"error response without id 2025-11-25", r4, "JSONRPCErrorResponse",
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse"}}`, "", ""},
		{"error code not integer", r4, "JSONRPCErrorResponse",
			`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`, "/error/code", "integer"},
		{"decoded map", r3, "EmptyResult", map[string]any{"_meta": map[string]any{"n": 1.0}}, "", ""},
		{"struct", r3, "Implementation", struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		}{"s", "1"}, "", ""},
		{"typed map", r3, "Implementation", map[string]string{"name": "s"}, "", "version"},
		{"bytes", r3, "EmptyResult", []byte(`{}`), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := MustLookup(tt.rev)
			inst := tt.instance
			if s, ok := inst.(string); ok {
				inst = json.RawMessage(s)
			}
			err := r.Validate(tt.def, inst)
			if tt.pointer == "" && tt.substr == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			ve := wantProblem(t, err, tt.pointer, tt.substr)
			if ve != nil && (ve.Definition != tt.def || ve.Revision != tt.rev) {
				t.Errorf("Definition/Revision = %q/%q", ve.Definition, ve.Revision)
			}
		})
	}
}

func TestValidatePlainErrors(t *testing.T) {
	r := MustLookup("2025-06-18")
	tests := []struct {
		name, def string
		instance  any
		want      string
	}{
		{"unknown definition", "NoSuchResult", `{}`, "NoSuchResult"},
		{"definition of a later revision", "JSONRPCErrorResponse", `{}`, "JSONRPCErrorResponse"},
		{"not JSON", "EmptyResult", json.RawMessage(`{"a":`), "decode instance"},
		{"trailing data", "EmptyResult", json.RawMessage(`{} {}`), "trailing data"},
		{"empty", "EmptyResult", json.RawMessage(``), "empty"},
		{"unencodable", "EmptyResult", map[string]any{"c": make(chan int)}, "encode instance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Validate(tt.def, tt.instance)
			var ve *ValidationError
			if err == nil || errors.As(err, &ve) {
				t.Fatalf("want a plain error, got %T: %v", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
		})
	}
	if r.HasDefinition("NoSuchResult") || !r.HasDefinition("CallToolResult") {
		t.Error("HasDefinition wrong")
	}
	if (Revision{Name: "1999-01-01"}).HasDefinition("Result") {
		t.Error("HasDefinition true for a revision without schema")
	}
	if err := (Revision{Name: "1999-01-01"}).Validate("Result", `{}`); err == nil {
		t.Error("Validate succeeded for a revision without schema")
	}
}

func TestValidationErrorRendering(t *testing.T) {
	r := MustLookup("2025-06-18")

	err := r.Validate("ListToolsResult", `{"tools":[{"name":"a","inputSchema":{"type":"array"}}]}`)
	// A Go string is a JSON string, not JSON text.
	wantProblem(t, err, "", "object")

	err = r.Validate("ListToolsResult", json.RawMessage(`{"tools":[{"name":"a","inputSchema":{"type":"array"}},{"inputSchema":{"type":"object"}}]}`))
	want := `ListToolsResult (2025-06-18): /tools/0/inputSchema/type: value must be "object"; /tools/1: missing properties: 'name'`
	if err == nil || err.Error() != want {
		t.Errorf("Error() =\n%v\nwant\n%s", err, want)
	}

	err = r.Validate("InitializeResult", json.RawMessage(`{"protocolVersion":"x","capabilities":{}}`))
	if err == nil || !strings.Contains(err.Error(), "(root): missing properties: 'serverInfo'") {
		t.Errorf("root not rendered as (root): %v", err)
	}

	// 30 broken tools: 20 problems kept, sorted with indexes compared numerically.
	var tools []string
	for range 30 {
		tools = append(tools, `{"name":"t"}`)
	}
	err = r.Validate("ListToolsResult", json.RawMessage(`{"tools":[`+strings.Join(tools, ",")+`]}`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %v", err)
	}
	if len(ve.Problems) != MaxProblems || ve.Omitted != 10 {
		t.Errorf("kept %d, omitted %d", len(ve.Problems), ve.Omitted)
	}
	for i, p := range ve.Problems {
		if want := fmt.Sprintf("/tools/%d", i); p.Pointer != want {
			t.Errorf("problem %d at %q, want %q", i, p.Pointer, want)
		}
	}
	if !strings.HasSuffix(ve.Error(), "… and 10 more") {
		t.Errorf("Error() does not count omitted problems: %s", ve.Error())
	}
}

func TestInstancePointerUnescaped(t *testing.T) {
	r := MustLookup("2025-06-18")
	err := r.Validate("CallToolResult", json.RawMessage(`{"content":[],"_meta":{"a b/c~d":1},"isError":"no"}`))
	wantProblem(t, err, "/isError", "boolean")

	err = r.Validate("ListToolsResult", json.RawMessage(`{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a b/c":5}}}]}`))
	wantProblem(t, err, "/tools/0/inputSchema/properties/a b~1c", "object")
}

func TestDefinitionsCompiledOnce(t *testing.T) {
	r := MustLookup("2025-03-26")
	const def = "ListRootsResult" // used by no other test
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if err := r.Validate(def, json.RawMessage(`{"roots":[{"uri":"file:///x"}]}`)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := r.Validate(def, json.RawMessage(`{"roots":[{}]}`)); err == nil {
		t.Error("invalid roots accepted")
	}
	if n := compileCount(r.Name, def); n != 1 {
		t.Errorf("compiled %d times, want 1", n)
	}
}

func TestSchemaLoaderNeverFetches(t *testing.T) {
	c := newOfflineCompiler(func(url string) error { return fmt.Errorf("remote schema not fetched: %s", url) })
	if err := c.AddResource("https://schemas.mcp-conform.invalid/x/schema.json",
		strings.NewReader(`{"$ref":"https://example.invalid/x.json"}`)); err != nil {
		t.Fatal(err)
	}
	_, err := c.Compile("https://schemas.mcp-conform.invalid/x/schema.json")
	if err == nil || !strings.Contains(err.Error(), "remote schema not fetched: https://example.invalid/x.json") {
		t.Errorf("got %v", err)
	}
}

func TestFormatsAreAnnotations(t *testing.T) {
	// format: uri (asserted by default in draft-07) and format: byte are not checked.
	r := MustLookup("2024-11-05")
	err := r.Validate("CallToolResult", json.RawMessage(
		`{"content":[{"type":"image","data":"not base64!","mimeType":"image/png"},{"type":"resource","resource":{"uri":"not a uri","text":"x"}}]}`))
	if err != nil {
		t.Errorf("format asserted: %v", err)
	}
}

func BenchmarkValidateListToolsResult(b *testing.B) {
	r := MustLookup("2025-06-18")
	var tools []string
	for i := range 20 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","title":"Tool %d","description":"does things",`+
			`"inputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]},`+
			`"annotations":{"readOnlyHint":true}}`, i, i))
	}
	raw := json.RawMessage(`{"tools":[` + strings.Join(tools, ",") + `]}`)
	if err := r.Validate("ListToolsResult", raw); err != nil { // compile once, outside the loop
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Validate("ListToolsResult", raw); err != nil {
			b.Fatal(err)
		}
	}
}
