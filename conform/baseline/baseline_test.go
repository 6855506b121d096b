package baseline

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name       string
		doc        string
		expected   []Entry
		quarantine []Entry
		notes      int
		wantErr    string // substring; "" means no error
	}{
		{name: "empty file", doc: ""},
		{
			name: "native, revision list and all",
			doc: "expected-failures:\n" +
				"  - id: TOOLS-CALL-UNKNOWN-01\n    revisions: [2025-06-18, 2025-11-25]\n    reason: SDK v1 answers isError\n" +
				"  - id: PAG-INVALID-01\n    revisions: all\n    reason: ignores cursors\n" +
				"  - id: BASE-INVALID-PARAMS-01\n    reason: no revisions means all\n" +
				"quarantine:\n  - id: NOTIF-LC-01\n    revisions: 2025-11-25\n    reason: flaky\n",
			expected: []Entry{
				{ID: "TOOLS-CALL-UNKNOWN-01", Revisions: []string{"2025-06-18", "2025-11-25"}, Reason: "SDK v1 answers isError", Line: 2},
				{ID: "PAG-INVALID-01", Reason: "ignores cursors", Line: 5},
				{ID: "BASE-INVALID-PARAMS-01", Reason: "no revisions means all", Line: 8},
			},
			quarantine: []Entry{{ID: "NOTIF-LC-01", Revisions: []string{"2025-11-25"}, Reason: "flaky", Line: 11}},
		},
		{
			name: "official shape: check IDs carry over with their comments, client ignored",
			doc:  "server:\n  - TOOLS-CALL-UNKNOWN-01 # SDK v1 answers isError\n  - PAG-INVALID-01\nclient:\n  - sse-retry\n",
			expected: []Entry{
				{ID: "TOOLS-CALL-UNKNOWN-01", Reason: "SDK v1 answers isError", Line: 2},
				{ID: "PAG-INVALID-01", Reason: officialReason, Line: 3},
			},
			notes: 1,
		},
		{name: "official scenario name has no meaning here", doc: "server:\n  - tools-call-with-progress\n", wantErr: `"tools-call-with-progress" is an official-suite scenario`},
		{name: "official scenario:check entry", doc: "server:\n  - server-stateless:sep-2575-x\n", wantErr: "official-suite scenario"},
		{name: "official mapping entry (space after colon)", doc: "server:\n  - tools-call: x\n", wantErr: "got a mapping"},
		{name: "missing reason", doc: "expected-failures:\n  - id: PING-01\n", wantErr: "PING-01 has no reason"},
		{name: "not an ID", doc: "expected-failures:\n  - id: ping\n    reason: x\n", wantErr: `id "ping" is not a check ID`},
		{name: "unknown revision", doc: "expected-failures:\n  - id: PING-01\n    revisions: [2099-01-01]\n    reason: x\n", wantErr: `unknown revision "2099-01-01"`},
		{name: "empty revision list", doc: "expected-failures:\n  - id: PING-01\n    revisions: []\n    reason: x\n", wantErr: "empty list"},
		{name: "unknown key (typo)", doc: "expected-failure:\n  - id: PING-01\n", wantErr: "expected-failure"},
		{name: "unknown entry key", doc: "expected-failures:\n  - id: PING-01\n    reson: x\n", wantErr: "reson"},
		{name: "same check twice", doc: "expected-failures:\n  - id: PING-01\n    reason: a\n  - id: PING-01\n    revisions: [2025-11-25]\n    reason: b\n", wantErr: "PING-01 is listed twice (lines 2 and 4) for 2025-11-25"},
		{name: "same check, disjoint revisions", doc: "expected-failures:\n  - id: PING-01\n    revisions: [2024-11-05]\n    reason: a\n  - id: PING-01\n    revisions: [2025-11-25]\n    reason: b\n",
			expected: []Entry{{ID: "PING-01", Revisions: []string{"2024-11-05"}, Reason: "a", Line: 2}, {ID: "PING-01", Revisions: []string{"2025-11-25"}, Reason: "b", Line: 5}}},
		{name: "expected and quarantined at once", doc: "expected-failures:\n  - id: PING-01\n    reason: a\nquarantine:\n  - id: PING-01\n    reason: b\n", wantErr: "expected-failures and quarantine: PING-01 is listed twice"},
		{name: "not YAML", doc: "expected-failures: [\n", wantErr: "baseline b.yml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("b.yml", []byte(tc.doc))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !slices.EqualFunc(f.Expected, tc.expected, entryEqual) {
				t.Errorf("expected-failures = %+v, want %+v", f.Expected, tc.expected)
			}
			if !slices.EqualFunc(f.Quarantine, tc.quarantine, entryEqual) {
				t.Errorf("quarantine = %+v, want %+v", f.Quarantine, tc.quarantine)
			}
			if len(f.Notes) != tc.notes {
				t.Errorf("notes = %q, want %d", f.Notes, tc.notes)
			}
		})
	}
}

func entryEqual(a, b Entry) bool {
	return a.ID == b.ID && slices.Equal(a.Revisions, b.Revisions) && a.Reason == b.Reason && a.Line == b.Line
}

func TestApply(t *testing.T) {
	f := &File{
		Expected:   []Entry{{ID: "A-01", Revisions: []string{"2025-11-25"}, Reason: "known"}, {ID: "B-01", Reason: "known everywhere"}},
		Quarantine: []Entry{{ID: "Q-01", Reason: "flaky"}},
	}
	tests := []struct {
		id, rev    string
		status     reports.Status
		want       reports.Status
		baselined  bool
		quarantine bool
	}{
		{id: "A-01", rev: "2025-11-25", status: reports.Fail, want: reports.ExpectedFail, baselined: true},
		{id: "A-01", rev: "2025-11-25", status: reports.Warn, want: reports.ExpectedFail, baselined: true},
		{id: "A-01", rev: "2025-06-18", status: reports.Fail, want: reports.Fail}, // another revision: still gates
		{id: "A-01", rev: "2025-11-25", status: reports.Pass, want: reports.Pass},
		{id: "A-01", rev: "2025-11-25", status: reports.Error, want: reports.Error}, // nothing verified: never accepted
		{id: "A-01", rev: "2025-11-25", status: reports.Skip, want: reports.Skip},
		{id: "B-01", rev: "2024-11-05", status: reports.Fail, want: reports.ExpectedFail, baselined: true},
		{id: "C-01", rev: "2025-11-25", status: reports.Fail, want: reports.Fail},
		{id: "Q-01", rev: "2025-11-25", status: reports.Fail, want: reports.Fail, quarantine: true},
		{id: "Q-01", rev: "2025-11-25", status: reports.Pass, want: reports.Pass, quarantine: true},
	}
	for _, tc := range tests {
		r := reports.CheckResult{ID: tc.id, Status: tc.status}
		f.Apply(tc.rev, &r)
		if r.Status != tc.want || (r.Baseline != nil) != tc.baselined || (r.Quarantine != nil) != tc.quarantine {
			t.Errorf("Apply(%s %s %s) = %s, baseline %+v, quarantine %+v; want %s, baselined %v, quarantined %v",
				tc.id, tc.rev, tc.status, r.Status, r.Baseline, r.Quarantine, tc.want, tc.baselined, tc.quarantine)
		}
		if tc.baselined && r.Baseline.Status != tc.status {
			t.Errorf("Apply(%s %s %s): baseline keeps %s, want the verdict it was", tc.id, tc.rev, tc.status, r.Baseline.Status)
		}
		if gates := r.Gates(); gates != ((tc.want == reports.Fail || tc.want == reports.Error) && !tc.quarantine) {
			t.Errorf("Apply(%s %s %s): Gates() = %v", tc.id, tc.rev, tc.status, gates)
		}
	}
	var none *File
	r := reports.CheckResult{ID: "A-01", Status: reports.Fail}
	none.Apply("2025-11-25", &r)
	if r.Status != reports.Fail {
		t.Errorf("a nil baseline changed a verdict to %s", r.Status)
	}
}

// fakeCatalog knows checks by ID and the revisions they apply to.
type fakeCatalog map[string][]string

func (c fakeCatalog) AppliesTo(id, rev string) (bool, bool) {
	revs, ok := c[id]
	return ok, slices.Contains(revs, rev)
}

func TestJudgeStale(t *testing.T) {
	cat := fakeCatalog{
		"A-01": {"2025-06-18", "2025-11-25"},
		"B-01": {"2025-06-18", "2025-11-25"},
		"Q-01": {"2025-06-18", "2025-11-25"},
	}
	// column builds a report column from ID=status pairs, through Apply.
	run := func(f *File, cols map[string]map[string]reports.Status) *reports.Report {
		rep := &reports.Report{}
		for _, rev := range []string{"2025-06-18", "2025-11-25"} {
			rr := reports.RevisionReport{Revision: rev}
			for _, id := range []string{"A-01", "B-01", "Q-01"} {
				st, ok := cols[rev][id]
				if !ok {
					continue
				}
				r := reports.CheckResult{ID: id, Status: st}
				f.Apply(rev, &r)
				rr.Checks = append(rr.Checks, r)
			}
			rep.Revisions = append(rep.Revisions, rr)
		}
		return rep
	}
	F, P, S, E, W := reports.Fail, reports.Pass, reports.Skip, reports.Error, reports.Warn
	tests := []struct {
		name     string
		file     *File
		cols     map[string]map[string]reports.Status
		stale    []string // "ID: problem substring"
		expected int
		quar     int
	}{
		{
			name:     "every listed failure still fails",
			file:     &File{Expected: []Entry{{ID: "A-01", Revisions: []string{"2025-06-18", "2025-11-25"}, Reason: "r"}}},
			cols:     map[string]map[string]reports.Status{"2025-06-18": {"A-01": F}, "2025-11-25": {"A-01": W}},
			expected: 2,
		},
		{
			name:     "a listed revision now passes",
			file:     &File{Expected: []Entry{{ID: "A-01", Revisions: []string{"2025-06-18", "2025-11-25"}, Reason: "r"}}},
			cols:     map[string]map[string]reports.Status{"2025-06-18": {"A-01": F}, "2025-11-25": {"A-01": P}},
			stale:    []string{"A-01: the check now passes at 2025-11-25"},
			expected: 1,
		},
		{
			name:     "all revisions: failing somewhere is not stale",
			file:     &File{Expected: []Entry{{ID: "A-01", Reason: "r"}}},
			cols:     map[string]map[string]reports.Status{"2025-06-18": {"A-01": P}, "2025-11-25": {"A-01": F}},
			expected: 1,
		},
		{
			name:  "all revisions: passing everywhere is stale",
			file:  &File{Expected: []Entry{{ID: "A-01", Reason: "r"}}},
			cols:  map[string]map[string]reports.Status{"2025-06-18": {"A-01": P}, "2025-11-25": {"A-01": P}},
			stale: []string{"A-01: the check now passes at 2025-06-18, 2025-11-25"},
		},
		{
			name: "skipped, errored or not selected proves nothing",
			file: &File{Expected: []Entry{{ID: "A-01", Reason: "r"}, {ID: "B-01", Revisions: []string{"2025-11-25"}, Reason: "r"}}},
			cols: map[string]map[string]reports.Status{"2025-06-18": {"A-01": S}, "2025-11-25": {"A-01": E}},
		},
		{
			name:  "a check that no longer exists",
			file:  &File{Expected: []Entry{{ID: "GONE-01", Reason: "r", Line: 7}}},
			cols:  map[string]map[string]reports.Status{},
			stale: []string{"GONE-01: no check has this ID"},
		},
		{
			name:  "a revision the check does not apply to",
			file:  &File{Expected: []Entry{{ID: "A-01", Revisions: []string{"2024-11-05"}, Reason: "r"}}},
			cols:  map[string]map[string]reports.Status{},
			stale: []string{"A-01: the check does not apply to 2024-11-05"},
		},
		{
			name: "quarantine never goes stale by its verdict",
			file: &File{Quarantine: []Entry{{ID: "Q-01", Reason: "flaky"}}},
			cols: map[string]map[string]reports.Status{"2025-06-18": {"Q-01": P}, "2025-11-25": {"Q-01": F}},
			quar: 2,
		},
		{
			name:  "quarantine of a check that does not exist",
			file:  &File{Quarantine: []Entry{{ID: "GONE-01", Reason: "flaky"}}},
			cols:  map[string]map[string]reports.Status{},
			stale: []string{"GONE-01: quarantines nothing"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := run(tc.file, tc.cols)
			got := tc.file.Judge(rep, cat)
			if got.ExpectedFail != tc.expected || got.Quarantined != tc.quar {
				t.Errorf("expected-fail %d, quarantined %d; want %d, %d", got.ExpectedFail, got.Quarantined, tc.expected, tc.quar)
			}
			if len(got.Stale) != len(tc.stale) {
				t.Fatalf("stale = %+v, want %d: %q", got.Stale, len(tc.stale), tc.stale)
			}
			for i, want := range tc.stale {
				id, problem, _ := strings.Cut(want, ": ")
				if got.Stale[i].ID != id || !strings.Contains(got.Stale[i].Problem, problem) {
					t.Errorf("stale[%d] = %+v, want %s with %q", i, got.Stale[i], id, problem)
				}
			}
		})
	}
}

func TestWriteRoundTrip(t *testing.T) {
	prev := &File{
		Expected:   []Entry{{ID: "A-01", Reason: "explained"}},
		Quarantine: []Entry{{ID: "Q-01", Revisions: []string{"2025-11-25"}, Reason: "flaky"}},
	}
	rep := &reports.Report{Target: "server --flag", Revisions: []reports.RevisionReport{
		{Revision: "2025-06-18", Checks: []reports.CheckResult{
			{ID: "A-01", Status: reports.Fail}, {ID: "B-01", Status: reports.Fail}, {ID: "C-01", Status: reports.Warn},
			{ID: "D-01", Status: reports.Error}, {ID: "Q-01", Status: reports.Fail},
		}},
		{Revision: "2025-11-25", Checks: []reports.CheckResult{
			{ID: "A-01", Status: reports.Pass}, {ID: "B-01", Status: reports.Fail}, {ID: "Q-01", Status: reports.Fail},
		}},
	}}
	for i := range rep.Revisions {
		for j := range rep.Revisions[i].Checks {
			prev.Apply(rep.Revisions[i].Revision, &rep.Revisions[i].Checks[j])
		}
	}
	var b bytes.Buffer
	if err := Write(&b, rep, prev); err != nil {
		t.Fatal(err)
	}
	got, err := Parse("written.yml", b.Bytes())
	if err != nil {
		t.Fatalf("the written baseline does not parse: %v\n%s", err, b.String())
	}
	want := []Entry{
		{ID: "A-01", Revisions: []string{"2025-06-18"}, Reason: "explained"},
		{ID: "B-01", Revisions: []string{"2025-06-18", "2025-11-25"}, Reason: TODOReason},
		{ID: "Q-01", Revisions: []string{"2025-06-18"}, Reason: TODOReason}, // quarantined at 2025-11-25 only
	}
	clearLines := func(es []Entry) []Entry {
		for i := range es {
			es[i].Line = 0
		}
		return es
	}
	if !slices.EqualFunc(clearLines(got.Expected), want, entryEqual) {
		t.Errorf("written expected-failures = %+v, want %+v (warns, errors and quarantined verdicts are not written)\n%s", got.Expected, want, b.String())
	}
	if !slices.EqualFunc(clearLines(got.Quarantine), prev.Quarantine, entryEqual) {
		t.Errorf("written quarantine = %+v, want %+v", got.Quarantine, prev.Quarantine)
	}
	if !strings.Contains(b.String(), "server --flag") {
		t.Errorf("the header does not name the target:\n%s", b.String())
	}
}

// TestREADMEExamples parses the baseline examples of docs/reports.md (once the
// README's): the native shape and the official suite's.
func TestREADMEExamples(t *testing.T) {
	readme, err := os.ReadFile("../../docs/reports.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "## Baseline and quarantine")
	if start < 0 {
		t.Fatal("docs/reports.md has no Baseline and quarantine section")
	}
	section := text[start:]
	section = section[:strings.Index(section[1:], "\n## ")+1]
	var blocks []string
	for rest := section; ; {
		i := strings.Index(rest, "```yaml\n")
		if i < 0 {
			break
		}
		rest = rest[i+len("```yaml\n"):]
		end := strings.Index(rest, "```")
		blocks = append(blocks, rest[:end])
		rest = rest[end:]
	}
	if len(blocks) != 2 {
		t.Fatalf("want the native and the official example, found %d yaml blocks", len(blocks))
	}
	native, err := Parse("README native", []byte(blocks[0]))
	if err != nil || len(native.Expected) != 1 || len(native.Quarantine) != 1 || len(native.Expected[0].Revisions) != 2 {
		t.Errorf("README native example: %+v, %v", native, err)
	}
	official, err := Parse("README official", []byte(blocks[1]))
	if err != nil || len(official.Expected) != 1 || official.Expected[0].Reason != "the comment becomes the reason" || len(official.Notes) != 1 {
		t.Errorf("README official example: %+v, %v", official, err)
	}
}
