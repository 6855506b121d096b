package ecosystem_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/reports/ecosystem"
	"github.com/mcp-conform/mcp-conform/reports/reportstest"
)

var started = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// column is a revision column with checks of the given statuses, in order, named
// CHECK-1, CHECK-2, …
func column(rev, negotiated string, statuses ...reports.Status) reports.RevisionReport {
	col := reports.RevisionReport{Revision: rev, Negotiated: negotiated, Transport: "stdio", ServerInfo: json.RawMessage(`{"name":"srv","version":"1.2"}`)}
	for i, st := range statuses {
		c := reports.CheckResult{ID: "CHECK-" + string(rune('1'+i)), Title: "check " + string(rune('1'+i)), Level: "MUST", Status: st, Group: "BASE"}
		if st == reports.Skip {
			c.Reason = reports.NotApplicable
			if negotiated != rev {
				c.Reason = reports.RevisionUnsupported
			}
		}
		col.Checks = append(col.Checks, c)
	}
	return col
}

func report(exit int, cols ...reports.RevisionReport) *reports.Report {
	return &reports.Report{Target: "./server", Tool: "mcp-conform 1.0.0", Version: "1.0.0", StartedAt: started, DurationMs: 1500, ExitCode: exit, Revisions: cols}
}

// writeRun writes rep's reports into dir/name, as a run does.
func writeRun(t *testing.T, dir, name string, rep *reports.Report) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if _, err := reports.WriteAll(path, rep, nil); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	r1 = "2025-06-18"
	r2 = "2025-11-25"
	r5 = "2026-07-28"
)

// fourRuns writes four runs under dir: clean at two revisions; one failure; one
// revision unsupported and warnings; unreachable (no columns judged).
func fourRuns(t *testing.T, dir string) {
	P, W, F, S := reports.Pass, reports.Warn, reports.Fail, reports.Skip
	writeRun(t, dir, "clean", report(0, column(r1, r1, P, P, P, S), column(r2, r2, P, P, P, S)))
	writeRun(t, dir, "failing", report(1, column(r1, r1, P, F, P, S), column(r2, r2, P, P, P, P)))
	writeRun(t, dir, "old", report(0, column(r1, r1, P, W, P, P), column(r2, r1, S, S, S, S)))
	unreachable := report(4, reports.RevisionReport{Revision: r1, Checks: []reports.CheckResult{}})
	unreachable.Notes = []string{"the target could not be reached: exit status 1"}
	writeRun(t, dir, "down", unreachable)
}

func build(t *testing.T, out string, paths ...string) *ecosystem.Matrix {
	t.Helper()
	runs, skipped, err := ecosystem.Load(paths)
	if err != nil {
		t.Fatal(err)
	}
	return ecosystem.Build(runs, skipped, out, "mcp-conform test", started)
}

func TestBuildSortsByConformance(t *testing.T) {
	dir := t.TempDir()
	fourRuns(t, dir)
	m := build(t, dir, dir)
	var names []string
	for _, r := range m.Rows {
		names = append(names, r.Name)
	}
	// clean 6/6 pass; failing 6/7; old 3/4 (75%); down judged nothing.
	if want := []string{"clean", "failing", "old", "down"}; !slices.Equal(names, want) {
		t.Fatalf("rows %q, want %q", names, want)
	}
	if !slices.Equal(m.Revisions, []string{r1, r2}) {
		t.Errorf("revisions %q", m.Revisions)
	}
	clean, failing, old, down := m.Rows[0], m.Rows[1], m.Rows[2], m.Rows[3]
	if clean.Rank != 1 || down.Rank != 4 {
		t.Errorf("ranks %d, %d", clean.Rank, down.Rank)
	}
	if *failing.Conformance != 6.0/7 || *old.Conformance != 0.75 || down.Conformance != nil {
		t.Errorf("conformance %v %v %v", *failing.Conformance, *old.Conformance, down.Conformance)
	}
	if clean.Supported != 2 || old.Supported != 1 || down.Supported != 0 {
		t.Errorf("supported %d %d %d", clean.Supported, old.Supported, down.Supported)
	}
	wantStates := map[string][]string{
		"clean": {ecosystem.StateNegotiated, ecosystem.StateNegotiated},
		"old":   {ecosystem.StateNegotiated, ecosystem.StateUnsupported},
		"down":  {ecosystem.StateNoSession, ecosystem.StateNotTested},
	}
	for _, r := range m.Rows {
		want, ok := wantStates[r.Name]
		if !ok {
			continue
		}
		var got []string
		for _, c := range r.Cells {
			got = append(got, c.State)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: states %q, want %q", r.Name, got, want)
		}
	}
	if c := failing.Cells[0]; c.Negotiated != r1 || c.Summary.Fail != 1 || c.Summary.Pass != 2 || c.Summary.Skip != 1 || c.Server != "srv 1.2" {
		t.Errorf("failing @ %s: %+v", r1, c)
	}
	if old.Cells[1].Negotiated != r1 {
		t.Errorf("old @ %s answered %q", r2, old.Cells[1].Negotiated)
	}
	if clean.Report != "clean/report.json" || clean.HTML != "clean/report.html" {
		t.Errorf("links %q %q, want relative to the matrix's directory", clean.Report, clean.HTML)
	}
	if len(down.Notes) != 1 || down.ExitCode != 4 {
		t.Errorf("down: %+v", down)
	}
	// CHECK-2 across the runs: pass pass / fail pass / warn skip / nothing.
	i := slices.IndexFunc(m.Checks, func(c ecosystem.Check) bool { return c.ID == "CHECK-2" })
	if i < 0 {
		t.Fatal("no CHECK-2")
	}
	want := [][]ecosystem.Verdict{{"pass", "pass"}, {"fail", "pass"}, {"warn", "skip"}, {"", ""}}
	if got := m.Checks[i].Verdicts; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("CHECK-2 verdicts %q, want %q", got, want)
	}
}

// The order the runs are found in does not change the matrix.
func TestBuildIgnoresInputOrder(t *testing.T) {
	dir := t.TempDir()
	fourRuns(t, dir)
	runs, _, err := ecosystem.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := ecosystem.WriteJSON(&a, ecosystem.Build(runs, nil, dir, "t", started)); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(runs)
	if err := ecosystem.WriteJSON(&b, ecosystem.Build(runs, nil, dir, "t", started)); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("the matrix depends on the order of its runs")
	}
}

// A corrupt or foreign file is named and skipped; the others merge.
func TestLoadSkipsCorruptAndForeign(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "good", report(0, column(r1, r1, reports.Pass)))
	bad := map[string]string{
		"truncated":  `{"target": "x", "tool": "mcp-conform 1", "revisions": [`,
		"foreign":    `{"name": "some-package", "version": "1.0.0"}`,
		"not-object": `[1, 2, 3]`,
		"no-columns": `{"tool": "mcp-conform 1.0", "summary": {}, "exitCode": 0}`,
		"unnamed":    `{"tool": "mcp-conform 1.0", "revisions": [{"checks": []}], "summary": {}, "exitCode": 0}`,
		"other-tool": `{"tool": "jest", "revisions": [], "summary": {}, "exitCode": 0}`,
	}
	for name, doc := range bad {
		p := filepath.Join(dir, name, "report.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, skipped, err := ecosystem.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Name != "good" {
		t.Errorf("runs %v, want good alone", runs)
	}
	if len(skipped) != len(bad) {
		t.Fatalf("skipped %v, want %d", skipped, len(bad))
	}
	for _, s := range skipped {
		if _, ok := bad[filepath.Base(filepath.Dir(s.Path))]; !ok || s.Problem == "" {
			t.Errorf("skipped %+v: want a bad file with its problem", s)
		}
	}
	m := ecosystem.Build(runs, skipped, dir, "t", started)
	var md bytes.Buffer
	if err := ecosystem.WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Skipped "+strings.ReplaceAll(filepath.Join(dir, "foreign", "report.json"), "_", `\_`)) {
		t.Errorf("matrix.md does not name the skipped file:\n%s", md.String())
	}
	if _, _, err := ecosystem.Load([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing path is not an error")
	}
}

// Reports of another suite version merge, the version shown per row; a verdict this
// version does not know counts as an error, never a pass.
func TestMergesOtherVersions(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "new", report(0, column(r1, r1, reports.Pass)))
	old := `{"target": "./old", "tool": "mcp-conform 0.0.9", "startedAt": "2025-01-01T00:00:00Z", "durationMs": 10,
	  "revisions": [{"revision": "2025-06-18", "negotiated": "2025-06-18", "transport": "stdio", "serverInfo": null,
	    "checks": [{"id": "CHECK-1", "title": "t", "level": "MUST", "status": "pass", "message": "", "area": "lifecycle"},
	               {"id": "CHECK-9", "title": "later", "level": "MUST", "status": "flaky", "message": ""}]},
	    {"revision": "2027-01-01", "negotiated": "2027-01-01", "transport": "stdio", "serverInfo": null, "checks": []}],
	  "summary": {"total": 2, "pass": 1, "warn": 0, "fail": 0, "skip": 0, "error": 0}, "exitCode": 0, "futureField": {"x": 1}}`
	if err := os.MkdirAll(filepath.Join(dir, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old", "report.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	m := build(t, dir, dir)
	if !slices.Equal(m.Versions, []string{"mcp-conform 0.0.9", "mcp-conform 1.0.0"}) {
		t.Errorf("versions %q", m.Versions)
	}
	if !slices.Equal(m.Revisions, []string{r1, "2027-01-01"}) {
		t.Errorf("revisions %q", m.Revisions)
	}
	i := slices.IndexFunc(m.Rows, func(r ecosystem.Row) bool { return r.Name == "old" })
	if i < 0 || m.Rows[i].Tool != "mcp-conform 0.0.9" || m.Rows[i].Summary.Error != 1 || m.Rows[i].Summary.Pass != 1 {
		t.Errorf("old row: %+v", m.Rows)
	}
	var js bytes.Buffer
	if err := ecosystem.WriteJSON(&js, m); err != nil {
		t.Fatal(err)
	}
	if err := reportstest.ValidateMatrix(js.Bytes()); err != nil {
		t.Error(err)
	}
}

// Two runs of the same name found under different paths are told apart.
func TestNamesAreUnique(t *testing.T) {
	root := t.TempDir()
	for _, day := range []string{"monday", "tuesday"} {
		writeRun(t, filepath.Join(root, day), "gosdk", report(0, column(r1, r1, reports.Pass)))
	}
	writeRun(t, filepath.Join(root, "tuesday"), "mcpgo", report(0, column(r1, r1, reports.Pass)))
	m := build(t, root, filepath.Join(root, "monday"), filepath.Join(root, "tuesday"), filepath.Join(root, "tuesday", "mcpgo", "report.json"))
	var names []string
	for _, r := range m.Rows {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	if want := []string{"mcpgo", "monday/gosdk", "tuesday/gosdk"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q (the file given twice read once)", names, want)
	}
}

// Every matrix.json written validates against the schema, and the schema refuses
// what breaks the contract.
func TestMatrixValidatesAgainstSchema(t *testing.T) {
	dir := t.TempDir()
	fourRuns(t, dir)
	for name, m := range map[string]*ecosystem.Matrix{
		"four runs": build(t, dir, dir),
		"empty":     ecosystem.Build(nil, nil, dir, "t", started),
	} {
		var b bytes.Buffer
		if err := ecosystem.WriteJSON(&b, m); err != nil {
			t.Fatal(err)
		}
		if err := reportstest.ValidateMatrix(b.Bytes()); err != nil {
			t.Errorf("%s: %v\n%s", name, err, b.String())
		}
		back, err := ecosystem.ReadJSON(&b)
		if err != nil || len(back.Rows) != len(m.Rows) || len(back.Checks) != len(m.Checks) {
			t.Errorf("%s: read back: %v", name, err)
		}
	}
	ok := `{"tool":"t","generatedAt":"2026-01-01T00:00:00Z","revisions":["2025-06-18"],"versions":[],"rows":[],"checks":[],"skipped":[]}`
	if err := reportstest.ValidateMatrix([]byte(ok)); err != nil {
		t.Fatalf("the minimal matrix does not validate: %v", err)
	}
	summary := `{"total":0,"pass":0,"warn":0,"fail":0,"skip":0,"error":0}`
	row := func(cell string) string {
		return `{"tool":"t","generatedAt":"2026-01-01T00:00:00Z","revisions":["2025-06-18"],"versions":[],"checks":[],"skipped":[],"rows":[{"rank":1,"name":"a","target":"","tool":"","startedAt":"2026-01-01T00:00:00Z","durationMs":0,"exitCode":0,"conformance":null,"supported":0,"summary":` + summary + `,"report":"a/report.json","html":"","notes":[],"cells":[` + cell + `]}]}`
	}
	if err := reportstest.ValidateMatrix([]byte(row(`{"revision":"2025-06-18","state":"not-tested","negotiated":"","transport":"","server":"","summary":` + summary + `}`))); err != nil {
		t.Fatalf("a valid row does not validate: %v", err)
	}
	bad := map[string]string{
		"no rows":              strings.Replace(ok, `"rows":[],`, "", 1),
		"bad date":             strings.Replace(ok, "2026-01-01T00:00:00Z", "yesterday", 1),
		"unknown verdict":      strings.Replace(ok, `"checks":[]`, `"checks":[{"id":"A","title":"","group":"","verdicts":[["ok"]]}]`, 1),
		"unknown state":        row(`{"revision":"2025-06-18","state":"maybe","negotiated":"","transport":"","server":"","summary":` + summary + `}`),
		"negotiated, no value": row(`{"revision":"2025-06-18","state":"negotiated","negotiated":"","transport":"","server":"","summary":` + summary + `}`),
		"conformance above 1":  strings.Replace(row(`{"revision":"2025-06-18","state":"not-tested","negotiated":"","transport":"","server":"","summary":`+summary+`}`), `"conformance":null`, `"conformance":1.5`, 1),
	}
	for name, doc := range bad {
		if err := reportstest.ValidateMatrix([]byte(doc)); err == nil {
			t.Errorf("%s: validated", name)
		}
	}
}

// matrix.html is one self-contained page: nothing outside it, server text escaped,
// each run linked to its report.html, the check data readable by its script.
func TestHTMLPage(t *testing.T) {
	dir := t.TempDir()
	fourRuns(t, dir)
	hostile := report(1, column(r1, r1, reports.Fail))
	hostile.Target = `<script>alert(1)</script>`
	hostile.Revisions[0].ServerInfo = json.RawMessage(`{"name":"<img src=x onerror=alert(1)>"}`)
	writeRun(t, dir, "hostile", hostile)
	m := build(t, dir, dir)
	var b bytes.Buffer
	if err := ecosystem.WriteHTML(&b, m); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script>alert", "<img src=x", "http://", "https://"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if !strings.Contains(page, `<a href="clean/report.html">clean</a>`) {
		t.Error("the clean run does not link to its report.html")
	}
	// The runs in rank order.
	ids := regexp.MustCompile(`<tr id="run-([a-z]+)"`).FindAllStringSubmatch(page, -1)
	var order []string
	for _, id := range ids {
		order = append(order, id[1])
	}
	if want := []string{"clean", "failing", "old", "hostile", "down"}; !slices.Equal(order, want) {
		t.Errorf("rows %q, want %q", order, want)
	}
	data := regexp.MustCompile(`(?s)<script type="application/json" id="matrix-data">(.*?)</script>`).FindStringSubmatch(page)
	if data == nil {
		t.Fatal("no check data")
	}
	var parsed struct {
		Revisions []string
		Checks    map[string]struct{ Verdicts []string }
	}
	if err := json.Unmarshal([]byte(data[1]), &parsed); err != nil {
		t.Fatalf("the check data does not parse: %v\n%s", err, data[1])
	}
	if got := parsed.Checks["CHECK-2"].Verdicts; !slices.Equal(got, []string{"pp", "fp", "ws", "..", ".."}) {
		t.Errorf("CHECK-2 in the page: %q", got)
	}
}

func TestWriteAllThree(t *testing.T) {
	dir := t.TempDir()
	fourRuns(t, dir)
	out := filepath.Join(dir, "out")
	paths, err := ecosystem.Write(out, build(t, out, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("wrote %q", paths)
	}
	md, err := os.ReadFile(filepath.Join(out, ecosystem.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 1 | clean | 100.0% | ✅ 2025-06-18 · 3 pass · 0 warn · 0 fail · 1 skip | ✅ 2025-11-25 · 3 pass · 0 warn · 0 fail · 1 skip | 0 | mcp-conform 1.0.0 | [report.html](../clean/report.html) |",
		"| 3 | old | 75.0% | ⚠️ 2025-06-18 · 3 pass · 1 warn · 0 fail · 0 skip | ⏭️ unsupported (answered 2025-06-18) |",
		"| 4 | down | — | 💥 no session | — | 4 |",
		"- **CHECK-2** check 2 — 1 of 4 runs: failing (2025-06-18 fail)",
		"- down: the target could not be reached: exit status 1",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md)
		}
	}
}
