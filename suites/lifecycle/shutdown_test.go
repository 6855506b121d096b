package lifecycle

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// LIFE-SHUTDOWN-STDIO-01 stops a session of its own and reads how the process ended.
func TestShutdownVerdicts(t *testing.T) {
	tests := []struct {
		name   string
		ending transport.Ending
		want   reports.Status
	}{
		{"exit on stdin EOF passes", transport.EndedOnEOF, reports.Pass},
		{"exit only after SIGTERM warns", transport.EndedOnSIGTERM, reports.Warn},
		{"killed with SIGKILL warns", transport.EndedOnSIGKILL, reports.Warn},
		{"a process that ended by itself is not judged", transport.EndedByItself, reports.Skip},
		{"a session that reports no process exit errors", transport.Running, reports.Error},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			srv.Exit = tc.ending
			v := conformtest.Judge(t, "LIFE-SHUTDOWN-STDIO-01", "2025-06-18", srv)
			if v.Status != tc.want {
				t.Errorf("status %s, want %s (%s)", v.Status, tc.want, v.Message)
			}
		})
	}
}
