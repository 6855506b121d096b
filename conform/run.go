package conform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcp-conform/mcp-conform/conform/baseline"
	"github.com/mcp-conform/mcp-conform/internal/redact"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Exit codes of a run: one per outcome a CI gate branches on.
const (
	ExitOK          = 0 // no check failed
	ExitFailed      = 1 // a check failed or could not be verified (error)
	ExitUsage       = 2 // usage or configuration error
	ExitIncomplete  = 3 // nothing verified: a filter matched nothing, or every selected check skipped
	ExitUnreachable = 4 // the target could not be reached or died before any check ran
)

// Config is everything a run needs. The CLI fills it from flags.
type Config struct {
	// Target is a command line (launched over stdio) or an http(s) URL. Empty means
	// the bundled reference server (Bundled).
	Target string
	// URL, with a command Target, makes the run launch the command and speak HTTP to URL.
	URL string
	// Transport forces "stdio", "http" (Streamable HTTP) or "sse" (HTTP+SSE); "" detects.
	Transport string
	Env       []string // extra K=V for a launched command
	Cwd       string   // working directory of a launched command
	Headers   http.Header
	Revisions []revision.Revision // nil: every known revision

	Timeout      time.Duration // per request (default 5 s)
	RunTimeout   time.Duration // the whole run (default 10 min)
	StartTimeout time.Duration // wait for a launched server's URL (default 15 s)
	KillGrace    time.Duration // between stdin close, SIGTERM and SIGKILL (default 2 s)

	LabelFilter string   // Ginkgo --label-filter
	Focus       []string // Ginkgo --focus
	Skip        []string // Ginkgo --skip
	Strict      bool     // SHOULD violations fail

	Console io.Writer // progress and summary (nil: discard)
	Color   bool
	Verbose bool
	Quiet   bool // the console shows only the summary (-q)
	Live    bool // the console redraws a progress line per revision (a terminal)
	// Reporter, when set, is the console the run reports progress on instead of one
	// built from the fields above; the caller prints the summary on it, so that
	// nothing the run already said is said twice.
	Reporter *reports.Console

	// Calls are the target's tools the operator allowed (--call NAME[=JSON]); a nil
	// Args means "build arguments from the tool's inputSchema".
	Calls []CallSpec
	// TriggerTool (--trigger-tool) and TriggerCmd (--trigger-cmd) change the server's
	// tool list on demand, for NOTIF-LC-01.
	TriggerTool *CallSpec
	TriggerCmd  string
	// MaxPages bounds every tools/list walk (default 1000).
	MaxPages int
	// Reads (--read URI) are the resource URIs the RES checks read, instead of the
	// first listed ones.
	Reads []string
	// MaxMessageBytes bounds every message the server sends: a stdio line, an HTTP
	// body after decoding, an SSE event (default 8 MiB). A larger one is rejected and
	// the call it answers fails at once, naming its size.
	MaxMessageBytes int
	// MaxTranscriptBytes bounds the memory the transcripts of the whole run hold, and
	// so what is written to disk (default 8 MiB of message bytes, which a decoded
	// message shares with its members); later messages are counted.
	MaxTranscriptBytes int64

	ToolVersion string
	// Baseline, when set (--baseline), accepts known failures and quarantines flaky
	// checks; a stale entry fails the run.
	Baseline *baseline.File
	// Bundled is the argv that starts the bundled reference server over stdio.
	Bundled []string

	// reportDir, set by the library's ReportDir option, is where RunLibrary writes
	// the reports (the CLI writes its own).
	reportDir string
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	if c.RunTimeout <= 0 {
		c.RunTimeout = 10 * time.Minute
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 15 * time.Second
	}
	if c.KillGrace <= 0 {
		c.KillGrace = 2 * time.Second
	}
	if len(c.Revisions) == 0 {
		c.Revisions = revision.All()
	}
	if c.Console == nil {
		c.Console = io.Discard
	}
	if c.MaxPages <= 0 {
		c.MaxPages = 1000
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.MaxTranscriptBytes <= 0 {
		c.MaxTranscriptBytes = DefaultMaxTranscriptBytes
	}
	if c.ToolVersion == "" {
		c.ToolVersion = "dev"
	}
	return c
}

// The default bounds on what a server can make the suite hold.
const (
	DefaultMaxMessageBytes = 8 << 20
	// 8 MiB of transcripts is some 30 times what a full run against the reference
	// server writes, and what a run judging 10,000 tools can keep within 80 MB.
	DefaultMaxTranscriptBytes = 8 << 20
)

// ConfigError is a usage or configuration problem (exit code 2).
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

func configErr(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}

// Result is a finished run.
type Result struct {
	Report *reports.Report
	// Attachments are extra files for the report directory: transcripts, the server's
	// stderr, Ginkgo's own log.
	Attachments map[string][]byte
}

// Run opens a session per selected revision, runs the selected checks as Ginkgo specs
// and returns the report. It returns an error only for configuration problems; a
// server that is silent, crashes or cannot be reached still yields a report.
//
// Ginkgo allows one RunSpecs per process, so Run may be called once per process.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	return run(ctx, cfg, true)
}

// run is Run; withGinkgo false runs the specs' bodies directly, in the same order and
// through the same judging path, without Ginkgo (library mode, see Test).
func run(ctx context.Context, cfg Config, withGinkgo bool) (*Result, error) {
	cfg = cfg.withDefaults()
	// The one redaction point: whatever the server echoed of a --header value is
	// scrubbed from the console as it is written and from the finished report and
	// every attachment before anything writes them.
	secrets := headerSecrets(cfg.Headers)
	cfg.Console = secrets.Writer(cfg.Console)
	if err := RegistryErr(); err != nil {
		return nil, &ConfigError{Err: err}
	}
	if err := checkDrivers(cfg.Revisions); err != nil {
		return nil, err
	}
	sel, err := newSelection(cfg)
	if err != nil {
		return nil, err
	}
	tgt, notes, err := newTarget(cfg)
	if err != nil {
		return nil, err
	}
	if lt, ok := tgt.(*launchTarget); ok {
		// Before the launch: a server already on --url's port would be tested in
		// the launched command's place.
		if err := lt.refuseBusyURL(ctx); err != nil {
			return nil, err
		}
	}
	rs := newRunState(cfg, tgt, sel)
	defer rs.runners.close()
	rs.mirror = withGinkgo
	rs.report.Notes = append(rs.report.Notes, notes...)
	rs.report.Version, rs.report.KnownRevisions = cfg.ToolVersion, revision.Names()
	if cfg.Reporter != nil {
		// The caller's console, which also prints the summary after the run: its
		// writer is scrubbed like the run's own (a launched command line may hold
		// the token a --header carries).
		if cfg.Reporter.W != nil {
			cfg.Reporter.W = secrets.Writer(cfg.Reporter.W)
		}
		rs.console = cfg.Reporter
	} else {
		rs.console.Quiet, rs.console.Live = cfg.Quiet, cfg.Live
	}
	if cfg.Baseline != nil {
		rs.report.Notes = append(rs.report.Notes, cfg.Baseline.Notes...)
	}
	rs.console.RunStart(tgt.describe(), revisionNames(cfg.Revisions), notes)
	for _, col := range rs.columns {
		rs.console.Plan(col.rev.Name, len(rs.checksFor(col.rev)))
	}

	ctx, cancel := context.WithTimeout(ctx, cfg.RunTimeout)
	defer cancel()
	rs.ctx = ctx
	shutdown := func() {
		// Whatever happened, nothing the run started may outlive it.
		stopCtx, stop := context.WithTimeout(context.Background(), 3*cfg.KillGrace+2*time.Second)
		defer stop()
		rs.closeSessions(stopCtx)
		tgt.close(stopCtx)
		transport.StopAll(stopCtx)
	}
	defer shutdown() // also on a panic; a second shutdown is a no-op
	// --run-timeout is a hard bound: once it passes no check will use a server again,
	// so every server process is killed at once. A flooding server would otherwise
	// keep the CPU busy while the remaining checks are marked "not run".
	stopAtDeadline := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			expired, cancel := context.WithTimeout(context.Background(), 0)
			defer cancel()
			transport.StopAll(expired)
		}
	})
	defer stopAtDeadline()

	switch {
	case rs.planned == 0:
		rs.report.Notes = append(rs.report.Notes, "no check matched the selection (--label-filter, --focus, --skip, --revision)")
		rs.exitOverride = ExitIncomplete
	default:
		for _, r := range cfg.Revisions {
			go r.Warm() // load the schemas while the servers start
		}
		startCtx, stop := context.WithTimeout(ctx, cfg.StartTimeout)
		err := tgt.start(startCtx)
		stop()
		if err != nil {
			rs.unreachable(fmt.Errorf("target did not start: %w", err))
		} else if rs.openColumns(ctx); rs.allBroken() && !rs.openingFailed() && !rs.noteAuthRequired() {
			rs.unreachable(errors.New("no session could be opened"))
		} else {
			rs.startWorkers()
			if withGinkgo {
				rs.runGinkgo()
			} else {
				rs.runDirect()
			}
		}
	}
	shutdown() // before finish, so the report records how every process ended
	rs.noteTargetDeath()
	res := rs.finish(ctx)
	secrets.Value(res)
	return res, nil
}

// The notes of a run whose target could not be reached, and of one whose launched
// command (--target CMD --url URL) ended by itself before the run stopped it. The
// console's summary (reports.Console) finds them by these words.
const (
	unreachableNote  = "the target could not be reached: "
	targetDiedPrefix = "the target died during the run"
)

// noteTargetDeath, once every process is stopped, makes a launched command that
// ended by itself (before the run's stop sequence) no pass: when no check ran the
// note of the unreachable run names its exit (exit 4); otherwise the run fails
// (exit 1), whatever the checks that ran found, since those after its death talked
// to no server and a server that dies under test is broken.
func (rs *runState) noteTargetDeath() {
	lt, ok := rs.tgt.(*launchTarget)
	if !ok {
		return
	}
	how := lt.died()
	if how == "" {
		return
	}
	what := fmt.Sprintf("the launched command %q exited by itself (%s) before the run stopped it", lt.label, how)
	if rs.exitOverride == ExitUnreachable {
		for i, n := range rs.report.Notes {
			if strings.HasPrefix(n, unreachableNote) {
				if !strings.Contains(n, how) {
					rs.report.Notes[i] = n + "; " + what
				}
				return
			}
		}
		rs.report.Notes = append(rs.report.Notes, unreachableNote+what)
		return
	}
	rs.note(targetDiedPrefix + ": " + what + "; checks after its death could not reach it, and the run fails")
	rs.exitOverride = ExitFailed
}

// headerSecrets is the set of --header values to scrub.
func headerSecrets(h http.Header) *redact.Secrets {
	var values []string
	for _, vs := range h {
		values = append(values, vs...)
	}
	return redact.New(values)
}

func revisionNames(revs []revision.Revision) []string {
	out := make([]string, len(revs))
	for i, r := range revs {
		out[i] = r.Name
	}
	return out
}

// newTarget turns the target flags into a target.
func newTarget(cfg Config) (target, []string, error) {
	var notes []string
	limits := transport.Limits{MaxFrame: cfg.MaxMessageBytes}
	proc := transport.ProcessConfig{Env: cfg.Env, Dir: cfg.Cwd, KillGrace: cfg.KillGrace, Limits: limits}
	httpCfg := transport.HTTPConfig{Headers: cfg.Headers, Limits: limits, Timeout: cfg.Timeout}
	switch cfg.Transport {
	case "", "stdio", "http", "sse":
	default:
		return nil, nil, configErr("--transport must be stdio, http or sse, not %q", cfg.Transport)
	}
	command := cfg.Target
	if command == "" {
		if len(cfg.Bundled) == 0 {
			return nil, nil, configErr("no --target given and no bundled server available")
		}
		notes = append(notes, "no --target given: running against the bundled reference server (mcp-conform fixture --transport stdio)")
		proc.Argv = cfg.Bundled
		// Named by what it is, not by this executable's path (a temporary build
		// under `go run`).
		command = bundledLabel
	} else if isURL(cfg.Target) {
		if cfg.URL != "" {
			return nil, nil, configErr("--url goes with a command --target, not with a URL target")
		}
		if cfg.Transport == "stdio" {
			return nil, nil, configErr("--transport stdio needs a command --target, not a URL")
		}
		httpCfg.URL = cfg.Target
		return &httpTarget{cfg: httpCfg, mode: modeOf(cfg.Transport)}, notes, nil
	} else {
		argv, err := transport.SplitCommand(cfg.Target)
		if err != nil {
			return nil, nil, configErr("--target: %v", err)
		}
		proc.Argv = argv
	}
	if cfg.URL != "" {
		if !isURL(cfg.URL) {
			return nil, nil, configErr("--url %q is not an http(s) URL", cfg.URL)
		}
		if cfg.Transport == "stdio" {
			return nil, nil, configErr("--transport stdio contradicts --url")
		}
		httpCfg.URL = cfg.URL
		return &launchTarget{httpTarget: httpTarget{cfg: httpCfg, mode: modeOf(cfg.Transport)}, proc: proc, label: command}, notes, nil
	}
	if cfg.Transport == "http" || cfg.Transport == "sse" {
		return nil, nil, configErr("--transport %s needs a URL: give --target http://… or --url", cfg.Transport)
	}
	if len(cfg.Headers) > 0 {
		return nil, nil, configErr("--header applies to HTTP targets only")
	}
	return &stdioTarget{cfg: proc, label: command}, notes, nil
}

// bundledLabel names the bundled reference server as the target.
const bundledLabel = "mcp-conform fixture --transport stdio (the bundled reference server)"

func modeOf(transport string) string {
	switch transport {
	case "http", "sse":
		return transport
	default:
		return "auto"
	}
}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// selection replicates Ginkgo's own filtering, so that the run knows which specs were
// selected: a selected spec that never reports a verdict (the run was interrupted) is
// an error, never silently missing.
type selection struct {
	labels     types.LabelFilter
	focus      *regexp.Regexp
	skip       *regexp.Regexp
	suiteCfg   types.SuiteConfig
	reporterCf types.ReporterConfig
}

const suiteDescription = "mcp-conform"
const outerContainer = "checks"

func newSelection(cfg Config) (*selection, error) {
	s := &selection{}
	if cfg.LabelFilter != "" {
		lf, err := types.ParseLabelFilter(cfg.LabelFilter)
		if err != nil {
			return nil, configErr("--label-filter: %v", err)
		}
		s.labels = lf
	}
	var err error
	if s.focus, err = joinRegexps(cfg.Focus); err != nil {
		return nil, configErr("--focus: %v", err)
	}
	if s.skip, err = joinRegexps(cfg.Skip); err != nil {
		return nil, configErr("--skip: %v", err)
	}
	s.suiteCfg = types.NewDefaultSuiteConfig()
	s.suiteCfg.LabelFilter = cfg.LabelFilter
	s.suiteCfg.FocusStrings = cfg.Focus
	s.suiteCfg.SkipStrings = cfg.Skip
	s.suiteCfg.RandomSeed = 1
	s.suiteCfg.RandomizeAllSpecs = false
	s.suiteCfg.Timeout = cfg.RunTimeout + time.Minute // ours fires first
	s.reporterCf = types.NewDefaultReporterConfig()
	s.reporterCf.NoColor = true
	s.reporterCf.Succinct = true
	return s, nil
}

func joinRegexps(parts []string) (*regexp.Regexp, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	return regexp.Compile(strings.Join(parts, "|"))
}

func (s *selection) selects(rev revision.Revision, c *Check) bool {
	text := suiteDescription + " " + outerContainer + " " + leafText(rev, c)
	if s.labels != nil && !s.labels(append([]string{"rev:" + rev.Name}, c.Labels(rev)...)) {
		return false
	}
	if s.focus != nil && !s.focus.MatchString(text) {
		return false
	}
	if s.skip != nil && s.skip.MatchString(text) {
		return false
	}
	return true
}

func specText(c *Check) string { return c.ID + " " + c.Title }

// leafText is a check's It text in a revision: the revision's name, then the check's
// ID and title. The revision is no container of its own: Ginkgo copies a spec's nodes
// over and over as it runs it (a run has ~800 specs), and the text that --focus and
// --skip match, the container's text and the spec's joined by spaces, is the same
// either way, as is the order (top-level containers, which Ginkgo does not
// shuffle: recordGroups).
func leafText(rev revision.Revision, c *Check) string { return rev.Name + " " + specText(c) }

// recordGroups is the order in which verdicts are recorded (and Ginkgo's specs run):
// every column's checks that finish while its sessions are open, then every column's
// checks judged at its end (atColumnEnd), each group column by column in run order.
// Such a verdict waits for its column's end; in one column-by-column order every
// later column's verdicts waited behind it and were recorded after the run's last
// message (against server-everything over HTTP, 739 of 809, 70-80 ms). Only the
// recording moves: the workers run the checks (startWorkers), and the report lists
// them in run order either way.
func (rs *runState) recordGroups() [2]iter.Seq2[*column, *Check] {
	group := func(atEnd bool) iter.Seq2[*column, *Check] {
		return func(yield func(*column, *Check) bool) {
			for _, col := range rs.columns {
				for _, c := range rs.checksFor(col.rev) {
					if rs.atColumnEnd(c) == atEnd && !yield(col, c) {
						return
					}
				}
			}
		}
	}
	return [2]iter.Seq2[*column, *Check]{group(false), group(true)}
}

// atColumnEnd reports whether check c is judged at its column's end: a
// transcript-wide check (PhaseTranscript), after the settle, or an odd-input check
// that runs last (runsLast), after the transcript probes and a grace that proves its
// silences (server-everything over stdio: 200 ms a column). In the first group such a
// check held back the recording of every later column's checks until that grace
// was over.
func (rs *runState) atColumnEnd(c *Check) bool {
	return c.RunPhase() == PhaseTranscript || rs.runsLast(c)
}

// runDirect runs every selected check of every column in record order, as the
// Ginkgo specs would, without Ginkgo: library mode, where RunSpecs (once per process)
// is not available. Verdicts come from the same workers and runCheck either way.
func (rs *runState) runDirect() {
	for _, group := range rs.recordGroups() {
		for col, c := range group {
			rs.runCheck(col, c)
		}
	}
}

// ginkgoT is the GinkgoTestingT of a run outside `go test`.
type ginkgoT struct{ failed bool }

func (t *ginkgoT) Fail() { t.failed = true }

var ginkgoOnce sync.Mutex

// runGinkgo builds the spec tree (a container per record group, recordGroups, an It
// per check) and runs it. Verdicts are recorded by the It bodies; Ginkgo's own state
// mirrors them. Ginkgo orders specs by their containers' code locations first, so
// each group's container has a location of its own, in the groups' order.
//
// A check the column never runs, for a reason that holds all run long (another
// transport's rule, a revision the server does not support: neverRuns), has no spec:
// its skip or error is recorded at its place in the run order, at the start of the
// next spec's body (or, past the last spec, after the run), and Ginkgo never sees
// it. Mirroring such a skip cost Ginkgo a stack capture and a regexp compiled per
// call (ginkgo.Skip), and a spec node each: a tenth of the suite's CPU in a run
// against the reference server over stdio, where such checks give 142 of the run's
// 809 verdicts. ginkgo.log therefore lists the checks that ran.
func (rs *runState) runGinkgo() {
	ginkgoOnce.Lock()
	defer ginkgoOnce.Unlock()
	var ginkgoLog bytes.Buffer
	formatter.ColorableStdOut = &ginkgoLog // Ginkgo's reporter goes to ginkgo.log, not the console
	// Ginkgo orders specs by code location, then text. Every It is declared here, so
	// each gets a synthetic location whose line is its place in the record order:
	// within a group, revisions oldest first, and within one the registry order.
	line := 0
	type pending struct {
		col      *column
		c        *Check
		recorded atomic.Bool // by a spec's body, or after RunSpecs: never both
	}
	var all []*pending   // every never-run check, in run order
	var never []*pending // those not yet handed to a spec
	recordNever := func(list []*pending) {
		for _, p := range list {
			if p.recorded.CompareAndSwap(false, true) {
				rs.record(p.col, p.c, false)
			}
		}
	}
	for i, group := range rs.recordGroups() {
		groupLoc := types.CodeLocation{FileName: "mcp-conform", LineNumber: i + 1}
		ginkgo.Describe(outerContainer, groupLoc, func() {
			for col, c := range group {
				if rs.neverRuns(col, c) != nil {
					p := &pending{col: col, c: c}
					all, never = append(all, p), append(never, p)
					continue
				}
				before := never
				never = nil
				line++
				loc := types.CodeLocation{FileName: "mcp-conform/" + col.rev.Name, LineNumber: line}
				ginkgo.It(leafText(col.rev, c), loc, ginkgo.Label(c.Labels(col.rev)...), func() {
					recordNever(before)
					rs.runCheck(col, c)
				})
			}
		})
	}
	ginkgo.RunSpecs(&ginkgoT{}, suiteDescription, rs.sel.suiteCfg, rs.sel.reporterCf)
	// The checks after the last spec, and any whose spec Ginkgo did not run.
	recordNever(all)
	rs.attachments["ginkgo.log"] = ginkgoLog.Bytes()
}
