package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/catalogue"
)

// printCoverage writes how many requirements of the catalogue (internal/catalogue/requirements.yaml) each
// group's checks cover, then every requirement without a check and why.
func printCoverage(w io.Writer) error {
	if err := conform.RegistryErr(); err != nil {
		return err
	}
	var ids []string
	for _, c := range conform.Checks() {
		ids = append(ids, c.ID)
	}
	groups, uncovered, err := catalogue.Coverage(ids)
	if err != nil {
		return err
	}
	var b strings.Builder
	rows, covered := 0, 0
	fmt.Fprintf(&b, "Coverage of the requirement catalogue (internal/catalogue/requirements.yaml):\n")
	for _, g := range groups {
		rows += g.Rows
		covered += g.Covered
		var why []string
		for _, r := range catalogue.Reasons {
			if n := g.UncoveredByWhy[r]; n > 0 {
				why = append(why, fmt.Sprintf("%d %s", n, r))
			}
		}
		fmt.Fprintf(&b, "  %-8s %3d of %3d covered", g.Group, g.Covered, g.Rows)
		if len(why) > 0 {
			fmt.Fprintf(&b, "   uncovered: %s", strings.Join(why, ", "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  %-8s %3d of %3d covered\n", "total", covered, rows)
	fmt.Fprintf(&b, "\nUncovered requirements (%d):\n", len(uncovered))
	for _, r := range uncovered {
		reason, note := catalogue.Reason("unexplained"), ""
		if r.Uncovered != nil {
			reason, note = r.Uncovered.Reason, r.Uncovered.Note
		}
		fmt.Fprintf(&b, "  %-30s %-8s %-16s %s\n", r.ID, r.Revs, reason, note)
	}
	var partial []catalogue.Requirement
	rowsAll, err := catalogue.Requirements()
	if err != nil {
		return err
	}
	for _, r := range rowsAll {
		if r.NotIn != nil && r.Uncovered == nil {
			partial = append(partial, r)
		}
	}
	if len(partial) > 0 {
		fmt.Fprintf(&b, "\nCovered, but not in every revision of the row (%d):\n", len(partial))
		for _, r := range partial {
			fmt.Fprintf(&b, "  %-30s not in %-10s %-16s %s\n", r.ID, strings.Join(r.NotIn.Revisions, ","), r.NotIn.Reason, r.NotIn.Note)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("print coverage: %w", err)
	}
	return nil
}
