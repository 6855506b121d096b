package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/reports"
)

// interruptExitBound is how soon an interrupted run must exit after SIGINT: its
// servers get stdin closed, SIGTERM and SIGKILL, a KillGrace (2 s) apart at most.
const interruptExitBound = 10 * time.Second

// TestInterrupt sends SIGINT (Ctrl-C) to a run waiting on a silent server with a long
// request timeout: it must exit promptly, write a report whose checks are errors (an
// interrupted check verified nothing) and leave no server behind.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "report")
	pidFile := filepath.Join(tmp, "pids")
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := command(ctx, "--timeout", "30s", "--report-dir", dir,
		"--target", pidRecordingTarget(pidFile, silentServer))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mcp-conform: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped { // a failed assertion below: do not leave the run behind
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	// Interrupt once a server is up and the run is waiting on it, and no sooner than
	// 300 ms in, as a person pressing Ctrl-C would.
	started := time.Now()
	waitForFile(t, pidFile, 15*time.Second)
	if d := 300*time.Millisecond - time.Since(started); d > 0 {
		time.Sleep(d)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("send SIGINT: %v", err)
	}
	signalled := time.Now()
	var err error
	select {
	case err = <-exited:
		stopped = true
	case <-time.After(interruptExitBound):
		t.Fatalf("mcp-conform still running %s after SIGINT\nstdout:\n%s", interruptExitBound, &stdout)
	}
	took := time.Since(signalled)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("mcp-conform: %v", err)
	}
	code := cmd.ProcessState.ExitCode()
	t.Logf("exit %d %s after SIGINT", code, took.Round(time.Millisecond))
	assertGone(t, readPIDs(t, pidFile))
	// An interrupted run has its own exit code, distinct from a failed check.
	if code != reports.ExitInterrupted {
		t.Fatalf("exit code %d after SIGINT, want %d\nstdout:\n%s\nstderr:\n%s", code, reports.ExitInterrupted, &stdout, &stderr)
	}
	// The console says so once, not once per check that did not run.
	if out := stdout.String(); !strings.Contains(out, "interrupted") || strings.Count(out, "\n") > 30 ||
		!strings.HasSuffix(out, "— exit 130\n") {
		t.Errorf("console after SIGINT (%d lines):\n%s", strings.Count(out, "\n"), out)
	}
	rep := loadReports(t, dir)
	if rep.ExitCode != code {
		t.Errorf("report.json exitCode %d, process exit %d", rep.ExitCode, code)
	}
	assertAllStatus(t, rep, reports.Error)
}

// TestInterruptTargets sends SIGINT to a --targets run of three silent servers at
// --jobs 2: the two running stop and write their reports, the third never starts
// and is named as not run, the matrix of what ran is written, the run exits 130
// promptly, and no server is left.
func TestInterruptTargets(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	pidFile := filepath.Join(tmp, "pids")
	var entries []ecosystemEntry
	for _, name := range []string{"silent-1", "silent-2", "silent-3"} {
		entries = append(entries, ecosystemEntry{name, []string{"--target", pidRecordingTarget(pidFile, silentServer), "--revision", "2025-06-18"}})
	}
	if err := os.WriteFile(filepath.Join(tmp, "servers.yaml"), []byte(entriesYAML(t, entries)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := command(ctx, "--targets", "servers.yaml", "--jobs", "2", "--timeout", "30s", "--start-timeout", "30s")
	cmd.Dir = tmp
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mcp-conform: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Both running targets have launched their server.
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(pidFile)
		if len(strings.Fields(string(data))) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("the targets' servers did not start\n%s", stdout.String())
		}
		time.Sleep(pollEvery)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(2 * interruptExitBound):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("still running %s after SIGINT\n%s", 2*interruptExitBound, stdout.String())
	}
	assertGone(t, readPIDs(t, pidFile))
	if code := cmd.ProcessState.ExitCode(); code != reports.ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, reports.ExitInterrupted, stdout.String(), stderr.String())
	}
	m := readMatrix(t, filepath.Join(tmp, "mcp-conform-matrix"))
	if len(m.Rows) != 2 || len(m.Skipped) != 1 || !strings.Contains(m.Skipped[0].Problem, "not run: interrupted") {
		t.Errorf("rows %d, skipped %+v: want the two that ran and the one that did not\n%s", len(m.Rows), m.Skipped, stdout.String())
	}
	for _, row := range m.Rows {
		if row.ExitCode != reports.ExitInterrupted {
			t.Errorf("%s: exit %d, want %d", row.Name, row.ExitCode, reports.ExitInterrupted)
		}
	}
	if !strings.Contains(lastLine(stdout.String()), "interrupted") {
		t.Errorf("the last line does not say the run was interrupted:\n%s", stdout.String())
	}
}
