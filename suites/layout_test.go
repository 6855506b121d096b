package suites_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/catalogue"
	_ "github.com/mcp-conform/mcp-conform/suites"
)

// registration is one conform.Check literal found in the source of suites/.
type registration struct {
	id, file string
	// rowKeys are the keys of conform.Row the literal writes: none, as the
	// catalogue row is their one source (conform.Register fills them).
	rowKeys []string
}

// registrations parses every non-test Go file under suites/ (the package's
// directory) and returns the conform.Check literals with their ID and the Row keys
// they write.
func registrations(t *testing.T) []registration {
	t.Helper()
	var out []registration
	eachSource(t, func(path string, f *ast.File, _ *token.FileSet) {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			sel, ok := lit.Type.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Check" {
				return true
			}
			r := registration{file: filepath.ToSlash(filepath.Join("suites", path))}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				switch key := kv.Key.(*ast.Ident).Name; {
				case key == "ID":
					if bl, ok := kv.Value.(*ast.BasicLit); ok {
						r.id, _ = strconv.Unquote(bl.Value)
					}
				case slices.Contains([]string{"Row", "Level", "Revisions", "Group", "Needs", "Source", "StricterFrom"}, key):
					r.rowKeys = append(r.rowKeys, key)
				}
			}
			out = append(out, r)
			return true
		})
	})
	return out
}

// eachSource parses every non-test Go file under suites/ (the package's directory)
// and calls fn with its path and syntax tree.
func eachSource(t *testing.T, fn func(path string, f *ast.File, fset *token.FileSet)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		fn(path, f, fset)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// One key from requirement to file: a check's ID names its catalogue row, the row
// its group, and catalogue.HomeOf the package and file that register it. Every
// registered check stands in that file, takes its group from the row (its literal
// writes nothing of conform.Row), and is registered exactly once in the source.
func TestEveryCheckStandsInItsHome(t *testing.T) {
	regs := registrations(t)
	byID := map[string][]registration{}
	for _, r := range regs {
		byID[r.id] = append(byID[r.id], r)
	}
	checks := conform.Checks()
	if len(checks) == 0 {
		t.Fatal("no check is registered")
	}
	for _, c := range checks {
		found := byID[c.ID]
		if len(found) != 1 {
			t.Errorf("%s: %d conform.Check literals with this ID under suites/, want 1", c.ID, len(found))
			continue
		}
		r := found[0]
		row, ok := catalogue.Lookup(c.ID)
		if !ok {
			t.Errorf("%s (%s): not a catalogue row", c.ID, r.file)
			continue
		}
		home, ok := catalogue.HomeOf(c.ID)
		switch {
		case !ok:
			t.Errorf("%s: no home in catalogue.Homes", c.ID)
		case home.Path() != r.file:
			t.Errorf("%s is registered in %s; its home is %s (catalogue.Homes)", c.ID, r.file, home.Path())
		case home.Group != row.Group || c.Group != row.Group:
			t.Errorf("%s: row group %s, home group %s, declared group %s", c.ID, row.Group, home.Group, c.Group)
		}
		if len(r.rowKeys) > 0 {
			t.Errorf("%s (%s): the literal writes %v, which the catalogue row says (internal/catalogue/requirements.yaml)", c.ID, r.file, r.rowKeys)
		}
	}
	if len(regs) != len(checks) {
		t.Errorf("%d conform.Check literals under suites/, %d registered checks", len(regs), len(checks))
	}
}

// Every catalogue row has a home whose group is the row's, so a check yet to be
// written has a file waiting for it; every home's package is imported by suites.
func TestEveryRowHasAHome(t *testing.T) {
	rows, err := catalogue.Requirements()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		home, ok := catalogue.HomeOf(r.ID)
		switch {
		case !ok:
			t.Errorf("%s: no entry of catalogue.Homes is a prefix of it", r.ID)
		case home.Group != r.Group:
			t.Errorf("%s: group %s, but its home %s is for %s", r.ID, r.Group, home.Path(), home.Group)
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "suites.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		imported = append(imported, strings.TrimPrefix(p, "github.com/mcp-conform/mcp-conform/"))
	}
	for _, dir := range catalogue.Packages() {
		if !slices.Contains(imported, dir) {
			t.Errorf("suites.go does not import %s, the home of a group", dir)
		}
	}
}

// Every home names a file that exists: a check yet to be written has a real file
// waiting for it, and the layout cannot name one that is gone.
func TestEveryHomeExists(t *testing.T) {
	for _, h := range catalogue.Homes {
		if _, err := os.Stat(filepath.Join("..", h.Path())); err != nil {
			t.Errorf("catalogue.Homes: %s → %s, which does not exist", h.Prefix, h.Path())
		}
	}
}
