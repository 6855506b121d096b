package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// readmeExample says how one command of README.md is exercised: run here (run), or
// by a named test or benchmark of this package that runs the same invocation with a
// real server in place of the README's placeholder (coveredBy).
type readmeExample struct {
	run       func(t *testing.T, argv []string)
	coveredBy string
}

// readmeExamples maps every command of README.md's shell blocks (comments and
// surrounding blanks removed) to how it is exercised. A command missing here fails
// TestREADMEExamples, as does an entry no longer in the README.
var readmeExamples = map[string]readmeExample{
	"go install ./cmd/mcp-conform": {run: runGoInstall},
	"make build":                   {run: runMakeBuild},
	"go run ./cmd/mcp-conform":     {run: runGoRun},
	// The installed binary with no --target: the bundled reference server, as
	// TestBundledStdio runs it.
	"mcp-conform": {coveredBy: "TestBundledStdio"},
	`mcp-conform --target "node build/index.js"`: {run: runMissingNodeServer},
	// The same invocation against the reference server served at a URL.
	"mcp-conform --target http://127.0.0.1:3000/mcp": {coveredBy: "TestHTTPTransports"},
	// The same invocation with the reference server as the launched command.
	`mcp-conform --target "./server --port 8080" --url http://127.0.0.1:8080/mcp`: {coveredBy: "TestLaunchedHTTP"},
	// The same replay of report.json's PING-01 slice, to the faulty and the clean
	// reference server.
	`mcp-conform replay mcp-conform-report/report.json --check PING-01 --revision 2025-06-18 --target "node build/index.js"`: {coveredBy: "TestReplayShowsTheServersReply"},
	// The same baseline workflow with server-everything as the node server: written
	// from a failing run, then accepted by the next.
	`mcp-conform --target "node build/index.js" --write-baseline conformance-baseline.yml`: {coveredBy: "TestBaselineEverything"},
	`mcp-conform --target "node build/index.js" --baseline conformance-baseline.yml`:       {coveredBy: "TestBaselineEverything"},
	// The twenty servers of TestEcosystemTwentyTargets are such a servers.yaml
	// (TestREADMEServersFile runs the README's own); TestEcosystemShardsMerge runs
	// the four shards of it and merges them, as here.
	"mcp-conform --targets servers.yaml":                                  {coveredBy: "TestEcosystemTwentyTargets"},
	"mcp-conform --targets servers.yaml --shard 2/4 --report-dir shard-2": {coveredBy: "TestEcosystemShardsMerge"},
	"mcp-conform merge shard-1 shard-2 shard-3 shard-4":                   {coveredBy: "TestEcosystemShardsMerge"},
	// make test is what runs this test; make bench runs these.
	"make test":  {coveredBy: "TestREADMEExamples"},
	"make bench": {coveredBy: "TestBenchSummary"},
	// All six platforms take minutes from a cold cache; the test runs the same
	// target for this machine's platform, twice.
	"make dist": {coveredBy: "TestDistReproducible"},
}

// fence opens a shell code block.
var fence = regexp.MustCompile("^```(sh|bash|shell|console)\\s*$")

// readmeCommands returns the commands of README.md's shell blocks.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	in := false
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case !in && fence.MatchString(line):
			in = true
		case in && strings.HasPrefix(line, "```"):
			in = false
		case in:
			// A comment starts at " #" outside quotes; the README's never quote one.
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				cmds = append(cmds, line)
			}
		}
	}
	if in {
		t.Fatal("README.md: a shell block is not closed")
	}
	return cmds
}

// TestREADMEExamples runs, or finds the test that runs, every command in README.md.
func TestREADMEExamples(t *testing.T) {
	t.Parallel()
	cmds := readmeCommands(t)
	if len(cmds) == 0 {
		t.Fatal("README.md has no shell examples")
	}
	seen := map[string]bool{}
	sources := e2eSources(t)
	for _, c := range cmds {
		if seen[c] {
			continue
		}
		seen[c] = true
		ex, ok := readmeExamples[c]
		if !ok {
			t.Errorf("README.md command %q is exercised by no test: add it to readmeExamples", c)
			continue
		}
		if ex.coveredBy != "" {
			if !regexp.MustCompile(`func ` + ex.coveredBy + `\(`).MatchString(sources) {
				t.Errorf("README.md command %q: covering test %s does not exist", c, ex.coveredBy)
			}
			continue
		}
		argv, err := transport.SplitCommand(c)
		if err != nil {
			t.Errorf("README.md command %q: %v", c, err)
			continue
		}
		t.Run(c, func(t *testing.T) {
			t.Parallel()
			ex.run(t, argv)
		})
	}
	for c := range readmeExamples {
		if !seen[c] {
			t.Errorf("readmeExamples has %q, which README.md no longer shows", c)
		}
	}
}

// e2eSources is the text of this package's test files.
func e2eSources(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// runIn runs argv in dir with extra environment, bounded by cliTimeout.
func runIn(t *testing.T, dir string, env []string, argv ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = waitDelay
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	return string(out), code
}

// runGoInstall installs into a temporary GOBIN and runs the installed binary.
func runGoInstall(t *testing.T, argv []string) {
	gobin := t.TempDir()
	if out, code := runIn(t, repoRoot(t), []string{"GOBIN=" + gobin}, argv...); code != 0 {
		t.Fatalf("%s: exit %d\n%s", strings.Join(argv, " "), code, out)
	}
	out, code := runIn(t, t.TempDir(), nil, filepath.Join(gobin, "mcp-conform"), "--version")
	if code != 0 || !strings.Contains(out, "protocol revisions: ") {
		t.Errorf("the installed mcp-conform --version: exit %d\n%s", code, out)
	}
}

// runMakeBuild runs the make target with the binary redirected into a temporary
// directory, so that the checkout is left as it was.
func runMakeBuild(t *testing.T, argv []string) {
	out := filepath.Join(t.TempDir(), "mcp-conform")
	if log, code := runIn(t, repoRoot(t), nil, append(argv, "BIN="+out)...); code != 0 {
		t.Fatalf("%s: exit %d\n%s", strings.Join(argv, " "), code, log)
	}
	if log, code := runIn(t, t.TempDir(), nil, out, "--version"); code != 0 {
		t.Errorf("the built mcp-conform --version: exit %d\n%s", code, log)
	}
}

// runGoRun runs the suite through `go run` (reports into a temporary directory): a
// clean run whose header names the bundled server, not go run's temporary build.
func runGoRun(t *testing.T, argv []string) {
	dir := t.TempDir()
	out, code := runIn(t, repoRoot(t), nil, append(argv, "--report-dir", dir)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if strings.Contains(out, "go-build") || !strings.Contains(out, "the bundled reference server") {
		t.Errorf("the header names a temporary build, not the target:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n >= 60 {
		t.Errorf("%d lines, want under 60:\n%s", n, out)
	}
	loadReports(t, dir)
}

// runMissingNodeServer runs the README's stdio example where build/index.js does
// not exist: the cause (node's own error) is said once and the exit is 4.
func runMissingNodeServer(t *testing.T, argv []string) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("MCPCONFORM_REAL") != "" {
			t.Fatalf("node is not installed: %v", err)
		}
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	argv = append([]string{bin}, argv[1:]...)
	out, code := runIn(t, t.TempDir(), nil, append(argv, "--report-dir", dir)...)
	if code != 4 {
		t.Fatalf("exit %d, want 4\n%s", code, out)
	}
	if !strings.Contains(out, "Cannot find module") || strings.Count(out, "\n") >= 20 {
		t.Errorf("want the cause once with node's error, under 20 lines; got %d lines:\n%s", strings.Count(out, "\n"), out)
	}
	loadReports(t, dir)
}

// TestREADMEServersFile runs the README's servers.yaml with the README's command:
// every entry is valid, and as none of its servers exists here, each row says so —
// unreachable, exit 4 — while the matrix of the three is written and the run exits
// 1. The header's ${MCP_TOKEN} comes from the environment and is written nowhere.
func TestREADMEServersFile(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(# servers.yaml.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no ```yaml block starting with # servers.yaml")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "servers.yaml"), m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	// The baseline an entry names.
	if err := os.WriteFile(filepath.Join(dir, "weather-baseline.yml"), []byte("expected-failures: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const token = "readme-token-20931"
	argv, err := transport.SplitCommand("mcp-conform --targets servers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, code := runIn(t, dir, []string{"MCP_TOKEN=" + token}, append([]string{bin}, argv[1:]...)...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	matrix := readMatrix(t, filepath.Join(dir, "mcp-conform-matrix"))
	var names []string
	for _, row := range matrix.Rows {
		names = append(names, row.Name)
		if row.ExitCode != 4 {
			t.Errorf("%s: exit %d, want 4 (unreachable)", row.Name, row.ExitCode)
		}
	}
	slices.Sort(names)
	if want := []string{"hosted", "weather", "weather-http"}; !slices.Equal(names, want) {
		t.Errorf("rows %q, want %q", names, want)
	}
	if strings.Contains(out, token) {
		t.Error("the console shows the token")
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), token) {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
	// Without the variable the file is refused before anything runs.
	if _, set := os.LookupEnv("MCP_TOKEN"); !set {
		out, code = runIn(t, t.TempDir(), nil, bin, "--targets", filepath.Join(dir, "servers.yaml"))
		if code != 2 || !strings.Contains(out, "${MCP_TOKEN}, which is not set") {
			t.Errorf("without MCP_TOKEN: exit %d, want 2 naming it\n%s", code, out)
		}
	}
}
