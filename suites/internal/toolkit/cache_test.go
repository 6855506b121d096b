package toolkit

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCacheHints(t *testing.T) {
	tests := []struct {
		name, result, scope, problems string
	}{
		{"complete with hints", `{"resultType":"complete","ttlMs":0,"cacheScope":"private"}`, "private", ""},
		{"integral float ttl", `{"resultType":"complete","ttlMs":5.0,"cacheScope":"public"}`, "public", ""},
		{"no hints", `{"resultType":"complete"}`, "", "no ttlMs; no cacheScope"},
		{"no resultType", `{"ttlMs":1,"cacheScope":"public"}`, "public", "no resultType"},
		{"negative ttl", `{"resultType":"complete","ttlMs":-1,"cacheScope":"public"}`, "public", "ttlMs is -1, not an integer ≥ 0"},
		{"fractional ttl", `{"resultType":"complete","ttlMs":1.5,"cacheScope":"public"}`, "public", "ttlMs is 1.5, not an integer ≥ 0"},
		{"string ttl", `{"resultType":"complete","ttlMs":"1","cacheScope":"public"}`, "public", `ttlMs is "1", not a number`},
		{"bad scope", `{"resultType":"complete","ttlMs":1,"cacheScope":"shared"}`, "", `cacheScope is "shared", not "public" or "private"`},
		{"input_required is not cached", `{"resultType":"input_required"}`, "", ""},
		{"resultType not a string", `{"resultType":1,"ttlMs":1,"cacheScope":"public"}`, "public", "resultType is 1, not a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.result), &res); err != nil {
				t.Fatal(err)
			}
			scope, probs := CacheHints(res)
			if scope != tc.scope || strings.Join(probs, "; ") != tc.problems {
				t.Errorf("got %q %q, want %q %q", scope, strings.Join(probs, "; "), tc.scope, tc.problems)
			}
		})
	}
}
