package e2e

import (
	"flag"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

// Stability: the same server, run several times, must get the same verdict for every
// check in every revision. TestRealServers runs each real server realRuns times
// concurrently (each run launches its own server process, on its own port over HTTP),
// so the extra runs cost little wall time, and the load of concurrent runs is part of
// what the verdicts must withstand.
var realRuns = flag.Int("real-runs", 3, "how many times TestRealServers runs each real server; every run must give the same verdicts")

// runRealServer runs the suite n times at once against srv and returns the reports in
// run order.
func runRealServer(t *testing.T, srv realServer, n int) []*reports.Report {
	t.Helper()
	if n < 1 {
		n = 1
	}
	reps := make([]*reports.Report, n)
	t.Run("runs", func(t *testing.T) {
		for i := range reps {
			t.Run(fmt.Sprintf("run%d", i+1), func(t *testing.T) {
				t.Parallel()
				reps[i] = runOnce(t, srv)
			})
		}
	})
	return reps
}

// verdicts maps "ID REVISION" to its status.
func verdicts(rep *reports.Report) map[string]reports.Status {
	out := map[string]reports.Status{}
	for _, col := range rep.Revisions {
		for _, c := range col.Checks {
			out[c.ID+" "+col.Revision] = c.Status
		}
	}
	return out
}

// compareRuns fails for every check whose verdict differs between runs, naming the
// verdict of each run and the messages behind them.
func compareRuns(t *testing.T, reps []*reports.Report) {
	t.Helper()
	if diffs := unstable(reps); len(diffs) > 0 {
		t.Errorf("unstable verdicts: the same server got different verdicts in %d runs:\n  %s", len(reps), strings.Join(diffs, "\n  "))
	}
}

// unstable lists every "ID REVISION" whose verdict is not the same in every run.
func unstable(reps []*reports.Report) []string {
	all := make([]map[string]reports.Status, len(reps))
	keys := map[string]bool{}
	for i, rep := range reps {
		all[i] = verdicts(rep)
		for k := range all[i] {
			keys[k] = true
		}
	}
	var diffs []string
	for k := range keys {
		seq := make([]string, len(all))
		same := true
		for i, v := range all {
			st, ok := v[k]
			seq[i] = string(st)
			if !ok {
				seq[i] = "absent"
			}
			same = same && seq[i] == seq[0]
		}
		if !same {
			id, rev, _ := strings.Cut(k, " ")
			var msgs []string
			for i, rep := range reps {
				msgs = append(msgs, fmt.Sprintf("run %d: %s", i+1, message(rep, id, rev)))
			}
			diffs = append(diffs, fmt.Sprintf("%s: %s\n      %s", k, strings.Join(seq, ", "), strings.Join(msgs, "\n      ")))
		}
	}
	sort.Strings(diffs)
	return diffs
}

func message(rep *reports.Report, id, rev string) string {
	for _, col := range rep.Revisions {
		if col.Revision != rev {
			continue
		}
		for _, c := range col.Checks {
			if c.ID == id {
				return oneLineText(string(c.Status) + " " + c.Message)
			}
		}
	}
	return "absent"
}

func TestUnstableFindsEveryDifference(t *testing.T) {
	rep := func(pingStatus, toolsStatus reports.Status, withTools bool) *reports.Report {
		col := reports.RevisionReport{Revision: "2025-06-18", Checks: []reports.CheckResult{{ID: "PING-01", Status: pingStatus}}}
		if withTools {
			col.Checks = append(col.Checks, reports.CheckResult{ID: "TOOLS-LIST-01", Status: toolsStatus})
		}
		return &reports.Report{Revisions: []reports.RevisionReport{col}}
	}
	same := []*reports.Report{rep(reports.Pass, reports.Fail, true), rep(reports.Pass, reports.Fail, true), rep(reports.Pass, reports.Fail, true)}
	if d := unstable(same); len(d) != 0 {
		t.Errorf("identical runs reported unstable: %v", d)
	}
	flipped := []*reports.Report{rep(reports.Pass, reports.Fail, true), rep(reports.Skip, reports.Fail, true), rep(reports.Pass, reports.Fail, false)}
	d := unstable(flipped)
	if len(d) != 2 || !strings.HasPrefix(d[0], "PING-01 2025-06-18: pass, skip, pass") || !strings.HasPrefix(d[1], "TOOLS-LIST-01 2025-06-18: fail, fail, absent") {
		t.Errorf("want PING-01 (pass, skip, pass) and TOOLS-LIST-01 (fail, fail, absent), got %q", d)
	}
}
