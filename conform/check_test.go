package conform

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// withRegistry runs fn against an empty registry and restores the real one after.
func withRegistry(t *testing.T, fn func()) {
	t.Helper()
	checks.mu.Lock()
	checks.settle() // the real checks, validated before they are set aside
	saved, savedErrs, savedIDs := checks.checks, checks.errs, checks.validated
	checks.checks, checks.errs, checks.validated = nil, nil, nil
	checks.mu.Unlock()
	defer func() {
		checks.mu.Lock()
		checks.pending = nil // what fn registered and never read
		checks.checks, checks.errs, checks.validated = saved, savedErrs, savedIDs
		checks.mu.Unlock()
	}()
	fn()
}

func okCheck(id string) Check {
	return Check{ID: id, Title: "t", Row: Row{Level: Must, Revisions: revision.All(), Group: GroupUtil, Source: "spec"}, Run: func(*T) Verdict { return Pass("") }}
}

func TestRegisterRejectsDuplicatesAndMalformedChecks(t *testing.T) {
	tests := []struct {
		name    string
		checks  []Check
		wantErr string
	}{
		{"valid", []Check{okCheck("ZZ-ONE-01"), okCheck("ZZ-TWO-01")}, ""},
		{"duplicate ID", []Check{okCheck("ZZ-ONE-01"), okCheck("ZZ-ONE-01")}, "registered twice"},
		{"not a catalogue ID", []Check{okCheck("ping")}, "not a catalogue ID"},
		{"no source", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Source = ""; return c }()}, "no spec source"},
		{"no revisions", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Revisions = nil; return c }()}, "applies to no revision"},
		{"unknown level", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Level = "must-ish"; return c }()}, "unknown level"},
		{"no run", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Run = nil; return c }()}, "no Run"},
		{"a row the catalogue has, written again", []Check{okCheck("PING-01")}, "comes from its catalogue row"},
		{"a row from the catalogue", []Check{{ID: "PING-01", Title: "t", Run: func(*T) Verdict { return Pass("") }}}, ""},
		{"unknown phase", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Phase = 9; return c }()}, "unknown phase"},
		{"state change without its state", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Phase = PhaseStateChange; return c }()}, "declares the server state"},
		{"a state outside the state-change phase", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Phase, c.Changes = PhaseOddInput, StateToolList; return c }()}, "declares the server state"},
		{"unknown state", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Changes = "cache"; return c }()}, "unknown server state"},
		{"valid state change", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Changes = StateLogLevel; return c }()}, ""},
		{"unknown group", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Group = "tools"; return c }()}, "not a catalogue group"},
		{"unknown transport", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Transports = []string{"ws"}; return c }()}, "unknown transport"},
		{"not on a revision the check lacks", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.NotOn = []NotOn{{"1999-01-01", "http", "why"}}; return c }()}, "not one of the check's"},
		{"not on a transport the check is not about", []Check{func() Check {
			c := okCheck("ZZ-ONE-01")
			c.Transports, c.NotOn = []string{"stdio"}, []NotOn{{"2025-06-18", "http", "why"}}
			return c
		}()}, "which the check is not about"},
		{"not on without a reason", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.NotOn = []NotOn{{"2025-06-18", "http", ""}}; return c }()}, "gives no reason"},
		{"valid not on", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.NotOn = []NotOn{{"2025-06-18", "http", "why"}}; return c }()}, ""},
		{"spare session in the clean phase", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Spare = true; return c }()}, "runs in PhaseOddInput or PhaseTranscript"},
		{"pre-initialize probe in the clean phase", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.PreInitProbe = true; return c }()}, "runs in PhaseOddInput or PhaseTranscript"},
		{"silence probe outside the transcript phase", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.Phase, c.SilenceProbe = PhaseOddInput, true; return c }()}, "PhaseTranscript"},
		{"valid silence probe", []Check{func() Check { c := okCheck("ZZ-ONE-01"); c.SilenceProbe = true; return c }()}, ""},
		{"valid spare session", []Check{func() Check {
			c := okCheck("ZZ-ONE-01")
			c.Phase, c.PreInitProbe = PhaseOddInput, true
			return c
		}()}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withRegistry(t, func() {
				for _, c := range tc.checks {
					Register(c)
				}
				err := RegistryErr()
				switch {
				case tc.wantErr == "" && err != nil:
					t.Fatalf("unexpected error: %v", err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				var b strings.Builder
				if err := List(&b); (err != nil) != (tc.wantErr != "") {
					t.Errorf("List error %v", err)
				}
			})
		})
	}
}

func TestLabelsAndSelection(t *testing.T) {
	c := okCheck("TOOLS-CALL-UNKNOWN-01")
	c.Group, c.Level, c.Needs, c.Phase = GroupTools, Should, NeedsAny, PhaseClean
	r := revision.MustLookup("2025-06-18")
	tests := []struct {
		name                string
		labels, focus, skip string
		want                bool
	}{
		{"no filter", "", "", "", true},
		{"plain label", "group:TOOLS", "", "", true},
		{"phase label", "phase:clean", "", "", true},
		{"label set syntax", "rev: containsAny 2025-06-18", "", "", true},
		{"other revision", "rev:2024-11-05", "", "", false},
		{"negated level", "!level:should", "", "", false},
		{"focus on the ID", "", "UNKNOWN", "", true},
		{"focus on the revision", "", "2025-06-18 TOOLS", "", true},
		{"focus elsewhere", "", "PING-01", "", false},
		{"skip", "", "", "TOOLS-CALL", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{LabelFilter: tc.labels}
			if tc.focus != "" {
				cfg.Focus = []string{tc.focus}
			}
			if tc.skip != "" {
				cfg.Skip = []string{tc.skip}
			}
			sel, err := newSelection(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := sel.selects(r, &c); got != tc.want {
				t.Errorf("selects = %v, want %v", got, tc.want)
			}
		})
	}
	for _, bad := range []Config{{LabelFilter: "area:(("}, {Focus: []string{"("}}, {Skip: []string{"["}}} {
		if _, err := newSelection(bad); err == nil {
			t.Errorf("newSelection(%+v) accepted a bad filter", bad)
		}
	}
}

func TestViolationFollowsTheLevel(t *testing.T) {
	r1, r3 := revision.MustLookup("2024-11-05"), revision.MustLookup("2025-06-18")
	stricter := okCheck("LIFE-CAPS-HONEST-01")
	stricter.Level, stricter.StricterFrom = Should, &LevelFrom{Revision: "2025-06-18", Level: Must}
	derived := okCheck("TOOLS-ANNOT-CONSIST-01")
	derived.Level = Derived
	tests := []struct {
		name   string
		check  Check
		rev    revision.Revision
		strict bool
		want   reports.Status
	}{
		{"MUST fails", okCheck("PING-01"), r1, false, reports.Fail},
		{"SHOULD warns", stricter, r1, false, reports.Warn},
		{"SHOULD fails under --strict", stricter, r1, true, reports.Fail},
		{"SHOULD becomes MUST from 2025-06-18", stricter, r3, false, reports.Fail},
		{"derived warns", derived, r1, false, reports.Warn},
		{"derived stays a warning under --strict", derived, r1, true, reports.Warn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := &T{Rev: tc.rev, Check: &tc.check}
			if got := tt.violation("x", "y").final(tc.strict).Status; got != tc.want {
				t.Errorf("status %s, want %s", got, tc.want)
			}
		})
	}
	if v := (Verdict{}).final(false); v.Status != reports.Error {
		t.Errorf("an empty verdict is %s, want error", v.Status)
	}
	if v := Skip("", "x").final(false); v.Reason == "" {
		t.Error("a skip without a reason got none")
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name    string
		summary reports.Summary
		want    int
	}{
		{"all pass", reports.Summary{Total: 2, Pass: 2}, ExitOK},
		{"warnings only", reports.Summary{Total: 2, Pass: 1, Warn: 1}, ExitOK},
		{"a failure", reports.Summary{Total: 2, Pass: 1, Fail: 1}, ExitFailed},
		{"an error", reports.Summary{Total: 2, Pass: 1, Error: 1}, ExitFailed},
		{"everything skipped", reports.Summary{Total: 2, Skip: 2}, ExitIncomplete},
		{"nothing", reports.Summary{}, ExitIncomplete},
	}
	for _, tc := range tests {
		rs := &runState{report: &reports.Report{Summary: tc.summary}}
		if got := rs.exitCode(); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
	// With a baseline: an expected-fail or a quarantined fail does not gate, a stale
	// entry does.
	col := func(checks ...reports.CheckResult) []reports.RevisionReport {
		return []reports.RevisionReport{{Revision: "2025-11-25", Checks: checks}}
	}
	quarantined := reports.CheckResult{ID: "Q-01", Status: reports.Fail, Quarantine: &reports.QuarantineMark{Reason: "flaky"}}
	pass := reports.CheckResult{ID: "P-01", Status: reports.Pass}
	baselined := []struct {
		name string
		rep  reports.Report
		want int
	}{
		{"an expected-fail", reports.Report{Revisions: col(pass, reports.CheckResult{ID: "A-01", Status: reports.ExpectedFail})}, ExitOK},
		{"a quarantined fail", reports.Report{Revisions: col(pass, quarantined)}, ExitOK},
		{"a quarantined fail and a real one", reports.Report{Revisions: col(pass, quarantined, reports.CheckResult{ID: "F-01", Status: reports.Fail})}, ExitFailed},
		{"a stale entry", reports.Report{Revisions: col(pass), Baseline: &reports.BaselineReport{Stale: []reports.StaleEntry{{ID: "S-01"}}}}, ExitFailed},
	}
	for _, tc := range baselined {
		rep := tc.rep
		rep.Summarize()
		rs := &runState{report: &rep}
		if got := rs.exitCode(); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestResolveSettlesPendingVerdicts: a judge function's Violation and Silence are
// settled by the check's level and context when the check returns, and no reply is
// the same violation whatever the transport said (issue 9 item 3).
func TestResolveSettlesPendingVerdicts(t *testing.T) {
	r1 := revision.MustLookup("2024-11-05")
	must, should := okCheck("PING-01"), okCheck("PAG-INVALID-01")
	should.Level = Should
	run := &runState{cfg: Config{Timeout: time.Second}}
	tests := []struct {
		name  string
		check Check
		v     Verdict
		want  reports.Status
	}{
		{"a violation of a MUST fails", must, Violation("x", "y"), reports.Fail},
		{"a violation of a SHOULD warns", should, Violation("x", "y"), reports.Warn},
		{"silence until the deadline is a violation", must, Silence("x", fmt.Errorf("ping: %w", wire.ErrTimeout)), reports.Fail},
		{"an HTTP request deadline is a violation too", should, Silence("x", fmt.Errorf("POST: %w", context.DeadlineExceeded)), reports.Warn},
		{"an HTTP connection ended without a reply is a violation", must, Silence("x", fmt.Errorf("POST: %w", transport.ErrNoReply)), reports.Fail},
		{"a transport that ended is an error", must, Silence("x", fmt.Errorf("ping: %w", wire.ErrClosed)), reports.Error},
		{"a settled verdict is left alone", must, Warn("x", "y"), reports.Warn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := &T{Ctx: context.Background(), Rev: r1, Check: &tc.check, run: run}
			if tc.v.Outcome() == "" {
				t.Fatal("no outcome")
			}
			if got := tt.Resolve(tc.v).final(false); got.Status != tc.want {
				t.Errorf("status %s (%s), want %s", got.Status, got.Message, tc.want)
			}
		})
	}
	if got := Violation("x", "y").final(false).Status; got != reports.Error {
		t.Errorf("an unsettled violation reaching the report is %s, want error", got)
	}
}
