package transport

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillDescendantsFindsASetsidEscapee: a grandchild that left its process group
// with setsid, and whose parent exited, is re-parented to us (subreaper) and killed.
func TestKillDescendantsFindsASetsidEscapee(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid command")
	}
	if err := BecomeSubreaper(); err != nil {
		t.Fatalf("BecomeSubreaper: %v", err)
	}
	pidFile := t.TempDir() + "/pid"
	// The shell starts a detached sleeper that writes its pid, then exits at once.
	cmd := exec.Command("sh", "-c", `setsid sh -c 'echo $$ > `+pidFile+`; exec sleep 300' &`)
	if err := cmd.Run(); err != nil {
		t.Fatalf("start: %v", err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			pid = p
			break
		}
	}
	if pid == 0 {
		t.Fatal("the escapee never wrote its pid")
	}
	if pp, _ := parentOf(pid); pp != os.Getpid() {
		t.Fatalf("escapee %d has parent %d, want us (%d): subreaper not in effect", pid, pp, os.Getpid())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if n := KillDescendants(ctx); n < 1 {
		t.Fatalf("KillDescendants killed %d processes, want ≥ 1", n)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("escapee %d is still there after KillDescendants", pid)
	}
}

// noChildrenProbeEnv makes the test binary, started by TestNoChildren, answer in a
// process of its own whose only children are the ones it starts.
const noChildrenProbeEnv = "MCPCONFORM_TEST_NO_CHILDREN"

// TestNoChildren: a process that has started nothing has no children; one with a
// running child, or with an exited child not yet reaped, has; once the child is
// reaped it has none again.
func TestNoChildren(t *testing.T) {
	if os.Getenv(noChildrenProbeEnv) == "1" {
		probeNoChildren(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoChildren$", "-test.count=1")
	cmd.Env = append(os.Environ(), noChildrenProbeEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the probe process failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "PASS") {
		t.Fatalf("the probe process ran no test:\n%s", out)
	}
}

func probeNoChildren(t *testing.T) {
	if !noChildren() {
		t.Fatal("noChildren() = false before any child was started")
	}
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	if noChildren() {
		t.Fatal("noChildren() = true with a child running")
	}
	_ = child.Process.Kill()
	// Exited but not reaped: still a child.
	for deadline := time.Now().Add(10 * time.Second); !isZombie(child.Process.Pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed child never exited")
		}
	}
	if noChildren() {
		t.Fatal("noChildren() = true with an exited child not yet reaped")
	}
	_ = child.Wait()
	if !noChildren() {
		t.Fatal("noChildren() = false once the only child was reaped")
	}
}
