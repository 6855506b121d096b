package e2e

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/reports/reportstest"
)

// The JUnit document as the tests read it: only what report.json must agree with.
type junitDoc struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Failure *junitMessage `xml:"failure"`
	Error   *junitMessage `xml:"error"`
	Skipped *junitMessage `xml:"skipped"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
}

// property returns the value of the suite property name, and whether it is there.
func (s *junitSuite) property(name string) (string, bool) {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// status is the verdict a testcase of suite s encodes: a <failure>, <error> or
// <skipped> child, or a pass that its suite's "warn:ID" property makes a warn.
func (c *junitCase) status(s *junitSuite) (reports.Status, error) {
	var found []reports.Status
	if c.Failure != nil {
		found = append(found, reports.Fail)
	}
	if c.Error != nil {
		found = append(found, reports.Error)
	}
	if c.Skipped != nil {
		st := reports.Skip
		if strings.HasPrefix(c.Skipped.Message, "expected-fail") {
			st = reports.ExpectedFail // a baseline's known failure is a skipped case
		}
		found = append(found, st)
	}
	switch {
	case len(found) > 1:
		return "", fmt.Errorf("testcase %q has %d of failure/error/skipped", c.Name, len(found))
	case len(found) == 1:
		return found[0], nil
	}
	id, _, _ := strings.Cut(c.Name, " ")
	if _, warned := s.property("warn:" + id); warned {
		return reports.Warn, nil
	}
	return reports.Pass, nil
}

// loadReports reads report.json from dir (it must parse with reports.ReadJSON),
// checks that junit.xml and matrix.md agree with it, and returns it.
func loadReports(t testing.TB, dir string) *reports.Report {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, reports.JSONFile))
	if err != nil {
		t.Fatalf("report.json: %v", err)
	}
	defer f.Close()
	rep, err := reports.ReadJSON(f)
	if err != nil {
		t.Fatalf("report.json does not parse: %v", err)
	}
	validateReports(t, dir)
	checkSummary(t, rep)
	checkJUnit(t, dir, rep)
	checkMatrix(t, dir, rep)
	checkBadges(t, dir, rep)
	return rep
}

// checkBadges checks the run's badges against report.json: the folder holds exactly
// the summary badge and one per column, and each is byte for byte the badge the
// report renders. report.json does not record that a column's revision is
// unsupported when a check ran there, so a column whose badge says "not supported"
// is taken as such, provided the server negotiated another version.
func checkBadges(t testing.TB, dir string, rep *reports.Report) {
	t.Helper()
	bdir := filepath.Join(dir, reports.BadgeDir)
	entries, err := os.ReadDir(bdir)
	if err != nil {
		t.Fatalf("badges: %v", err)
	}
	var files []string
	svgs := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(bdir, e.Name()))
		if err != nil {
			t.Fatalf("badges: %v", err)
		}
		files = append(files, e.Name())
		svgs[e.Name()] = data
	}
	// A copy: the flag set here is the badge's word, not report.json's.
	cp := *rep
	cp.Revisions = slices.Clone(rep.Revisions)
	rep = &cp
	want := reports.Badges(rep)
	for i, b := range want[1:] {
		rev := &rep.Revisions[i]
		if strings.Contains(string(svgs[b.File]), "<title>MCP "+rev.Revision+": not supported</title>") {
			if rev.Negotiated == rev.Revision {
				t.Errorf("badge %s says not supported, but the server negotiated %s", b.File, rev.Negotiated)
			}
			rev.Unsupported = true
		}
	}
	want = reports.Badges(rep)
	var wantFiles []string
	for _, b := range want {
		wantFiles = append(wantFiles, b.File)
		if got := svgs[b.File]; string(got) != string(b.SVG()) {
			t.Errorf("badge %s is not the report's %q | %q:\n%s", b.File, b.Label, b.Message, got)
		}
	}
	slices.Sort(wantFiles)
	if !slices.Equal(files, wantFiles) {
		t.Errorf("badges %q, want %q", files, wantFiles)
	}
}

// validateReports validates the run's junit.xml against the Jenkins and Ant JUnit
// schemas and its report.json against reports.ReportSchema.
func validateReports(t testing.TB, dir string) {
	t.Helper()
	if data, err := os.ReadFile(filepath.Join(dir, reports.JSONFile)); err != nil {
		t.Errorf("report.json: %v", err)
	} else if err := reportstest.ValidateJSON(data); err != nil {
		t.Error(err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, reports.JUnitFile)); err != nil {
		t.Errorf("junit.xml: %v", err)
	} else if err := reportstest.ValidateJUnit(data); err != nil {
		t.Error(err)
	}
}

// count tallies the verdicts of checks.
func count(checks []reports.CheckResult) reports.Summary {
	var s reports.Summary
	for _, c := range checks {
		s.Add(c.Status)
	}
	return s
}

// checkSummary checks that the summary of report.json counts its checks, that no
// column lists a check twice, and that every status is one of the five verdicts.
func checkSummary(t testing.TB, rep *reports.Report) {
	t.Helper()
	var all []reports.CheckResult
	for _, rev := range rep.Revisions {
		seen := map[string]bool{}
		for _, c := range rev.Checks {
			if !c.Status.Known() {
				t.Errorf("report.json %s %s: unknown status %q", rev.Revision, c.ID, c.Status)
			}
			if seen[c.ID] {
				t.Errorf("report.json %s: check %s listed twice", rev.Revision, c.ID)
			}
			seen[c.ID] = true
		}
		all = append(all, rev.Checks...)
	}
	if got := count(all); got != rep.Summary {
		t.Errorf("report.json summary %+v, but its checks count %+v", rep.Summary, got)
	}
}

// checkJUnit checks junit.xml against report.json: one testsuite per revision in the
// same order, named by the revision and carrying its negotiated version and
// transport; one testcase per check named "ID title" in the same order with the same
// verdict; failure, error and skipped counts equal to report.json's, per suite and in
// all; and every skip with a reason.
func checkJUnit(t testing.TB, dir string, rep *reports.Report) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, reports.JUnitFile))
	if err != nil {
		t.Fatalf("junit.xml: %v", err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v", err)
	}
	// A baseline's stale entries are one more testsuite, "baseline", a failing case each.
	stale := 0
	if rep.Baseline != nil && len(rep.Baseline.Stale) > 0 {
		stale = len(rep.Baseline.Stale)
		if n := len(doc.Suites); n == 0 || doc.Suites[n-1].Name != "baseline" || len(doc.Suites[n-1].Cases) != stale {
			t.Fatalf("junit.xml: want a last testsuite \"baseline\" with %d stale entries", stale)
		}
		doc.Suites = doc.Suites[:len(doc.Suites)-1]
	}
	if len(doc.Suites) != len(rep.Revisions) {
		t.Fatalf("junit.xml has %d testsuites, report.json %d revisions", len(doc.Suites), len(rep.Revisions))
	}
	var tests, failures, errs, skipped int
	for _, s := range doc.Suites {
		tests, failures, errs, skipped = tests+s.Tests, failures+s.Failures, errs+s.Errors, skipped+s.Skipped
	}
	if tests != rep.Summary.Total || failures != rep.Summary.Fail || errs != rep.Summary.Error || skipped != rep.Summary.Skip+rep.Summary.ExpectedFail {
		t.Errorf("junit.xml totals tests=%d failures=%d errors=%d skipped=%d; report.json summary %+v",
			tests, failures, errs, skipped, rep.Summary)
	}
	for i, rev := range rep.Revisions {
		s := &doc.Suites[i]
		if got, _ := s.property("revision"); got != rev.Revision || !strings.HasPrefix(s.Name, rev.Revision+" (") {
			t.Errorf("junit.xml testsuite %d is %q (revision property %q), report.json revision %q", i, s.Name, got, rev.Revision)
			continue
		}
		wantNegotiated := rev.Negotiated
		if wantNegotiated == "" {
			wantNegotiated = "none"
		}
		if got, _ := s.property("negotiated"); got != wantNegotiated {
			t.Errorf("junit.xml %s: negotiated property %q, report.json %q", s.Name, got, rev.Negotiated)
		}
		if got, _ := s.property("transport"); got != rev.Transport {
			t.Errorf("junit.xml %s: transport property %q, report.json %q", s.Name, got, rev.Transport)
		}
		want := count(rev.Checks)
		if s.Tests != want.Total || s.Failures != want.Fail || s.Errors != want.Error || s.Skipped != want.Skip+want.ExpectedFail {
			t.Errorf("junit.xml %s: tests=%d failures=%d errors=%d skipped=%d; report.json counts %+v",
				s.Name, s.Tests, s.Failures, s.Errors, s.Skipped, want)
		}
		if len(s.Cases) != len(rev.Checks) {
			t.Errorf("junit.xml %s: %d testcases, report.json %d checks", s.Name, len(s.Cases), len(rev.Checks))
			continue
		}
		for j, c := range rev.Checks {
			tc := &s.Cases[j]
			if name := c.ID + " " + c.Title; tc.Name != name {
				t.Errorf("junit.xml %s testcase %d is %q, want %q", s.Name, j, tc.Name, name)
			}
			st, err := tc.status(s)
			if err != nil {
				t.Errorf("junit.xml %s: %v", s.Name, err)
			} else if st != c.Status {
				t.Errorf("junit.xml %s %s: %s, report.json %s", s.Name, c.ID, st, c.Status)
			}
			if tc.Skipped != nil && strings.TrimSpace(tc.Skipped.Message) == "" {
				t.Errorf("junit.xml %s %s: skipped without a reason", s.Name, c.ID)
			}
		}
	}
}

// matrixTable is the conformance table of matrix.md, unescaped.
type matrixTable struct {
	heads []string            // the revision columns' heads
	order []string            // check IDs, top to bottom
	rows  map[string][]string // check ID → [title, cell per revision column]
}

// splitRow splits a Markdown table row into its cells, honouring backslash escapes
// (an escaped "|" is part of a cell) and removing them.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	var (
		cells []string
		cell  strings.Builder
	)
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case ch == '\\' && i+1 < len(line):
			i++
			cell.WriteByte(line[i])
		case ch == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(ch)
		}
	}
	if rest := strings.TrimSpace(cell.String()); rest != "" {
		cells = append(cells, rest)
	}
	return cells
}

// parseMatrix finds the table whose head starts "| Check | Title |" in text.
func parseMatrix(text string) (*matrixTable, error) {
	lines := strings.Split(text, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "| Check | Title |") })
	if start < 0 || start+1 >= len(lines) {
		return nil, fmt.Errorf("no \"| Check | Title |\" table")
	}
	head := splitRow(lines[start])
	m := &matrixTable{heads: head[2:], rows: map[string][]string{}}
	if sep := splitRow(lines[start+1]); len(sep) != len(head) {
		return nil, fmt.Errorf("separator row has %d cells, head %d", len(sep), len(head))
	}
	for _, line := range lines[start+2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := splitRow(line)
		if len(cells) != len(head) {
			return nil, fmt.Errorf("row %q has %d cells, head %d", line, len(cells), len(head))
		}
		id := cells[0]
		if _, dup := m.rows[id]; dup {
			return nil, fmt.Errorf("check %s has two rows", id)
		}
		m.order = append(m.order, id)
		m.rows[id] = cells[1:]
	}
	return m, nil
}

// cellStatus reads the verdict word of a matrix cell ("✅ pass", "❌ FAIL",
// "⏭️ skip (reason)", …); absent is true for "—", a check that does not apply.
func cellStatus(cell string) (st reports.Status, absent bool, err error) {
	if cell == "—" {
		return "", true, nil
	}
	for _, f := range strings.Fields(cell) {
		if s := reports.Status(strings.ToLower(f)); s.Known() {
			return s, false, nil
		}
	}
	return "", false, fmt.Errorf("cell %q has no verdict word", cell)
}

// checkMatrix checks matrix.md against report.json: a column per revision in the same
// order whose head names the revision and the negotiated version (or, with none,
// "unsupported" for a column of the other era and "no session" otherwise),
// and a row per check ID (the union over the columns) whose title and cells match
// report.json: the same verdict word, or "—" where the column has no such check.
func checkMatrix(t testing.TB, dir string, rep *reports.Report) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, reports.MatrixFile))
	if err != nil {
		t.Fatalf("matrix.md: %v", err)
	}
	m, err := parseMatrix(string(data))
	if err != nil {
		t.Fatalf("matrix.md: %v\n%s", err, data)
	}
	if len(m.heads) != len(rep.Revisions) {
		t.Fatalf("matrix.md has %d revision columns %q, report.json %d revisions", len(m.heads), m.heads, len(rep.Revisions))
	}
	var ids []string
	titles := map[string]string{}
	for i, rev := range rep.Revisions {
		name, state, _ := strings.Cut(m.heads[i], "<br>")
		if name != rev.Revision {
			t.Errorf("matrix.md column %d is %q, report.json revision %q", i, m.heads[i], rev.Revision)
		}
		switch {
		case rev.Negotiated == "" && state != reports.ColumnState("", rev.Unsupported):
			t.Errorf("matrix.md column %s says %q, want %q", rev.Revision, state, reports.ColumnState("", rev.Unsupported))
		case rev.Negotiated != "" && !strings.HasSuffix(strings.TrimSuffix(state, ")"), " "+rev.Negotiated):
			t.Errorf("matrix.md column %s says %q, want the negotiated version %s", rev.Revision, state, rev.Negotiated)
		}
		for _, c := range rev.Checks {
			if _, ok := titles[c.ID]; !ok {
				titles[c.ID] = c.Title
				ids = append(ids, c.ID)
			}
		}
	}
	if !slices.Equal(m.order, ids) {
		t.Errorf("matrix.md rows %q, report.json check IDs %q", m.order, ids)
	}
	for _, id := range ids {
		row, ok := m.rows[id]
		if !ok {
			continue // reported above
		}
		if row[0] != strings.Join(strings.Fields(titles[id]), " ") {
			t.Errorf("matrix.md %s: title %q, report.json %q", id, row[0], titles[id])
		}
		for i, rev := range rep.Revisions {
			cell := row[1+i]
			st, absent, err := cellStatus(cell)
			if err != nil {
				t.Errorf("matrix.md %s %s: %v", id, rev.Revision, err)
				continue
			}
			j := slices.IndexFunc(rev.Checks, func(c reports.CheckResult) bool { return c.ID == id })
			switch {
			case j < 0 && !absent:
				t.Errorf("matrix.md %s %s: %q, but report.json has no such check there", id, rev.Revision, cell)
			case j >= 0 && absent:
				t.Errorf("matrix.md %s %s: absent, report.json %s", id, rev.Revision, rev.Checks[j].Status)
			case j >= 0 && st != rev.Checks[j].Status:
				t.Errorf("matrix.md %s %s: %q, report.json %s", id, rev.Revision, cell, rev.Checks[j].Status)
			}
		}
	}
}

// assertAllPass checks a run that should be clean: every revision in order, each
// negotiated as asked over transport, at least one check each, every check a pass or a
// skip whose message gives the reason, and exit code 0 recorded.
func assertAllPass(t testing.TB, rep *reports.Report, transport string) {
	t.Helper()
	var got []string
	for _, rev := range rep.Revisions {
		got = append(got, rev.Revision)
		if transport == "sse" && rev.Era == "modern" {
			// 2026-07-28 runs over stdio and Streamable HTTP only: over HTTP+SSE its
			// column is revision-unsupported, every check skipped so.
			for _, c := range rev.Checks {
				if c.Status != reports.Skip || c.Reason != reports.RevisionUnsupported {
					t.Errorf("%s %s over HTTP+SSE: %s %s, want skip revision-unsupported", rev.Revision, c.ID, c.Status, c.Reason)
				}
			}
			continue
		}
		if rev.Negotiated != rev.Revision {
			t.Errorf("%s: negotiated %q, want %q", rev.Revision, rev.Negotiated, rev.Revision)
		}
		if rev.Transport != transport {
			t.Errorf("%s: transport %q, want %q", rev.Revision, rev.Transport, transport)
		}
		if len(rev.Checks) == 0 {
			t.Errorf("%s: no checks ran", rev.Revision)
		}
		for _, c := range rev.Checks {
			switch {
			case c.Status == reports.Pass:
			case c.Status == reports.Skip && strings.TrimSpace(c.Message) != "":
			case c.Status == reports.Skip:
				t.Errorf("%s %s: skipped without a reason", rev.Revision, c.ID)
			default:
				t.Errorf("%s %s (%s): %s: %s", rev.Revision, c.ID, c.Title, c.Status, c.Message)
			}
		}
	}
	if !slices.Equal(got, allRevisions) {
		t.Errorf("revisions %q, want %q", got, allRevisions)
	}
	if rep.Summary.Fail != 0 || rep.Summary.Error != 0 {
		t.Errorf("summary %+v: want no fail and no error", rep.Summary)
	}
	if rep.ExitCode != 0 {
		t.Errorf("report.json exitCode %d, want 0", rep.ExitCode)
	}
}

// assertAllStatus checks that the report has at least one check and that every check
// in every revision has status want.
func assertAllStatus(t testing.TB, rep *reports.Report, want reports.Status) {
	t.Helper()
	if rep.Summary.Total == 0 {
		t.Fatalf("report.json has no checks, want every check %s", want)
	}
	for _, rev := range rep.Revisions {
		for _, c := range rev.Checks {
			if c.Status != want {
				t.Errorf("%s %s: %s (%s), want %s", rev.Revision, c.ID, c.Status, c.Message, want)
			}
		}
	}
}
