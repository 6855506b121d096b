// Command mcp-conform runs the MCP server conformance suite against a server — a
// command launched over stdio, or a Streamable HTTP / HTTP+SSE URL — at every protocol
// revision it knows, and writes junit.xml, report.json, matrix.md, report.html and
// SVG badges.
//
//	mcp-conform                                  # the bundled reference server
//	mcp-conform --target "node server.js"        # a command, over stdio
//	mcp-conform --target http://127.0.0.1:3000/mcp
//	mcp-conform fixture --transport http         # serve the reference server
//	mcp-conform --targets servers.yaml           # many servers, then their matrix
//	mcp-conform merge DIR…                       # one matrix of many runs' reports
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/baseline"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/refserver"
	"github.com/mcp-conform/mcp-conform/reports"
	_ "github.com/mcp-conform/mcp-conform/suites" // registers every check
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// The garbage collector's settings for a run (runtime/debug): the heap may grow to
// gcPercent above what is live before a collection (GOGC's 100 would let a run judging
// 10,000 tools hold twice its live heap), or by gcHeadroom when that is more (a
// normal run's live heap is a few MB, and gcPercent alone collected it 22 times), and
// a soft memory limit (paceGC) narrows that on large heaps. GOGC and GOMEMLIMIT
// override them.
const (
	gcPercent        = 50
	gcHeadroom       = 8 << 20
	fixtureGCPercent = 400
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	args := os.Args[1:]
	// One target of a --targets run: its arguments come in the environment, not on
	// the command line where every user could read a --header value.
	if targetArgs, ok := childArgs(); ok && len(args) == 0 {
		args = targetArgs
	}
	// Nothing a server starts may outlive the run, even a child that called setsid():
	// as subreaper we inherit every orphan, and at the end we kill what is left.
	reaper := len(args) == 0 || args[0] != "fixture"
	if !reaper && os.Getenv("GOGC") == "" {
		// The reference server: a run starts several, each short-lived with a small
		// heap, on the cores the suite uses; a collection per 4 MB of garbage was a
		// tenth of their CPU.
		debug.SetGCPercent(fixtureGCPercent)
	}
	if reaper {
		paceGC(os.Getenv("GOGC") == "", os.Getenv("GOMEMLIMIT") == "")
		// Outside Linux there is no subreaper to become; the guarantee is
		// Linux's (PR_SET_CHILD_SUBREAPER), so that is no news to print at every run.
		if err := transport.BecomeSubreaper(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			fmt.Fprintf(os.Stderr, "mcp-conform: %v (processes that leave their group may outlive the run)\n", err)
		}
	}
	code := run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if reaper {
		killCtx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		if n := transport.KillDescendants(killCtx); n > 0 {
			fmt.Fprintf(os.Stderr, "mcp-conform: killed %d process(es) the server left behind (outside its process group)\n", n)
		}
		cancel()
	}
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "fixture" {
		return refserver.RunCLI(ctx, args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "replay" {
		return runReplay(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "merge" {
		return runMerge(ctx, args[1:], stdout, stderr)
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "mcp-conform: %s\n", plainText(err.Error(), stderr))
		return code
	}
	opts, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, errHelp) {
			writeUsage(stdout)
			return conform.ExitOK
		}
		return fail(conform.ExitUsage, err)
	}
	switch {
	case opts.version:
		writeVersion(stdout)
		return conform.ExitOK
	case opts.list:
		if err := listChecks(stdout, opts.verbose); err != nil {
			return fail(conform.ExitUsage, err)
		}
		if opts.coverage {
			fmt.Fprintln(stdout)
			if err := printCoverage(stdout); err != nil {
				fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
				return conform.ExitUsage
			}
		}
		return conform.ExitOK
	case opts.coverage:
		if err := printCoverage(stdout); err != nil {
			fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
			return conform.ExitUsage
		}
		return conform.ExitOK
	}
	if opts.targets != "" {
		return runTargets(ctx, opts, stdout, stderr)
	}
	cfg, err := opts.config(stdout)
	if err != nil {
		return fail(conform.ExitUsage, err)
	}
	// A report directory that cannot be written fails now, not after the whole run.
	if err := reports.CheckDir(opts.reportDir); err != nil {
		return fail(conform.ExitUsage, fmt.Errorf("--report-dir: %w", err))
	}
	console := &reports.Console{W: stdout, Color: cfg.Color, Verbose: cfg.Verbose, Quiet: cfg.Quiet, Live: cfg.Live}
	cfg.Reporter = console
	res, err := conform.Run(ctx, cfg)
	if err != nil {
		return fail(conform.ExitUsage, err)
	}
	if ctx.Err() != nil {
		// Ctrl-C (or SIGTERM): what ran is reported, and the exit code says the run
		// was broken off rather than that a check failed.
		res.Report.ExitCode = reports.ExitInterrupted
		// Sessions cut short by the interrupt do not mean the target is unreachable.
		res.Report.Notes = slices.DeleteFunc(res.Report.Notes, func(n string) bool {
			return strings.HasPrefix(n, "the target could not be reached")
		})
		res.Report.Notes = append(res.Report.Notes, "interrupted (SIGINT or SIGTERM): the run was broken off; checks that had not finished are errors")
	}
	paths, werr := reports.WriteAll(opts.reportDir, res.Report, res.Attachments)
	if opts.writeBaseline != "" {
		if err := writeBaseline(opts.writeBaseline, res.Report, cfg.Baseline); err != nil {
			werr = errors.Join(werr, err)
		} else {
			paths = append(paths, opts.writeBaseline)
		}
	}
	if werr != nil && res.Report.ExitCode == conform.ExitOK {
		// The last line printed must give the exit code the process ends with.
		res.Report.ExitCode = conform.ExitUsage
	}
	if res.Report.ExitCode == conform.ExitUnreachable {
		console.StderrTail = stderrTail(res.Attachments)
	}
	console.Summary(res.Report, paths)
	if werr != nil {
		fmt.Fprintf(stderr, "mcp-conform: writing reports: %v\n", werr)
	}
	return res.Report.ExitCode
}

// stderrTail is the server's stderr as captured for the report (the log of the last
// process that wrote any), without the header lines the runner adds.
func stderrTail(attachments map[string][]byte) string {
	var names []string
	for name := range attachments {
		if strings.HasPrefix(name, "stderr/") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	// The last process that said anything: later ones may have been stopped before
	// they could.
	for i := len(names) - 1; i >= 0; i-- {
		var b strings.Builder
		for line := range strings.Lines(string(attachments[names[i]])) {
			if !strings.HasPrefix(line, "# ") {
				b.WriteString(line)
			}
		}
		if strings.TrimSpace(b.String()) != "" {
			return b.String()
		}
	}
	return ""
}

// ansiEscape matches the CSI and OSC escape sequences a library may put in an error
// message (Ginkgo colours its label-filter errors). It is compiled on first use:
// only an error message needs it, and every process of this binary, the reference
// server's too, would compile it at start-up.
var ansiEscape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\))`)
})

// plainText removes escape sequences from s unless w is a terminal with colours on.
func plainText(s string, w io.Writer) string {
	if useColor(false, w) {
		return s
	}
	return ansiEscape().ReplaceAllString(s, "")
}

// writeBaseline writes the run's failures to path as a starting baseline.
func writeBaseline(path string, rep *reports.Report, prev *baseline.File) error {
	if rep.ExitCode == conform.ExitIncomplete || rep.ExitCode == conform.ExitUnreachable {
		// An empty baseline from a run that verified nothing would accept nothing
		// and look like a clean slate.
		return fmt.Errorf("--write-baseline: the run verified nothing (exit %d): no baseline written", rep.ExitCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--write-baseline: %w", err)
	}
	if err := baseline.Write(f, rep, prev); err != nil {
		f.Close()
		return fmt.Errorf("--write-baseline %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--write-baseline: %w", err)
	}
	return nil
}
