package suites_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The contributor's guide lists, for each kind of change, the files it touches. Every
// path it names in backquotes must exist, so the lists cannot drift from the tree.
func TestGuidePathsExist(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths := regexp.MustCompile("`((?:[a-z0-9_.-]+/)+[A-Za-z0-9_.-]*)`").FindAllStringSubmatch(string(guide), -1)
	if len(paths) < 20 {
		t.Fatalf("only %d paths found in CONTRIBUTING.md; the pattern no longer matches the guide", len(paths))
	}
	for _, m := range paths {
		p := strings.TrimSuffix(m[1], "/")
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			t.Errorf("CONTRIBUTING.md names %s, which does not exist", m[1])
		}
	}
	// Each kind of change has its section.
	for _, h := range []string{"## Add a check", "## Add a fault", "## Add a revision", "## Add an era", "## Add a transport"} {
		if !strings.Contains(string(guide), h) {
			t.Errorf("CONTRIBUTING.md has no section %q", h)
		}
	}
}
