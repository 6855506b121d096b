package refserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// runStdio runs ServeStdio over a fixed input and returns its output lines.
func runStdio(t *testing.T, input string, opts Options) []string {
	t.Helper()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), strings.NewReader(input), &out, opts) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(recvTimeout):
		t.Fatal("ServeStdio did not return at EOF")
	}
	text := out.String()
	if text != "" && !strings.HasSuffix(text, "\n") {
		t.Errorf("output does not end with a newline: %q", text)
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

func TestStdioFraming(t *testing.T) {
	noLeaks(t)
	cases := []struct {
		name  string
		input string
		ids   []string // ids of the expected replies, in order
	}{
		{"plain lines", initLine + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n", []string{"1", "2"}},
		{"CRLF and blank lines", initLine + "\r\n\r\n   \n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r\n", []string{"1", "2"}},
		{"last line without newline", initLine + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`, []string{"1", "3"}},
		{"tool call answered before exit at EOF", initLine + "\n" +
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_simple_text"}}` + "\n", []string{"1", "4"}},
		{"notifications are silent", initLine + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n", []string{"1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines := runStdio(t, tc.input, Options{})
			if len(lines) != len(tc.ids) {
				t.Fatalf("%d lines, want %d: %q", len(lines), len(tc.ids), lines)
			}
			for i, l := range lines {
				var m struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
				}
				if err := json.Unmarshal([]byte(l), &m); err != nil || m.JSONRPC != "2.0" {
					t.Fatalf("line %d is not a JSON-RPC message: %q", i, l)
				}
				if string(m.ID) != tc.ids[i] {
					t.Errorf("line %d id %s, want %s", i, m.ID, tc.ids[i])
				}
			}
		})
	}
}

func TestStdioExitsPromptlyAtEOF(t *testing.T) {
	noLeaks(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), inR, outW, Options{}); _ = outW.Close() }()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	_, _ = io.WriteString(inW, initLine+"\n")
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_slow","arguments":{"ms":10000}}}`+"\n")
	start := time.Now()
	_ = inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		if d := time.Since(start); d > eofGrace+time.Second {
			t.Errorf("took %v to exit after EOF", d)
		}
	case <-time.After(recvTimeout):
		t.Fatal("ServeStdio kept running after EOF")
	}
}

func TestStdioReturnsWhenContextEnds(t *testing.T) {
	noLeaks(t)
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeStdio(ctx, inR, io.Discard, Options{}) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(recvTimeout):
		t.Fatal("ServeStdio ignored its context")
	}
	_ = inR.Close() // ends the blocked reader goroutine
}

func TestStdioRejectsBadOptions(t *testing.T) {
	err := ServeStdio(context.Background(), strings.NewReader(""), io.Discard, Options{Revisions: []string{"2026-07-28"}})
	if err == nil {
		t.Fatal("a modern revision was accepted")
	}
}

func TestReadLine(t *testing.T) {
	huge := strings.Repeat("x", maxLineBytes+10)
	r := bufio.NewReaderSize(strings.NewReader(huge+"\n"+"{}\n"+"tail"), 64<<10)
	if _, err := readLine(r); !errors.Is(err, errLineTooLong) {
		t.Fatalf("over-long line: %v", err)
	}
	for _, want := range []string{"{}", "tail"} {
		got, err := readLine(r)
		if err != nil || string(got) != want {
			t.Fatalf("readLine = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := readLine(r); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v", err)
	}
}

func TestStdioOverLongLineIsAParseError(t *testing.T) {
	input := initLine + "\n" + strings.Repeat(" ", maxLineBytes+1) + "{}\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	lines := runStdio(t, input, Options{})
	if len(lines) != 3 || !strings.Contains(lines[1], `"code":-32700`) || !strings.Contains(lines[2], `"id":2`) {
		t.Fatalf("lines = %.200q", lines)
	}
}
