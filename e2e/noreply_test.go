package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

// TestNoReplySameVerdictOnEveryTransport runs BASE-INVALID-PARAMS-01 against the
// reference server with the list-params-unanswered fault over stdio (where the
// request meets silence) and over Streamable HTTP (where its POST's connection is
// closed without a response): the server did not answer in both, so both columns
// must get the same verdict — fail, a MUST broken — and never error (issue 9 item 3).
func TestNoReplySameVerdictOnEveryTransport(t *testing.T) {
	t.Parallel()
	const id = "BASE-INVALID-PARAMS-01"
	fixture := shQuote(bin) + " fixture --fault list-params-unanswered"
	port := freePort(t)
	runs := []struct {
		transport string
		args      []string
		actual    string // what the verdict must say happened
	}{
		{"stdio", []string{"--target", fixture + " --transport stdio"}, "no reply within"},
		{"http", []string{"--target", fmt.Sprintf("%s --transport http --addr 127.0.0.1:%d", fixture, port),
			"--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}, "closed the connection without answering"},
	}
	for _, run := range runs {
		dir := filepath.Join(t.TempDir(), run.transport)
		args := append(run.args, "--report-dir", dir, "--timeout", "2s", "--label-filter", "id:"+id)
		r := runCLI(t, args...)
		wantCode(t, r, 1)
		rep := loadReports(t, dir)
		for _, col := range rep.Revisions {
			if col.Transport != run.transport {
				t.Errorf("%s: column %s ran over %s", run.transport, col.Revision, col.Transport)
			}
			for _, c := range col.Checks {
				if c.ID != id {
					continue
				}
				if c.Status != reports.Fail || !strings.Contains(c.Message, run.actual) {
					t.Errorf("%s %s: %s %q, want fail saying %q", run.transport, col.Revision, c.Status, c.Message, run.actual)
				}
			}
		}
	}
}
