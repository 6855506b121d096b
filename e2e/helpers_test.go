package e2e

import (
	"slices"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The helpers below decide what the end-to-end tests see; these tables pin them down.

func TestShQuoteSurvivesTargetSplitting(t *testing.T) {
	tests := []string{
		"plain",
		"/tmp/dir with spaces/mcp-conform",
		"it's",
		`echo $$ >> '/tmp/p'; exec cat 3>&1 >/dev/null`,
		`back\slash "double" 'single'`,
		"",
	}
	for _, s := range tests {
		got, err := transport.SplitCommand("sh -c " + shQuote(s))
		if err != nil {
			t.Errorf("SplitCommand(sh -c %s): %v", shQuote(s), err)
			continue
		}
		if want := []string{"sh", "-c", s}; !slices.Equal(got, want) {
			t.Errorf("SplitCommand(sh -c %s) = %q, want %q", shQuote(s), got, want)
		}
	}
}

func TestSplitRow(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"| a | b |", []string{"a", "b"}},
		{"| Check | Title | 2024-11-05<br>negotiated 2024-11-05 |", []string{"Check", "Title", "2024-11-05<br>negotiated 2024-11-05"}},
		{`| ID-1 | a \| b \_c\_ | ✅ pass |`, []string{"ID-1", "a | b _c_", "✅ pass"}},
		{`| x | back\\slash |`, []string{"x", `back\slash`}},
		{"| --- | --- |", []string{"---", "---"}},
	}
	for _, tc := range tests {
		if got := splitRow(tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("splitRow(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestCellStatus(t *testing.T) {
	tests := []struct {
		cell    string
		want    reports.Status
		absent  bool
		wantErr bool
	}{
		{cell: "✅ pass", want: reports.Pass},
		{cell: "⚠️ warn", want: reports.Warn},
		{cell: "❌ FAIL", want: reports.Fail},
		{cell: "⏭️ skip (not-applicable)", want: reports.Skip},
		{cell: "💥 ERROR", want: reports.Error},
		{cell: "—", absent: true},
		{cell: "🤷 maybe", wantErr: true},
	}
	for _, tc := range tests {
		got, absent, err := cellStatus(tc.cell)
		if (err != nil) != tc.wantErr || got != tc.want || absent != tc.absent {
			t.Errorf("cellStatus(%q) = %q, %v, %v; want %q, %v, error %v", tc.cell, got, absent, err, tc.want, tc.absent, tc.wantErr)
		}
	}
}

func TestParseMatrix(t *testing.T) {
	const doc = "# head\n\n## Matrix\n\n" +
		"| Check | Title | r1<br>negotiated r1 | r2<br>no session |\n" +
		"| --- | --- | --- | --- |\n" +
		"| A-01 | first | ✅ pass | 💥 ERROR |\n" +
		"| B-01 | second | — | 💥 ERROR |\n" +
		"\n## Summary\n"
	m, err := parseMatrix(doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"r1<br>negotiated r1", "r2<br>no session"}; !slices.Equal(m.heads, want) {
		t.Errorf("heads %q, want %q", m.heads, want)
	}
	if want := []string{"A-01", "B-01"}; !slices.Equal(m.order, want) {
		t.Errorf("rows %q, want %q", m.order, want)
	}
	if want := []string{"second", "—", "💥 ERROR"}; !slices.Equal(m.rows["B-01"], want) {
		t.Errorf("row B-01 %q, want %q", m.rows["B-01"], want)
	}
	for _, bad := range []string{
		"no table here",
		"| Check | Title | r1 |\n| --- | --- | --- |\n| A-01 | first |\n",
		"| Check | Title | r1 |\n| --- | --- | --- |\n| A-01 | x | ✅ pass |\n| A-01 | x | ✅ pass |\n",
	} {
		if _, err := parseMatrix(bad); err == nil {
			t.Errorf("parseMatrix(%q): no error", bad)
		}
	}
}
