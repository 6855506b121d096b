package revision

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// splitPage is a tools/list result of n tools, padded past minSplitBytes, with the
// tool at index bad (if any) replaced by badTool.
func splitPage(n, bad int, badTool string) string {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		if i == bad {
			b.WriteString(badTool)
			continue
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"a tool listed to pad the page past the split threshold","inputSchema":{"type":"object","properties":{"id":{"type":"integer"}}}}`, i)
	}
	b.WriteString(`],"nextCursor":"c2"}`)
	return b.String()
}

// TestSplitValidationMatchesWhole holds Validate, which validates ListToolsResult
// tool by tool, to the verdict and the error text of validating the whole page at
// once, for every revision, on valid pages and on pages broken in each place.
func TestSplitValidationMatchesWhole(t *testing.T) {
	cases := map[string]string{
		"valid":               splitPage(20, -1, ""),
		"valid, shifted":      `{"tools":[{"name":"new","inputSchema":{"type":"object"}},` + strings.TrimPrefix(splitPage(20, -1, ""), `{"tools":[`),
		"bad tool name":       splitPage(20, 7, `{"name":5,"inputSchema":{"type":"object"}}`),
		"tool not an object":  splitPage(20, 3, `"tool"`),
		"no inputSchema":      splitPage(20, 19, `{"name":"x"}`),
		"two bad tools":       splitPage(20, 0, `{"name":"x","inputSchema":{"type":"objekt"}}`) + ``,
		"tools not an array":  `{"tools":{"a":1},"pad":"` + strings.Repeat("x", 2000) + `"}`,
		"tools null":          `{"tools":null,"pad":"` + strings.Repeat("x", 2000) + `"}`,
		"tools missing":       `{"nextCursor":"` + strings.Repeat("x", 2000) + `"}`,
		"bad cursor":          strings.Replace(splitPage(20, -1, ""), `"nextCursor":"c2"`, `"nextCursor":2`, 1),
		"repeated tools":      `{"tools":[],` + strings.TrimPrefix(splitPage(20, 4, `{"name":1}`), "{"),
		"repeated, valid":     `{"tools":5,` + strings.TrimPrefix(splitPage(20, -1, ""), "{"),
		"not an object":       `[` + splitPage(20, -1, "") + `]`,
		"bad _meta":           strings.Replace(splitPage(20, -1, ""), `{"tools":`, `{"_meta":7,"tools":`, 1),
		"icons":               splitPage(20, 2, `{"name":"i","inputSchema":{"type":"object"},"icons":[{"src":"https://x/i.png"},{"src":5}]}`),
		"icons, valid":        splitPage(20, 2, `{"name":"i","inputSchema":{"type":"object"},"icons":[{"src":"https://x/i.png","pad":"`+strings.Repeat("y", 1100)+`"}]}`),
		"whitespace":          " \n" + strings.ReplaceAll(splitPage(20, -1, ""), ",", " ,\n ") + "\t",
		"invalid JSON":        splitPage(20, -1, "")[:500],
		"annotations invalid": splitPage(20, 9, `{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}`),
	}
	for _, rev := range All() {
		s, err := rev.set()
		if err != nil {
			t.Fatal(err)
		}
		props := s.splitProps("ListToolsResult")
		if len(props) == 0 {
			t.Errorf("%s: ListToolsResult is not split", rev.Name)
		}
		// The split path itself decides the valid pages (not the fallback). A
		// 2026-07-28 result also carries the caching members.
		valid := cases["valid"]
		if rev.Era == Modern {
			valid = strings.Replace(valid, `{"tools":`, `{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":`, 1)
		}
		if err := rev.validate(s, "ListToolsResult", json.RawMessage(valid)); err != nil {
			t.Fatalf("%s: the valid page is not valid: %v", rev.Name, err)
		}
		if !s.validSplit(rev, "ListToolsResult", []byte(valid), props) {
			t.Errorf("%s: a valid page is not shown valid tool by tool", rev.Name)
		}
		if s.validSplit(rev, "ListToolsResult", []byte(cases["bad tool name"]), props) {
			t.Errorf("%s: a page with a bad tool is shown valid tool by tool", rev.Name)
		}
		for name, page := range cases {
			want := rev.validate(s, "ListToolsResult", json.RawMessage(page))
			got := rev.Validate("ListToolsResult", json.RawMessage(page))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %s: split validation says %v, whole validation %v", rev.Name, name, got, want)
			}
		}
	}
}

// TestSplitValidationRandom compares split and whole validation on pages mutated at
// random (members dropped, values retyped, items duplicated), per revision.
func TestSplitValidationRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []string{`5`, `"s"`, `null`, `true`, `{}`, `[]`, `{"type":"object"}`, `[{"src":"x"}]`, `{"title":"t","readOnlyHint":true}`}
	members := []string{"name", "inputSchema", "description", "title", "annotations", "icons", "outputSchema", "_meta", "execution"}
	for _, rev := range All() {
		s, err := rev.set()
		if err != nil {
			t.Fatal(err)
		}
		for range 150 {
			var tools []string
			for i := range 12 {
				obj := map[string]json.RawMessage{
					"name":        json.RawMessage(fmt.Sprintf(`"t%d"`, i)),
					"description": json.RawMessage(`"padding padding padding padding padding padding padding"`),
					"inputSchema": json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`),
				}
				if rng.IntN(6) == 0 {
					obj[members[rng.IntN(len(members))]] = json.RawMessage(values[rng.IntN(len(values))])
				}
				if rng.IntN(10) == 0 {
					delete(obj, members[rng.IntN(3)])
				}
				b, _ := json.Marshal(obj)
				tools = append(tools, string(b))
			}
			page := `{"tools":[` + strings.Join(tools, ",") + `]`
			if rng.IntN(5) == 0 {
				page += `,"nextCursor":` + values[rng.IntN(len(values))]
			}
			page += "}"
			want := rev.validate(s, "ListToolsResult", json.RawMessage(page))
			got := rev.Validate("ListToolsResult", json.RawMessage(page))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: split validation says %v, whole validation %v\n%s", rev.Name, got, want, page)
			}
		}
	}
}

// TestSplitOf: only definitions whose other keywords cannot read the array's items
// are split.
func TestSplitOf(t *testing.T) {
	defs := map[string]any{"X": map[string]any{}}
	mk := func(js string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for js, want := range map[string]int{
		`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/definitions/X"}}},"required":["a"]}`:                                        1,
		`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/definitions/X","description":"d"}}}}`:                                       1,
		`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/definitions/Y"}}}}`:                                                         0, // no such definition
		`{"type":"object","properties":{"a":{"type":"array","minItems":1,"items":{"$ref":"#/definitions/X"}}}}`:                                            0,
		`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/definitions/X","type":"object"}}}}`:                                         0,
		`{"type":"object","allOf":[{}],"properties":{"a":{"type":"array","items":{"$ref":"#/definitions/X"}}}}`:                                            0,
		`{"type":"object","unevaluatedProperties":false,"properties":{"a":{"type":"array","items":{"$ref":"#/definitions/X"}}}}`:                           0,
		`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"$ref":"#/definitions/X"}]}}}}`:                                             0,
		`{"type":"object","properties":{"a":{"items":{"$ref":"#/definitions/X"}}}}`:                                                                        0, // not typed array
		`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/definitions/X"}},"b":{"type":"array","items":{"$ref":"#/definitions/X"}}}}`: 2,
	} {
		if got := len(splitOf(defs, "definitions", mk(js))); got != want {
			t.Errorf("splitOf(%s) = %d members, want %d", js, got, want)
		}
	}
}
