package lifecycle

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// LIFE-SHUTDOWN-STDIO-01 judges the sessions the run stopped before the transcript
// checks: here the version probe's (LIFE-VERSION-FALLBACK-01), run alongside.
func TestShutdownVerdicts(t *testing.T) {
	tests := []struct {
		name   string
		ending transport.Ending
		alone  bool // without the check whose session the run stops early
		want   reports.Status
	}{
		{"exit on stdin EOF passes", transport.EndedOnEOF, false, reports.Pass},
		{"exit only after SIGTERM warns", transport.EndedOnSIGTERM, false, reports.Warn},
		{"killed with SIGKILL warns", transport.EndedOnSIGKILL, false, reports.Warn},
		{"a process that ended by itself is not judged", transport.EndedByItself, false, reports.Skip},
		{"no session stopped before the judging: not exercised", transport.EndedOnEOF, true, reports.Skip},
		{"a session that reports no process exit: not exercised", transport.Running, false, reports.Skip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			srv.Exit = tc.ending
			ids := []string{"LIFE-VERSION-FALLBACK-01", "LIFE-SHUTDOWN-STDIO-01"}
			if tc.alone {
				ids = ids[1:]
			}
			vs := conformtest.JudgeAll(t, ids, "2025-06-18", srv)
			v := vs[len(vs)-1]
			if v.Status != tc.want {
				t.Errorf("status %s, want %s (%s)", v.Status, tc.want, v.Message)
			}
		})
	}
}
