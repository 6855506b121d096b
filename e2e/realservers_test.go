package e2e

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/reports"
)

// The real third-party servers: installed by `make real-servers` (the Go SDK fixture
// built from fixtures/gosdk, the npm packages of fixtures/npm with `npm ci`), which
// `make test` runs first and which sets MCPCONFORM_REAL=1. Under that variable a
// missing server is a failure, never a silent skip.

var update = flag.Bool("update", false, "rewrite the golden verdict files of the real servers (a reviewed change: new non-pass lines get a TODO that fails the test until the spec text behind them is written)")

const todoComment = "TODO: name the spec text behind this verdict"

// realServer is one third-party server and how to run the suite against it.
type realServer struct {
	name string // golden file name: testdata/golden/<name>.txt
	// args builds the mcp-conform arguments (the target) for this server.
	args func(t *testing.T) []string
}

func repoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd) // the e2e package sits at the repository root
}

// realPaths locates the installed servers, or skips/fails the test.
func realPaths(t *testing.T) (gosdk, npmDir string) {
	t.Helper()
	root := repoRoot(t)
	gosdk = filepath.Join(root, "bin", "gosdk-fixture")
	npmDir = filepath.Join(root, "fixtures", "npm")
	everything := filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	var missing []string
	for _, p := range []string{gosdk, mcpgoPath(gosdk), everything} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("real servers not installed (%s): run `make real-servers` (make test does)", strings.Join(missing, ", "))
		if os.Getenv("MCPCONFORM_REAL") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return gosdk, npmDir
}

// mcpgoPath is the mcp-go fixture (fixtures/mcpgo), built next to the Go SDK fixture.
func mcpgoPath(gosdk string) string { return filepath.Join(filepath.Dir(gosdk), "mcpgo-fixture") }

func everythingJS(npmDir string) string {
	return filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// The tools the runs may call (tier 1, --call): on the Go SDK fixture and the mcp-go
// fixture, their own tools and toggle_tool as the list-change trigger; on server-everything, the tools
// that only build content — not get-env (it returns the environment),
// gzip-file-as-resource (it fetches a URL), the toggles or the long operations —
// and simulate-research-query, its one tool that requires a task (about 4 s of
// simulated work, for TOOLS-CALL-TASK-R4-01).
var (
	gosdkCalls      = []string{"--call", "echo", "--call", "add", "--call", "fail", "--call", "upper", "--trigger-tool", "toggle_tool"}
	mcpgoCalls      = []string{"--call", "echo", "--call", "add", "--call", "fail", "--call", "upper", "--call", "pixel", "--trigger-tool", "toggle_tool"}
	everythingCalls = []string{"--call", "echo", "--call", "get-sum", "--call", "get-tiny-image", "--call", "get-annotated-message",
		"--call", "get-resource-links", "--call", "get-resource-reference", "--call", "get-structured-content",
		"--call", "simulate-research-query"}
)

// realAuthToken is the token of the protected real servers.
const realAuthToken = "mcp-conform-real-token"

func realServers(gosdk, npmDir string) []realServer {
	return []realServer{
		{"gosdk-stdio", func(t *testing.T) []string { return append([]string{"--target", shQuote(gosdk)}, gosdkCalls...) }},
		{"gosdk-http", func(t *testing.T) []string {
			port := freePort(t)
			return append([]string{
				"--target", fmt.Sprintf("%s --http 127.0.0.1:%d", shQuote(gosdk), port),
				"--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
			}, gosdkCalls...)
		}},
		// The Go SDK fixture protected by the SDK's own auth package (fixtures/gosdk/
		// auth.go, issue 35), run with its token: the AUTH checks probe without it,
		// every other check runs as on gosdk-http.
		{"gosdk-http-auth", func(t *testing.T) []string {
			port := freePort(t)
			return append([]string{
				"--target", fmt.Sprintf("%s --http 127.0.0.1:%d --auth-token %s", shQuote(gosdk), port, realAuthToken),
				"--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
				"--header", "Authorization: Bearer " + realAuthToken,
			}, gosdkCalls...)
		}},
		{"mcpgo-stdio", func(t *testing.T) []string {
			return append([]string{"--target", shQuote(mcpgoPath(gosdk))}, mcpgoCalls...)
		}},
		{"mcpgo-http", func(t *testing.T) []string {
			port := freePort(t)
			return append([]string{
				"--target", fmt.Sprintf("%s --http 127.0.0.1:%d", shQuote(mcpgoPath(gosdk)), port),
				"--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
			}, mcpgoCalls...)
		}},
		// A server protected by the TypeScript SDK's requireBearerAuth and
		// mcpAuthMetadataRouter (fixtures/npm/protected-server.mjs, issue 35), run
		// with its token; only its AUTH rows are golden (the server around them is a
		// one-tool sketch).
		{"ts-sdk-http-auth", func(t *testing.T) []string {
			port := freePort(t)
			return []string{
				"--target", "node protected-server.mjs", "--cwd", npmDir,
				"--env", fmt.Sprintf("PORT=%d", port), "--env", "MCP_FIXTURE_TOKEN=" + realAuthToken,
				"--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
				"--header", "Authorization: Bearer " + realAuthToken, "--focus", "AUTH-",
			}
		}},
		{"everything-stdio", func(t *testing.T) []string {
			return append([]string{"--target", "node " + shQuote(everythingJS(npmDir)), "--cwd", npmDir}, everythingCalls...)
		}},
		{"everything-http", func(t *testing.T) []string {
			port := freePort(t)
			// server-everything listens on every interface; loopback.cjs pins it to
			// 127.0.0.1 (fixtures/npm/README.md).
			return append([]string{
				"--target", "node --require ./loopback.cjs " + shQuote(everythingJS(npmDir)) + " streamableHttp",
				"--cwd", npmDir, "--env", fmt.Sprintf("PORT=%d", port),
				"--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
			}, everythingCalls...)
		}},
	}
}

// TestRealServers runs the whole suite against servers no one here wrote and compares
// every verdict with its golden file.
func TestRealServers(t *testing.T) {
	// Not parallel: the goldens are judged on a machine this test has to itself. Beside
	// the self-test's runs, the Go SDK's listen race (docs/performance.md, Under load)
	// turned NOTIF-LISTEN-LC-R5-01 to warn in one CI run of four; alone it still does,
	// about once in 40 runs of the column, and the comparisons accept that race's
	// outcomes, and only those (serverRaces).
	gosdk, npmDir := realPaths(t)
	for _, srv := range realServers(gosdk, npmDir) {
		t.Run(srv.name, func(t *testing.T) {
			// The same server, run realRuns times at once: the golden file judges the
			// first run, and every run must give the same verdicts (stability_test.go).
			reps := runRealServer(t, srv, *realRuns)
			if t.Failed() {
				return
			}
			compareGolden(t, srv.name, reps[0])
			compareRuns(t, srv.name, reps)
		})
	}
}

// runOnce runs the suite once against a real server and returns its report.
func runOnce(t *testing.T, srv realServer) *reports.Report {
	dir := t.TempDir()
	// A generous start-up bound: the runs share a loaded machine with each other (and
	// with the rest of make test), and a server's start-up time is not what they judge.
	args := append(srv.args(t), "--report-dir", dir, "--timeout", "10s", "--start-timeout", "60s")
	r := runCLI(t, args...)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("want exit 0 or 1 (a verdict), got %s", r)
	}
	rep := loadReports(t, dir)
	for _, col := range rep.Revisions {
		if col.Negotiated == "" && !eraUnsupported(col) {
			t.Errorf("%s: no negotiated version", col.Revision)
		}
	}
	return rep
}

// eraUnsupported reports whether col is a column era detection closed: nothing was
// negotiated because the server is not of the column's era (a legacy server's
// 2026-07-28 column: server/discover refused), so every check in it skips as
// revision-unsupported. Any other column without a negotiated version is broken.
func eraUnsupported(col reports.RevisionReport) bool {
	if len(col.Checks) == 0 {
		return false
	}
	for _, c := range col.Checks {
		if c.Status != reports.Skip || c.Reason != reports.RevisionUnsupported {
			return false
		}
	}
	return true
}

// goldenLine is one verdict of a golden file.
type goldenLine struct {
	status  reports.Status
	comment string
}

type goldenKey struct{ id, rev string }

func readGolden(path string) (map[goldenKey]goldenLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[goldenKey]goldenLine{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		body, comment, _ := strings.Cut(line, "#")
		fields := strings.Fields(body)
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want ID REVISION STATUS [# comment], got %q", path, n, line)
		}
		out[goldenKey{fields[0], fields[1]}] = goldenLine{status: reports.Status(fields[2]), comment: strings.TrimSpace(comment)}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

func compareGolden(t *testing.T, server string, rep *reports.Report) {
	t.Helper()
	path := filepath.Join("testdata", "golden", server+".txt")
	got := map[goldenKey]reports.Status{}
	for _, col := range rep.Revisions {
		for _, c := range col.Checks {
			got[goldenKey{c.ID, col.Revision}] = c.Status
		}
	}
	want, err := readGolden(path)
	if *update {
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := writeGolden(path, rep, want); err != nil {
			t.Fatal(err)
		}
		want, err = readGolden(path)
	}
	if err != nil {
		t.Fatalf("golden verdicts: %v (create them with -update, then name the spec text behind each non-pass)", err)
	}
	var diffs []string
	for k, st := range got {
		w, ok := want[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("new      %s %s: %s", k.id, k.rev, st))
		case w.status != st:
			if r, ok := racing(server, k.id, k.rev, w.status, st); ok {
				t.Logf("%s %s: golden %s, now %s: the server's race (%s)", k.id, k.rev, w.status, st, r.why)
				continue
			}
			diffs = append(diffs, fmt.Sprintf("changed  %s %s: golden %s, now %s", k.id, k.rev, w.status, st))
		}
	}
	for k, w := range want {
		if _, ok := got[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("missing  %s %s: golden %s, not in the run", k.id, k.rev, w.status))
		}
		if w.status != reports.Pass && (w.comment == "" || strings.HasPrefix(w.comment, "TODO")) {
			diffs = append(diffs, fmt.Sprintf("unexplained %s %s %s: every non-pass verdict needs a comment naming the spec text behind it", k.id, k.rev, w.status))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		t.Errorf("verdicts differ from %s (update it with -update after review):\n  %s\nreport messages:\n%s", path, strings.Join(diffs, "\n  "), nonPassMessages(rep))
	}
}

func nonPassMessages(rep *reports.Report) string {
	var b strings.Builder
	for _, col := range rep.Revisions {
		for _, c := range col.Checks {
			if c.Status != reports.Pass {
				fmt.Fprintf(&b, "  %s %s %s: %s\n", c.ID, col.Revision, c.Status, c.Message)
			}
		}
	}
	return b.String()
}

// writeGolden rewrites a golden file from a run, keeping the comment of every line
// whose status did not change.
func writeGolden(path string, rep *reports.Report, old map[goldenKey]goldenLine) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Golden verdicts of %s (TestRealServers). One line per check and revision:\n", filepath.Base(path))
	b.WriteString("#   ID REVISION STATUS  # for every non-pass: the spec text behind the verdict\n")
	b.WriteString("# Regenerate with `go test ./e2e/ -run TestRealServers -update` and review the diff.\n")
	for _, col := range rep.Revisions {
		for _, c := range col.Checks {
			line := fmt.Sprintf("%s %s %s", c.ID, col.Revision, c.Status)
			if o, ok := old[goldenKey{c.ID, col.Revision}]; ok && o.status == c.Status && o.comment != "" {
				line += "  # " + o.comment
			} else if c.Status != reports.Pass {
				line += "  # " + todoComment + " (" + strings.ReplaceAll(oneLineText(c.Message), "#", "") + ")"
			}
			b.WriteString(line + "\n")
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("golden dir: %w", err)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func oneLineText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// TestStress is the suite on a busy machine (issue 32: a loaded CI runner is the
// normal case): with every core kept busy by a CPU burner, it runs the whole suite
// twice at once against the reference server (over stdio and over Streamable HTTP
// serving both eras) and against every real server of TestRealServers, and demands
// the verdicts of an idle machine: the golden files for the real servers, and for the
// reference server its own verdicts from runs made before the burners start. Opt-in
// (MCPCONFORM_STRESS=1): it takes the machine for many minutes, so make test does not
// run it.
func TestStress(t *testing.T) {
	if os.Getenv("MCPCONFORM_STRESS") != "1" {
		t.Skip("opt-in: MCPCONFORM_STRESS=1 (docs/performance.md, Under load)")
	}
	gosdk, npmDir := realPaths(t)
	idle := map[string]*stRun{}
	for _, tr := range []string{"", stHTTPDual} {
		idle[tr] = stRunSuite(t, tr)
	}
	burnCPU(t)
	t.Run("reference", func(t *testing.T) {
		for _, tr := range []string{"", stHTTPDual} {
			name := cmp.Or(tr, "stdio")
			t.Run(name, func(t *testing.T) {
				runs := make([]*stRun, 2)
				t.Run("runs", func(t *testing.T) {
					for i := range runs {
						t.Run(fmt.Sprintf("run%d", i+1), func(t *testing.T) {
							t.Parallel()
							runs[i] = stRunSuite(t, tr)
						})
					}
				})
				for i, run := range runs {
					if run != nil {
						compareIdle(t, fmt.Sprintf("run %d", i+1), idle[tr], run)
					}
				}
			})
		}
	})
	for _, srv := range realServers(gosdk, npmDir) {
		t.Run(srv.name, func(t *testing.T) {
			reps := runRealServer(t, srv, 2)
			if t.Failed() {
				return
			}
			for _, rep := range reps {
				compareGolden(t, srv.name, rep)
			}
		})
	}
}

// compareIdle reports every verdict of a run under load that differs from the idle
// run's.
func compareIdle(t *testing.T, which string, idle, busy *stRun) {
	t.Helper()
	var diffs []string
	for k, c := range busy.verdicts {
		w, ok := idle.verdicts[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("new      %s: %s (%s)", k, c.Status, c.Message))
		case w.Status != c.Status:
			diffs = append(diffs, fmt.Sprintf("changed  %s: idle %s, busy %s (%s)", k, w.Status, c.Status, c.Message))
		}
	}
	for k, w := range idle.verdicts {
		if _, ok := busy.verdicts[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("missing  %s: idle %s", k, w.Status))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		t.Errorf("%s: verdicts under load differ from the idle run's:\n  %s", which, strings.Join(diffs, "\n  "))
		return
	}
	t.Logf("%s: %d verdicts, each as in the idle run", which, len(busy.verdicts))
}

// burnCPU keeps every core busy until the test ends: one busy-looping shell per core,
// killed and reaped when the test ends, and bounded by a deadline of its own should
// the test binary die first. A burner that ended before the test did is an error: the
// runs after it proved less than they claim.
func burnCPU(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	var ended []chan error
	for range runtime.NumCPU() {
		// timeout(1) passes the SIGTERM on to the loop it runs.
		cmd := exec.CommandContext(ctx, "timeout", "3600", "sh", "-c", "while :; do :; done")
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = waitDelay
		if err := cmd.Start(); err != nil {
			cancel()
			for _, e := range ended {
				<-e
			}
			t.Fatalf("start a CPU burner: %v", err)
		}
		e := make(chan error, 1)
		go func() { e <- cmd.Wait() }()
		ended = append(ended, e)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile("/proc/loadavg"); err == nil {
			t.Logf("load average as the burners stop: %s", strings.TrimSpace(string(b)))
		}
		for i, e := range ended {
			select {
			case err := <-e:
				t.Errorf("CPU burner %d ended before the test did: %v", i+1, err)
				ended[i] = nil
			default:
			}
		}
		cancel()
		for _, e := range ended {
			if e != nil {
				<-e // killed by the context: the error says so
			}
		}
	})
}
