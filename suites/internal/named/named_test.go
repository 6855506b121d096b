package named

import (
	"encoding/json"
	"maps"
	"testing"
)

func TestRequiredArgs(t *testing.T) {
	tests := []struct {
		name, raw string
		want      map[string]string
	}{
		{"none", ``, map[string]string{}},
		{"required filled, optional left out", `[{"name":"a","required":true},{"name":"b"},{"name":"c","required":false}]`, map[string]string{"a": ArgValue}},
		// A required that is no boolean is judged by PROMPT-LIST-01; here it is not required.
		{"required not a boolean", `[{"name":"a","required":"yes"}]`, map[string]string{}},
		{"nameless argument skipped", `[{"required":true},{"name":"","required":true}]`, map[string]string{}},
		{"not an array", `{"name":"a"}`, map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := requiredArgs(json.RawMessage(tc.raw)); !maps.Equal(got, tc.want) {
				t.Errorf("requiredArgs(%s) = %v, want %v", tc.raw, got, tc.want)
			}
		})
	}
}
