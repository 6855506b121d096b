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
