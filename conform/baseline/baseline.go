// Package baseline reads, applies and writes a run's baseline (--baseline FILE): the
// known failures a team accepts for now, and the flaky checks it quarantines, so that
// mcp-conform can gate a server that does not pass everything yet while still catching
// every new failure. A baseline only shrinks: an entry whose check now passes, or no
// longer exists, is stale, and a stale entry fails the run.
//
// The file is YAML:
//
//	expected-failures:
//	  - id: TOOLS-CALL-UNKNOWN-01
//	    revisions: [2025-06-18, 2025-11-25]   # or: all (the default)
//	    reason: the SDK answers unknown tools with isError (upstream issue 123)
//	quarantine:
//	  - id: NOTIF-LC-01
//	    revisions: all
//	    reason: the trigger races the listener on CI machines
//
// The official suite's expected-failures file (`server:` and `client:` lists of names)
// is accepted too, where its meaning carries over: see Parse.
package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Entry is one line of the baseline: a check, the revisions it covers and why.
type Entry struct {
	ID        string
	Revisions []string // nil: every revision
	Reason    string
	Line      int // where the entry starts in the file
}

// covers reports whether the entry applies to the revision.
func (e *Entry) covers(rev string) bool {
	return e.Revisions == nil || slices.Contains(e.Revisions, rev)
}

// File is a parsed baseline.
type File struct {
	Path       string
	Expected   []Entry // known failures: reported as expected-fail, gate only when stale
	Quarantine []Entry // flaky checks: reported as they are, never gate
	// Notes are remarks on how the file was read (an official file's client list was
	// ignored, …), for the run's notes.
	Notes []string
}

// Load reads and parses the baseline at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return Parse(path, data)
}

// idPattern is the shape of an mcp-conform check ID (catalogue row IDs).
var idPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)

type fileDoc struct {
	Expected   []entryDoc `yaml:"expected-failures"`
	Quarantine []entryDoc `yaml:"quarantine"`
	// The official suite's shape: lists of scenario names (or scenario:check) per
	// mode. Only server entries that name an mcp-conform check carry over.
	Server yaml.Node `yaml:"server"`
	Client yaml.Node `yaml:"client"`
}

type entryDoc struct {
	ID        string    `yaml:"id"`
	Revisions yaml.Node `yaml:"revisions"`
	Reason    string    `yaml:"reason"`
	line      int
}

// UnmarshalYAML keeps the entry's line for messages.
func (e *entryDoc) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want an entry (id, revisions, reason), got a %s", n.Line, kindName(n))
	}
	// A custom unmarshaler loses the decoder's KnownFields, so keys are checked here:
	// a misspelt key must not silently drop a reason or widen the revisions.
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case "id", "revisions", "reason":
		default:
			return fmt.Errorf("line %d: unknown key %q in an entry (want id, revisions, reason)", n.Content[i].Line, k)
		}
	}
	type plain entryDoc
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*e = entryDoc(p)
	e.line = n.Line
	return nil
}

// officialReason is the reason of an entry from the official suite's file that has
// no comment of its own.
const officialReason = "listed in the official suite's expected-failures file"

// Parse reads a baseline. name is used in messages (usually the path).
//
// Besides the native shape above, Parse accepts the official suite's
// (@modelcontextprotocol/conformance --expected-failures) shape: a `server:` list whose
// entries are mcp-conform check IDs becomes expected failures at every revision, each
// with the entry's trailing comment as its reason. An official scenario name (or
// scenario:check) has no mcp-conform meaning and is rejected with an error naming it;
// a `client:` list is ignored with a note (mcp-conform tests servers only).
func Parse(name string, data []byte) (*File, error) {
	var doc fileDoc
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	f := &File{Path: name}
	var errs []error
	for _, d := range doc.Expected {
		e, err := d.entry("expected-failures")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f.Expected = append(f.Expected, e)
	}
	for _, d := range doc.Quarantine {
		e, err := d.entry("quarantine")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f.Quarantine = append(f.Quarantine, e)
	}
	official, err := officialEntries(&doc.Server)
	errs = append(errs, err)
	f.Expected = append(f.Expected, official...)
	if doc.Client.Kind != 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("baseline %s: the client: list is ignored (mcp-conform tests servers)", name))
	}
	errs = append(errs, overlaps("expected-failures", f.Expected, f.Expected), overlaps("quarantine", f.Quarantine, f.Quarantine),
		overlaps("expected-failures and quarantine", f.Expected, f.Quarantine))
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", name, err)
	}
	return f, nil
}

func (d *entryDoc) entry(list string) (Entry, error) {
	e := Entry{ID: strings.TrimSpace(d.ID), Reason: strings.TrimSpace(d.Reason), Line: d.line}
	where := fmt.Sprintf("line %d (%s)", d.line, list)
	if !idPattern.MatchString(e.ID) {
		return e, fmt.Errorf("%s: id %q is not a check ID (see mcp-conform --list)", where, d.ID)
	}
	if e.Reason == "" {
		return e, fmt.Errorf("%s: %s has no reason: say why it is accepted", where, e.ID)
	}
	revs, err := revisions(&d.Revisions)
	if err != nil {
		return e, fmt.Errorf("%s: %s: %w", where, e.ID, err)
	}
	e.Revisions = revs
	return e, nil
}

// revisions reads `all`, one revision, or a list of them; absent means all.
func revisions(n *yaml.Node) ([]string, error) {
	var names []string
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		if n.Value == "all" {
			return nil, nil
		}
		names = []string{n.Value}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("revisions: want a list of revisions, got a %s at line %d", kindName(item), item.Line)
			}
			names = append(names, item.Value) // the text as written: 2025-06-18 is no timestamp here
		}
		if len(names) == 0 {
			return nil, errors.New("revisions: an empty list covers nothing; write all, or name revisions")
		}
	default:
		return nil, fmt.Errorf("revisions: want all or a list of revisions, got a %s", kindName(n))
	}
	for _, r := range names {
		if _, ok := revision.Lookup(r); !ok {
			return nil, fmt.Errorf("revisions: unknown revision %q (known: %s)", r, strings.Join(revision.Names(), ", "))
		}
	}
	return names, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	}
	return "node"
}

// officialEntries reads the official shape's server list.
func officialEntries(n *yaml.Node) ([]Entry, error) {
	if n.Kind == 0 {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("line %d (server): want a list of check IDs", n.Line)
	}
	var out []Entry
	var errs []error
	for _, item := range n.Content {
		if item.Kind != yaml.ScalarNode {
			// The official suite rejects `- scenario: check` (a mapping) too.
			errs = append(errs, fmt.Errorf("line %d (server): want a check ID, got a %s (mind the space after a colon)", item.Line, kindName(item)))
			continue
		}
		if !idPattern.MatchString(item.Value) {
			errs = append(errs, fmt.Errorf("line %d (server): %q is an official-suite scenario, which has no mcp-conform meaning; list mcp-conform check IDs (mcp-conform --list)", item.Line, item.Value))
			continue
		}
		reason := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(item.LineComment), "#"))
		if reason == "" {
			reason = officialReason
		}
		out = append(out, Entry{ID: item.Value, Reason: reason, Line: item.Line})
	}
	return out, errors.Join(errs...)
}

// overlaps reports entries of a and b (which may be the same list) that cover the
// same check at a common revision: one verdict can have only one judgement.
func overlaps(what string, a, b []Entry) error {
	same := len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
	var errs []error
	for i := range a {
		start := 0
		if same {
			start = i + 1
		}
		for j := start; j < len(b); j++ {
			if a[i].ID != b[j].ID {
				continue
			}
			if common := shared(&a[i], &b[j]); common != "" {
				errs = append(errs, fmt.Errorf("%s: %s is listed twice (lines %d and %d) for %s", what, a[i].ID, a[i].Line, b[j].Line, common))
			}
		}
	}
	return errors.Join(errs...)
}

// shared names the revisions two entries both cover, or "" when none.
func shared(a, b *Entry) string {
	switch {
	case a.Revisions == nil && b.Revisions == nil:
		return "all revisions"
	case a.Revisions == nil:
		return strings.Join(b.Revisions, ", ")
	case b.Revisions == nil:
		return strings.Join(a.Revisions, ", ")
	}
	var both []string
	for _, r := range a.Revisions {
		if slices.Contains(b.Revisions, r) {
			both = append(both, r)
		}
	}
	return strings.Join(both, ", ")
}

func match(list []Entry, id, rev string) *Entry {
	for i := range list {
		if list[i].ID == id && list[i].covers(rev) {
			return &list[i]
		}
	}
	return nil
}

// Apply judges one finished verdict at a revision: a quarantined check keeps its
// verdict and is marked as not gating; a fail or warn the baseline expects becomes
// expected-fail, keeping the verdict it was. Anything else is left alone: an error
// verified nothing, so no baseline can accept it (quarantine a flaky check instead).
func (f *File) Apply(rev string, r *reports.CheckResult) {
	if f == nil {
		return
	}
	if q := match(f.Quarantine, r.ID, rev); q != nil {
		r.Quarantine = &reports.QuarantineMark{Reason: q.Reason}
		return
	}
	if r.Status != reports.Fail && r.Status != reports.Warn {
		return
	}
	if e := match(f.Expected, r.ID, rev); e != nil {
		r.Baseline = &reports.BaselineMark{Status: r.Status, Reason: e.Reason}
		r.Status = reports.ExpectedFail
	}
}

// Catalog is what the baseline needs to know of the suite's checks.
type Catalog interface {
	// AppliesTo reports whether a check with the ID exists, and whether it applies
	// to the revision.
	AppliesTo(id, rev string) (exists, applies bool)
}

// Judge returns the baseline's account of a finished run whose verdicts went through
// Apply: how many verdicts it accepted or quarantined, and its stale entries. An
// expected-failures entry is stale when its check does not exist, does not apply to a
// revision the entry names, or passed: at a revision the entry names, or — for an
// entry of all revisions — at some revision while failing at none. A check that was
// not selected, skipped or errored proves nothing and leaves its entry alone. A
// quarantine entry is stale only when its check does not exist.
func (f *File) Judge(rep *reports.Report, cat Catalog) *reports.BaselineReport {
	if f == nil {
		return nil
	}
	out := &reports.BaselineReport{File: f.Path, Stale: []reports.StaleEntry{}}
	for _, rev := range rep.Revisions {
		for _, c := range rev.Checks {
			switch {
			case c.Quarantine != nil:
				out.Quarantined++
			case c.Status == reports.ExpectedFail:
				out.ExpectedFail++
			}
		}
	}
	stale := func(e *Entry, problem string) {
		out.Stale = append(out.Stale, reports.StaleEntry{ID: e.ID, Revisions: slices.Clone(e.Revisions), Reason: e.Reason, Problem: problem, Line: e.Line})
	}
	for i := range f.Quarantine {
		e := &f.Quarantine[i]
		if exists, _ := cat.AppliesTo(e.ID, ""); !exists {
			stale(e, "no check has this ID: the quarantine entry quarantines nothing; remove it")
		}
	}
	for i := range f.Expected {
		e := &f.Expected[i]
		if exists, _ := cat.AppliesTo(e.ID, ""); !exists {
			stale(e, "no check has this ID (any more): remove the entry")
			continue
		}
		var problems []string
		for _, r := range e.Revisions {
			if _, applies := cat.AppliesTo(e.ID, r); !applies {
				problems = append(problems, fmt.Sprintf("the check does not apply to %s", r))
			}
		}
		var passed []string
		failed := false
		for _, rev := range rep.Revisions {
			if !e.covers(rev.Revision) {
				continue
			}
			for _, c := range rev.Checks {
				if c.ID != e.ID {
					continue
				}
				switch c.Status {
				case reports.Pass:
					passed = append(passed, rev.Revision)
				case reports.ExpectedFail:
					failed = true
				}
			}
		}
		if len(passed) > 0 && (e.Revisions != nil || !failed) {
			problems = append(problems, fmt.Sprintf("the check now passes at %s: remove it from the entry", strings.Join(passed, ", ")))
		}
		if len(problems) > 0 {
			stale(e, strings.Join(problems, "; "))
		}
	}
	return out
}

// StaleMessage is one stale entry as a sentence naming it, for consoles and notes.
func StaleMessage(file string, s reports.StaleEntry) string {
	revs := "all revisions"
	if len(s.Revisions) > 0 {
		revs = strings.Join(s.Revisions, ", ")
	}
	return fmt.Sprintf("stale baseline entry %s:%d %s (%s; reason: %s): %s", file, s.Line, s.ID, revs, s.Reason, s.Problem)
}
