package metakey

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// The key rules of both readings of the reserved prefix.
func TestMetaKeyRules(t *testing.T) {
	r3, r4 := revision.MustLookup("2025-06-18"), revision.MustLookup("2025-11-25")
	tests := []struct {
		key                 string
		valid, resR3, resR4 bool
	}{
		{"progressToken", true, false, false},
		{"", true, false, false},
		{"com.example/", true, false, false},
		{"io.modelcontextprotocol/x", true, false, true},
		{"modelcontextprotocol.io/x", true, true, false},
		{"tools.mcp.com/x", true, true, true},
		{"com.example.mcp/x", true, false, false},
		{"dev.mcp/x", true, false, true},
		{"/x", false, false, false},
		{"a/b/c", false, false, false},
		{"x_", false, false, false},
		{"1abc.de/x", false, false, false},
	}
	for _, tc := range tests {
		if got := Problem(tc.key) == ""; got != tc.valid {
			t.Errorf("Problem(%q) valid = %v, want %v (%s)", tc.key, got, tc.valid, Problem(tc.key))
		}
		if !tc.valid {
			continue
		}
		if got := Reserved(r3, tc.key); got != tc.resR3 {
			t.Errorf("Reserved(2025-06-18, %q) = %v, want %v", tc.key, got, tc.resR3)
		}
		if got := Reserved(r4, tc.key); got != tc.resR4 {
			t.Errorf("Reserved(2025-11-25, %q) = %v, want %v", tc.key, got, tc.resR4)
		}
	}
}

// Find reads the _meta objects of protocol structures, not those inside the
// server's own data, and not a _meta that is no object.
func TestFind(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"b":1,"a":2},"tools":[{"name":"t","_meta":{"x/y":1},
		"inputSchema":{"properties":{"_meta":{"type":"object"}}}}],"structuredContent":{"_meta":{"free":1}},
		"content":[{"type":"text","text":"x","_meta":"not an object"}]}}`
	want := []Found{{Pointer: "/result/_meta", Keys: []string{"a", "b"}}, {Pointer: "/result/tools/0/_meta", Keys: []string{"x/y"}}}
	if got := Find(json.RawMessage(msg)); !reflect.DeepEqual(got, want) {
		t.Errorf("Find = %+v, want %+v", got, want)
	}
	// A key spelled with escapes is the same key: Find skips no value that could
	// hold one.
	escaped := `{"result":{"tools":[{"name":"t","\u005fmeta":{"k":1}},{"name":"u"}]}}`
	want = []Found{{Pointer: "/result/tools/0/_meta", Keys: []string{"k"}}}
	if got := Find(json.RawMessage(escaped)); !reflect.DeepEqual(got, want) {
		t.Errorf("Find(escaped key) = %+v, want %+v", got, want)
	}
	// Of a repeated member the last counts, as in a decoded object, and the
	// objects come in key order.
	repeated := `{"z":{"_meta":{"k":1}},"_meta":{"b":1,"a":2,"b":3},"z":{"_meta":{"j":1}},"c":[{"_meta":{}}]}`
	want = []Found{{Pointer: "/_meta", Keys: []string{"a", "b"}}, {Pointer: "/c/0/_meta", Keys: []string{}}, {Pointer: "/z/_meta", Keys: []string{"j"}}}
	if got := Find(json.RawMessage(repeated)); !reflect.DeepEqual(got, want) {
		t.Errorf("Find(repeated members) = %+v, want %+v", got, want)
	}
}

func TestExtensionIDProblem(t *testing.T) {
	for id, ok := range map[string]bool{"io.modelcontextprotocol/tasks": true, "tasks": false, "com.example/": false, "/x": false} {
		if got := ExtensionIDProblem(id) == ""; got != ok {
			t.Errorf("ExtensionIDProblem(%q) ok = %v, want %v", id, got, ok)
		}
	}
}
