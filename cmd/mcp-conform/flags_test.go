package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/baseline"
	"github.com/mcp-conform/mcp-conform/reports"
)

func TestFlagsToConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"defaults", nil, ""},
		{"a command and a URL", []string{"--target", "node s.js", "--url", "http://127.0.0.1:1/mcp"}, ""},
		{"calls with and without arguments", []string{"--call", "echo", "--call", `add={"a":1,"b":2}`, "--trigger-tool", "toggle"}, ""},
		{"call arguments must be an object", []string{"--call", "add=[1]"}, "JSON object"},
		{"call without a name", []string{"--call", "={}"}, "NAME"},
		{"header without a colon", []string{"--header", "Authorization Bearer x"}, "Name: value"},
		{"env without =", []string{"--env", "FOO"}, "K=V"},
		{"unknown revision", []string{"--revision", "1999-01-01"}, "unknown revision"},
		{"non-positive timeout", []string{"--timeout", "0s"}, "positive"},
		{"a kill grace", []string{"--kill-grace", "5s"}, ""},
		{"non-positive kill grace", []string{"--kill-grace", "0s"}, "--kill-grace must be positive"},
		{"non-positive max pages", []string{"--max-pages", "0"}, "positive"},
		{"a stray argument", []string{"node", "s.js"}, "unexpected argument"},
		{"an unknown flag", []string{"--bogus"}, "bogus"},
		{"a missing baseline", []string{"--baseline", "testdata-does-not-exist.yml"}, "--baseline: baseline: open"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseFlags(tc.args, io.Discard)
			var cfg conform.Config
			if err == nil {
				cfg, err = o.config(io.Discard)
			}
			if err == nil && slices.Contains(tc.args, "--kill-grace") && cfg.KillGrace != 5*time.Second {
				t.Errorf("--kill-grace 5s gave KillGrace %s", cfg.KillGrace)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestHeaderValuesAreRedacted(t *testing.T) {
	o, err := parseFlags([]string{"--header", "Authorization secret-token"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.config(io.Discard)
	if err == nil || strings.Contains(err.Error(), "secret-token") {
		t.Fatalf("the error %v shows the header's value", err)
	}
}

func TestCallSpecs(t *testing.T) {
	o, err := parseFlags([]string{"--call", "echo", "--call", `add={"a":1}`}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := o.config(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Calls) != 2 || cfg.Calls[0].Name != "echo" || cfg.Calls[0].Args != nil || string(cfg.Calls[1].Args) != `{"a":1}` {
		t.Errorf("calls = %+v", cfg.Calls)
	}
}

func TestInformationCommands(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		stdout     []string
		emptyError bool
	}{
		{[]string{"--help"}, 0, []string{"Usage:", "130 interrupted", "-label-filter"}, true},
		{[]string{"--version"}, 0, []string{"mcp-conform ", "protocol revisions: 2024-11-05", "built from: "}, true},
		{[]string{"--list"}, 0, []string{"group:", "phase:", "needs:"}, true},
		{[]string{"--list", "-v"}, 0, []string{"    spec: "}, true},
		{[]string{"-v", "-q"}, 2, nil, false},
		{[]string{"--bogus"}, 2, nil, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(t.Context(), tt.args, strings.NewReader(""), &out, &errOut)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, errOut.String())
			}
			for _, w := range tt.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%.1500s", w, out.String())
				}
			}
			if tt.emptyError != (errOut.Len() == 0) {
				t.Errorf("stderr = %q", errOut.String())
			}
			if strings.Count(errOut.String(), "\n") > 1 {
				t.Errorf("a usage error takes more than a line: %q", errOut.String())
			}
		})
	}
}

func TestPlainTextStripsEscapes(t *testing.T) {
	in := "\x1b[1mSyntax Error\x1b[0m at \x1b]8;;http://x\x07link\x1b]8;;\x07"
	if got := plainText(in, io.Discard); got != "Syntax Error at link" {
		t.Errorf("plainText = %q", got)
	}
}

func TestUseColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if useColor(false, io.Discard) {
		t.Error("colours with NO_COLOR set")
	}
}

func TestWriteBaselineRefusesAnEmptyRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.yml")
	for _, code := range []int{conform.ExitIncomplete, conform.ExitUnreachable} {
		err := writeBaseline(path, &reports.Report{ExitCode: code}, nil)
		if err == nil || !strings.Contains(err.Error(), "verified nothing") {
			t.Errorf("exit %d: error %v, want a refusal", code, err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("exit %d: a baseline was written", code)
		}
	}
	if err := writeBaseline(path, &reports.Report{ExitCode: conform.ExitOK}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := baseline.Load(path); err != nil {
		t.Errorf("the baseline of a clean run does not load: %v", err)
	}
}
