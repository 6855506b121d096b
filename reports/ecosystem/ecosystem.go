// Package ecosystem builds the compatibility matrix across servers: one row per run
// (a report.json written by `mcp-conform`, read through reports.ReadJSON), one column
// per protocol revision, each cell the version the server negotiated there and the
// run's verdict counts, and for every check its verdicts across the rows. The rows
// are sorted by how conformant each run was. It writes the matrix as matrix.md for
// people, matrix.html (one self-contained page, sortable and filterable) and
// matrix.json for scripts, described by the JSON Schema matrix.schema.json.
//
// The runs may come from anywhere: the targets of one `mcp-conform --targets` run,
// CI shards, other machines, other days, other versions of the suite. A file that is
// not a report.json of mcp-conform is named and skipped, never fatal.
package ecosystem

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/reports"
)

// The files Write writes.
const (
	MarkdownFile = "matrix.md"
	HTMLFile     = "matrix.html"
	JSONFile     = "matrix.json"
)

// Run is one run as the matrix reads it.
type Run struct {
	// Name names the row: the name of the directory that holds report.json (an entry
	// of servers.yaml is run into a directory of its name).
	Name string
	// Path is the report.json file.
	Path   string
	Report *reports.Report
}

// Skipped is a file that was not merged, and why.
type Skipped struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
}

// ReadRun reads one report.json into a run named name. A file that does not parse,
// or parses but is not a report.json of mcp-conform (a foreign JSON document), is an
// error that says which.
func ReadRun(name, path string) (Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Run{}, fmt.Errorf("read: %w", err)
	}
	if err := looksLikeReport(data); err != nil {
		return Run{}, err
	}
	rep, err := reports.ReadJSON(strings.NewReader(string(data)))
	if err != nil {
		return Run{}, err
	}
	return Run{Name: name, Path: path, Report: rep}, nil
}

// looksLikeReport tells a report.json of mcp-conform, of any version, from another
// JSON document: an object whose tool names mcp-conform, with a list of revisions
// (each named) and a summary. Reports of other versions may add fields; none of
// these was ever renamed (report.schema.json).
func looksLikeReport(data []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	var tool string
	if err := json.Unmarshal(top["tool"], &tool); err != nil || !strings.HasPrefix(tool, "mcp-conform") {
		return errors.New(`not a report.json of mcp-conform (its "tool" does not name mcp-conform)`)
	}
	for _, key := range []string{"revisions", "summary", "exitCode"} {
		if _, ok := top[key]; !ok {
			return fmt.Errorf("not a report.json of mcp-conform (no %q)", key)
		}
	}
	var revs []struct {
		Revision *string          `json:"revision"`
		Checks   []map[string]any `json:"checks"`
	}
	if err := json.Unmarshal(top["revisions"], &revs); err != nil {
		return fmt.Errorf(`not a report.json of mcp-conform ("revisions" is not a list of columns: %v)`, err)
	}
	for i, r := range revs {
		if r.Revision == nil || *r.Revision == "" {
			return fmt.Errorf("not a report.json of mcp-conform (column %d names no revision)", i+1)
		}
		for _, c := range r.Checks {
			if id, _ := c["id"].(string); id == "" {
				return fmt.Errorf("not a report.json of mcp-conform (a check of %s has no id)", *r.Revision)
			}
		}
	}
	return nil
}

// Load finds the runs under paths: a directory is searched, recursively, for files
// named report.json; any other path is read as a report.json itself. A run is named
// by the directory that holds its file; when two runs would share a name, each is
// named by its directory relative to the path it was found under, and after that by
// its whole path. The same file reached twice is read once. Files that cannot be
// read as a report are returned as skipped; an error means a path could not be
// searched at all.
func Load(paths []string) ([]Run, []Skipped, error) {
	type found struct{ path, rel, arg string }
	var files []found
	seen := map[string]bool{}
	add := func(path, rel, arg string) {
		abs, err := filepath.Abs(path)
		if err != nil {
			abs = path
		}
		if seen[abs] {
			return
		}
		seen[abs] = true
		files = append(files, found{path, rel, arg})
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		if !st.IsDir() {
			add(p, filepath.Base(filepath.Dir(absOr(p))), p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == reports.JSONFile {
				rel, rerr := filepath.Rel(p, filepath.Dir(path))
				if rerr != nil || rel == "." {
					rel = filepath.Base(absOr(filepath.Dir(path)))
				}
				add(path, filepath.ToSlash(rel), p)
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("search %s: %w", p, err)
		}
	}
	var (
		runs    []Run
		skipped []Skipped
	)
	// The short name: the directory's own; then the path under the argument; then
	// the whole path.
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(absOr(filepath.Dir(f.path)))
	}
	names = disambiguate(names, func(i int) string { return underArg(files[i].arg, files[i].rel) })
	names = disambiguate(names, func(i int) string { return filepath.ToSlash(filepath.Dir(files[i].path)) })
	for i, f := range files {
		run, err := ReadRun(names[i], f.path)
		if err != nil {
			skipped = append(skipped, Skipped{Path: f.path, Problem: err.Error()})
			continue
		}
		runs = append(runs, run)
	}
	return runs, skipped, nil
}

// underArg is the name of a run found under arg at rel: rel, prefixed with arg's
// base name when rel alone is a single element.
func underArg(arg, rel string) string {
	if strings.Contains(rel, "/") {
		return rel
	}
	return filepath.Base(absOr(arg)) + "/" + rel
}

// disambiguate replaces every name that occurs more than once with longer(i).
func disambiguate(names []string, longer func(int) string) []string {
	count := map[string]int{}
	for _, n := range names {
		count[n]++
	}
	out := slices.Clone(names)
	for i, n := range names {
		if count[n] > 1 {
			out[i] = longer(i)
		}
	}
	return out
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// The states of a cell: what came of asking the server for the column's revision.
const (
	StateNegotiated  = "negotiated"  // the server answered the revision asked for
	StateUnsupported = "unsupported" // it answered another, or refused the revision's era
	StateNoSession   = "no-session"  // no session could be opened
	StateNotTested   = "not-tested"  // the run did not ask for this revision
)

// grade is a cell's worst verdict, or its state when it has none: what the HTML
// matrix colours (cellClass) and the Markdown matrix marks (mark).
type grade int

const (
	gradeNotTested grade = iota
	gradeUnsupported
	gradeNoSession
	gradeFail // a check failed or errored
	gradeWarn // a warning or an expected failure, and no failure
	gradeSkip // no check passed
	gradePass
)

func cellGrade(c *Cell) grade {
	switch c.State {
	case StateNotTested:
		return gradeNotTested
	case StateUnsupported:
		return gradeUnsupported
	case StateNoSession:
		return gradeNoSession
	}
	switch {
	case c.Summary.Fail > 0 || c.Summary.Error > 0:
		return gradeFail
	case c.Summary.Warn > 0 || c.Summary.ExpectedFail > 0:
		return gradeWarn
	case c.Summary.Pass == 0:
		return gradeSkip
	}
	return gradePass
}

// Matrix is the ecosystem matrix: its JSON form is matrix.json.
type Matrix struct {
	Tool        string    `json:"tool"`
	GeneratedAt time.Time `json:"generatedAt"`
	// Revisions are the columns: every revision any run tested, oldest first.
	Revisions []string `json:"revisions"`
	// Versions are the suite versions the runs were made with (their report's tool).
	Versions []string  `json:"versions"`
	Rows     []Row     `json:"rows"`
	Checks   []Check   `json:"checks"`
	Skipped  []Skipped `json:"skipped"`
}

// Row is one run.
type Row struct {
	Rank   int    `json:"rank"`
	Name   string `json:"name"`
	Target string `json:"target"`
	// Tool is the suite and version that made the run ("mcp-conform 0.1.0").
	Tool       string    `json:"tool"`
	StartedAt  time.Time `json:"startedAt"`
	DurationMs int64     `json:"durationMs"`
	ExitCode   int       `json:"exitCode"`
	// Conformance is the share of judged verdicts that pass (skips are not judged);
	// null when nothing was judged.
	Conformance *float64 `json:"conformance"`
	// Supported counts the columns where the server negotiated the revision.
	Supported int             `json:"supported"`
	Summary   reports.Summary `json:"summary"`
	// Report and HTML are the run's report.json and report.html, relative to the
	// directory the matrix is written into; HTML is empty when there is none.
	Report string   `json:"report"`
	HTML   string   `json:"html"`
	Notes  []string `json:"notes"`
	Cells  []Cell   `json:"cells"` // one per column, in the order of Matrix.Revisions
}

// Cell is one run at one revision.
type Cell struct {
	Revision   string `json:"revision"`
	State      string `json:"state"`
	Negotiated string `json:"negotiated"`
	Transport  string `json:"transport"`
	// Server is the serverInfo's name and version, when given.
	Server  string          `json:"server"`
	Summary reports.Summary `json:"summary"`
}

// Check is one check's row across the runs.
type Check struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Group string `json:"group"`
	// Verdicts has one list per row (in the order of Matrix.Rows), each with one
	// verdict per column (in the order of Matrix.Revisions); null where the check
	// did not run (it does not apply there, or the revision was not tested).
	Verdicts [][]Verdict `json:"verdicts"`
}

// Verdict is a check's status in one cell, or "" (null in JSON) when it did not run.
type Verdict reports.Status

// MarshalJSON writes "" as null.
func (v Verdict) MarshalJSON() ([]byte, error) {
	if v == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(v))
}

// UnmarshalJSON reads null as "".
func (v *Verdict) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*v = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("verdict: %w", err)
	}
	*v = Verdict(s)
	return nil
}

// effective is the verdict counted and shown: one outside the known ones (a later
// suite's, or garbage) is an error, never a pass, as in every per-run report.
func effective(st reports.Status) reports.Status {
	if st.Known() {
		return st
	}
	return reports.Error
}

// Build makes the matrix of runs, whose report files' paths are written relative to
// outDir (the directory the matrix is written into). tool names the suite that
// merges; now is the time it is generated.
func Build(runs []Run, skipped []Skipped, outDir, tool string, now time.Time) *Matrix {
	m := &Matrix{Tool: tool, GeneratedAt: now.UTC(), Revisions: []string{}, Versions: []string{}, Rows: []Row{}, Checks: []Check{}, Skipped: skipped}
	if m.Skipped == nil {
		m.Skipped = []Skipped{}
	}
	revSet := map[string]bool{}
	versions := map[string]bool{}
	for _, r := range runs {
		for _, col := range r.Report.Revisions {
			revSet[col.Revision] = true
		}
		versions[r.Report.Tool] = true
	}
	m.Revisions = sortRevisions(revSet)
	for v := range versions {
		m.Versions = append(m.Versions, v)
	}
	slices.Sort(m.Versions)
	type rowChecks struct {
		row    Row
		checks map[string][]reports.Status // check ID → verdict per column
		titles map[string][2]string        // check ID → title, group
		order  []string
	}
	built := make([]rowChecks, 0, len(runs))
	for _, r := range runs {
		rc := rowChecks{row: newRow(r, m.Revisions, outDir), checks: map[string][]reports.Status{}, titles: map[string][2]string{}}
		for _, col := range r.Report.Revisions {
			ci := slices.Index(m.Revisions, col.Revision)
			for _, c := range col.Checks {
				vs, ok := rc.checks[c.ID]
				if !ok {
					vs = make([]reports.Status, len(m.Revisions))
					rc.checks[c.ID] = vs
					rc.order = append(rc.order, c.ID)
				}
				// The graver verdict when an ID occurs twice in a column, so that a
				// failure is never hidden.
				if st := effective(c.Status); vs[ci] == "" || gravity(st) > gravity(vs[ci]) {
					vs[ci] = st
				}
				if t := rc.titles[c.ID]; t[0] == "" || t[1] == "" {
					rc.titles[c.ID] = [2]string{cmp.Or(t[0], c.Title), cmp.Or(t[1], c.Group)}
				}
			}
		}
		built = append(built, rc)
	}
	slices.SortStableFunc(built, func(a, b rowChecks) int { return compareRows(&a.row, &b.row) })
	checkIndex := map[string]int{}
	for i := range built {
		built[i].row.Rank = i + 1
		m.Rows = append(m.Rows, built[i].row)
		for _, id := range built[i].order {
			if _, ok := checkIndex[id]; !ok {
				checkIndex[id] = len(m.Checks)
				t := built[i].titles[id]
				m.Checks = append(m.Checks, Check{ID: id, Title: t[0], Group: t[1]})
			} else if c := &m.Checks[checkIndex[id]]; c.Title == "" || c.Group == "" {
				t := built[i].titles[id]
				c.Title, c.Group = cmp.Or(c.Title, t[0]), cmp.Or(c.Group, t[1])
			}
		}
	}
	slices.SortStableFunc(m.Checks, func(a, b Check) int { return cmp.Compare(a.ID, b.ID) })
	for ci := range m.Checks {
		c := &m.Checks[ci]
		c.Verdicts = make([][]Verdict, len(built))
		for ri := range built {
			vs := make([]Verdict, len(m.Revisions))
			for col, st := range built[ri].checks[c.ID] {
				vs[col] = Verdict(st)
			}
			c.Verdicts[ri] = vs
		}
	}
	return m
}

// gravity orders verdicts from least to most alarming.
func gravity(st reports.Status) int {
	switch st {
	case reports.Skip:
		return 1
	case reports.Pass:
		return 2
	case reports.Warn, reports.ExpectedFail:
		return 3
	case reports.Fail:
		return 4
	}
	return 5
}

// datedRevision matches the revisions named by date; they sort by it.
var datedRevision = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// sortRevisions returns the revisions oldest first: those named by date in date
// order, then any other name (a later suite's draft) alphabetically.
func sortRevisions(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b string) int {
		da, db := datedRevision.MatchString(a), datedRevision.MatchString(b)
		if da != db {
			if da {
				return -1
			}
			return 1
		}
		return cmp.Compare(a, b)
	})
	return out
}

// newRow reads one run into its row, with a cell for every column.
func newRow(r Run, revs []string, outDir string) Row {
	rep := r.Report
	row := Row{
		Name: r.Name, Target: rep.Target, Tool: rep.Tool, StartedAt: rep.StartedAt.UTC(),
		DurationMs: rep.DurationMs, ExitCode: rep.ExitCode, Notes: rep.Notes,
		Report: relPath(outDir, r.Path), Cells: make([]Cell, len(revs)),
	}
	if row.Notes == nil {
		row.Notes = []string{}
	}
	html := filepath.Join(filepath.Dir(r.Path), reports.HTMLFile)
	if _, err := os.Stat(html); err == nil {
		row.HTML = relPath(outDir, html)
	}
	for i, rev := range revs {
		row.Cells[i] = Cell{Revision: rev, State: StateNotTested}
	}
	for ci := range rep.Revisions {
		col := &rep.Revisions[ci]
		i := slices.Index(revs, col.Revision)
		cell := &row.Cells[i]
		cell.Negotiated, cell.Transport, cell.Server = col.Negotiated, col.Transport, reports.ServerName(col.ServerInfo)
		for _, c := range col.Checks {
			cell.Summary.Add(effective(c.Status))
			row.Summary.Add(effective(c.Status))
		}
		cell.State = cellState(col)
		if cell.State == StateNegotiated {
			row.Supported++
		}
	}
	if judged := judgedCount(row.Summary); judged > 0 {
		share := float64(row.Summary.Pass) / float64(judged)
		row.Conformance = &share
	}
	return row
}

// cellState says what came of asking for the column's revision.
func cellState(col *reports.RevisionReport) string {
	switch {
	case col.Negotiated != "" && col.Negotiated == col.Revision:
		return StateNegotiated
	case col.Negotiated != "" || col.Unsupported:
		return StateUnsupported
	}
	// No session: either no server could be reached, or the revision's era was
	// refused (a legacy server asked for 2026-07-28), which skips every check of
	// the column as revision-unsupported.
	if len(col.Checks) > 0 && !slices.ContainsFunc(col.Checks, func(c reports.CheckResult) bool {
		return c.Status != reports.Skip || c.Reason != reports.RevisionUnsupported
	}) {
		return StateUnsupported
	}
	return StateNoSession
}

// judgedCount is how many verdicts judged the server: all but the skips.
func judgedCount(s reports.Summary) int {
	return s.Pass + s.Warn + s.Fail + s.Error + s.ExpectedFail
}

// compareRows orders rows by conformance: runs that judged anything first; then the
// higher share of passing verdicts; then fewer failing verdicts (fail, error); then
// more revisions supported; then by name and report path, so the order never
// depends on the order the runs were found in.
func compareRows(a, b *Row) int {
	if (a.Conformance == nil) != (b.Conformance == nil) {
		if a.Conformance == nil {
			return 1
		}
		return -1
	}
	if a.Conformance != nil {
		if c := cmp.Compare(*b.Conformance, *a.Conformance); c != 0 {
			return c
		}
	}
	return cmp.Or(
		cmp.Compare(a.Summary.Fail+a.Summary.Error, b.Summary.Fail+b.Summary.Error),
		cmp.Compare(b.Supported, a.Supported),
		cmp.Compare(a.Name, b.Name),
		cmp.Compare(a.Report, b.Report),
	)
}

// relPath is path relative to dir, slash-separated, or path itself (absolute) when
// it has no relative form.
func relPath(dir, path string) string {
	rel, err := filepath.Rel(absOr(dir), absOr(path))
	if err != nil {
		return filepath.ToSlash(absOr(path))
	}
	return filepath.ToSlash(rel)
}
