package e2e

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaunchedTargetIsTheOneTested runs --target CMD --url URL (issue 32): a port
// another process already serves before the launch is refused (exit 2, naming the
// port) instead of being tested in the launched command's place; a command that exits
// at once while nothing listens is unreachable (exit 4, naming its exit); a launched
// reference server still passes.
func TestLaunchedTargetIsTheOneTested(t *testing.T) {
	t.Parallel()
	stale := startFixture(t, "http") // a stale dev server on the port
	u, err := url.Parse(stale)
	if err != nil {
		t.Fatal(err)
	}
	stalePort := u.Port()
	tests := []struct {
		name   string
		target func(port int) string
		url    func(port int) string
		code   int
		stdout string
		stderr string
	}{
		{
			name:   "port already served",
			target: func(int) string { return "false" },
			url:    func(int) string { return stale },
			code:   2,
			stderr: "another process already listens on port " + stalePort,
		},
		{
			name:   "exits at once, nothing listens",
			target: func(int) string { return "false" },
			url:    func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d/mcp", port) },
			code:   4,
			stdout: `the launched command "false" exited (exit status 1)`,
		},
		{
			name: "reference server",
			target: func(port int) string {
				return fmt.Sprintf("%s fixture --transport http --addr 127.0.0.1:%d", shQuote(bin), port)
			},
			url:    func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d/mcp", port) },
			code:   0,
			stdout: "result: PASS",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			port := freePort(t)
			dir := filepath.Join(t.TempDir(), "report")
			r := runCLI(t, "--target", tc.target(port), "--url", tc.url(port), "--revision", "2025-06-18", "--report-dir", dir)
			wantCode(t, r, tc.code)
			if !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("want stdout with %q and stderr with %q\n%s", tc.stdout, tc.stderr, r)
			}
			if tc.code == 2 {
				if _, err := os.Stat(filepath.Join(dir, "report.json")); err == nil {
					t.Errorf("a refused run wrote a report to %s", dir)
				}
			}
		})
	}
	// The stale server was left alone: it still accepts connections.
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Errorf("the stale server at %s no longer accepts connections: %v", u.Host, err)
	} else {
		c.Close()
	}
}
