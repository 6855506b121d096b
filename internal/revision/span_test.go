package revision

import (
	"slices"
	"testing"
)

func TestSpan(t *testing.T) {
	for _, tt := range []struct {
		expr string
		want []string
	}{
		{"all", []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}},
		{"R5", []string{"2026-07-28"}},
		{"R3+", []string{"2025-06-18", "2025-11-25", "2026-07-28"}},
		{"R1–R4", []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}},
		{"R2-R3", []string{"2025-03-26", "2025-06-18"}},
	} {
		var got []string
		for _, r := range Span(tt.expr) {
			got = append(got, r.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Span(%q) = %v, want %v", tt.expr, got, tt.want)
		}
	}
	for _, bad := range []string{"", "R9", "R4–R2", "R1–", "2025-06-18", "R3++"} {
		if _, err := ParseSpan(bad); err == nil {
			t.Errorf("ParseSpan(%q) accepted a malformed span", bad)
		}
	}
}

// 2026-07-28 is the modern era's one revision, and the registry's newest.
func TestModernRevision(t *testing.T) {
	r := MustLookup("2026-07-28")
	if m := InEra(Modern); r.Era != Modern || r.Label != "R5" || len(m) != 1 || m[0].Name != r.Name {
		t.Errorf("2026-07-28 = %+v; modern era %v", r, InEra(Modern))
	}
	if r.Has(Tasks) {
		t.Error("2026-07-28 still has tasks (moved to an extension)")
	}
	if !r.Has(Icons) || !r.AtLeast("2025-11-25") {
		t.Error("2026-07-28 lost a feature it keeps from 2025-11-25")
	}
}
