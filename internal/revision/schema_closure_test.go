package revision

import (
	"fmt"
	"testing"
)

// TestClosureCompilesLikeTheWholeDocument: every definition of every embedded
// schema compiles from its closure (closureDoc), and judges instances exactly as the
// whole document's compile does: the same instances fail, with the same errors, at
// the same keyword and instance locations.
func TestClosureCompilesLikeTheWholeDocument(t *testing.T) {
	generic := []any{nil, true, "x", map[string]any{}, []any{}, map[string]any{"_meta": "x"}}
	for _, r := range All() {
		t.Run(r.Name, func(t *testing.T) {
			s, err := r.set()
			if err != nil {
				t.Fatal(err)
			}
			raw, err := s.document()
			if err != nil {
				t.Fatal(err)
			}
			whole, err := s.newCompiler(raw)
			if err != nil {
				t.Fatal(err)
			}
			typical := typicalResults(r)
			judged, failed := 0, 0
			for _, def := range r.Definitions() {
				doc, ok := s.closureDoc(def)
				if !ok {
					t.Errorf("%s: no closure: the whole document would be compiled", def)
					continue
				}
				part, err := s.newCompiler(doc)
				if err != nil {
					t.Fatalf("%s: %v", def, err)
				}
				ref := s.url + "#/" + s.defsKeyword + "/" + escapePointerToken(def)
				fromPart, err := compileDefinition(part, ref, s.name, def)
				if err != nil {
					t.Fatalf("%s from its closure: %v", def, err)
				}
				fromWhole, err := compileDefinition(whole, ref, s.name, def)
				if err != nil {
					t.Fatalf("%s from the whole document: %v", def, err)
				}
				instances := generic
				if raw, ok := typical[def]; ok {
					v, err := decodeJSON(raw)
					if err != nil {
						t.Fatal(err)
					}
					instances = append(append([]any{v}, generic...), mutants(v)...)
				}
				for _, v := range instances {
					got, want := fmt.Sprintf("%#v", fromPart.Validate(v)), fmt.Sprintf("%#v", fromWhole.Validate(v))
					if got != want {
						t.Errorf("%s, instance %#v:\nfrom its closure:\n%s\nfrom the whole document:\n%s", def, v, got, want)
					}
					judged++
					if want != "<nil>" {
						failed++
					}
				}
			}
			// The comparison means something only if most instances fail.
			if failed*2 < judged {
				t.Errorf("%d of %d instances failed: the corpus tests too little", failed, judged)
			}
		})
	}
}
