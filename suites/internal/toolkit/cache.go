package toolkit

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/mcp-conform/mcp-conform/conform"
)

// CacheHints reads the members 2026-07-28 puts on a cacheable result
// (server/utilities/caching.mdx): resultType, and, on a "complete" result, ttlMs (an
// integer ≥ 0) and cacheScope ("public" or "private"). It returns the cacheScope (""
// when absent or invalid) and what is wrong, one phrase per member. A result whose
// resultType is another string (e.g. "input_required") is not cached: only its
// resultType is judged.
func CacheHints(res map[string]json.RawMessage) (scope string, problems []string) {
	rawType, ok := res["resultType"]
	var rt string
	switch {
	case !ok:
		problems = append(problems, "no resultType")
	case json.Unmarshal(rawType, &rt) != nil:
		problems = append(problems, "resultType is "+conform.ClipBytes(rawType, 40)+", not a string")
	case rt != "complete":
		return "", nil
	}
	if raw, ok := res["ttlMs"]; !ok {
		problems = append(problems, "no ttlMs")
	} else if p := ttlProblem(raw); p != "" {
		problems = append(problems, p)
	}
	raw, ok := res["cacheScope"]
	if !ok {
		return "", append(problems, "no cacheScope")
	}
	if json.Unmarshal(raw, &scope) != nil || (scope != "public" && scope != "private") {
		return "", append(problems, fmt.Sprintf("cacheScope is %s, not \"public\" or \"private\"", conform.ClipBytes(raw, 40)))
	}
	return scope, problems
}

// ttlProblem says what is wrong with a ttlMs value ("" when it is an integer ≥ 0;
// JSON Schema counts 5.0 as an integer).
func ttlProblem(raw json.RawMessage) string {
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return "ttlMs is " + conform.ClipBytes(raw, 40) + ", not a number"
	}
	if f != math.Trunc(f) || f < 0 {
		return "ttlMs is " + string(raw) + ", not an integer ≥ 0"
	}
	return ""
}
