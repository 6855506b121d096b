package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/reports"
)

// TestBundledStdio runs every check against the bundled reference server (no
// --target) over stdio: exit 0, every revision negotiated, nothing failed or errored,
// and the three reports agree.
func TestBundledStdio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, "--report-dir", dir)
	wantCode(t, r, 0)
	rep := loadReports(t, dir)
	assertAllPass(t, rep, "stdio")
	// The default console of a clean run is short, plain and ends with the exit code.
	lines := strings.Count(r.stdout, "\n")
	t.Logf("clean run: %d console lines", lines)
	if lines >= 60 {
		t.Errorf("a clean run printed %d lines, want under 60:\n%s", lines, r.stdout)
	}
	assertPlainConsole(t, r, 0)
	// The only skips against the reference server over stdio: the rules of the HTTP
	// transports (Streamable HTTP, HTTP+SSE, 2026-07-28's) and of a protected HTTP
	// server (AUTH), the extension rule (it
	// advertises none), the rule for modern-only servers (it is dual-era by default),
	// the server-sent cancellations and requests it never has reason to send
	// (opportunistic rows), LIFE-VERSION-ERRSHAPE-01 (it answers an unsupported
	// version with one it supports, as the lifecycle page prefers: no error to judge),
	// and the rules of a capability left undeclared (ERR-NOTDECLARED-01,
	// RES-UNDECLARED-01, RES-SUB-UNDECLARED-01): it declares every capability it
	// serves, so their faults prove them.
	for _, rev := range rep.Revisions {
		for _, c := range rev.Checks {
			if c.Status == reports.Skip && !(strings.HasPrefix(c.ID, "H5-") || strings.HasPrefix(c.ID, "SHTTP-") || strings.HasPrefix(c.ID, "SSE-") || strings.HasPrefix(c.ID, "AUTH-") ||
				c.ID == "MOD-EXT-01" || c.ID == "MOD-LEGACY-INIT-01" || c.ID == "CANCEL-R5-SERVER-01" || c.ID == "CANCEL-DIRECTION-01" ||
				c.ID == "BASE-SRVREQ-ID-01" || c.ID == "LIFE-VERSION-ERRSHAPE-01" ||
				c.ID == "ERR-NOTDECLARED-01" || c.ID == "RES-UNDECLARED-01" || c.ID == "RES-SUB-UNDECLARED-01") {
				t.Errorf("%s %s skipped against the reference server: %s", rev.Revision, c.ID, c.Message)
			}
		}
	}
	result := fmt.Sprintf("result: PASS (%d passed, %d skipped)", rep.Summary.Pass, rep.Summary.Skip)
	for _, w := range []string{"the bundled reference server", "Summary", result} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("console lacks %q:\n%s", w, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "PASS  ") || strings.Contains(r.stdout, "go-build") {
		t.Errorf("the default console lists passes or a temporary path:\n%s", r.stdout)
	}
}

// assertPlainConsole checks that output to a pipe has no escape sequence and that
// its last line gives the process's exit code.
func assertPlainConsole(t testing.TB, r *cliRun, code int) {
	t.Helper()
	if strings.Contains(r.stdout, "\x1b") || strings.Contains(r.stderr, "\x1b") {
		t.Errorf("escape sequences written to a pipe:\n%s", r)
	}
	out := strings.TrimRight(r.stdout, "\n")
	last := out[strings.LastIndex(out, "\n")+1:]
	if !strings.HasSuffix(last, fmt.Sprintf("— exit %d", code)) {
		t.Errorf("last line %q does not give exit %d", last, code)
	}
}

// TestHTTPTransports runs the suite against the reference server served over
// Streamable HTTP and HTTP+SSE, with the transport forced and detected.
func TestHTTPTransports(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		serve   string   // fixture --transport
		flags   []string // after --target URL
		carried string   // the transport every column must report
	}{
		{name: "streamable detected", serve: "http", carried: "http"},
		{name: "streamable forced", serve: "http", flags: []string{"--transport", "http"}, carried: "http"},
		{name: "sse forced", serve: "sse", flags: []string{"--transport", "sse"}, carried: "sse"},
		// Streamable HTTP initialize gets a 4xx from an HTTP+SSE server, and the run
		// falls back to HTTP+SSE.
		{name: "sse detected", serve: "sse", carried: "sse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := startFixture(t, tc.serve)
			dir := t.TempDir()
			args := append([]string{"--target", url, "--report-dir", dir}, tc.flags...)
			r := runCLI(t, args...)
			wantCode(t, r, 0)
			rep := loadReports(t, dir)
			if rep.Target != url {
				t.Errorf("report.json target %q, want %q", rep.Target, url)
			}
			assertAllPass(t, rep, tc.carried)
		})
	}
}

// TestLaunchedHTTP has the run launch the reference server itself (--target CMD --url
// URL) and speak Streamable HTTP to it; the launched server must be gone afterwards.
func TestLaunchedHTTP(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "report")
	pidFile := filepath.Join(tmp, "pids")
	port := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	target := pidRecordingTarget(pidFile, fmt.Sprintf("%s fixture --transport http --addr 127.0.0.1:%d", shQuote(bin), port))
	r := runCLI(t, "--target", target, "--url", url, "--report-dir", dir)
	pids := readPIDs(t, pidFile)
	assertGone(t, pids)
	if len(pids) != 1 {
		t.Errorf("the server was launched %d times, want once: pids %v", len(pids), pids)
	}
	wantCode(t, r, 0)
	rep := loadReports(t, dir)
	assertAllPass(t, rep, "http")
}

// TestList checks that --list names every registered check with its revisions under
// the heading of its catalogue group, and that a full run has each listed check in
// exactly the revisions listed for it.
func TestList(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "--list")
	wantCode(t, r, 0)
	listed := map[string][]string{} // ID → revisions
	group := ""
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "  ") { // a group heading: "TOOLS — … (suites/tools)"
			group, _, _ = strings.Cut(line, " ")
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("--list line %q: want \"ID REVISIONS LEVEL LABELS TITLE\"", line)
		}
		if !strings.Contains(line, " group:"+group+" ") {
			t.Errorf("--list %s stands under the heading %s but is labelled otherwise: %q", f[0], group, line)
		}
		revs := strings.Split(f[1], ",")
		for _, rev := range revs {
			if !slices.Contains(allRevisions, rev) {
				t.Errorf("--list %s: unknown revision %q in %q", f[0], rev, f[1])
			}
		}
		if _, dup := listed[f[0]]; dup {
			t.Errorf("--list names %s twice", f[0])
		}
		listed[f[0]] = revs
	}
	for _, id := range []string{"LIFE-INIT-01", "BASE-SCHEMA-01", "PING-01"} {
		if _, ok := listed[id]; !ok {
			t.Errorf("--list does not name %s\n%s", id, r.stdout)
		}
	}

	dir := t.TempDir()
	full := runCLI(t, "--report-dir", dir)
	wantCode(t, full, 0)
	rep := loadReports(t, dir)
	ran := map[string][]string{} // ID → revisions it ran in
	for _, rev := range rep.Revisions {
		for _, c := range rev.Checks {
			ran[c.ID] = append(ran[c.ID], rev.Revision)
		}
	}
	for id, revs := range listed {
		if !slices.Equal(ran[id], revs) {
			t.Errorf("--list gives %s revisions %q; the full run has it in %q", id, revs, ran[id])
		}
	}
	for id := range ran {
		if _, ok := listed[id]; !ok {
			t.Errorf("check %s ran but --list does not name it", id)
		}
	}
}

// TestExitCodes covers the failure paths: usage errors (2), a server that exits at
// once or never answers (4), and a filter that matches nothing (3).
func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// args are the flags; tmp is a directory of the case's own (for a pid file).
		args func(tmp string) []string
		want int
		// stderr is a substring the usage error must name.
		stderr string
		// reports: the run writes reports, each of its checks has status (none at
		// all when status is empty).
		reports bool
		status  reports.Status
		// pids: the target records its pids in tmp/pids; all must be gone after.
		pids bool
		// maxWall bounds the run's wall time (0: only cliTimeout).
		maxWall time.Duration
		// stdout: substrings the console must show; maxLines bounds it (0: no bound).
		stdout   []string
		maxLines int
	}{
		{
			name:   "unknown flag",
			args:   func(string) []string { return []string{"--no-such-flag"} },
			want:   2,
			stderr: "no-such-flag",
		},
		{
			name:   "unknown revision",
			args:   func(string) []string { return []string{"--revision", "1999-01-01"} },
			want:   2,
			stderr: "1999-01-01",
		},
		{
			name:   "unknown transport",
			args:   func(string) []string { return []string{"--transport", "bogus"} },
			want:   2,
			stderr: "bogus",
		},
		{
			name:    "server exits at once",
			args:    func(string) []string { return []string{"--target", "sh -c 'echo cannot load server.js >&2; exit 3'"} },
			want:    4,
			reports: true,
			status:  reports.Error,
			// The cause once, with the server's stderr, not a line per check.
			stdout:   []string{"the target could not be reached", "cannot load server.js", "result: UNREACHABLE"},
			maxLines: 19,
		},
		{
			name: "server never answers",
			args: func(tmp string) []string {
				return []string{"--timeout", "1s", "--start-timeout", "1s", "--target", pidRecordingTarget(filepath.Join(tmp, "pids"), silentServer)}
			},
			want:    4,
			reports: true,
			status:  reports.Error,
			pids:    true,
			maxWall: 15 * time.Second,
		},
		{
			name:    "filter matches nothing",
			args:    func(string) []string { return []string{"--focus", "NOTHING-MATCHES-THIS"} },
			want:    3,
			reports: true,
			stdout:  []string{"no check matched the selection", "result: NOTHING RAN"},
		},
		{
			name:   "label filter syntax error, no escapes",
			args:   func(string) []string { return []string{"--label-filter", "(("} },
			want:   2,
			stderr: "--label-filter",
		},
		{
			// Found before the run: nothing is launched, the exit is 2.
			name: "report dir not writable",
			args: func(tmp string) []string {
				file := filepath.Join(tmp, "a-file")
				if err := os.WriteFile(file, nil, 0o600); err != nil {
					panic(err)
				}
				return []string{"--target", "sh -c 'echo launched >&2; exit 1'", "--report-dir", filepath.Join(file, "sub")}
			},
			want:   2,
			stderr: "--report-dir",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "report")
			r := runCLI(t, append([]string{"--report-dir", dir}, tc.args(tmp)...)...)
			if tc.pids {
				assertGone(t, readPIDs(t, filepath.Join(tmp, "pids")))
			}
			wantCode(t, r, tc.want)
			if tc.maxWall > 0 && r.elapsed > tc.maxWall {
				t.Errorf("took %s, want under %s\n%s", r.elapsed, tc.maxWall, r)
			}
			if tc.stderr != "" && !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr does not name %q\n%s", tc.stderr, r)
			}
			if strings.Contains(r.stdout+r.stderr, "\x1b") {
				t.Errorf("escape sequences written to a pipe:\n%s", r)
			}
			for _, w := range tc.stdout {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("console lacks %q\n%s", w, r)
				}
			}
			if n := strings.Count(r.stdout, "\n"); tc.maxLines > 0 && n > tc.maxLines {
				t.Errorf("console has %d lines, want at most %d\n%s", n, tc.maxLines, r)
			} else if tc.maxLines > 0 {
				t.Logf("%s: %d console lines", tc.name, n)
			}
			if !tc.reports {
				return
			}
			rep := loadReports(t, dir)
			if rep.ExitCode != tc.want {
				t.Errorf("report.json exitCode %d, want %d", rep.ExitCode, tc.want)
			}
			if tc.status == "" {
				if rep.Summary.Total != 0 {
					t.Errorf("report.json has %d checks, want none: %+v", rep.Summary.Total, rep.Summary)
				}
				return
			}
			assertAllStatus(t, rep, tc.status)
		})
	}
}

// TestProcessBudget counts the server processes a run starts over stdio: one per
// revision's column (2026-07-28's included: its era probe is its session), whose
// opening also makes the pre-initialize probes (T.PreInit), which ends with the
// probes that may end a session (T.SpareSession: unparseable input, invalid
// requests, batches; the reference server survives them, so no spare is opened) and
// whose end, stdin closed when the column settles, the stdio shutdown checks judge
// (LIFE-SHUTDOWN-STDIO-01, STDIO-EOF-EXIT-01: the reference server exits on it, so
// no stop probe is opened), plus the one the unsupported-version probe needs, plus
// the second connection RES-R5-LIST-SET-01 compares in 2026-07-28 (its rule is about
// another connection), and no more; the 2026-07-28 column alone is two processes.
// On a legacy-only server the unsupported-version probe goes on with the process
// that answered the 2026-07-28 era probe (a dual-era client's fallback), so the run
// starts one process fewer.
func TestProcessBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		want   int
		server string // fixture flags
	}{
		{"every revision", nil, len(allRevisions) + 1 + 1, ""},
		{"2026-07-28 alone", []string{"--revision", "2026-07-28"}, 2, ""},
		{"a legacy-only server", nil, len(allRevisions), "--era legacy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			pidFile := filepath.Join(tmp, "pids")
			args := append([]string{"--target", pidRecordingTarget(pidFile, shQuote(bin)+" fixture --transport stdio "+tc.server), "--report-dir", filepath.Join(tmp, "report")}, tc.args...)
			r := runCLI(t, args...)
			wantCode(t, r, 0)
			pids := readPIDs(t, pidFile)
			assertGone(t, pids)
			if len(pids) != tc.want {
				t.Errorf("%d server processes started, want %d", len(pids), tc.want)
			}
			// The report's cost counts the sessions the run opened: over stdio, one
			// process each.
			if rep := loadReports(t, filepath.Join(tmp, "report")); rep.Cost == nil || rep.Cost.Sessions != len(pids) || rep.Cost.Requests == 0 {
				t.Errorf("report cost %+v, want %d sessions (the processes started) and some requests", rep.Cost, len(pids))
			}
		})
	}
}
