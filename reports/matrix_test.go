package reports

import (
	"bytes"
	"strings"
	"testing"
)

func writeMatrix(t *testing.T, r *Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteMatrix(&buf, r); err != nil {
		t.Fatalf("WriteMatrix: %v", err)
	}
	return buf.String()
}

// tableRows returns the matrix table's body rows keyed by check ID, split into cells.
func tableRows(t *testing.T, md string) (head []string, rows map[string][]string) {
	t.Helper()
	rows = map[string][]string{}
	for line := range strings.Lines(md) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "| ---") {
			continue
		}
		// Split on unescaped pipes.
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
		cells = cells[1 : len(cells)-1]
		for i := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(cells[i]), "\x00", `\|`)
		}
		if cells[0] == "Check" {
			head = cells
			continue
		}
		rows[cells[0]] = cells
	}
	return head, rows
}

func TestWriteMatrix(t *testing.T) {
	md := writeMatrix(t, fixture())
	head, rows := tableRows(t, md)
	wantHead := []string{"Check", "Title", "2025-06-18<br>negotiated 2025-06-18", "2024-11-05<br>unsupported (answered 2025-03-26)"}
	if strings.Join(head, "|") != strings.Join(wantHead, "|") {
		t.Errorf("head = %q, want %q", head, wantHead)
	}
	tests := []struct {
		id    string
		cells []string
	}{
		{"INIT-01", []string{"initialize succeeds", "✅ pass", "⏭️ skip (revision-unsupported)"}},
		{"TOOLS-LIST-01", []string{`tools/list \| paginates`, "⚠️ warn", "⏭️ skip (revision-unsupported)"}},
		{"TOOLS-CALL-UNKNOWN-01", []string{"unknown tool is an error", "❌ FAIL", "—"}},
		{"PING-01", []string{"ping answers", "💥 ERROR", "—"}},
		{"PROMPTS-GET-01", []string{"prompts/get returns messages", "⏭️ skip (needs-fixture)", "—"}},
		{"SSE-ENDPOINT-01", []string{"HTTP+SSE sends the endpoint event", "—", "⏭️ skip (revision-unsupported)"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, ok := rows[tt.id]
			if !ok {
				t.Fatalf("no row for %s", tt.id)
			}
			if strings.Join(got[1:], "|") != strings.Join(tt.cells, "|") {
				t.Errorf("row = %q, want %q", got[1:], tt.cells)
			}
		})
	}
	if len(rows) != len(tests) {
		t.Errorf("%d rows, want %d", len(rows), len(tests))
	}
	// First-seen order: SSE-ENDPOINT-01 appears only in the second column, so last.
	if i, j := strings.Index(md, "| PROMPTS-GET-01 |"), strings.Index(md, "| SSE-ENDPOINT-01 |"); i < 0 || j < i {
		t.Error("rows are not in first-seen order")
	}
	for _, want := range []string{
		"# mcp-conform", "Target: stdio:./server --flag \\<x\\>", "Tool: mcp-conform 0.1.0",
		"Date: 2026-03-01 12:30:45 UTC", "Duration: 4.321s",
		"**2025-06-18** · negotiated 2025-06-18 · 5 checks: 1 pass, 1 warn, 1 fail, 1 skip, 1 error",
		"**2024-11-05** · unsupported (answered 2025-03-26) · 3 checks: 0 pass, 0 warn, 0 fail, 3 skip, 0 error",
		"Legend:", "## Findings",
		"❌ FAIL · 2025-06-18 · TOOLS-CALL-UNKNOWN-01",
		`got \<result\> \& "quotes" \| pipe nul`, "⚠️ warn · 2025-06-18 · TOOLS-LIST-01", "💥 ERROR · 2025-06-18 · PING-01 — ping answers: timeout after 5s",
		"expected: error -32602", "## Notes", "- no --target given: using the bundled reference server",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("matrix lacks %q", want)
		}
	}
	if strings.ContainsRune(md, 0) || strings.Contains(md, "\xff") {
		t.Error("matrix contains a NUL or an invalid UTF-8 byte")
	}
	if strings.Contains(md, "PROMPTS-GET-01 — ") {
		t.Error("a skip is listed among the findings")
	}
}

func TestMatrixColumnHeads(t *testing.T) {
	tests := []struct {
		name string
		rev  RevisionReport
		want string
	}{
		{"negotiated", RevisionReport{Revision: "2025-06-18", Negotiated: "2025-06-18"}, "2025-06-18<br>negotiated 2025-06-18"},
		{"unsupported", RevisionReport{Revision: "2024-11-05", Negotiated: "2025-03-26", Unsupported: true}, "2024-11-05<br>unsupported (answered 2025-03-26)"},
		{"no session", RevisionReport{Revision: "2025-11-25"}, "2025-11-25<br>no session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, _ := tableRows(t, writeMatrix(t, &Report{Revisions: []RevisionReport{tt.rev}}))
			if len(head) != 3 || head[2] != tt.want {
				t.Errorf("head = %q, want third cell %q", head, tt.want)
			}
		})
	}
}

func TestMatrixEdgeCases(t *testing.T) {
	r := &Report{Revisions: []RevisionReport{{
		Revision: "2025-06-18", Negotiated: "2025-06-18",
		Checks: []CheckResult{
			{ID: "DUP-01", Title: "multi\nline | title", Status: Pass},
			{ID: "DUP-01", Title: "multi\nline | title", Status: Fail, Message: "second run failed"},
			{ID: "ODD-01", Title: "odd", Status: "maybe"},
		},
	}}}
	md := writeMatrix(t, r)
	_, rows := tableRows(t, md)
	if got := rows["DUP-01"]; len(got) != 3 || got[1] != `multi line \| title` || got[2] != "❌ FAIL" {
		t.Errorf("duplicate row = %q; want the graver verdict and a one-line escaped title", got)
	}
	if got := rows["ODD-01"]; len(got) != 3 || got[2] != "💥 ERROR" {
		t.Errorf("unknown status row = %q; want ERROR", got)
	}
	if !strings.Contains(md, `unknown status "maybe"`) {
		t.Error("findings do not explain the unknown status")
	}
	empty := writeMatrix(t, &Report{})
	if !strings.Contains(empty, "No checks ran.") || !strings.Contains(empty, "None: no failures") {
		t.Errorf("empty report matrix:\n%s", empty)
	}
	if err := WriteMatrix(&bytes.Buffer{}, nil); err == nil {
		t.Error("WriteMatrix(nil) succeeded")
	}
}

// The summary comes first; a finding repeated across revisions is one line naming
// them; errors with one cause are one line.
func TestMatrixSummaryFirstAndRepeatsOnce(t *testing.T) {
	fail := CheckResult{ID: "A-01", Title: "a", Status: Fail, Message: "m", Expected: "e", Actual: "x", Source: "spec: MUST"}
	lost := func(id string) CheckResult {
		return CheckResult{ID: id, Title: "t", Status: Error, Message: "no session: refused"}
	}
	r := &Report{Revisions: []RevisionReport{
		{Revision: "2025-06-18", Negotiated: "2025-06-18", Checks: []CheckResult{fail, lost("B-01"), lost("B-02")}},
		{Revision: "2025-11-25", Negotiated: "2025-11-25", Checks: []CheckResult{fail, lost("B-01"), lost("B-02")}},
	}}
	md := writeMatrix(t, r)
	sum, findings, table := strings.Index(md, "## Summary"), strings.Index(md, "## Findings"), strings.Index(md, "## Matrix")
	if sum < 0 || findings < sum || table < findings {
		t.Errorf("sections out of order (summary %d, findings %d, matrix %d)", sum, findings, table)
	}
	for _, w := range []string{
		"- ❌ FAIL · 2025-06-18, 2025-11-25 · A-01 — a: m\n",
		"- 💥 ERROR · 2025-06-18, 2025-11-25 · 4 checks (B-01, B-02): no session: refused\n",
	} {
		if strings.Count(md, w) != 1 {
			t.Errorf("matrix has %q %d times, want once:\n%s", w, strings.Count(md, w), md)
		}
	}
	if n := strings.Count(md, "expected: e"); n != 1 {
		t.Errorf("the repeated failure's detail appears %d times", n)
	}
}
