package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// junitTimestamp is the JUnit timestamp layout (ISO 8601 without a zone, as the Ant
// schema wants); the writer always gives UTC.
const junitTimestamp = "2006-01-02T15:04:05"

// maxAttrRunes bounds a message attribute; the element's body carries the whole text.
const maxAttrRunes = 1000

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Skipped    *junitSkipped   `xml:"skipped"`
	Error      *junitProblem   `xml:"error"`
	Failure    *junitProblem   `xml:"failure"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes r as a JUnit XML document: one <testsuite> per revision (named by
// the revision string, with the negotiated version, transport and target as
// properties) and one <testcase> per check. A fail is a <failure>, an error an
// <error>, a skip a <skipped> carrying its reason, and a warn a passing testcase
// whose <system-out> starts with "warn:". Each testcase also has id, level, status
// and source properties. Text is cleaned of bytes XML 1.0 forbids, so whatever a
// server sent, the document parses.
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
	doc := junitSuites{Name: "mcp-conform", Suites: []junitSuite{}}
	var total time.Duration
	for i := range r.Revisions {
		s, d := buildSuite(r, &r.Revisions[i])
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, s)
		total += d
	}
	if r.Baseline != nil && len(r.Baseline.Stale) > 0 {
		s := staleSuite(r.Baseline)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Suites = append(doc.Suites, s)
	}
	if r.DurationMs > 0 {
		total = time.Duration(r.DurationMs) * time.Millisecond
	}
	doc.Time = seconds(total)
	return doc
}

// buildSuite renders one column and returns it with the sum of its checks' durations.
func buildSuite(r *Report, rev *RevisionReport) (junitSuite, time.Duration) {
	counts := tally(rev.Checks)
	s := junitSuite{
		Name:     xmlText(rev.Revision),
		Tests:    counts.Total,
		Failures: counts.Fail,
		Errors:   counts.Error,
		Skipped:  counts.Skip + counts.ExpectedFail, // an expected-fail is a skipped case
		Cases:    make([]junitCase, 0, len(rev.Checks)),
	}
	if !r.StartedAt.IsZero() {
		s.Timestamp = r.StartedAt.UTC().Format(junitTimestamp)
	}
	negotiated := rev.Negotiated
	if negotiated == "" {
		negotiated = "none"
	}
	s.Properties = []junitProperty{
		{Name: "revision", Value: xmlText(rev.Revision)},
		{Name: "negotiated", Value: xmlText(negotiated)},
		{Name: "transport", Value: xmlText(rev.Transport)},
		{Name: "target", Value: xmlText(r.Target)},
	}
	if rev.Unsupported {
		s.Properties = append(s.Properties, junitProperty{Name: "unsupported", Value: "true"})
	}
	if info := compactJSON(rev.ServerInfo); info != "" {
		s.Properties = append(s.Properties, junitProperty{Name: "serverInfo", Value: xmlText(info)})
	}
	var sum time.Duration
	for i := range rev.Checks {
		c := &rev.Checks[i]
		sum += c.Duration
		s.Cases = append(s.Cases, buildCase(rev, c))
	}
	s.Time = seconds(sum)
	return s, sum
}

// staleSuite is a testsuite "baseline" with a failing testcase per stale baseline
// entry: each fails the run, so each shows as a failure.
func staleSuite(bl *BaselineReport) junitSuite {
	s := junitSuite{Name: "baseline", Tests: len(bl.Stale), Failures: len(bl.Stale), Time: seconds(0),
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

func buildCase(rev *RevisionReport, c *CheckResult) junitCase {
	name := c.ID
	if c.Title != "" {
		name += " " + c.Title
	}
	tc := junitCase{
		Name:      xmlText(oneLine(name)),
		Classname: xmlText("mcp-conform." + rev.Revision),
		Time:      seconds(c.Duration),
	}
	status := c.Status.effective()
	tc.Properties = []junitProperty{
		{Name: "id", Value: xmlText(c.ID)},
		{Name: "level", Value: xmlText(c.Level)},
		{Name: "status", Value: xmlText(string(status))},
	}
	if c.Source != "" {
		tc.Properties = append(tc.Properties, junitProperty{Name: "source", Value: xmlText(c.Source)})
	}
	msg := c.Message
	if !c.Status.Known() {
		msg = strings.TrimSpace(fmt.Sprintf("unknown status %q: %s", c.Status, msg))
	}
	if c.Quarantine != nil {
		tc.Properties = append(tc.Properties, junitProperty{Name: "quarantined", Value: xmlText(c.Quarantine.Reason)})
		msg = "quarantined (never fails the run): " + msg
	}
	switch status {
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
		reason := skipReason(rev, c)
		if reason != "" {
			tc.Properties = append(tc.Properties, junitProperty{Name: "reason", Value: xmlText(string(reason))})
		}
		text := string(reason)
		switch {
		case text == "":
			text = msg
		case msg != "":
			text += ": " + msg
		}
		tc.Skipped = &junitSkipped{Message: xmlText(truncate(text, maxAttrRunes))}
	case ExpectedFail:
		// JUnit has no expected failure; like pytest's xfail it is a skipped case,
		// so no viewer shows it as a pass.
		text := "expected-fail"
		if c.Baseline != nil {
			text += " (a known " + string(c.Baseline.Status) + ", baseline: " + c.Baseline.Reason + ")"
			tc.Properties = append(tc.Properties, junitProperty{Name: "baseline-status", Value: xmlText(string(c.Baseline.Status))},
				junitProperty{Name: "baseline-reason", Value: xmlText(c.Baseline.Reason)})
		}
		tc.Skipped = &junitSkipped{Message: xmlText(truncate(text+": "+msg, maxAttrRunes))}
		tc.SystemOut = xmlText(details(msg, c))
	case Warn:
		tc.SystemOut = xmlText(strings.TrimRight("warn: "+details(msg, c), " "))
	case Pass:
		tc.SystemOut = xmlText(msg)
	}
	return tc
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
