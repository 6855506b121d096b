package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

// statuses maps "ID REVISION" to the verdict of every check in rep.
func statuses(rep *reports.Report) map[string]reports.Status {
	out := map[string]reports.Status{}
	for _, rev := range rep.Revisions {
		for _, c := range rev.Checks {
			out[c.ID+" "+rev.Revision] = c.Status
		}
	}
	return out
}

// TestBaselineEverything: a baseline written by --write-baseline from a run against
// server-everything makes the next run exit 0, with every failure an expected-fail.
func TestBaselineEverything(t *testing.T) {
	t.Parallel() // long: it overlaps the other long tests (make test-e2e: -parallel)
	_, npmDir := realPaths(t)
	// The oldest and the newest revision: server-everything fails checks at both, and
	// two columns keep this test's four node servers per column affordable next to
	// TestRealServers, which runs every revision.
	target := append([]string{"--target", "node " + shQuote(everythingJS(npmDir)), "--cwd", npmDir, "--timeout", "10s",
		"--revision", "2024-11-05,2025-11-25"}, everythingCalls...)
	dir := t.TempDir()
	file := filepath.Join(dir, "baseline.yml")

	first := runCLI(t, append(target, "--report-dir", filepath.Join(dir, "first"), "--write-baseline", file)...)
	wantCode(t, first, 1) // server-everything fails checks (e2e/testdata/golden/everything-stdio.txt)
	before := loadReports(t, filepath.Join(dir, "first"))
	written, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	second := runCLI(t, append(target, "--report-dir", filepath.Join(dir, "second"), "--baseline", file)...)
	wantCode(t, second, 0)
	after := loadReports(t, filepath.Join(dir, "second"))
	if after.Summary.Fail != 0 || after.Summary.ExpectedFail != before.Summary.Fail {
		t.Errorf("with the baseline: %d fail, %d expected-fail; the first run failed %d\n%s", after.Summary.Fail, after.Summary.ExpectedFail, before.Summary.Fail, written)
	}
	was := statuses(before)
	for key, st := range statuses(after) {
		if was[key] == reports.Fail && st != reports.ExpectedFail {
			t.Errorf("%s failed before, is %s with the baseline", key, st)
		}
	}
	if !strings.Contains(second.stdout, "XFAIL") || !strings.Contains(second.stdout, "expected-fail") {
		t.Errorf("the console does not show the expected failures:\n%s", second.stdout)
	}
}

// TestBaselineFault: the reference server with a fault and a baseline written for it
// exits 0; the same baseline against the clean server fails the run with the stale
// entry named; quarantine and the official suite's shape behave as documented.
func TestBaselineFault(t *testing.T) {
	t.Parallel() // long: it overlaps the other long tests (make test-e2e: -parallel)
	const fault, check = "simple-text-rpc-error", "TOOLS-CALL-01"
	faulty := []string{"--target", shQuote(bin) + " fixture --transport stdio --fault " + fault}
	clean := []string{"--target", shQuote(bin) + " fixture --transport stdio"}
	dir := t.TempDir()
	file := filepath.Join(dir, "baseline.yml")
	run := func(name string, want int, args ...string) (*cliRun, *reports.Report) {
		t.Helper()
		r := runCLI(t, append(args, "--report-dir", filepath.Join(dir, name))...)
		wantCode(t, r, want)
		return r, loadReports(t, filepath.Join(dir, name))
	}

	run("write", 1, append(faulty, "--write-baseline", file)...)
	written, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(written), "id: "+check) || strings.Count(string(written), "- id:") != 1 {
		t.Fatalf("the written baseline should hold exactly %s:\n%s", check, written)
	}

	_, rep := run("faulty", 0, append(faulty, "--baseline", file)...)
	for _, col := range rep.Revisions {
		for _, c := range col.Checks {
			if c.ID == check && (c.Status != reports.ExpectedFail || c.Baseline == nil || c.Baseline.Status != reports.Fail) {
				t.Errorf("%s %s: %s (baseline %+v), want expected-fail of a fail", col.Revision, c.ID, c.Status, c.Baseline)
			}
		}
	}

	out, rep := run("clean", 1, append(clean, "--baseline", file)...)
	if rep.Summary.Fail != 0 || rep.Baseline == nil || len(rep.Baseline.Stale) != 1 || rep.Baseline.Stale[0].ID != check {
		t.Fatalf("against the clean server: want no failure and one stale entry %s, got %+v, baseline %+v", check, rep.Summary, rep.Baseline)
	}
	if !strings.Contains(out.stdout, "stale entry "+check) {
		t.Errorf("the console does not name the stale entry:\n%s", out.stdout)
	}
	matrix, _ := os.ReadFile(filepath.Join(dir, "clean", reports.MatrixFile))
	if !strings.Contains(string(matrix), "stale baseline entry") {
		t.Errorf("matrix.md does not name the stale entry:\n%s", matrix)
	}

	quarantine := filepath.Join(dir, "quarantine.yml")
	if err := os.WriteFile(quarantine, []byte("quarantine:\n  - id: "+check+"\n    revisions: all\n    reason: flaky on CI\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, rep = run("quarantine", 0, append(faulty, "--baseline", quarantine)...)
	if rep.Summary.Fail == 0 || rep.Baseline.Quarantined == 0 || !strings.Contains(out.stdout, "quarantined") {
		t.Errorf("a quarantined failure is still reported as a fail, marked: summary %+v, baseline %+v\n%s", rep.Summary, rep.Baseline, out.stdout)
	}

	official := filepath.Join(dir, "official.yml")
	if err := os.WriteFile(official, []byte("server:\n  - "+check+" # the fault under test\nclient:\n  - sse-retry\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("official", 0, append(faulty, "--baseline", official)...)
	if err := os.WriteFile(official, []byte("server:\n  - tools-call-with-progress\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, append(faulty, "--baseline", official, "--report-dir", filepath.Join(dir, "bad"))...)
	wantCode(t, r, 2)
	if !strings.Contains(r.stderr, "tools-call-with-progress") {
		t.Errorf("a scenario name should be rejected by name:\n%s", r)
	}
}
