//go:build unix

package transport

import (
	"errors"
	"os"
	"syscall"
)

// signalNames names the signals a server's exit is reported with.
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT",
	syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL",
	syscall.SIGSEGV: "SIGSEGV", syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM",
	syscall.SIGTERM: "SIGTERM", syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2",
}

// procGroup is, on Unix, the process group the server leads (Setpgid): its id is the
// server's pid, so it needs no state and nothing to release.
type procGroup struct{}

func newProcGroup(*os.Process) procGroup { return procGroup{} }

func (procGroup) release() {}

// groupGone reports whether no member of the process group is left.
func (p *proc) groupGone() bool { return errors.Is(syscall.Kill(-p.pid, 0), syscall.ESRCH) }

// signalGroup sends sig to the whole process group, and to the leader directly while
// it is unreaped (in case it moved itself to another group). ESRCH is expected.
func (p *proc) signalGroup(sig syscall.Signal) {
	_ = syscall.Kill(-p.pid, sig)
	if !p.exited() {
		_ = p.cmd.Process.Signal(sig)
	}
}

// killGroup sends SIGKILL to whatever is left in the group.
func (p *proc) killGroup() { _ = syscall.Kill(-p.pid, syscall.SIGKILL) }
