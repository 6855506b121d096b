package transport

import "syscall"

// newSysProcAttr puts a server in a process group of its own, so that the stop
// sequence reaches everything it started, and has the kernel kill it if the suite
// dies without stopping it (Pdeathsig).
func newSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
