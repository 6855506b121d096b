package revision

import (
	"slices"
	"testing"
)

// 2026-07-28 is known (schema, features) but not runnable: the runner's list of
// revisions is unchanged by it.
func TestPendingRevisionStaysOutOfTheRegistry(t *testing.T) {
	r, ok := LookupPending("2026-07-28")
	if !ok {
		t.Fatal("LookupPending(2026-07-28) found nothing")
	}
	if r.Era != Modern || r.Label != "R5" || r.Dialect != Draft2020 {
		t.Errorf("2026-07-28 = %+v", r)
	}
	if _, ok := Lookup("2026-07-28"); ok {
		t.Error("Lookup finds 2026-07-28: the runner would run it")
	}
	if slices.Contains(Names(), "2026-07-28") || len(InEra(Modern)) != 0 {
		t.Error("Names or InEra list 2026-07-28")
	}
	if _, err := Parse("2026-07-28"); err == nil {
		t.Error("Parse accepts 2026-07-28")
	}
	if _, ok := LookupPending("2025-11-25"); ok {
		t.Error("LookupPending finds a registered revision")
	}
	for _, tc := range []struct {
		f    Feature
		want bool
	}{
		{Title, true}, {OutputSchema, true}, {StructuredContent, true}, {Icons, true},
		{ErrorIDOptional, true}, {ValidationIsResult, true}, {Tasks, false}, {Batching, false},
	} {
		if got := r.Has(tc.f); got != tc.want {
			t.Errorf("2026-07-28 Has(%s) = %v, want %v", tc.f, got, tc.want)
		}
	}
	if !r.AtLeast("2025-11-25") || r.Before("2025-11-25") {
		t.Error("2026-07-28 does not sort after 2025-11-25")
	}
	if !MustLookup("2025-11-25").Has(Tasks) {
		t.Error("2025-11-25 lost tasks")
	}
	err := r.Validate("DiscoverResult", map[string]any{
		"resultType": "complete", "supportedVersions": []any{"2026-07-28"},
		"capabilities": map[string]any{}, "ttlMs": 0, "cacheScope": "public",
	})
	if err != nil {
		t.Errorf("valid DiscoverResult rejected: %v", err)
	}
	if def, ok := r.ResultDefinition("server/discover"); !ok || def != "DiscoverResult" {
		t.Errorf("ResultDefinition(server/discover) = %q, %v", def, ok)
	}
	if _, ok := r.ResultDefinition("ping"); ok {
		t.Error("2026-07-28 has ping")
	}
}
