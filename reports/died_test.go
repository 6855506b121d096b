package reports

import (
	"bytes"
	"strings"
	"testing"
)

// A run whose launched target died says so on its result line, whatever its checks
// found; the note alone would leave "FAIL (no checks)".
func TestConsoleResultLineTargetDied(t *testing.T) {
	died := targetDiedPrefix + `: the launched command "srv" exited by itself (exit status 1) before the run stopped it`
	tests := []struct {
		name   string
		checks []CheckResult
		exit   int
		notes  []string
		want   string
	}{
		{"died after every check passed", []CheckResult{{Status: Pass}, {Status: Pass}}, 1, []string{died},
			"result: FAIL (the target died during the run) — exit 1"},
		{"died with errors after it", []CheckResult{{Status: Pass}, {Status: Error}, {Status: Warn}}, 1, []string{died},
			"result: ERROR (the target died during the run, 1 error, 1 warning) — exit 1"},
		{"interrupted: the interrupt is the cause", []CheckResult{{Status: Pass}}, ExitInterrupted, []string{died},
			"result: INTERRUPTED (1 passed before the interrupt) — exit 130"},
		{"no death", []CheckResult{{Status: Pass}}, 0, nil, "result: PASS (1 passed) — exit 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			r := &Report{ExitCode: tt.exit, Notes: tt.notes, Revisions: []RevisionReport{{Revision: "2025-06-18", Negotiated: "2025-06-18", Checks: tt.checks}}}
			(&Console{W: &buf}).Summary(r, nil)
			lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
			if got := lines[len(lines)-1]; got != tt.want {
				t.Errorf("last line = %q, want %q", got, tt.want)
			}
		})
	}
}
