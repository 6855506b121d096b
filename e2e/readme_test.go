package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// docExample says how one command of README.md or docs/*.md is exercised: run here
// (run), or by a named test or benchmark of this package that runs the same
// invocation with a real server in place of the documentation's placeholder
// (coveredBy).
type docExample struct {
	run       func(t *testing.T, argv []string)
	coveredBy string
}

// docExamples maps every command of the shell blocks of README.md and docs/*.md
// (comments and surrounding blanks removed) to how it is exercised. A command missing
// here fails TestDocsExamples, as does an entry that no page shows any more.
var docExamples = map[string]docExample{
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
	// docs/reports.md: the same replay of report.json's PING-01 slice, to the faulty
	// and the clean reference server.
	`mcp-conform replay mcp-conform-report/report.json --check PING-01 --revision 2025-06-18 --target "node build/index.js"`: {coveredBy: "TestReplayShowsTheServersReply"},
	// docs/reports.md: the same baseline workflow with server-everything as the node
	// server: written from a failing run, then accepted by the next.
	`mcp-conform --target "node build/index.js" --write-baseline conformance-baseline.yml`: {coveredBy: "TestBaselineEverything"},
	`mcp-conform --target "node build/index.js" --baseline conformance-baseline.yml`:       {coveredBy: "TestBaselineEverything"},
	// docs/ecosystem.md: the twenty servers of TestEcosystemTwentyTargets are such a
	// servers.yaml (TestDocsServersFile runs the page's own); TestEcosystemShardsMerge
	// runs the four shards of it and merges them, as there.
	"mcp-conform --targets servers.yaml":                                  {coveredBy: "TestEcosystemTwentyTargets"},
	"mcp-conform --targets servers.yaml --shard 2/4 --report-dir shard-2": {coveredBy: "TestEcosystemShardsMerge"},
	"mcp-conform merge shard-1 shard-2 shard-3 shard-4":                   {coveredBy: "TestEcosystemShardsMerge"},
	// make test is what runs this test; make bench runs these.
	"make test":  {coveredBy: "TestDocsExamples"},
	"make bench": {coveredBy: "TestBenchSummary"},
	// All six platforms take minutes from a cold cache; the test runs the same
	// target for this machine's platform, twice.
	"make dist": {coveredBy: "TestDistReproducible"},
	// docs/performance.md: the opt-in run under load is that test itself.
	"MCPCONFORM_REAL=1 MCPCONFORM_STRESS=1 go test ./e2e/ -run TestStress -count=1 -timeout 60m": {coveredBy: "TestStress"},
}

// fence opens a shell code block; anyFence opens or closes any code block.
var (
	fence    = regexp.MustCompile("^```(sh|bash|shell|console)\\s*$")
	anyFence = regexp.MustCompile("^```")
)

// docPages returns the pages the documentation tests read, relative to the
// repository's root: README.md, then every docs/*.md.
func docPages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot(t), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("docs/ has no .md page")
	}
	pages := []string{"README.md"}
	for _, d := range docs {
		pages = append(pages, filepath.Join("docs", filepath.Base(d)))
	}
	return pages
}

// readPage returns the text of a page named by docPages.
func readPage(t *testing.T, page string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), page))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// shellCommands returns the commands of a page's shell blocks. A block that opens
// without a language fails the test: it could hold a command no test runs.
func shellCommands(t *testing.T, page string) []string {
	t.Helper()
	var cmds []string
	inShell, inOther := false, false
	n := 0
	for line := range strings.Lines(readPage(t, page)) {
		n++
		line = strings.TrimRight(line, "\n")
		switch {
		case !inShell && !inOther && fence.MatchString(line):
			inShell = true
		case !inShell && !inOther && anyFence.MatchString(line):
			if strings.TrimSpace(strings.TrimLeft(line, "`")) == "" {
				t.Errorf("%s:%d: a code block without a language: name it (sh for commands)", page, n)
			}
			inOther = true
		case anyFence.MatchString(line):
			inShell, inOther = false, false
		case inShell:
			// A comment starts at " #" outside quotes; the pages never quote one.
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				cmds = append(cmds, line)
			}
		}
	}
	if inShell || inOther {
		t.Fatalf("%s: a code block is not closed", page)
	}
	return cmds
}

// TestDocsExamples runs, or finds the test that runs, every command of README.md and
// of docs/*.md.
func TestDocsExamples(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	sources := e2eSources(t)
	for _, page := range docPages(t) {
		cmds := shellCommands(t, page)
		if page == "README.md" && len(cmds) == 0 {
			t.Error("README.md has no shell examples")
		}
		for _, c := range cmds {
			if seen[c] {
				continue
			}
			seen[c] = true
			ex, ok := docExamples[c]
			if !ok {
				t.Errorf("%s: command %q is exercised by no test: add it to docExamples", page, c)
				continue
			}
			if ex.coveredBy != "" {
				if !regexp.MustCompile(`func ` + ex.coveredBy + `\(`).MatchString(sources) {
					t.Errorf("%s: command %q: covering test %s does not exist", page, c, ex.coveredBy)
				}
				continue
			}
			argv, err := transport.SplitCommand(c)
			if err != nil {
				t.Errorf("%s: command %q: %v", page, c, err)
				continue
			}
			t.Run(c, func(t *testing.T) {
				t.Parallel()
				ex.run(t, argv)
			})
		}
	}
	for c := range docExamples {
		if !seen[c] {
			t.Errorf("docExamples has %q, which neither README.md nor docs/ shows any more", c)
		}
	}
}

// A link's target in Markdown text; codeSpan is inline code, whose brackets are no
// link.
var (
	mdLink   = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	codeSpan = regexp.MustCompile("`[^`]*`")
)

// prose returns a page's paragraphs outside its code blocks, with code spans
// removed: what GitHub renders as text, where links are.
func prose(page string) []string {
	var paras []string
	var para strings.Builder
	in := false
	for line := range strings.Lines(page) {
		switch {
		case anyFence.MatchString(line):
			in = !in
		case in:
		case strings.TrimSpace(line) == "":
			paras = append(paras, codeSpan.ReplaceAllString(para.String(), ""))
			para.Reset()
		default:
			para.WriteString(line)
		}
	}
	return append(paras, codeSpan.ReplaceAllString(para.String(), ""))
}

// headingAnchor is the anchor GitHub gives a heading (as github-slugger does): lower
// case, letters, digits, '-' and '_' kept, spaces made '-', the rest dropped. The
// pages' headings are plain text and code spans, so the raw text renders as itself.
func headingAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a page's headings outside code blocks (a repeated
// heading gets -1, -2, … as on GitHub).
func anchors(page string) map[string]bool {
	set := map[string]bool{}
	count := map[string]int{}
	in := false
	for line := range strings.Lines(page) {
		switch {
		case anyFence.MatchString(line):
			in = !in
		case !in && strings.HasPrefix(line, "#"):
			text := strings.TrimSpace(strings.TrimLeft(line, "#"))
			a := headingAnchor(text)
			if n := count[a]; n > 0 {
				count[a]++
				a = fmt.Sprintf("%s-%d", a, n)
			} else {
				count[a] = 1
			}
			set[a] = true
		}
	}
	return set
}

// TestDocsLinks fails on a relative link of README.md or docs/*.md to a file that
// does not exist, or to a heading a Markdown page does not have: moving a section
// between pages must not leave a link behind. Links with a scheme are not fetched.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	links := 0
	for _, page := range docPages(t) {
		text := readPage(t, page)
		for _, para := range prose(text) {
			for _, m := range mdLink.FindAllStringSubmatch(para, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, frag, _ := strings.Cut(target, "#")
				path := filepath.Join(root, page) // a link to #heading is to its own page
				if file != "" {
					path = filepath.Join(root, filepath.Dir(page), filepath.FromSlash(file))
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: %v", page, target, err)
					continue
				}
				if frag == "" || !strings.HasSuffix(path, ".md") {
					continue
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("%s: link %q: %v", page, target, err)
					continue
				}
				if !anchors(string(data))[frag] {
					t.Errorf("%s: link %q: %s has no heading with that anchor", page, target, file)
				}
			}
		}
	}
	if links == 0 {
		t.Error("no relative link found: the link pattern no longer matches the pages")
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

// TestDocsServersFile runs the servers.yaml of docs/ecosystem.md with its command:
// every entry is valid, and as none of its servers exists here, each row says so —
// unreachable, exit 4 — while the matrix of the three is written and the run exits
// 1. The header's ${MCP_TOKEN} comes from the environment and is written nowhere.
func TestDocsServersFile(t *testing.T) {
	t.Parallel()
	page := readPage(t, filepath.Join("docs", "ecosystem.md"))
	m := regexp.MustCompile("(?s)```yaml\n(# servers.yaml.*?)```").FindStringSubmatch(page)
	if m == nil {
		t.Fatal("docs/ecosystem.md has no ```yaml block starting with # servers.yaml")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "servers.yaml"), []byte(m[1]), 0o644); err != nil {
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
