package conform

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
)

// What a check may touch follows from its declared phase: reading the revision's
// whole transcript belongs to the transcript phase, odd input to the odd-input
// phase. A check that reaches beyond its phase would judge evidence that is not
// complete yet (or disturb checks after it): its verdict is an error that says so,
// never a pass.
func TestPhaseGuards(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	readsAll := func(t *T) Verdict {
		n := 0
		for _, s := range t.Sessions() {
			n += len(t.Transcript(s))
		}
		return Pass("%d entries", n)
	}
	scratch := func(t *T) Verdict {
		if _, err := t.Scratch(); err != nil {
			return Errorf("%v", err)
		}
		return Pass("scratch")
	}
	tests := []struct {
		name  string
		phase Phase
		run   func(t *T) Verdict
		want  reports.Status
		msg   string
	}{
		{"transcript read in the transcript phase", PhaseTranscript, readsAll, reports.Pass, ""},
		{"transcript read in the clean phase", PhaseClean, readsAll, reports.Error, "only a check of phase transcript may"},
		{"transcript read in the odd-input phase", PhaseOddInput, readsAll, reports.Error, "declares phase odd-input"},
		{"odd input in the odd-input phase", PhaseOddInput, scratch, reports.Pass, ""},
		{"odd input in the clean phase", PhaseClean, scratch, reports.Error, "only a check of phase odd-input may"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withRegistry(t, func() {
				c := Register(Check{ID: "ZZ-PHASE-01", Title: "t", Level: Must, Revisions: []revision.Revision{rev},
					Group: GroupBase, Phase: tc.phase, Source: "test", Run: tc.run})
				if err := RegistryErr(); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				srv := &pipeServer{}
				v, err := Judge(ctx, Config{Timeout: time.Second, KillGrace: 10 * time.Millisecond}, c, rev, srv.dial)
				if err != nil {
					t.Fatal(err)
				}
				if v.Status != tc.want || !strings.Contains(v.Message, tc.msg) {
					t.Fatalf("%s (%s), want %s containing %q", v.Status, v.Message, tc.want, tc.msg)
				}
			})
		})
	}
}
