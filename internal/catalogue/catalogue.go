// Package catalogue is mcp-conform's requirement catalogue as data: every server
// requirement of the MCP specification the suite knows (requirements.yaml, embedded),
// with its revisions, level, source page, the black-box check that verifies it, and for
// a requirement without a registered check, the reason. A check's ID is a row's ID, so
// a verdict can always be looked up here.
package catalogue

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed requirements.yaml
var requirementsYAML []byte

// Requirement is one row of the catalogue.
type Requirement struct {
	ID    string `yaml:"id"`
	Group Group  `yaml:"group"`
	// Revs is the revision set in short notation (all, R3+, R1–R4, …); Revisions is the
	// same set as revision names.
	Revs      string   `yaml:"revs"`
	Revisions []string `yaml:"revisions"`
	// Level is the RFC 2119 key word as the spec applies it, with the catalogue's
	// qualifiers; see Levels for what a check may report.
	Level       string     `yaml:"level"`
	Requirement string     `yaml:"requirement"`
	Source      string     `yaml:"source"`
	Check       string     `yaml:"check"`
	Needs       string     `yaml:"needs"`
	Quote       *Quote     `yaml:"quote,omitempty"`
	Uncovered   *Uncovered `yaml:"uncovered,omitempty"`
	// NotIn lists revisions of the row that its check does not cover yet, and why
	// (a covered row whose check stops short of some of the row's revisions).
	NotIn *NotIn `yaml:"notIn,omitempty"`
	Note  string `yaml:"note,omitempty"`
	// Verdict is how the row's check judges (a covered row has one): the spec text
	// behind its verdicts, and its level and needs where the row's own columns allow
	// more than one.
	Verdict *Verdict `yaml:"verdict,omitempty"`
}

// Verdict is the part of a covered row that only its check's verdicts need.
type Verdict struct {
	// Level is the check's level ("must", "should", "may", "descriptive",
	// "derived") where the row's level allows more than one; StricterFrom ("must
	// from 2025-06-18") raises it from a revision on. Both empty: the one level the
	// row allows in each revision.
	Level        string `yaml:"level,omitempty"`
	StricterFrom string `yaml:"stricterFrom,omitempty"`
	// Needs is the check's needs ("any", "calls", "opportunistic", "fixture") where
	// the row's needs column names more than one; empty: the one it names.
	Needs string `yaml:"needs,omitempty"`
	// Basis is the spec text behind the verdict, as reports quote it: the row's
	// quote with what the check makes of it.
	Basis string `yaml:"basis"`
}

// NotIn is the part of a covered row's revisions its check leaves out, with why.
type NotIn struct {
	Revisions []string `yaml:"revisions"`
	Reason    Reason   `yaml:"reason"`
	Note      string   `yaml:"note"`
}

// Quote is the key sentence of the spec behind a row, and where it is.
type Quote struct {
	From string `yaml:"from"`
	Text string `yaml:"text"`
}

// Uncovered says why a row has no registered check.
type Uncovered struct {
	Reason Reason `yaml:"reason"`
	Note   string `yaml:"note"`
}

// Reason is why a row has no check.
type Reason string

// The reasons a row may have no check.
const (
	NotImplemented Reason = "not-implemented" // a black-box check is possible; none is written yet
	ClientRule     Reason = "client-rule"     // the rule binds the client; the suite obeys it
	NotBlackBox    Reason = "not-black-box"   // cannot be observed from outside the server
	ModernEra      Reason = "modern-era"      // 2026-07-28 only: needs the modern-era driver
	NoObligation   Reason = "no-obligation"   // states no server behaviour that could fail
)

// Reasons lists every valid Reason.
var Reasons = []Reason{NotImplemented, ClientRule, NotBlackBox, ModernEra, NoObligation}

type file struct {
	Requirements []Requirement `yaml:"requirements"`
}

var (
	loadOnce sync.Once
	loaded   []Requirement
	loadErr  error
)

// Requirements returns every row of the catalogue, in the matrix's order.
func Requirements() ([]Requirement, error) {
	loadOnce.Do(func() { loaded, loadErr = parse(requirementsYAML) })
	return slices.Clone(loaded), loadErr
}

func parse(data []byte) ([]Requirement, error) {
	var f file
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("catalogue: parsing requirements.yaml: %w", err)
	}
	seen := map[string]bool{}
	for _, r := range f.Requirements {
		if r.ID == "" || seen[r.ID] {
			return nil, fmt.Errorf("catalogue: empty or duplicate requirement ID %q", r.ID)
		}
		seen[r.ID] = true
	}
	return f.Requirements, nil
}

// Lookup returns the row with this ID.
func Lookup(id string) (Requirement, bool) {
	rows, err := Requirements()
	if err != nil {
		return Requirement{}, false
	}
	i := slices.IndexFunc(rows, func(r Requirement) bool { return r.ID == id })
	if i < 0 {
		return Requirement{}, false
	}
	return rows[i], true
}

// labels maps the short revision labels of the Level notation to revision names.
var labels = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// qualifier finds a part's revision qualifier: R1, R1–R2, R3+, optionally in parentheses.
var qualifier = regexp.MustCompile(`R([1-5])(?:\s*[–-]\s*R([1-5])|(\+))?`)

// Levels returns the suite levels ("must", "should", "may", "descriptive", "derived")
// a check of this row may report in one revision: MUST, MUST NOT, (schema) and
// (JSON-RPC) are must; SHOULD and SHOULD NOT should; MAY may; (descriptive), unspecified,
// removed, (recommended), (guidance) and "either" descriptive; any (derived…) part is
// derived only. A part marked (client) or (consumer) binds the client and gives the
// server no level. "MAY (schema)" allows may and must: the member is optional, its shape
// is a schema rule. A part with a revision qualifier ("SHOULD (R1–R2)") applies only there.
func (r Requirement) Levels(rev string) []string {
	var out []string
	for _, part := range strings.Split(r.Level, " / ") {
		if m := qualifier.FindStringSubmatch(part); m != nil && !inQualifier(m, rev) {
			continue
		}
		for _, l := range partLevels(part) {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

func inQualifier(m []string, rev string) bool {
	i := slices.Index(labels, rev) + 1
	lo := int(m[1][0] - '0')
	hi := lo
	switch {
	case m[3] == "+":
		hi = len(labels)
	case m[2] != "":
		hi = int(m[2][0] - '0')
	}
	return i >= lo && i <= hi
}

var keyword = regexp.MustCompile(`\b(MUST|SHOULD|MAY)\b`)

func partLevels(part string) []string {
	switch {
	case strings.Contains(part, "(client") || strings.Contains(part, "(consumer"):
		return nil
	case strings.Contains(part, "(derived"):
		return []string{"derived"}
	}
	var out []string
	add := func(l string) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	for _, k := range keyword.FindAllString(part, -1) {
		add(map[string]string{"MUST": "must", "SHOULD": "should", "MAY": "may"}[k])
	}
	if strings.Contains(part, "(schema)") || strings.Contains(part, "(JSON-RPC)") || strings.Contains(part, "(receiver)") {
		add("must")
	}
	for _, d := range []string{"(descriptive)", "unspecified", "removed", "(recommended)", "(guidance)", "either"} {
		if strings.Contains(part, d) {
			add("descriptive")
		}
	}
	return out
}

// NeedsAllow reports whether a check that needs what the suite calls need ("any",
// "calls", "opportunistic", "fixture") fits the row's Needs column (A, A*, O, F, or a
// combination such as O/F).
func (r Requirement) NeedsAllow(need string) bool {
	want := map[string]string{"any": "A", "calls": "A*", "opportunistic": "O", "fixture": "F"}[need]
	return slices.Contains(strings.Split(r.Needs, "/"), want)
}

// GroupCoverage is how many rows of one group have a check.
type GroupCoverage struct {
	Group          Group
	Rows, Covered  int
	UncoveredByWhy map[Reason]int
}

// Coverage counts, per group in matrix order, the rows that have a check among ids and
// returns the rows that have none.
func Coverage(ids []string) ([]GroupCoverage, []Requirement, error) {
	rows, err := Requirements()
	if err != nil {
		return nil, nil, err
	}
	byGroup := map[Group]*GroupCoverage{}
	var groups []GroupCoverage
	for _, g := range Groups {
		byGroup[g] = &GroupCoverage{Group: g, UncoveredByWhy: map[Reason]int{}}
	}
	var uncovered []Requirement
	for _, r := range rows {
		g, ok := byGroup[r.Group]
		if !ok {
			return nil, nil, fmt.Errorf("catalogue: %s: unknown group %q", r.ID, r.Group)
		}
		g.Rows++
		if slices.Contains(ids, r.ID) {
			g.Covered++
			continue
		}
		uncovered = append(uncovered, r)
		if r.Uncovered != nil {
			g.UncoveredByWhy[r.Uncovered.Reason]++
		}
	}
	for _, g := range Groups {
		groups = append(groups, *byGroup[g])
	}
	return groups, uncovered, nil
}
