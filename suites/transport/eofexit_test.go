package transport

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	itransport "github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
	_ "github.com/mcp-conform/mcp-conform/suites/base" // BASE-PARSE-01: its spare session is stopped before the judging
)

// STDIO-EOF-EXIT-01 judges the 2026-07-28 sessions the run stopped before the
// transcript checks: here the spare session of BASE-PARSE-01, run alongside.
func TestEOFExitVerdicts(t *testing.T) {
	tests := []struct {
		name   string
		ending itransport.Ending
		want   reports.Status
	}{
		{"exit on stdin EOF passes", itransport.EndedOnEOF, reports.Pass},
		{"exit only after SIGTERM warns", itransport.EndedOnSIGTERM, reports.Warn},
		{"a process that ended by itself is not judged", itransport.EndedByItself, reports.Skip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.Modern(conformtest.NewServer())
			srv.Exit = tc.ending
			vs := conformtest.JudgeAll(t, []string{"BASE-PARSE-01", "STDIO-EOF-EXIT-01"}, "2026-07-28", srv)
			if v := vs[1]; v.Status != tc.want {
				t.Errorf("status %s, want %s (%s)", v.Status, tc.want, v.Message)
			}
		})
	}
}
