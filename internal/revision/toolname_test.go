package revision

import (
	"regexp"
	"strings"
	"testing"
)

// TestToolNameValidAsThePattern compares ToolNameValid with the rule's regexp on
// names at and around its bounds and with every byte.
func TestToolNameValidAsThePattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	names := []string{
		"", "a", "get_weather", "a.b-c_d", "Z9", strings.Repeat("x", 127), strings.Repeat("x", 128),
		strings.Repeat("x", 129), "with space", "naïve", "tool/name", "tool:name", "日本", "a\x00b", "a\n",
	}
	for b := 0; b < 256; b++ {
		names = append(names, "t"+string([]byte{byte(b)}), string([]byte{byte(b)}))
	}
	for r := rune(0x80); r < 0x800; r += 7 {
		names = append(names, "t"+string(r))
	}
	for _, name := range names {
		if got, want := ToolNameValid(name), pattern.MatchString(name); got != want {
			t.Errorf("ToolNameValid(%q) = %v, the pattern says %v", name, got, want)
		}
	}
}
