package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

// authRun runs the suite against the protected fixture (its token hostileSecret),
// with the faults named, and with the token (--header Authorization) when withToken.
func authRun(t *testing.T, withToken bool, faults ...string) (*cliRun, *reports.Report, string) {
	t.Helper()
	port := freePort(t)
	server := []string{shQuote(bin), "fixture", "--transport", "http", "--era", "dual", "--auth-token", hostileSecret,
		"--addr", fmt.Sprintf("127.0.0.1:%d", port)}
	for _, f := range faults {
		server = append(server, "--fault", f)
	}
	dir := filepath.Join(t.TempDir(), "report")
	args := []string{"--target", strings.Join(server, " "), "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
		"--report-dir", dir, "--timeout", stTimeout}
	if withToken {
		args = append(args, "--header", "Authorization: Bearer "+hostileSecret)
	}
	r := runCLI(t, args...)
	return r, loadReports(t, dir), dir
}

// tokenHint is the start of the one line a run without a token prints.
const tokenHint = "the server requires a token (HTTP 401 without one)"

// TestAuthWithoutToken (issue 35): a run without a token against a protected server
// is no unreachable target: it judges the AUTH rows, skips every other check as
// needs-token, says in one line how to give a token, and its exit code is the AUTH
// verdicts' (0 clean, 1 with an AUTH rule broken).
func TestAuthWithoutToken(t *testing.T) {
	for _, tc := range []struct {
		fault string
		code  int
	}{{"", 0}, {"auth-prm-wrong-resource", 1}} {
		t.Run("fault="+tc.fault, func(t *testing.T) {
			var faults []string
			if tc.fault != "" {
				faults = append(faults, tc.fault)
			}
			r, rep, _ := authRun(t, false, faults...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r)
			}
			if n := strings.Count(r.stdout+r.stderr, tokenHint); n != 1 {
				t.Errorf("the hint %q is printed %d times, want once\n%s", tokenHint, n, r)
			}
			if !strings.Contains(r.stdout+r.stderr, `--header "Authorization: Bearer ${TOKEN}"`) {
				t.Errorf("the hint does not say how to give a token\n%s", r)
			}
			auth := 0
			for _, col := range rep.Revisions {
				for _, c := range col.Checks {
					switch {
					case strings.HasPrefix(c.ID, "AUTH-"):
						auth++
						if c.Status == reports.Error {
							t.Errorf("%s %s: error: %s", col.Revision, c.ID, c.Message)
						}
					case c.Status != reports.Skip || c.Reason != reports.NeedsToken:
						t.Errorf("%s %s: %s (%s), want skip needs-token", col.Revision, c.ID, c.Status, c.Message)
					}
				}
			}
			if auth == 0 {
				t.Error("no AUTH check ran")
			}
		})
	}
}

// TestAuthTokenRefused: a token the server refuses is no pass: only the AUTH checks
// run, the note says the token was refused, and the run fails (exit 1).
func TestAuthTokenRefused(t *testing.T) {
	port := freePort(t)
	dir := filepath.Join(t.TempDir(), "report")
	r := runCLI(t, "--target", fmt.Sprintf("%s fixture --transport http --auth-token right-token --addr 127.0.0.1:%d", shQuote(bin), port),
		"--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port), "--header", "Authorization: Bearer wrong-token",
		"--report-dir", dir, "--timeout", stTimeout, "--focus", "AUTH-401-01|TOOLS-LIST-")
	if r.code != 1 {
		t.Errorf("exit %d, want 1\n%s", r.code, r)
	}
	if !strings.Contains(r.stdout, "it refused it") {
		t.Errorf("no note that the token was refused\n%s", r)
	}
	rep := loadReports(t, dir)
	for _, col := range rep.Revisions {
		for _, c := range col.Checks {
			if !strings.HasPrefix(c.ID, "AUTH-") && c.Reason != reports.NeedsToken {
				t.Errorf("%s %s: %s (%s), want skip needs-token", col.Revision, c.ID, c.Status, c.Message)
			}
		}
	}
}

// TestAuthTokenNeverWritten (issue 35): with the token the whole suite runs (the
// AUTH checks probe without it, one offers it in the query string), and no form of
// it is in the console output or any file the run writes.
func TestAuthTokenNeverWritten(t *testing.T) {
	r, rep, dir := authRun(t, true)
	if r.code != 0 {
		t.Errorf("exit %d, want 0\n%s", r.code, r)
	}
	ran := map[string]bool{}
	for _, col := range rep.Revisions {
		for _, c := range col.Checks {
			if c.Status == reports.Pass {
				ran[strings.SplitN(c.ID, "-", 2)[0]] = true
			}
			if c.Reason == reports.NeedsToken {
				t.Errorf("%s %s skipped as needs-token with the token given", col.Revision, c.ID)
			}
		}
	}
	for _, g := range []string{"AUTH", "TOOLS", "BASE", "SHTTP"} {
		if !ran[g] {
			t.Errorf("no %s check passed", g)
		}
	}
	assertNoSecretIn(t, dir, r)
}
