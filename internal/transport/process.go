package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ProcessConfig says how to launch a server process.
type ProcessConfig struct {
	// Argv is the command and its arguments; Argv[0] is looked up in PATH.
	Argv []string
	// Env holds extra KEY=VALUE entries appended to os.Environ().
	Env []string
	// Dir is the working directory ("" means the current one).
	Dir string
	// KillGrace is how long each stop step waits before escalating: stdin closed,
	// then SIGTERM, then SIGKILL. Zero means 2s.
	KillGrace time.Duration
	// TermFirst sends SIGTERM as soon as stdin is closed, without waiting KillGrace for
	// an exit on EOF: for a launched HTTP server, which has no reason to read stdin.
	TermFirst bool
	// Limits bounds frames and captured output.
	Limits Limits
}

const defaultKillGrace = 2 * time.Second

// Ending says what brought a launched process to exit.
type Ending int

// The ways a launched process can end.
const (
	// Running: the process has not exited yet.
	Running Ending = iota
	// EndedByItself: it exited before any stop step was taken.
	EndedByItself
	// EndedOnEOF: it exited after its stdin was closed, before SIGTERM.
	EndedOnEOF
	// EndedOnSIGTERM: it exited after SIGTERM was sent to its group.
	EndedOnSIGTERM
	// EndedOnSIGKILL: it was still alive when SIGKILL was sent to its group.
	EndedOnSIGKILL
)

// ExitInfo describes how a launched process ended.
type ExitInfo struct {
	// Ending says which stop step, if any, preceded the exit.
	Ending Ending
	// Code is the exit status, or -1 when a signal ended the process.
	Code int
	// Signal is the signal that ended the process, or 0.
	Signal syscall.Signal
	// TermSent says whether SIGTERM had been sent before it ended.
	TermSent bool
	// At is when the process was reaped.
	At time.Time
}

// String describes the exit, e.g. "exit status 1", "exit status 0 after stdin was
// closed" or "killed by SIGKILL after SIGTERM was ignored"; "" while running.
func (e ExitInfo) String() string {
	if e.Ending == Running {
		return ""
	}
	base := fmt.Sprintf("exit status %d", e.Code)
	if e.Signal != 0 {
		base = "killed by " + signalName(e.Signal)
	}
	switch e.Ending {
	case EndedOnEOF:
		return base + " after stdin was closed"
	case EndedOnSIGTERM:
		if e.Signal == syscall.SIGTERM {
			return base
		}
		return base + " after SIGTERM"
	case EndedOnSIGKILL:
		if e.TermSent {
			return base + " after SIGTERM was ignored"
		}
		return base + " when the stop deadline passed"
	}
	return base
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	plain := fmt.Sprintf("signal %d", int(s))
	if desc := s.String(); desc != plain {
		return fmt.Sprintf("%s (%s)", plain, desc)
	}
	return plain
}

// Stop stages, in the order they are taken.
const (
	stageRunning int32 = iota
	stageStdinClosed
	stageTermSent
	stageKillSent
)

// proc is a launched process in its own process group, with the stop sequence and the
// reaping shared by Stdio and Process.
type proc struct {
	cmd   *exec.Cmd
	name  string
	pid   int
	grace time.Duration
	// termNow skips the wait for an exit on stdin EOF (ProcessConfig.TermFirst).
	termNow bool
	stdin   *os.File // our end of the child's stdin

	stdinOnce sync.Once
	stage     atomic.Int32
	termSent  atomic.Bool

	// group is the platform's hold on the process and everything it starts: the
	// process group on Unix, a job object on Windows (process_unix.go,
	// process_windows.go).
	group procGroup

	done   chan struct{} // closed once reaped; exit is set before
	exitMu sync.Mutex
	exit   ExitInfo
	onExit func(ExitInfo) // called by the reaper before done is closed

	stopOnce sync.Once
	stopped  chan struct{} // closed when the stop sequence has finished
}

// registry holds every process this package started whose group may still be alive.
var registry = struct {
	sync.Mutex
	m map[*proc]struct{}
}{m: map[*proc]struct{}{}}

func register(p *proc) {
	registry.Lock()
	registry.m[p] = struct{}{}
	registry.Unlock()
}

func unregister(p *proc) {
	registry.Lock()
	delete(registry.m, p)
	registry.Unlock()
}

// StopAll stops every process this package started that is still alive, all at once,
// each with the usual stop sequence (stdin closed, SIGTERM, SIGKILL to its group). The
// runner calls it on interrupt or timeout. It returns when all of them are reaped or
// ctx is done; past ctx, survivors are sent SIGKILL at once.
func StopAll(ctx context.Context) {
	registry.Lock()
	ps := make([]*proc, 0, len(registry.m))
	for p := range registry.m {
		ps = append(ps, p)
	}
	registry.Unlock()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.stop(ctx)
		}()
	}
	wg.Wait()
}

// startProc launches cfg.Argv in a new process group with a stdin pipe. stdout and
// stderr are the child's ends of the caller's pipes; startProc always closes them.
func startProc(ctx context.Context, cfg ProcessConfig, stdout, stderr *os.File, onExit func(ExitInfo)) (*proc, error) {
	defer stdout.Close()
	if stderr != stdout {
		defer stderr.Close()
	}
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return nil, errors.New("start server: empty command")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start %q: %w", cfg.Argv[0], err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %q: stdin pipe: %w", cfg.Argv[0], err)
	}
	defer inR.Close()
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Env = append(os.Environ(), cfg.Env...)
	cmd.Dir = cfg.Dir
	cmd.Stdin = inR
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.SysProcAttr = newSysProcAttr()
	if err := cmd.Start(); err != nil {
		inW.Close()
		return nil, fmt.Errorf("start %q: %w", cfg.Argv[0], err)
	}
	grace := cfg.KillGrace
	if grace <= 0 {
		grace = defaultKillGrace
	}
	p := &proc{
		cmd:     cmd,
		name:    cfg.Argv[0],
		pid:     cmd.Process.Pid,
		grace:   grace,
		termNow: cfg.TermFirst,
		stdin:   inW,
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
		onExit:  onExit,
	}
	p.group = newProcGroup(cmd.Process)
	register(p)
	go p.reap()
	return p, nil
}

// reap waits for the process, records how it ended and closes done. It leaves the
// registry only when no member of the group is left; otherwise stop must run.
func (p *proc) reap() {
	_ = p.cmd.Wait() // the exit is read from ProcessState
	info := ExitInfo{Code: -1, At: time.Now(), TermSent: p.termSent.Load()}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		if ws.Signaled() {
			info.Signal = ws.Signal()
		} else {
			info.Code = ws.ExitStatus()
		}
	} else {
		info.Code = p.cmd.ProcessState.ExitCode()
	}
	switch p.stage.Load() {
	case stageRunning:
		info.Ending = EndedByItself
	case stageStdinClosed:
		info.Ending = EndedOnEOF
	case stageTermSent:
		info.Ending = EndedOnSIGTERM
	default:
		info.Ending = EndedOnSIGKILL
	}
	p.exitMu.Lock()
	p.exit = info
	p.exitMu.Unlock()
	if p.onExit != nil {
		p.onExit(info)
	}
	close(p.done)
	if p.groupGone() {
		p.group.release()
		unregister(p)
	}
}

// exitInfo returns how the process ended, or the zero ExitInfo (Running).
func (p *proc) exitInfo() ExitInfo {
	p.exitMu.Lock()
	defer p.exitMu.Unlock()
	return p.exit
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// advance moves the stop stage forward to s (never back).
func (p *proc) advance(s int32) {
	for {
		cur := p.stage.Load()
		if cur >= s || p.stage.CompareAndSwap(cur, s) {
			return
		}
	}
}

func (p *proc) closeStdin() {
	p.stdinOnce.Do(func() { _ = p.stdin.Close() })
}

// kill skips the remaining grace periods: SIGKILL to the group now.
func (p *proc) kill() {
	p.closeStdin()
	if !p.exited() {
		p.advance(stageKillSent)
	}
	p.signalGroup(syscall.SIGKILL)
}

// stop runs the stop sequence (once, however often it is called) and waits for it,
// bounded by ctx. When ctx ends first the group gets SIGKILL at once.
func (p *proc) stop(ctx context.Context) error {
	p.stopOnce.Do(func() { go p.stopSequence() })
	select {
	case <-p.stopped:
		return nil
	case <-ctx.Done():
		p.kill()
		return fmt.Errorf("stop %s (pid %d): %w", p.name, p.pid, ctx.Err())
	}
}

// stopSequence closes stdin, waits, sends SIGTERM to the group, waits, sends SIGKILL,
// and after the leader is reaped sends SIGKILL to the group again for grandchildren.
func (p *proc) stopSequence() {
	defer close(p.stopped)
	wait := func() bool {
		t := time.NewTimer(p.grace)
		defer t.Stop()
		select {
		case <-p.done:
			return true
		case <-t.C:
			return false
		}
	}
	if !p.exited() {
		p.advance(stageStdinClosed)
	}
	p.closeStdin()
	if p.termNow || !wait() {
		p.termSent.Store(true)
		p.advance(stageTermSent)
		p.signalGroup(syscall.SIGTERM)
		if !wait() {
			p.advance(stageKillSent)
			p.signalGroup(syscall.SIGKILL)
			<-p.done // SIGKILL cannot be ignored; the reaper follows at once
		}
	}
	p.killGroup() // grandchildren left in the group
	p.group.release()
	unregister(p)
}

// Process is a server launched for an HTTP target (--target CMD --url URL). Its stdin
// is a pipe kept open until Stop; stdout and stderr go into one bounded buffer.
type Process struct {
	p       *proc
	out     *capBuffer
	outR    *os.File
	copied  chan struct{} // closed when the output copier has finished
	outOnce sync.Once
}

// Launch starts cfg.Argv in its own process group. ctx bounds only the start; the
// process runs until Stop, StopAll, or its own exit. At most cfg.Limits.MaxStderr bytes
// of combined stdout and stderr are kept.
func Launch(ctx context.Context, cfg ProcessConfig) (*Process, error) {
	cfg.Limits = cfg.Limits.WithDefaults()
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("launch: output pipe: %w", err)
	}
	p, err := startProc(ctx, cfg, outW, outW, nil)
	if err != nil {
		outR.Close()
		return nil, err
	}
	pr := &Process{p: p, out: newCapBuffer(cfg.Limits.MaxStderr), outR: outR, copied: make(chan struct{})}
	go func() {
		defer close(pr.copied)
		_, _ = io.Copy(pr.out, outR) // ends at EOF or when Stop closes outR
	}()
	return pr, nil
}

// Pid returns the process id (which is also its process group id).
func (pr *Process) Pid() int { return pr.p.pid }

// Done is closed when the process has exited.
func (pr *Process) Done() <-chan struct{} { return pr.p.done }

// ExitState describes how the process ended ("" while it runs); see ExitInfo.String.
func (pr *Process) ExitState() string { return pr.p.exitInfo().String() }

// Exit returns how the process ended; its Ending is Running while it runs.
func (pr *Process) Exit() ExitInfo { return pr.p.exitInfo() }

// Output returns a copy of the kept head of the combined stdout and stderr.
func (pr *Process) Output() []byte { return pr.out.Bytes() }

// OutputDropped returns how many output bytes were counted but not kept.
func (pr *Process) OutputDropped() int64 { return pr.out.Dropped() }

// Stop runs the stop sequence (stdin closed, SIGTERM, SIGKILL to the group, each after
// KillGrace) and waits for the output copier. It is idempotent and bounded by ctx.
func (pr *Process) Stop(ctx context.Context) error {
	err := pr.p.stop(ctx)
	pr.awaitOutput(ctx)
	pr.outOnce.Do(func() { _ = pr.outR.Close() })
	select {
	case <-pr.copied:
	case <-ctx.Done():
		if err == nil {
			err = fmt.Errorf("stop %s (pid %d): output copier: %w", pr.p.name, pr.p.pid, ctx.Err())
		}
	}
	return err
}

// awaitOutput waits, at most drainGrace and bounded by ctx, for the output copier to
// read the exited server's output to its end (EOF): its last output is what the
// caller shows.
func (pr *Process) awaitOutput(ctx context.Context) {
	drain := time.NewTimer(drainGrace)
	defer drain.Stop()
	select {
	case <-pr.copied:
	case <-drain.C:
	case <-ctx.Done():
	}
}

// WaitForURL polls a TCP connection to rawURL's host and port (80 or 443 by default)
// every 50 ms until one succeeds. It fails when ctx ends first, or when p (which may
// be nil) exits first; that error carries the exit state and the last 2 KiB of output.
func WaitForURL(ctx context.Context, rawURL string, p *Process) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("wait for server: bad URL: %w", err)
	}
	port := u.Port()
	switch u.Scheme {
	case "http":
		if port == "" {
			port = "80"
		}
	case "https":
		if port == "" {
			port = "443"
		}
	default:
		return fmt.Errorf("wait for server: URL %s: scheme must be http or https", u.Redacted())
	}
	if u.Hostname() == "" {
		return fmt.Errorf("wait for server: URL %s has no host", u.Redacted())
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	var exited <-chan struct{}
	if p != nil {
		exited = p.Done()
	}
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		var d net.Dialer
		c, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil {
			c.Close()
			return nil
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("server did not accept connections at %s within %s (last error: %v): %w",
				u.Redacted(), time.Since(start).Round(time.Millisecond), lastErr, ctx.Err())
		case <-exited:
			p.awaitOutput(ctx)
			return fmt.Errorf("server process exited (%s) before accepting connections at %s; last output:\n%s",
				p.ExitState(), u.Redacted(), p.out.Tail(2<<10))
		case <-tick.C:
		}
	}
}
