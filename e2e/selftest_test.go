package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/refserver"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The self-test proves that the suite detects what it claims to: it runs the whole
// suite against the reference server once clean (the baseline, where every check
// passes or skips with a reason) and once per fault of refserver.Faults(), and demands
// that each fault turns exactly its target checks to fail (or warn) and changes no
// other verdict. Every check of the baseline must be proven by some fault: coverage
// cannot silently drop.

// stParallel bounds the suite runs in flight (each launches several servers).
const stParallel = 4

// stTimeout is the per-request deadline of every run: a fault that silences
// the server costs this much per request, so it is short.
const stTimeout = "2s"

// stKey names one verdict of a run: a check in a revision's column.
type stKey struct{ rev, id string }

func (k stKey) String() string { return k.rev + " " + k.id }

// stRun is one finished run of the suite, read from its report.json.
type stRun struct {
	report      *reports.Report
	verdicts    map[stKey]reports.CheckResult
	negotiated  map[string]string // revision → the version the server answered ("" when none)
	unsupported map[string]bool   // revision → every check of the column skipped as revision-unsupported
	ids         []string          // every check ID of the run, sorted
}

// The transports of the faults that bite only over HTTP (refserver.Fault.Transport):
// Streamable HTTP against a modern-only fixture (the 2026-07-28 transport's rules,
// some of which bind only a server that serves no earlier revision), Streamable
// HTTP against a legacy-only fixture (the session rules of 2025-03-26 to
// 2025-11-25), Streamable HTTP against a fixture serving both eras (the stream
// rows, whose faults break a legacy row and its 2026-07-28 twin at once), and the
// 2024-11-05 HTTP+SSE transport.
const (
	stHTTP       = "http"
	stLegacyHTTP = "http-legacy"
	stHTTPDual   = "http-dual"
	stSSE        = "sse"
	// stAuthHTTP is Streamable HTTP against a protected fixture serving both eras
	// (--auth-token), run with its token (--header Authorization): the AUTH checks
	// probe without it, every other check runs with it.
	stAuthHTTP = "http-auth"
)

// stAuthToken is the protected fixture's token in the self-test.
const stAuthToken = "mcp-conform-selftest-token"

// stServed is what each transport's fixture serves: "modern" (2026-07-28 only),
// "legacy" (2024-11-05 to 2025-11-25 only), "dual" or "" (every revision).
var stServed = map[string]string{"": "", stHTTP: "modern", stLegacyHTTP: "legacy", stHTTPDual: "dual", stSSE: "legacy", stAuthHTTP: "dual"}

// stRunSuite runs the whole suite against `mcp-conform fixture` with the given faults
// switched on and reads its reports: over stdio, or over the HTTP transport named
// (stHTTP, stLegacyHTTP, stHTTPDual, stSSE, stAuthHTTP).
func stRunSuite(t *testing.T, transport string, faults ...string) *stRun {
	t.Helper()
	server := []string{shQuote(bin), "fixture", "--transport", "stdio"}
	var url []string
	if transport != "" {
		port := freePort(t)
		kind, path := "http", "mcp"
		if transport == stSSE {
			kind, path = "sse", "sse"
		}
		server = []string{shQuote(bin), "fixture", "--transport", kind, "--era", stServed[transport], "--addr", fmt.Sprintf("127.0.0.1:%d", port)}
		url = []string{"--url", fmt.Sprintf("http://127.0.0.1:%d/%s", port, path)}
		if transport == stSSE {
			url = append(url, "--transport", "sse")
		}
		if transport == stAuthHTTP {
			server = append(server, "--auth-token", stAuthToken)
			url = append(url, "--header", "Authorization: Bearer "+stAuthToken)
		}
	}
	for _, f := range faults {
		server = append(server, "--fault", shQuote(f))
	}
	dir := filepath.Join(t.TempDir(), "report")
	args := append([]string{"--target", strings.Join(server, " "), "--report-dir", dir, "--timeout", stTimeout}, url...)
	r := runCLI(t, args...)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("exit code %d, want 0 or 1\n%s", r.code, r)
	}
	rep := loadReports(t, dir)
	if rep.ExitCode != r.code {
		t.Errorf("report.json says exit code %d, the run exited %d", rep.ExitCode, r.code)
	}
	run := &stRun{report: rep, verdicts: map[stKey]reports.CheckResult{}, negotiated: map[string]string{}, unsupported: map[string]bool{}}
	seen := map[string]bool{}
	for _, col := range rep.Revisions {
		run.negotiated[col.Revision] = col.Negotiated
		run.unsupported[col.Revision] = stUnsupported(col)
		for _, c := range col.Checks {
			run.verdicts[stKey{col.Revision, c.ID}] = c
			if !seen[c.ID] {
				seen[c.ID] = true
				run.ids = append(run.ids, c.ID)
			}
		}
	}
	sort.Strings(run.ids)
	return run
}

// stUnsupported says whether a column was revision-unsupported: every check of it
// skipped for that reason (report.json does not carry the column's state).
func stUnsupported(col reports.RevisionReport) bool {
	for _, c := range col.Checks {
		if c.Status != reports.Skip || !strings.HasPrefix(c.Message, string(reports.RevisionUnsupported)+": ") {
			return false
		}
	}
	return len(col.Checks) > 0
}

// stSkipReasons are the reasons a skip may give (the verdict policy (README, Verdicts)).
var stSkipReasons = []reports.SkipReason{
	reports.NotApplicable, reports.RevisionUnsupported, reports.NeedsFixture,
	reports.CallsNotAllowed, reports.NotExercised,
}

// stAssertBaseline wants every check of the clean run to pass, or to skip with a
// reason, in every revision, each revision negotiated as asked (served "modern": the
// legacy ones refused, the fixture serves 2026-07-28 only; "legacy": 2026-07-28
// refused).
func stAssertBaseline(t *testing.T, base *stRun, served string) {
	t.Helper()
	for rev, neg := range base.negotiated {
		r, ok := revision.Lookup(rev)
		refused := ok && neg == "" && (served == "modern" && r.Era == revision.Legacy || served == "legacy" && r.Era != revision.Legacy)
		if refused {
			continue
		}
		if neg != rev {
			t.Errorf("baseline: asked for %s, the reference server answered %q", rev, neg)
		}
	}
	for _, k := range stSortedKeys(base.verdicts) {
		c := base.verdicts[k]
		switch c.Status {
		case reports.Pass:
		case reports.Skip:
			if !slices.ContainsFunc(stSkipReasons, func(r reports.SkipReason) bool {
				return strings.HasPrefix(c.Message, string(r)+": ") && len(c.Message) > len(r)+2
			}) {
				t.Errorf("baseline: %s skipped without a reason: %q", k, c.Message)
			}
		default:
			t.Errorf("baseline: %s is %s on the clean reference server: %s", k, c.Status, c.Message)
		}
	}
}

// stAssertCatalogue checks the fault catalogue against the baseline: unique names,
// and targets, masks and revisions the run knows.
func stAssertCatalogue(t *testing.T, faults []refserver.Fault, base *stRun) {
	t.Helper()
	names := map[string]bool{}
	for _, f := range faults {
		if names[f.Name] {
			t.Errorf("fault %s is in the catalogue twice", f.Name)
		}
		names[f.Name] = true
		if len(f.Targets) == 0 {
			t.Errorf("fault %s targets no check", f.Name)
		}
		for _, id := range append(append(slices.Clone(f.Targets), f.Masks...), f.Exercises...) {
			if !slices.Contains(base.ids, id) {
				t.Errorf("fault %s names check %s, which the suite does not run", f.Name, id)
			}
			if n := stCount(id, f.Targets) + stCount(id, f.Masks) + stCount(id, f.Exercises); n > 1 {
				t.Errorf("fault %s lists %s more than once among its targets, masked and exercised checks", f.Name, id)
			}
		}
		for _, rev := range f.Revisions {
			if _, ok := base.negotiated[rev]; !ok {
				t.Errorf("fault %s bites in revision %s, which the suite does not test", f.Name, rev)
			}
		}
	}
}

// stCount counts id in ids.
func stCount(id string, ids []string) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

// stFlips says whether a verdict turned into a finding: fail, or warn, from another
// status.
func stFlips(base, got reports.Status) bool {
	return got != base && (got == reports.Fail || got == reports.Warn)
}

// stJudgeFault compares a fault's run with the baseline and returns the target checks
// it proved. Every other difference fails the test with the evidence.
func stJudgeFault(t *testing.T, f refserver.Fault, base, run *stRun) []string {
	t.Helper()
	// A column whose negotiated version changed was lost to the fault (initialize
	// refused, or answered with another version), and so was one that no longer
	// opens as revision-unsupported (a server whose endpoint refuses every POST): by
	// the runner's design every check of such a column that does not judge the
	// handshake or the opening itself is skipped as revision-unsupported or errors
	// with "no session".
	lost := map[string]bool{}
	for rev, neg := range base.negotiated {
		if run.negotiated[rev] != neg || run.unsupported[rev] != base.unsupported[rev] {
			lost[rev] = true
			if !slices.Contains(f.Revisions, rev) {
				t.Errorf("the %s column was lost (asked for %s, the server answered %q), but the fault does not list %s among its revisions", rev, rev, run.negotiated[rev], rev)
			}
		}
	}
	var unexpected []string
	flippedIn := map[string][]string{} // target → revisions where it flipped
	for _, k := range stSortedKeys(base.verdicts) {
		was := base.verdicts[k]
		got, ok := run.verdicts[k]
		if !ok {
			unexpected = append(unexpected, fmt.Sprintf("%s: %s in the baseline, missing from the fault's report", k, was.Status))
			continue
		}
		if got.Status == was.Status {
			continue
		}
		target := slices.Contains(f.Targets, k.id)
		switch {
		case target && stFlips(was.Status, got.Status):
			flippedIn[k.id] = append(flippedIn[k.id], k.rev)
			// A failing verdict always carries its exchange (issue 32).
			if got.Exchange == nil || len(got.Exchange.Sessions) == 0 {
				t.Errorf("%s: %s with no exchange in its evidence: %s", k, got.Status, got.Message)
			}
			continue
		case lost[k.rev] && (got.Status == reports.Skip || got.Status == reports.Error):
			continue
		case slices.Contains(f.Masks, k.id) && got.Status == reports.Skip:
			continue
		case slices.Contains(f.Exercises, k.id) && was.Status == reports.Skip && got.Status == reports.Pass:
			continue
		}
		role := "not a target"
		switch {
		case target:
			role = "a target, but it did not turn to fail or warn"
		case slices.Contains(f.Masks, k.id):
			role = "masked, so it may only turn to skip"
		case slices.Contains(f.Exercises, k.id):
			role = "exercised, so it may only turn from skip to pass"
		}
		unexpected = append(unexpected, fmt.Sprintf("%s: %s → %s (%s): %s", k, was.Status, got.Status, role, got.Message))
	}
	for k := range run.verdicts {
		if _, ok := base.verdicts[k]; !ok {
			unexpected = append(unexpected, fmt.Sprintf("%s: %s in the fault's report, absent from the baseline", k, run.verdicts[k].Status))
		}
	}
	if len(unexpected) > 0 {
		sort.Strings(unexpected)
		t.Errorf("verdicts that changed but may not:\n  %s", strings.Join(unexpected, "\n  "))
	}
	var proven []string
	for _, id := range f.Targets {
		revs := flippedIn[id]
		switch {
		case len(revs) == 0:
			t.Errorf("target %s did not turn to fail or warn in any revision: %s", id, stDescribe(run, id))
			continue
		case len(f.Revisions) > 0:
			var missing []string
			for _, rev := range f.Revisions {
				if _, applies := base.verdicts[stKey{rev, id}]; applies && !slices.Contains(revs, rev) {
					missing = append(missing, rev)
				}
			}
			if len(missing) > 0 {
				t.Errorf("target %s did not turn to fail or warn in %s, where the fault bites: %s", id, strings.Join(missing, ", "), stDescribe(run, id))
				continue
			}
		}
		proven = append(proven, id)
	}
	return proven
}

// stDescribe lists a check's verdicts in every revision of a run.
func stDescribe(run *stRun, id string) string {
	var parts []string
	for _, col := range run.report.Revisions {
		if c, ok := run.verdicts[stKey{col.Revision, id}]; ok {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", col.Revision, c.Status, c.Message))
		}
	}
	if len(parts) == 0 {
		return "the check is not in the report"
	}
	return strings.Join(parts, "; ")
}

// stSortedKeys returns a run's verdict keys by check ID, then revision.
func stSortedKeys(m map[stKey]reports.CheckResult) []stKey {
	keys := make([]stKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].id != keys[j].id {
			return keys[i].id < keys[j].id
		}
		return keys[i].rev < keys[j].rev
	})
	return keys
}

// TestSelfTest runs the suite against the clean reference server and against each of
// its faults (refserver/faults.go): every fault flips its target
// checks and nothing else, and every check of the suite is flipped by some fault.
func TestSelfTest(t *testing.T) {
	t.Parallel() // long: it overlaps the other long tests (make test-e2e: -parallel)
	// One clean run per transport a fault needs: stdio for most, and a baseline over
	// each HTTP transport that faults bite on (only when some fault does).
	faults := refserver.Faults()
	// MCPCONFORM_SELFTEST_FAULTS=a,b proves only the faults named, against their
	// baselines: the loop of writing one check and its fault. The whole self-test
	// (every check proven) runs without it, as CI runs it.
	only := os.Getenv("MCPCONFORM_SELFTEST_FAULTS")
	if only != "" {
		names := strings.Split(only, ",")
		faults = slices.DeleteFunc(faults, func(f refserver.Fault) bool { return !slices.Contains(names, f.Name) })
		if len(faults) != len(names) {
			t.Fatalf("MCPCONFORM_SELFTEST_FAULTS names %d faults, %d of them known", len(names), len(faults))
		}
	}
	byTransport := map[string][]refserver.Fault{}
	for _, f := range faults {
		byTransport[f.Transport] = append(byTransport[f.Transport], f)
	}
	bases := map[string]*stRun{"": stRunSuite(t, "")}
	stAssertBaseline(t, bases[""], "")
	for _, tr := range []string{stHTTP, stLegacyHTTP, stHTTPDual, stSSE, stAuthHTTP} {
		if len(byTransport[tr]) > 0 {
			bases[tr] = stRunSuite(t, tr)
			stAssertBaseline(t, bases[tr], stServed[tr])
		}
	}
	for tr, fs := range byTransport {
		b, ok := bases[tr]
		if !ok {
			t.Fatalf("faults %s bite on transport %q, which the self-test does not run", fs[0].Name, tr)
		}
		stAssertCatalogue(t, fs, b)
	}
	base := bases[""]
	if t.Failed() {
		t.FailNow()
	}

	var mu sync.Mutex
	provenBy := map[string][]string{} // check ID → the faults that flipped it
	sem := make(chan struct{}, stParallel)
	t.Run("fault", func(t *testing.T) {
		for _, f := range faults {
			t.Run(f.Name, func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				run := stRunSuite(t, f.Transport, f.Name)
				proven := stJudgeFault(t, f, bases[f.Transport], run)
				mu.Lock()
				defer mu.Unlock()
				for _, id := range proven {
					provenBy[id] = append(provenBy[id], f.Name)
				}
			})
		}
	})

	if only != "" {
		for _, f := range faults {
			fmt.Printf("fault %s flips its targets\n", f.Name)
		}
		return
	}
	n := 0
	for _, id := range base.ids {
		if len(provenBy[id]) > 0 {
			n++
			continue
		}
		t.Errorf("no fault flips %s: add a fault for it to refserver/faults.go — a check that no server behaviour can make fail or warn has no place in the suite", id)
	}
	line := fmt.Sprintf("checks proven: %d of %d", n, len(base.ids))
	fmt.Println(line)
	// `go test` hides a passing package's output; make test prints this file.
	if path := os.Getenv("MCPCONFORM_SELFTEST_SUMMARY"); path != "" {
		if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
			t.Errorf("write the self-test summary: %v", err)
		}
	}
}

// TestBroadcastVerdictsStable is issue 20's broadcast case: a server that sends one
// session's progress to every open session (mcp-framework 0.2 over Streamable HTTP
// does; the fault sh-stream-broadcast) must get the same verdicts on every run,
// whichever concurrent column made a call: SHTTP-NO-BROADCAST-01 fails in each
// legacy HTTP column from 2025-03-26, PROG-TOKEN-01 fails at 2024-11-05 (its
// second-session probe: progress.mdx is the only rule there) and passes in every
// other column.
func TestBroadcastVerdictsStable(t *testing.T) {
	t.Parallel() // long: it overlaps the other long tests (make test-e2e: -parallel)
	var first *stRun
	for i := 0; i < 3; i++ {
		run := stRunSuite(t, stHTTPDual, "sh-stream-broadcast")
		for k, c := range run.verdicts {
			switch {
			case k.id == "SHTTP-NO-BROADCAST-01" && k.rev != "2024-11-05" && k.rev != "2026-07-28" && c.Status != reports.Fail:
				t.Errorf("run %d: %s = %s, want fail: %s", i+1, k, c.Status, c.Message)
			case k.id == "PROG-TOKEN-01" && k.rev == "2024-11-05" && c.Status != reports.Fail:
				t.Errorf("run %d: %s = %s, want fail (the second session's token on the column's session): %s", i+1, k, c.Status, c.Message)
			case k.id == "PROG-TOKEN-01" && k.rev != "2024-11-05" && c.Status != reports.Pass:
				t.Errorf("run %d: %s = %s, want pass (a leaked token is not the column's): %s", i+1, k, c.Status, c.Message)
			}
		}
		if first == nil {
			first = run
			continue
		}
		for k, c := range run.verdicts {
			if was := first.verdicts[k]; was.Status != c.Status {
				t.Errorf("run %d: %s = %s, run 1 said %s: %s", i+1, k, c.Status, was.Status, c.Message)
			}
		}
	}
}
