package reports

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// runConsole plays the fixture through a Console the way a run would.
func runConsole(c *Console, r *Report, paths []string) {
	revs := make([]string, len(r.Revisions))
	for i, rev := range r.Revisions {
		revs[i] = rev.Revision
	}
	c.RunStart(r.Target, revs, r.Notes)
	for _, rev := range r.Revisions {
		c.RevisionStart(rev.Revision, rev.Negotiated, rev.Transport)
		for _, ch := range rev.Checks {
			c.CheckDone(rev.Revision, ch)
		}
	}
	c.Summary(r, paths)
}

func TestConsole(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		t.Run(fmt.Sprintf("verbose=%v", verbose), func(t *testing.T) {
			var buf bytes.Buffer
			runConsole(&Console{W: &buf, Verbose: verbose}, fixture(), []string{"out/junit.xml", "out/report.json"})
			out := buf.String()
			want := []string{
				"mcp-conform: testing stdio:./server --flag <x> at 2025-06-18, 2024-11-05",
				"note: no --target given: using the bundled reference server",
				"▶ 2025-06-18  negotiated 2025-06-18  (stdio)",
				"▶ 2024-11-05  unsupported: the server answered 2025-03-26",
				"PASS  INIT-01",
				"WARN  TOOLS-LIST-01  tools/list | paginates",
				"FAIL  TOOLS-CALL-UNKNOWN-01  unknown tool is an error",
				"ERR   PING-01  ping answers",
				"SKIP  PROMPTS-GET-01  prompts/get returns messages  (needs-fixture)",
				"SKIP  SSE-ENDPOINT-01",
				"(revision-unsupported)",
				"no prompt fixture configured",
				"expected: error -32602",
				"actual:   a result <ok> & more",
				"Failures (2)",
				"FAIL  2025-06-18  TOOLS-CALL-UNKNOWN-01  unknown tool is an error",
				`requirement: tools: "Servers MUST return -32602 for unknown tools"`,
				"ERR   2025-06-18  PING-01  ping answers",
				"requirement: utilities: ping MUST be answered",
				"Warnings (1)",
				"out/report.json",
				"result: FAIL (1 failed, 1 error, 1 warning) — exit 1\n",
			}
			if verbose {
				want = append(want, "INIT-01  initialize succeeds  12ms", "note: fine")
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("console lacks %q", w)
				}
			}
			for _, rev := range fixture().Revisions {
				for _, ch := range rev.Checks {
					if strings.Count(out, "  "+ch.ID) < 1 {
						t.Errorf("check %s never shown", ch.ID)
					}
				}
			}
			if !verbose && strings.Contains(out, "note: fine") {
				t.Error("a pass message shown without Verbose")
			}
			if strings.Contains(out, "\x1b") || strings.ContainsRune(out, 0) || strings.Contains(out, "\xff") {
				t.Error("output has an escape, a NUL or invalid UTF-8")
			}
			// The summary table's per-revision rows.
			for _, row := range [][]string{
				{"2025-06-18", "2025-06-18", "1", "1", "1", "1", "1"},
				{"2024-11-05", "unsupported", "(answered", "2025-03-26)", "0", "0", "0", "3", "0"},
			} {
				if !hasFieldsLine(out, row) {
					t.Errorf("summary has no row %q", row)
				}
			}
		})
	}
}

// hasFieldsLine reports whether some line of out has exactly these fields.
func hasFieldsLine(out string, fields []string) bool {
	for line := range strings.Lines(out) {
		if strings.Join(strings.Fields(line), " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}

func TestConsoleColorAndHostileText(t *testing.T) {
	var plain, color bytes.Buffer
	hostile := CheckResult{ID: "X-01", Title: "t", Status: Fail, Message: "\x1b[2Jcleared\u009b\r\x07", Expected: "a", Actual: "b\x1b]0;title\x07"}
	(&Console{W: &plain}).CheckDone("2025-06-18", hostile)
	(&Console{W: &color, Color: true}).CheckDone("2025-06-18", hostile)
	if strings.ContainsAny(plain.String(), "\x1b\x07\r\u009b") {
		t.Errorf("server text reached the terminal raw: %q", plain.String())
	}
	if !strings.Contains(plain.String(), "[2Jcleared") {
		t.Errorf("message lost: %q", plain.String())
	}
	if !strings.Contains(color.String(), ansiRed+"FAIL"+ansiReset) {
		t.Errorf("no colour with Color set: %q", color.String())
	}
	// Only our own sequences: every ESC starts one of the SGR codes we emit.
	for _, part := range strings.Split(color.String(), "\x1b")[1:] {
		if !strings.HasPrefix(part, "[") || !strings.Contains(part[:min(len(part), 4)], "m") {
			t.Errorf("unexpected escape sequence %q", part)
		}
	}
}

func TestConsoleResultLine(t *testing.T) {
	tests := []struct {
		name   string
		checks []CheckResult
		exit   int
		want   string
	}{
		{"pass", []CheckResult{{Status: Pass}, {Status: Pass}, {Status: Warn}, {Status: Skip}}, 0,
			"result: PASS (2 passed, 1 warning, 1 skipped) — exit 0"},
		{"fail", []CheckResult{{Status: Fail}, {Status: Fail}, {Status: Fail}, {Status: Warn}, {Status: Warn}}, 1,
			"result: FAIL (3 failed, 2 warnings) — exit 1"},
		{"errors only", []CheckResult{{Status: Error}, {Status: Error}, {Status: Pass}}, 1,
			"result: ERROR (2 errors) — exit 1"},
		{"unknown status is an error", []CheckResult{{Status: "?"}}, 1,
			"result: ERROR (1 error) — exit 1"},
		{"nonzero exit without findings", []CheckResult{{Status: Pass}}, 2,
			"result: FAIL (no checks) — exit 2"},
		{"all skipped", []CheckResult{{Status: Skip}, {Status: Skip}}, 0,
			"result: NOTHING VERIFIED (2 skipped) — exit 0"},
		{"empty", nil, 0, "result: NOTHING VERIFIED (no checks) — exit 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			r := &Report{ExitCode: tt.exit, Revisions: []RevisionReport{{Revision: "2025-06-18", Negotiated: "2025-06-18", Checks: tt.checks}}}
			(&Console{W: &buf}).Summary(r, nil)
			lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
			if got := lines[len(lines)-1]; got != tt.want {
				t.Errorf("last line = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConsoleRevisionStart(t *testing.T) {
	tests := []struct {
		rev, negotiated, transport string
		want                       string
	}{
		{"2025-06-18", "2025-06-18", "stdio", "▶ 2025-06-18  negotiated 2025-06-18  (stdio)"},
		{"2024-11-05", "2025-03-26", "http", "▶ 2024-11-05  unsupported: the server answered 2025-03-26; every check skips  (http)"},
		{"2025-11-25", "", "", "▶ 2025-11-25  no session"},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			var buf bytes.Buffer
			(&Console{W: &buf}).RevisionStart(tt.rev, tt.negotiated, tt.transport)
			if got := strings.TrimSpace(buf.String()); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConsoleConcurrent(t *testing.T) {
	var buf bytes.Buffer
	c := &Console{W: &buf}
	var wg sync.WaitGroup
	const n = 50
	for i := range n {
		wg.Go(func() {
			c.CheckDone("2025-06-18", CheckResult{ID: fmt.Sprintf("C-%02d", i), Title: "t", Status: Fail,
				Message: "m", Expected: "e", Actual: "a", Duration: time.Millisecond})
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != 4*n {
		t.Fatalf("%d lines, want %d", len(lines), 4*n)
	}
	// Each check's block stays together: FAIL line, message, expected, actual.
	for i := 0; i < len(lines); i += 4 {
		if !strings.HasPrefix(lines[i], "  FAIL  C-") || strings.TrimSpace(lines[i+1]) != "m" ||
			!strings.Contains(lines[i+2], "expected: e") || !strings.Contains(lines[i+3], "actual:   a") {
			t.Errorf("interleaved block at line %d: %q", i, lines[i:i+4])
		}
	}
	(&Console{}).CheckDone("r", CheckResult{ID: "X"}) // a nil writer discards
}
