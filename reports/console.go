package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// ANSI SGR sequences, used only when Console.Color is set.
const (
	ansiReset   = "\x1b[0m"
	ansiBold    = "\x1b[1m"
	ansiRed     = "\x1b[31m"
	ansiGreen   = "\x1b[32m"
	ansiYellow  = "\x1b[33m"
	ansiMagenta = "\x1b[35m"
	ansiGray    = "\x1b[90m"
)

// detailIndent indents a check's detail lines under its ID.
const detailIndent = "        "

// Console reports a run live on a terminal or log: a header, a heading per revision,
// a line per check as it finishes, and a summary at the end. Its methods are safe for
// concurrent use, and each call writes its lines in one piece, so lines from checks
// finishing at the same time never interleave. Text from the server is stripped of
// control characters, so a reply cannot drive the terminal. Write errors are ignored:
// the console is best-effort and the files carry the report. A Console must not be
// copied after first use.
type Console struct {
	// W receives the output; nil discards it.
	W io.Writer
	// Color enables ANSI colours.
	Color bool
	// Verbose shows pass messages, durations and, for failures, the requirement.
	Verbose bool

	mu sync.Mutex
}

// paint wraps s in an ANSI colour when colours are on.
func (c *Console) paint(color, s string) string {
	if !c.Color || s == "" {
		return s
	}
	return color + s + ansiReset
}

// emit writes b in one call under the lock.
func (c *Console) emit(b *bytes.Buffer) {
	if c.W == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.W.Write(b.Bytes())
}

// RunStart prints the run's header line, naming the target and the revisions, then
// the notes (for instance that the bundled reference server stands in for a missing
// --target).
func (c *Console) RunStart(target string, revisions []string, notes []string) {
	var b bytes.Buffer
	revs := make([]string, len(revisions))
	for i, r := range revisions {
		revs[i] = oneLine(termText(r))
	}
	fmt.Fprintf(&b, "%s %s at %s\n", c.paint(ansiBold, "mcp-conform: testing"),
		oneLine(termText(target)), strings.Join(revs, ", "))
	for _, n := range notes {
		fmt.Fprintf(&b, "  note: %s\n", indentRest(termText(n), "        "))
	}
	c.emit(&b)
}

// RevisionStart prints the heading of one revision's column: the revision, what the
// server negotiated ("" when no session could be opened), and the transport. When
// the server answered another version, the heading says the revision is unsupported.
func (c *Console) RevisionStart(rev, negotiated, transport string) {
	rev, negotiated = oneLine(termText(rev)), oneLine(termText(negotiated))
	var state string
	switch {
	case negotiated == "":
		state = c.paint(ansiRed, "no session")
	case negotiated != rev:
		state = c.paint(ansiYellow, "unsupported: the server answered "+negotiated+"; every check skips")
	default:
		state = "negotiated " + negotiated
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n%s  %s", c.paint(ansiBold, "▶ "+rev), state)
	if t := oneLine(termText(transport)); t != "" {
		fmt.Fprintf(&b, "  (%s)", t)
	}
	b.WriteString("\n")
	c.emit(&b)
}

// tag is a status's fixed-width console tag, coloured when colours are on.
func (c *Console) tag(st Status) string {
	switch st.effective() {
	case Pass:
		return c.paint(ansiGreen, "PASS")
	case Warn:
		return c.paint(ansiYellow, "WARN")
	case Fail:
		return c.paint(ansiRed, "FAIL")
	case Skip:
		return c.paint(ansiGray, "SKIP")
	case ExpectedFail:
		return c.paint(ansiYellow, "XFAIL")
	}
	return c.paint(ansiMagenta, "ERR ")
}

// CheckDone prints one finished check: its status tag, ID and title, and for
// anything but a pass the message on the following lines; a fail or warn also shows
// what was expected and what came back, and a skip its reason. Every check gets a
// line, so progress shows; Verbose adds pass messages, durations and requirements.
func (c *Console) CheckDone(rev string, r CheckResult) {
	st := r.Status.effective()
	var b bytes.Buffer
	fmt.Fprintf(&b, "  %s  %s", c.tag(r.Status), oneLine(termText(r.ID)))
	if t := oneLine(termText(r.Title)); t != "" {
		fmt.Fprintf(&b, "  %s", t)
	}
	if st == Skip {
		if r.Reason != "" {
			fmt.Fprintf(&b, "  (%s)", c.paint(ansiGray, oneLine(termText(string(r.Reason)))))
		}
	}
	if c.Verbose && r.Duration > 0 {
		fmt.Fprintf(&b, "  %s", c.paint(ansiGray, r.Duration.Round(time.Millisecond).String()))
	}
	b.WriteString("\n")
	msg := r.Message
	if !r.Status.Known() {
		msg = strings.TrimSpace(fmt.Sprintf("unknown status %q: %s", r.Status, msg))
	}
	detailed := st == Fail || st == Warn || st == ExpectedFail || (c.Verbose && st == Error)
	// A finding's message is usually "expected …; got …": then the two labelled
	// halves below say it all, and the message is not repeated.
	if (st != Pass || c.Verbose) && !(detailed && msg == "expected "+r.Expected+"; got "+r.Actual) {
		writeDetail(&b, "", msg)
	}
	if detailed {
		writeDetail(&b, "expected: ", r.Expected)
		writeDetail(&b, "actual:   ", r.Actual)
	}
	if c.Verbose && st != Pass && st != Skip {
		writeDetail(&b, "requirement: ", r.Source)
	}
	writeGateMarks(&b, &r)
	c.emit(&b)
}

// writeGateMarks says how the baseline judged a verdict: an expected-fail's real
// verdict and reason, a quarantined check's reason.
func writeGateMarks(b *bytes.Buffer, r *CheckResult) {
	if r.Baseline != nil {
		writeDetail(b, "baseline: ", fmt.Sprintf("a known %s, accepted: %s", r.Baseline.Status, r.Baseline.Reason))
	}
	if r.Quarantine != nil {
		writeDetail(b, "quarantined: ", "reported, never fails the run: "+r.Quarantine.Reason)
	}
}

// writeDetail writes an indented, labelled detail line when text is not empty.
func writeDetail(b *bytes.Buffer, label, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	fmt.Fprintf(b, "%s%s%s\n", detailIndent, label, indentRest(termText(strings.TrimRight(text, "\n")), detailIndent+"  "))
}

// indentRest indents every line of s but the first.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}

// Summary prints the end of the run: a per-revision table of verdict counts; the
// failures and errors, each with its revision, ID, title, requirement, and what was
// expected and what came back; the warnings in brief; the paths of the reports
// written; and a final result line with r.ExitCode.
func (c *Console) Summary(r *Report, paths []string) {
	if r == nil {
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n%s\n", c.paint(ansiBold, "Summary"))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  revision\tnegotiated\tpass\twarn\tfail\tskip\terror")
	for i := range r.Revisions {
		rev := &r.Revisions[i]
		s := tally(rev.Checks)
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%d\n", oneLine(termText(rev.Revision)),
			consoleState(rev), s.Pass, s.Warn, s.Fail, s.Skip, s.Error)
	}
	all := r.tallyAll()
	fmt.Fprintf(tw, "  total\t\t%d\t%d\t%d\t%d\t%d\n", all.Pass, all.Warn, all.Fail, all.Skip, all.Error)
	_ = tw.Flush() // writes to a bytes.Buffer cannot fail

	c.writeFindings(&b, r, all)
	quarantined := c.writeBaseline(&b, r)

	if len(paths) > 0 {
		fmt.Fprintf(&b, "\n%s\n", c.paint(ansiBold, "Reports"))
		for _, p := range paths {
			fmt.Fprintf(&b, "  %s\n", oneLine(termText(p)))
		}
	}
	gate := all // quarantined verdicts do not decide the result
	gate.Fail -= quarantined.Fail
	gate.Error -= quarantined.Error
	word, color, counts := resultLine(gate, r.ExitCode)
	if r.Baseline != nil && len(r.Baseline.Stale) > 0 {
		stale := fmt.Sprintf("%d stale baseline entries", len(r.Baseline.Stale))
		if len(r.Baseline.Stale) == 1 {
			stale = "1 stale baseline entry"
		}
		if counts == "no checks" {
			counts = stale
		} else {
			counts = stale + ", " + counts
		}
	}
	fmt.Fprintf(&b, "\n%s %s (%s) — exit %d\n", c.paint(ansiBold, "result:"), c.paint(color, word), counts, r.ExitCode)
	c.emit(&b)
}

// writeFindings writes the Failures section (fails and errors in full) and the
// Warnings section (one line each).
func (c *Console) writeFindings(b *bytes.Buffer, r *Report, all Summary) {
	if n := all.Fail + all.Error; n > 0 {
		fmt.Fprintf(b, "\n%s\n", c.paint(ansiBold, fmt.Sprintf("Failures (%d)", n)))
		for i := range r.Revisions {
			rev := &r.Revisions[i]
			for j := range rev.Checks {
				ch := &rev.Checks[j]
				st := ch.Status.effective()
				if st != Fail && st != Error {
					continue
				}
				fmt.Fprintf(b, "  %s  %s  %s  %s\n", c.tag(ch.Status), oneLine(termText(rev.Revision)),
					oneLine(termText(ch.ID)), oneLine(termText(ch.Title)))
				msg := ch.Message
				if !ch.Status.Known() {
					msg = strings.TrimSpace(fmt.Sprintf("unknown status %q: %s", ch.Status, msg))
				}
				writeDetail(b, "", msg)
				writeDetail(b, "requirement: ", ch.Source)
				writeDetail(b, "expected: ", ch.Expected)
				writeDetail(b, "actual:   ", ch.Actual)
				writeGateMarks(b, ch)
			}
		}
	}
	if all.Warn > 0 {
		fmt.Fprintf(b, "\n%s\n", c.paint(ansiBold, fmt.Sprintf("Warnings (%d)", all.Warn)))
		for i := range r.Revisions {
			rev := &r.Revisions[i]
			for j := range rev.Checks {
				ch := &rev.Checks[j]
				if ch.Status != Warn {
					continue
				}
				fmt.Fprintf(b, "  %s  %s  %s  %s\n", c.tag(Warn), oneLine(termText(rev.Revision)),
					oneLine(termText(ch.ID)), oneLine(termText(ch.Title)))
				writeDetail(b, "", ch.Message)
			}
		}
	}
}

// consoleState is the negotiated column of the console summary.
func consoleState(rev *RevisionReport) string {
	n := oneLine(termText(rev.Negotiated))
	switch {
	case n == "":
		return "no session"
	case rev.Unsupported:
		return "unsupported (answered " + n + ")"
	}
	return n
}

// resultLine returns the verdict word of the final line, its colour and the counts
// that explain it. Failures and errors decide first; a nonzero exit code with
// neither is still a failure; a run where every check skipped verified nothing.
func resultLine(s Summary, exit int) (word, color, counts string) {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	switch {
	case s.Fail > 0 || s.Error > 0 || exit != 0:
		word, color = "FAIL", ansiRed
		if s.Fail == 0 && s.Error > 0 {
			word = "ERROR"
		}
		add(s.Fail, "failed", "failed")
		add(s.Error, "error", "errors")
		add(s.Warn, "warning", "warnings")
		add(s.ExpectedFail, "expected-fail", "expected-fail")
	case s.Pass+s.Warn+s.ExpectedFail == 0:
		word, color = "NOTHING VERIFIED", ansiYellow
		add(s.Skip, "skipped", "skipped")
	default:
		word, color = "PASS", ansiGreen
		add(s.Pass, "passed", "passed")
		add(s.Warn, "warning", "warnings")
		add(s.ExpectedFail, "expected-fail", "expected-fail")
		add(s.Skip, "skipped", "skipped")
	}
	if len(parts) == 0 {
		parts = append(parts, "no checks")
	}
	return word, color, strings.Join(parts, ", ")
}

// writeBaseline writes the Baseline section of a run with a baseline: the verdicts it
// accepted (expected-fail), the quarantined checks, and every stale entry, which fails
// the run. It returns the tally of the quarantined verdicts.
func (c *Console) writeBaseline(b *bytes.Buffer, r *Report) (quarantined Summary) {
	if r.Baseline == nil {
		return quarantined
	}
	bl := r.Baseline
	fmt.Fprintf(b, "\n%s\n", c.paint(ansiBold, fmt.Sprintf("Baseline %s: %d expected-fail, %d quarantined, %d stale",
		oneLine(termText(bl.File)), bl.ExpectedFail, bl.Quarantined, len(bl.Stale))))
	for i := range r.Revisions {
		rev := &r.Revisions[i]
		for j := range rev.Checks {
			ch := &rev.Checks[j]
			if ch.Quarantine != nil {
				quarantined.Add(ch.Status.effective())
			}
			if ch.Status != ExpectedFail && ch.Quarantine == nil {
				continue
			}
			fmt.Fprintf(b, "  %s  %s  %s  %s\n", c.tag(ch.Status), oneLine(termText(rev.Revision)),
				oneLine(termText(ch.ID)), oneLine(termText(ch.Title)))
			writeGateMarks(b, ch)
		}
	}
	for _, st := range bl.Stale {
		revs := "all revisions"
		if len(st.Revisions) > 0 {
			revs = strings.Join(st.Revisions, ", ")
		}
		fmt.Fprintf(b, "  %s  stale entry %s (%s), line %d\n", c.paint(ansiRed, "STALE"), oneLine(termText(st.ID)), oneLine(termText(revs)), st.Line)
		writeDetail(b, "", st.Problem)
		writeDetail(b, "reason was: ", st.Reason)
	}
	return quarantined
}
