package catalogue_test

import (
	"bytes"
	"flag"
	"go/format"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/catalogue"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	_ "github.com/mcp-conform/mcp-conform/suites" // registers every check
)

var update = flag.Bool("update", false, "rewrite checks.yaml, the golden list of registered checks")

// levelDisputes are checks whose level the catalogue's row does not allow, each
// reported to the owner of the check. The test fails when a dispute is resolved, so
// this list cannot go stale.
var levelDisputes = map[string]string{}

func requirements(t *testing.T) map[string]catalogue.Requirement {
	t.Helper()
	rows, err := catalogue.Requirements()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]catalogue.Requirement{}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out
}

func known(revs []string) []string {
	var out []string
	for _, r := range revs {
		if _, ok := revision.Lookup(r); ok {
			out = append(out, r)
		}
	}
	return out
}

// TestEveryCheckIsARow: every registered check verifies a row of the catalogue, in the
// row's revisions (those the suite knows), at a level the row allows, with needs the
// row allows.
func TestEveryCheckIsARow(t *testing.T) {
	if err := conform.RegistryErr(); err != nil {
		t.Fatal(err)
	}
	rows := requirements(t)
	disputed := map[string]bool{}
	for _, c := range conform.Checks() {
		row, ok := rows[c.ID]
		if !ok {
			t.Errorf("%s: registered, but no row of requirements.yaml has this ID", c.ID)
			continue
		}
		var revs []string
		for _, r := range c.Revisions {
			revs = append(revs, r.Name)
		}
		want := known(row.Revisions)
		if row.NotIn != nil {
			for _, r := range row.NotIn.Revisions {
				if slices.Contains(revs, r) {
					t.Errorf("%s: notIn lists %s, where the check runs", c.ID, r)
				}
			}
			if !slices.Contains(Reasons(), row.NotIn.Reason) || row.NotIn.Note == "" {
				t.Errorf("%s: notIn needs a valid reason and a note", c.ID)
			}
			want = slices.DeleteFunc(want, func(r string) bool { return slices.Contains(row.NotIn.Revisions, r) })
		}
		if !slices.Equal(revs, want) {
			t.Errorf("%s: check runs in %v, the row (%s) in %v", c.ID, revs, row.Revs, want)
		}
		for _, r := range c.Revisions {
			got := string(c.LevelAt(r))
			if allowed := row.Levels(r.Name); !slices.Contains(allowed, got) {
				if _, ok := levelDisputes[c.ID]; ok {
					disputed[c.ID] = true
					continue
				}
				t.Errorf("%s in %s: check level %s, the row's level %q allows %v", c.ID, r.Name, got, row.Level, allowed)
			}
		}
		if !row.NeedsAllow(string(c.Needs)) {
			t.Errorf("%s: check needs %s, the row needs %s", c.ID, c.Needs, row.Needs)
		}
		if row.Uncovered != nil {
			t.Errorf("%s: has a check but is marked uncovered (%s)", c.ID, row.Uncovered.Reason)
		}
		if row.Quote == nil || row.Quote.Text == "" || row.Quote.From == "" {
			t.Errorf("%s: a row with a check quotes the spec text behind it", c.ID)
		}
	}
	for id, why := range levelDisputes {
		if !disputed[id] {
			t.Errorf("%s: listed as a level dispute (%s) but check and row now agree: remove it from levelDisputes", id, why)
		}
	}
}

// TestEveryRowIsCoveredOrExplained: a row without a check says why.
func TestEveryRowIsCoveredOrExplained(t *testing.T) {
	rows, err := catalogue.Requirements()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range conform.Checks() {
		ids[c.ID] = true
	}
	groups := map[catalogue.Group]int{}
	for _, r := range rows {
		groups[r.Group]++
		switch {
		case !slices.Contains(catalogue.Groups, r.Group):
			t.Errorf("%s: unknown group %q", r.ID, r.Group)
		case len(r.Revisions) == 0 || r.Level == "" || r.Source == "" || r.Requirement == "" || r.Needs == "":
			t.Errorf("%s: revisions, level, requirement, source and needs are required", r.ID)
		case !strings.HasPrefix(r.ID, string(r.Group)+"-") && r.Group != catalogue.Util:
			t.Errorf("%s: ID does not start with its group %s", r.ID, r.Group)
		}
		for _, rev := range r.Revisions {
			if !slices.Contains([]string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}, rev) {
				t.Errorf("%s: unknown revision %q", r.ID, rev)
			}
		}
		if ids[r.ID] {
			continue
		}
		switch {
		case r.Uncovered == nil:
			t.Errorf("%s: no check registers this row, and it gives no reason (uncovered)", r.ID)
		case !slices.Contains(catalogue.Reasons, r.Uncovered.Reason) || r.Uncovered.Note == "":
			t.Errorf("%s: uncovered reason %q is not one of %v, or has no note", r.ID, r.Uncovered.Reason, catalogue.Reasons)
		}
	}
	// The counts of rows per group the catalogue was written with.
	want := map[catalogue.Group]int{"BASE": 26, "LIFE": 17, "MOD": 17, "STDIO": 10, "SSE": 8, "SHTTP": 31, "H5": 18,
		"TOOLS": 37, "PAG": 10, "ERR": 8, "CONTENT": 14, "STRUCT": 8, "NOTIF": 10, "UTIL": 26,
		"RES": 27, "PROMPT": 11, "COMPL": 5, "AUTH": 19}
	for g, n := range want {
		if groups[g] != n {
			t.Errorf("group %s: %d rows, the matrix has %d", g, groups[g], n)
		}
	}
	if len(rows) != 302 {
		t.Errorf("%d rows, the matrix has 302", len(rows))
	}
}

func TestLevels(t *testing.T) {
	for _, tc := range []struct {
		level, rev string
		want       []string
	}{
		{"MUST", "2024-11-05", []string{"must"}},
		{"MUST (schema)", "2025-06-18", []string{"must"}},
		{"MUST (JSON-RPC)", "2025-06-18", []string{"must"}},
		{"MAY (schema)", "2025-06-18", []string{"may", "must"}},
		{"SHOULD NOT", "2025-06-18", []string{"should"}},
		{"(derived)", "2025-06-18", []string{"derived"}},
		{"MUST NOT (derived from schema)", "2024-11-05", []string{"derived"}},
		{"(recommended)", "2025-11-25", []string{"descriptive"}},
		{"SHOULD (R1–R2) / MUST (R3–R4)", "2025-03-26", []string{"should"}},
		{"SHOULD (R1–R2) / MUST (R3–R4)", "2025-06-18", []string{"must"}},
		{"(descriptive) R1–R3 / SHOULD R4+", "2025-06-18", []string{"descriptive"}},
		{"(descriptive) R1–R3 / SHOULD R4+", "2025-11-25", []string{"should"}},
		{"MUST (client) (R5) / (derived) (R1–R4)", "2025-11-25", []string{"derived"}},
		{"MUST (client)", "2025-11-25", nil},
		{"MUST / SHOULD", "2025-11-25", []string{"must", "should"}},
	} {
		got := catalogue.Requirement{Level: tc.level}.Levels(tc.rev)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Levels(%q, %s) = %v, want %v", tc.level, tc.rev, got, tc.want)
		}
	}
}

// golden is one check as checks.yaml lists it.
type golden struct {
	ID         string   `yaml:"id"`
	Title      string   `yaml:"title"`
	Phase      string   `yaml:"phase"`
	Transports flowList `yaml:"transports,omitempty"`
	Options    flowList `yaml:"options,omitempty"`
}

// flowList writes a list on one line: [a, b].
type flowList []string

func (f flowList) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range f {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: s})
	}
	return n, nil
}

const goldenHeader = `# The golden list of every registered check of mcp-conform (as Kubernetes' conformance.yaml).
# Generated: go test ./internal/catalogue -update. A unit test diffs it against the registry,
# so adding, renaming, re-phasing or removing a check is a visible, reviewed change. It lists
# what the Go code of a check says; its revisions, level and spec text are its row's in
# requirements.yaml (a check's verdict block), reviewed there.
`

// TestChecksGolden compares every registered check with checks.yaml.
func TestChecksGolden(t *testing.T) {
	var list []golden
	for _, c := range conform.Checks() {
		g := golden{ID: c.ID, Title: c.Title, Phase: c.Phase.String(), Transports: c.Transports, Options: c.OptionNames()}
		list = append(list, g)
	}
	var buf bytes.Buffer
	buf.WriteString(goldenHeader)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(map[string][]golden{"checks": list}); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	const path = "checks.yaml"
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it: go test ./internal/catalogue -update)", err)
	}
	if bytes.Equal(want, buf.Bytes()) {
		return
	}
	// Name the checks that differ, not just the bytes.
	var old struct {
		Checks []golden `yaml:"checks"`
	}
	if err := yaml.Unmarshal(want, &old); err != nil {
		t.Fatalf("checks.yaml: %v", err)
	}
	byID := map[string]golden{}
	for _, g := range old.Checks {
		byID[g.ID] = g
	}
	for _, g := range list {
		o, ok := byID[g.ID]
		switch {
		case !ok:
			t.Errorf("%s: registered but not in checks.yaml (added or renamed)", g.ID)
		case !equal(o, g):
			t.Errorf("%s: differs from checks.yaml:\n  golden: %+v\n  now:    %+v", g.ID, o, g)
		}
		delete(byID, g.ID)
	}
	for id := range byID {
		t.Errorf("%s: in checks.yaml but no longer registered (removed or renamed)", id)
	}
	t.Errorf("checks.yaml is out of date: review the change, then go test ./internal/catalogue -update")
}

func equal(a, b golden) bool {
	return a.ID == b.ID && a.Title == b.Title && a.Phase == b.Phase && slices.Equal(a.Transports, b.Transports) && slices.Equal(a.Options, b.Options)
}

// Reasons is catalogue.Reasons, for the notIn rule.
func Reasons() []catalogue.Reason { return catalogue.Reasons }

// TestCheckRowsGenerated: checkrows_gen.go is what requirements.yaml says of every
// covered row (go test ./internal/catalogue -update rewrites it).
func TestCheckRowsGenerated(t *testing.T) {
	rows, err := catalogue.Requirements()
	if err != nil {
		t.Fatal(err)
	}
	gen, err := catalogue.GenerateCheckRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	if gen, err = format.Source(gen); err != nil {
		t.Fatal(err)
	}
	const path = "checkrows_gen.go"
	if *update {
		if err := os.WriteFile(path, gen, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if have, err := os.ReadFile(path); err != nil || !bytes.Equal(have, gen) {
		t.Errorf("%s is not what requirements.yaml says (%v): go test ./internal/catalogue -update", path, err)
	}
}
