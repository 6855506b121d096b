package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeEnv selects the fake server mode when the test binary re-runs itself.
const fakeEnv = "MCPCONFORM_FAKE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeServer(mode))
	}
	os.Exit(m.Run())
}

// fakeServer is the body of the child process in each mode.
func fakeServer(mode string) int {
	out := bufio.NewWriter(os.Stdout)
	println := func(s string) {
		out.WriteString(s + "\n")
		out.Flush()
	}
	drainStdin := func() { _, _ = io.Copy(io.Discard, os.Stdin) }
	switch mode {
	case "echo":
		in := bufio.NewReader(os.Stdin)
		for {
			line, err := in.ReadBytes('\n')
			if len(line) > 0 {
				out.Write(line)
				out.Flush()
			}
			if err != nil {
				return 0
			}
		}
	case "silent":
		drainStdin()
	case "noread", "sleep":
		time.Sleep(time.Hour)
	case "garbage":
		println("hello, this is not JSON")
		println(`{"big":"` + strings.Repeat("a", 100<<10) + `"}`)
		println("\xff\xfe")
		println("")
		out.WriteString("{\"ok\":true}\r\n")
		out.Flush()
		drainStdin()
	case "exit3":
		println(`{"hello":1}`)
		fmt.Fprintln(os.Stderr, "fatal: boom")
		return 3
	case "ignoreterm":
		signal.Ignore(syscall.SIGTERM)
		println(`{"ready":true}`)
		time.Sleep(time.Hour)
	case "grandchild":
		exe, _ := os.Executable()
		c := exec.Command(exe)
		c.Env = append(os.Environ(), fakeEnv+"=sleep")
		c.Stdout = os.Stdout // the grandchild holds our stdout open too
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		println(fmt.Sprintf(`{"pid":%d}`, c.Process.Pid))
		drainStdin()
	case "nonewline":
		os.Stdout.WriteString(`{"last":true}`)
	case "stderrflood":
		os.Stderr.Write([]byte(strings.Repeat("e", 100<<10)))
		println(`{"done":true}`)
		drainStdin()
	case "flood":
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(out, "{\"n\":%d}\n", i); err != nil {
				return 0
			}
		}
	case "args":
		wd, _ := os.Getwd()
		b, _ := json.Marshal(map[string]any{"args": os.Args[1:], "foo": os.Getenv("MCPCONFORM_FOO"), "cwd": wd})
		println(string(b))
		drainStdin()
	default:
		fmt.Fprintln(os.Stderr, "unknown fake mode", mode)
		return 2
	}
	return 0
}

// fakeConfig returns a ProcessConfig that runs the test binary as a fake server. Its
// KillGrace is the default (2s), long enough for a loaded machine to start the child;
// tests of the escalation shorten it.
func fakeConfig(t *testing.T, mode string) ProcessConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ProcessConfig{
		Argv: []string{exe},
		// A -race child otherwise sleeps 1s at exit (atexit_sleep_ms), longer than
		// the grace periods these tests use.
		Env: []string{fakeEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"},
	}
}

// startFake starts a stdio fake server and closes it at the end of the test.
func startFake(t *testing.T, cfg ProcessConfig) *Stdio {
	t.Helper()
	s, err := StartStdio(context.Background(), cfg)
	if err != nil {
		t.Fatalf("StartStdio: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("cleanup Close: %v", err)
		}
	})
	return s
}

// recv waits (bounded) for the next frame.
func recv(t *testing.T, ch <-chan Frame) Frame {
	t.Helper()
	select {
	case f, ok := <-ch:
		if !ok {
			t.Fatal("Inbound closed, want a frame")
		}
		return f
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for a frame")
	}
	return Frame{}
}

// waitClosed waits (bounded) for ch to be closed, discarding frames.
func waitClosed(t *testing.T, ch <-chan Frame) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("timed out waiting for Inbound to close")
		}
	}
}

// waitDone waits (bounded) for a done channel.
func waitDone(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func bg(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
