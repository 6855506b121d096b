package refserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseCLI(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		env       string
		wantErr   bool
		wantPage  int
		wantTrans string
		wantRevs  []string
	}{
		{name: "defaults", args: nil, wantPage: 5, wantTrans: "stdio"},
		{name: "http", args: []string{"--transport", "http"}, wantPage: 5, wantTrans: "http"},
		{name: "page size 0 turns paging off", args: []string{"--page-size", "0"}, wantPage: NoPaging, wantTrans: "stdio"},
		{name: "env page size", env: "3", wantPage: 3, wantTrans: "stdio"},
		{name: "flag beats env", args: []string{"--page-size=7"}, env: "3", wantPage: 7, wantTrans: "stdio"},
		{name: "env 0", env: "0", wantPage: NoPaging, wantTrans: "stdio"},
		{name: "revisions", args: []string{"--revisions", "2025-06-18, 2024-11-05"}, wantPage: 5, wantTrans: "stdio", wantRevs: []string{"2025-06-18", "2024-11-05"}},
		{name: "ipv6 loopback", args: []string{"--transport", "sse", "--addr", "[::1]:0"}, wantPage: 5, wantTrans: "sse"},
		{name: "localhost", args: []string{"--transport", "http", "--addr", "localhost:0"}, wantPage: 5, wantTrans: "http"},
		{name: "bad transport", args: []string{"--transport", "carrier-pigeon"}, wantErr: true},
		{name: "all interfaces", args: []string{"--transport", "http", "--addr", ":0"}, wantErr: true},
		{name: "0.0.0.0", args: []string{"--transport", "http", "--addr", "0.0.0.0:8080"}, wantErr: true},
		{name: "LAN address", args: []string{"--transport", "sse", "--addr", "192.168.1.10:80"}, wantErr: true},
		{name: "host name", args: []string{"--transport", "http", "--addr", "example.com:80"}, wantErr: true},
		{name: "no port", args: []string{"--transport", "http", "--addr", "127.0.0.1"}, wantErr: true},
		{name: "unknown revision", args: []string{"--revisions", "2099-01-01"}, wantErr: true},
		{name: "modern revision", args: []string{"--revisions", "2026-07-28"}, wantErr: true},
		{name: "negative page size", args: []string{"--page-size", "-1"}, wantErr: true},
		{name: "bad env", env: "lots", wantErr: true},
		{name: "unknown flag", args: []string{"--bogus"}, wantErr: true},
		{name: "stray argument", args: []string{"extra"}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(PageSizeEnv, tc.env)
			c, err := parseCLI(tc.args, io.Discard)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if c.opts.PageSize != tc.wantPage || c.transport != tc.wantTrans || fmt.Sprint(c.opts.Revisions) != fmt.Sprint(tc.wantRevs) {
				t.Errorf("got %+v", c)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader goroutine.
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

func TestRunCLIExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--transport", "http", "--addr", "0.0.0.0:0"}, 2},
		{[]string{"--transport", "nope"}, 2},
		{[]string{"-h"}, 0},
	} {
		var stdout, stderr bytes.Buffer
		if got := RunCLI(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr); got != tc.want {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, got, tc.want, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: stdout %q", tc.args, stdout.String())
		}
	}
}

func TestRunCLIStdio(t *testing.T) {
	noLeaks(t)
	var stdout, stderr bytes.Buffer
	in := initLine + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	if code := RunCLI(context.Background(), []string{"--page-size", "0"}, strings.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"test_filler_12"`) || strings.Contains(lines[1], "nextCursor") {
		t.Fatalf("stdout = %q", stdout.String())
	}
}

func TestRunCLIHTTP(t *testing.T) {
	for _, tc := range []struct{ transport, path string }{{"http", "/mcp"}, {"sse", "/sse"}} {
		t.Run(tc.transport, func(t *testing.T) {
			noLeaks(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stdoutR, stdoutW := io.Pipe()
			var stderr syncBuffer
			exit := make(chan int, 1)
			go func() {
				exit <- RunCLI(ctx, []string{"--transport", tc.transport}, strings.NewReader(""), stdoutW, &stderr)
				_ = stdoutW.Close()
			}()
			sc := bufio.NewScanner(stdoutR)
			if !sc.Scan() {
				t.Fatalf("no listening line; stderr %q", stderr.String())
			}
			line := sc.Text()
			if !regexp.MustCompile(`^listening on http://127\.0\.0\.1:\d+` + tc.path + `$`).MatchString(line) {
				t.Fatalf("line = %q", line)
			}
			url := strings.TrimPrefix(line, "listening on ")
			client := &http.Client{Timeout: recvTimeout}
			if tc.transport == "http" {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initLine))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_ = resp.Body.Close()
				if resp.StatusCode != 200 || resp.Header.Get(headerSessionID) == "" {
					t.Fatalf("initialize: %d", resp.StatusCode)
				}
				// An open GET stream must not hold up the shutdown.
				req, _ = http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Accept", "text/event-stream")
				req.Header.Set(headerSessionID, resp.Header.Get(headerSessionID))
				resp, err = client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
			} else {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				resp, err := (&http.Client{}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
			}
			start := time.Now()
			cancel()
			select {
			case code := <-exit:
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
				if d := time.Since(start); d > 2*time.Second {
					t.Errorf("shutdown took %v", d)
				}
			case <-time.After(shutdownGrace + recvTimeout):
				t.Fatal("RunCLI did not return after cancellation")
			}
			if sc.Scan() {
				t.Errorf("more stdout: %q", sc.Text())
			}
		})
	}
}

func TestServe(t *testing.T) {
	if err := Serve(context.Background(), "smoke-signals", "", Options{}, nil); err == nil {
		t.Error("unknown transport accepted")
	}
	if err := Serve(context.Background(), TransportHTTP, "10.0.0.1:0", Options{}, nil); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("non-loopback: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, TransportHTTP, "", Options{}, func(u string) { urls <- u }) }()
	select {
	case u := <-urls:
		if !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.HasSuffix(u, "/mcp") {
			t.Errorf("url %q", u)
		}
	case <-time.After(recvTimeout):
		t.Fatal("never ready")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
