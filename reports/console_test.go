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
		c.Plan(rev.Revision, len(rev.Checks))
	}
	for _, rev := range r.Revisions {
		c.RevisionStart(rev.Revision, rev.Negotiated, rev.Transport, rev.Unsupported)
		for _, ch := range rev.Checks {
			c.CheckDone(rev.Revision, ch)
		}
	}
	c.Summary(r, paths)
}

// The console in its three modes: what each shows, and that each finding is said
// once.
func TestConsole(t *testing.T) {
	paths := []string{"out/junit.xml", "out/report.json", "out/matrix.md", "out/badges/conformance.svg", "out/badges/revision-2025-06-18.svg", "out/transcripts/a.jsonl"}
	tests := []struct {
		name    string
		console *Console
		want    []string
		notWant []string
	}{
		{"default", &Console{}, []string{
			"mcp-conform: testing stdio:./server --flag <x> at 2025-06-18, 2024-11-05",
			"note: no --target given: using the bundled reference server",
			"▶ 2025-06-18  negotiated 2025-06-18  (stdio)",
			"▶ 2024-11-05  unsupported (answered 2025-03-26)",
			"2025-06-18  5/5 checks done: 1 fail, 1 error, 1 warn",
			"2024-11-05  3/3 checks done\n",
			"Failures (2)",
			"FAIL  2025-06-18  TOOLS-CALL-UNKNOWN-01  unknown tool is an error",
			"expected: error -32602",
			"actual:   a result <ok> & more",
			`requirement: tools: "Servers MUST return -32602 for unknown tools"`,
			"ERR   2025-06-18  PING-01  ping answers",
			"requirement: utilities: ping MUST be answered",
			"Warnings (1)",
			"WARN  2025-06-18  TOOLS-LIST-01  tools/list | paginates",
			"requirement: tools: servers SHOULD paginate",
			"Skipped (4)",
			"needs-fixture  PROMPTS-GET-01 in 2025-06-18: no prompt fixture configured",
			"revision-unsupported  3 checks in 2024-11-05\n",
			"reports: out/ (junit.xml, report.json, matrix.md, 2 badges in badges/, and 1 transcripts and logs)",
			"result: FAIL (1 failed, 1 error, 1 warning) — exit 1\n",
		}, []string{"PASS", "note: fine", "out/transcripts/a.jsonl", "not-exercised: not-exercised"}},
		{"verbose", &Console{Verbose: true}, []string{
			"PASS  INIT-01  initialize succeeds  12ms",
			"note: fine",
			"WARN  TOOLS-LIST-01  tools/list | paginates",
			"FAIL  TOOLS-CALL-UNKNOWN-01  unknown tool is an error",
			"ERR   PING-01  ping answers",
			"SKIP  PROMPTS-GET-01  prompts/get returns messages  (needs-fixture)",
			"SKIP  SSE-ENDPOINT-01",
			"(revision-unsupported)",
			"FAIL  2025-06-18  TOOLS-CALL-UNKNOWN-01  unknown tool is an error",
			"out/transcripts/a.jsonl",
			"result: FAIL (1 failed, 1 error, 1 warning) — exit 1\n",
		}, nil},
		{"quiet", &Console{Quiet: true}, []string{
			"Summary",
			"result: FAIL (1 failed, 1 error, 1 warning) — exit 1\n",
		}, []string{"mcp-conform: testing", "▶", "Failures", "Skipped", "reports:", "expected:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := tt.console
			c.W = &buf
			runConsole(c, fixture(), paths)
			out := buf.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("console lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("console has %q", w)
				}
			}
			if strings.Contains(out, "\x1b") || strings.ContainsRune(out, 0) || strings.Contains(out, "\xff") {
				t.Error("output has an escape, a NUL or invalid UTF-8")
			}
			// Each finding's expected line once: the summary does not repeat itself.
			if n := strings.Count(out, "expected: error -32602"); n != 1 && !c.Quiet {
				t.Errorf("the failure's expected line is shown %d times, want once", n)
			}
			for _, row := range [][]string{
				{"2025-06-18", "2025-06-18", "stdio", "1", "1", "1", "1", "1"},
				{"2024-11-05", "unsupported", "(answered", "2025-03-26)", "stdio", "0", "0", "0", "3", "0"},
			} {
				if !hasFieldsLine(out, row) {
					t.Errorf("summary has no row %q", row)
				}
			}
			t.Logf("%d lines:\n%s", strings.Count(out, "\n"), out)
		})
	}
}

// A failure repeated in several revisions is said once, with the revisions listed;
// errors with one cause are one line however many checks they stopped.
func TestConsoleSaysEachCauseOnce(t *testing.T) {
	fail := CheckResult{ID: "A-01", Title: "a", Status: Fail, Message: "m", Expected: "e", Actual: "x", Source: "spec: MUST"}
	var broken []CheckResult
	for i := range 200 {
		broken = append(broken, CheckResult{ID: fmt.Sprintf("B-%03d", i), Title: "b", Status: Error, Message: "not run: context canceled", Source: "spec"})
	}
	r := &Report{ExitCode: 1, Revisions: []RevisionReport{
		{Revision: "2025-06-18", Negotiated: "2025-06-18", Checks: append([]CheckResult{fail}, broken...)},
		{Revision: "2025-11-25", Negotiated: "2025-11-25", Checks: append([]CheckResult{fail}, broken...)},
	}}
	var buf bytes.Buffer
	(&Console{W: &buf}).Summary(r, nil)
	out := buf.String()
	for _, w := range []string{"FAIL  2025-06-18, 2025-11-25  A-01  a", "ERR   400 checks in 2025-06-18, 2025-11-25", "not run: context canceled"} {
		if strings.Count(out, w) != 1 {
			t.Errorf("%q shown %d times, want once:\n%s", w, strings.Count(out, w), out)
		}
	}
	if n := strings.Count(out, "\n"); n > 20 {
		t.Errorf("%d lines for one failure and one shared cause:\n%s", n, out)
	}
}

// An unreachable target: the cause once, the server's stderr tail, the exit code;
// nothing per check.
func TestConsoleUnreachable(t *testing.T) {
	var checks []CheckResult
	for i := range 226 {
		checks = append(checks, CheckResult{ID: fmt.Sprintf("C-%03d", i), Title: "t", Status: Error,
			Message: "no session: the server exited (exit status 1)", Source: strings.Repeat("spec ", 40)})
	}
	r := &Report{ExitCode: 4, Notes: []string{"the target could not be reached: no session could be opened"}}
	for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		r.Revisions = append(r.Revisions, RevisionReport{Revision: rev, Checks: checks})
	}
	var buf bytes.Buffer
	c := &Console{W: &buf, StderrTail: strings.Repeat("noise\n", 30) + "Error: cannot find module 'server.js'\n\x1b[31m  at boot\n"}
	// As a run does: the header, then (no session, no check ran) the summary.
	c.RunStart("node server.js", []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}, nil)
	c.Summary(r, []string{"out/junit.xml", "out/report.json", "out/matrix.md", "out/stderr/process-01.log"})
	out := buf.String()
	for _, w := range []string{"mcp-conform: testing node server.js at 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25",
		"the target could not be reached: no session could be opened", "Error: cannot find module 'server.js'",
		"at boot", "904 checks in 4 revisions could not run", "result: UNREACHABLE (the target could not be reached) — exit 4\n"} {
		if strings.Count(out, w) != 1 {
			t.Errorf("%q shown %d times, want once", w, strings.Count(out, w))
		}
	}
	if strings.Contains(out, "C-001") || strings.Contains(out, "\x1b") {
		t.Errorf("per-check lines or escapes shown:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n >= 20 {
		t.Errorf("%d lines, want under 20:\n%s", n, out)
	}
}

// A filter matching nothing says so, with exit 3; an interrupt says so, with 130.
func TestConsoleNothingRanAndInterrupted(t *testing.T) {
	var buf bytes.Buffer
	r := &Report{ExitCode: 3, Notes: []string{"no check matched the selection (--label-filter, --focus, --skip, --revision)"},
		Revisions: []RevisionReport{{Revision: "2025-06-18"}}}
	(&Console{W: &buf}).Summary(r, nil)
	out := buf.String()
	if !strings.Contains(out, "no check matched the selection") || !strings.HasSuffix(out, "result: NOTHING RAN (no check matched the selection) — exit 3\n") ||
		strings.Contains(out, "no session") || strings.Contains(out, "FAIL") {
		t.Errorf("nothing matched:\n%s", out)
	}
	buf.Reset()
	r = &Report{ExitCode: ExitInterrupted, Notes: []string{"interrupted"}, Revisions: []RevisionReport{{Revision: "2025-06-18", Negotiated: "2025-06-18",
		Checks: []CheckResult{{ID: "A", Status: Pass}, {ID: "B", Status: Error, Message: "not run: context canceled"}, {ID: "C", Status: Error, Message: "not run: context canceled"}}}}}
	(&Console{W: &buf}).Summary(r, nil)
	out = buf.String()
	if strings.Count(out, "not run: context canceled") != 1 || !strings.HasSuffix(out, "result: INTERRUPTED (1 passed before the interrupt, 2 not finished) — exit 130\n") {
		t.Errorf("interrupted:\n%s", out)
	}
}

// On a terminal the console redraws one progress line per revision; off it, it
// writes no escape at all.
func TestConsoleLive(t *testing.T) {
	var buf bytes.Buffer
	runConsole(&Console{W: &buf, Live: true}, fixture(), nil)
	out := buf.String()
	if !strings.Contains(out, "\x1b[2F\x1b[J") {
		t.Errorf("no redraw of the two progress lines: %q", out)
	}
	for _, w := range []string{"2025-06-18  negotiated 2025-06-18 (stdio)", "5/5", "3/3", "1 fail, 1 error, 1 warn"} {
		if !strings.Contains(out, w) {
			t.Errorf("live output lacks %q: %q", w, out)
		}
	}
	if strings.Contains(out, "▶") {
		t.Error("live mode also printed plain revision lines")
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
	(&Console{W: &plain, Verbose: true}).CheckDone("2025-06-18", hostile)
	(&Console{W: &color, Color: true, Verbose: true}).CheckDone("2025-06-18", hostile)
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
		unsupported                bool
		want                       string
	}{
		{"2025-06-18", "2025-06-18", "stdio", false, "▶ 2025-06-18  negotiated 2025-06-18  (stdio)"},
		{"2024-11-05", "2025-03-26", "http", false, "▶ 2024-11-05  unsupported (answered 2025-03-26); every check skips  (http)"},
		{"2025-11-25", "", "", false, "▶ 2025-11-25  no session"},
		// A legacy-only server's 2026-07-28 column: the summary says unsupported, and
		// so does the progress line (issue 32: it said "no session").
		{"2026-07-28", "", "stdio", true, "▶ 2026-07-28  unsupported; every check skips  (stdio)"},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			var buf bytes.Buffer
			(&Console{W: &buf}).RevisionStart(tt.rev, tt.negotiated, tt.transport, tt.unsupported)
			if got := strings.TrimSpace(buf.String()); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConsoleConcurrent(t *testing.T) {
	var buf bytes.Buffer
	c := &Console{W: &buf, Verbose: true}
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
	for i := 0; i+3 < len(lines); i += 4 {
		if !strings.HasPrefix(lines[i], "  FAIL  C-") || strings.TrimSpace(lines[i+1]) != "m" ||
			!strings.Contains(lines[i+2], "expected: e") || !strings.Contains(lines[i+3], "actual:   a") {
			t.Errorf("interleaved block at line %d: %q", i, lines[i:i+4])
		}
	}
	(&Console{}).CheckDone("r", CheckResult{ID: "X"}) // a nil writer discards
}

func TestTailLines(t *testing.T) {
	stack := "Error: Cannot find module 'x'\n" + strings.Repeat("    at frame\n", 10) + "\nNode.js v20\n"
	tests := []struct {
		in   string
		n    int
		want []string
	}{
		{"a\n\nb\n", 8, []string{"a", "b"}},
		{"1\n2\n3\n4\n", 2, []string{"3", "4"}},
		{stack, 4, []string{"Error: Cannot find module 'x'", "…", "    at frame", "Node.js v20"}},
		{"fatal: x\nlast\n", 8, []string{"fatal: x", "last"}},
	}
	for _, tt := range tests {
		if got := tailLines(tt.in, tt.n); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("tailLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// Random probe names and the revision in a message do not split one finding.
func TestConsoleGroupsVolatileRepeats(t *testing.T) {
	var r Report
	for _, rev := range []string{"2024-11-05", "2025-06-18"} {
		r.Revisions = append(r.Revisions, RevisionReport{Revision: rev, Negotiated: rev, Checks: []CheckResult{{
			ID: "T-01", Title: "t", Status: Warn, Message: "m", Expected: "error for x_" + fmt.Sprintf("%x", rev) + "abcdef12",
			Actual: "-32603 at " + rev, Repro: "mcp-conform --revision " + rev,
		}}})
	}
	var buf bytes.Buffer
	(&Console{W: &buf}).Summary(&r, nil)
	out := buf.String()
	if strings.Count(out, "WARN  ") != 1 || !strings.Contains(out, "WARN  2024-11-05, 2025-06-18  T-01") ||
		!strings.Contains(out, "(for 2024-11-05; the others alike)") {
		t.Errorf("volatile repeats not grouped:\n%s", out)
	}
}
