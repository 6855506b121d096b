package toolkit

import (
	"fmt"

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

// JudgeDeclaredShape judges a declared capabilities.<capability> (TOOLS-CAP-01,
// PROMPT-CAP-01: an object); declared is false, with no verdict, when the session
// did not declare it.
func JudgeDeclaredShape(s *conform.Session, capability string) (v conform.Verdict, declared bool) {
	raw, ok := s.Capabilities()[capability]
	if !ok {
		return v, false
	}
	if JSONKind(raw) != "object" {
		return conform.Violation("capabilities."+capability+" as an object", "capabilities."+capability+" is "+JSONKind(raw)+": "+conform.ClipBytes(raw, 80)), true
	}
	return conform.Pass("capabilities.%s declared: %s", capability, conform.ClipBytes(raw, 80)), true
}

// JudgeListChangedFlag judges capabilities.<capability>.listChanged, which when set
// is a boolean (TOOLS-CAP-LISTCHANGED-01, PROMPT-CAP-LISTCHANGED-01; schema
// ServerCapabilities). shapeRows names the rows that judge a capability that is not
// an object.
func JudgeListChangedFlag(t *conform.T, capability, shapeRows string) conform.Verdict {
	raw, ok := t.Session().Capabilities()[capability]
	if !ok {
		return conform.Skip(conform.NotApplicable, "the server declares no %s capability", capability)
	}
	obj := Object(raw)
	if obj == nil {
		return conform.Skip(conform.NotApplicable, "capabilities.%s is not an object (%s): judged by %s", capability, JSONKind(raw), shapeRows)
	}
	lc, ok := obj["listChanged"]
	if !ok {
		return conform.Skip(conform.NotExercised, "capabilities.%s has no listChanged flag (optional; absent means no list_changed notifications are promised)", capability)
	}
	if JSONKind(lc) != "boolean" {
		return conform.Violation("capabilities."+capability+".listChanged as a boolean", fmt.Sprintf("a %s: %s", JSONKind(lc), conform.ClipBytes(lc, 60)))
	}
	return conform.Pass("capabilities.%s.listChanged is %s", capability, lc)
}

// CapabilitiesResult names the result that declared the session's capabilities:
// the InitializeResult, or in 2026-07-28, which has no initialize, the
// DiscoverResult.
func CapabilitiesResult(s *conform.Session) string {
	if s.Modern() {
		return "DiscoverResult"
	}
	return "InitializeResult"
}
