package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bin is the mcp-conform binary that TestMain builds for every test in the package.
var bin string

// allRevisions are the protocol revisions a full run covers, oldest first.
var allRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// Bounds on everything the tests wait for, so that a hang fails a test instead of
// hanging CI.
const (
	buildTimeout    = 5 * time.Minute  // go build of the binary
	cliTimeout      = 2 * time.Minute  // one mcp-conform run
	fixtureLifetime = 30 * time.Minute // a fixture server started by a test (its parallel subtests may wait minutes for a slot)
	waitDelay       = 5 * time.Second  // after cancellation: SIGKILL and stop waiting for output
	listenTimeout   = 15 * time.Second // the fixture's "listening on" line
	stopTimeout     = 10 * time.Second // a fixture's exit after SIGINT
	goneTimeout     = 5 * time.Second  // a launched server's disappearance after a run
	pollEvery       = 20 * time.Millisecond
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

// testMain builds the binary into a temporary directory, runs the tests and removes
// the directory; it is separate from TestMain so that its defers run before os.Exit.
func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcp-conform-e2e-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "mcp-conform")
	if err := buildBinary(bin); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	return m.Run()
}

// buildBinary builds ./cmd/mcp-conform into out. `go test` puts its own toolchain's
// bin directory first on PATH, so "go" is the toolchain running the tests. It
// compiles as `make dist` does (no cgo, -trimpath, no VCS stamp; only the link flags
// differ), as `make vet` and `make lint` do, so that one compilation of every package
// serves them all and TestDistReproducible's first build.
func buildBinary(out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-o", out, "github.com/mcp-conform/mcp-conform/cmd/mcp-conform")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.WaitDelay = waitDelay
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/mcp-conform: %w", err)
	}
	return nil
}

// command prepares `mcp-conform args…` bounded by ctx: when ctx ends the process gets
// SIGINT (so it can stop its own servers), then SIGKILL after waitDelay. It has no
// standard input, as in CI.
func command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = waitDelay
	return cmd
}

// cliRun is one finished mcp-conform run.
type cliRun struct {
	args    []string
	code    int
	stdout  string
	stderr  string
	elapsed time.Duration
	// maxRSSKiB is the peak resident set of the process (or of the largest child it
	// reaped, whichever is larger), from wait4's rusage: KiB on Linux.
	maxRSSKiB int64
	// cpu is the CPU time (user and system) of the process and of every process it
	// reaped (wait4's rusage): over stdio, mcp-conform and its servers.
	cpu time.Duration
}

// String describes the run for failure messages.
func (r *cliRun) String() string {
	return fmt.Sprintf("mcp-conform %s: exit %d after %s\n--- stdout\n%s\n--- stderr\n%s",
		strings.Join(r.args, " "), r.code, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
}

// runCLI runs mcp-conform with args to completion, bounded by cliTimeout.
func runCLI(t testing.TB, args ...string) *cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	r, err := execCLI(ctx, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	return r
}

// execCLI runs mcp-conform with args to completion. It returns an error when the run
// could not be started, outlived ctx, or left its output pipes open after exiting
// (some process it started is still alive).
func execCLI(ctx context.Context, args ...string) (*cliRun, error) {
	return execCommand(ctx, command(ctx, args...), args)
}

// execCommand is execCLI with the command that runs mcp-conform with args given.
func execCommand(ctx context.Context, cmd *exec.Cmd, args []string) (*cliRun, error) {
	r := &cliRun{args: args}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	r.elapsed = time.Since(start)
	r.stdout, r.stderr = stdout.String(), stderr.String()
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
		r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.maxRSSKiB = ru.Maxrss
		}
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return r, fmt.Errorf("mcp-conform did not finish in time: %w", ctx.Err())
	case errors.Is(err, exec.ErrWaitDelay):
		return r, errors.New("mcp-conform exited but its stdout/stderr stayed open: a process it started outlived it")
	case err == nil, errors.As(err, &exitErr) && r.code >= 0:
		return r, nil
	default:
		return r, fmt.Errorf("mcp-conform: %w", err)
	}
}

// wantCode fails the test unless the run exited with want.
func wantCode(t testing.TB, r *cliRun, want int) {
	t.Helper()
	if r.code != want {
		t.Fatalf("exit code %d, want %d\n%s", r.code, want, r)
	}
}

// shQuote quotes s as one word for a POSIX shell and for mcp-conform's --target
// splitting, which follows the same quoting rules.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// silentServer is a shell command line for a server that reads its stdin and never
// answers: cat discards what it reads, and keeps the stdout pipe open through a
// duplicate on fd 3 (with stdout simply sent to /dev/null, the run would see the
// server close its stdout, not stay silent). It exits at stdin EOF.
const silentServer = "cat 3>&1 >/dev/null"

// pidRecordingTarget returns a --target command line that appends the server's pid to
// pidFile and then execs script (a shell command line) in the same process, so the pid
// recorded is the server's for its whole life. Every launch appends a line.
func pidRecordingTarget(pidFile, script string) string {
	return "sh -c " + shQuote("echo $$ >> "+shQuote(pidFile)+"; exec "+script)
}

// readPIDs returns the pids recorded in pidFile, failing the test if there are none.
func readPIDs(t testing.TB, pidFile string) []int {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("no server was launched (pid file): %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			t.Fatalf("pid file %s: bad pid %q", pidFile, f)
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		t.Fatalf("pid file %s is empty: no server was launched", pidFile)
	}
	return pids
}

// running reports whether pid is a live process. A zombie is not running: it has
// exited and only waits for a parent (or init) to collect its status.
func running(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the parenthesised command name, which may itself hold ")".
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// assertGone fails the test for every pid still running once goneTimeout has passed,
// and kills such a survivor so that the test leaves nothing behind either.
func assertGone(t testing.TB, pids []int) {
	t.Helper()
	deadline := time.Now().Add(goneTimeout)
	for _, pid := range pids {
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(pollEvery)
		}
		if running(pid) {
			t.Errorf("server process %d is still running %s after mcp-conform exited", pid, goneTimeout)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// waitForFile polls until path exists and is not empty, failing the test after
// timeout.
func waitForFile(t testing.TB, path string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %s", path, timeout)
		}
		time.Sleep(pollEvery)
	}
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	return port
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// firstLineWriter keeps everything written to it and hands the first complete line,
// without its newline, to lines.
type firstLineWriter struct {
	syncBuffer
	lines chan string // buffered, capacity 1
	sent  bool
}

func newFirstLineWriter() *firstLineWriter {
	return &firstLineWriter{lines: make(chan string, 1)}
}

func (w *firstLineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, _ := w.buf.Write(p)
	if !w.sent {
		if line, _, ok := strings.Cut(w.buf.String(), "\n"); ok {
			w.lines <- strings.TrimSuffix(line, "\r")
			w.sent = true
		}
	}
	return n, nil
}

// startFixture serves the reference server with `mcp-conform fixture --transport
// transport --addr 127.0.0.1:0 extra…` and returns the URL from its one stdout line. At the
// end of the test the fixture gets SIGINT and must exit 0 within stopTimeout.
func startFixture(t *testing.T, transport string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), fixtureLifetime)
	cmd := exec.CommandContext(ctx, bin, append([]string{"fixture", "--transport", transport, "--addr", "127.0.0.1:0"}, extra...)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = waitDelay
	stdout := newFirstLineWriter()
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start fixture: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		defer cancel()
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("fixture --transport %s did not shut down cleanly on SIGINT: %v\nstderr:\n%s", transport, err, stderr)
			}
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			<-exited // bounded by WaitDelay
			t.Errorf("fixture --transport %s was still running %s after SIGINT\nstderr:\n%s", transport, stopTimeout, stderr)
		}
	})

	var line string
	select {
	case line = <-stdout.lines:
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("fixture --transport %s exited before listening: %v\nstdout:\n%s\nstderr:\n%s", transport, err, stdout.String(), stderr)
	case <-time.After(listenTimeout):
		t.Fatalf("fixture --transport %s printed no line within %s\nstderr:\n%s", transport, listenTimeout, stderr)
	}
	url, ok := strings.CutPrefix(line, "listening on ")
	path := map[string]string{"http": "/mcp", "sse": "/sse"}[transport]
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, path) {
		t.Fatalf("fixture --transport %s printed %q, want \"listening on http://127.0.0.1:PORT%s\"", transport, line, path)
	}
	return url
}

// testdataBins holds the commands under testdata, each built once per test binary.
var testdataBins sync.Map // name → *testdataBin

type testdataBin struct {
	once sync.Once
	path string
	err  error
}

// testdataBinary builds ./testdata/NAME (the hostile server, the rusage helper) once
// and returns the path of the binary.
func testdataBinary(name string) (string, error) {
	v, _ := testdataBins.LoadOrStore(name, &testdataBin{})
	b := v.(*testdataBin)
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcp-conform-"+name+"-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, name)
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", b.path, "./testdata/"+name).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build ./testdata/%s: %v\n%s", name, err, out)
		}
	})
	return b.path, b.err
}
