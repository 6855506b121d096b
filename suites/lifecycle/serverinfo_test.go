package lifecycle

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestServerInfoProblem: each way a result can lack an Implementation in _meta
// serverInfo is named, and a well-formed one (escaped member names, a repeated
// member whose last value counts) is not.
func TestServerInfoProblem(t *testing.T) {
	const key = `"io.modelcontextprotocol/serverInfo"`
	tests := []struct {
		result string
		want   string // a substring of the problem; "" for none
	}{
		{`{"_meta":{` + key + `:{"name":"s","version":"1"}},"tools":[]}`, ""},
		{` { "_meta" : { ` + key + ` : { "version" : "1" , "name" : "s" } } } `, ""},
		{`{"_meta":{` + key + `:{"n\u0061me":"s","version":"1"}}}`, ""},
		{`{"_meta":{` + key + `:{"name":1,"version":"1","name":"s"}}}`, ""},
		{`[]`, "the result is not an object"},
		{`"x"`, "the result is not an object"},
		{`{}`, "no _meta object"},
		{`{"_meta":null}`, "no _meta object"},
		{`{"_meta":"x"}`, "no _meta object"},
		{`{"_meta":{}}`, `no _meta["io.modelcontextprotocol/serverInfo"]`},
		{`{"_meta":{` + key + `:null}}`, "not an Implementation"},
		{`{"_meta":{` + key + `:"s"}}`, "not an Implementation"},
		{`{"_meta":{` + key + `:{"name":"s"}}}`, "not an Implementation"},
		{`{"_meta":{` + key + `:{"name":"s","version":null}}}`, "not an Implementation"},
		{`{"_meta":{` + key + `:{"name":"s","version":2}}}`, "not an Implementation"},
		{`{"_meta":{` + key + `:{"name":"s","version":"1","name":1}}}`, "not an Implementation"},
		{`{"_meta":{` + key + `:{"Name":"s","version":"1"}}}`, "not an Implementation"},
	}
	for _, tt := range tests {
		got := serverInfoProblem(json.RawMessage(tt.result))
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("serverInfoProblem(%s) = %q, want %q", tt.result, got, tt.want)
		}
	}
}
