package revision

import (
	"encoding/json"
	"testing"
)

// typicalResults returns, for a revision, the results every run validates first,
// valid as that revision's schema has them: the handshake's (InitializeResult, or
// DiscoverResult in the modern era), a tools listing, two tool calls and an empty
// result.
func typicalResults(r Revision) map[string]json.RawMessage {
	tool := `{"name":"echo","description":"Echoes its input.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`
	tool2 := `{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}},"annotations":{"readOnlyHint":true}}`
	if r.Era == Modern || r.Name == "2026-07-28" {
		return map[string]json.RawMessage{
			"DiscoverResult": json.RawMessage(`{"resultType":"complete","cacheScope":"public","ttlMs":0,"supportedVersions":["2026-07-28"],` +
				`"capabilities":{"tools":{"listChanged":true}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fixture","version":"1.0.0"}}}`),
			"ListToolsResult": json.RawMessage(`{"resultType":"complete","cacheScope":"public","ttlMs":1000,"tools":[` + tool + `,` + tool2 + `]}`),
			"CallToolResult":  json.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"hi"}]}`),
			"EmptyResult":     json.RawMessage(`{"resultType":"complete"}`),
		}
	}
	return map[string]json.RawMessage{
		"InitializeResult": json.RawMessage(`{"protocolVersion":"` + r.Name + `","capabilities":{"tools":{"listChanged":true},"logging":{}},` +
			`"serverInfo":{"name":"fixture","version":"1.0.0"},"instructions":"x"}`),
		"ListToolsResult": json.RawMessage(`{"tools":[` + tool + `,` + tool2 + `]}`),
		"CallToolResult":  json.RawMessage(`{"content":[{"type":"text","text":"hi"}],"isError":false}`),
		"EmptyResult":     json.RawMessage(`{}`),
	}
}

// BenchmarkColdStart measures what a run pays per revision before its first
// verdicts: loading the embedded schema, Warm, and validating the typical results
// once. Each round forgets the loaded schema first.
func BenchmarkColdStart(b *testing.B) {
	for _, r := range All() {
		b.Run(r.Name, func(b *testing.B) {
			results := typicalResults(r)
			for b.Loop() {
				schemaSetsMu.Lock()
				delete(schemaSets, r.Name)
				schemaSetsMu.Unlock()
				r.Warm()
				for def, raw := range results {
					if err := r.Validate(def, raw); err != nil {
						b.Fatalf("%s: %v", def, err)
					}
				}
			}
		})
	}
}

// BenchmarkCompileDefinition measures the compile an instance that is not proven
// valid costs (definition): CallToolResult from its closure, as a run compiles it,
// beside the whole document, which the library validates against its meta-schema
// in full.
func BenchmarkCompileDefinition(b *testing.B) {
	for _, r := range All() {
		s, err := r.set()
		if err != nil {
			b.Fatal(err)
		}
		whole, err := s.document()
		if err != nil {
			b.Fatal(err)
		}
		ref := s.url + "#/" + s.defsKeyword + "/CallToolResult"
		for _, from := range []struct {
			name string
			doc  func() []byte
		}{
			{"closure", func() []byte { doc, _ := s.closureDoc("CallToolResult"); return doc }},
			{"whole", func() []byte { return whole }},
		} {
			b.Run(r.Name+"/"+from.name, func(b *testing.B) {
				for b.Loop() {
					c, err := s.newCompiler(from.doc())
					if err != nil {
						b.Fatal(err)
					}
					if _, err := compileDefinition(c, ref, s.name, "CallToolResult"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
