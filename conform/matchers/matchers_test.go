package matchers_test

import (
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/matchers"
	"github.com/mcp-conform/mcp-conform/reports"
)

// report builds a report of one or two columns from "ID=status" cells.
func report(cols map[string]string, negotiated map[string]string) *reports.Report {
	rep := &reports.Report{}
	for _, rev := range []string{"2025-06-18", "2025-11-25"} {
		spec, ok := cols[rev]
		if !ok {
			continue
		}
		col := reports.RevisionReport{Revision: rev, Negotiated: rev}
		if n, ok := negotiated[rev]; ok {
			col.Negotiated = n
		}
		for _, cell := range strings.Fields(spec) {
			id, st, _ := strings.Cut(cell, "=")
			c := reports.CheckResult{ID: id, Status: reports.Status(strings.TrimSuffix(st, "!q")), Message: "m"}
			if strings.HasSuffix(st, "!q") {
				c.Quarantine = &reports.QuarantineMark{Reason: "flaky"}
			}
			col.Checks = append(col.Checks, c)
		}
		rep.Revisions = append(rep.Revisions, col)
	}
	return rep
}

func TestPassRevision(t *testing.T) {
	tests := []struct {
		name       string
		cols       map[string]string
		negotiated map[string]string
		want       bool
		why        string // in the failure message
	}{
		{name: "passes, warns and skips", cols: map[string]string{"2025-11-25": "A=pass B=warn C=skip D=expected-fail"}, want: true},
		{name: "a fail", cols: map[string]string{"2025-11-25": "A=pass B=fail"}, why: "FAIL B: m"},
		{name: "an error", cols: map[string]string{"2025-11-25": "A=pass B=error"}, why: "ERROR B"},
		{name: "a quarantined fail does not count", cols: map[string]string{"2025-11-25": "A=pass B=fail!q"}, want: true},
		{name: "a fail in another revision does not count", cols: map[string]string{"2025-11-25": "A=pass", "2025-06-18": "A=fail"}, want: true},
		{name: "nothing passed", cols: map[string]string{"2025-11-25": "A=skip B=skip"}, why: "nothing was verified"},
		{name: "not tested", cols: map[string]string{"2025-06-18": "A=pass"}, why: "was not tested"},
		{name: "another version negotiated", cols: map[string]string{"2025-11-25": "A=skip"}, negotiated: map[string]string{"2025-11-25": "2025-06-18"}, why: "negotiated 2025-06-18"},
		{name: "no session", cols: map[string]string{"2025-11-25": "A=error"}, negotiated: map[string]string{"2025-11-25": ""}, why: "no session"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := matchers.PassRevision("2025-11-25")
			ok, err := m.Match(&conform.Result{Report: report(tc.cols, tc.negotiated)})
			if err != nil || ok != tc.want {
				t.Fatalf("Match = %v, %v; want %v", ok, err, tc.want)
			}
			if !tc.want && !strings.Contains(m.FailureMessage(nil), tc.why) {
				t.Errorf("FailureMessage %q does not say %q", m.FailureMessage(nil), tc.why)
			}
		})
	}
}

func TestHaveVerdict(t *testing.T) {
	rep := report(map[string]string{"2025-06-18": "A=warn B=pass", "2025-11-25": "A=warn B=fail C=pass"}, nil)
	tests := []struct {
		id, status string
		revs       []string
		want       bool
	}{
		{id: "A", status: "warn", want: true},
		{id: "B", status: "fail", want: false}, // pass at 2025-06-18
		{id: "B", status: "fail", revs: []string{"2025-11-25"}, want: true},
		{id: "B", status: "pass", revs: []string{"2025-06-18"}, want: true},
		{id: "C", status: "pass", want: true},
		{id: "C", status: "pass", revs: []string{"2025-06-18", "2025-11-25"}, want: false}, // absent at 2025-06-18
		{id: "Z", status: "pass", want: false},                                             // never ran: not a pass
	}
	for _, tc := range tests {
		m := matchers.HaveVerdict(tc.id, tc.status, tc.revs...)
		ok, err := m.Match(rep)
		if err != nil || ok != tc.want {
			t.Errorf("HaveVerdict(%s, %s, %v) = %v, %v; want %v (%s)", tc.id, tc.status, tc.revs, ok, err, tc.want, m.FailureMessage(nil))
		}
	}
	if _, err := matchers.HaveVerdict("A", "passed").Match(rep); err == nil {
		t.Error("an unknown status should be an error")
	}
	if _, err := matchers.PassRevision("2025-11-25").Match("report"); err == nil {
		t.Error("a string should be an error")
	}
	if _, err := matchers.PassRevision("2025-11-25").Match((*conform.Result)(nil)); err == nil {
		t.Error("a nil result should be an error")
	}
}
