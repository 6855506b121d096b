// Command rusage runs a command and appends what it cost to a file, as one JSON line:
// its peak resident set and its CPU time, each including the processes it reaped
// (wait4's rusage).
//
//	rusage OUT argv...
//
// A process's peak RSS as its parent reads it includes the parent's own: a child
// forked from a Go program shares its parent's memory until it calls exec, and Linux
// keeps that memory's high-water mark as the child's. The benchmarks (TestBenchSummary)
// start mcp-conform through this small program, so that the figure is mcp-conform's and
// not the test binary's. Standard input and output pass through; SIGINT and SIGTERM are
// passed on; the exit status is the command's. The bench also wraps each server
// process of a stdio run in it, all appending to one file, to measure the servers'
// own share of the run's CPU.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// cost is what OUT holds.
type cost struct {
	MaxRSSKiB int64 `json:"maxRSSKiB"`
	CPUNanos  int64 `json:"cpuNanos"`
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rusage OUT argv...")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "rusage: %v\n", err)
		os.Exit(2)
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		fmt.Fprintf(os.Stderr, "rusage: %v\n", err)
		os.Exit(2)
	}
	c := cost{CPUNanos: int64(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		c.MaxRSSKiB = int64(ru.Maxrss)
	}
	raw, _ := json.Marshal(c)
	if err := appendLine(os.Args[1], raw); err != nil {
		fmt.Fprintf(os.Stderr, "rusage: %v\n", err)
		os.Exit(2)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		os.Exit(128 + int(ws.Signal()))
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// appendLine appends raw and a newline to the file at path in one write, so that the
// lines of processes that end at the same moment do not interleave.
func appendLine(path string, raw []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(raw, '\n')); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
