// Command mcp-conform runs the MCP server conformance suite against a server — a
// command launched over stdio, or a Streamable HTTP / HTTP+SSE URL — at every protocol
// revision it knows, and writes junit.xml, report.json and matrix.md.
//
//	mcp-conform                                  # the bundled reference server
//	mcp-conform --target "node server.js"        # a command, over stdio
//	mcp-conform --target http://127.0.0.1:3000/mcp
//	mcp-conform fixture --transport http         # serve the reference server
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/fixtures"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
	_ "github.com/mcp-conform/mcp-conform/suites" // registers every check
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// defaultMemoryLimit is the soft heap limit of a run (runtime/debug.SetMemoryLimit).
const defaultMemoryLimit = 96 << 20

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// Nothing a server starts may outlive the run, even a child that called setsid():
	// as subreaper we inherit every orphan, and at the end we kill what is left.
	reaper := len(os.Args) < 2 || os.Args[1] != "fixture"
	if reaper {
		// Keep the heap near its live size, so that what a hostile server makes us
		// hold briefly (a 5 MB listing decoded by several checks) does not double in
		// garbage: the suite's peak RSS stays within 256 MB. GOMEMLIMIT overrides.
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(defaultMemoryLimit)
		}
		if err := transport.BecomeSubreaper(); err != nil {
			fmt.Fprintf(os.Stderr, "mcp-conform: %v (processes that leave their group may outlive the run)\n", err)
		}
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
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
		return fixtures.RunCLI(ctx, args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "replay" {
		return runReplay(ctx, args[1:], stdout, stderr)
	}
	opts, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, errHelp) {
			return conform.ExitOK
		}
		fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
		return conform.ExitUsage
	}
	switch {
	case opts.version:
		fmt.Fprintln(stdout, "mcp-conform", version)
		return conform.ExitOK
	case opts.list:
		if err := conform.List(stdout); err != nil {
			fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
			return conform.ExitUsage
		}
		return conform.ExitOK
	}
	cfg, err := opts.config(stdout)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
		return conform.ExitUsage
	}
	res, err := conform.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
		return conform.ExitUsage
	}
	paths, werr := reports.WriteAll(opts.reportDir, res.Report, res.Attachments)
	console := &reports.Console{W: stdout, Color: cfg.Color, Verbose: cfg.Verbose}
	console.Summary(res.Report, paths)
	if werr != nil {
		fmt.Fprintf(stderr, "mcp-conform: writing reports: %v\n", werr)
		if res.Report.ExitCode == conform.ExitOK {
			return conform.ExitUsage
		}
	}
	return res.Report.ExitCode
}
