package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/reports/ecosystem"
)

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		rep := &reports.Report{Target: name, Tool: "mcp-conform test", Revisions: []reports.RevisionReport{{
			Revision: "2025-06-18", Negotiated: "2025-06-18",
			Checks: []reports.CheckResult{{ID: "X-01", Status: reports.Pass}},
		}}}
		if _, err := reports.WriteAll(filepath.Join(dir, "shard", name), rep, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "shard", "broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "shard", "broken"), reports.JSONFile, `{"tool": "mcp-conform", "revisions": [`)
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		// Flags after the paths too.
		{[]string{"merge", filepath.Join(dir, "shard"), "--report-dir", out}, conform.ExitOK, "2 runs (skipped files: 1)", "warning: skipped " + filepath.Join(dir, "shard", "broken", "report.json")},
		{[]string{"merge"}, conform.ExitUsage, "", "no PATH given"},
		{[]string{"merge", "--report-dir", out, empty}, conform.ExitIncomplete, "", "no report.json"},
		{[]string{"merge", "--report-dir", out, filepath.Join(dir, "nope")}, conform.ExitUsage, "", "no such file"},
		{[]string{"merge", "--report-dir", filepath.Join(dir, "shard", "a"), filepath.Join(dir, "shard")}, conform.ExitUsage, "", "single run"},
		{[]string{"merge", "--bogus"}, conform.ExitUsage, "", "bogus"},
		{[]string{"merge", "--help"}, conform.ExitOK, "Usage: mcp-conform merge", ""},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, nil, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("%q: exit %d\nstdout %s\nstderr %s\nwant exit %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
	for _, f := range []string{ecosystem.MarkdownFile, ecosystem.HTMLFile, ecosystem.JSONFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
