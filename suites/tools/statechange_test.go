package tools_test

import (
	"slices"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	_ "github.com/mcp-conform/mcp-conform/suites" // every check of the suite
)

// TestR5StateChangePhase pins the checks of 2026-07-28's state-change phase. The
// listen checks reuse one change's listing after as the next change's listing before
// (lsLastAfter), which holds because nothing else in that phase calls a tool or
// changes the list: a check added to the phase must be read against that first.
func TestR5StateChangePhase(t *testing.T) {
	r5 := revision.MustLookup("2026-07-28")
	var got []string
	for _, c := range conform.Checks() {
		if c.RunPhase() == conform.PhaseStateChange && slices.ContainsFunc(c.Revisions, func(r revision.Revision) bool { return r.Name == r5.Name }) {
			got = append(got, c.ID)
		}
	}
	slices.Sort(got)
	want := []string{"NOTIF-LISTEN-FILTER-R5-01", "NOTIF-LISTEN-LC-R5-01", "NOTIF-LISTEN-TAG-R5-01", "STDIO-SUBID-R5-01"}
	if !slices.Equal(got, want) {
		t.Fatalf("2026-07-28 state-change checks = %v, want %v: check that the new one leaves the tool list alone between the listen checks' changes (suites/tools/listen.go lsLastAfter)", got, want)
	}
}
