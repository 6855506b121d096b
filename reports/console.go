package reports

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
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

// The exit codes the console words specially (conform's, repeated here because
// reports does not import conform).
const (
	exitIncomplete  = 3
	exitUnreachable = 4
	// ExitInterrupted is the exit code of a run broken off by SIGINT or SIGTERM
	// (Ctrl-C): 128 + SIGINT, as shells report it, distinct from a failed check.
	ExitInterrupted = 130
)

// Console reports a run on a terminal or log. By default it shows a header, one line
// per revision as it starts and ends (or, when Live, a progress line per revision
// redrawn in place), then a summary: each failure and warning once (repeats across
// revisions said once, with the revisions listed), identical errors as one line,
// skip reasons grouped once per run, a table of verdicts per revision, the notes and
// the result line with the exit code. Verbose adds a line per check as it finishes;
// Quiet keeps only the table and the result line. Its methods are safe for
// concurrent use, and each call writes its lines in one piece. Text from the server
// is stripped of control characters, so a reply cannot drive the terminal, and no
// escape sequence is written unless Color or Live is set. Write errors are ignored:
// the console is best-effort and the files carry the report. A Console must not be
// copied after first use.
type Console struct {
	// W receives the output; nil discards it.
	W io.Writer
	// Color enables ANSI colours.
	Color bool
	// Verbose shows every check as it finishes, with pass messages and durations.
	Verbose bool
	// Quiet shows only the summary table, the notes and the result line.
	Quiet bool
	// Live redraws a progress line per revision in place (W is a terminal). It is
	// ignored when Verbose or Quiet.
	Live bool
	// StderrTail is the end of the server's stderr, shown once under the cause when
	// the target could not be reached.
	StderrTail string

	mu       sync.Mutex
	cols     []*colProgress
	shown    map[string]bool // notes already printed
	drawn    int             // lines of the live block on screen
	lastDraw time.Time
}

// colProgress is one revision's progress.
type colProgress struct {
	rev, state       string
	done, total      int
	fail, warn, errs int
	current          string
	finished         bool
}

// live reports whether the progress block is redrawn in place.
func (c *Console) live() bool { return c.Live && !c.Verbose && !c.Quiet }

// col returns rev's progress, adding it when new. Call with c.mu held.
func (c *Console) col(rev string) *colProgress {
	for _, p := range c.cols {
		if p.rev == rev {
			return p
		}
	}
	p := &colProgress{rev: rev, state: "waiting"}
	c.cols = append(c.cols, p)
	return p
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
	c.write(b.Bytes())
}

// write writes p, keeping the live block below it. Call with c.mu held.
func (c *Console) write(p []byte) {
	if c.W == nil || len(p) == 0 {
		return
	}
	if c.live() && c.drawn > 0 {
		c.clearBlock()
		_, _ = c.W.Write(p)
		c.drawBlock()
		return
	}
	_, _ = c.W.Write(p)
}

// clearBlock moves the cursor to the top of the live block and clears to the end of
// the screen. Call with c.mu held.
func (c *Console) clearBlock() {
	if c.drawn > 0 {
		_, _ = fmt.Fprintf(c.W, "\x1b[%dF\x1b[J", c.drawn)
		c.drawn = 0
	}
}

// drawBlock writes the live block: a line per revision. Call with c.mu held.
func (c *Console) drawBlock() {
	var b bytes.Buffer
	for _, p := range c.cols {
		b.WriteString(c.progressLine(p))
		b.WriteString("\n")
	}
	_, _ = c.W.Write(b.Bytes())
	c.drawn = len(c.cols)
	c.lastDraw = time.Now()
}

// redraw replaces the live block, at most every 100 ms unless force.
func (c *Console) redraw(force bool) {
	if !c.live() || c.W == nil || (!force && time.Since(c.lastDraw) < 100*time.Millisecond) {
		return
	}
	c.clearBlock()
	c.drawBlock()
}

// progressLine is one revision's progress: state, checks done of total, and the
// check running now or the counts of findings.
func (c *Console) progressLine(p *colProgress) string {
	total := "?"
	if p.total > 0 {
		total = fmt.Sprint(p.total)
	}
	line := fmt.Sprintf("  %s  %-30s %4d/%s", c.paint(ansiBold, p.rev), truncate(p.state, 30), p.done, total)
	if p.fail+p.errs+p.warn > 0 {
		line += "  " + c.findingCounts(p)
	}
	if !p.finished && p.current != "" {
		line += "  " + c.paint(ansiGray, truncate(p.current, 40))
	}
	return line
}

// findingCounts says "1 fail, 2 warn, 3 error", leaving out zeros.
func (c *Console) findingCounts(p *colProgress) string {
	var parts []string
	if p.fail > 0 {
		parts = append(parts, c.paint(ansiRed, fmt.Sprintf("%d fail", p.fail)))
	}
	if p.errs > 0 {
		parts = append(parts, c.paint(ansiMagenta, fmt.Sprintf("%d error", p.errs)))
	}
	if p.warn > 0 {
		parts = append(parts, c.paint(ansiYellow, fmt.Sprintf("%d warn", p.warn)))
	}
	return strings.Join(parts, ", ")
}

// RunStart prints the run's header line, naming the target and the revisions, then
// the notes (for instance that the bundled reference server stands in for a missing
// --target).
func (c *Console) RunStart(target string, revisions []string, notes []string) {
	c.mu.Lock()
	if c.shown == nil {
		c.shown = map[string]bool{}
	}
	for _, r := range revisions {
		c.col(oneLine(termText(r)))
	}
	if c.Quiet {
		c.mu.Unlock()
		return
	}
	for _, n := range notes {
		c.shown[n] = true
	}
	c.mu.Unlock()
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

// Plan tells the console how many checks rev will run, for its progress.
func (c *Console) Plan(rev string, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.col(oneLine(termText(rev))).total = total
}

// RevisionStart prints the heading of one revision's column: the revision, what the
// server negotiated ("" when no session could be opened), and the transport, in the
// words of ColumnState. unsupported says era detection found the server speaks the
// other era; a server that answered another version is unsupported too.
func (c *Console) RevisionStart(rev, negotiated, transport string, unsupported bool) {
	rev, negotiated = oneLine(termText(rev)), oneLine(termText(negotiated))
	plain := ColumnState(negotiated, unsupported || (negotiated != "" && negotiated != rev))
	state := plain
	switch {
	case plain == "no session":
		state = c.paint(ansiRed, plain)
	case strings.HasPrefix(plain, "unsupported"):
		plain += "; every check skips"
		state = c.paint(ansiYellow, plain)
	}
	t := oneLine(termText(transport))
	c.mu.Lock()
	p := c.col(rev)
	p.state = plain
	if t != "" {
		p.state += " (" + t + ")"
	}
	if c.live() {
		c.redraw(true)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	if c.Quiet {
		return
	}
	var b bytes.Buffer
	if c.Verbose {
		b.WriteString("\n") // a blank line between the columns' check lists
	}
	fmt.Fprintf(&b, "%s  %s", c.paint(ansiBold, "▶ "+rev), state)
	if t != "" {
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

// CheckDone records one finished check. Verbose prints it: its status tag, ID and
// title, and for anything but a pass the message on the following lines (a fail or
// warn also what was expected and what came back, a skip its reason), with pass
// messages and durations. Otherwise it advances the revision's progress: the live
// line, or, on a plain stream, one line when the revision's last check is done.
func (c *Console) CheckDone(rev string, r CheckResult) {
	rev = oneLine(termText(rev))
	st := r.Status.effective()
	c.mu.Lock()
	p := c.col(rev)
	p.done++
	p.current = oneLine(termText(r.ID))
	switch st {
	case Fail:
		p.fail++
	case Warn:
		p.warn++
	case Error:
		p.errs++
	}
	finished := !p.finished && p.total > 0 && p.done >= p.total
	if finished {
		p.finished = true
	}
	switch {
	case c.Verbose || c.Quiet:
	case c.live():
		c.redraw(finished)
	case finished:
		line := fmt.Sprintf("  %s  %d/%d checks done", rev, p.done, p.total)
		if f := c.findingCounts(p); f != "" {
			line += ": " + f
		}
		c.write([]byte(line + "\n"))
	}
	c.mu.Unlock()
	if !c.Verbose {
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "  %s  %s", c.tag(r.Status), oneLine(termText(r.ID)))
	if t := oneLine(termText(r.Title)); t != "" {
		fmt.Fprintf(&b, "  %s", t)
	}
	if st == Skip && r.Reason != "" {
		fmt.Fprintf(&b, "  (%s)", c.paint(ansiGray, oneLine(termText(string(r.Reason)))))
	}
	if r.Duration > 0 {
		fmt.Fprintf(&b, "  %s", c.paint(ansiGray, r.Duration.Round(time.Millisecond).String()))
	}
	b.WriteString("\n")
	msg := displayMessage(&r)
	if st == Skip {
		msg = strings.TrimPrefix(msg, string(r.Reason)+": ")
	}
	detailed := st == Fail || st == Warn || st == Error || st == ExpectedFail
	if !(detailed && redundant(&r, msg)) {
		writeDetail(&b, "", msg)
	}
	if detailed {
		writeDetail(&b, "expected: ", r.Expected)
		writeDetail(&b, "actual:   ", r.Actual)
	}
	if st != Pass && st != Skip {
		writeDetail(&b, "requirement: ", r.Source)
		writeDetail(&b, "repro: ", r.Repro)
	}
	writeGateMarks(&b, &r)
	c.emit(&b)
}

// displayMessage is r's message, saying so when its status is unknown.
func displayMessage(r *CheckResult) string {
	if !r.Status.Known() {
		return strings.TrimSpace(fmt.Sprintf("unknown status %q: %s", r.Status, r.Message))
	}
	return r.Message
}

// redundant reports whether msg only says what the expected and actual lines say.
func redundant(r *CheckResult, msg string) bool {
	return r.Expected != "" && msg == "expected "+r.Expected+"; got "+r.Actual
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

// Summary prints the end of the run. When the target could not be reached, it says
// the cause once with the server's stderr tail, and nothing per check. Otherwise:
// the failures and warnings, each once; errors with the same cause as one line; the
// skip reasons, grouped; a table of verdict counts per revision; the notes not shown
// yet; where the reports are; and a final result line with r.ExitCode. Quiet keeps
// the table, the notes and the result line; Verbose lists every report file.
func (c *Console) Summary(r *Report, paths []string) {
	if r == nil {
		return
	}
	c.mu.Lock()
	if c.live() && c.W != nil {
		// The final state of every column stays on screen, above the summary.
		for _, p := range c.cols {
			p.finished = true
		}
		c.clearBlock()
		c.drawBlock()
		c.drawn = 0
	}
	shown := c.shown
	c.mu.Unlock()
	all := r.tallyAll()
	var b bytes.Buffer
	var quarantined Summary // quarantined verdicts do not decide the result
	switch {
	case r.ExitCode == exitUnreachable:
		c.writeUnreachable(&b, r, all)
	case all.Total == 0:
		// Nothing ran: the notes say why, and a table of zeros would say nothing.
	default:
		if !c.Quiet {
			c.writeFindings(&b, r)
			c.writeSkips(&b, r)
		}
		// Accepted and quarantined verdicts, and every stale entry, also under
		// Quiet: a stale entry is why such a run fails.
		quarantined = c.writeBaseline(&b, r)
		c.writeTable(&b, r, all)
	}
	var notes []string
	for _, n := range r.Notes {
		if !shown[n] && !(r.ExitCode == exitUnreachable && strings.HasPrefix(n, unreachablePrefix)) {
			notes = append(notes, n)
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "%s %s\n", c.paint(ansiBold, "note:"), indentRest(termText(n), "      "))
		}
	}
	if len(paths) > 0 && !c.Quiet {
		c.writePaths(&b, paths)
	}
	gate := all
	gate.Fail -= quarantined.Fail
	gate.Error -= quarantined.Error
	word, color, counts := resultLine(gate, r.ExitCode)
	if r.ExitCode != 0 && r.ExitCode != ExitInterrupted && slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, targetDiedPrefix) }) {
		// The checks' tally alone would not say why a run they did not fail fails.
		if counts == "no checks" {
			counts = targetDiedPrefix
		} else {
			counts = targetDiedPrefix + ", " + counts
		}
	}
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

// unreachablePrefix starts the note a run records when the target could not be
// reached.
const unreachablePrefix = "the target could not be reached"

// targetDiedPrefix starts the note a run records when the command it launched for
// an HTTP target ended by itself before the run stopped it (conform's
// targetDiedPrefix): the result line says so.
const targetDiedPrefix = "the target died during the run"

// stderrTailLines bounds the server's stderr shown on the console.
const stderrTailLines = 8

// writeUnreachable says once why nothing ran: the cause and the server's last
// stderr lines.
func (c *Console) writeUnreachable(b *bytes.Buffer, r *Report, all Summary) {
	cause := unreachablePrefix
	for _, n := range r.Notes {
		if strings.HasPrefix(n, unreachablePrefix) {
			cause = n
			break
		}
	}
	fmt.Fprintf(b, "\n%s %s\n", c.paint(ansiRed, "✗"), truncate(oneLine(termText(cause)), 600))
	if tail := tailLines(termText(c.StderrTail), stderrTailLines); len(tail) > 0 {
		b.WriteString("  the server's stderr ends:\n")
		for _, l := range tail {
			fmt.Fprintf(b, "    %s\n", truncate(l, 200))
		}
	}
	fmt.Fprintf(b, "  %d checks in %d revisions could not run; nothing was verified.\n", all.Total, len(r.Revisions))
}

// errorWord finds the line of a stderr that most likely states the cause.
var errorWord = regexp.MustCompile(`(?i)error|fatal|panic|exception|cannot|not found|denied`)

// tailLines returns the last n non-blank lines of s. When the last line naming an
// error lies above them (a stack trace after the message), that line comes first,
// then "…", then the last lines, n in all.
func tailLines(s string, n int) []string {
	var lines []string
	for l := range strings.Lines(s) {
		if l = strings.TrimRight(l, " \t\r\n"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) <= n {
		return lines
	}
	cause := -1
	for i, l := range lines {
		if errorWord.MatchString(l) {
			cause = i
		}
	}
	if cause < 0 || cause >= len(lines)-n || n < 3 {
		return lines[len(lines)-n:]
	}
	return append([]string{lines[cause], "…"}, lines[len(lines)-(n-2):]...)
}

// writeTable writes the verdict counts per revision and in all.
func (c *Console) writeTable(b *bytes.Buffer, r *Report, all Summary) {
	fmt.Fprintf(b, "\n%s\n", c.paint(ansiBold, "Summary"))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  revision\tnegotiated\ttransport\tpass\twarn\tfail\tskip\terror")
	for i := range r.Revisions {
		rev := &r.Revisions[i]
		s := tally(rev.Checks)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\n", oneLine(termText(rev.Revision)),
			consoleState(rev), orDash(oneLine(termText(rev.Transport))), s.Pass, s.Warn, s.Fail, s.Skip, s.Error)
	}
	fmt.Fprintf(tw, "  total\t\t\t%d\t%d\t%d\t%d\t%d\n", all.Pass, all.Warn, all.Fail, all.Skip, all.Error)
	_ = tw.Flush() // writes to a bytes.Buffer cannot fail
}

// writePaths says where the reports are: the directory and the reports, how many
// badges, and how many attachments beside them (Verbose: every path).
func (c *Console) writePaths(b *bytes.Buffer, paths []string) {
	if c.Verbose {
		fmt.Fprintf(b, "\n%s\n", c.paint(ansiBold, "Reports"))
		for _, p := range paths {
			fmt.Fprintf(b, "  %s\n", oneLine(termText(p)))
		}
		return
	}
	var main []string
	badges := 0
	for _, p := range paths {
		if base := filepath.Base(p); base == JUnitFile || base == JSONFile || base == MatrixFile || base == HTMLFile {
			main = append(main, base)
		} else if filepath.Base(filepath.Dir(p)) == BadgeDir {
			badges++
		}
	}
	extra := len(paths) - len(main) - badges
	if badges > 0 {
		main = append(main, countOf(badges, "badge", "badges")+" in "+BadgeDir+string(filepath.Separator))
	}
	line := "reports: " + oneLine(termText(filepath.Dir(paths[0]))) + string(filepath.Separator)
	if len(main) > 0 {
		line += " (" + strings.Join(main, ", ")
		if extra > 0 {
			line += fmt.Sprintf(", and %d transcripts and logs", extra)
		}
		line += ")"
	}
	fmt.Fprintf(b, "\n%s\n", line)
}

// finding is one failure, warning or error, with the revisions it occurred in.
type finding struct {
	check *CheckResult
	revs  []string
	ids   []string // for a shared error: the checks it stopped
	n     int      // how many verdicts it stands for
}

// volatile matches what differs between two runs of one finding: random probe names
// (long hex runs) and the revision being tested.
var volatile = regexp.MustCompile(`[0-9a-f]{8,}|\b20[0-9]{2}-[0-9]{2}-[0-9]{2}\b`)

// sameness is s with its volatile parts masked, for telling repeats apart.
func sameness(s string) string { return volatile.ReplaceAllString(s, "…") }

// groupFindings gathers the findings of status st: a check failing the same way in
// several revisions is one finding; errors with the same message are one finding
// whatever the check, since they share their cause (no session, an interrupt).
// Random probe names and revision dates do not make two findings different; the
// first one's details stand for the group.
func groupFindings(r *Report, st Status) []*finding {
	var out []*finding
	byKey := map[string]*finding{}
	for i := range r.Revisions {
		rev := &r.Revisions[i]
		for j := range rev.Checks {
			ch := &rev.Checks[j]
			if ch.Status.effective() != st {
				continue
			}
			key := ch.ID + "\x00" + sameness(ch.Message) + "\x00" + sameness(ch.Expected) + "\x00" + sameness(ch.Actual)
			if st == Error {
				key = sameness(displayMessage(ch))
			}
			f, ok := byKey[key]
			if !ok {
				f = &finding{check: ch}
				byKey[key] = f
				out = append(out, f)
			}
			f.n++
			if !slices.Contains(f.revs, rev.Revision) {
				f.revs = append(f.revs, rev.Revision)
			}
			if !slices.Contains(f.ids, ch.ID) {
				f.ids = append(f.ids, ch.ID)
			}
		}
	}
	return out
}

// writeFindings writes the Failures section (fails and errors) and the Warnings
// section, each finding once. With Verbose, whose per-check lines already gave the
// details, each finding is one line.
func (c *Console) writeFindings(b *bytes.Buffer, r *Report) {
	all := r.tallyAll()
	if n := all.Fail + all.Error; n > 0 {
		fmt.Fprintf(b, "\n%s\n", c.paint(ansiBold, fmt.Sprintf("Failures (%d)", n)))
		for _, f := range groupFindings(r, Fail) {
			c.writeFinding(b, f)
		}
		for _, f := range groupFindings(r, Error) {
			c.writeFinding(b, f)
		}
	}
	if all.Warn > 0 {
		fmt.Fprintf(b, "\n%s\n", c.paint(ansiBold, fmt.Sprintf("Warnings (%d)", all.Warn)))
		for _, f := range groupFindings(r, Warn) {
			c.writeFinding(b, f)
		}
	}
}

// writeFinding writes one finding: tag, revisions, ID and title, then (unless
// Verbose) the message, expected, actual, requirement and repro command.
func (c *Console) writeFinding(b *bytes.Buffer, f *finding) {
	ch := f.check
	revs := make([]string, len(f.revs))
	for i, r := range f.revs {
		revs[i] = oneLine(termText(r))
	}
	if len(f.ids) > 1 {
		// One cause stopped several checks: say it once.
		fmt.Fprintf(b, "  %s  %d checks in %s\n", c.tag(ch.Status), f.n, strings.Join(revs, ", "))
		writeDetail(b, "", truncate(displayMessage(ch), 1000))
		return
	}
	fmt.Fprintf(b, "  %s  %s  %s  %s\n", c.tag(ch.Status), strings.Join(revs, ", "),
		oneLine(termText(ch.ID)), oneLine(termText(ch.Title)))
	if c.Verbose {
		return
	}
	msg := displayMessage(ch)
	if !redundant(ch, msg) {
		writeDetail(b, "", msg)
	}
	writeDetail(b, "expected: ", ch.Expected)
	writeDetail(b, "actual:   ", ch.Actual)
	writeDetail(b, "requirement: ", ch.Source)
	repro := ch.Repro
	if repro != "" && len(f.revs) > 1 {
		repro += "   (for " + revs[0] + "; the others alike)"
	}
	writeDetail(b, "repro: ", repro)
	writeGateMarks(b, ch)
}

// maxSkipGroups bounds the skip reasons listed; matrix.md has every one.
const maxSkipGroups = 12

// writeSkips writes the skip reasons once per run: each distinct reason and message
// with how many checks it covers and in which revisions.
func (c *Console) writeSkips(b *bytes.Buffer, r *Report) {
	type group struct {
		reason, msg string
		ids, revs   []string
	}
	var groups []*group
	byKey := map[string]*group{}
	total := 0
	for i := range r.Revisions {
		rev := &r.Revisions[i]
		for j := range rev.Checks {
			ch := &rev.Checks[j]
			if ch.Status.effective() != Skip {
				continue
			}
			total++
			reason := string(skipReason(rev, ch))
			msg := strings.TrimPrefix(ch.Message, reason+": ")
			if reason == string(RevisionUnsupported) {
				msg = "" // the table says what the server answered
			}
			key := reason + "\x00" + msg
			g, ok := byKey[key]
			if !ok {
				g = &group{reason: reason, msg: msg}
				byKey[key] = g
				groups = append(groups, g)
			}
			if !slices.Contains(g.ids, ch.ID) {
				g.ids = append(g.ids, ch.ID)
			}
			if !slices.Contains(g.revs, rev.Revision) {
				g.revs = append(g.revs, rev.Revision)
			}
		}
	}
	if total == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n", c.paint(ansiBold, fmt.Sprintf("Skipped (%d)", total)))
	for i, g := range groups {
		if i == maxSkipGroups {
			fmt.Fprintf(b, "  … and %d more reasons (matrix.md lists every skip)\n", len(groups)-i)
			break
		}
		what := fmt.Sprintf("%d checks", len(g.ids))
		if len(g.ids) == 1 {
			what = g.ids[0]
		}
		line := fmt.Sprintf("  %s  %s in %s", c.paint(ansiGray, orDash(oneLine(termText(g.reason)))), what,
			oneLine(termText(strings.Join(g.revs, ", "))))
		if g.msg != "" {
			line += ": " + truncate(oneLine(termText(g.msg)), 300)
		}
		b.WriteString(line + "\n")
	}
}

// consoleState is the negotiated column of the console summary: the negotiated
// version, or ColumnState's word for what came of asking.
func consoleState(rev *RevisionReport) string {
	n := oneLine(termText(rev.Negotiated))
	if n != "" && !rev.Unsupported {
		return n
	}
	return ColumnState(n, rev.Unsupported)
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
	case exit == ExitInterrupted:
		word, color = "INTERRUPTED", ansiYellow
		add(s.Fail, "failed", "failed")
		add(s.Pass, "passed before the interrupt", "passed before the interrupt")
		add(s.Error, "not finished", "not finished")
	case exit == exitUnreachable:
		word, color = "UNREACHABLE", ansiRed
		parts = append(parts, "the target could not be reached")
	case s.Total == 0 && exit == exitIncomplete:
		word, color = "NOTHING RAN", ansiYellow
		parts = append(parts, "no check matched the selection")
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
