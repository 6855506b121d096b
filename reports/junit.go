package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// junitTimestamp is the JUnit timestamp layout (ISO 8601 without a zone, as the Ant
// schema wants); the writer always gives UTC.
const junitTimestamp = "2006-01-02T15:04:05"

// maxAttrRunes bounds a message attribute; the element's body carries the whole text.
const maxAttrRunes = 1000

type junitSuites struct {
	// No attributes: the Ant schema allows none on <testsuites>, and the totals are
	// on each <testsuite>.
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

// junitSuite is one column. Its children come in the order the Ant schema requires:
// properties, testcases, system-out, system-err (both always present).
type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr"`
	ID         int             `xml:"id,attr"`
	Hostname   string          `xml:"hostname,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out"`
	SystemErr  string          `xml:"system-err"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitCase holds at most one of skipped, error and failure, and nothing else: both
// schemas agree on no more (Ant allows no properties or output in a testcase).
type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitSkipped `xml:"skipped"`
	Error     *junitProblem `xml:"error"`
	Failure   *junitProblem `xml:"failure"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// hostname names the machine in each <testsuite> (the Ant schema requires it);
// "localhost" when it cannot be found, as that schema asks. A variable for tests.
var hostname = func() string {
	if h, err := os.Hostname(); err == nil && strings.TrimSpace(h) != "" {
		return h
	}
	return "localhost"
}

// WriteJUnit writes r as a JUnit XML document that validates against both the
// Jenkins (xunit-plugin junit-10.xsd) and the Ant JUnit schemas: one <testsuite> per
// revision, named by revision, transport and target, with the negotiated version,
// transport and target as properties; one <testcase> per check, its classname
// naming target, transport and revision so that merged reports of several targets
// stay apart. A fail is a <failure>, an error an <error>, a skip a <skipped> carrying
// its reason once. A warning passes, but is listed as a "warn:ID" property of its
// suite and in the suite's <system-out>, so it is never mistaken for a clean pass.
// Text is cleaned of bytes XML 1.0 forbids, so whatever a server sent, the document
// parses.
func WriteJUnit(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("reports: write junit: nil report")
	}
	doc := buildJUnit(r)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("reports: write junit header: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("reports: encode junit: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("reports: encode junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("reports: write junit: %w", err)
	}
	return nil
}

// seconds renders d as JUnit wants it: seconds with three decimals.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func buildJUnit(r *Report) junitSuites {
	doc := junitSuites{Suites: []junitSuite{}}
	host := hostname()
	for i := range r.Revisions {
		s := buildSuite(r, &r.Revisions[i])
		s.ID = i
		s.Hostname = xmlText(oneLine(host))
		doc.Suites = append(doc.Suites, s)
	}
	if r.Baseline != nil && len(r.Baseline.Stale) > 0 {
		s := staleSuite(r.Baseline)
		s.ID = len(doc.Suites)
		s.Hostname = xmlText(oneLine(host))
		doc.Suites = append(doc.Suites, s)
	}
	return doc
}

// classPart makes s one dot-free, blank-free part of a Java-style class name, so a
// target URL or command cannot add package levels: every rune but a letter, digit,
// '-' or '_' becomes '_'.
func classPart(s string) string {
	s = oneLine(termText(s))
	if s == "" {
		return "none"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return truncate(b.String(), 120)
}

// suiteName names a column by revision, transport and target.
func suiteName(r *Report, rev *RevisionReport) string {
	transport := rev.Transport
	if transport == "" {
		transport = "no session"
	}
	return oneLine(fmt.Sprintf("%s (%s, %s)", rev.Revision, transport, orDash(r.Target)))
}

// buildSuite renders one column.
func buildSuite(r *Report, rev *RevisionReport) junitSuite {
	counts := tally(rev.Checks)
	pkg := "mcp-conform." + classPart(r.Target)
	s := junitSuite{
		Name:     xmlText(suiteName(r, rev)),
		Package:  xmlText(pkg),
		Tests:    counts.Total,
		Failures: counts.Fail,
		Errors:   counts.Error,
		Skipped:  counts.Skip + counts.ExpectedFail, // an expected-fail is a skipped case
		Cases:    make([]junitCase, 0, len(rev.Checks)),
	}
	started := r.StartedAt
	if started.IsZero() {
		started = time.Unix(0, 0)
	}
	s.Timestamp = started.UTC().Format(junitTimestamp)
	negotiated := rev.Negotiated
	if negotiated == "" {
		negotiated = "none"
	}
	s.Properties = []junitProperty{
		{Name: "revision", Value: xmlText(rev.Revision)},
		{Name: "negotiated", Value: xmlText(negotiated)},
		{Name: "transport", Value: xmlText(rev.Transport)},
		{Name: "target", Value: xmlText(r.Target)},
		{Name: "tool", Value: xmlText(r.Tool)},
		{Name: "warnings", Value: fmt.Sprint(counts.Warn)},
	}
	if rev.Unsupported {
		s.Properties = append(s.Properties, junitProperty{Name: "unsupported", Value: "true"})
	}
	if info := compactJSON(rev.ServerInfo); info != "" {
		s.Properties = append(s.Properties, junitProperty{Name: "serverInfo", Value: xmlText(info)})
	}
	classname := xmlText(pkg + "." + classPart(rev.Transport) + "." + classPart(rev.Revision))
	var (
		sum time.Duration
		out strings.Builder
	)
	for _, n := range r.Notes {
		fmt.Fprintf(&out, "note: %s\n", n)
	}
	for i := range rev.Checks {
		c := &rev.Checks[i]
		sum += c.Duration
		s.Cases = append(s.Cases, buildCase(rev, c, classname))
		if c.Status == Warn {
			s.Properties = append(s.Properties, junitProperty{Name: "warn:" + xmlText(c.ID), Value: xmlText(truncate(c.Message, maxAttrRunes))})
			fmt.Fprintf(&out, "warn: %s %s\n%s\n", c.ID, c.Title, indentRest("  "+details(c.Message, c), "  "))
		}
		if c.Status == ExpectedFail {
			why := ""
			if c.Baseline != nil {
				why = "a known " + string(c.Baseline.Status) + ": " + c.Baseline.Reason
			}
			s.Properties = append(s.Properties, junitProperty{Name: "expected-fail:" + xmlText(c.ID), Value: xmlText(truncate(why, maxAttrRunes))})
			fmt.Fprintf(&out, "expected-fail: %s %s (%s)\n%s\n", c.ID, c.Title, why, indentRest("  "+details(c.Message, c), "  "))
		}
		if c.Quarantine != nil {
			s.Properties = append(s.Properties, junitProperty{Name: "quarantined:" + xmlText(c.ID), Value: xmlText(truncate(c.Quarantine.Reason, maxAttrRunes))})
		}
	}
	s.SystemOut = xmlText(out.String())
	s.Time = seconds(sum)
	return s
}

// staleSuite is a testsuite "baseline" with a failing testcase per stale baseline
// entry: each fails the run, so each shows as a failure.
func staleSuite(bl *BaselineReport) junitSuite {
	s := junitSuite{Name: "baseline", Package: "mcp-conform.baseline", Tests: len(bl.Stale), Failures: len(bl.Stale),
		Time: seconds(0), Timestamp: time.Unix(0, 0).UTC().Format(junitTimestamp),
		Properties: []junitProperty{{Name: "file", Value: xmlText(bl.File)}}}
	for _, st := range bl.Stale {
		revs := "all revisions"
		if len(st.Revisions) > 0 {
			revs = strings.Join(st.Revisions, ", ")
		}
		msg := fmt.Sprintf("stale baseline entry %s (%s), line %d: %s", st.ID, revs, st.Line, st.Problem)
		s.Cases = append(s.Cases, junitCase{
			Name: xmlText(oneLine("stale " + st.ID)), Classname: "mcp-conform.baseline", Time: seconds(0),
			Failure: &junitProblem{Message: xmlText(truncate(msg, maxAttrRunes)), Type: "stale-baseline",
				Body: xmlText(msg + "\nreason was: " + st.Reason)},
		})
	}
	return s
}

func buildCase(rev *RevisionReport, c *CheckResult, classname string) junitCase {
	name := c.ID
	if c.Title != "" {
		name += " " + c.Title
	}
	tc := junitCase{
		Name:      xmlText(oneLine(name)),
		Classname: classname,
		Time:      seconds(c.Duration),
	}
	msg := c.Message
	if !c.Status.Known() {
		msg = strings.TrimSpace(fmt.Sprintf("unknown status %q: %s", c.Status, msg))
	}
	if c.Quarantine != nil {
		// Said in the message; the suite lists it as a "quarantined:ID" property.
		msg = "quarantined (never fails the run): " + msg
	}
	switch c.Status.effective() {
	case Fail:
		tc.Failure = &junitProblem{
			Message: xmlText(truncate(msg, maxAttrRunes)),
			Type:    "fail",
			Body:    xmlText(details(msg, c)),
		}
	case Error:
		tc.Error = &junitProblem{
			Message: xmlText(truncate(msg, maxAttrRunes)),
			Type:    "error",
			Body:    xmlText(details(msg, c)),
		}
	case Skip:
		tc.Skipped = &junitSkipped{Message: xmlText(truncate(skipText(skipReason(rev, c), msg), maxAttrRunes))}
	case ExpectedFail:
		// JUnit has no expected failure; like pytest's xfail it is a skipped case,
		// so no viewer shows it as a pass.
		// The suite lists it as an "expected-fail:ID" property, with its details in
		// the suite's system-out.
		text := "expected-fail"
		if c.Baseline != nil {
			text += " (a known " + string(c.Baseline.Status) + ", baseline: " + c.Baseline.Reason + ")"
		}
		tc.Skipped = &junitSkipped{Message: xmlText(truncate(text+": "+msg, maxAttrRunes))}
	}
	return tc
}

// skipText is a skip's reason and message, the reason said once even when the
// message already starts with it.
func skipText(reason SkipReason, msg string) string {
	switch {
	case reason == "":
		return msg
	case msg == "" || msg == string(reason):
		return string(reason)
	case strings.HasPrefix(msg, string(reason)+": "):
		return msg
	}
	return string(reason) + ": " + msg
}

// details is the multi-line account of a finding: the message, then what the rule
// expected, what came back, and the requirement (the spec text) when known.
func details(msg string, c *CheckResult) string {
	var lines []string
	if msg != "" {
		lines = append(lines, msg)
	}
	if c.Expected != "" {
		lines = append(lines, "expected: "+c.Expected)
	}
	if c.Actual != "" {
		lines = append(lines, "actual: "+c.Actual)
	}
	if c.Source != "" {
		lines = append(lines, "requirement: "+c.Source)
	}
	if c.Repro != "" {
		lines = append(lines, "repro: "+c.Repro)
	}
	return strings.Join(lines, "\n")
}

// compactJSON returns raw compacted, raw as-is when it is not valid JSON, or "" when
// it is empty or null.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
