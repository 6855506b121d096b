package ecosystem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-conform/mcp-conform/reports"
)

// md is reports.MarkdownText: one line of literal text, safe in a table cell.
func md(s string) string { return reports.MarkdownText(s) }

// orDash is s, or a dash when s is empty.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Percent renders a conformance share, or a dash when nothing was judged.
func Percent(share *float64) string {
	if share == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", *share*100)
}

// linkPath escapes a slash-separated relative path for a Markdown or HTML link.
func linkPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// counts renders a summary's pass/warn/fail/skip counts, and errors and
// expected-fails when there are any.
func counts(s reports.Summary) string {
	out := fmt.Sprintf("%d pass · %d warn · %d fail · %d skip", s.Pass, s.Warn, s.Fail, s.Skip)
	if s.Error > 0 {
		out += fmt.Sprintf(" · %d error", s.Error)
	}
	if s.ExpectedFail > 0 {
		out += fmt.Sprintf(" · %d expected-fail", s.ExpectedFail)
	}
	return out
}

// mark is a cell's scanning symbol: its worst verdict, or its state.
func mark(c *Cell) string {
	return [...]string{
		gradeNotTested: "—", gradeUnsupported: "⏭️", gradeNoSession: "💥",
		gradeFail: "❌", gradeWarn: "⚠️", gradeSkip: "⏭️", gradePass: "✅",
	}[cellGrade(c)]
}

// stateText says what came of the column's revision in one cell.
func stateText(c *Cell) string {
	switch c.State {
	case StateNotTested:
		return "not tested"
	case StateUnsupported:
		if c.Negotiated != "" {
			return "unsupported (answered " + c.Negotiated + ")"
		}
		return "unsupported"
	case StateNoSession:
		return "no session"
	}
	return c.Negotiated
}

// WriteMarkdown writes m as matrix.md: the runs down, sorted by conformance, the
// revisions across, each cell the negotiated version and the verdict counts, each
// row linking to its run's report.html; then every check that fails or errors on
// some run, with where.
func WriteMarkdown(w io.Writer, m *Matrix) error {
	if m == nil {
		return errors.New("ecosystem: write matrix.md: nil matrix")
	}
	var b bytes.Buffer
	b.WriteString("# mcp-conform ecosystem matrix\n\n")
	fmt.Fprintf(&b, "%d runs × %d revisions, sorted by conformance: the share of judged verdicts (all but skips) that pass, highest first.\n\n", len(m.Rows), len(m.Revisions))
	fmt.Fprintf(&b, "- Generated: %s by %s\n", m.GeneratedAt.UTC().Format("2006-01-02 15:04:05 UTC"), md(m.Tool))
	vs := make([]string, len(m.Versions))
	for i, v := range m.Versions {
		vs[i] = md(v)
	}
	fmt.Fprintf(&b, "- Suite versions: %s\n", orDash(strings.Join(vs, ", ")))
	for _, s := range m.Skipped {
		fmt.Fprintf(&b, "- Skipped %s: %s\n", md(s.Path), md(s.Problem))
	}
	b.WriteString("\n## Servers × revisions\n\n| # | Run | Conformance |")
	for _, rev := range m.Revisions {
		fmt.Fprintf(&b, " %s |", md(rev))
	}
	b.WriteString(" Exit | Suite | Report |\n| --- | --- | --- |")
	for range m.Revisions {
		b.WriteString(" --- |")
	}
	b.WriteString(" --- | --- | --- |\n")
	for i := range m.Rows {
		r := &m.Rows[i]
		fmt.Fprintf(&b, "| %d | %s | %s |", r.Rank, md(r.Name), Percent(r.Conformance))
		for ci := range r.Cells {
			c := &r.Cells[ci]
			text := mark(c) + " " + md(stateText(c))
			if c.State == StateNotTested {
				text = "—"
			}
			if c.State == StateNegotiated {
				text += " · " + counts(c.Summary)
			}
			fmt.Fprintf(&b, " %s |", text)
		}
		link := "—"
		if r.HTML != "" {
			link = "[report.html](" + linkPath(r.HTML) + ")"
		}
		fmt.Fprintf(&b, " %d | %s | %s |\n", r.ExitCode, md(r.Tool), link)
	}
	if len(m.Rows) == 0 {
		b.WriteString("\nNo runs.\n")
	}
	b.WriteString("\nLegend: ✅ every check passes · ⚠️ warnings (SHOULD-level) · ❌ failures or errors · " +
		"⏭️ the server does not support the revision (it answered another, or refused its era) · " +
		"💥 no session could be opened · — the run did not test the revision. Exit is the run's exit code (0: it passed its gate).\n")
	var notes bytes.Buffer
	for i := range m.Rows {
		for _, n := range m.Rows[i].Notes {
			fmt.Fprintf(&notes, "- %s: %s\n", md(m.Rows[i].Name), md(n))
		}
	}
	if notes.Len() > 0 {
		b.WriteString("\n## Notes\n\n")
		b.Write(notes.Bytes())
	}
	writeFailingChecks(&b, m)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("ecosystem: write matrix.md: %w", err)
	}
	return nil
}

// writeFailingChecks lists every check that fails or errors on some run: the runs
// and the revisions where.
func writeFailingChecks(b *bytes.Buffer, m *Matrix) {
	b.WriteString("\n## Checks that fail somewhere\n\n")
	n := 0
	for _, c := range m.Checks {
		var where []string
		for ri, vs := range c.Verdicts {
			var revs []string
			for ci, v := range vs {
				if st := reports.Status(v); st == reports.Fail || st == reports.Error {
					revs = append(revs, md(m.Revisions[ci])+" "+string(st))
				}
			}
			if len(revs) > 0 {
				where = append(where, md(m.Rows[ri].Name)+" ("+strings.Join(revs, ", ")+")")
			}
		}
		if len(where) == 0 {
			continue
		}
		n++
		fmt.Fprintf(b, "- **%s** %s — %d of %d runs: %s\n", md(c.ID), md(c.Title), len(where), len(m.Rows), strings.Join(where, "; "))
	}
	if n == 0 {
		b.WriteString("None: no check fails or errors on any run.\n")
	}
}

// WriteJSON writes m as matrix.json, indented, described by Schema.
func WriteJSON(w io.Writer, m *Matrix) error {
	if m == nil {
		return errors.New("ecosystem: write matrix.json: nil matrix")
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("ecosystem: encode matrix.json: %w", err)
	}
	return nil
}

// ReadJSON reads a matrix.json written by WriteJSON.
func ReadJSON(rd io.Reader) (*Matrix, error) {
	var m Matrix
	if err := json.NewDecoder(rd).Decode(&m); err != nil {
		return nil, fmt.Errorf("ecosystem: decode matrix.json: %w", err)
	}
	return &m, nil
}

// Write writes matrix.md, matrix.html and matrix.json into dir, creating it, each
// file whole or not at all (a temporary file renamed into place). It returns the
// paths written and every error joined.
func Write(dir string, m *Matrix) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("ecosystem: create %s: %w", dir, err)
	}
	var (
		paths []string
		errs  []error
	)
	for _, f := range []struct {
		name   string
		render func(io.Writer, *Matrix) error
	}{{MarkdownFile, WriteMarkdown}, {HTMLFile, WriteHTML}, {JSONFile, WriteJSON}} {
		var buf bytes.Buffer
		if err := f.render(&buf, m); err != nil {
			errs = append(errs, err)
			continue
		}
		path := filepath.Join(dir, f.name)
		if err := writeAtomic(path, buf.Bytes()); err != nil {
			errs = append(errs, err)
			continue
		}
		paths = append(paths, path)
	}
	return paths, errors.Join(errs...)
}

// writeAtomic writes data to path through a temporary file and a rename.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("ecosystem: write %s: %w", path, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("ecosystem: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("ecosystem: write %s: %w", path, err)
	}
	return nil
}
