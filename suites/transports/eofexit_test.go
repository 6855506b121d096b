package transports

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	itransport "github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// STDIO-EOF-EXIT-01 stops a 2026-07-28 session of its own and reads how the process
// ended.
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
			if v := conformtest.Judge(t, "STDIO-EOF-EXIT-01", "2026-07-28", srv); v.Status != tc.want {
				t.Errorf("status %s, want %s (%s)", v.Status, tc.want, v.Message)
			}
		})
	}
}
