package toolkit

import (
	"encoding/json"
	"hash/maphash"
	"reflect"
	"testing"
)

// referenceTool is how a listed tool was decoded before the intern table: copies
// made by encoding/json.
func referenceTool(rt json.RawMessage) Tool {
	tl := Tool{Raw: rt}
	_ = json.Unmarshal(rt, &tl.Fields)
	_ = json.Unmarshal(tl.Fields["name"], &tl.Name)
	return tl
}

func TestDecodeToolMatchesEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		`{"name":"a","inputSchema":{"type":"object"}}`,
		`{"name":"a","name":"b"}`,
		`{"name":5}`, `{"name":null}`, `{}`, `"tool"`, `null`, `[1]`, `7`,
		`{"na\u006de":"x\ty","description":"d"}`, `{"name":"\u00e9\ud83d\ude00"}`,
		"{\"name\":\"bad \xff utf-8\"}",
	} {
		got, want := decodeTool(json.RawMessage(raw)), referenceTool(json.RawMessage(raw))
		if got.Name != want.Name || !reflect.DeepEqual(got.Fields, want.Fields) || (got.Fields == nil) != (want.Fields == nil) {
			t.Errorf("decodeTool(%s) = %q %q, encoding/json %q %q", raw, got.Name, got.Fields, want.Name, want.Fields)
		}
	}
}

// TestToolTableShares: a definition seen again, in another page or walk, is the same
// decoded tool (one map of members), and a different one is not.
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
