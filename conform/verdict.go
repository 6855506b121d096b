package conform

import (
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/reports"
)

// Verdict is what a check found in one revision.
type Verdict struct {
	Status   reports.Status
	Reason   reports.SkipReason // set for Skip
	Message  string
	Expected string
	Actual   string
	// fromShould marks a warn that came from a SHOULD rule, which --strict turns into
	// a failure. Warnings for derived or descriptive rows stay warnings.
	fromShould bool
	// pending marks a verdict that only the check's level or context can settle
	// (Violation, Silence); err is the silence's cause.
	pending pending
	err     error
	// exchange is the transcript slice of a non-passing verdict (repro.go); deferred
	// holds it instead while the check's own sessions settle.
	exchange *reports.Exchange
	deferred *deferredEvidence
}

// pending is an outcome not yet turned into a status.
type pending int

const (
	settled   pending = iota
	violation         // a broken rule: the level decides fail or warn
	silence           // no reply: a violation, or error when nothing was verified
)

// Pass is a verdict that the rule holds; msg says what was seen (may be "").
func Pass(format string, args ...any) Verdict {
	return Verdict{Status: reports.Pass, Message: fmt.Sprintf(format, args...)}
}

// Note is a pass carrying an informational remark (for MAY, descriptive and derived
// rows, and for the accepted side of a spec ambiguity).
func Note(format string, args ...any) Verdict {
	return Verdict{Status: reports.Pass, Message: "note: " + fmt.Sprintf(format, args...)}
}

// Warn is an explicit warning, for rows whose verdict policy says WARN whatever the
// level (for instance another JSON-RPC error code than the expected one).
func Warn(expected, actual string) Verdict {
	return Verdict{Status: reports.Warn, Expected: expected, Actual: actual, Message: summarize(expected, actual)}
}

// Fail is an explicit failure, for outcomes the verdict policy fails whatever the
// row's level (its catalogue row's verdict basis says why). Prefer Violation.
func Fail(expected, actual string) Verdict {
	return Verdict{Status: reports.Fail, Expected: expected, Actual: actual, Message: summarize(expected, actual)}
}

// Skip is a check that could not be judged, with the reason.
func Skip(reason reports.SkipReason, format string, args ...any) Verdict {
	return Verdict{Status: reports.Skip, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Errorf is a verdict for a harness or transport fault: nothing was verified.
func Errorf(format string, args ...any) Verdict {
	return Verdict{Status: reports.Error, Message: fmt.Sprintf(format, args...)}
}

func summarize(expected, actual string) string {
	switch {
	case expected == "":
		return actual
	case actual == "":
		return "expected " + expected
	default:
		return fmt.Sprintf("expected %s; got %s", expected, actual)
	}
}

// Violation is a broken rule whose status the check's level in the revision under
// test decides: MUST → fail; SHOULD → warn (fail under --strict); MAY, descriptive
// and derived → warn, never fail. It is settled when the check returns (Resolve),
// so a judge function needs no *T to return it.
func Violation(expected, actual string) Verdict {
	return Verdict{pending: violation, Expected: expected, Actual: actual, Message: summarize(expected, actual)}
}

// Silence is a request that got no reply, where expected says what should have come;
// err is why no reply came. Settled when the check returns: no reply within the
// deadline or after a barrier is a Violation; a run that ended or a broken transport
// is an error (nothing was verified).
func Silence(expected string, err error) Verdict {
	return Verdict{pending: silence, Expected: expected, Actual: Describe(nil, err), Message: summarize(expected, Describe(nil, err)), err: err}
}

// Resolve settles a Violation or Silence by the check's level and context; any other
// verdict is returned as it is. Register wraps every check's Run with it, so the
// verdict policy (a violation of a MUST fails, of a SHOULD warns, of a MAY or a
// descriptive row notes) is applied here and nowhere else.
func (t *T) Resolve(v Verdict) Verdict {
	switch v.pending {
	case violation:
		return t.violation(v.Expected, v.Actual)
	case silence:
		return t.silent(v.Expected, v.err)
	}
	return v
}

// Outcome names what a verdict says before the level settles it, for tables that
// test judge functions without a server.
type Outcome string

// Outcomes.
const (
	OutcomePass      Outcome = "pass"
	OutcomeNote      Outcome = "note" // a pass with an informational remark
	OutcomeViolation Outcome = "violation"
	OutcomeSilence   Outcome = "silence"
	OutcomeWarn      Outcome = "warn"
	OutcomeFail      Outcome = "fail"
	OutcomeSkip      Outcome = "skip"
	OutcomeError     Outcome = "error"
)

// Outcome says what the verdict is: pending ones by their kind, settled ones by
// their status (a pass with a note is OutcomeNote).
func (v Verdict) Outcome() Outcome {
	switch {
	case v.pending == violation:
		return OutcomeViolation
	case v.pending == silence:
		return OutcomeSilence
	case v.Status == reports.Pass && strings.HasPrefix(v.Message, "note: "):
		return OutcomeNote
	case v.Status == "":
		return OutcomeError
	}
	return Outcome(v.Status)
}

// violation is a broken rule, judged by the check's level in the current revision:
// MUST → fail; SHOULD → warn (fail under --strict); MAY, descriptive, derived → warn
// (never fail).
func (t *T) violation(expected, actual string) Verdict {
	v := Verdict{Expected: expected, Actual: actual, Message: summarize(expected, actual)}
	switch t.Check.LevelAt(t.Rev) {
	case Must:
		v.Status = reports.Fail
	case Should:
		v.Status = reports.Warn
		v.fromShould = true
	default:
		v.Status = reports.Warn
	}
	return v
}

// final applies --strict and normalises the verdict for the report.
func (v Verdict) final(strict bool) Verdict {
	if strict && v.Status == reports.Warn && v.fromShould {
		v.Status = reports.Fail
		v.Message = "strict: " + v.Message
	}
	if v.Status == reports.Skip && v.Reason == "" {
		v.Reason = reports.NotApplicable
	}
	if v.Status == "" {
		v = Errorf("check returned no verdict")
	}
	return v
}

// SkipReason says why a check was skipped (reports.SkipReason): a check names one
// with Skip or T.SkipNow.
type SkipReason = reports.SkipReason

// The skip reasons a check gives.
const (
	NotApplicable       = reports.NotApplicable       // the rule does not bind this server here
	RevisionUnsupported = reports.RevisionUnsupported // the server does not speak the revision
	MissingFixture      = reports.NeedsFixture        // a fixture tool of the contract is missing (needs-fixture)
	CallsNotAllowed     = reports.CallsNotAllowed     // the operator allowed no tool to call
	NotExercised        = reports.NotExercised        // nothing in the run exercised the rule
)
