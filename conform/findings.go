package conform

import (
	"fmt"
	"slices"
	"strings"
)

// Findings collects what a check found across many subjects (every block, every
// result, every tool, every message), by severity, and turns them into one verdict:
// the one way checks gather evidence (a test in suites/ refuses hand-joined lists).
// A finding recorded twice is kept once.
type Findings struct {
	fails, warns, notes []string
	// Judged counts the subjects looked at, for the pass message.
	Judged int
}

// Fail records violations of the check's rule (its level decides fail or warn).
func (f *Findings) Fail(s ...string) { f.fails = appendNew(f.fails, s) }

// Warn records explicit warnings, whatever the level.
func (f *Findings) Warn(s ...string) { f.warns = appendNew(f.warns, s) }

// Note records informational remarks for the pass.
func (f *Findings) Note(s ...string) { f.notes = appendNew(f.notes, s) }

func appendNew(list, items []string) []string {
	for _, s := range items {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

// Fails, Warns and Notes return what was recorded.
func (f *Findings) Fails() []string { return f.fails }
func (f *Findings) Warns() []string { return f.warns }
func (f *Findings) Notes() []string { return f.notes }

// Failed and Warned report whether a violation or a warning was recorded.
func (f *Findings) Failed() bool { return len(f.fails) > 0 }
func (f *Findings) Warned() bool { return len(f.warns) > 0 }

// Count is how many violations and warnings were recorded.
func (f *Findings) Count() int { return len(f.fails) + len(f.warns) }

// Violation is the broken rule want, with the violations as evidence (and any
// warnings after them); the check's level settles it (see Violation).
func (f *Findings) Violation(want string) Verdict {
	actual := JoinAtMost(f.fails, 5)
	if len(f.warns) > 0 {
		actual += "; also: " + JoinAtMost(f.warns, 3)
	}
	return Violation(want, actual)
}

// Failure is an explicit failure of want whatever the level (the verdict policy's
// fixed decisions), with the violations as evidence.
func (f *Findings) Failure(want string) Verdict { return Fail(want, JoinAtMost(f.fails, 5)) }

// FailAsWarning is an explicit warning about want with the violations as evidence,
// for a rule the revision under test makes a SHOULD where it is otherwise a MUST.
func (f *Findings) FailAsWarning(want string) Verdict { return Warn(want, JoinAtMost(f.fails, 5)) }

// Warning is an explicit warning about want, with the warnings as evidence.
func (f *Findings) Warning(want string) Verdict { return Warn(want, JoinAtMost(f.warns, 5)) }

// VerdictOrNone is a transcript check's verdict: not exercised, for the reason none,
// when nothing was judged; else Verdict(want, "", pass).
func (f *Findings) VerdictOrNone(none, want, pass string) Verdict {
	if f.Judged == 0 {
		return Skip(NotExercised, "%s", none)
	}
	return f.Verdict(want, "", pass)
}

// Verdict is a Violation of failWant for fails (any warns are appended), an explicit
// Warn of warnWant for warns, otherwise a pass with passMsg (and the notes).
func (f *Findings) Verdict(failWant, warnWant, passMsg string) Verdict {
	switch {
	case len(f.fails) > 0:
		return f.Violation(failWant)
	case len(f.warns) > 0:
		return f.Warning(warnWant)
	case len(f.notes) > 0:
		return Note("%s; %s", passMsg, JoinAtMost(f.notes, 5))
	}
	return Pass("%s", passMsg)
}

// JoinAtMost joins findings for a message, at most n of them, and says how many
// more there were.
func JoinAtMost(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:n], "; ") + fmt.Sprintf("; … and %d more", len(items)-n)
}
