package suites_test

import (
	"go/ast"
	"go/token"
	"testing"
)

// One way to gather evidence: a check that judges many subjects records each finding
// in a conform.Findings, which words the verdict the same way everywhere. A verdict
// constructor whose evidence joins a slice into a list of findings (conform.JoinAtMost,
// or strings.Join with the findings separator "; ") is a findings list kept by hand;
// a slice joined with ", " names the parts of one finding (the versions a server
// supports) and is not.
func TestEvidenceGoesThroughFindings(t *testing.T) {
	verdicts := map[string]bool{"Violation": true, "Warn": true, "Fail": true}
	eachSource(t, func(_ string, f *ast.File, fset *token.FileSet) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isSel(call.Fun, "conform", verdicts) {
				return true
			}
			for _, arg := range call.Args {
				if joinsALocalList(arg) {
					t.Errorf("%s: conform.%s gets a hand-joined list of findings; use conform.Findings",
						fset.Position(call.Pos()), call.Fun.(*ast.SelectorExpr).Sel.Name)
				}
			}
			return true
		})
	})
}

// isSel reports whether e is pkg.Name with Name in names.
func isSel(e ast.Expr, pkg string, names map[string]bool) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg && names[sel.Sel.Name]
}

// joinsALocalList reports whether e joins a slice held in a variable (directly, or
// after a helper such as dedupe(list)).
func joinsALocalList(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		findingsSep := len(call.Args) == 2 && isSemicolon(call.Args[1])
		if (isSel(call.Fun, "strings", map[string]bool{"Join": true}) && findingsSep) || isSel(call.Fun, "conform", map[string]bool{"JoinAtMost": true}) {
			switch a := call.Args[0].(type) {
			case *ast.Ident:
				found = true
			case *ast.CallExpr:
				if len(a.Args) == 1 {
					_, found = a.Args[0].(*ast.Ident)
				}
			}
		}
		return !found
	})
	return found
}

// isSemicolon reports whether e is the string literal "; ".
func isSemicolon(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && lit.Value == `"; "`
}
