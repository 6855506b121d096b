package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/baseline"
	"github.com/mcp-conform/mcp-conform/internal/revision"
)

var errHelp = errors.New("help requested")

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

type options struct {
	target, url, transport, cwd, revisions  string
	env, headers, focus, skip, calls        multiFlag
	reads                                   multiFlag // --read (issue 34)
	triggerTool, triggerCmd                 string
	maxPages                                int
	maxMessageBytes                         int
	maxTranscriptBytes                      int64
	timeout, runTimeout, startTimeout       time.Duration
	killGrace                               time.Duration
	reportDir, labelFilter                  string
	strict, list, version, noColor, verbose bool
	quiet                                   bool
	baseline, writeBaseline                 string
	coverage                                bool

	// Many targets (--targets): the servers file, how many run at once, which shard
	// of its entries this run takes.
	targets, shard string
	jobs           int
	// reportDirSet says --report-dir was given; forward holds every single-run flag
	// given on the command line, as --name=value, for each target of --targets.
	reportDirSet bool
	forward      []string
}

const usageHead = `mcp-conform: conformance checks for MCP servers, every protocol revision in one run.

Usage:
  mcp-conform [flags]                       run against the bundled reference server
  mcp-conform --target "CMD ARGS…" [flags]  launch a server over stdio
  mcp-conform --target http://HOST/mcp      Streamable HTTP (or HTTP+SSE, detected)
  mcp-conform --target "CMD" --url URL      launch a server, then speak HTTP to URL
  mcp-conform --list                        list every check
  mcp-conform --coverage                    the requirements the checks cover, and why the others are not
  mcp-conform --targets servers.yaml        many servers (--jobs at once, --shard K/N of them), then their matrix
  mcp-conform merge DIR…                    merge report.json files of many runs into one matrix (see merge --help)
  mcp-conform fixture --transport stdio|http|sse [--addr 127.0.0.1:PORT]
  mcp-conform replay FILE --target …         re-send a failing check's exchange (see replay --help)

Exit codes: 0 no failure; 1 a check failed or errored, or a launched --url server died;
2 usage or configuration error (also: --url's port served before the launch);
3 incomplete (a filter matched nothing, or every selected check was skipped);
4 the target could not be reached or died before any check ran;
130 interrupted (Ctrl-C, SIGINT or SIGTERM): the reports say what ran.
With --targets: 0 every target exited 0; 1 some target did not (it failed a check, was
incomplete or unreachable, crashed or overran); 2 servers.yaml or a flag is wrong (nothing
ran); 3 the shard selects no target; 130 interrupted.

Output: progress, each failure and warning once, skip reasons and a summary table;
-v every check, -q the summary only. Colours on a terminal unless NO_COLOR is set.
Select checks by label with --label-filter; --list shows each check's labels.

Flags:
`

// parseFlags reads the command line. Errors and the usage after them go to stderr;
// errHelp means -h or --help was asked for, and the caller prints usage to stdout.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o, fs := newFlagSet()
	// The caller prints the error once, with where help is; help goes to stdout.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, errHelp
		}
		return nil, fmt.Errorf("%w (mcp-conform --help lists the flags)", err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (quote a command: --target \"CMD ARGS\")", fs.Arg(0))
	}
	if o.verbose && o.quiet {
		return nil, errors.New("-v and -q contradict each other")
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "report-dir":
			o.reportDirSet = true
		case "targets", "jobs", "shard":
			// The many-target run's own flags, never a target's.
		default:
			o.forward = append(o.forward, flagArgs(f)...)
		}
	})
	if o.targets == "" && (o.jobs != 0 || o.shard != "") {
		return nil, errors.New("--jobs and --shard go with --targets")
	}
	return o, nil
}

// flagArgs renders a set flag back as command-line arguments: --name=value, once per
// value of a repeatable flag.
func flagArgs(f *flag.Flag) []string {
	if m, ok := f.Value.(*multiFlag); ok {
		out := make([]string, len(*m))
		for i, v := range *m {
			out[i] = "--" + f.Name + "=" + v
		}
		return out
	}
	return []string{"--" + f.Name + "=" + f.Value.String()}
}

// writeUsage prints the help text to w.
func writeUsage(w io.Writer) {
	_, fs := newFlagSet()
	fs.SetOutput(w)
	fs.Usage()
}

// serverFlags defines the flags that name the server and how to reach or launch it,
// which a run and a replay share; targetHelp words --target for the command.
func serverFlags(fs *flag.FlagSet, o *options, targetHelp string) {
	fs.StringVar(&o.target, "target", "", targetHelp)
	fs.StringVar(&o.url, "url", "", "with a command --target: the URL the launched server serves (HTTP)")
	fs.StringVar(&o.transport, "transport", "", "force the transport: stdio, http (Streamable HTTP) or sse (2024-11-05 HTTP+SSE)")
	fs.Var(&o.env, "env", "K=V environment variable for a launched server (repeatable)")
	fs.StringVar(&o.cwd, "cwd", "", "working directory for a launched server")
	fs.Var(&o.headers, "header", `"Name: value" HTTP header sent on every request (repeatable; values never appear in reports)`)
}

// newFlagSet defines every flag on a fresh set bound to fresh options.
func newFlagSet() (*options, *flag.FlagSet) {
	o := &options{}
	fs := flag.NewFlagSet("mcp-conform", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageHead)
		fs.PrintDefaults()
	}
	serverFlags(fs, o, "server to test: a command line (stdio) or an http(s) URL; empty runs the bundled reference server")
	fs.StringVar(&o.revisions, "revision", "all", "comma-separated protocol revisions to test: "+strings.Join(revision.Names(), ","))
	fs.DurationVar(&o.timeout, "timeout", 5*time.Second, "deadline for each request")
	fs.DurationVar(&o.runTimeout, "run-timeout", 10*time.Minute, "deadline for the whole run")
	fs.DurationVar(&o.startTimeout, "start-timeout", 15*time.Second, "how long a server may take to start: a launched --url server to accept connections, and any server to answer its first request (initialize)")
	fs.DurationVar(&o.killGrace, "kill-grace", 2*time.Second, "how long a stdio server may take to exit once its stdin is closed before it gets SIGTERM, and as long again before SIGKILL (the \"promptly\" of STDIO-EOF-EXIT-01 and LIFE-SHUTDOWN-STDIO-01)")
	fs.StringVar(&o.reportDir, "report-dir", "mcp-conform-report", "directory for junit.xml, report.json, matrix.md, transcripts and server stderr")
	fs.StringVar(&o.labelFilter, "label-filter", "", "Ginkgo label filter, e.g. 'group:TOOLS && !level:may' (labels: rev:, level:, group:, phase:, needs:, id:)")
	fs.Var(&o.focus, "focus", "run only checks whose text matches this regexp (repeatable; Ginkgo --focus)")
	fs.Var(&o.skip, "skip", "skip checks whose text matches this regexp (repeatable; Ginkgo --skip)")
	fs.Var(&o.calls, "call", "NAME[=JSON] allow the suite to call the target's tool NAME, with these arguments or arguments built from its inputSchema (repeatable; by default no tool of the target is ever executed)")
	fs.StringVar(&o.triggerTool, "trigger-tool", "", "NAME[=JSON] a tool whose call changes the tool list (for NOTIF-LC-01); calling it is allowed by this flag")
	fs.StringVar(&o.triggerCmd, "trigger-cmd", "", "shell command that changes the server's tool list from outside (for NOTIF-LC-01)")
	fs.Var(&o.reads, "read", "URI the resource URI the RES checks read instead of the first 3 listed resources (repeatable; resources/read is read-only by the spec's intent)")
	fs.IntVar(&o.maxPages, "max-pages", 1000, "most tools/list pages followed in one walk")
	fs.IntVar(&o.maxMessageBytes, "max-message-bytes", conform.DefaultMaxMessageBytes, "largest message accepted from the server (a stdio line, an HTTP body after decoding, an SSE event); a larger reply fails its check, naming its size")
	fs.Int64Var(&o.maxTranscriptBytes, "max-transcript-bytes", conform.DefaultMaxTranscriptBytes, "most bytes of messages kept in the run's transcripts (in memory and on disk); later messages are counted, not kept")
	fs.StringVar(&o.baseline, "baseline", "", "YAML file of known failures (reported as expected-fail, not failing the run) and quarantined checks; a stale entry fails the run")
	fs.StringVar(&o.writeBaseline, "write-baseline", "", "write the run's failures to this YAML file as a starting baseline (a TODO reason each)")
	fs.BoolVar(&o.strict, "strict", false, "SHOULD violations fail instead of warn")
	fs.BoolVar(&o.list, "list", false, "list every check by catalogue group (ID, revisions, level, group:, phase: and needs: labels, title) and exit; with -v also its spec text and file")
	fs.BoolVar(&o.coverage, "coverage", false, "print how many requirements of the catalogue the checks cover, per group, and every uncovered requirement with its reason, then exit (with --list: after the list)")
	fs.BoolVar(&o.version, "version", false, "print the version, the protocol revisions it knows and the module it was built from, and exit")
	fs.BoolVar(&o.noColor, "no-color", false, "no ANSI colours on the console (as does the NO_COLOR environment variable)")
	fs.BoolVar(&o.verbose, "v", false, "verbose: a line for every check as it finishes, and every report file")
	fs.BoolVar(&o.quiet, "q", false, "quiet: only the summary table and the result line")
	fs.StringVar(&o.targets, "targets", "", "YAML file of many servers to test, each with its name, target and single-run flags; each runs in its own process into --report-dir/NAME (default report directory: "+matrixDir+"), then their matrix is written (matrix.md, matrix.html, matrix.json); the other flags given apply to every target")
	fs.IntVar(&o.jobs, "jobs", 0, "with --targets: how many targets run at once (default: the number of CPUs)")
	fs.StringVar(&o.shard, "shard", "", "with --targets: K/N runs the K-th of N shards of the entries (entry i, from 0, when i mod N = K-1), for CI jobs whose reports are merged after (mcp-conform merge)")
	return o, fs
}

func (o *options) config(console io.Writer) (conform.Config, error) {
	revs, err := revision.Parse(o.revisions)
	if err != nil {
		return conform.Config{}, fmt.Errorf("--revision: %w", err)
	}
	headers := http.Header{}
	for _, h := range o.headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return conform.Config{}, fmt.Errorf("--header %q: want \"Name: value\"", redact(h))
		}
		headers.Add(name, strings.TrimSpace(value))
	}
	for _, kv := range o.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return conform.Config{}, fmt.Errorf("--env %q: want K=V", kv)
		}
	}
	if o.timeout <= 0 || o.runTimeout <= 0 || o.startTimeout <= 0 || o.killGrace <= 0 {
		return conform.Config{}, errors.New("--timeout, --run-timeout, --start-timeout and --kill-grace must be positive")
	}
	calls := make([]conform.CallSpec, 0, len(o.calls))
	for _, c := range o.calls {
		spec, err := parseCallSpec(c)
		if err != nil {
			return conform.Config{}, fmt.Errorf("--call: %w", err)
		}
		calls = append(calls, spec)
	}
	var trigger *conform.CallSpec
	if o.triggerTool != "" {
		spec, err := parseCallSpec(o.triggerTool)
		if err != nil {
			return conform.Config{}, fmt.Errorf("--trigger-tool: %w", err)
		}
		trigger = &spec
	}
	if o.maxPages <= 0 {
		return conform.Config{}, errors.New("--max-pages must be positive")
	}
	if (o.maxMessageBytes != 0 && o.maxMessageBytes < 1024) || o.maxTranscriptBytes < 0 { // 0: the default
		return conform.Config{}, errors.New("--max-message-bytes must be at least 1024 and --max-transcript-bytes not negative")
	}
	if o.reportDir == "" {
		return conform.Config{}, errors.New("--report-dir must not be empty")
	}
	var base *baseline.File
	if o.baseline != "" {
		if base, err = baseline.Load(o.baseline); err != nil {
			return conform.Config{}, fmt.Errorf("--baseline: %w", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return conform.Config{}, fmt.Errorf("locate the bundled server (this executable): %w", err)
	}
	return conform.Config{
		Target: o.target, URL: o.url, Transport: o.transport,
		Env: o.env, Cwd: o.cwd, Headers: headers, Revisions: revs,
		Timeout: o.timeout, RunTimeout: o.runTimeout, StartTimeout: o.startTimeout, KillGrace: o.killGrace,
		LabelFilter: o.labelFilter, Focus: o.focus, Skip: o.skip, Strict: o.strict,
		Console: console, Color: useColor(o.noColor, console), Verbose: o.verbose, Quiet: o.quiet,
		Live:  isTerminal(console) && os.Getenv("TERM") != "dumb",
		Calls: calls, TriggerTool: trigger, TriggerCmd: o.triggerCmd, MaxPages: o.maxPages, Reads: o.reads,
		MaxMessageBytes: o.maxMessageBytes, MaxTranscriptBytes: o.maxTranscriptBytes,
		ToolVersion: version,
		Baseline:    base,
		Bundled:     []string{self, "fixture", "--transport", "stdio"},
	}, nil
}

// parseCallSpec reads NAME or NAME=JSON, where JSON is an object.
func parseCallSpec(s string) (conform.CallSpec, error) {
	name, args, hasArgs := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if name == "" {
		return conform.CallSpec{}, fmt.Errorf("%q: want NAME or NAME=JSON", s)
	}
	spec := conform.CallSpec{Name: name}
	if hasArgs {
		var obj map[string]any
		if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
			return conform.CallSpec{}, fmt.Errorf("%q: the arguments must be a JSON object", s)
		}
		spec.Args = json.RawMessage(args)
	}
	return spec, nil
}

// redact keeps a header's name and hides its value. Without a colon, the name is
// taken to end at the first blank, so that a mistyped "Name value" leaks no value.
func redact(h string) string {
	name, _, ok := strings.Cut(h, ":")
	if !ok {
		name, _, _ = strings.Cut(strings.TrimSpace(h), " ")
	}
	return strings.TrimSpace(name) + ": <redacted>"
}

// useColor reports whether the console gets ANSI colours: on a terminal, unless
// --no-color or a non-empty NO_COLOR (https://no-color.org) says otherwise.
func useColor(noColor bool, w io.Writer) bool {
	return !noColor && os.Getenv("NO_COLOR") == "" && isTerminal(w) && os.Getenv("TERM") != "dumb"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
