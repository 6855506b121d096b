package conform

import (
	"fmt"
	"strings"
)

// Findings collects what a check found across many subjects (every block, every
// result, every tool), by severity, and turns them into one verdict. Checks that
// judge lists end here rather than assembling their own.
type Findings struct {
	fails, warns, notes []string
	// Judged counts the subjects looked at, for the pass message.
	Judged int
}

// Fail records a violation of the check's rule (its level decides fail or warn).
func (f *Findings) Fail(s string) { f.fails = append(f.fails, s) }

// Warn records an explicit warning, whatever the level.
func (f *Findings) Warn(s string) { f.warns = append(f.warns, s) }

// Note records an informational remark for the pass.
func (f *Findings) Note(s string) { f.notes = append(f.notes, s) }

// Fails, Warns and Notes return what was recorded.
func (f *Findings) Fails() []string { return f.fails }
func (f *Findings) Warns() []string { return f.warns }
func (f *Findings) Notes() []string { return f.notes }

// Verdict is a Violation of failWant for fails (any warns are appended), an explicit
// Warn of warnWant for warns, otherwise a pass with passMsg (and the notes).
func (f *Findings) Verdict(failWant, warnWant, passMsg string) Verdict {
	switch {
	case len(f.fails) > 0:
		actual := JoinAtMost(f.fails, 5)
		if len(f.warns) > 0 {
			actual += "; also: " + JoinAtMost(f.warns, 3)
		}
		return Violation(failWant, actual)
	case len(f.warns) > 0:
		return Warn(warnWant, JoinAtMost(f.warns, 5))
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
