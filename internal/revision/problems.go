package revision

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// MaxProblems is the most problems a ValidationError keeps; the rest are counted.
const MaxProblems = 20

// Problem is one reason an instance failed validation.
type Problem struct {
	// Pointer is an RFC 6901 JSON pointer into the instance; "" is the root.
	Pointer string
	// Message says what is wrong at Pointer.
	Message string
}

// String renders the problem as "<pointer>: <message>", the root as "(root)".
func (p Problem) String() string { return DisplayPointer(p.Pointer) + ": " + p.Message }

// DisplayPointer renders a JSON pointer for messages: "(root)" for "".
func DisplayPointer(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}

// ValidationError reports why an instance is invalid against a schema definition.
// Problems holds leaf problems only (nested causes are flattened), de-duplicated,
// sorted by pointer (array indexes numerically) and capped at MaxProblems.
type ValidationError struct {
	// Definition is the schema definition validated against, e.g. "CallToolResult",
	// or "outputSchema" for a tool's own schema.
	Definition string
	// Revision is the protocol revision whose schema was used ("" for tool schemas).
	Revision string
	// Problems are the reasons, at most MaxProblems of them.
	Problems []Problem
	// Omitted counts problems dropped beyond MaxProblems.
	Omitted int
}

// Error renders e.g. `ListToolsResult (2025-06-18): /tools/0/inputSchema/type: value
// must be "object"; /tools/1: missing properties: 'name'`.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(e.Definition)
	if e.Revision != "" {
		b.WriteString(" (" + e.Revision + ")")
	}
	b.WriteString(": ")
	if len(e.Problems) == 0 {
		b.WriteString("invalid")
	}
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&b, "; … and %d more", e.Omitted)
	}
	return b.String()
}

// newValidationError converts the library's error tree into a ValidationError.
func newValidationError(def, rev string, ve *jsonschema.ValidationError, instance any) *ValidationError {
	probs := dedupe(collectProblems(ve, instance))
	sortProblems(probs)
	out := &ValidationError{Definition: def, Revision: rev}
	if len(probs) > MaxProblems {
		out.Omitted = len(probs) - MaxProblems
		probs = probs[:MaxProblems]
	}
	out.Problems = probs
	return out
}

// collectProblems flattens an error tree into its leaf problems, resolving
// anyOf/oneOf failures to the most plausible alternative (see unionProblems).
func collectProblems(ve *jsonschema.ValidationError, instance any) []Problem {
	if isUnionFailure(ve) {
		return unionProblems(ve, instance)
	}
	if len(ve.Causes) == 0 || isLeafKeyword(ve.KeywordLocation) {
		return []Problem{{Pointer: instancePointer(ve.InstanceLocation), Message: ve.Message}}
	}
	var out []Problem
	for _, c := range ve.Causes {
		out = append(out, collectProblems(c, instance)...)
	}
	return out
}

// isUnionFailure reports an "anyOf failed"/"oneOf failed" node (not the "valid
// against schemas at indexes i and j" oneOf failure, which is a leaf).
func isUnionFailure(ve *jsonschema.ValidationError) bool {
	if len(ve.Causes) == 0 {
		return false
	}
	kw := lastToken(ve.KeywordLocation)
	return kw == "anyOf" || kw == "oneOf"
}

// isLeafKeyword marks keywords whose own message says more than their causes.
func isLeafKeyword(keywordLocation string) bool {
	switch lastToken(keywordLocation) {
	case "minContains", "contains":
		return true
	}
	return false
}

func lastToken(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return ptr[i+1:]
	}
	return ptr
}

// discriminators are the members that tell the alternatives of MCP unions apart:
// content blocks by "type", messages and notifications by "method".
var discriminators = []string{"type", "method"}

// unionProblems explains a failed anyOf/oneOf. Every alternative failed, and listing
// all their problems would bury the useful one, so:
//
//  1. If the instance is an object whose discriminator member ("type", "method") some
//     alternatives accept, only those alternatives are considered. If none accepts it,
//     the one problem reported is at the discriminator, listing the allowed values
//     (e.g. `/content/0/type: "video" is not one of "text", "image", …`).
//  2. Of the remaining alternatives, the one that got furthest into the instance
//     (deepest problem pointer; then fewest problems; then first) is reported.
//  3. If every alternative failed right at the union's own location, one problem
//     there lists each alternative's complaint ("no alternative matched: … | …").
func unionProblems(ve *jsonschema.ValidationError, instance any) []Problem {
	loc := instancePointer(ve.InstanceLocation)
	branches := make([][]Problem, 0, len(ve.Causes))
	for _, c := range ve.Causes {
		branches = append(branches, dedupe(collectProblems(c, instance)))
	}

	if obj, ok := resolvePointer(instance, loc).(map[string]any); ok {
		for _, key := range discriminators {
			val, present := obj[key]
			if !present {
				continue
			}
			dptr := loc + "/" + escapeToken(key)
			var matching [][]Problem
			var allowed []string
			for _, b := range branches {
				hit := false
				for _, p := range b {
					if p.Pointer != dptr {
						continue
					}
					hit = true
					if a, ok := strings.CutPrefix(p.Message, "value must be one of "); ok {
						allowed = append(allowed, strings.Split(a, ", ")...)
					} else if a, ok := strings.CutPrefix(p.Message, "value must be "); ok {
						allowed = append(allowed, a)
					}
				}
				if !hit {
					matching = append(matching, b)
				}
			}
			switch {
			case len(matching) == len(branches):
				continue // this member does not tell the alternatives apart
			case len(matching) == 0 && len(allowed) > 0:
				slices.Sort(allowed)
				allowed = slices.Compact(allowed)
				return []Problem{{Pointer: dptr, Message: fmt.Sprintf("%s is not one of %s",
					jsonText(val), strings.Join(allowed, ", "))}}
			case len(matching) > 0:
				branches = matching
			}
			break
		}
	}

	if len(branches) == 1 {
		return branches[0]
	}
	best, bestDepth := -1, -1
	for i, b := range branches {
		d := maxDepth(b)
		if best < 0 || d > bestDepth || (d == bestDepth && len(b) < len(branches[best])) {
			best, bestDepth = i, d
		}
	}
	if best >= 0 && bestDepth > pointerDepth(loc) {
		return branches[best]
	}
	// Every alternative failed at the union's location itself: say so once.
	var alts []string
	for _, b := range branches {
		msgs := make([]string, 0, len(b))
		for _, p := range b {
			msgs = append(msgs, p.Message)
		}
		alt := strings.Join(msgs, ", ")
		if !slices.Contains(alts, alt) {
			alts = append(alts, alt)
		}
	}
	return []Problem{{Pointer: loc, Message: "no alternative matched: " + strings.Join(alts, " | ")}}
}

func maxDepth(ps []Problem) int {
	d := -1
	for _, p := range ps {
		d = max(d, pointerDepth(p.Pointer))
	}
	return d
}

func pointerDepth(ptr string) int { return strings.Count(ptr, "/") }

// jsonText renders a decoded JSON value compactly for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// dedupe drops repeated problems, keeping the first occurrence.
func dedupe(ps []Problem) []Problem {
	seen := make(map[Problem]bool, len(ps))
	out := ps[:0:0]
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// sortProblems orders problems by pointer, token by token, comparing array indexes
// numerically ("/tools/2" before "/tools/10"), then by message.
func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

func comparePointers(a, b string) int {
	ta, tb := splitPointer(a), splitPointer(b)
	for i := 0; i < len(ta) && i < len(tb); i++ {
		if ta[i] == tb[i] {
			continue
		}
		na, ea := strconv.Atoi(ta[i])
		nb, eb := strconv.Atoi(tb[i])
		if ea == nil && eb == nil {
			return cmp.Compare(na, nb)
		}
		return strings.Compare(ta[i], tb[i])
	}
	return cmp.Compare(len(ta), len(tb))
}

// splitPointer splits a JSON pointer into its (still escaped) tokens.
func splitPointer(ptr string) []string {
	if ptr == "" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(ptr, "/"), "/")
}

// instancePointer converts the library's instance location, whose tokens are
// URL-path-escaped, into a plain RFC 6901 pointer.
func instancePointer(loc string) string {
	if loc == "" || loc == "#" {
		return ""
	}
	toks := splitPointer(strings.TrimPrefix(loc, "#"))
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			toks[i] = u
		}
	}
	return "/" + strings.Join(toks, "/")
}

// escapeToken escapes one reference token for a JSON pointer (RFC 6901).
func escapeToken(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// unescapeToken reverses escapeToken.
func unescapeToken(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// escapePointerToken escapes a token for use in a URI fragment JSON pointer.
func escapePointerToken(tok string) string {
	return url.PathEscape(escapeToken(tok))
}

// resolvePointer returns the value at ptr in a decoded JSON value, or nil.
func resolvePointer(v any, ptr string) any {
	for _, tok := range splitPointer(ptr) {
		tok = unescapeToken(tok)
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
