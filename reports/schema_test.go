package reports_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/reports/reportstest"
)

// reportsToValidate are reports of every shape the writers meet: every verdict, an
// unsupported column, a column without a session, no columns at all, and garbage text.
func reportsToValidate() map[string]*reports.Report {
	return map[string]*reports.Report{
		"every verdict": reports.SampleReport(),
		"no columns":    {Target: "x", Tool: "mcp-conform dev", Revisions: []reports.RevisionReport{}},
		"no session":    {Target: "./server", Revisions: []reports.RevisionReport{{Revision: "2025-11-25"}}, ExitCode: 4, Notes: []string{"the target could not be reached: exit status 1"}},
		"hostile text": {Target: "http://127.0.0.1:1/\x00\xff", Revisions: []reports.RevisionReport{{
			Revision: "2025-06-18", Negotiated: "2025-06-18", Transport: "http",
			ServerInfo: []byte("{not json"),
			Checks: []reports.CheckResult{
				{ID: "X-01", Title: "t\x01\uFFFE", Level: "MUST", Status: reports.Fail, Message: "\x1b[31m<&>]]>\x00", Expected: "\x0b", Actual: "\xc3\x28"},
				{ID: "X-02", Title: "odd", Status: reports.Skip, Message: "not-exercised: x", Reason: reports.NotExercised},
				{ID: "X-03", Title: "odd", Status: reports.Warn, Message: strings.Repeat("é", 3000)},
			},
		}}},
	}
}

// Every junit.xml the writer produces validates against the Jenkins and the Ant
// JUnit XML Schemas.
func TestJUnitValidatesAgainstSchemas(t *testing.T) {
	for name, r := range reportsToValidate() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := reports.WriteJUnit(&b, r); err != nil {
				t.Fatal(err)
			}
			if err := reportstest.ValidateJUnit(b.Bytes()); err != nil {
				t.Errorf("%v\n%s", err, b.String())
			}
		})
	}
}

// The validator is not a rubber stamp: the faults the old writer had are refused.
func TestJUnitSchemasRefuse(t *testing.T) {
	bad := map[string]string{
		"skipped on testsuites":    `<testsuites skipped="1"></testsuites>`,
		"properties in a testcase": `<testsuites><testsuite name="a" package="p" id="0" hostname="h" timestamp="2026-01-01T00:00:00" tests="1" failures="0" errors="0" time="0"><properties></properties><testcase name="x" classname="c" time="0"><properties></properties></testcase><system-out></system-out><system-err></system-err></testsuite></testsuites>`,
	}
	for name, doc := range bad {
		if err := reportstest.ValidateJUnit([]byte(doc)); err == nil {
			t.Errorf("%s: validated", name)
		}
	}
}

// Every report.json the writer produces validates against reports.ReportSchema, and
// the schema refuses what breaks the contract.
func TestJSONValidatesAgainstSchema(t *testing.T) {
	for name, r := range reportsToValidate() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := reports.WriteJSON(&b, r); err != nil {
				t.Fatal(err)
			}
			if err := reportstest.ValidateJSON(b.Bytes()); err != nil {
				t.Errorf("%v\n%s", err, b.String())
			}
		})
	}
	bad := map[string]string{
		"no summary":          `{"target":"","tool":"","startedAt":"2026-01-01T00:00:00Z","durationMs":0,"revisions":[],"exitCode":0}`,
		"unknown status":      `{"target":"","tool":"","startedAt":"2026-01-01T00:00:00Z","durationMs":0,"revisions":[{"revision":"2025-06-18","negotiated":"","transport":"","serverInfo":null,"checks":[{"id":"A","title":"","level":"","status":"ok","message":""}]}],"summary":{"total":0,"pass":0,"warn":0,"fail":0,"skip":0,"error":0},"exitCode":0}`,
		"skip without reason": `{"target":"","tool":"","startedAt":"2026-01-01T00:00:00Z","durationMs":0,"revisions":[{"revision":"2025-06-18","negotiated":"","transport":"","serverInfo":null,"checks":[{"id":"A","title":"","level":"","status":"skip","message":""}]}],"summary":{"total":0,"pass":0,"warn":0,"fail":0,"skip":0,"error":0},"exitCode":0}`,
		"bad date":            `{"target":"","tool":"","startedAt":"yesterday","durationMs":0,"revisions":[],"summary":{"total":0,"pass":0,"warn":0,"fail":0,"skip":0,"error":0},"exitCode":0}`,
	}
	for name, doc := range bad {
		if err := reportstest.ValidateJSON([]byte(doc)); err == nil {
			t.Errorf("%s: validated", name)
		}
	}
}
