package conform

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
)

// What a check may touch follows from its declared phase: reading the revision's
// whole transcript belongs to the transcript phase, odd input to the odd-input
// phase. A check that reaches beyond its phase would judge evidence that is not
// complete yet (or disturb checks after it): its verdict is an error that says so,
// never a pass.
func TestPhaseGuards(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	readsAll := func(t *T) Verdict {
		n := 0
		for _, s := range t.Sessions() {
			n += len(t.Transcript(s))
		}
		return Pass("%d entries", n)
	}
	scratch := func(t *T) Verdict {
		if _, err := t.Scratch(); err != nil {
			return Errorf("%v", err)
		}
		return Pass("scratch")
	}
	fresh := func(t *T) Verdict {
		if _, err := t.NewSession(); err != nil {
			return Errorf("%v", err)
		}
		return Pass("a session of its own")
	}
	spare := func(t *T) Verdict {
		if _, err := t.SpareSession(); err != nil {
			return Errorf("%v", err)
		}
		return Pass("the spare session")
	}
	tests := []struct {
		name  string
		phase Phase
		run   func(t *T) Verdict
		want  reports.Status
		msg   string
		fresh int
		spare bool
	}{
		{"transcript read in the transcript phase", PhaseTranscript, readsAll, reports.Pass, "", 0, false},
		{"transcript read in the clean phase", PhaseClean, readsAll, reports.Error, "only a check of phase transcript may", 0, false},
		{"transcript read in the odd-input phase", PhaseOddInput, readsAll, reports.Error, "declares phase odd-input", 0, false},
		{"odd input in the odd-input phase", PhaseOddInput, scratch, reports.Pass, "", 0, false},
		{"odd input in the clean phase", PhaseClean, scratch, reports.Error, "only a check of phase odd-input may", 0, false},
		// A session of its own costs a process on stdio: only where declared.
		{"a declared session of its own", PhaseClean, fresh, reports.Pass, "", 1, false},
		{"an undeclared session of its own", PhaseClean, fresh, reports.Error, "declares FreshSessions: 0", 0, false},
		// The spare session may be opened ahead of its first use: only where declared.
		{"the declared spare session", PhaseOddInput, spare, reports.Pass, "", 1, true},
		{"an undeclared spare session", PhaseOddInput, spare, reports.Error, "does not declare Spare", 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withRegistry(t, func() {
				c := Register(Check{ID: "ZZ-PHASE-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
					Phase: tc.phase, Run: tc.run, FreshSessions: tc.fresh, Spare: tc.spare})
				if err := RegistryErr(); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				srv := &pipeServer{}
				v, err := Judge(ctx, Config{Timeout: time.Second, KillGrace: 10 * time.Millisecond}, c, rev, srv.dial)
				if err != nil {
					t.Fatal(err)
				}
				if v.Status != tc.want || !strings.Contains(v.Message, tc.msg) {
					t.Fatalf("%s (%s), want %s containing %q", v.Status, v.Message, tc.want, tc.msg)
				}
			})
		})
	}
}

// The transcript-phase checks judge complete transcripts whatever their order: every
// one's Probe runs first, and only then do they judge. Here the check that reads
// comes first in the run order and still sees the probe of the one after it.
func TestTranscriptChecksSeeEveryProbe(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	withRegistry(t, func() {
		reader := Register(Check{ID: "AA-READS-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
			Phase: PhaseTranscript, Run: func(t *T) Verdict {
				for _, s := range t.Sessions() {
					for _, e := range t.Transcript(s) {
						if e.Msg != nil && e.Msg.Method == "x/probe" {
							return Pass("saw the probe")
						}
					}
				}
				return Fail("the probe in the transcript", "no probe")
			}})
		var probeErr error
		probes := 0
		prober := Register(Check{ID: "ZZ-PROBES-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
			Probe: func(t *T) {
				probes++
				_, probeErr = t.Session().Call(t.Ctx, "x/probe", nil)
			},
			Run: func(t *T) Verdict {
				if probeErr != nil {
					return Errorf("%v", probeErr)
				}
				return Pass("probed")
			}})
		vs := judgePiped(t, rev, reader, prober)
		if probes != 1 {
			t.Errorf("the Probe ran %d times, want once", probes)
		}
		for i, v := range vs {
			if v.Status != reports.Pass {
				t.Errorf("check %d: %s (%s), want pass", i, v.Status, v.Message)
			}
		}
	})
}

// The probe pass makes the silence probes after the others, so that each one's grace
// runs on into the settle and no other stray probe opens a window on the session
// meanwhile; a check that proves a silence at the settle without declaring
// SilenceProbe is a harness error.
func TestSilenceProbesComeLast(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	withRegistry(t, func() {
		var order []string
		errs := map[string]error{}
		probe := func(id string, prove bool) func(t *T) {
			return func(t *T) {
				order = append(order, id)
				if prove {
					errs[id] = t.ProveSilence(t.Session(), nil)
				}
			}
		}
		judge := func(id string) func(t *T) Verdict {
			return func(t *T) Verdict {
				if err := errs[id]; err != nil {
					return Errorf("%v", err)
				}
				return Pass("probed")
			}
		}
		silent := Register(Check{ID: "AA-SILENCE-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
			SilenceProbe: true, Probe: probe("AA-SILENCE-01", true), Run: judge("AA-SILENCE-01")})
		other := Register(Check{ID: "ZZ-STRAY-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
			Probe: probe("ZZ-STRAY-01", false), Run: judge("ZZ-STRAY-01")})
		undeclared := Register(Check{ID: "ZZ-UNDECLARED-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
			Probe: probe("ZZ-UNDECLARED-01", true), Run: judge("ZZ-UNDECLARED-01")})
		vs := judgePiped(t, rev, silent, other, undeclared)
		if got := strings.Join(order, " "); got != "ZZ-STRAY-01 ZZ-UNDECLARED-01 AA-SILENCE-01" {
			t.Errorf("probe order %q, want the silence probe last", got)
		}
		if vs[0].Status != reports.Pass || vs[1].Status != reports.Pass {
			t.Errorf("verdicts %s (%s), %s (%s), want pass", vs[0].Status, vs[0].Message, vs[1].Status, vs[1].Message)
		}
		if vs[2].Status != reports.Error || !strings.Contains(vs[2].Message, "does not declare SilenceProbe") {
			t.Errorf("ZZ-UNDECLARED-01 = %s (%s), want a harness error naming SilenceProbe", vs[2].Status, vs[2].Message)
		}
	})
}

// A transcript check's Probe runs once, before the settle, and its Run makes no
// probe: what the Probe touched that the check does not declare (here the spare
// session, without Spare) is a harness error in the check's verdict.
func TestProbePassMisuseIsReported(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	withRegistry(t, func() {
		c := Register(Check{ID: "ZZ-UNDECLARED-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
			Probe: func(t *T) { _, _ = t.SpareSession() },
			Run:   func(t *T) Verdict { return Pass("probed") }})
		vs := judgePiped(t, rev, c)
		if vs[0].Status != reports.Error || !strings.Contains(vs[0].Message, "does not declare Spare") {
			t.Errorf("ZZ-UNDECLARED-01 = %s (%s), want a harness error naming Spare", vs[0].Status, vs[0].Message)
		}
	})
}

// judgePiped judges checks in one run at rev against a pipeServer.
func judgePiped(t *testing.T, rev revision.Revision, checks ...*Check) []Verdict {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := &pipeServer{}
	vs, err := JudgeAll(ctx, Config{Timeout: time.Second, KillGrace: 10 * time.Millisecond}, checks, rev, srv.dial)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// The runner owns applicability by transport: a check of another transport's rule
// gets not-applicable and its Run is never called. A helper ends its check with
// T.Stop (here through SkipNow and ErrorNow) from any depth, and the verdict it
// stopped with is the check's.
func TestTransportsAndStop(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	withRegistry(t, func() {
		ran := false
		row := Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"}
		sse := row
		sse.Group = GroupSSE
		other := Register(Check{ID: "ZZ-SSE-01", Title: "t", Row: sse, Run: func(t *T) Verdict { ran = true; return Pass("ran") }})
		explicit := Register(Check{ID: "ZZ-HTTP-01", Title: "t", Row: row, Transports: []string{"http"}, Run: func(t *T) Verdict { ran = true; return Pass("ran") }})
		helper := func(t *T, skip bool) {
			if skip {
				t.SkipNow(reports.NeedsFixture, "no fixture %s", "x")
			}
			t.ErrorNow("not verified: %s", "y")
		}
		skipped := Register(Check{ID: "ZZ-STOP-01", Title: "t", Row: row, Run: func(t *T) Verdict { helper(t, true); return Pass("not reached") }})
		errored := Register(Check{ID: "ZZ-STOP-02", Title: "t", Row: row, Run: func(t *T) Verdict { helper(t, false); return Pass("not reached") }})
		// NotOn: the rule gives way in this revision over stdio (neither Probe nor
		// Run called), and not where it names another revision.
		two := row
		two.Revisions = []revision.Revision{rev, revision.MustLookup("2025-11-25")}
		notHere := Register(Check{ID: "ZZ-NOTON-01", Title: "t", Row: two, Probe: func(t *T) { ran = true },
			Run: func(t *T) Verdict { ran = true; return Pass("ran") }, NotOn: []NotOn{{Revision: rev.Name, Transport: "stdio", Why: "another rule"}}})
		elsewhere := Register(Check{ID: "ZZ-NOTON-02", Title: "t", Row: two,
			Run: func(t *T) Verdict { return Pass("ran") }, NotOn: []NotOn{{Revision: "2025-11-25", Transport: "stdio", Why: "another rule"}}})
		vs := judgePiped(t, rev, other, explicit, skipped, errored, notHere, elsewhere)
		if ran {
			t.Error("the Probe or Run of a check of another transport, or not on this revision's, was called")
		}
		for i, want := range []struct {
			status reports.Status
			reason reports.SkipReason
			text   string
		}{
			{reports.Skip, reports.NotApplicable, "a rule of the HTTP+SSE transport; the session runs over stdio"},
			{reports.Skip, reports.NotApplicable, "a rule of the Streamable HTTP transport; the session runs over stdio"},
			{reports.Skip, reports.NeedsFixture, "no fixture x"},
			{reports.Error, "", "not verified: y"},
			{reports.Skip, reports.NotApplicable, "not a rule of 2025-06-18 over stdio: another rule"},
			{reports.Pass, "", "ran"},
		} {
			if v := vs[i]; v.Status != want.status || v.Reason != want.reason || v.Message != want.text {
				t.Errorf("check %d: %s %s %q, want %s %s %q", i, v.Status, v.Reason, v.Message, want.status, want.reason, want.text)
			}
		}
	})
}

// A transcript check is judged after its column settled, so its own run sends
// nothing: the exchange of its failing verdict is the traffic of the probe it
// read — its Probe's, or the T.Once computation another check's probe made.
func TestProbeEvidence(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	withRegistry(t, func() {
		row := Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"}
		probe := func(t *T) {
			t.Once("shared-probe", func() any {
				_, err := t.Session().Call(t.Ctx, "x/shared-probe", map[string]any{})
				return err
			})
		}
		fail := func(t *T) Verdict { return Fail("no finding", "a finding") }
		first := Register(Check{ID: "ZZ-PROBE-01", Title: "t", Row: row, Probe: probe, Run: fail})
		second := Register(Check{ID: "ZZ-PROBE-02", Title: "t", Row: row, Probe: probe, Run: fail})
		for i, v := range judgePiped(t, rev, first, second) {
			if v.Status != reports.Fail {
				t.Fatalf("check %d: %s %q, want fail", i, v.Status, v.Message)
			}
			ex := v.Exchange()
			if ex == nil || len(ex.Sessions) != 1 {
				t.Fatalf("check %d: exchange %+v, want the main session's probe", i, ex)
			}
			var got []string
			for _, m := range ex.Sessions[0].Messages {
				got = append(got, m.Dir+" "+m.Method())
			}
			if !slices.Equal(got, []string{"send x/shared-probe", "recv "}) {
				t.Errorf("check %d: exchange %q, want the shared probe's request and its reply", i, got)
			}
		}
	})
}

// A check that judges traffic other checks made cites what broke its rule: its
// failing verdict shows the cited request with its reply, and nothing else.
func TestCitedEvidence(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	withRegistry(t, func() {
		row := Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"}
		sender := Register(Check{ID: "ZZ-CITE-01", Title: "t", Row: row, Run: func(t *T) Verdict {
			for _, m := range []string{"x/other", "x/cited"} {
				if _, err := t.Session().Call(t.Ctx, m, map[string]any{}); err != nil {
					return Errorf("%s: %v", m, err)
				}
			}
			return Pass("sent")
		}})
		judge := Register(Check{ID: "ZZ-CITE-02", Title: "t", Row: row, Phase: PhaseTranscript, Run: func(t *T) Verdict {
			for _, e := range t.Transcript(t.Session()) {
				if e.Msg != nil && e.Msg.Method == "x/cited" {
					t.Cite(t.Session(), e.Seq)
				}
			}
			return Fail("no finding", "a finding")
		}})
		// Named: the verdict's message names the entry as the suites' Where
		// helpers do ("<label> #<seq>"), and the runner cites it.
		named := Register(Check{ID: "ZZ-CITE-03", Title: "t", Row: row, Phase: PhaseTranscript, Run: func(t *T) Verdict {
			for _, e := range t.Transcript(t.Session()) {
				if e.Msg != nil && e.Msg.Method == "x/cited" {
					return Fail("no finding", fmt.Sprintf("(%s #%d) broke the rule", t.Session().Label, e.Seq))
				}
			}
			return Errorf("x/cited not found")
		}})
		vs := judgePiped(t, rev, sender, judge, named)
		for _, v := range vs[1:] {
			ex := v.Exchange()
			if v.Status != reports.Fail || ex == nil || len(ex.Sessions) != 1 {
				t.Fatalf("verdict %s %q, exchange %+v: want a fail showing the main session", v.Status, v.Message, ex)
			}
			var got []string
			for _, m := range ex.Sessions[0].Messages {
				got = append(got, m.Dir+" "+m.Method())
			}
			if !slices.Equal(got, []string{"send x/cited", "recv "}) {
				t.Errorf("%q: exchange %q, want the cited request and its reply", v.Message, got)
			}
		}
	})
}

// Once the column has settled, its transcript checks are judged side by side: two
// that each wait for the other to start both pass, where judged one at a time the
// first would wait out its bound. The first transcript check, which makes the settle
// over stdio, runs alone before them.
func TestSettledTranscriptChecksJudgedSideBySide(t *testing.T) {
	if transcriptJudges < 2 {
		t.Skipf("one CPU: transcript checks are judged one at a time")
	}
	rev := revision.MustLookup("2025-06-18")
	withRegistry(t, func() {
		row := Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"}
		var settledFirst bool
		first := Register(Check{ID: "AA-SETTLES-01", Title: "t", Row: row, Phase: PhaseTranscript, Run: func(t *T) Verdict {
			settledFirst = len(t.Sessions()) > 0
			return Pass("first")
		}})
		started := map[string]chan struct{}{"BB-WAITS-01": make(chan struct{}), "CC-WAITS-01": make(chan struct{})}
		waiter := func(self, other string) func(t *T) Verdict {
			return func(t *T) Verdict {
				close(started[self])
				select {
				case <-started[other]:
					return Pass("judged beside %s", other)
				case <-time.After(5 * time.Second):
					return Fail("judged beside "+other, "judged alone")
				}
			}
		}
		b := Register(Check{ID: "BB-WAITS-01", Title: "t", Row: row, Phase: PhaseTranscript, Run: waiter("BB-WAITS-01", "CC-WAITS-01")})
		c := Register(Check{ID: "CC-WAITS-01", Title: "t", Row: row, Phase: PhaseTranscript, Run: waiter("CC-WAITS-01", "BB-WAITS-01")})
		_, _, got := runColumn(t, &pipeServer{}, rev)
		if !settledFirst {
			t.Error("the first transcript check saw no session")
		}
		for _, ck := range []*Check{first, b, c} {
			if v := got[ck.ID]; v.Status != reports.Pass {
				t.Errorf("%s: %s (%s), want pass", ck.ID, v.Status, v.Message)
			}
		}
	})
}
