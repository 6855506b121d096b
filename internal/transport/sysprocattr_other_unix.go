//go:build unix && !linux

package transport

import "syscall"

// newSysProcAttr puts a server in a process group of its own, so that the stop
// sequence reaches everything it started. There is no Pdeathsig outside Linux: a
// server outlives a suite killed with SIGKILL; any other end of the suite stops it.
func newSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
