package lifecycle

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// LIFE-SHUTDOWN-STDIO-01 reads how the revision's own session's process ended when
// the column settled; only when that was no exit on EOF does it stop a clean session
// of its own, whose end gives the verdict.
func TestShutdownVerdicts(t *testing.T) {
	tests := []struct {
		name     string
		ending   transport.Ending
		want     reports.Status
		sessions int
	}{
		{"exit on stdin EOF passes, judged on the main session", transport.EndedOnEOF, reports.Pass, 1},
		{"exit only after SIGTERM warns", transport.EndedOnSIGTERM, reports.Warn, 2},
		{"killed with SIGKILL warns", transport.EndedOnSIGKILL, reports.Warn, 2},
		{"a process that ended by itself is not judged", transport.EndedByItself, reports.Skip, 2},
		{"a session that reports no process exit errors", transport.Running, reports.Error, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			srv.Exit = tc.ending
			v := conformtest.Judge(t, "LIFE-SHUTDOWN-STDIO-01", "2025-06-18", srv)
			if v.Status != tc.want {
				t.Errorf("status %s, want %s (%s)", v.Status, tc.want, v.Message)
			}
			if srv.Sessions != tc.sessions {
				t.Errorf("%d sessions opened, want %d", srv.Sessions, tc.sessions)
			}
		})
	}
}
