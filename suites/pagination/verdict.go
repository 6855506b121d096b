package pagination

import (
	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports"
)

// kind is the outcome a pure judge function decides on.
type kind int

// Outcomes. violation is judged by the check's level (conform.T.Violation); warn and
// fail are explicit, whatever the level, for rows whose verdict policy names them.
const (
	kPass kind = iota
	kNote
	kViolation
	kWarn
	kFail
	kSilent
	kSkip
	kError
)

// verdict is a check's decision before it meets a *conform.T: the judge functions of
// this package return it, so that tables can test every outcome without a server.
type verdict struct {
	kind     kind
	expected string // what the rule wants (violation, warn, fail, silent)
	actual   string // the evidence; for pass, note, skip and error: the message
	err      error  // for silent: why no reply came
	reason   reports.SkipReason
}

func pass(msg string) verdict { return verdict{kind: kPass, actual: msg} }
func note(msg string) verdict { return verdict{kind: kNote, actual: msg} }
func violation(expected, actual string) verdict {
	return verdict{kind: kViolation, expected: expected, actual: actual}
}
func warn(expected, actual string) verdict {
	return verdict{kind: kWarn, expected: expected, actual: actual}
}
func fail(expected, actual string) verdict {
	return verdict{kind: kFail, expected: expected, actual: actual}
}
func silent(expected string, err error) verdict {
	return verdict{kind: kSilent, expected: expected, err: err}
}
func skip(reason reports.SkipReason, msg string) verdict {
	return verdict{kind: kSkip, reason: reason, actual: msg}
}
func broken(msg string) verdict { return verdict{kind: kError, actual: msg} }

// on turns the decision into the framework's verdict for the check t runs.
func (v verdict) on(t *conform.T) conform.Verdict {
	switch v.kind {
	case kPass:
		return conform.Pass("%s", v.actual)
	case kNote:
		return conform.Note("%s", v.actual)
	case kViolation:
		return t.Violation(v.expected, v.actual)
	case kWarn:
		return conform.Warn(v.expected, v.actual)
	case kFail:
		return conform.Fail(v.expected, v.actual)
	case kSilent:
		return t.Silent(v.expected, v.err)
	case kSkip:
		return conform.Skip(v.reason, "%s", v.actual)
	default:
		return conform.Errorf("%s", v.actual)
	}
}
