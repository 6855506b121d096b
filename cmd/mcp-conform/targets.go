package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-conform/mcp-conform/conform"
	scrub "github.com/mcp-conform/mcp-conform/internal/redact"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/reports/ecosystem"
)

// matrixDir is the default report directory of a many-target run and of merge.
const matrixDir = "mcp-conform-matrix"

// childArgsEnv carries a target's arguments to the process that runs it, as a JSON
// array. Not its command line: that is readable by every user of the machine, and
// a --header value (a token) must not be.
const childArgsEnv = "MCPCONFORM_TARGET_ARGS"

// childLog is the console output of a target's run, in its report directory.
const childLog = "console.log"

// childGrace is how long past its own bounds (--start-timeout and --run-timeout)
// a target's run may take — its reports are written within seconds of the run
// timeout — before it is stopped: SIGINT, then SIGKILL after childStopDelay.
const (
	childGrace     = 30 * time.Second
	childStopDelay = 10 * time.Second
)

// forbiddenEntryFlags are the flags an entry of servers.yaml may not set: the
// many-target run decides them (report-dir), or they are not a run (list,
// coverage, version), or they shape the console of the whole run.
var forbiddenEntryFlags = map[string]string{
	"report-dir": "each target's reports go to --report-dir/NAME",
	"targets":    "an entry is one target",
	"jobs":       "a flag of the whole run",
	"shard":      "a flag of the whole run",
	"list":       "not a run",
	"coverage":   "not a run",
	"version":    "not a run",
	"v":          "a flag of the whole run's console",
	"q":          "a flag of the whole run's console",
	"no-color":   "a flag of the whole run's console",
}

// targetName is what an entry may be named: its report directory's name, so that
// merging the directory later finds the same name. The patterns of servers.yaml are
// compiled when one is read, not at every start of this binary (the reference
// server's processes too): {0,99} compiles to a hundred copies of its class.
var targetName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)
})

// envReference is ${NAME} in a header or env value of servers.yaml.
var envReference = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
})

// targetEntry is one server of servers.yaml.
type targetEntry struct {
	name string
	line int
	// args are the entry's flags as command-line arguments (--name=value).
	args []string
}

// loadTargets reads servers.yaml:
//
//	targets:
//	  - name: my-server          # its report directory: --report-dir/my-server
//	    target: node build/index.js
//	    call: [echo, add]        # any single-run flag, by its name; a list repeats it
//	    header: ["Authorization: Bearer ${MCP_TOKEN}"]
//
// Every key but name is a flag of a single run (mcp-conform --help), checked against
// the same flag set; ${NAME} in a header or env value is taken from the environment
// (lookup), so that the file itself holds no secret.
func loadTargets(path string, lookup func(string) (string, bool)) ([]targetEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty: want a targets: list", path)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: want a mapping with a targets: list", path, root.Line)
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "targets" {
			return nil, fmt.Errorf("%s:%d: unknown key %q (want targets:)", path, k.Line, k.Value)
		}
		list = v
	}
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, fmt.Errorf("%s: want a non-empty targets: list", path)
	}
	defs := entryFlags()
	var entries []targetEntry
	names := map[string]int{}
	for _, item := range list.Content {
		e, err := readEntry(item, defs, lookup)
		if err != nil {
			return nil, fmt.Errorf("%s:%w", path, err)
		}
		// Names are directories: two that differ only in case are one on some systems.
		if prev, dup := names[strings.ToLower(e.name)]; dup {
			return nil, fmt.Errorf("%s:%d: name %q is taken by the entry of line %d", path, e.line, e.name, prev)
		}
		names[strings.ToLower(e.name)] = e.line
		entries = append(entries, e)
	}
	return entries, nil
}

// readEntry reads one entry of the targets: list.
func readEntry(item *yaml.Node, defs map[string]flagDef, lookup func(string) (string, bool)) (targetEntry, error) {
	e := targetEntry{line: item.Line}
	if item.Kind != yaml.MappingNode {
		return e, fmt.Errorf("%d: an entry is a mapping: name, target and flags", item.Line)
	}
	hasTarget := false
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		key := strings.TrimPrefix(k.Value, "--")
		if key == "name" {
			if v.Kind != yaml.ScalarNode || !targetName().MatchString(v.Value) {
				return e, fmt.Errorf("%d: name %q: want letters, digits, '.', '_' or '-' (it names the report directory)", v.Line, v.Value)
			}
			e.name = v.Value
			continue
		}
		f, ok := defs[key]
		if !ok {
			return e, fmt.Errorf("%d: %q is not a flag of mcp-conform (mcp-conform --help lists them)", k.Line, k.Value)
		}
		if why, ok := forbiddenEntryFlags[key]; ok {
			return e, fmt.Errorf("%d: %s cannot be set per target: %s", k.Line, key, why)
		}
		var values []*yaml.Node
		switch v.Kind {
		case yaml.ScalarNode:
			values = []*yaml.Node{v}
		case yaml.SequenceNode:
			if !f.repeatable {
				return e, fmt.Errorf("%d: %s takes one value, not a list", v.Line, key)
			}
			values = v.Content
		default:
			return e, fmt.Errorf("%d: %s: want a value or a list of values", v.Line, key)
		}
		for _, val := range values {
			if val.Kind != yaml.ScalarNode {
				return e, fmt.Errorf("%d: %s: want a plain value", val.Line, key)
			}
			s := val.Value
			if key == "header" || key == "env" {
				var missing []string
				s = envReference().ReplaceAllStringFunc(s, func(ref string) string {
					name := envReference().FindStringSubmatch(ref)[1]
					got, ok := lookup(name)
					if !ok {
						missing = append(missing, name)
					}
					return got
				})
				if len(missing) > 0 {
					return e, fmt.Errorf("%d: %s names ${%s}, which is not set in the environment", val.Line, key, missing[0])
				}
			}
			e.args = append(e.args, "--"+key+"="+s)
		}
		hasTarget = hasTarget || key == "target"
	}
	switch {
	case e.name == "":
		return e, fmt.Errorf("%d: the entry has no name", item.Line)
	case !hasTarget:
		return e, fmt.Errorf("%d: %s has no target", item.Line, e.name)
	}
	return e, nil
}

// flagDef is what readEntry needs to know of a flag.
type flagDef struct{ repeatable bool }

// entryFlags are the single-run flags, the vocabulary of servers.yaml's entries.
func entryFlags() map[string]flagDef {
	defs := map[string]flagDef{}
	_, fs := newFlagSet()
	fs.VisitAll(func(f *flag.Flag) {
		_, repeatable := f.Value.(*multiFlag)
		defs[f.Name] = flagDef{repeatable: repeatable}
	})
	return defs
}

// selectShard returns the entries of shard "K/N": entry i (from 0) when i mod N is
// K-1, so that slow and fast entries spread over the shards as they are listed.
func selectShard(entries []targetEntry, shard string) ([]targetEntry, error) {
	if shard == "" {
		return entries, nil
	}
	ks, ns, ok := strings.Cut(shard, "/")
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	if !ok || kerr != nil || nerr != nil || n < 1 || k < 1 || k > n {
		return nil, fmt.Errorf("--shard %q: want K/N with 1 ≤ K ≤ N", shard)
	}
	var out []targetEntry
	for i, e := range entries {
		if i%n == k-1 {
			out = append(out, e)
		}
	}
	return out, nil
}

// plannedTarget is an entry ready to run: its whole argument list, what bounds it
// and what to scrub from what it prints.
type plannedTarget struct {
	targetEntry
	argv    []string // the command line's single-run flags, then the entry's
	target  string   // its --target, for a report it could not write
	bound   time.Duration
	secrets *scrub.Secrets
	dir     string
}

// targetResult is how one target's run ended.
type targetResult struct {
	started bool // false: interrupted before it could start
	code    int  // the exit code of its run
	elapsed time.Duration
	report  *reports.Report // as read back from its report.json
}

// targetRunner runs the planned targets, jobs at a time, each in its own process.
type targetRunner struct {
	// self is the command that runs one target: this executable, its arguments in
	// childArgsEnv.
	self           []string
	jobs           int
	stdout, stderr io.Writer
	quiet, verbose bool
	grace          time.Duration // past a target's own bounds, before it is stopped
	stopDelay      time.Duration // between SIGINT and SIGKILL of a target stopped
	mu             sync.Mutex    // the console
}

// runTargets is mcp-conform --targets FILE.
func runTargets(ctx context.Context, o *options, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "mcp-conform: %s\n", err)
		return code
	}
	switch {
	case o.target != "" || o.url != "":
		return fail(conform.ExitUsage, errors.New("--target and --url go in the entries of the --targets file, not on the command line"))
	case o.writeBaseline != "":
		return fail(conform.ExitUsage, errors.New("--write-baseline with --targets: set it per entry (each target's own file)"))
	case o.jobs < 0:
		return fail(conform.ExitUsage, errors.New("--jobs must be positive"))
	}
	jobs := o.jobs
	if jobs == 0 {
		jobs = runtime.NumCPU()
	}
	entries, err := loadTargets(o.targets, os.LookupEnv)
	if err != nil {
		return fail(conform.ExitUsage, fmt.Errorf("--targets: %w", err))
	}
	entries, err = selectShard(entries, o.shard)
	if err != nil {
		return fail(conform.ExitUsage, err)
	}
	if len(entries) == 0 {
		return fail(conform.ExitIncomplete, fmt.Errorf("--shard %s selects none of the targets of %s", o.shard, o.targets))
	}
	dir := o.reportDir
	if !o.reportDirSet {
		dir = matrixDir
	}
	if err := checkMatrixDir(dir); err != nil {
		return fail(conform.ExitUsage, fmt.Errorf("--report-dir: %w", err))
	}
	// Every entry is checked before any runs: a mistake in the 20th must not wait
	// for the first 19.
	planned := make([]plannedTarget, len(entries))
	for i, e := range entries {
		argv := append(slices.Clone(o.forward), e.args...)
		eo, err := parseFlags(argv, io.Discard)
		if err == nil {
			_, err = eo.config(io.Discard)
		}
		if err != nil {
			// The error names a header by its name only (flags.go redacts it).
			return fail(conform.ExitUsage, fmt.Errorf("--targets %s:%d: %s: %w", o.targets, e.line, e.name, err))
		}
		var values []string
		for _, h := range eo.headers {
			_, v, _ := strings.Cut(h, ":")
			values = append(values, strings.TrimSpace(v))
		}
		target := eo.target
		if target == "" {
			target = "the bundled reference server"
		}
		planned[i] = plannedTarget{
			targetEntry: e, argv: argv, target: target, secrets: scrub.New(values),
			bound: eo.startTimeout + eo.runTimeout, dir: filepath.Join(dir, e.name),
		}
	}
	self, err := os.Executable()
	if err != nil {
		return fail(conform.ExitUsage, fmt.Errorf("locate this executable: %w", err))
	}
	tr := &targetRunner{self: []string{self}, jobs: jobs, stdout: stdout, stderr: stderr, quiet: o.quiet, verbose: o.verbose, grace: childGrace, stopDelay: childStopDelay}
	if !o.quiet {
		fmt.Fprintf(stdout, "mcp-conform: %d targets of %s, %d at a time; reports in %s/NAME\n", len(planned), o.targets, min(jobs, len(planned)), dir)
	}
	start := time.Now()
	results := tr.runAll(ctx, planned)
	elapsed := time.Since(start)

	var runs []ecosystem.Run
	var skipped []ecosystem.Skipped
	for i, p := range planned {
		path := filepath.Join(p.dir, reports.JSONFile)
		if !results[i].started {
			// Whatever report.json its directory holds is an earlier run's.
			skipped = append(skipped, ecosystem.Skipped{Path: path, Problem: "not run: interrupted before it started"})
			continue
		}
		if run, err := ecosystem.ReadRun(p.name, path); err == nil {
			runs = append(runs, run)
		} else {
			skipped = append(skipped, ecosystem.Skipped{Path: path, Problem: err.Error()})
			fmt.Fprintf(stderr, "mcp-conform: %s: %v\n", p.name, err)
		}
	}
	m := ecosystem.Build(runs, skipped, dir, "mcp-conform "+version, time.Now())
	paths, werr := ecosystem.Write(dir, m)
	var sum, longest time.Duration
	for _, r := range results {
		sum += r.elapsed
		longest = max(longest, r.elapsed)
	}
	writeMatrixTable(stdout, m)
	if o.verbose {
		for _, p := range paths {
			fmt.Fprintf(stdout, "  %s\n", p)
		}
	}
	fmt.Fprintf(stdout, "matrix: %s (and %s, %s)\n", filepath.Join(dir, ecosystem.HTMLFile), ecosystem.MarkdownFile, ecosystem.JSONFile)
	fmt.Fprintf(stdout, "time: %.1f s for %d targets, %d at a time; the targets took %.1f s in all, the longest %.1f s\n",
		elapsed.Seconds(), len(planned), min(jobs, len(planned)), sum.Seconds(), longest.Seconds())
	code := conform.ExitOK
	var failed []string
	for i, r := range results {
		if r.code != 0 {
			failed = append(failed, fmt.Sprintf("%s (exit %d)", planned[i].name, r.code))
		}
	}
	if len(failed) > 0 {
		code = conform.ExitFailed
	}
	if ctx.Err() != nil {
		code = reports.ExitInterrupted
	}
	if werr != nil {
		fmt.Fprintf(stderr, "mcp-conform: writing the matrix: %v\n", werr)
		if code == conform.ExitOK {
			code = conform.ExitUsage
		}
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(stdout, "mcp-conform: interrupted; %d of %d targets did not pass their gate: exit %d\n", len(failed), len(planned), code)
	case len(failed) == 0:
		fmt.Fprintf(stdout, "mcp-conform: every target (%d) passed its gate: exit %d\n", len(planned), code)
	default:
		fmt.Fprintf(stdout, "mcp-conform: %d of %d targets did not pass their gate: %s: exit %d\n", len(failed), len(planned), strings.Join(failed, ", "), code)
	}
	return code
}

// checkMatrixDir makes sure the matrix can be written into dir, and that dir is not
// a single run's report directory, whose matrix.md it would replace.
func checkMatrixDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, reports.JSONFile)); err == nil {
		return fmt.Errorf("%s holds the report.json of a single run (its matrix.md would be replaced): choose another directory", dir)
	}
	return reports.CheckDir(dir)
}

// runAll runs every target, jobs at a time, and returns their results in order.
func (tr *targetRunner) runAll(ctx context.Context, planned []plannedTarget) []targetResult {
	results := make([]targetResult, len(planned))
	sem := make(chan struct{}, tr.jobs)
	var wg sync.WaitGroup
	done := 0
	for i := range planned {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			// Interrupted: what has not started does not start; it has no report.
			results[i] = targetResult{code: reports.ExitInterrupted}
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i] = tr.runOne(ctx, &planned[i])
			tr.mu.Lock()
			done++
			tr.progress(done, len(planned), &planned[i], &results[i])
			tr.mu.Unlock()
		})
	}
	wg.Wait()
	return results
}

// progress prints one finished target.
func (tr *targetRunner) progress(done, total int, p *plannedTarget, r *targetResult) {
	if tr.quiet {
		return
	}
	word := "PASS"
	if r.code != 0 {
		word = "FAIL"
	}
	line := fmt.Sprintf("[%*d/%d] %-4s %s (exit %d, %.1f s)", len(strconv.Itoa(total)), done, total, word, p.name, r.code, r.elapsed.Seconds())
	switch {
	case r.report != nil && len(r.report.Revisions) == 0 && len(r.report.Notes) > 0:
		line += ": " + oneLineTrunc(p.secrets.String(r.report.Notes[len(r.report.Notes)-1]), 200)
	case r.report != nil:
		s := r.report.Summary
		supported := 0
		for _, col := range r.report.Revisions {
			if col.Negotiated != "" && col.Negotiated == col.Revision {
				supported++
			}
		}
		line += fmt.Sprintf(": %d of %d revisions negotiated; %d pass, %d warn, %d fail, %d error, %d skip", supported, len(r.report.Revisions), s.Pass, s.Warn, s.Fail, s.Error, s.Skip)
	}
	fmt.Fprintln(tr.stdout, reports.TerminalText(line))
}

// oneLineTrunc is s on one line, cut to at most n bytes (at a rune boundary).
func oneLineTrunc(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// runOne runs one target in its own process, into its own report directory, bounded
// by its own --start-timeout and --run-timeout (and childGrace). A run that ends
// without a report.json — it crashed, or overran and was stopped — gets one that
// says so, with no verdict: the target's row, and only its row, shows the failure.
func (tr *targetRunner) runOne(ctx context.Context, p *plannedTarget) targetResult {
	start := time.Now()
	res := targetResult{started: true}
	writeFallback := func(why string) {
		res.elapsed = time.Since(start)
		rep := &reports.Report{
			Target: p.target, Tool: "mcp-conform " + version, StartedAt: start.UTC(), DurationMs: res.elapsed.Milliseconds(),
			Revisions: []reports.RevisionReport{}, ExitCode: res.code,
			Notes:   []string{p.secrets.String(why)},
			Version: version, KnownRevisions: revision.Names(),
		}
		if _, err := reports.WriteAll(p.dir, rep, nil); err != nil {
			fmt.Fprintf(tr.stderr, "mcp-conform: %s: %v\n", p.name, err)
		}
		res.report = rep
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		res.code = conform.ExitUsage
		fmt.Fprintf(tr.stderr, "mcp-conform: %s: %v\n", p.name, err)
		return res
	}
	// An earlier run's report must not pass for this one's.
	reportPath := filepath.Join(p.dir, reports.JSONFile)
	if err := os.Remove(reportPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		res.code = conform.ExitUsage
		writeFallback(fmt.Sprintf("the report directory could not be cleared: %v", err))
		return res
	}
	log, err := os.Create(filepath.Join(p.dir, childLog))
	if err != nil {
		res.code = conform.ExitUsage
		writeFallback(fmt.Sprintf("the console log could not be created: %v", err))
		return res
	}
	defer log.Close()
	args, err := json.Marshal(append(slices.Clone(p.argv), "--report-dir="+p.dir, "--no-color"))
	if err != nil { // cannot happen: strings always marshal
		res.code = conform.ExitUsage
		return res
	}
	bound := p.bound + tr.grace
	cctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	cmd := exec.CommandContext(cctx, tr.self[0], tr.self[1:]...)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, childArgsEnv+"=") }),
		childArgsEnv+"="+string(args))
	// What the run prints is kept whole in its log, and its end read back if it
	// stops without a report.
	var tail tailBuffer
	cmd.Stdout = io.MultiWriter(log, &tail)
	cmd.Stderr = cmd.Stdout
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = tr.stopDelay
	runErr := cmd.Run()
	res.elapsed = time.Since(start)
	res.code = -1
	if cmd.ProcessState != nil {
		res.code = cmd.ProcessState.ExitCode()
	}
	overran := errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	if res.code < 0 {
		// Killed by a signal: ours (overran, or interrupted) or another's.
		res.code = reports.ExitInterrupted
		if !overran && ctx.Err() == nil {
			res.code = conform.ExitFailed
		}
	}
	f, err := os.Open(reportPath)
	if err == nil {
		res.report, err = reports.ReadJSON(f)
		f.Close()
	}
	if err == nil && !overran {
		return res
	}
	var why string
	switch {
	case overran:
		why = fmt.Sprintf("stopped after %s, past its --start-timeout and --run-timeout (%s) and %s for its reports", res.elapsed.Round(time.Second), p.bound, tr.grace)
	case runErr != nil:
		why = fmt.Sprintf("mcp-conform ended without a report: %v", runErr)
	default:
		why = "mcp-conform ended without a report"
	}
	if res.report != nil {
		// It overran but had written a report (on SIGINT, as a run does): keep it,
		// and say so in it.
		res.report.Notes = append(res.report.Notes, why)
		if _, err := reports.WriteAll(p.dir, res.report, nil); err != nil {
			fmt.Fprintf(tr.stderr, "mcp-conform: %s: %v\n", p.name, err)
		}
		return res
	}
	if t := strings.TrimSpace(tail.String()); t != "" {
		why += "; the end of its output: " + t
	}
	if res.code == 0 {
		res.code = conform.ExitFailed // no report is never a pass
	}
	writeFallback(why)
	return res
}

// tailBuffer keeps the last tailBytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 1500

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

// childArgs returns the arguments a target's process was given in childArgsEnv,
// and removes the variable so that no server the run launches inherits it.
func childArgs() ([]string, bool) {
	v, ok := os.LookupEnv(childArgsEnv)
	if !ok {
		return nil, false
	}
	_ = os.Unsetenv(childArgsEnv)
	var args []string
	if err := json.Unmarshal([]byte(v), &args); err != nil {
		return nil, false
	}
	return args, true
}

// writeMatrixTable prints the matrix's rows: rank, name, conformance, a word per
// revision, exit code.
func writeMatrixTable(w io.Writer, m *ecosystem.Matrix) {
	if len(m.Rows) == 0 {
		fmt.Fprintln(w, "no runs")
		return
	}
	nameW := len("run")
	for _, r := range m.Rows {
		nameW = max(nameW, len(reports.TerminalText(r.Name)))
	}
	colW := len("unsupported")
	for _, rev := range m.Revisions {
		colW = max(colW, len(rev))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%3s  %-*s  %11s", "#", nameW, "run", "conformance")
	for _, rev := range m.Revisions {
		fmt.Fprintf(&b, "  %-*s", colW, reports.TerminalText(rev))
	}
	b.WriteString("  exit\n")
	for _, r := range m.Rows {
		fmt.Fprintf(&b, "%3d  %-*s  %11s", r.Rank, nameW, reports.TerminalText(r.Name), ecosystem.Percent(r.Conformance))
		for _, c := range r.Cells {
			fmt.Fprintf(&b, "  %-*s", colW, cellWord(&c))
		}
		fmt.Fprintf(&b, "  %d\n", r.ExitCode)
	}
	fmt.Fprint(w, b.String())
}

// cellWord is one cell in a word or two.
func cellWord(c *ecosystem.Cell) string {
	switch c.State {
	case ecosystem.StateNotTested:
		return "—"
	case ecosystem.StateUnsupported:
		return "unsupported"
	case ecosystem.StateNoSession:
		return "no session"
	}
	s := c.Summary
	switch {
	case s.Fail+s.Error > 0:
		return fmt.Sprintf("%d fail", s.Fail+s.Error)
	case s.Warn > 0:
		return fmt.Sprintf("%d warn", s.Warn)
	case s.Pass == 0:
		return "skipped"
	}
	return "pass"
}
