package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports/ecosystem"
)

const mergeUsage = `Usage: mcp-conform merge [--report-dir DIR] [-q] PATH…

Merges the report.json files of separate runs — the targets of --targets runs, CI
shards, other machines, other days, other versions of the suite — into one ecosystem
matrix: matrix.md, matrix.html and matrix.json in --report-dir. Each PATH is a
directory, searched recursively for files named report.json, or a report.json file.
A run is named by the directory that holds its report.json. A file that is not a
report.json of mcp-conform is named on stderr and skipped.

Exit codes: 0 the matrix was written; 2 usage error, a PATH that cannot be read, or a
--report-dir that cannot be written (or holds a single run's report.json);
3 no report.json was found.

Flags:
`

// runMerge is `mcp-conform merge`.
func runMerge(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp-conform merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("report-dir", matrixDir, "directory for matrix.md, matrix.html and matrix.json")
	quiet := fs.Bool("q", false, "quiet: no table, only the result line")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), mergeUsage)
		fs.PrintDefaults()
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "mcp-conform merge: %s\n", err)
		return code
	}
	// Flags may come after the paths too.
	var paths []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stdout)
				fs.Usage()
				return conform.ExitOK
			}
			return fail(conform.ExitUsage, fmt.Errorf("%w (mcp-conform merge --help)", err))
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(paths) == 0 {
		return fail(conform.ExitUsage, errors.New("no PATH given: name the directories (or report.json files) to merge"))
	}
	if err := checkMatrixDir(*dir); err != nil {
		return fail(conform.ExitUsage, fmt.Errorf("--report-dir: %w", err))
	}
	runs, skipped, err := ecosystem.Load(paths)
	if err != nil {
		return fail(conform.ExitUsage, err)
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "mcp-conform merge: warning: skipped %s: %s\n", s.Path, s.Problem)
	}
	if len(runs) == 0 {
		return fail(conform.ExitIncomplete, fmt.Errorf("no report.json of mcp-conform found in %v", paths))
	}
	m := ecosystem.Build(runs, skipped, *dir, "mcp-conform "+version, time.Now())
	if _, err := ecosystem.Write(*dir, m); err != nil {
		return fail(conform.ExitUsage, err)
	}
	if !*quiet {
		writeMatrixTable(stdout, m)
	}
	fmt.Fprintf(stdout, "mcp-conform merge: %d runs (skipped files: %d) into %s (and %s, %s)\n",
		len(runs), len(skipped), filepath.Join(*dir, ecosystem.HTMLFile), ecosystem.MarkdownFile, ecosystem.JSONFile)
	return conform.ExitOK
}
