package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestStdioEchoAndClose(t *testing.T) {
	s := startFake(t, fakeConfig(t, "echo"))
	if s.Kind() != "stdio" || s.Pid() <= 0 || s.ExitState() != "" || s.Err() != nil {
		t.Fatalf("fresh transport: kind %q pid %d state %q err %v", s.Kind(), s.Pid(), s.ExitState(), s.Err())
	}
	ctx := bg(t, 10*time.Second)
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Send(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)); err != nil {
				t.Errorf("Send %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	seen := map[float64]bool{}
	for range n {
		f := recv(t, s.Inbound())
		if f.Err != nil || f.Source != "stdout" || f.At.IsZero() {
			t.Fatalf("frame %q: err %v source %q", f.Data, f.Err, f.Source)
		}
		var m struct{ ID float64 }
		if err := json.Unmarshal(f.Data, &m); err != nil {
			t.Fatalf("echoed frame %q: %v", f.Data, err)
		}
		seen[m.ID] = true
	}
	if len(seen) != n {
		t.Fatalf("got %d distinct ids, want %d", len(seen), n)
	}
	if err := s.Send(ctx, []byte("{\n}")); err == nil {
		t.Fatal("Send with an embedded newline succeeded")
	}

	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	waitClosed(t, s.Inbound())
	waitDone(t, s.Done(), "Done")
	if got, want := s.ExitState(), "exit status 0 after stdin was closed"; got != want {
		t.Errorf("ExitState = %q, want %q", got, want)
	}
	if e := s.Exit(); e.Ending != EndedOnEOF || e.Code != 0 {
		t.Errorf("Exit = %+v", e)
	}
	if err := s.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("Err = %v, want ErrClosed", err)
	}
	if err := s.Send(ctx, []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close = %v, want ErrClosed", err)
	}
}

func TestStdioFrames(t *testing.T) {
	cfg := fakeConfig(t, "garbage")
	cfg.Limits.MaxFrame = 1024
	s := startFake(t, cfg)
	tests := []struct {
		name    string
		errIs   error
		errText string
		check   func(f Frame) error
	}{
		{"not JSON", ErrNotJSON, "not JSON: invalid character", nil},
		{"too long", ErrFrameTooLarge, "a line of 102410 bytes exceeded the bound of 1024 bytes", func(f Frame) error {
			if len(f.Data) != 1024 || !bytes.HasPrefix(f.Data, []byte(`{"big":"aaa`)) {
				return fmt.Errorf("data is %d bytes, %.20q", len(f.Data), f.Data)
			}
			return nil
		}},
		{"not UTF-8", ErrNotUTF8, "not valid UTF-8", nil},
		{"valid after CRLF (empty line skipped)", nil, "", func(f Frame) error {
			if string(f.Data) != `{"ok":true}` {
				return fmt.Errorf("data %q", f.Data)
			}
			return nil
		}},
	}
	for _, tt := range tests {
		f := recv(t, s.Inbound())
		t.Run(tt.name, func(t *testing.T) {
			if tt.errIs == nil && f.Err != nil {
				t.Fatalf("Err = %v, want nil", f.Err)
			}
			if tt.errIs != nil && (!errors.Is(f.Err, tt.errIs) || !strings.Contains(f.Err.Error(), tt.errText)) {
				t.Fatalf("Err = %v, want %v containing %q", f.Err, tt.errIs, tt.errText)
			}
			if tt.check != nil {
				if err := tt.check(f); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestStdioExitAtOnce(t *testing.T) {
	s := startFake(t, fakeConfig(t, "exit3"))
	if f := recv(t, s.Inbound()); string(f.Data) != `{"hello":1}` || f.Err != nil {
		t.Fatalf("frame %q err %v", f.Data, f.Err)
	}
	waitClosed(t, s.Inbound())
	waitDone(t, s.Done(), "Done")
	if err := s.Err(); err == nil || err.Error() != "server process exited: exit status 3" {
		t.Fatalf("Err = %v", err)
	}
	if e := s.Exit(); e.Ending != EndedByItself || e.Code != 3 {
		t.Fatalf("Exit = %+v", e)
	}
	if err := s.Send(bg(t, 5*time.Second), []byte(`{}`)); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("Send after exit = %v", err)
	}
	if err := s.Close(bg(t, 5*time.Second)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Stderr is complete once Close has waited for the readers.
	if got := string(s.Stderr()); got != "fatal: boom\n" || s.StderrDropped() != 0 {
		t.Fatalf("Stderr = %q (dropped %d)", got, s.StderrDropped())
	}
}

func TestStdioLastLineWithoutNewline(t *testing.T) {
	s := startFake(t, fakeConfig(t, "nonewline"))
	f := recv(t, s.Inbound())
	if string(f.Data) != `{"last":true}` || !errors.Is(f.Err, ErrNoNewline) || errors.Is(f.Err, ErrNotJSON) {
		t.Fatalf("frame %q, Err %v", f.Data, f.Err)
	}
	waitClosed(t, s.Inbound())
}

func TestStdioStopEscalation(t *testing.T) {
	tests := []struct {
		mode       string
		grace      time.Duration
		ready      bool // wait for a first frame before closing
		wantEnding Ending
		wantState  string
	}{
		// The default grace leaves a loaded machine time to start the child.
		{"silent", 0, false, EndedOnEOF, "exit status 0 after stdin was closed"},
		{"noread", 200 * time.Millisecond, false, EndedOnSIGTERM, "killed by SIGTERM"},
		{"ignoreterm", 200 * time.Millisecond, true, EndedOnSIGKILL, "killed by SIGKILL after SIGTERM was ignored"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			cfg := fakeConfig(t, tt.mode)
			cfg.KillGrace = tt.grace
			s := startFake(t, cfg)
			if tt.ready {
				recv(t, s.Inbound())
			}
			start := time.Now()
			if err := s.Close(bg(t, 10*time.Second)); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if e := s.Exit(); e.Ending != tt.wantEnding || s.ExitState() != tt.wantState {
				t.Fatalf("Exit = %+v (%q), want %v %q", e, s.ExitState(), tt.wantEnding, tt.wantState)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("Close took %v", d)
			}
			waitClosed(t, s.Inbound())
			waitDone(t, s.Done(), "Done")
		})
	}
}

func TestStdioCloseDeadlineKillsAtOnce(t *testing.T) {
	cfg := fakeConfig(t, "ignoreterm")
	cfg.KillGrace = time.Hour
	s := startFake(t, cfg)
	recv(t, s.Inbound())
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := s.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want DeadlineExceeded", err)
	}
	waitDone(t, s.Done(), "Done")
	// Done may have been closed by Close itself; the reaper follows SIGKILL at once.
	deadline := time.Now().Add(10 * time.Second)
	for s.ExitState() == "" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.ExitState(); got != "killed by SIGKILL when the stop deadline passed" {
		t.Fatalf("ExitState = %q", got)
	}
}

// processGone reports whether pid no longer exists or is a zombie (its parent, init
// or a subreaper, may not have reaped it yet).
func processGone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the parenthesised command name.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] == 'Z' || stat[i+2] == 'X'
	}
	return false
}

func TestStdioGroupKillReachesGrandchild(t *testing.T) {
	s := startFake(t, fakeConfig(t, "grandchild"))
	f := recv(t, s.Inbound())
	var m struct{ Pid int }
	if err := json.Unmarshal(f.Data, &m); err != nil || m.Pid <= 0 {
		t.Fatalf("frame %q: %v", f.Data, err)
	}
	if processGone(m.Pid) {
		t.Fatalf("grandchild %d is not running before Close", m.Pid)
	}
	// The leader exits on EOF by itself; the grandchild only dies by the group kill.
	if err := s.Close(bg(t, 10*time.Second)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := s.ExitState(); got != "exit status 0 after stdin was closed" {
		t.Errorf("ExitState = %q", got)
	}
	waitClosed(t, s.Inbound())
	deadline := time.Now().Add(5 * time.Second)
	for !processGone(m.Pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive after Close", m.Pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStdioStderrBounded(t *testing.T) {
	cfg := fakeConfig(t, "stderrflood")
	cfg.Limits.MaxStderr = 1024
	s := startFake(t, cfg)
	if f := recv(t, s.Inbound()); string(f.Data) != `{"done":true}` {
		t.Fatalf("frame %q", f.Data)
	}
	if err := s.Close(bg(t, 10*time.Second)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := s.Stderr(); len(got) != 1024 || strings.Trim(string(got), "e") != "" {
		t.Fatalf("Stderr is %d bytes", len(got))
	}
	if got, want := s.StderrDropped(), int64(100<<10-1024); got != want {
		t.Fatalf("StderrDropped = %d, want %d", got, want)
	}
}

func TestStdioSendBlockedByServer(t *testing.T) {
	cfg := fakeConfig(t, "noread")
	cfg.KillGrace = 200 * time.Millisecond
	s := startFake(t, cfg)
	big := append(append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), 1<<20)...), `"}`...)
	for i := range 2 { // the second Send waits behind the first, stuck, write
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		start := time.Now()
		err := s.Send(ctx, big)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Send %d = %v, want DeadlineExceeded", i, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Send %d took %v", i, d)
		}
	}
	if err := s.Close(bg(t, 10*time.Second)); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestStdioFloodClose(t *testing.T) {
	cfg := fakeConfig(t, "flood")
	cfg.KillGrace = 200 * time.Millisecond
	s := startFake(t, cfg)
	// Nobody consumes: the reader fills the channel and then blocks.
	deadline := time.Now().Add(10 * time.Second)
	for len(s.Inbound()) < cap(s.Inbound()) {
		if time.Now().After(deadline) {
			t.Fatalf("Inbound holds %d frames", len(s.Inbound()))
		}
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	if err := s.Close(bg(t, 10*time.Second)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Close took %v", d)
	}
	waitClosed(t, s.Inbound())
}

func TestStdioArgsEnvDir(t *testing.T) {
	cfg := fakeConfig(t, "args")
	cfg.Argv = append(cfg.Argv, "one", "two words")
	cfg.Env = append(cfg.Env, "MCPCONFORM_FOO=bar")
	cfg.Dir = t.TempDir()
	s := startFake(t, cfg)
	f := recv(t, s.Inbound())
	var m struct {
		Args []string
		Foo  string
		Cwd  string
	}
	if err := json.Unmarshal(f.Data, &m); err != nil {
		t.Fatal(err)
	}
	wantDir, _ := os.Stat(cfg.Dir)
	gotDir, _ := os.Stat(m.Cwd)
	if strings.Join(m.Args, "|") != "one|two words" || m.Foo != "bar" || !os.SameFile(wantDir, gotDir) {
		t.Fatalf("child saw %+v", m)
	}
}

func TestStartFailure(t *testing.T) {
	tests := []struct {
		name  string
		argv  []string
		errIs error
		text  string
	}{
		{"no such path", []string{"/nonexistent/mcp-server-xyz"}, fs.ErrNotExist, "/nonexistent/mcp-server-xyz"},
		{"not in PATH", []string{"mcp-conform-no-such-server-xyz"}, exec.ErrNotFound, "mcp-conform-no-such-server-xyz"},
		{"empty argv", nil, nil, "empty command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ProcessConfig{Argv: tt.argv}
			_, err := StartStdio(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tt.text) || (tt.errIs != nil && !errors.Is(err, tt.errIs)) {
				t.Fatalf("StartStdio = %v, want %v naming %q", err, tt.errIs, tt.text)
			}
			_, err = Launch(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("Launch = %v", err)
			}
		})
	}
}

func TestReadLine(t *testing.T) {
	type line struct {
		text string
		long bool
		eof  bool // returned with the error
	}
	tests := []struct {
		name  string
		input string
		max   int
		want  []line
	}{
		{"LF and CRLF", "a\nb\r\n\nc\r\n", 10, []line{{"a", false, false}, {"b", false, false}, {"", false, false}, {"c", false, false}, {"", false, true}}},
		{"unterminated last line", "a\nbc", 10, []line{{"a", false, false}, {"bc", false, true}}},
		{"exactly max", "12345\n", 5, []line{{"12345", false, false}, {"", false, true}}},
		{"exactly max before CRLF", "12345\r\n", 5, []line{{"12345", false, false}, {"", false, true}}},
		{"one over max", "123456\nok\n", 5, []line{{"12345", true, false}, {"ok", false, false}, {"", false, true}}},
		{"far over max, spans buffers", strings.Repeat("x", 100) + "\nok\n", 5, []line{{"xxxxx", true, false}, {"ok", false, false}, {"", false, true}}},
		{"long unterminated", strings.Repeat("y", 50), 8, []line{{"yyyyyyyy", true, true}}},
		{"lone CR kept", "a\rb\n", 10, []line{{"a\rb", false, false}, {"", false, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.input), 16)
			for i, w := range tt.want {
				got, long, total, err := readLine(br, tt.max)
				if string(got) != w.text || long != w.long || (err != nil) != w.eof {
					t.Fatalf("line %d = %q long %v err %v; want %q long %v eof %v", i, got, long, err, w.text, w.long, w.eof)
				}
				if !long && total < int64(len(got)) {
					t.Fatalf("line %d: total %d < kept %d", i, total, len(got))
				}
			}
		})
	}
}

func TestReadLineCountsEveryByteOfALongLine(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", 1000)+"\nok\n"), 16)
	got, long, total, err := readLine(br, 10)
	if err != nil || !long || total != 1000 || len(got) != 10 {
		t.Fatalf("readLine = %d bytes, long %v, total %d, err %v; want 10, true, 1000, nil", len(got), long, total, err)
	}
}
