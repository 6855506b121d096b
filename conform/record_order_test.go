package conform

import (
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// Verdicts are recorded every column's open-session checks first, then every
// column's transcript-wide checks: a transcript verdict waits for its column's end,
// and the other columns' verdicts must not wait behind it (recordGroups).
func TestRecordGroupsPutTranscriptChecksLast(t *testing.T) {
	older, newer := revision.MustLookup("2025-03-26"), revision.MustLookup("2025-06-18")
	withRegistry(t, func() {
		row := Row{Level: Must, Revisions: []revision.Revision{older, newer}, Group: GroupBase, Source: "test"}
		pass := func(*T) Verdict { return Pass("ok") }
		Register(Check{ID: "AA-CLEAN-01", Title: "t", Row: row, Run: pass})
		Register(Check{ID: "BB-READS-01", Title: "t", Row: row, Phase: PhaseTranscript, Run: pass})
		Register(Check{ID: "CC-ODD-01", Title: "t", Row: row, Phase: PhaseOddInput, Run: pass})
		sel, err := newSelection(Config{})
		if err != nil {
			t.Fatal(err)
		}
		rs := &runState{sel: sel, columns: []*column{{rev: older}, {rev: newer}}}
		var got []string
		for _, group := range rs.recordGroups() {
			for col, c := range group {
				got = append(got, col.rev.Name+" "+c.ID)
			}
		}
		want := []string{
			"2025-03-26 AA-CLEAN-01", "2025-03-26 CC-ODD-01",
			"2025-06-18 AA-CLEAN-01", "2025-06-18 CC-ODD-01",
			"2025-03-26 BB-READS-01", "2025-06-18 BB-READS-01",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("record order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}
