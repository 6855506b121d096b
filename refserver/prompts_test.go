package refserver

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// TestPromptsAndCompletion walks prompts/list, gets every prompt and completes
// their arguments in every legacy revision: each result valid under the revision's
// schema (the harness validates every message), the errors -32602.
func TestPromptsAndCompletion(t *testing.T) {
	for _, rev := range legacyRevisions {
		t.Run(rev.Name, func(t *testing.T) {
			cl := newInitialized(t, dialSession, Options{}, rev.Name, nil)
			all := append(append([]fixturePrompt(nil), fixturePrompts...), officialPrompts...)
			var listed []any
			pages := 0
			for cursor := any(nil); pages == 0 || cursor != nil; pages++ {
				var params map[string]any
				if cursor != nil {
					params = map[string]any{"cursor": cursor}
				}
				r, _ := cl.result("prompts/list", params)
				listed = append(listed, asSlice(r["prompts"])...)
				cursor = r["nextCursor"]
			}
			if want := (len(all) + promptPageSize - 1) / promptPageSize; len(listed) != len(all) || pages != want {
				t.Fatalf("%d prompts on %d pages, want %d on %d", len(listed), pages, len(all), want)
			}
			args := map[string]any{"name": "Ada", "language": "go", "arg1": "a", "arg2": "b", "resourceUri": uriStaticText}
			for _, p := range all {
				r, _ := cl.result("prompts/get", map[string]any{"name": p.name, "arguments": args})
				if len(asSlice(r["messages"])) == 0 {
					t.Errorf("prompts/get %s = %v", p.name, r)
				}
			}
			r, _ := cl.result("completion/complete", map[string]any{
				"ref": map[string]any{"type": "ref/prompt", "name": "code_review"}, "argument": map[string]any{"name": "language", "value": "py"}})
			if c := r["completion"].(map[string]any); len(asSlice(c["values"])) != 1 || c["hasMore"] != false {
				t.Errorf("completion of py = %v", r)
			}
			r, _ = cl.result("completion/complete", map[string]any{
				"ref": map[string]any{"type": "ref/resource", "uri": completionTemplate}, "argument": map[string]any{"name": "id", "value": "1"}})
			if c := r["completion"].(map[string]any); len(asSlice(c["values"])) != 3 {
				t.Errorf("completion of id 1 = %v", r)
			}
			for _, bad := range []struct {
				method string
				params map[string]any
			}{
				{"prompts/list", map[string]any{"cursor": "x"}},
				{"prompts/get", map[string]any{"name": "x_unknown"}},
				{"prompts/get", map[string]any{"name": "greeting"}},
				{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "x_unknown"}, "argument": map[string]any{"name": "a", "value": ""}}},
			} {
				m, _ := cl.call(bad.method, bad.params)
				expectError(t, m, wire.CodeInvalidParams)
			}
		})
	}
}
