package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// faultyRun is one full run against the reference server with two faults — PING-01
// warns (a SHOULD) and TOOLS-CALL-01 fails at every revision — shared by the
// repro, replay and HTML tests so that the run happens once.
var faultyRun struct {
	once   sync.Once
	dir    string
	run    *cliRun
	target string
}

const reproFault = "ping-extra-keys"

// reproFaults are the faults of the shared faulty run, and the checks they flip.
var (
	reproFaults = []string{reproFault, "simple-text-rpc-error"}
	reproChecks = map[string]reports.Status{"PING-01": reports.Warn, "TOOLS-CALL-01": reports.Fail}
)

// unknownToolName is the random name the unknown-tool probe makes up per run.
var unknownToolName = regexp.MustCompile(`x_conformance_nonexistent_[0-9a-f]+`)

func faultyReport(t *testing.T) (dir string, rep *reports.Report, target string) {
	t.Helper()
	faultyRun.once.Do(func() {
		d, err := os.MkdirTemp(filepath.Dir(bin), "faulty-run-") // removed with the binary
		if err != nil {
			t.Fatal(err)
		}
		faultyRun.dir = d
		faultyRun.target = shQuote(bin) + " fixture --fault " + strings.Join(reproFaults, " --fault ")
		faultyRun.run = runCLI(t, "--target", faultyRun.target, "--report-dir", d)
	})
	if faultyRun.run == nil {
		t.Fatal("the faulty run did not complete (see the first test that ran it)")
	}
	wantCode(t, faultyRun.run, 1) // TOOLS-CALL-01 fails
	return faultyRun.dir, loadReports(t, faultyRun.dir), faultyRun.target
}

// TestReproReproducesTheVerdict runs the repro command of every cell the faults
// flipped and checks that it re-runs exactly that check at that revision, with the
// same verdict and message (but the probe's random tool name) and the same exit
// code; and that every failing, warning or erroring check carries a repro and an
// exchange, and no other does.
func TestReproReproducesTheVerdict(t *testing.T) {
	dir, rep, target := faultyReport(t)
	flippedCells := 0
	for _, rr := range rep.Revisions {
		for _, c := range rr.Checks {
			switch c.Status {
			case reports.Fail, reports.Warn, reports.Error:
			default:
				if c.Repro != "" || c.Exchange != nil {
					t.Errorf("%s %s (%s) has a repro or exchange; only non-passing checks get one", rr.Revision, c.ID, c.Status)
				}
				continue
			}
			if c.Repro == "" || c.Exchange == nil {
				t.Errorf("%s %s (%s): no repro command or exchange", rr.Revision, c.ID, c.Status)
			}
			want, flipped := reproChecks[c.ID]
			if !flipped {
				t.Errorf("%s %s is %s: only %v should be flipped by the faults", rr.Revision, c.ID, c.Status, reproChecks)
				continue
			}
			if c.Status != want {
				t.Errorf("%s %s is %s, want %s", rr.Revision, c.ID, c.Status, want)
			}
			flippedCells++
			if c.Exchange.Empty() {
				t.Errorf("%s %s: empty exchange", rr.Revision, c.ID)
			}
			reproduce(t, rr.Revision, c, target)
		}
	}
	// Every column where a flipped check runs (PING-01 has no 2026-07-28 column).
	want := 0
	for _, rr := range rep.Revisions {
		for _, c := range rr.Checks {
			if _, ok := reproChecks[c.ID]; ok {
				want++
			}
		}
	}
	if flippedCells != want {
		t.Fatalf("%d cells flipped, want %d (report in %s)", flippedCells, want, dir)
	}
}

// reproduce runs one check's repro command (with the test's binary for
// "mcp-conform" and a temporary report directory) and compares its verdict.
func reproduce(t *testing.T, rev string, want reports.CheckResult, target string) {
	t.Helper()
	argv, err := transport.SplitCommand(want.Repro)
	if err != nil {
		t.Fatalf("repro %q does not split: %v", want.Repro, err)
	}
	if argv[0] != "mcp-conform" {
		t.Fatalf("repro %q: want it to start with mcp-conform", want.Repro)
	}
	args := argv[1:]
	gotTarget := ""
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--report-dir":
			args[i+1] = t.TempDir()
		case "--target":
			gotTarget = args[i+1]
		}
	}
	if gotTarget != target {
		t.Errorf("repro %q: target %q, want the run's %q", want.Repro, gotTarget, target)
	}
	reportDir := args[indexOf(args, "--report-dir")+1]
	r := runCLI(t, args...)
	wantStatusCode := map[reports.Status]int{reports.Fail: 1, reports.Error: 1, reports.Warn: 0}[want.Status]
	wantCode(t, r, wantStatusCode)
	got := loadReports(t, reportDir)
	if len(got.Revisions) != 1 || got.Revisions[0].Revision != rev || len(got.Revisions[0].Checks) != 1 {
		t.Fatalf("repro %q ran %+v; want exactly %s at %s", want.Repro, got.Revisions, want.ID, rev)
	}
	c := got.Revisions[0].Checks[0]
	norm := func(s string) string { return unknownToolName.ReplaceAllString(s, "x_conformance_nonexistent_…") }
	if c.ID != want.ID || c.Status != want.Status || norm(c.Message) != norm(want.Message) {
		t.Errorf("repro %q: got %s %s %q, want %s %s %q", want.Repro, c.ID, c.Status, c.Message, want.ID, want.Status, want.Message)
	}
	if c.Repro != want.Repro {
		t.Errorf("the repro's own repro %q differs from the run's %q", c.Repro, want.Repro)
	}
}

func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

// TestReplayShowsTheServersReply replays PING-01's slice from report.json to the
// faulty server (stdio and Streamable HTTP), where the reply shows the fault, and to
// the clean server, where it does not.
func TestReplayShowsTheServersReply(t *testing.T) {
	dir, _, target := faultyReport(t)
	reportJSON := filepath.Join(dir, reports.JSONFile)
	const rev = "2025-06-18"
	replay := func(t *testing.T, target string) string {
		t.Helper()
		r := runCLI(t, "replay", reportJSON, "--check", "PING-01", "--revision", rev, "--target", target)
		wantCode(t, r, 0)
		// The slice starts after the handshake: the replay initializes as its session did.
		for _, want := range []string{`"method":"initialize"`, `"protocolVersion":"` + rev + `"`, `"method":"notifications/initialized"`, `-> {`, `"method":"ping"`} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("replay output lacks %s:\n%s", want, r.stdout)
			}
		}
		return r.stdout
	}
	faultyReply := `<- {"id":`
	t.Run("stdio, faulty", func(t *testing.T) {
		out := replay(t, target)
		if !strings.Contains(out, faultyReply) || !strings.Contains(out, `"result":{"status":"ok"}`) {
			t.Errorf("replay to the faulty server does not show its ping reply with the extra key:\n%s", out)
		}
	})
	t.Run("http, faulty", func(t *testing.T) {
		out := replay(t, startFixture(t, "http", "--fault", reproFault))
		if !strings.Contains(out, "(http, asked for "+rev) || !strings.Contains(out, `"result":{"status":"ok"}`) {
			t.Errorf("replay over HTTP does not show the faulty ping reply:\n%s", out)
		}
	})
	t.Run("stdio, fixed", func(t *testing.T) {
		out := replay(t, shQuote(bin)+" fixture")
		if strings.Contains(out, `"status":"ok"`) || !strings.Contains(out, `"result":{}`) {
			t.Errorf("replay to the clean server should show an empty ping result:\n%s", out)
		}
	})
}

// TestReplayRawSlice replays a hand-written slice file that holds its own handshake
// and a line that is not JSON: the replay sends them as they are (no second
// initialize), and the barrier shows the server's parse error before the end.
func TestReplayRawSlice(t *testing.T) {
	slice := `{"sessions":[{"session":"x-01","transport":"stdio","requested":"2025-06-18","messages":[
	  {"seq":1,"dir":"send","at":"2026-01-01T00:00:00Z","message":{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}},
	  {"seq":2,"dir":"recv","at":"2026-01-01T00:00:00.001Z","message":{"jsonrpc":"2.0","id":"a","result":{}}},
	  {"seq":3,"dir":"send","at":"2026-01-01T00:00:00.002Z","message":{"jsonrpc":"2.0","method":"notifications/initialized"}},
	  {"seq":4,"dir":"send","at":"2026-01-01T00:00:00.003Z","raw":"{not json"},
	  {"seq":5,"dir":"send","at":"2026-01-01T00:00:00.004Z","message":{"jsonrpc":"2.0","id":"b","method":"tools/list"}}]}]}`
	file := filepath.Join(t.TempDir(), "slice.json")
	if err := os.WriteFile(file, []byte(slice), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "replay", file, "--target", shQuote(bin)+" fixture")
	wantCode(t, r, 0)
	if n := strings.Count(r.stdout, `"method":"initialize"`); n != 1 {
		t.Errorf("%d initialize requests, want the slice's one:\n%s", n, r.stdout)
	}
	for _, want := range []string{`-> {"jsonrpc":"2.0","id":"a","method":"initialize"`, `<- {"id":"a","jsonrpc":"2.0","result":{`, `-> {not json`, `"code":-32700`, `<- {"id":"b","jsonrpc":"2.0","result":{"nextCursor"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("replay output lacks %s:\n%s", want, r.stdout)
		}
	}
	if r := runCLI(t, "replay", file, "--target", filepath.Join(t.TempDir(), "no-such-server")); r.code != 4 {
		t.Errorf("replay to a missing server exited %d, want 4\n%s", r.code, r)
	}
}
