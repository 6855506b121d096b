package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// corpus is JSON text, valid and not, that the decoders must treat exactly as
// encoding/json does.
var corpus = []string{
	``, ` `, `null`, ` null `, `true`, `false`, `0`, `-1.5e3`, `"x"`, `""`, `[]`, `{}`, ` { } `, `[ ]`,
	`{"a":1}`, `{"a":1,"a":2}`, `{"a" : [1, {"b":"c"}] , "d":null}`,
	`{"na\u006de":"x","name":"y"}`, `{"\u00e9":1}`, "{\"k\xff\":1}", `{"k\"q":"v\\"}`,
	`["a", 1, null, true, {"x":[[]]}, "\ud800", "\u00e9\n"]`, "[\"\xff\xfe\"]",
	`{"tools":[{"name":"t","inputSchema":{"type":"object"}}],"nextCursor":"c"}`,
	`{"tools":null}`, `{"tools":{}}`, `{"name":7}`, `{"name":null}`, `{"name":"a\\b"}`,
	`{"a":"}"}`, `{"a":"\\\\"}`, `{"a":"\\\"}"}`, `[1,2,3`, `{"a":1,}`, `{"a"}`, `{a:1}`, `[1 2]`,
	`{"a":1} x`, `1 2`, `"unterminated`, `{"a":tru}`, `nul`, `{"a":1}{"b":2}`, `[-]`, `01`,
	"{\"a\":\"\x01\"}", `{"a":"\u12"}`, `{"deep":` + strings.Repeat(`[`, 50) + strings.Repeat(`]`, 50) + `}`,
	strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001),
	`{"id":1,"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"héllo"}]}}`,
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	extra := []string{`1.`, `1.e5`, `-`, `-0`, `-01`, `1e`, `1e+`, `1E-7`, `0.5e+10`, `"\u00zz"`, `"\x"`, `"\/"`,
		"\"tab\there\"", `[1,]`, `{"a":1 "b":2}`, `{"a" 1}`, `{,}`, `[,1]`, `truex`, `nulll`, `[true false]`, "\"\x7f\"",
		strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000), strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat(`}`, 10000),
		strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat(`}`, 10001), "\ufeff{}", "{}\x00"}
	for _, in := range append(append([]string(nil), corpus...), extra...) {
		if got, want := Valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("Valid(%.80q) = %v, json.Valid %v", in, got, want)
		}
	}
}

func TestObjectMatchesEncodingJSON(t *testing.T) {
	for _, in := range corpus {
		compareObject(t, []byte(in))
	}
}

func TestArrayMatchesEncodingJSON(t *testing.T) {
	for _, in := range corpus {
		compareArray(t, []byte(in))
	}
}

func TestStringMatchesEncodingJSON(t *testing.T) {
	for _, in := range corpus {
		compareString(t, []byte(in))
	}
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, in := range corpus {
		compareDecode(t, []byte(in))
	}
}

func TestKindOf(t *testing.T) {
	for in, want := range map[string]Kind{
		"": KindNone, "  ": KindNone, "null": KindNull, " true": KindBool, "false": KindBool,
		`"s"`: KindString, "[1]": KindArray, "\n{}": KindObject, "-1": KindNumber, "2": KindNumber,
	} {
		if got := KindOf([]byte(in)); got != want {
			t.Errorf("KindOf(%q) = %s, want %s", in, got, want)
		}
	}
	if KindNone.String() != "absent" || KindBool.String() != "boolean" {
		t.Errorf("kind names: %s, %s", KindNone, KindBool)
	}
}

// TestValuesAlias proves the point of the package: members and items are the
// input's own bytes, not copies.
func TestValuesAlias(t *testing.T) {
	in := []byte(`{"a":{"b":[1,2]},"c":"d"}`)
	m, err := Object(in)
	if err != nil {
		t.Fatal(err)
	}
	a := m["a"]
	if &a[0] != &in[5] {
		t.Fatalf("member a is a copy, not a slice of the input")
	}
	items, err := ArrayOfValid(mustObject(t, a)["b"])
	if err != nil || len(items) != 2 || &items[1][0] != &in[13] {
		t.Fatalf("items %q (%v) are not slices of the input", items, err)
	}
	// A slice's capacity ends with the value, so appending to it cannot overwrite
	// the input.
	if cap(a) != len(a) {
		t.Errorf("cap %d, len %d: an append would write into the input", cap(a), len(a))
	}
}

func TestMembersInOrderAndStops(t *testing.T) {
	in := []byte(`{"b":1,"a":2,"b":3,"c":4}`)
	var keys []string
	ok := Members(in, func(k string, v json.RawMessage) bool {
		keys = append(keys, k+"="+string(v))
		return k != "a" || string(v) != "2" || len(keys) < 2
	})
	if !ok || strings.Join(keys, ",") != "b=1,a=2" {
		t.Fatalf("Members: %v %v", ok, keys)
	}
	if Members([]byte(`[1]`), func(string, json.RawMessage) bool { return true }) {
		t.Error("Members of an array reported true")
	}
}

func TestSpans(t *testing.T) {
	in := []byte(` {"a" : [1, "]"] ,"b":{"c":null}, "d":"x"} `)
	var got []string
	ok := Spans(in, func(k string, start, end int) bool {
		got = append(got, k+"="+string(in[start:end]))
		return true
	})
	if want := `a=[1, "]"],b={"c":null},d="x"`; !ok || strings.Join(got, ",") != want {
		t.Fatalf("Spans: %v %q, want %q", ok, got, want)
	}
	if Spans([]byte(`"x"`), func(string, int, int) bool { return true }) {
		t.Error("Spans of a string reported true")
	}
}

func TestMemberTokensAndArrayItems(t *testing.T) {
	in := []byte(`{"a":1,"b\u0063":[true, {"x":"]"}],"\u00e9":null}`)
	var got []string
	ok := MemberTokens(in, func(key []byte, plain bool, v json.RawMessage) bool {
		k := string(key)
		if !plain {
			k = Key(key)
		}
		got = append(got, fmt.Sprintf("%s(%v)=%s", k, plain, v))
		return true
	})
	if want := `a(true)=1,bc(false)=[true, {"x":"]"}],é(false)=null`; !ok || strings.Join(got, ",") != want {
		t.Fatalf("MemberTokens: %v %q, want %q", ok, strings.Join(got, ","), want)
	}
	var items []string
	ok = ArrayItems([]byte(` [ 1 , "a,b" , [2,3] ] `), func(it json.RawMessage) bool {
		items = append(items, string(it))
		return len(items) < 2
	})
	if !ok || strings.Join(items, "|") != `1|"a,b"` {
		t.Fatalf("ArrayItems: %v %q", ok, items)
	}
	if ArrayItems([]byte(`{}`), func(json.RawMessage) bool { return true }) || !ArrayItems([]byte(`[]`), func(json.RawMessage) bool { return true }) {
		t.Error("ArrayItems on {} or []")
	}
}

func mustObject(t *testing.T, raw []byte) map[string]json.RawMessage {
	t.Helper()
	m, err := ObjectOfValid(raw)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func compareObject(t *testing.T, in []byte) {
	t.Helper()
	var want map[string]json.RawMessage
	werr := json.Unmarshal(in, &want)
	got, gerr := Object(in)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("Object(%q): error %v, encoding/json %v", in, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("Object(%q) = %q, encoding/json %q", in, got, want)
	}
}

func compareArray(t *testing.T, in []byte) {
	t.Helper()
	var want []json.RawMessage
	werr := json.Unmarshal(in, &want)
	got, gerr := Array(in)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("Array(%q): error %v, encoding/json %v", in, gerr, werr)
	}
	if werr == nil && (!reflect.DeepEqual(got, want) || (got == nil) != (want == nil)) {
		t.Fatalf("Array(%q) = %q, encoding/json %q", in, got, want)
	}
}

// AppendArrayOfValid appends what ArrayOfValid returns to what dst holds, and
// leaves dst as it is for null and for a value that is no array.
func TestAppendArrayOfValid(t *testing.T) {
	for _, in := range corpus {
		data := []byte(in)
		if !Valid(data) {
			continue
		}
		dst := []json.RawMessage{json.RawMessage("0")}
		want, werr := ArrayOfValid(data)
		got, gerr := AppendArrayOfValid(dst, data)
		ok := errors.Is(gerr, werr) && len(got) == 1+len(want) && string(got[0]) == "0"
		for i := 0; ok && i < len(want); i++ {
			ok = string(got[1+i]) == string(want[i])
		}
		if !ok {
			t.Fatalf("AppendArrayOfValid(%q) = %q, %v; ArrayOfValid %q, %v", in, got, gerr, want, werr)
		}
	}
}

func compareString(t *testing.T, in []byte) {
	t.Helper()
	var want string
	werr := json.Unmarshal(in, &want)
	got, gerr := String(in)
	if (werr == nil) != (gerr == nil) || got != want {
		t.Fatalf("String(%q) = %q, %v; encoding/json %q, %v", in, got, gerr, want, werr)
	}
}

// referenceDecode is how internal/revision decoded instances before this package: a
// json.Decoder with UseNumber, and nothing but white space after the value.
func referenceDecode(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("empty")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

func compareDecode(t *testing.T, in []byte) {
	t.Helper()
	want, werr := referenceDecode(in)
	got, gerr := Decode(in)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("Decode(%q): error %v, reference %v", in, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%q) = %#v, reference %#v", in, got, want)
	}
}

// FuzzMatchesEncodingJSON holds every decoder to encoding/json on arbitrary input.
func FuzzMatchesEncodingJSON(f *testing.F) {
	for _, in := range corpus {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := Valid(in), json.Valid(in); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", in, got, want)
		}
		compareObject(t, in)
		compareArray(t, in)
		compareString(t, in)
		compareDecode(t, in)
	})
}

func BenchmarkObjectPage(b *testing.B) {
	page := benchPage(100)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		m, _ := Object(page)
		items, _ := ArrayOfValid(m["tools"])
		for _, it := range items {
			_, _ = ObjectOfValid(it)
		}
	}
}

func BenchmarkUnmarshalPage(b *testing.B) {
	page := benchPage(100)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(page, &m)
		var items []json.RawMessage
		_ = json.Unmarshal(m["tools"], &items)
		for _, it := range items {
			var f map[string]json.RawMessage
			_ = json.Unmarshal(it, &f)
		}
	}
}

func BenchmarkValid(b *testing.B) {
	page := benchPage(100)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		Valid(page)
	}
}

func BenchmarkEncodingJSONValid(b *testing.B) {
	page := benchPage(100)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		json.Valid(page)
	}
}

func BenchmarkDecodePage(b *testing.B) {
	page := benchPage(100)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := Decode(page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReferenceDecodePage(b *testing.B) {
	page := benchPage(100)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := referenceDecode(page); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPage is a tools/list result of n tools shaped like the reference server's
// bulk tools.
func benchPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"description":"Bulk tool, listed for the scale benchmark; returns one text block.","inputSchema":{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]},"name":"bulk_`)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(`"}`)
	}
	b.WriteString(`],"nextCursor":"abc"}`)
	return []byte(b.String())
}

func TestLookup(t *testing.T) {
	tests := []struct {
		data, key, want string
		ok              bool
	}{
		{`{"a":1,"b":{"c":2}}`, "b", `{"c":2}`, true},
		{`{"a":1,"a":"last"}`, "a", `"last"`, true},
		{`{"\u0061":3}`, "a", `3`, true},
		{`{"A":1}`, "a", ``, false},
		{`[1]`, "a", ``, false},
		{`{}`, "a", ``, false},
	}
	for _, tt := range tests {
		got, ok := Lookup([]byte(tt.data), tt.key)
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("Lookup(%s, %q) = %s, %v; want %s, %v", tt.data, tt.key, got, ok, tt.want, tt.ok)
		}
	}
}

// AppendMembers's list holds what ObjectOfValid's map holds, for every valid object of the
// corpus (the last of duplicate keys, as in the map), and fails where it fails.
func TestAppendMembersMatchesObjectOfValid(t *testing.T) {
	for _, in := range append(append([]string(nil), corpus...), `{"a":1,"a":2,"b":{"a":3}}`, `{}`, `null`, `[1]`) {
		if !json.Valid([]byte(in)) {
			continue
		}
		m, merr := ObjectOfValid([]byte(in))
		l, _, lerr := AppendMembers(nil, []byte(in))
		if merr != lerr || (m == nil) != (l == nil) {
			t.Errorf("%.60q: AppendMembers = %v, %v; ObjectOfValid = %v, %v", in, l, lerr, m, merr)
			continue
		}
		for k, v := range m {
			if got, ok := l.Lookup(k); !ok || string(got) != string(v) {
				t.Errorf("%.60q: Lookup(%q) = %s, %v; want %s", in, k, got, ok, v)
			}
		}
		for _, mb := range l {
			if _, ok := m[mb.Key]; !ok {
				t.Errorf("%.60q: member %q is not in the map", in, mb.Key)
			}
		}
		if l.Get("no such key") != nil {
			t.Errorf("%.60q: Get of an absent key is not nil", in)
		}
	}
}

// AppendMembers cuts each object's list from one array: the lists are the objects'
// members, an empty object's list is empty but not nil, and an append to one list
// cannot write over the next.
func TestAppendMembersShares(t *testing.T) {
	var buf MemberList
	a, buf, errA := AppendMembers(buf, []byte(`{"x":1,"y":2}`))
	e, buf, errE := AppendMembers(buf, []byte(`{}`))
	n, buf, errN := AppendMembers(buf, []byte(`null`))
	b, buf, errB := AppendMembers(buf, []byte(`{"z":3}`))
	if errA != nil || errE != nil || errN != nil || errB != nil {
		t.Fatalf("errors %v %v %v %v", errA, errE, errN, errB)
	}
	if len(a) != 2 || string(a.Get("y")) != "2" || e == nil || len(e) != 0 || n != nil || string(b.Get("z")) != "3" || len(buf) != 3 {
		t.Fatalf("a %v, empty %v (nil %v), null %v, b %v, buf %d members", a, e, e == nil, n, b, len(buf))
	}
	_ = append(a, Member{Key: "w"})
	if b[0].Key != "z" {
		t.Errorf("an append to the first list overwrote the next: %v", b)
	}
}

// MayHold is false only for a text that cannot hold the key or string: it does not
// spell it out, and holds no escape that could spell one of its characters.
func TestMayHold(t *testing.T) {
	tests := []struct {
		data, s string
		want    bool
	}{
		{`{"_meta":{}}`, "_meta", true},
		{`{"\u005fmeta":{}}`, "_meta", true},
		{`{"text":"a\nb"}`, "_meta", false}, // \n stands for no letter
		{`{"text":"plain"}`, "_meta", false},
		{`{"a/b":1}`, "a/b", true},
		{`{"a\/b":1}`, "a/b", true}, // \/ is a slash
		{`{"x":"\n"}`, "a/b", true}, // any escape, when the text has a slash
		{`{"x":1}`, "a/b", false},
		{`{"x":"\t"}`, "a\tb", true},
		{``, "x", false},
	}
	for _, tt := range tests {
		if got := MayHold([]byte(tt.data), tt.s); got != tt.want {
			t.Errorf("MayHold(%s, %q) = %v, want %v", tt.data, tt.s, got, tt.want)
		}
	}
}
