package reports

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// baselined is a one-column report run with a baseline: an expected-fail (a known
// fail), a quarantined fail, a pass, and one stale entry.
func baselined() *Report {
	r := &Report{
		Target: "stdio:./server", Tool: "mcp-conform test", ExitCode: 1,
		Revisions: []RevisionReport{{
			Revision: "2025-11-25", Negotiated: "2025-11-25", Transport: "stdio",
			Checks: []CheckResult{
				{ID: "A-01", Title: "known", Level: "MUST", Status: ExpectedFail, Message: "expected x; got y", Expected: "x", Actual: "y",
					Baseline: &BaselineMark{Status: Fail, Reason: "upstream bug 7"}},
				{ID: "Q-01", Title: "flaky", Level: "MUST", Status: Fail, Message: "timed out",
					Quarantine: &QuarantineMark{Reason: "races on CI"}},
				{ID: "P-01", Title: "fine", Level: "MUST", Status: Pass},
			},
		}},
		Baseline: &BaselineReport{File: "b.yml", ExpectedFail: 1, Quarantined: 1,
			Stale: []StaleEntry{{ID: "S-01", Revisions: []string{"2025-11-25"}, Reason: "old", Problem: "the check now passes at 2025-11-25", Line: 4}}},
	}
	r.Summarize()
	return r
}

func TestBaselineInEveryFormat(t *testing.T) {
	r := baselined()
	if r.Summary.ExpectedFail != 1 || r.Summary.Fail != 1 || r.Summary.Pass != 1 {
		t.Fatalf("summary %+v", r.Summary)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"status": "expected-fail"`, `"reason": "upstream bug 7"`, `"quarantine": {`, `"expectedFail": 1`, `"problem": "the check now passes at 2025-11-25"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("report.json lacks %s:\n%s", want, js.String())
		}
	}
	back, err := ReadJSON(&js)
	if err != nil {
		t.Fatal(err)
	}
	if c := back.Revisions[0].Checks[0]; c.Status != ExpectedFail || c.Baseline == nil || c.Baseline.Status != Fail {
		t.Errorf("report.json round trip lost the expected-fail: %+v", c)
	}

	var ju bytes.Buffer
	if err := WriteJUnit(&ju, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name     string `xml:"name,attr"`
			Failures int    `xml:"failures,attr"`
			Skipped  int    `xml:"skipped,attr"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(ju.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 2 || doc.Suites[1].Name != "baseline" || doc.Suites[1].Failures != 1 {
		t.Fatalf("junit.xml: want the revision and a failing baseline suite:\n%s", ju.String())
	}
	rev := doc.Suites[0]
	if rev.Skipped != 1 || rev.Failures != 1 || rev.Cases[0].Skipped == nil || !strings.HasPrefix(rev.Cases[0].Skipped.Message, "expected-fail (a known fail, baseline: upstream bug 7)") {
		t.Errorf("junit.xml: the expected-fail must be a skipped case, never a pass:\n%s", ju.String())
	}
	if rev.Cases[1].Failure == nil || !strings.Contains(ju.String(), "quarantined (never fails the run)") {
		t.Errorf("junit.xml: a quarantined fail stays a failure, marked:\n%s", ju.String())
	}

	var md bytes.Buffer
	if err := WriteMatrix(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"🔶 expected-fail (fail)", "❌ FAIL (quarantined)", "1 expected-fail", "**Baseline** b.yml", "baseline: a known fail, accepted: upstream bug 7"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md.String())
		}
	}

	var con bytes.Buffer
	c := &Console{W: &con}
	c.CheckDone("2025-11-25", r.Revisions[0].Checks[0])
	c.Summary(r, nil)
	for _, want := range []string{"XFAIL  2025-11-25  A-01", "baseline: a known fail, accepted: upstream bug 7", "quarantined: reported, never fails the run: races on CI",
		"STALE  stale entry S-01 (2025-11-25), line 4", "result: FAIL (1 stale baseline entry, 1 expected-fail) — exit 1"} {
		if !strings.Contains(con.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, con.String())
		}
	}
}

// A quarantined failure alone does not make the console's result line a failure.
func TestConsoleQuarantinedResult(t *testing.T) {
	r := baselined()
	r.Baseline.Stale = nil
	r.ExitCode = 0
	var con bytes.Buffer
	(&Console{W: &con}).Summary(r, nil)
	if !strings.Contains(con.String(), "result: PASS") {
		t.Errorf("want a PASS result line:\n%s", con.String())
	}
}
