package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
)

// Test-side JUnit structs, independent of the writer's.
type tSuites struct {
	XMLName xml.Name   `xml:"testsuites"`
	Attrs   []xml.Attr `xml:",any,attr"`
	Suites  []tSuite   `xml:"testsuite"`
}

type tSuite struct {
	Name       string  `xml:"name,attr"`
	Package    string  `xml:"package,attr"`
	ID         string  `xml:"id,attr"`
	Hostname   string  `xml:"hostname,attr"`
	Tests      int     `xml:"tests,attr"`
	Failures   int     `xml:"failures,attr"`
	Errors     int     `xml:"errors,attr"`
	Skipped    int     `xml:"skipped,attr"`
	Time       string  `xml:"time,attr"`
	Timestamp  string  `xml:"timestamp,attr"`
	Properties []tProp `xml:"properties>property"`
	Cases      []tCase `xml:"testcase"`
	SystemOut  string  `xml:"system-out"`
}

type tProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type tCase struct {
	Name      string     `xml:"name,attr"`
	Classname string     `xml:"classname,attr"`
	Time      string     `xml:"time,attr"`
	Failure   *tProblem  `xml:"failure"`
	Error     *tProblem  `xml:"error"`
	Skipped   *tProblem  `xml:"skipped"`
	Inner     []xml.Name `xml:",any"`
}

type tProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

func props(ps []tProp) map[string]string {
	m := map[string]string{}
	for _, p := range ps {
		m[p.Name] = p.Value
	}
	return m
}

func parseJUnit(t *testing.T, r *Report) (tSuites, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatalf("WriteJUnit: %v", err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, xml.Header) {
		t.Fatalf("output does not start with the XML header: %.80q", out)
	}
	var doc tSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, out)
	}
	return doc, out
}

func TestWriteJUnitCounts(t *testing.T) {
	doc, _ := parseJUnit(t, fixture())
	if len(doc.Attrs) != 0 {
		t.Errorf("testsuites has attributes %v; the Ant schema allows none", doc.Attrs)
	}
	const target = "stdio:./server --flag <x>"
	tests := []struct {
		revision                           string
		tests, failures, errors, skipped   int
		time                               string
		negotiated, transport, unsupported string
		hasUnsupported                     bool
		warnings                           string
	}{
		{"2025-06-18", 5, 1, 1, 1, "6.762", "2025-06-18", "stdio", "", false, "1"},
		{"2024-11-05", 3, 0, 0, 3, "0.000", "2025-03-26", "stdio", "true", true, "0"},
	}
	if len(doc.Suites) != len(tests) {
		t.Fatalf("got %d testsuites, want %d", len(doc.Suites), len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.revision, func(t *testing.T) {
			s := doc.Suites[i]
			name := tt.revision + " (stdio, " + target + ")"
			if s.Name != name || s.Tests != tt.tests || s.Failures != tt.failures || s.Errors != tt.errors || s.Skipped != tt.skipped {
				t.Errorf("suite = %q %d/%d/%d/%d; want %q %d/%d/%d/%d", s.Name, s.Tests, s.Failures, s.Errors, s.Skipped,
					name, tt.tests, tt.failures, tt.errors, tt.skipped)
			}
			if s.ID != fmt.Sprint(i) || s.Hostname == "" || s.Package != "mcp-conform.stdio___server_--flag__x_" {
				t.Errorf("suite id %q hostname %q package %q", s.ID, s.Hostname, s.Package)
			}
			if s.Time != tt.time {
				t.Errorf("suite time = %q, want %q", s.Time, tt.time)
			}
			if s.Timestamp != "2026-03-01T12:30:45" {
				t.Errorf("timestamp = %q", s.Timestamp)
			}
			p := props(s.Properties)
			want := map[string]string{"revision": tt.revision, "negotiated": tt.negotiated, "transport": tt.transport,
				"target": target, "warnings": tt.warnings, "tool": "mcp-conform 0.1.0"}
			for k, v := range want {
				if p[k] != v {
					t.Errorf("property %s = %q, want %q", k, p[k], v)
				}
			}
			if v, ok := p["unsupported"]; ok != tt.hasUnsupported || v != tt.unsupported {
				t.Errorf("property unsupported = %q (present %v), want %q (present %v)", v, ok, tt.unsupported, tt.hasUnsupported)
			}
			if !strings.Contains(s.SystemOut, "note: no --target given") {
				t.Errorf("system-out lacks the run's note: %q", s.SystemOut)
			}
			for _, c := range s.Cases {
				if c.Classname != s.Package+".stdio."+tt.revision {
					t.Errorf("%s: classname %q", c.Name, c.Classname)
				}
			}
		})
	}
}

// Two targets' reports merged stay apart: their suites and classnames differ.
func TestWriteJUnitTargetsDistinct(t *testing.T) {
	a, b := fixture(), fixture()
	b.Target = "http://127.0.0.1:3000/mcp"
	da, _ := parseJUnit(t, a)
	db, _ := parseJUnit(t, b)
	if da.Suites[0].Name == db.Suites[0].Name || da.Suites[0].Cases[0].Classname == db.Suites[0].Cases[0].Classname {
		t.Errorf("two targets share suite %q / classname %q", da.Suites[0].Name, da.Suites[0].Cases[0].Classname)
	}
	if c := db.Suites[0].Cases[0].Classname; strings.Count(c, ".") != 3 {
		t.Errorf("classname %q: the target added package levels", c)
	}
}

func TestWriteJUnitCases(t *testing.T) {
	doc, _ := parseJUnit(t, fixture())
	cases := map[string]tCase{}
	for _, s := range doc.Suites {
		rev, _, _ := strings.Cut(s.Name, " ")
		for _, c := range s.Cases {
			cases[rev+"/"+c.Name] = c
			if len(c.Inner) > 1 {
				t.Errorf("%s: testcase holds %v; both schemas allow at most one element", c.Name, c.Inner)
			}
		}
	}
	tests := []struct {
		key   string
		time  string
		check func(t *testing.T, c tCase)
	}{
		{"2025-06-18/INIT-01 initialize succeeds", "0.012", func(t *testing.T, c tCase) {
			if len(c.Inner) != 0 {
				t.Errorf("a pass holds %v", c.Inner)
			}
		}},
		{"2025-06-18/TOOLS-LIST-01 tools/list | paginates", "0.250", func(t *testing.T, c tCase) {
			if len(c.Inner) != 0 {
				t.Errorf("a warn is a passing testcase, holds %v", c.Inner)
			}
		}},
		{"2025-06-18/TOOLS-CALL-UNKNOWN-01 unknown tool is an error", "1.500", func(t *testing.T, c tCase) {
			if c.Failure == nil {
				t.Fatal("no failure element")
			}
			if c.Failure.Type != "fail" || c.Failure.Message != garbageXML {
				t.Errorf("failure type %q message %q; want fail %q", c.Failure.Type, c.Failure.Message, garbageXML)
			}
			want := garbageXML + "\nexpected: error -32602\nactual: a result <ok> & more\nrequirement: tools: \"Servers MUST return -32602 for unknown tools\""
			if c.Failure.Body != want {
				t.Errorf("failure body = %q, want %q", c.Failure.Body, want)
			}
		}},
		{"2025-06-18/PING-01 ping answers", "5.000", func(t *testing.T, c tCase) {
			if c.Error == nil || c.Failure != nil {
				t.Fatalf("want an error element only: %+v", c)
			}
			if c.Error.Type != "error" || c.Error.Message != "timeout after 5s" {
				t.Errorf("error = %+v", c.Error)
			}
		}},
		{"2025-06-18/PROMPTS-GET-01 prompts/get returns messages", "0.000", func(t *testing.T, c tCase) {
			if c.Skipped == nil || c.Skipped.Message != "needs-fixture: no prompt fixture configured" {
				t.Errorf("skipped = %+v", c.Skipped)
			}
		}},
		{"2024-11-05/SSE-ENDPOINT-01 HTTP+SSE sends the endpoint event", "0.000", func(t *testing.T, c tCase) {
			if c.Skipped == nil || c.Skipped.Message != "revision-unsupported: server answered 2025-03-26" {
				t.Errorf("skipped = %+v", c.Skipped)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			c, ok := cases[tt.key]
			if !ok {
				t.Fatalf("no testcase %q among %d", tt.key, len(cases))
			}
			if c.Time != tt.time {
				t.Errorf("time = %q, want %q", c.Time, tt.time)
			}
			tt.check(t, c)
		})
	}
}

// A warning passes in JUnit but is visible: a warn:ID property of its suite and an
// account in the suite's system-out.
func TestWriteJUnitWarningVisible(t *testing.T) {
	doc, _ := parseJUnit(t, fixture())
	s := doc.Suites[0]
	if got := props(s.Properties)["warn:TOOLS-LIST-01"]; got != "expected nextCursor; got none" {
		t.Errorf("warn property = %q", got)
	}
	for _, want := range []string{"warn: TOOLS-LIST-01 tools/list | paginates", "expected: nextCursor", "actual: none", "requirement: tools: servers SHOULD paginate"} {
		if !strings.Contains(s.SystemOut, want) {
			t.Errorf("system-out %q lacks %q", s.SystemOut, want)
		}
	}
	if strings.Contains(doc.Suites[1].SystemOut, "warn:") {
		t.Errorf("a suite without warnings lists one: %q", doc.Suites[1].SystemOut)
	}
}

// The skip reason is said once even when the message already starts with it.
func TestWriteJUnitSkipReasonOnce(t *testing.T) {
	r := &Report{Revisions: []RevisionReport{{Revision: "2025-06-18", Checks: []CheckResult{
		{ID: "A-01", Status: Skip, Reason: NotExercised, Message: "not-exercised: no tool to call"},
		{ID: "A-02", Status: Skip, Reason: NotExercised, Message: "no tool to call"},
		{ID: "A-03", Status: Skip, Reason: NotExercised},
	}}}}
	doc, _ := parseJUnit(t, r)
	for i, c := range doc.Suites[0].Cases {
		want := "not-exercised: no tool to call"
		if i == 2 {
			want = "not-exercised"
		}
		if c.Skipped == nil || c.Skipped.Message != want {
			t.Errorf("%s: skipped %+v, want %q", c.Name, c.Skipped, want)
		}
	}
}

func TestWriteJUnitHostileText(t *testing.T) {
	r := &Report{Revisions: []RevisionReport{{
		Revision: "2025-06-18",
		Checks: []CheckResult{
			{ID: "X-01", Title: "t\x01itle\uFFFE", Status: Fail, Message: "\x00\x08\x0b\x0c\x1b[31mred\x7f", Actual: "\xc3\x28"},
			{ID: "X-02", Title: "odd", Status: "bogus", Message: "huh"},
			{ID: "X-03", Title: "long", Status: Error, Message: strings.Repeat("é", 5000)},
		},
	}}}
	doc, out := parseJUnit(t, r)
	for _, bad := range []string{"\x00", "\x01", "\x08", "\x0b", "\x1b", "\uFFFE", "\xc3\x28"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	cs := doc.Suites[0].Cases
	if cs[0].Name != "X-01 title" || cs[0].Failure == nil || cs[0].Failure.Message != "[31mred\x7f" {
		t.Errorf("hostile case = %q %+v", cs[0].Name, cs[0].Failure)
	}
	if cs[1].Error == nil || !strings.Contains(cs[1].Error.Message, `unknown status "bogus"`) {
		t.Errorf("an unknown status must be an error, got %+v", cs[1])
	}
	if doc.Suites[0].Errors != 2 || doc.Suites[0].Failures != 1 {
		t.Errorf("errors %d failures %d, want 2 and 1", doc.Suites[0].Errors, doc.Suites[0].Failures)
	}
	if n := len([]rune(cs[2].Error.Message)); n != maxAttrRunes {
		t.Errorf("message attribute has %d runes, want it truncated to %d", n, maxAttrRunes)
	}
	if n := len([]rune(cs[2].Error.Body)); n != 5000 {
		t.Errorf("error body has %d runes, want the whole message", n)
	}
}

func TestWriteJUnitNoSession(t *testing.T) {
	doc, _ := parseJUnit(t, &Report{Revisions: []RevisionReport{{Revision: "2025-11-25"}}})
	if len(doc.Suites) != 1 || props(doc.Suites[0].Properties)["negotiated"] != "none" || doc.Suites[0].Tests != 0 {
		t.Errorf("no-session suite = %+v", doc.Suites)
	}
	if err := WriteJUnit(&bytes.Buffer{}, nil); err == nil {
		t.Error("WriteJUnit(nil) succeeded")
	}
}
