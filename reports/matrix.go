package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// absentCell marks a check that does not apply to a column's revision.
const absentCell = "—"

// WriteMatrix writes r as a Markdown document for people, the summary first: a
// heading with the target, tool, date and duration; a summary line per column and a
// legend; r.Notes; the findings (every fail, error and warn, a finding repeated in
// several revisions said once with the revisions listed, errors sharing one cause
// said once); then a table with one row per check ID (the union over the columns,
// in first-seen order) and one column per revision, each cell the check's verdict
// there or "—" where the check does not apply. All text from the report is escaped,
// so titles and server messages cannot break the table.
func WriteMatrix(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("reports: write matrix: nil report")
	}
	var b bytes.Buffer
	writeMatrixHead(&b, r)
	writeMatrixSummary(&b, r)
	if len(r.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", mdText(n))
		}
	}
	writeMatrixFindings(&b, r)
	writeMatrixTable(&b, r)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("reports: write matrix: %w", err)
	}
	return nil
}

func writeMatrixHead(b *bytes.Buffer, r *Report) {
	b.WriteString("# mcp-conform conformance matrix\n\n")
	fmt.Fprintf(b, "- Target: %s\n", orDash(mdText(r.Target)))
	fmt.Fprintf(b, "- Tool: %s\n", orDash(mdText(r.Tool)))
	date := absentCell
	if !r.StartedAt.IsZero() {
		date = r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	fmt.Fprintf(b, "- Date: %s\n", date)
	fmt.Fprintf(b, "- Duration: %s\n", time.Duration(r.DurationMs)*time.Millisecond)
}

// orDash is s, or the absent mark when s is empty.
func orDash(s string) string {
	if s == "" {
		return absentCell
	}
	return s
}

// columnHead says what a column is: the revision asked for and what came of it.
func columnHead(rev *RevisionReport) string {
	return mdText(rev.Revision) + "<br>" + columnState(rev)
}

// columnState says what came of asking for the column's revision.
func columnState(rev *RevisionReport) string {
	return ColumnState(mdText(rev.Negotiated), rev.Unsupported)
}

// matrixRow is one check ID across the columns.
type matrixRow struct {
	id, title string
	cells     []*CheckResult // per column; nil where the check is absent
}

// matrixRows returns the union of the check IDs over the columns in first-seen order.
// When an ID occurs twice in one column, the cell keeps the graver verdict, so a
// failure is never hidden.
func matrixRows(r *Report) []*matrixRow {
	var rows []*matrixRow
	byID := map[string]*matrixRow{}
	for col := range r.Revisions {
		checks := r.Revisions[col].Checks
		for i := range checks {
			c := &checks[i]
			row, ok := byID[c.ID]
			if !ok {
				row = &matrixRow{id: c.ID, cells: make([]*CheckResult, len(r.Revisions))}
				byID[c.ID] = row
				rows = append(rows, row)
			}
			if row.title == "" {
				row.title = c.Title
			}
			if prev := row.cells[col]; prev == nil || gravity(c.Status) > gravity(prev.Status) {
				row.cells[col] = c
			}
		}
	}
	return rows
}

// gravity orders verdicts from least to most alarming.
func gravity(st Status) int {
	switch st.effective() {
	case Skip:
		return 1
	case Pass:
		return 2
	case Warn, ExpectedFail:
		return 3
	case Fail:
		return 4
	}
	return 5 // Error
}

// cell renders one verdict with its scanning symbol.
func cell(rev *RevisionReport, c *CheckResult) string {
	if c == nil {
		return absentCell
	}
	if c.Quarantine != nil {
		return plainCell(rev, c) + " (quarantined)"
	}
	return plainCell(rev, c)
}

// plainCell renders one verdict without its quarantine mark.
func plainCell(rev *RevisionReport, c *CheckResult) string {
	switch c.Status.effective() {
	case ExpectedFail:
		if c.Baseline != nil {
			return "🔶 expected-fail (" + mdText(string(c.Baseline.Status)) + ")"
		}
		return "🔶 expected-fail"
	case Pass:
		return "✅ pass"
	case Warn:
		return "⚠️ warn"
	case Fail:
		return "❌ FAIL"
	case Skip:
		if reason := skipReason(rev, c); reason != "" {
			return "⏭️ skip (" + mdText(string(reason)) + ")"
		}
		return "⏭️ skip"
	}
	return "💥 ERROR"
}

func writeMatrixTable(b *bytes.Buffer, r *Report) {
	b.WriteString("\n## Matrix\n\n| Check | Title |")
	for i := range r.Revisions {
		fmt.Fprintf(b, " %s |", columnHead(&r.Revisions[i]))
	}
	b.WriteString("\n| --- | --- |")
	for range r.Revisions {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	rows := matrixRows(r)
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s |", mdText(row.id), mdText(row.title))
		for col := range r.Revisions {
			fmt.Fprintf(b, " %s |", cell(&r.Revisions[col], row.cells[col]))
		}
		b.WriteString("\n")
	}
	if len(rows) == 0 {
		b.WriteString("\nNo checks ran.\n")
	}
}

func writeMatrixSummary(b *bytes.Buffer, r *Report) {
	b.WriteString("\n## Summary\n\n")
	for i := range r.Revisions {
		rev := &r.Revisions[i]
		s := tally(rev.Checks)
		fmt.Fprintf(b, "- **%s** · %s · %d checks: %d pass, %d warn, %d fail, %d skip, %d error%s\n",
			mdText(rev.Revision), columnState(rev),
			s.Total, s.Pass, s.Warn, s.Fail, s.Skip, s.Error, expectedFailCount(s))
	}
	s := r.tallyAll()
	fmt.Fprintf(b, "- **All columns** · %d checks: %d pass, %d warn, %d fail, %d skip, %d error%s; exit code %d\n",
		s.Total, s.Pass, s.Warn, s.Fail, s.Skip, s.Error, expectedFailCount(s), r.ExitCode)
	if bl := r.Baseline; bl != nil {
		fmt.Fprintf(b, "- **Baseline** %s · %d expected-fail, %d quarantined (reported, never fail the run), %d stale entries (each fails the run)\n",
			mdText(bl.File), bl.ExpectedFail, bl.Quarantined, len(bl.Stale))
	}
	b.WriteString("\nLegend: ✅ pass — the rule holds · ⚠️ warn — a SHOULD-level finding · " +
		"❌ FAIL — a requirement is broken · ⏭️ skip (reason) — not judged, and why · " +
		"💥 ERROR — the harness or transport broke, nothing was verified · " +
		absentCell + " — the check does not apply to this revision\n")
	if r.Baseline != nil {
		b.WriteString("\n🔶 expected-fail (verdict) — a known failure the baseline accepts: not a pass, and not failing the run · " +
			"(quarantined) — a flaky check: its verdict is reported but never fails the run\n")
	}
}

// expectedFailCount is the expected-fail count for a summary line, when there are any.
func expectedFailCount(s Summary) string {
	if s.ExpectedFail == 0 {
		return ""
	}
	return fmt.Sprintf(", %d expected-fail", s.ExpectedFail)
}

func writeMatrixFindings(b *bytes.Buffer, r *Report) {
	b.WriteString("\n## Findings\n\n")
	n := 0
	tags := map[Status]string{Fail: "❌ FAIL", Error: "💥 ERROR", Warn: "⚠️ warn", ExpectedFail: "🔶 expected-fail"}
	for _, st := range []Status{Fail, Error, Warn, ExpectedFail} {
		for _, f := range groupFindings(r, st) {
			n++
			c := f.check
			tag := tags[st]
			if c.Quarantine != nil {
				tag += " (quarantined)"
			}
			revs := make([]string, len(f.revs))
			for i, rev := range f.revs {
				revs[i] = mdText(rev)
			}
			msg := displayMessage(c)
			if len(f.ids) > 1 {
				fmt.Fprintf(b, "- %s · %s · %d checks (%s): %s\n", tag, strings.Join(revs, ", "), f.n,
					mdText(truncate(strings.Join(f.ids, ", "), 300)), orDash(mdText(msg)))
				continue
			}
			fmt.Fprintf(b, "- %s · %s · %s — %s: %s\n", tag, strings.Join(revs, ", "), mdText(c.ID), mdText(c.Title), orDash(mdText(msg)))
			for _, d := range []struct{ label, text string }{
				{"expected", c.Expected}, {"actual", c.Actual}, {"requirement", c.Source}, {"repro", c.Repro},
			} {
				if d.text != "" {
					fmt.Fprintf(b, "  - %s: %s\n", d.label, mdText(d.text))
				}
			}
			if c.Baseline != nil {
				fmt.Fprintf(b, "  - baseline: a known %s, accepted: %s\n", mdText(string(c.Baseline.Status)), mdText(c.Baseline.Reason))
			}
			if c.Quarantine != nil {
				fmt.Fprintf(b, "  - quarantined (never fails the run): %s\n", mdText(c.Quarantine.Reason))
			}
		}
	}
	if n == 0 {
		b.WriteString("None: no failures, warnings or errors.\n")
	}
}
