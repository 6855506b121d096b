package conform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/conform/baseline"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
)

// TestingT is what Test needs of a test: *testing.T and Ginkgo's GinkgoT() have it.
type TestingT interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// Target is the server a library run tests: Command, URL or Handler.
type Target struct {
	desc string
	// setup fills the config's target fields and returns what undoes it.
	setup func(cfg *Config) (cleanup func(), err error)
}

// Command is a server launched over stdio: argv[0] is the program, the rest its
// arguments (no shell). Every session gets a process of its own.
func Command(argv ...string) Target {
	return Target{desc: strings.Join(argv, " "), setup: func(cfg *Config) (func(), error) {
		if len(argv) == 0 || argv[0] == "" {
			return nil, errors.New("conform.Command: no program")
		}
		quoted := make([]string, len(argv))
		for i, a := range argv {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'" // SplitCommand undoes it
		}
		cfg.Target = strings.Join(quoted, " ")
		return func() {}, nil
	}}
}

// URL is a running server's Streamable HTTP (or HTTP+SSE) endpoint.
func URL(u string) Target {
	return Target{desc: u, setup: func(cfg *Config) (func(), error) {
		cfg.Target = u
		return func() {}, nil
	}}
}

// Handler is a server in this process: h is served on a loopback port for the run's
// duration and spoken to over Streamable HTTP at the root path (HTTP+SSE when it
// answers like a legacy server).
func Handler(h http.Handler) Target {
	return Target{desc: "in-process handler", setup: func(cfg *Config) (func(), error) {
		if h == nil {
			return nil, errors.New("conform.Handler: nil handler")
		}
		srv := httptest.NewServer(h) // binds 127.0.0.1
		cfg.Target = srv.URL + "/"
		return func() {
			// Streams a test left open must not stall the close.
			srv.CloseClientConnections()
			srv.Close()
		}, nil
	}}
}

// Option adjusts a library run: Revisions, Strict, Baseline, ReportDir, Configure.
type Option func(*Config) error

// Revisions selects the revisions to test by name (default: all).
func Revisions(names ...string) Option {
	return func(cfg *Config) error {
		revs, err := revision.Parse(strings.Join(names, ","))
		if err != nil {
			return fmt.Errorf("conform.Revisions: %w", err)
		}
		cfg.Revisions = revs
		return nil
	}
}

// Strict makes SHOULD violations fail, as --strict does.
func Strict() Option {
	return func(cfg *Config) error { cfg.Strict = true; return nil }
}

// Baseline reads a baseline file (as --baseline does): its known failures are
// expected-fail and do not fail the test, its quarantined checks never do, and a stale
// entry does.
func Baseline(path string) Option {
	return func(cfg *Config) error {
		b, err := baseline.Load(path)
		if err != nil {
			return err
		}
		cfg.Baseline = b
		return nil
	}
}

// ReportDir writes the run's reports (junit.xml, report.json, matrix.md, transcripts,
// the server's stderr) to dir, as --report-dir does, for a closer look at a failure.
func ReportDir(dir string) Option {
	return func(cfg *Config) error {
		if dir == "" {
			return errors.New("conform.ReportDir: empty directory")
		}
		cfg.reportDir = dir
		return nil
	}
}

// Configure sets any other field of the run's Config (timeouts, label filter, calls…).
func Configure(fn func(*Config)) Option {
	return func(cfg *Config) error { fn(cfg); return nil }
}

// libraryRuns serialises library runs in one process: a run ends by stopping every
// server process it started (transport.StopAll), which must not reach another run's.
var libraryRuns sync.Mutex

// RunLibrary runs the suite against target without Ginkgo's RunSpecs, so that it may
// be called any number of times in one process (runs take turns); the verdicts are
// the ones a CLI run gives, from the same checks in the same order. Test wraps it for
// go test.
func RunLibrary(ctx context.Context, target Target, opts ...Option) (*Result, error) {
	if len(Checks()) == 0 {
		return nil, &ConfigError{Err: errors.New(`no checks are registered: import _ "github.com/mcp-conform/mcp-conform/suites"`)}
	}
	if target.setup == nil {
		return nil, &ConfigError{Err: errors.New("no target: use conform.Command, conform.URL or conform.Handler")}
	}
	cfg := Config{Console: io.Discard, ToolVersion: "library"}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, &ConfigError{Err: err}
		}
	}
	libraryRuns.Lock()
	defer libraryRuns.Unlock()
	cleanup, err := target.setup(&cfg)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	defer cleanup()
	res, err := run(ctx, cfg, false)
	if err != nil || cfg.reportDir == "" {
		return res, err
	}
	if _, err := reports.WriteAll(cfg.reportDir, res.Report, res.Attachments); err != nil {
		return res, fmt.Errorf("conform: writing reports: %w", err)
	}
	return res, nil
}

// Test runs the suite against target and fails t with the verdicts a CLI run would
// fail on — every fail and error (unless the baseline accepts or quarantines it),
// every stale baseline entry, a target that could not be reached, a selection that
// verified nothing — one Errorf each, with the check's message, expected and actual
// values and the spec text. Warnings and expected failures are logged. It returns
// the result for further assertions (see package conform/matchers).
func Test(t TestingT, target Target, opts ...Option) *Result {
	t.Helper()
	ctx := context.Background()
	if c, ok := t.(interface{ Context() context.Context }); ok {
		ctx = c.Context()
	}
	res, err := RunLibrary(ctx, target, opts...)
	if res == nil {
		t.Fatalf("mcp-conform against %s: %v", target.desc, err)
		return nil
	}
	if err != nil { // the run happened, its reports could not be written
		t.Errorf("mcp-conform against %s: %v", target.desc, err)
	}
	reportTo(t, res.Report)
	return res
}

// reportTo fails t for what fails the run in rep and logs the rest (see Test).
func reportTo(t TestingT, rep *reports.Report) {
	t.Helper()
	failed := false
	for _, rev := range rep.Revisions {
		for i := range rev.Checks {
			c := &rev.Checks[i]
			line := describeFinding(rev.Revision, c)
			switch {
			case c.Gates():
				failed = true
				t.Errorf("%s", line)
			case c.Status == reports.Warn || c.Status == reports.ExpectedFail || c.Quarantine != nil && c.Status != reports.Pass:
				t.Logf("%s", line)
			}
		}
	}
	if rep.Baseline != nil {
		for _, st := range rep.Baseline.Stale {
			failed = true
			t.Errorf("%s", baseline.StaleMessage(rep.Baseline.File, st))
		}
	}
	if rep.ExitCode != ExitOK && (!failed || rep.ExitCode != ExitFailed) {
		t.Errorf("mcp-conform: exit code %d (%s): %s", rep.ExitCode, exitMeaning(rep.ExitCode), strings.Join(rep.Notes, "; "))
	}
	s := rep.Summary
	t.Logf("mcp-conform against %s: %d checks: %d pass, %d warn, %d fail, %d skip, %d error, %d expected-fail; exit code %d",
		rep.Target, s.Total, s.Pass, s.Warn, s.Fail, s.Skip, s.Error, s.ExpectedFail, rep.ExitCode)
}

func describeFinding(rev string, c *reports.CheckResult) string {
	var b strings.Builder
	tag := strings.ToUpper(string(c.Status))
	if c.Quarantine != nil {
		tag += " (quarantined, does not fail the run: " + c.Quarantine.Reason + ")"
	}
	fmt.Fprintf(&b, "%s %s %s %s: %s", tag, rev, c.ID, c.Title, c.Message)
	if c.Expected != "" {
		fmt.Fprintf(&b, "\n    expected: %s", c.Expected)
	}
	if c.Actual != "" {
		fmt.Fprintf(&b, "\n    actual:   %s", c.Actual)
	}
	if c.Source != "" {
		fmt.Fprintf(&b, "\n    requirement: %s", c.Source)
	}
	if c.Baseline != nil {
		fmt.Fprintf(&b, "\n    baseline: a known %s, accepted: %s", c.Baseline.Status, c.Baseline.Reason)
	}
	return b.String()
}

func exitMeaning(code int) string {
	switch code {
	case ExitFailed:
		return "a check failed or errored, a baseline entry is stale, or the launched target died"
	case ExitUsage:
		return "usage or configuration error"
	case ExitIncomplete:
		return "incomplete: nothing was verified"
	case ExitUnreachable:
		return "the target could not be reached"
	}
	return "unknown"
}
