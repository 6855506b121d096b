package refserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// allCaps declares every client capability the fixture can use.
func allCaps(rev revision.Revision) map[string]any {
	caps := map[string]any{"sampling": map[string]any{}, "roots": map[string]any{"listChanged": true}}
	if rev.Has(revision.Elicitation) {
		caps["elicitation"] = map[string]any{}
	}
	return caps
}

// answerAll answers elicitation and sampling requests like a cooperative client.
func answerAll(m *wire.Message) (any, *rpcError) {
	switch m.Method {
	case "elicitation/create":
		return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}, nil
	case "sampling/createMessage":
		return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "hello"}, "model": "test-model"}, nil
	}
	return nil, errMethodNotFound(m.Method)
}

// listAll walks every tools/list page and returns the tools by name, in order.
func listAll(t testing.TB, cl *client) ([]map[string]any, int) {
	t.Helper()
	var tools []map[string]any
	params := map[string]any{}
	pages := 0
	for {
		r, _ := cl.result("tools/list", params)
		pages++
		for _, x := range asSlice(r["tools"]) {
			tools = append(tools, x.(map[string]any))
		}
		next, has := r["nextCursor"]
		if !has {
			return tools, pages
		}
		if pages > 100 {
			t.Fatal("tools/list never ends")
		}
		params = map[string]any{"cursor": next}
	}
}

func blocks(r map[string]any) []map[string]any {
	var out []map[string]any
	for _, b := range asSlice(r["content"]) {
		out = append(out, b.(map[string]any))
	}
	return out
}

func types(r map[string]any) string {
	var ts []string
	for _, b := range blocks(r) {
		ts = append(ts, b["type"].(string))
	}
	return strings.Join(ts, ",")
}

func decodeB64(t testing.TB, s any) []byte {
	t.Helper()
	str, _ := s.(string)
	b, err := base64.StdEncoding.Strict().DecodeString(str)
	if err != nil {
		t.Fatalf("bad base64 %q: %v", str, err)
	}
	return b
}

func checkPNG(t testing.TB, data any) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(decodeB64(t, data)))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1 || b.Dy() != 1 {
		t.Errorf("PNG is %v, want 1×1", b)
	}
}

func isError(r map[string]any) bool { v, _ := r["isError"].(bool); return v }

// toolCase is the expectation for one fixture tool.
type toolCase struct {
	args  map[string]any
	check func(t *testing.T, rev revision.Revision, r map[string]any, notes []*wire.Message, cl *client)
}

func expectText(want string) func(*testing.T, revision.Revision, map[string]any, []*wire.Message, *client) {
	return func(t *testing.T, _ revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		if isError(r) || toolText(t, r) != want {
			t.Errorf("result = %v, want text %q", r, want)
		}
	}
}

var toolCases = map[string]toolCase{
	"test_simple_text": {check: expectText("This is a simple text response for testing.")},
	"test_image_content": {check: func(t *testing.T, _ revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		b := blocks(r)
		if len(b) != 1 || b[0]["type"] != "image" || b[0]["mimeType"] != "image/png" {
			t.Fatalf("result = %v", r)
		}
		checkPNG(t, b[0]["data"])
	}},
	"test_audio_content": {check: func(t *testing.T, rev revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		b := blocks(r)
		if !rev.Has(revision.AudioContent) {
			if types(r) != "text" {
				t.Fatalf("2024-11-05 must degrade audio to text, got %v", r)
			}
			return
		}
		if len(b) != 1 || b[0]["type"] != "audio" || b[0]["mimeType"] != "audio/wav" {
			t.Fatalf("result = %v", r)
		}
		wav := decodeB64(t, b[0]["data"])
		if len(wav) < 44 || string(wav[0:4]) != "RIFF" || string(wav[8:12]) != "WAVE" || string(wav[12:16]) != "fmt " {
			t.Errorf("not a WAV file: % x", wav)
		}
	}},
	"test_embedded_resource": {check: func(t *testing.T, _ revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		b := blocks(r)
		if types(r) != "resource,resource" {
			t.Fatalf("result = %v", r)
		}
		text := b[0]["resource"].(map[string]any)
		blob := b[1]["resource"].(map[string]any)
		if text["uri"] != uriEmbeddedText || text["text"] != embeddedText || text["mimeType"] != "text/plain" {
			t.Errorf("text resource = %v", text)
		}
		if blob["uri"] != uriEmbeddedBlob || blob["mimeType"] != "image/png" {
			t.Errorf("blob resource = %v", blob)
		}
		checkPNG(t, blob["blob"])
	}},
	"test_multiple_content_types": {check: func(t *testing.T, _ revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		if types(r) != "text,image,resource" {
			t.Fatalf("types = %s", types(r))
		}
	}},
	"test_tool_with_logging": {check: func(t *testing.T, _ revision.Revision, r map[string]any, notes []*wire.Message, _ *client) {
		var levels []string
		for _, n := range notes {
			if n.Method == "notifications/message" {
				var p struct{ Level string }
				_ = json.Unmarshal(n.Params, &p)
				levels = append(levels, p.Level)
			}
		}
		if !reflect.DeepEqual(levels, logLevels) {
			t.Errorf("log levels = %v, want all 8", levels)
		}
		if isError(r) {
			t.Errorf("result = %v", r)
		}
	}},
	"test_tool_with_progress": {check: func(t *testing.T, rev revision.Revision, r map[string]any, notes []*wire.Message, _ *client) {
		checkProgress(t, rev, notes, `"tok-test_tool_with_progress"`, 3)
	}},
	"test_error_handling": {check: func(t *testing.T, _ revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		if !isError(r) || toolText(t, r) == "" {
			t.Errorf("result = %v, want isError with text", r)
		}
	}},
	"test_trigger_tool_change": {check: func(t *testing.T, _ revision.Revision, r map[string]any, notes []*wire.Message, _ *client) {
		// The trigger changes the prompt and resource lists too (dynamic_prompt,
		// prompts.go; test://dynamic/resource, resources.go).
		if len(notes) != 3 || notes[0].Method != "notifications/tools/list_changed" || len(notes[0].Params) != 0 ||
			notes[1].Method != "notifications/prompts/list_changed" || len(notes[1].Params) != 0 ||
			notes[2].Method != "notifications/resources/list_changed" || len(notes[2].Params) != 0 {
			t.Errorf("notifications = %v", notes)
		}
		if toolText(t, r) != "test_dynamic_tool added." {
			t.Errorf("result = %v", r)
		}
	}},
	"test_resource_link": {check: func(t *testing.T, rev revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		if !rev.Has(revision.ResourceLink) {
			if types(r) != "text" {
				t.Fatalf("resource_link must degrade to text in %s: %v", rev.Name, r)
			}
			return
		}
		b := blocks(r)
		if len(b) != 1 || b[0]["type"] != "resource_link" {
			t.Fatalf("result = %v", r)
		}
		for _, k := range []string{"uri", "name", "title", "mimeType", "size", "annotations"} {
			if _, ok := b[0][k]; !ok {
				t.Errorf("resource_link lacks %s", k)
			}
		}
		if b[0]["size"] != float64(len(readmeText)) {
			t.Errorf("size = %v", b[0]["size"])
		}
		if _, has := b[0]["icons"]; has != rev.Has(revision.Icons) {
			t.Errorf("icons present=%v in %s", has, rev.Name)
		}
	}},
	"test_annotated_content": {check: func(t *testing.T, rev revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		if types(r) != "text,image,resource" {
			t.Fatalf("types = %s", types(r))
		}
		for _, b := range blocks(r) {
			a, _ := b["annotations"].(map[string]any)
			if !reflect.DeepEqual(a["audience"], []any{"user", "assistant"}) || a["priority"] != 0.5 {
				t.Errorf("annotations = %v", a)
			}
			lm, has := a["lastModified"].(string)
			if has != rev.Has(revision.LastModified) {
				t.Errorf("lastModified present=%v in %s", has, rev.Name)
			}
			if has {
				if _, err := time.Parse(time.RFC3339, lm); err != nil {
					t.Errorf("lastModified %q: %v", lm, err)
				}
			}
		}
	}},
	"test_structured_error": {check: func(t *testing.T, _ revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		if !isError(r) || toolText(t, r) == "" {
			t.Errorf("result = %v, want isError with text", r)
		}
		if _, has := r["structuredContent"]; has {
			t.Errorf("a failed call carries structuredContent: %v", r)
		}
	}},
	"test_structured_no_schema": {check: func(t *testing.T, rev revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		text := toolText(t, r)
		var fromText map[string]any
		if err := json.Unmarshal([]byte(text), &fromText); err != nil {
			t.Fatalf("text is not JSON: %q", text)
		}
		sc, has := r["structuredContent"]
		if has != rev.Has(revision.StructuredContent) {
			t.Fatalf("structuredContent present=%v in %s", has, rev.Name)
		}
		if has && !reflect.DeepEqual(sc, fromText) {
			t.Errorf("text %q does not mirror structuredContent %v", text, sc)
		}
	}},
	"test_structured_output": {check: func(t *testing.T, rev revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		text := toolText(t, r)
		var fromText map[string]any
		if err := json.Unmarshal([]byte(text), &fromText); err != nil {
			t.Fatalf("text is not JSON: %q", text)
		}
		sc, has := r["structuredContent"]
		if has != rev.Has(revision.StructuredContent) {
			t.Fatalf("structuredContent present=%v in %s", has, rev.Name)
		}
		if has {
			if !reflect.DeepEqual(sc, fromText) {
				t.Errorf("text %q does not mirror structuredContent %v", text, sc)
			}
			if err := validateAgainst(schemaWeather, sc); err != nil {
				t.Errorf("structuredContent breaks outputSchema: %v", err)
			}
		}
	}},
	"test_echo": {args: map[string]any{"text": "héllo ✓ 𝄞", "count": 2}, check: expectText("héllo ✓ 𝄞héllo ✓ 𝄞")},
	"test_slow": {args: map[string]any{"ms": 250}, check: func(t *testing.T, rev revision.Revision, r map[string]any, notes []*wire.Message, _ *client) {
		if toolText(t, r) != "Worked for 250 ms." {
			t.Errorf("result = %v", r)
		}
		checkProgress(t, rev, notes, `"tok-test_slow"`, 2) // as it starts, and at 200 ms
	}},
	"test_last_cancellation": {check: expectText("none")},
	"test_elicitation": {check: func(t *testing.T, rev revision.Revision, r map[string]any, _ []*wire.Message, cl *client) {
		if !rev.Has(revision.Elicitation) {
			if !isError(r) {
				t.Errorf("elicitation does not exist in %s: want isError, got %v", rev.Name, r)
			}
			return
		}
		if isError(r) || !strings.Contains(toolText(t, r), `"action":"accept"`) {
			t.Errorf("result = %v", r)
		}
	}},
	"test_sampling": {check: func(t *testing.T, _ revision.Revision, r map[string]any, _ []*wire.Message, _ *client) {
		if isError(r) || !strings.Contains(toolText(t, r), `"model":"test-model"`) {
			t.Errorf("result = %v", r)
		}
	}},
}

// checkProgress checks the progress notifications of one call: the token echoed
// byte for byte, strictly increasing progress, message only from 2025-03-26.
func checkProgress(t *testing.T, rev revision.Revision, notes []*wire.Message, token string, want int) {
	t.Helper()
	last := -1.0
	n := 0
	for _, m := range notes {
		if m.Method != "notifications/progress" {
			continue
		}
		n++
		var p struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			Progress      float64         `json:"progress"`
			Message       *string         `json:"message"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if string(p.ProgressToken) != token {
			t.Errorf("progressToken %s, want %s", p.ProgressToken, token)
		}
		if p.Progress <= last {
			t.Errorf("progress %v after %v", p.Progress, last)
		}
		last = p.Progress
		if (p.Message != nil) != rev.Has(revision.ProgressMessage) {
			t.Errorf("message present=%v in %s", p.Message != nil, rev.Name)
		}
	}
	if n != want {
		t.Errorf("%d progress notifications, want %d", n, want)
	}
}

// validateAgainst validates a decoded value against a schema text.
func validateAgainst(schemaText string, v any) error {
	sch, err := compileSchema("test", schemaText)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(v)
	var n any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		return err
	}
	return sch.Validate(n)
}

// TestEveryToolEveryRevisionEveryTransport calls every listed tool in every revision
// over every transport; each message is validated against the official schema of the
// negotiated revision and checked for members the revision does not define.
func TestEveryToolEveryRevisionEveryTransport(t *testing.T) {
	for _, tr := range transports {
		for _, rev := range legacyRevisions {
			t.Run(tr.name+"/"+rev.Name, func(t *testing.T) {
				t.Parallel()
				cl := newInitialized(t, tr.dial, Options{}, rev.Name, allCaps(rev))
				cl.answer = answerAll
				tools, _ := listAll(t, cl)
				if len(tools) != 31 {
					t.Fatalf("%d tools listed, want 31", len(tools))
				}
				for _, def := range tools {
					name := def["name"].(string)
					tc, known := toolCases[name]
					if !known && !strings.HasPrefix(name, "test_filler_") {
						t.Errorf("no expectation for tool %s", name)
						continue
					}
					params := toolCallParams(name, tc.args)
					params["_meta"] = map[string]any{"progressToken": "tok-" + name}
					r, notes := cl.result("tools/call", params)
					t.Run(name, func(t *testing.T) {
						if tc.check == nil {
							if isError(r) || !strings.HasPrefix(toolText(t, r), "filler") {
								t.Errorf("result = %v", r)
							}
							return
						}
						tc.check(t, rev, r, notes, cl)
					})
				}
				wantRequests := 1 // sampling
				if rev.Has(revision.Elicitation) {
					wantRequests++
				}
				if len(cl.serverRequests) != wantRequests {
					t.Errorf("%d server requests, want %d", len(cl.serverRequests), wantRequests)
				}
			})
		}
	}
}

func TestToolDefinitionsPerRevision(t *testing.T) {
	for _, rev := range legacyRevisions {
		t.Run(rev.Name, func(t *testing.T) {
			cl := newInitialized(t, dialSession, Options{PageSize: NoPaging}, rev.Name, nil)
			tools, pages := listAll(t, cl)
			if pages != 1 {
				t.Errorf("NoPaging gave %d pages", pages)
			}
			seen := map[string]bool{}
			var titled, iconed, hinted, withOutput, withMeta int
			for _, d := range tools {
				name := d["name"].(string)
				if !revision.ToolNameValid(name) || seen[name] {
					t.Errorf("bad or duplicate name %q", name)
				}
				seen[name] = true
				in := d["inputSchema"].(map[string]any)
				if in["type"] != "object" {
					t.Errorf("%s: inputSchema type %v", name, in["type"])
				}
				b, _ := json.Marshal(in)
				if _, err := compileSchema(name, string(b)); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				if _, ok := d["title"]; ok {
					titled++
				}
				if icons, ok := d["icons"].([]any); ok {
					iconed++
					checkIcons(t, icons)
				}
				if a, ok := d["annotations"].(map[string]any); ok {
					checkHints(t, name, a)
					if len(a) == 5 {
						hinted++
					}
				}
				if o, ok := d["outputSchema"].(map[string]any); ok {
					withOutput++
					if o["type"] != "object" {
						t.Errorf("%s: outputSchema type %v", name, o["type"])
					}
					// The server compiles no schema as it starts (lazySchema): each
					// listed one is proven valid here, as draft-07 and as 2020-12.
					b, _ := json.Marshal(o)
					if _, err := compileSchema(name+"/output", string(b)); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
				if _, ok := d["_meta"]; ok {
					withMeta++
				}
			}
			for _, c := range []struct {
				what string
				got  int
				has  bool
			}{
				{"title", titled, rev.Has(revision.Title)},
				{"icons", iconed, rev.Has(revision.Icons)},
				{"annotations with all hints and a title", hinted, rev.Has(revision.ToolAnnotations)},
				{"outputSchema", withOutput, rev.Has(revision.OutputSchema)},
				{"_meta", withMeta, rev.Has(revision.Meta)},
			} {
				if (c.got > 0) != c.has {
					t.Errorf("%d tools with %s in %s", c.got, c.what, rev.Name)
				}
			}
		})
	}
}

// checkIcons wants one https icon and one data: PNG that decodes.
func checkIcons(t *testing.T, icons []any) {
	t.Helper()
	var https, data bool
	for _, x := range icons {
		ic := x.(map[string]any)
		src := ic["src"].(string)
		switch {
		case strings.HasPrefix(src, "https://"):
			https = true
		case strings.HasPrefix(src, "data:image/png;base64,"):
			data = true
			if ic["mimeType"] != "image/png" {
				t.Errorf("data icon mimeType %v", ic["mimeType"])
			}
			if _, err := png.Decode(bytes.NewReader(decodeB64(t, strings.TrimPrefix(src, "data:image/png;base64,")))); err != nil {
				t.Errorf("data icon: %v", err)
			}
		default:
			t.Errorf("icon scheme of %q", src)
		}
	}
	if !https || !data {
		t.Errorf("icons = %v, want one https and one data: PNG", icons)
	}
}

// checkHints rejects contradictory annotations.
func checkHints(t *testing.T, name string, a map[string]any) {
	t.Helper()
	if a["readOnlyHint"] == true && a["destructiveHint"] == true {
		t.Errorf("%s: readOnlyHint with destructiveHint", name)
	}
}

func TestPaging(t *testing.T) {
	cl := newInitialized(t, dialSession, Options{}, "2025-11-25", nil)
	tools, pages := listAll(t, cl)
	if pages != 7 || len(tools) != 31 {
		t.Fatalf("%d tools on %d pages, want 31 on 7", len(tools), pages)
	}
	seen := map[string]int{}
	for _, d := range tools {
		seen[d["name"].(string)]++
	}
	for n, c := range seen {
		if c != 1 {
			t.Errorf("%s listed %d times", n, c)
		}
	}
	first, _ := cl.result("tools/list", nil)
	cursor := first["nextCursor"].(string)
	a, _ := cl.result("tools/list", map[string]any{"cursor": cursor})
	b, _ := cl.result("tools/list", map[string]any{"cursor": cursor})
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the same cursor gave different pages")
	}

	t.Run("invalid cursors", func(t *testing.T) {
		enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
		for _, c := range []any{
			"x-conformance-invalid-@@", "", enc("page:3:0"), enc("page:0:0"), enc("page:5:9"),
			enc("page:100:0"), enc("page:-5:0"), enc("page:05:0"), enc("other:5:0"), cursor + "=", 5, nil, true,
		} {
			m, _ := cl.call("tools/list", map[string]any{"cursor": c})
			if m.Error == nil || m.Error.Code != wire.CodeInvalidParams {
				t.Errorf("cursor %#v: %s", c, m.Raw)
			}
		}
	})

	t.Run("a cursor survives a list change", func(t *testing.T) {
		cl.result("tools/call", toolCallParams("test_trigger_tool_change", nil))
		r, _ := cl.result("tools/list", map[string]any{"cursor": cursor})
		if len(asSlice(r["tools"])) != 5 {
			t.Errorf("stale cursor page = %v", r)
		}
		cl.result("tools/call", toolCallParams("test_trigger_tool_change", nil))
	})

	t.Run("no paging rejects every cursor", func(t *testing.T) {
		cl := newInitialized(t, dialSession, Options{PageSize: NoPaging}, "2025-11-25", nil)
		m, _ := cl.call("tools/list", map[string]any{"cursor": cursor})
		expectError(t, m, wire.CodeInvalidParams)
	})
}

func TestToolListChanged(t *testing.T) {
	for _, rev := range legacyRevisions {
		t.Run(rev.Name, func(t *testing.T) {
			cl := newInitialized(t, dialSession, Options{PageSize: NoPaging}, rev.Name, nil)
			names := func() []string {
				tools, _ := listAll(t, cl)
				var out []string
				for _, d := range tools {
					out = append(out, d["name"].(string))
				}
				return out
			}
			before := names()
			m, _ := cl.call("tools/call", toolCallParams(dynamicToolName, nil))
			expectError(t, m, wire.CodeInvalidParams)

			r, notes := cl.result("tools/call", toolCallParams("test_trigger_tool_change", nil))
			// The prompt and resource lists change with it (prompts.go, resources.go).
			if len(notes) != 3 || notes[0].Method != "notifications/tools/list_changed" || notes[1].Method != "notifications/prompts/list_changed" ||
				notes[2].Method != "notifications/resources/list_changed" {
				t.Fatalf("notifications before the result = %v", notes)
			}
			if toolText(t, r) != "test_dynamic_tool added." {
				t.Fatalf("result = %v", r)
			}
			after := names()
			if len(after) != len(before)+1 || after[len(after)-1] != dynamicToolName {
				t.Fatalf("list after = %v", after)
			}
			r, _ = cl.result("tools/call", toolCallParams(dynamicToolName, nil))
			if isError(r) {
				t.Fatalf("dynamic tool = %v", r)
			}
			r, notes = cl.result("tools/call", toolCallParams("test_trigger_tool_change", nil))
			if len(notes) != 3 || toolText(t, r) != "test_dynamic_tool removed." {
				t.Fatalf("second toggle = %v %v", r, notes)
			}
			if !reflect.DeepEqual(names(), before) {
				t.Fatalf("list did not return to its first state")
			}
		})
	}
}

func TestToolsCallProtocolErrors(t *testing.T) {
	cases := []struct{ name, params string }{
		{"params absent", ``},
		{"params null", `null`},
		{"params not an object", `"abc"`},
		{"params an array", `[1]`},
		{"empty params", `{}`},
		{"name not a string", `{"name":5}`},
		{"name null", `{"name":null}`},
		{"arguments an array", `{"name":"test_echo","arguments":[1]}`},
		{"arguments a string", `{"name":"test_echo","arguments":"x"}`},
		{"arguments null", `{"name":"test_echo","arguments":null}`},
		{"_meta not an object", `{"name":"test_simple_text","_meta":[]}`},
		{"progressToken an object", `{"name":"test_simple_text","_meta":{"progressToken":{}}}`},
		{"unknown tool", `{"name":"x_conformance_nonexistent_42"}`},
		{"case-flipped name", `{"name":"TEST_SIMPLE_TEXT"}`},
		{"case-flipped initial", `{"name":"Test_simple_text"}`},
		{"dynamic tool while absent", `{"name":"test_dynamic_tool"}`},
	}
	for _, rev := range legacyRevisions {
		t.Run(rev.Name, func(t *testing.T) {
			cl := newInitialized(t, dialSession, Options{}, rev.Name, nil)
			for i, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					id := wire.NumberID(int64(1000 + i))
					cl.methods[id.Key()] = "tools/call"
					p := ""
					if tc.params != "" {
						p = `,"params":` + tc.params
					}
					cl.sendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call"%s}`, 1000+i, p))
					m, _ := cl.await(id)
					expectError(t, m, wire.CodeInvalidParams)
				})
			}
		})
	}
}

func TestInvalidArgumentsAreToolErrors(t *testing.T) {
	cases := []struct {
		tool string
		args string
	}{
		{"test_echo", `{}`},
		{"test_echo", `{"text":5}`},
		{"test_echo", `{"text":"a","count":0}`},
		{"test_echo", `{"text":"a","count":11}`},
		{"test_echo", `{"text":"a","count":1.5}`},
		{"test_echo", `{"text":"a","count":"2"}`},
		{"test_echo", `{"text":"a","extra":true}`},
		{"test_simple_text", `{"x":1}`},
		{"test_slow", `{"ms":-1}`},
		{"test_slow", `{"ms":20000}`},
		{"test_filler_07", `{"x":1}`},
	}
	for _, rev := range legacyRevisions {
		t.Run(rev.Name, func(t *testing.T) {
			cl := newInitialized(t, dialSession, Options{}, rev.Name, nil)
			for _, tc := range cases {
				var args map[string]any
				_ = json.Unmarshal([]byte(tc.args), &args)
				r, _ := cl.result("tools/call", toolCallParams(tc.tool, args))
				if !isError(r) || !strings.Contains(toolText(t, r), "Invalid arguments for tool "+tc.tool) {
					t.Errorf("%s %s: %v", tc.tool, tc.args, r)
				}
			}
			r, _ := cl.result("tools/call", toolCallParams("test_echo", map[string]any{"text": "ab", "count": 3.0}))
			if toolText(t, r) != "ababab" {
				t.Errorf("count 3.0 is an integer: %v", r)
			}
		})
	}
}

func TestProgressTokenKeepsItsType(t *testing.T) {
	for _, token := range []string{`"p-1"`, `42`, `0`, `9007199254740991`, `""`} {
		for _, rev := range legacyRevisions {
			t.Run(rev.Name+"/"+token, func(t *testing.T) {
				cl := newInitialized(t, dialSession, Options{}, rev.Name, nil)
				tok := json.RawMessage(token) // sent byte for byte
				_, notes := cl.result("tools/call", map[string]any{
					"name": "test_tool_with_progress", "_meta": map[string]any{"progressToken": tok},
				})
				checkProgress(t, rev, notes, token, 3)
			})
		}
	}
	t.Run("no token, no progress", func(t *testing.T) {
		cl := newInitialized(t, dialSession, Options{}, "2025-11-25", nil)
		_, notes := cl.result("tools/call", toolCallParams("test_tool_with_progress", nil))
		if len(notes) != 0 {
			t.Errorf("notifications without a token: %v", notes)
		}
	})
}

func TestLoggingThreshold(t *testing.T) {
	cases := []struct {
		level string
		want  []string
	}{
		{"debug", logLevels},
		{"warning", []string{"warning", "error", "critical", "alert", "emergency"}},
		{"error", []string{"error", "critical", "alert", "emergency"}},
		{"emergency", []string{"emergency"}},
	}
	for _, tc := range cases {
		t.Run(tc.level, func(t *testing.T) {
			cl := newInitialized(t, dialSession, Options{}, "2025-06-18", nil)
			cl.result("logging/setLevel", map[string]any{"level": tc.level})
			_, notes := cl.result("tools/call", toolCallParams("test_tool_with_logging", nil))
			var got []string
			for _, n := range notes {
				var p struct{ Level string }
				_ = json.Unmarshal(n.Params, &p)
				got = append(got, p.Level)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("levels = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCancellation(t *testing.T) {
	for _, tr := range transports {
		for _, rawID := range []string{`"slow-1"`, `77`} {
			t.Run(tr.name+"/"+rawID, func(t *testing.T) {
				t.Parallel()
				cl := newInitialized(t, tr.dial, Options{}, "2025-06-18", nil)
				id, _ := wire.ParseID(json.RawMessage(rawID))
				cl.sendRequest(id, "tools/call", map[string]any{
					"name": "test_slow", "arguments": map[string]any{"ms": 5000},
					"_meta": map[string]any{"progressToken": "slow"},
				})
				if m := cl.recv(); m.Method != "notifications/progress" {
					t.Fatalf("want progress first, got %s", m.Raw)
				}
				cl.notify("notifications/cancelled", map[string]any{"requestId": json.RawMessage(rawID), "reason": "test"})
				r, _ := cl.result("tools/call", toolCallParams("test_last_cancellation", nil))
				if got := toolText(t, r); got != rawID {
					t.Errorf("last cancellation = %q, want %s", got, rawID)
				}
				// Nothing more for the cancelled request: not its response, not progress.
				deadline := time.After(2 * slowTick)
				for {
					select {
					case raw := <-cl.c.inbox():
						t.Fatalf("message after cancellation: %s", raw)
					case <-deadline:
						cl.barrier()
						return
					}
				}
			})
		}
	}
}

func TestUndeclaredCapabilitiesGetNoRequests(t *testing.T) {
	for _, rev := range legacyRevisions {
		t.Run(rev.Name, func(t *testing.T) {
			cl := newInitialized(t, dialSession, Options{}, rev.Name, map[string]any{"roots": map[string]any{}})
			for _, name := range []string{"test_elicitation", "test_sampling"} {
				r, _ := cl.result("tools/call", toolCallParams(name, nil))
				if !isError(r) || !strings.Contains(toolText(t, r), "did not declare") {
					t.Errorf("%s = %v", name, r)
				}
			}
			if len(cl.serverRequests) != 0 {
				t.Errorf("server requests sent: %v", cl.serverRequests)
			}
		})
	}
	t.Run("2025-11-25 url-only elicitation is not form", func(t *testing.T) {
		cl := newInitialized(t, dialSession, Options{}, "2025-11-25", map[string]any{"elicitation": map[string]any{"url": map[string]any{}}})
		r, _ := cl.result("tools/call", toolCallParams("test_elicitation", nil))
		if !isError(r) || len(cl.serverRequests) != 0 {
			t.Errorf("result = %v, requests = %v", r, cl.serverRequests)
		}
	})
	t.Run("no requests before notifications/initialized", func(t *testing.T) {
		cl := newClient(t, dialSession(t, Options{}), "2025-06-18")
		cl.result("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": allCaps(cl.rev)})
		for _, name := range []string{"test_elicitation", "test_sampling"} {
			r, _ := cl.result("tools/call", toolCallParams(name, nil))
			if !isError(r) || !strings.Contains(toolText(t, r), "notifications/initialized") {
				t.Errorf("%s = %v", name, r)
			}
		}
		if len(cl.serverRequests) != 0 {
			t.Errorf("server requests before initialized: %v", cl.serverRequests)
		}
	})
	t.Run("client error answers are tool errors", func(t *testing.T) {
		cl := newInitialized(t, dialSession, Options{}, "2025-11-25", map[string]any{"sampling": map[string]any{}})
		cl.answer = func(*wire.Message) (any, *rpcError) { return nil, &rpcError{Code: -1, Message: "user rejected"} }
		r, _ := cl.result("tools/call", toolCallParams("test_sampling", nil))
		if !isError(r) || !strings.Contains(toolText(t, r), "user rejected") {
			t.Errorf("result = %v", r)
		}
	})
	t.Run("no answer times out", func(t *testing.T) {
		cl := newInitialized(t, dialSession, Options{ClientRequestTimeout: 50 * time.Millisecond}, "2025-11-25", map[string]any{"sampling": map[string]any{}})
		cl.sendRequest(wire.NumberID(5), "tools/call", toolCallParams("test_sampling", nil))
		if m := cl.recv(); m.Method != "sampling/createMessage" {
			t.Fatalf("want the sampling request, got %s", m.Raw)
		}
		if m := cl.recv(); m.Method != "notifications/cancelled" {
			t.Fatalf("want the server to cancel its request, got %s", m.Raw)
		}
		m, _ := cl.await(wire.NumberID(5))
		var r map[string]any
		_ = json.Unmarshal(m.Result, &r)
		if !isError(r) {
			t.Errorf("result = %s", m.Raw)
		}
	})
}

func TestMediaAreRealFiles(t *testing.T) {
	if _, err := png.Decode(bytes.NewReader(media().pngPixel)); err != nil {
		t.Errorf("pixel: %v", err)
	}
	if img, err := png.Decode(bytes.NewReader(media().pngIcon)); err != nil || img.Bounds().Dx() != 16 {
		t.Errorf("icon: %v", err)
	}
	if len(media().wav) != 44+32 || string(media().wav[36:40]) != "data" {
		t.Errorf("wav = % x", media().wav)
	}
}

// TestEveryToolSchemaCompiles proves what the server no longer proves as it starts
// (lazySchema) or as a call compiles a schema (compileSchema, 2020-12 only): every
// tool's inputSchema and outputSchema, the modern-only tools', the dynamic one's and
// the bulk tools' included, compile as draft-07 and as 2020-12.
func TestEveryToolSchemaCompiles(t *testing.T) {
	reg, err := newRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.tools) < 10 {
		t.Fatalf("the registry has %d tools", len(reg.tools))
	}
	schemas := map[string]string{}
	for _, tl := range append(append([]*tool(nil), reg.tools...), reg.dynamic) {
		schemas[tl.name+"/input"] = tl.input
		if tl.output != "" {
			schemas[tl.name+"/output"] = tl.output
		}
	}
	for i, in := range bulkSchemas {
		schemas[fmt.Sprintf("bulk_shape_%d/input", i)] = in
	}
	for name, text := range schemas {
		for _, draft := range []*jsonschema.Draft{jsonschema.Draft7, jsonschema.Draft2020} {
			if _, err := compileAs(draft, name, text); err != nil {
				t.Errorf("%s as %s: %v", name, draft, err)
			}
		}
	}
}

// Every known revision has a slot for a tool's encoded definition.
func TestRevisionSlotsCoverEveryRevision(t *testing.T) {
	for _, r := range revision.All() {
		if r.Index() >= revisionSlots {
			t.Errorf("revision %s has index %d; revisionSlots is %d", r.Name, r.Index(), revisionSlots)
		}
	}
}

// A tool's definition is encoded once per shape, and the encoding served in each
// revision holds the members that revision lists, by rules written out here apart
// from defShape: for every tool under no fault and under the faults that change a
// listed definition, through one registry (where revisions share encodings), and 10
// bulk tools share one encoding each across the five revisions.
func TestDefinitionEncodedOncePerShape(t *testing.T) {
	faultSets := []map[string]bool{nil, {faultTitleInOldRevisions: true}, {faultR5SchemaExternalRef: true}, {faultR5McpHeaderInvalid: true}}
	for _, names := range faultSets {
		fs, err := newFaultSet(names)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := newRegistry(fs)
		if err != nil {
			t.Fatal(err)
		}
		if err := reg.addBulk(10); err != nil {
			t.Fatal(err)
		}
		for _, tl := range append(slices.Clone(reg.tools), reg.dynamic) {
			for _, rev := range revision.All() {
				b, err := reg.definitionJSON(listed{t: tl}, rev)
				if err != nil {
					t.Fatalf("%s in %s: %v", tl.name, rev.Name, err)
				}
				var got map[string]json.RawMessage
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatalf("%s in %s: %v", tl.name, rev.Name, err)
				}
				want := map[string]bool{
					"name": true, "inputSchema": true, "description": tl.description != "",
					"title":        tl.title != "" && (rev.Has(revision.Title) || names[faultTitleInOldRevisions]),
					"annotations":  tl.annotations != nil && rev.Has(revision.ToolAnnotations),
					"outputSchema": tl.output != "" && rev.Has(revision.OutputSchema),
					"icons":        len(tl.icons) > 0 && rev.Has(revision.Icons),
					"_meta":        tl.meta != nil && rev.Has(revision.Meta),
					"execution":    tl.execution != nil && rev.Has(revision.Tasks),
				}
				for k, listed := range want {
					if _, has := got[k]; has != listed {
						t.Errorf("faults %v, %s in %s: member %s listed %v, want %v", names, tl.name, rev.Name, k, has, listed)
					}
				}
				input := tl.input
				switch {
				case tl.name == "test_simple_text" && rev.Era == revision.Modern && names[faultR5SchemaExternalRef]:
					input = schemaExternalRef
				case tl.name == "test_header_param" && names[faultR5McpHeaderInvalid]:
					input = schemaHeaderOnNumber
				}
				if c, _ := compactJSON(input); string(got["inputSchema"]) != c {
					t.Errorf("faults %v, %s in %s: inputSchema %s, want %s", names, tl.name, rev.Name, got["inputSchema"], c)
				}
			}
			if strings.HasPrefix(tl.name, "bulk_") && len(tl.shapes) != 1 {
				t.Errorf("%s has %d encodings over %d revisions, want 1", tl.name, len(tl.shapes), len(revision.All()))
			}
		}
	}
}
