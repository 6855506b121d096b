package transport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// BecomeSubreaper makes this process the child subreaper of everything it starts
// (Linux 3.4+): a descendant whose parent exits is re-parented to us, not to init,
// even if it called setsid() to leave its process group. With it, KillDescendants
// finds every process the server started, however it tried to detach. The command
// line tool calls it once at start; a library user keeps init as the reaper.
func BecomeSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", errno)
	}
	return nil
}

// Descendants returns the pids of every live process whose parent chain leads to
// pid, read from /proc.
func Descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	seen := map[int]bool{pid: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// parentOf reads the parent pid from /proc/PID/stat (the field after the command
// name, which is in parentheses and may itself hold spaces or parentheses).
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(string(fields[1]))
	return pp, err == nil
}

// KillDescendants sends SIGKILL to every descendant of this process, again and again
// until none is left alive or ctx ends (a process may fork while we kill), and reaps
// those re-parented to us. It returns how many processes it killed. Processes this
// package started and still tracks are left to their own reaper goroutine.
func KillDescendants(ctx context.Context) int {
	if noChildren() {
		// Nothing to find: every descendant is a child or a child's descendant
		// (with the subreaper, an orphan is re-parented to us). The scan of /proc
		// it spares came after the reports, at the end of every run.
		return 0
	}
	self := os.Getpid()
	own := map[int]bool{}
	registry.Lock()
	for p := range registry.m {
		own[p.pid] = true
	}
	registry.Unlock()
	killed := map[int]bool{}
	for {
		alive := 0
		for _, pid := range Descendants(self) {
			if isZombie(pid) {
				continue
			}
			alive++
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed[pid] = true
			}
		}
		reapOrphans(self, own)
		if alive == 0 || ctx.Err() != nil {
			return len(killed)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// reapOrphans waits for every exited direct child that is not one of ours.
func reapOrphans(self int, own map[int]bool) {
	for _, pid := range Descendants(self) {
		if own[pid] || !isZombie(pid) {
			continue
		}
		if pp, ok := parentOf(pid); !ok || pp != self {
			continue
		}
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// isZombie reports whether pid has exited and waits to be reaped (state Z) or is
// gone already.
func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return true
	}
	return b[i+2] == 'Z' || b[i+2] == 'X'
}

// noChildren reports whether this process has no child at all, alive or exited and
// not yet reaped: only then does waitid(P_ALL, …, WNOHANG|WNOWAIT) fail with ECHILD.
// It reaps nothing.
func noChildren() bool {
	const pAll = 0     // P_ALL from <sys/wait.h>
	var info [128]byte // a siginfo_t, written only when a child has exited
	_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])),
		syscall.WEXITED|syscall.WNOHANG|syscall.WNOWAIT, 0, 0)
	return errno == syscall.ECHILD
}
