package toolkit

import (
	"encoding/json"
	"hash/maphash"
	"reflect"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
)

// referenceTool is how a listed tool was decoded before the intern table: its
// members copied by encoding/json into a map, and its name.
func referenceTool(rt json.RawMessage) (name string, fields map[string]json.RawMessage) {
	_ = json.Unmarshal(rt, &fields)
	_ = json.Unmarshal(fields["name"], &name)
	return name, fields
}

// asMap is a member list as encoding/json's map would hold it (the last of
// duplicate keys); nil for nil.
func asMap(l rawjson.MemberList) map[string]json.RawMessage {
	if l == nil {
		return nil
	}
	m := map[string]json.RawMessage{}
	for _, mb := range l {
		m[mb.Key] = mb.Value
	}
	return m
}

func TestDecodeToolMatchesEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		`{"name":"a","inputSchema":{"type":"object"}}`,
		`{"name":"a","name":"b"}`,
		`{"name":5}`, `{"name":null}`, `{}`, `"tool"`, `null`, `[1]`, `7`,
		`{"na\u006de":"x\ty","description":"d"}`, `{"name":"\u00e9\ud83d\ude00"}`,
		"{\"name\":\"bad \xff utf-8\"}",
	} {
		var got ToolDef
		decodeToolInto(&got, nil, json.RawMessage(raw))
		wantName, wantFields := referenceTool(json.RawMessage(raw))
		if gotFields := asMap(got.Fields); got.Name != wantName || !reflect.DeepEqual(gotFields, wantFields) || (gotFields == nil) != (wantFields == nil) {
			t.Errorf("decodeToolInto(%s) = %q %q, encoding/json %q %q", raw, got.Name, gotFields, wantName, wantFields)
		}
	}
}

// TestToolTableShares: a definition seen again, in another page or walk, is the same
// decoded tool (one list of members), and a different one is not.
func TestToolTableShares(t *testing.T) {
	tt := &toolTable{seed: maphash.MakeSeed(), first: map[uint64]int32{}}
	a := []json.RawMessage{json.RawMessage(`{"name":"a"}`), json.RawMessage(`{"name":"b"}`)}
	// The same bytes in another buffer, as another reply would carry them.
	b := []json.RawMessage{json.RawMessage(`{"name":"b"}`), json.RawMessage(`{"name":"c"}`)}
	first, second := tt.decode(a), tt.decode(b)
	if second[0].Name != "b" || reflect.ValueOf(second[0].Fields).Pointer() != reflect.ValueOf(first[1].Fields).Pointer() {
		t.Error("the same definition was decoded twice")
	}
	if second[1].Name != "c" || reflect.ValueOf(second[1].Fields).Pointer() == reflect.ValueOf(first[1].Fields).Pointer() {
		t.Error("a different definition shares another's members")
	}
	if len(tt.entries) != 3 {
		t.Errorf("%d entries, want 3", len(tt.entries))
	}
	if tt.decode(nil) != nil {
		t.Error("no items should decode to no tools")
	}
}

// TestToolTableCollisions: definitions whose hashes collide are told apart by their
// bytes.
func TestToolTableCollisions(t *testing.T) {
	tt := &toolTable{seed: maphash.MakeSeed(), first: map[uint64]int32{}}
	x, y := json.RawMessage(`{"name":"x"}`), json.RawMessage(`{"name":"y"}`)
	tt.decode([]json.RawMessage{x})
	// Force y onto x's chain, as a collision would.
	h := maphash.Bytes(tt.seed, y)
	tt.first[h] = 0
	got := tt.decode([]json.RawMessage{y, x})
	if got[0].Name != "y" || got[1].Name != "x" {
		t.Errorf("decoded %q, %q; want y, x", got[0].Name, got[1].Name)
	}
}
