package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExitInfoString(t *testing.T) {
	tests := []struct {
		in   ExitInfo
		want string
	}{
		{ExitInfo{}, ""},
		{ExitInfo{Ending: EndedByItself, Code: 1}, "exit status 1"},
		{ExitInfo{Ending: EndedByItself, Code: -1, Signal: syscall.SIGSEGV}, "killed by SIGSEGV"},
		{ExitInfo{Ending: EndedOnEOF}, "exit status 0 after stdin was closed"},
		{ExitInfo{Ending: EndedOnSIGTERM, Code: -1, Signal: syscall.SIGTERM, TermSent: true}, "killed by SIGTERM"},
		{ExitInfo{Ending: EndedOnSIGTERM, Code: 143, TermSent: true}, "exit status 143 after SIGTERM"},
		{ExitInfo{Ending: EndedOnSIGKILL, Code: -1, Signal: syscall.SIGKILL, TermSent: true}, "killed by SIGKILL after SIGTERM was ignored"},
		{ExitInfo{Ending: EndedOnSIGKILL, Code: -1, Signal: syscall.SIGKILL}, "killed by SIGKILL when the stop deadline passed"},
		{ExitInfo{Ending: EndedByItself, Code: -1, Signal: syscall.Signal(40)}, "killed by signal 40"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCapBuffer(t *testing.T) {
	tests := []struct {
		name     string
		max      int
		writes   []string
		head     string
		dropped  int64
		tailN    int
		wantTail string
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef", 0, 4, "cdef"},
		{"overflows", 4, []string{"abc", "def", "gh"}, "abcd", 4, 3, "fgh"},
		{"tail spans head", 4, []string{"abcdef"}, "abcd", 2, 5, "bcdef"},
		{"long tail", 2, []string{strings.Repeat("x", 3*tailKeep), "END"}, "xx", int64(3*tailKeep + 1), 4, "xEND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newCapBuffer(tt.max)
			for _, w := range tt.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if string(b.Bytes()) != tt.head || b.Dropped() != tt.dropped || string(b.Tail(tt.tailN)) != tt.wantTail {
				t.Fatalf("head %q dropped %d tail %q", b.Bytes(), b.Dropped(), b.Tail(tt.tailN))
			}
		})
	}
}

func launchFake(t *testing.T, mode string) *Process {
	t.Helper()
	cfg := fakeConfig(t, mode)
	cfg.KillGrace = 200 * time.Millisecond
	p, err := Launch(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Stop(bg(t, 10*time.Second)); err != nil {
			t.Errorf("cleanup Stop: %v", err)
		}
	})
	return p
}

// closedPortURL returns an http URL on 127.0.0.1 where nothing listens.
func closedPortURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/mcp"
}

func TestWaitForURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()

	t.Run("server up", func(t *testing.T) {
		p := launchFake(t, "sleep")
		if err := WaitForURL(bg(t, 10*time.Second), srv.URL+"/mcp", p); err != nil {
			t.Fatalf("WaitForURL: %v", err)
		}
		if err := p.Stop(bg(t, 10*time.Second)); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		if p.ExitState() != "killed by SIGTERM" {
			t.Fatalf("ExitState = %q", p.ExitState())
		}
		waitDone(t, p.Done(), "Done")
	})
	t.Run("no process", func(t *testing.T) {
		if err := WaitForURL(bg(t, 10*time.Second), srv.URL, nil); err != nil {
			t.Fatalf("WaitForURL: %v", err)
		}
	})
	t.Run("process exits first", func(t *testing.T) {
		p := launchFake(t, "exit3")
		err := WaitForURL(bg(t, 10*time.Second), closedPortURL(t), p)
		if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "fatal: boom") {
			t.Fatalf("WaitForURL = %v", err)
		}
		waitDone(t, p.Done(), "Done")
		if err := p.Stop(bg(t, 10*time.Second)); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		if out := string(p.Output()); !strings.Contains(out, `{"hello":1}`) || !strings.Contains(out, "fatal: boom") {
			t.Fatalf("Output = %q", out)
		}
		if p.Exit().Ending != EndedByItself || p.OutputDropped() != 0 {
			t.Fatalf("Exit = %+v, dropped %d", p.Exit(), p.OutputDropped())
		}
	})
	t.Run("deadline", func(t *testing.T) {
		p := launchFake(t, "sleep")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		err := WaitForURL(ctx, closedPortURL(t), p)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "did not accept connections at http://127.0.0.1:") {
			t.Fatalf("WaitForURL = %v", err)
		}
	})
	for _, bad := range []string{"ftp://127.0.0.1/", "http:///nohost", "://"} {
		t.Run("bad URL "+bad, func(t *testing.T) {
			if err := WaitForURL(bg(t, time.Second), bad, nil); err == nil {
				t.Fatal("WaitForURL succeeded")
			}
		})
	}
}

func inRegistry(p *proc) bool {
	registry.Lock()
	defer registry.Unlock()
	_, ok := registry.m[p]
	return ok
}

func TestStopAll(t *testing.T) {
	a := startFake(t, fakeConfig(t, "echo"))
	cfg := fakeConfig(t, "ignoreterm")
	cfg.KillGrace = 200 * time.Millisecond
	b := startFake(t, cfg)
	recv(t, b.Inbound()) // SIGTERM is ignored from now on
	c := launchFake(t, "sleep")
	for _, p := range []*proc{a.p, b.p, c.p} {
		if !inRegistry(p) {
			t.Fatalf("pid %d not registered", p.pid)
		}
	}
	StopAll(bg(t, 10*time.Second))
	for _, ch := range []<-chan struct{}{a.Done(), b.Done(), c.Done()} {
		waitDone(t, ch, "Done after StopAll")
	}
	for _, p := range []*proc{a.p, b.p, c.p} {
		if inRegistry(p) {
			t.Errorf("pid %d still registered", p.pid)
		}
	}
	if b.ExitState() != "killed by SIGKILL after SIGTERM was ignored" {
		t.Errorf("ExitState = %q", b.ExitState())
	}
	// The transports see the exit like any other.
	if err := a.Err(); err == nil || !strings.Contains(err.Error(), "exit status 0 after stdin was closed") {
		t.Errorf("Err = %v", err)
	}
	waitClosed(t, a.Inbound())
}

// TestProcessStopKeepsLastOutput: output still in the pipe when the server exits is
// read, not lost to Stop closing the pipe first.
func TestProcessStopKeepsLastOutput(t *testing.T) {
	cfg := fakeConfig(t, "stderrflood")
	// The default KillGrace: the server must end by itself, having written it all,
	// even on a loaded machine.
	cfg.Limits.MaxStderr = 1024
	p, err := Launch(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if err := p.Stop(bg(t, 10*time.Second)); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if got := p.ExitState(); got != "exit status 0 after stdin was closed" {
		t.Fatalf("ExitState = %q", got)
	}
	want := int64(100<<10 + len("{\"done\":true}\n"))
	if got := int64(len(p.Output())) + p.OutputDropped(); got != want {
		t.Fatalf("output counted %d bytes, want %d", got, want)
	}
}
