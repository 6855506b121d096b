package lifecycle

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// defLeakPointers runs the call-result scan and returns the leaked pointers.
func defLeakPointers(rev, result string) []string {
	var out []string
	for _, l := range defCallLeaks(revision.MustLookup(rev), json.RawMessage(result)) {
		out = append(out, l.pointer)
	}
	sort.Strings(out)
	return out
}

func TestCallResultLeaks(t *testing.T) {
	const (
		audio    = `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`
		link     = `{"type":"resource_link","uri":"file:///a","name":"a"}`
		linkIcon = `{"type":"resource_link","uri":"file:///a","name":"a","icons":[{"src":"https://e.com/i.png"}]}`
		metaText = `{"type":"text","text":"x","_meta":{"a/b":1}}`
		lastMod  = `{"type":"text","text":"x","annotations":{"audience":["user"],"lastModified":"2025-01-01T00:00:00Z"}}`
		embedded = `{"type":"resource","resource":{"uri":"file:///a","text":"x","_meta":{"a/b":1}}}`
	)
	all := `{"content":[` + strings.Join([]string{audio, link, linkIcon, metaText, lastMod, embedded}, ",") + `],"structuredContent":{"a":1}}`
	tests := []struct {
		rev, result string
		want        []string
	}{
		{"2024-11-05", `{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}`, nil},
		{"2024-11-05", `{"content":[` + audio + `]}`, []string{"/content/0/type"}},
		{"2025-03-26", `{"content":[` + audio + `]}`, nil},
		{"2025-03-26", `{"content":[` + link + `]}`, []string{"/content/0/type"}},
		{"2025-03-26", `{"content":[],"structuredContent":{}}`, []string{"/structuredContent"}},
		{"2025-03-26", `{"content":[` + metaText + `,` + lastMod + `]}`, []string{"/content/0/_meta", "/content/1/annotations/lastModified"}},
		{"2025-03-26", `{"content":[` + embedded + `]}`, []string{"/content/0/resource/_meta"}},
		{"2025-06-18", `{"content":[` + linkIcon + `]}`, []string{"/content/0/icons"}},
		{"2025-06-18", `{"content":[` + link + `,` + metaText + `,` + lastMod + `],"structuredContent":{}}`, nil},
		{"2025-11-25", all, nil},
		{"2024-11-05", all, []string{"/content/0/type", "/content/1/type", "/content/2/icons", "/content/2/type",
			"/content/3/_meta", "/content/4/annotations/lastModified", "/content/5/resource/_meta", "/structuredContent"}},
		{"2025-06-18", `"not an object"`, nil},
	}
	for _, tc := range tests {
		got := defLeakPointers(tc.rev, tc.result)
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s %s: leaks %v, want %v", tc.rev, tc.result, got, tc.want)
		}
	}
}
