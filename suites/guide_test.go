package suites_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
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

// Comments, sources and messages cite the catalogue row or the spec page, never a
// file a clone of the repository does not have (the planning notes the catalogue was
// written from).
func TestNoCitationOutsideTheRepo(t *testing.T) {
	outside := regexp.MustCompile(`spec-matrix|design\.md`)
	for _, c := range conform.Checks() {
		if outside.MatchString(c.Source) {
			t.Errorf("%s: its Source cites a file outside the repository: %s", c.ID, c.Source)
		}
	}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "guide_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if outside.MatchString(line) {
				t.Errorf("%s:%d cites a file outside the repository: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The guide's shortest real check is the code as it stands in its home file, so the
// example cannot drift from what a check takes.
func TestGuideExampleIsRealCode(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Add a check.*?```go\n(.*?)```").FindSubmatch(guide)
	if m == nil {
		t.Fatal("CONTRIBUTING.md's Add a check section shows no Go block")
	}
	home, err := os.ReadFile("base/messages.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(home), string(m[1])) {
		t.Errorf("CONTRIBUTING.md's example is not the code of suites/base/messages.go:\n%s", m[1])
	}
}
