// Package reports renders a finished mcp-conform run: junit.xml for CI, report.json for
// scripts, matrix.md and report.html for people, SVG badges for a README, and the
// console summary. It works only from the
// finished Report, never from live sessions, so every format tells the same story.
package reports

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Status is a check's verdict.
type Status string

// The verdicts. Warn is a SHOULD-level finding; Error means the harness or transport
// broke (timeout, crash, unreadable reply) and nothing was verified.
const (
	Pass  Status = "pass"
	Warn  Status = "warn"
	Fail  Status = "fail"
	Skip  Status = "skip"
	Error Status = "error"
)

// ExpectedFail is a fail or warn that the run's baseline (--baseline) lists as a known
// failure: it does not fail the run, and it is never a pass. CheckResult.Baseline
// keeps the verdict the check gave and the entry's reason.
const ExpectedFail Status = "expected-fail"

// SkipReason says why a check was skipped. A skip always carries one.
type SkipReason string

// The skip reasons: why a check has no verdict of its own in a column.
const (
	NotApplicable       SkipReason = "not-applicable"
	RevisionUnsupported SkipReason = "revision-unsupported"
	NeedsFixture        SkipReason = "needs-fixture"
	CallsNotAllowed     SkipReason = "calls-not-allowed"
	NotExercised        SkipReason = "not-exercised"
	// NeedsToken: the server answered HTTP 401 to the run's requests and no session
	// opened; only its authorization rules (AUTH) could be judged.
	NeedsToken SkipReason = "needs-token"
)

// Report is the whole run. Its JSON form is the stable report.json contract:
// {target, tool, startedAt, durationMs, revisions:[{revision, negotiated, transport,
// serverInfo, checks:[{id, title, level, status, message, reason?, source?, expected?,
// actual?, area?, repro?}]}], summary, exitCode, notes?, version?, knownRevisions?},
// described by the JSON Schema report.schema.json (embedded as ReportSchema).
type Report struct {
	Target     string           `json:"target"`
	Tool       string           `json:"tool"`
	StartedAt  time.Time        `json:"startedAt"`
	DurationMs int64            `json:"durationMs"`
	Revisions  []RevisionReport `json:"revisions"`
	Summary    Summary          `json:"summary"`
	ExitCode   int              `json:"exitCode"`
	// Baseline is set when the run had a baseline (--baseline).
	Baseline *BaselineReport `json:"baseline,omitempty"`

	// Notes are run-level remarks: the bundled server was used, the target could not
	// be reached, the run was interrupted, and so on.
	Notes []string `json:"notes,omitempty"`
	// Version is the suite's version; KnownRevisions every protocol revision this
	// build of the suite can test (not only those of this run).
	Version        string   `json:"version,omitempty"`
	KnownRevisions []string `json:"knownRevisions,omitempty"`
	// Cost is what the run asked of the server (absent in reports of older suites).
	Cost *RunCost `json:"cost,omitempty"`
}

// RunCost is what a run asked of the server: the sessions it opened (over stdio, each
// a process), the messages it sent, and how many of them were requests. It makes the
// growth of the suite's probes visible (make bench prints it next to each figure).
type RunCost struct {
	Sessions int `json:"sessions"`
	Messages int `json:"messages"`
	Requests int `json:"requests"`
}

// RevisionReport is one column: the revision asked for and what the server answered.
type RevisionReport struct {
	Revision string `json:"revision"`
	// Negotiated is the protocolVersion the server answered, or "" when the session
	// could not be opened.
	Negotiated string `json:"negotiated"`
	// Era is the revision's protocol era: "legacy" (initialize, sessions; up to
	// 2025-11-25) or "modern" (stateless, per-request _meta; 2026-07-28).
	Era        string          `json:"era"`
	Transport  string          `json:"transport"`
	ServerInfo json.RawMessage `json:"serverInfo"`
	Checks     []CheckResult   `json:"checks"`

	// Unsupported is set when the server answered another version: every check in
	// the column is skip: revision-unsupported.
	Unsupported bool `json:"-"`
}

// CheckResult is one check's verdict in one revision.
type CheckResult struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Level   string `json:"level"`
	Status  Status `json:"status"`
	Message string `json:"message"`

	// The fields below spell out what Message says in prose, so a script need not
	// parse it; each is omitted when empty.
	Reason   SkipReason    `json:"reason,omitempty"`   // for Skip
	Source   string        `json:"source,omitempty"`   // the catalogue row's source and quote
	Expected string        `json:"expected,omitempty"` // for Fail/Warn: what the rule wants
	Actual   string        `json:"actual,omitempty"`   // for Fail/Warn: what came back
	Group    string        `json:"group,omitempty"`    // the catalogue group (BASE, TOOLS, …)
	Duration time.Duration `json:"-"`

	// Baseline is set on an expected-fail: the verdict the check gave and why the
	// baseline accepts it.
	Baseline *BaselineMark `json:"baseline,omitempty"`
	// Quarantine is set on a check the baseline quarantines (a flaky check): its
	// verdict stands as reported but never gates the run.
	Quarantine *QuarantineMark `json:"quarantine,omitempty"`

	// Repro and Exchange are set for a failing, warning or erroring check (issue 14
	// §4): the command that re-runs only this check at this revision, and the
	// transcript slice of the exchange that decided it (see exchange.go).
	Repro    string    `json:"repro,omitempty"`
	Exchange *Exchange `json:"exchange,omitempty"`
}

// BaselineMark is the baseline's judgement of an expected-fail.
type BaselineMark struct {
	Status Status `json:"status"` // the verdict the check gave: fail or warn
	Reason string `json:"reason"` // the baseline entry's reason
}

// QuarantineMark marks a quarantined check.
type QuarantineMark struct {
	Reason string `json:"reason"`
}

// BaselineReport is how the baseline judged the run. A stale entry fails the run.
type BaselineReport struct {
	File         string       `json:"file"`
	ExpectedFail int          `json:"expectedFail"` // verdicts the baseline accepted
	Quarantined  int          `json:"quarantined"`  // verdicts of quarantined checks
	Stale        []StaleEntry `json:"stale"`
}

// StaleEntry is a baseline entry that no longer matches a failure: the check now
// passes, or no longer exists, or does not apply to a listed revision.
type StaleEntry struct {
	ID        string   `json:"id"`
	Revisions []string `json:"revisions"` // the entry's revisions; empty means all
	Reason    string   `json:"reason"`
	Problem   string   `json:"problem"`
	Line      int      `json:"line"` // in the baseline file
}

// Summary counts verdicts over every column.
type Summary struct {
	Total int `json:"total"`
	Pass  int `json:"pass"`
	Warn  int `json:"warn"`
	Fail  int `json:"fail"`
	Skip  int `json:"skip"`
	Error int `json:"error"`
	// ExpectedFail counts the verdicts a baseline accepted (absent without any).
	ExpectedFail int `json:"expectedFail,omitempty"`
}

// Add counts one verdict.
func (s *Summary) Add(st Status) {
	s.Total++
	switch st {
	case Pass:
		s.Pass++
	case Warn:
		s.Warn++
	case Fail:
		s.Fail++
	case Skip:
		s.Skip++
	case Error:
		s.Error++
	case ExpectedFail:
		s.ExpectedFail++
	}
}

// Summarize recounts the summary from the revisions.
func (r *Report) Summarize() {
	r.Summary = Summary{}
	for _, rev := range r.Revisions {
		for _, c := range rev.Checks {
			r.Summary.Add(c.Status)
		}
	}
}

// Known reports whether st is one of the five verdicts or expected-fail.
func (st Status) Known() bool {
	switch st {
	case Pass, Warn, Fail, Skip, Error, ExpectedFail:
		return true
	}
	return false
}

// effective is the verdict the renderers count and show: an unknown or empty status
// is an error, never a pass, because nothing says the rule was verified.
func (st Status) effective() Status {
	if st.Known() {
		return st
	}
	return Error
}

// tally counts the checks' effective verdicts, so an unknown status counts as an
// error (Summary.Add would count it in Total only).
func tally(checks []CheckResult) Summary {
	var s Summary
	for _, c := range checks {
		s.Add(c.Status.effective())
	}
	return s
}

// tallyAll is tally over every column.
func (r *Report) tallyAll() Summary {
	var s Summary
	for _, rev := range r.Revisions {
		t := tally(rev.Checks)
		s.Total += t.Total
		s.Pass += t.Pass
		s.Warn += t.Warn
		s.Fail += t.Fail
		s.Skip += t.Skip
		s.Error += t.Error
		s.ExpectedFail += t.ExpectedFail
	}
	return s
}

// skipReason is c's skip reason for display: its own, or revision-unsupported in an
// unsupported column (where every check skips for that reason), or "" when unknown.
func skipReason(rev *RevisionReport, c *CheckResult) SkipReason {
	switch {
	case c.Reason != "":
		return c.Reason
	case rev.Unsupported:
		return RevisionUnsupported
	}
	return ""
}

// Gates reports whether the result fails the run: a fail or error of a check that is
// not quarantined. An expected-fail never gates; nor does a warn (--strict has
// already turned SHOULD warnings into fails).
func (c *CheckResult) Gates() bool {
	st := c.Status.effective()
	return (st == Fail || st == Error) && c.Quarantine == nil
}

// ServerName is a serverInfo's "name version" (either left out when absent), or "".
func ServerName(raw json.RawMessage) string {
	var info struct {
		Name    any `json:"name"`
		Version any `json:"version"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &info) != nil {
		return ""
	}
	var parts []string
	for _, v := range []any{info.Name, info.Version} {
		if v != nil {
			parts = append(parts, fmt.Sprint(v))
		}
	}
	return strings.Join(parts, " ")
}

// ColumnState says what came of asking the server for a revision, in the one set of
// words the console, matrix.md and report.html all use: "negotiated X";
// "unsupported (answered X)" when it answered another version; "unsupported" when
// era detection found it speaks the other era; "no session" when none opened.
func ColumnState(negotiated string, unsupported bool) string {
	switch {
	case negotiated == "" && unsupported:
		return "unsupported"
	case negotiated == "":
		return "no session"
	case unsupported:
		return "unsupported (answered " + negotiated + ")"
	}
	return "negotiated " + negotiated
}
