package refserver

import (
	"strings"
	"testing"
)

// templateData serves test://template/{id}/data for one non-empty id segment only.
func TestTemplateData(t *testing.T) {
	tests := []struct {
		uri  string
		ok   bool
		text string // in the contents
	}{
		{"test://template/123/data", true, `"id":"123"`},
		{"test://template/a%20b/data", true, `"id":"a%20b"`},
		{"test://template//data", false, ""},
		{"test://template/1/2/data", false, ""},
		{"test://template/123", false, ""},
		{"test://other/123/data", false, ""},
	}
	for _, tc := range tests {
		r, ok := templateData(tc.uri)
		if ok != tc.ok || !strings.Contains(r.text, tc.text) || ok && (r.uri != tc.uri || r.mimeType != "application/json") {
			t.Errorf("templateData(%q) = %+v, %v; want ok %v with %s", tc.uri, r, ok, tc.ok, tc.text)
		}
	}
}
