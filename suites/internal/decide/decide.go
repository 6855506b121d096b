// Package decide holds the pure decisions of the suites' judge functions: what a
// check decided (pass, note, a violation judged by the check's level, an explicit warn
// or fail, silence, skip, error) before it meets a *conform.T. Judge functions return
// a Decision, so that tables can test every outcome without a server; On turns it
// into the framework's verdict.
package decide

import (
	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Kind is the outcome a judge function decides on.
type Kind int

// Outcomes. violation is judged by the check's level (conform.T.Violation); warn and
// fail are explicit, whatever the level, for rows whose verdict policy names them.
const (
	KindPass Kind = iota
	KindNote
	KindViolation
	KindWarn
	KindFail
	KindSilent
	KindSkip
	KindError
)

// Decision is a check's decision before it meets a *conform.T.
type Decision struct {
	Kind     Kind
	Expected string // what the rule wants (violation, warn, fail, silent)
	Actual   string // the evidence; for pass, note, skip and error: the message
	Err      error  // for silent: why no reply came
	Reason   reports.SkipReason
}

func Pass(msg string) Decision { return Decision{Kind: KindPass, Actual: msg} }
func Note(msg string) Decision { return Decision{Kind: KindNote, Actual: msg} }
func Violation(expected, actual string) Decision {
	return Decision{Kind: KindViolation, Expected: expected, Actual: actual}
}
func Warn(expected, actual string) Decision {
	return Decision{Kind: KindWarn, Expected: expected, Actual: actual}
}
func Fail(expected, actual string) Decision {
	return Decision{Kind: KindFail, Expected: expected, Actual: actual}
}
func Silent(expected string, err error) Decision {
	return Decision{Kind: KindSilent, Expected: expected, Err: err}
}
func Skip(reason reports.SkipReason, msg string) Decision {
	return Decision{Kind: KindSkip, Reason: reason, Actual: msg}
}
func Broken(msg string) Decision { return Decision{Kind: KindError, Actual: msg} }

// On turns the decision into the framework's verdict for the check t runs.
func (v Decision) On(t *conform.T) conform.Verdict {
	switch v.Kind {
	case KindPass:
		return conform.Pass("%s", v.Actual)
	case KindNote:
		return conform.Note("%s", v.Actual)
	case KindViolation:
		return t.Violation(v.Expected, v.Actual)
	case KindWarn:
		return conform.Warn(v.Expected, v.Actual)
	case KindFail:
		return conform.Fail(v.Expected, v.Actual)
	case KindSilent:
		return t.Silent(v.Expected, v.Err)
	case KindSkip:
		return conform.Skip(v.Reason, "%s", v.Actual)
	default:
		return conform.Errorf("%s", v.Actual)
	}
}
