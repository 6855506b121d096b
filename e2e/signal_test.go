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
