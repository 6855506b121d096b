package subscribe

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
)

// ListChange.Judge wants the notification exactly when the list changed; Label
// renders the names of the change in the evidence.
func TestListChangeJudge(t *testing.T) {
	quote := func(s string) string { return `"` + s + `"` }
	tests := []struct {
		name          string
		before, after []string
		notified      bool
		label         func(string) string
		want          conform.Outcome
		says          string
	}{
		{"change announced", []string{"a"}, []string{"a", "b"}, true, nil, conform.OutcomePass, "added b"},
		{"change announced, labelled", []string{"x://a"}, []string{}, true, quote, conform.OutcomePass, `removed "x://a"`},
		{"announcement without a change", []string{"a"}, []string{"a"}, true, nil, conform.OutcomeViolation, "the same 1 item(s)"},
		{"change unannounced", []string{"a"}, []string{"b"}, false, nil, conform.OutcomeViolation, "added b; removed a"},
		{"nothing changed, nothing came", []string{"a"}, []string{"a"}, false, nil, conform.OutcomeSkip, "nothing to announce"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := ListChange{List: "x/list", Items: "x list", Method: "notifications/x/list_changed", What: "the trigger",
				Wait: 2 * time.Second, Before: tc.before, After: tc.after, Same: "the same 1 item(s)", Notified: tc.notified, Label: tc.label}.Judge()
			if got := v.Outcome(); got != tc.want || !strings.Contains(v.Message+v.Actual, tc.says) {
				t.Errorf("Judge = %v %q (actual %q), want %v mentioning %q", got, v.Message, v.Actual, tc.want, tc.says)
			}
		})
	}
}

func TestNameDiff(t *testing.T) {
	tests := []struct {
		name                   string
		before, after          []string
		wantAdded, wantRemoved []string
	}{
		{"same", []string{"a", "b"}, []string{"b", "a"}, nil, nil},
		{"added and removed, sorted", []string{"c", "a"}, []string{"d", "a", "b"}, []string{"b", "d"}, []string{"c"}},
		{"repeats count once", []string{"a", "a"}, []string{"a", "b", "b"}, []string{"b"}, nil},
		{"from nothing", nil, []string{"x"}, []string{"x"}, nil},
		{"to nothing", []string{"x"}, nil, nil, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			added, removed := NameDiff(tt.before, tt.after)
			if !slices.Equal(added, tt.wantAdded) || !slices.Equal(removed, tt.wantRemoved) {
				t.Errorf("NameDiff(%v, %v) = %v, %v; want %v, %v", tt.before, tt.after, added, removed, tt.wantAdded, tt.wantRemoved)
			}
		})
	}
}
