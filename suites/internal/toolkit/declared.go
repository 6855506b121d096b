package toolkit

import (
	"github.com/mcp-conform/mcp-conform/conform"
)

// SkipUndeclared is the skip of a check whose probe needs the tools capability (nil
// when the main session declared it).
func SkipUndeclared(t *conform.T) *conform.Verdict {
	if Declared(t.Session()) {
		return nil
	}
	v := conform.Skip(conform.NotApplicable, "the server did not declare the tools capability")
	return &v
}

// RequireTools ends the check with a not-applicable skip when the main session did
// not declare the tools capability (SkipUndeclared).
func RequireTools(t *conform.T) {
	if v := SkipUndeclared(t); v != nil {
		t.Stop(*v)
	}
}
