package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// jsonView keeps only the JSON-visible fields of r.
func jsonView(r *Report) Report {
	v := *r
	v.Notes = nil
	v.Revisions = make([]RevisionReport, len(r.Revisions))
	for i, rev := range r.Revisions {
		rev.Unsupported = false
		checks := make([]CheckResult, len(rev.Checks))
		for j, c := range rev.Checks {
			checks[j] = CheckResult{ID: c.ID, Title: c.Title, Level: c.Level, Status: c.Status, Message: c.Message}
		}
		rev.Checks = checks
		v.Revisions[i] = rev
	}
	return v
}

func TestJSONRoundTrip(t *testing.T) {
	orig := fixture()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, orig); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	got, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	want := jsonView(orig)
	// JSON carries text only as valid UTF-8: each bad byte becomes U+FFFD.
	want.Revisions[0].Checks[2].Message = garbageJSON
	gv := jsonView(got)
	if !gv.StartedAt.Equal(want.StartedAt) {
		t.Errorf("startedAt = %v, want %v", gv.StartedAt, want.StartedAt)
	}
	if !reflect.DeepEqual(gv, want) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", gv, want)
	}
	// What ReadJSON infers beyond the contract.
	if !got.Revisions[1].Unsupported || got.Revisions[0].Unsupported {
		t.Errorf("Unsupported = %v, %v; want false, true", got.Revisions[0].Unsupported, got.Revisions[1].Unsupported)
	}
	if r := got.Revisions[1].Checks[0].Reason; r != RevisionUnsupported {
		t.Errorf("reason in the unsupported column = %q", r)
	}
	// Writing the read report again gives the same bytes.
	var again bytes.Buffer
	if err := WriteJSON(&again, got); err != nil {
		t.Fatalf("WriteJSON again: %v", err)
	}
	if again.String() != buf.String() {
		t.Errorf("second write differs:\n%s\n---\n%s", again.String(), buf.String())
	}
}

func sortedKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, raw)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestJSONContract(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, fixture()); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	out := buf.Bytes()
	// The original contract, in its order, then the additions (omitted when empty).
	top := []string{"target", "tool", "startedAt", "durationMs", "revisions", "summary", "exitCode", "notes"}
	if got, want := sortedKeys(t, out), slices.Sorted(slices.Values(top)); !slices.Equal(got, want) {
		t.Errorf("top-level keys = %v, want %v", got, want)
	}
	// Stable order: the struct's.
	last := -1
	for _, k := range top {
		i := bytes.Index(out, []byte(`"`+k+`":`))
		if i <= last {
			t.Errorf("key %q out of order", k)
		}
		last = i
	}
	var doc struct {
		StartedAt string            `json:"startedAt"`
		Revisions []json.RawMessage `json:"revisions"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.StartedAt != "2026-03-01T12:30:45.123Z" {
		t.Errorf("startedAt = %q, want RFC 3339", doc.StartedAt)
	}
	revKeys := []string{"checks", "era", "negotiated", "revision", "serverInfo", "transport"}
	for i, raw := range doc.Revisions {
		if got := sortedKeys(t, raw); !slices.Equal(got, revKeys) {
			t.Errorf("revision %d keys = %v, want %v", i, got, revKeys)
		}
		var rev struct {
			ServerInfo json.RawMessage   `json:"serverInfo"`
			Checks     []json.RawMessage `json:"checks"`
		}
		if err := json.Unmarshal(raw, &rev); err != nil {
			t.Fatal(err)
		}
		// The original five keys always; the additions only when they say something.
		extra := []string{"reason", "source", "expected", "actual", "group", "repro", "exchange"}
		for _, c := range rev.Checks {
			got := sortedKeys(t, c)
			for _, k := range []string{"id", "level", "message", "status", "title"} {
				if !slices.Contains(got, k) {
					t.Errorf("check keys = %v, lack %q", got, k)
				}
			}
			for _, k := range got {
				if !slices.Contains(extra, k) && !slices.Contains([]string{"id", "level", "message", "status", "title"}, k) {
					t.Errorf("check key %q is not in the contract", k)
				}
			}
			var m map[string]any
			_ = json.Unmarshal(c, &m)
			if m["status"] == "skip" && m["reason"] == nil {
				t.Errorf("a skip without its reason field: %s", c)
			}
			if m["status"] == "fail" && (m["expected"] == nil || m["actual"] == nil || m["source"] == nil) {
				t.Errorf("a fail without expected, actual and source: %s", c)
			}
		}
		if i == 1 && string(rev.ServerInfo) != "null" {
			t.Errorf("absent serverInfo = %s, want null", rev.ServerInfo)
		}
	}
	if bytes.Contains(out, []byte(`\u003c`)) {
		t.Error("HTML escaping is on: < written as \\u003c")
	}
}

func TestWriteJSONEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		r    *Report
		want []string // substrings of the output
	}{
		{"nil revisions", &Report{}, []string{`"revisions": []`, `"total": 0`}},
		{"nil checks", &Report{Revisions: []RevisionReport{{Revision: "2025-11-25"}}},
			[]string{`"checks": []`, `"serverInfo": null`, `"negotiated": ""`}},
		{"empty serverInfo", &Report{Revisions: []RevisionReport{{ServerInfo: json.RawMessage{}}}},
			[]string{`"serverInfo": null`}},
		{"garbage serverInfo", &Report{Revisions: []RevisionReport{{ServerInfo: json.RawMessage(`{"name":`)}}},
			[]string{`"serverInfo": "{\"name\":"`}},
		{"stale summary recounted", &Report{Summary: Summary{Total: 9, Pass: 9},
			Revisions: []RevisionReport{{Checks: []CheckResult{{ID: "A", Status: Fail}}}}},
			[]string{`"total": 1`, `"fail": 1`, `"pass": 0`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteJSON(&buf, tt.r); err != nil {
				t.Fatalf("WriteJSON: %v", err)
			}
			if !json.Valid(buf.Bytes()) {
				t.Fatalf("invalid JSON: %s", buf.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("output lacks %s:\n%s", w, buf.String())
				}
			}
		})
	}
	if r := (&Report{Summary: Summary{Total: 9}}); WriteJSON(&bytes.Buffer{}, r) != nil || r.Summary.Total != 9 {
		t.Error("WriteJSON modified the caller's report")
	}
}

func TestReadJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "decode report.json"},
		{"not an object", "[1,2]", "decode report.json"},
		{"trailing data", `{"target":"x"} {}`, "decode report.json"},
		{"wrong type", `{"durationMs":"soon"}`, "decode report.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ReadJSON(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadJSON(%q) error = %v, want one containing %q", tt.in, err, tt.want)
			}
		})
	}
	if _, err := ReadJSON(iotest.ErrReader(iotest.ErrTimeout)); err == nil || !strings.Contains(err.Error(), "read report.json") {
		t.Errorf("read failure error = %v", err)
	}
}

func TestReadJSONKeepsSupportedMismatch(t *testing.T) {
	// A column that answered another version but has verdicts other than skip is not
	// marked unsupported: the flag is inferred only for a column whose checks all skip as revision-unsupported.
	in := `{"revisions":[{"revision":"2025-11-25","negotiated":"2025-06-18","serverInfo":null,"checks":[{"id":"A","status":"pass"}]}]}`
	r, err := ReadJSON(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if r.Revisions[0].Unsupported {
		t.Error("column with a pass marked unsupported")
	}
	if r.Revisions[0].ServerInfo != nil {
		t.Errorf("null serverInfo read as %q, want nil", r.Revisions[0].ServerInfo)
	}
}

// report.json is indented as encoding/json indents: indentTo gives
// json.Indent's bytes for the reports of the fixture and of hostile text, and for
// random values with every kind of JSON text, escapes and empty containers among them.
func TestIndentMatchesEncodingJSON(t *testing.T) {
	compact := func(v any) []byte {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	check := func(name string, src []byte) {
		t.Helper()
		var want bytes.Buffer
		if err := json.Indent(&want, src, "", "  "); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, _ := indentTo(nil, src, nil); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: indented differently:\n%s\nwant:\n%s", name, got, want.Bytes())
		}
		// In pieces, as WriteJSON writes it: the same bytes, across every cut.
		var pieces bytes.Buffer
		flushes := 0
		rest, err := indentTo(nil, src, func(b []byte) error {
			flushes++
			pieces.Write(b)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pieces.Write(rest)
		if !bytes.Equal(pieces.Bytes(), want.Bytes()) {
			t.Errorf("%s: indented in pieces differently", name)
		}
		if want.Len() >= 2*indentChunk && flushes < 2 {
			t.Errorf("%s: %d bytes handed on in %d pieces, want pieces of about %d", name, want.Len(), flushes, indentChunk)
		}
	}
	check("fixture", compact(fixture()))
	check("hostile", compact(hostileReport()))
	strs := []string{"", `"`, `\`, `\"`, "a\"b\\c", "\x00\x1f", "<&>", "é\u2028", "\xff", `{"a":[1,{}]}`, "[]", "{}", ":,"}
	rng := rand.New(rand.NewSource(1))
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.Intn(7); {
		case depth > 4 || k == 0:
			return strs[rng.Intn(len(strs))]
		case k == 1:
			return rng.Float64() * 1e6
		case k == 2:
			return rng.Intn(2) == 0
		case k == 3:
			return nil
		case k == 4:
			return json.RawMessage(`{"raw" : [ 1 , "x" ] }`)
		case k == 5:
			arr := make([]any, rng.Intn(4))
			for i := range arr {
				arr[i] = value(depth + 1)
			}
			return arr
		}
		obj := map[string]any{}
		for range rng.Intn(4) {
			obj[strs[rng.Intn(len(strs))]] = value(depth + 1)
		}
		return obj
	}
	var all []any
	for i := range 2000 {
		v := value(0)
		all = append(all, v)
		check(fmt.Sprintf("random value %d", i), compact(v))
	}
	// Large enough to be handed on in many pieces, cut wherever the chunk fills.
	check("every random value in one array", compact(all))
}
