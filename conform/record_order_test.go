package conform

import (
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// Verdicts are recorded every column's open-session checks first, then every
// column's checks judged at its end: a transcript-wide verdict waits for its
// column's settle, and over stdio an odd-input check on the main session (Spare)
// for its column's last grace; the other columns' verdicts must not wait behind
// either (recordGroups).
func TestRecordGroupsPutColumnEndChecksLast(t *testing.T) {
	older, newer := revision.MustLookup("2025-03-26"), revision.MustLookup("2025-06-18")
	for _, tc := range []struct {
		name string
		tgt  target
		want []string
	}{
		{"shared server (HTTP)", &httpTarget{}, []string{
			"2025-03-26 AA-CLEAN-01", "2025-03-26 CC-ODD-01", "2025-03-26 DD-SPARE-01",
			"2025-06-18 AA-CLEAN-01", "2025-06-18 CC-ODD-01", "2025-06-18 DD-SPARE-01",
			"2025-03-26 BB-READS-01", "2025-06-18 BB-READS-01",
		}},
		{"a server per session (stdio)", &stdioTarget{}, []string{
			"2025-03-26 AA-CLEAN-01", "2025-03-26 CC-ODD-01",
			"2025-06-18 AA-CLEAN-01", "2025-06-18 CC-ODD-01",
			"2025-03-26 DD-SPARE-01", "2025-03-26 BB-READS-01",
			"2025-06-18 DD-SPARE-01", "2025-06-18 BB-READS-01",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withRegistry(t, func() {
				row := Row{Level: Must, Revisions: []revision.Revision{older, newer}, Group: GroupBase, Source: "test"}
				pass := func(*T) Verdict { return Pass("ok") }
				Register(Check{ID: "AA-CLEAN-01", Title: "t", Row: row, Run: pass})
				Register(Check{ID: "BB-READS-01", Title: "t", Row: row, Phase: PhaseTranscript, Run: pass})
				Register(Check{ID: "CC-ODD-01", Title: "t", Row: row, Phase: PhaseOddInput, Run: pass})
				Register(Check{ID: "DD-SPARE-01", Title: "t", Row: row, Phase: PhaseOddInput, Spare: true, Run: pass})
				sel, err := newSelection(Config{})
				if err != nil {
					t.Fatal(err)
				}
				rs := &runState{sel: sel, tgt: tc.tgt, columns: []*column{{rev: older}, {rev: newer}}}
				var got []string
				for _, group := range rs.recordGroups() {
					for col, c := range group {
						got = append(got, col.rev.Name+" "+c.ID)
					}
				}
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Errorf("record order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
			})
		})
	}
}
