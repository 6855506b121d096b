package subscribe

import (
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
