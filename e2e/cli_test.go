package e2e

import (
	"strings"
	"testing"
)

// TestCLIInformation covers the commands that print and exit: --help on stdout with
// exit 0, --version with the revisions and the build, --list with the labels
// --label-filter selects by, and --list -v with the spec text.
func TestCLIInformation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Usage:", "Exit codes:", "130 interrupted", "-label-filter", "NO_COLOR"}},
		{[]string{"-h"}, []string{"Usage:"}},
		{[]string{"--version"}, append([]string{"mcp-conform ", "built from: github.com/mcp-conform/mcp-conform"}, allRevisions...)},
		{[]string{"--list"}, []string{"LIFE-INIT-01", "LIFE — lifecycle", "group:LIFE", "phase:clean", "needs:any"}},
		{[]string{"--list", "-v"}, []string{"LIFE-INIT-01", "group:LIFE", "      spec: ", "      file: suites/lifecycle/lifecycle.go", "MUST"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, tc.args...)
			wantCode(t, r, 0)
			if r.stderr != "" {
				t.Errorf("stderr is not empty:\n%s", r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%.2000s", w, r.stdout)
				}
			}
		})
	}
}

// TestConsoleModes runs one revision with -v and with -q: -v shows every check, -q
// only the summary.
func TestConsoleModes(t *testing.T) {
	t.Parallel()
	verbose := runCLI(t, "--revision", "2025-06-18", "-v", "--report-dir", t.TempDir())
	wantCode(t, verbose, 0)
	assertPlainConsole(t, verbose, 0)
	if n := strings.Count(verbose.stdout, "  PASS  "); n < 50 {
		t.Errorf("-v shows %d passing checks, want every one:\n%s", n, verbose.stdout)
	}
	quiet := runCLI(t, "--revision", "2025-06-18", "-q", "--report-dir", t.TempDir())
	wantCode(t, quiet, 0)
	assertPlainConsole(t, quiet, 0)
	if strings.Contains(quiet.stdout, "mcp-conform: testing") || strings.Contains(quiet.stdout, "▶") ||
		!strings.Contains(quiet.stdout, "Summary") || strings.Count(quiet.stdout, "\n") > 15 {
		t.Errorf("-q output:\n%s", quiet.stdout)
	}
	if r := runCLI(t, "-v", "-q"); r.code != 2 {
		t.Errorf("-v -q: exit %d, want 2", r.code)
	}
}
