package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

// TestSameVerdictOnEveryTransport runs a check against the reference server with a
// fault over stdio and over Streamable HTTP, and wants the same verdict from both
// (issue 9): the server behaves the same, so must the suite.
func TestSameVerdictOnEveryTransport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fault, id string
		// selection is the --label-filter (the check, and the checks it relies on).
		selection string
		// want is the verdict per revision ("" for the rest of the revisions).
		want map[string]reports.Status
		// says is what each transport's message must hold.
		says map[string]string
		// revisions is how many columns judge the check.
		revisions int
	}{
		{
			// The server leaves tools/list with params "abc" unanswered: silence on
			// stdio, a POST whose connection is closed without a response over HTTP.
			// Both are no reply — a broken MUST, never an error (item 3).
			name: "no reply", fault: "list-params-unanswered", id: "BASE-INVALID-PARAMS-01",
			selection: "id:BASE-INVALID-PARAMS-01",
			want:      map[string]reports.Status{"": reports.Fail},
			says:      map[string]string{"stdio": "no reply (the barrier request sent after it was answered", "http": "closed the connection without answering"},
			revisions: 5,
		},
		{
			// capabilities.tools is {} and list_changed comes only with a change: the
			// trigger must be fired all the same for it to be seen (item 1).
			name: "undeclared list_changed", fault: "listchanged-undeclared-on-change", id: "NOTIF-LC-UNDECLARED-01",
			selection: "id:NOTIF-LC-UNDECLARED-01 || id:NOTIF-LC-01", // NOTIF-LC-01 fires the trigger
			want:      map[string]reports.Status{"2024-11-05": reports.Warn, "2025-03-26": reports.Warn, "": reports.Fail},
			says:      map[string]string{"stdio": "capabilities.tools is {}", "http": "capabilities.tools is {}"},
			revisions: 4, // R1–R4: in 2026-07-28 the change is announced on a listen stream (NOTIF-LISTEN-LC-R5-01)
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fixture := shQuote(bin) + " fixture --fault " + tc.fault
			port := freePort(t)
			runs := map[string][]string{
				"stdio": {"--target", fixture + " --transport stdio"},
				"http": {"--target", fmt.Sprintf("%s --transport http --addr 127.0.0.1:%d", fixture, port),
					"--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port)},
			}
			for _, transport := range []string{"stdio", "http"} {
				dir := filepath.Join(t.TempDir(), transport)
				args := append(runs[transport], "--report-dir", dir, "--timeout", "2s", "--label-filter", tc.selection)
				r := runCLI(t, args...)
				wantCode(t, r, 1)
				judged := 0
				for _, col := range loadReports(t, dir).Revisions {
					if col.Transport != transport {
						t.Errorf("%s: column %s ran over %s", transport, col.Revision, col.Transport)
					}
					want, ok := tc.want[col.Revision]
					if !ok {
						want = tc.want[""]
					}
					for _, c := range col.Checks {
						if c.ID != tc.id {
							continue
						}
						judged++
						if c.Status != want || !strings.Contains(c.Message, tc.says[transport]) {
							t.Errorf("%s %s %s: %s %q, want %s saying %q", transport, col.Revision, c.ID, c.Status, c.Message, want, tc.says[transport])
						}
					}
				}
				if judged != tc.revisions {
					t.Errorf("%s: %s judged in %d revisions, want %d", transport, tc.id, judged, tc.revisions)
				}
			}
		})
	}
}
