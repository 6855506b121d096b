package baseline

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-conform/mcp-conform/reports"
)

// TODOReason is the reason Write gives a failure no earlier baseline explained; a
// person replaces it with the real one.
const TODOReason = "TODO: why is this failure accepted? (written by --write-baseline)"

type writeDoc struct {
	Expected   []writeEntry `yaml:"expected-failures"`
	Quarantine []writeEntry `yaml:"quarantine,omitempty"`
}

type writeEntry struct {
	ID        string `yaml:"id"`
	Revisions any    `yaml:"revisions,flow"` // "all" or a list
	Reason    string `yaml:"reason"`
}

// Write writes a baseline that accepts the run's current failures: every check that
// failed (not quarantined) or was an expected-fail, with the revisions where it did
// so. An expected-fail keeps its entry's reason; a new failure gets TODOReason. The
// quarantine entries of prev (the run's baseline, may be nil) are kept as they were.
// Warnings are not written: they never fail a run (under --strict a SHOULD warning is
// a fail and is written), so accepting them would only hide them. Errors are not
// written either: they verified nothing (quarantine a flaky check instead).
func Write(w io.Writer, rep *reports.Report, prev *File) error {
	doc := writeDoc{Expected: []writeEntry{}}
	index := map[string]int{}
	for _, rev := range rep.Revisions {
		for _, c := range rev.Checks {
			reason := ""
			switch {
			case c.Quarantine != nil:
				continue
			case c.Status == reports.Fail:
				reason = TODOReason
			case c.Status == reports.ExpectedFail && c.Baseline != nil:
				reason = c.Baseline.Reason
			default:
				continue
			}
			i, ok := index[c.ID]
			if !ok {
				i = len(doc.Expected)
				index[c.ID] = i
				doc.Expected = append(doc.Expected, writeEntry{ID: c.ID, Revisions: []string{}, Reason: reason})
			}
			e := &doc.Expected[i]
			if e.Reason == TODOReason && reason != TODOReason {
				e.Reason = reason // an explained entry keeps its explanation
			}
			revs := e.Revisions.([]string)
			if !slices.Contains(revs, rev.Revision) {
				e.Revisions = append(revs, rev.Revision)
			}
		}
	}
	if prev != nil {
		for _, q := range prev.Quarantine {
			var revs any = "all"
			if q.Revisions != nil {
				revs = q.Revisions
			}
			doc.Quarantine = append(doc.Quarantine, writeEntry{ID: q.ID, Revisions: revs, Reason: q.Reason})
		}
	}
	var b bytes.Buffer
	b.WriteString("# mcp-conform baseline (--baseline FILE): known failures that do not fail the run.\n" +
		"# Written by --write-baseline from the run against " + oneLineComment(rep.Target) + ".\n" +
		"# Replace every TODO reason. An entry whose check passes again fails the run: delete it then.\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("baseline: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("baseline: encode: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("baseline: write: %w", err)
	}
	return nil
}

// oneLineComment keeps s on one comment line.
func oneLineComment(s string) string {
	out := []rune{}
	for _, r := range s {
		if r == '\n' || r == '\r' {
			r = ' '
		}
		out = append(out, r)
	}
	return string(out)
}
