package refserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// officialSchemas compiles definitions of the official per-revision schemas (read from
// internal/revision/schemas) so tests can validate every message the server sends.
type officialSchemas struct {
	mu       sync.Mutex
	compiler map[string]*jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

var schemas = &officialSchemas{compiler: map[string]*jsonschema.Compiler{}, compiled: map[string]*jsonschema.Schema{}}

// isBase64 is the "byte" format (RFC 4648 standard base64 with padding).
func isBase64(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	_, err := base64.StdEncoding.Strict().DecodeString(s)
	return err == nil
}

func (o *officialSchemas) schema(rev revision.Revision, def string) (*jsonschema.Schema, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	key := rev.Name + "#" + def
	if s, ok := o.compiled[key]; ok {
		return s, nil
	}
	url := "https://schemas.mcp-conform.invalid/" + rev.Name + "/schema.json"
	c, ok := o.compiler[rev.Name]
	if !ok {
		raw, err := os.ReadFile(filepath.Join("..", "internal", "revision", "schemas", rev.Name, "schema.json"))
		if err != nil {
			return nil, fmt.Errorf("read schema of %s: %w", rev.Name, err)
		}
		c = jsonschema.NewCompiler()
		c.AssertFormat = true
		c.Formats["byte"] = isBase64
		c.LoadURL = func(u string) (io.ReadCloser, error) { return nil, fmt.Errorf("offline: %s", u) }
		if err := c.AddResource(url, bytes.NewReader(raw)); err != nil {
			return nil, fmt.Errorf("add schema of %s: %w", rev.Name, err)
		}
		o.compiler[rev.Name] = c
	}
	s, err := c.Compile(url + "#/" + rev.DefsKeyword + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("compile %s of %s: %w", def, rev.Name, err)
	}
	o.compiled[key] = s
	return s, nil
}

// validateDef checks raw JSON against a definition of the revision's official schema.
func validateDef(rev revision.Revision, def string, raw []byte) error {
	s, err := schemas.schema(rev, def)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", rev.Name, def, err, raw)
	}
	return nil
}

// mustValidate fails the test when raw breaks the definition.
func mustValidate(t testing.TB, rev revision.Revision, def string, raw []byte) {
	t.Helper()
	if err := validateDef(rev, def, raw); err != nil {
		t.Error(err)
	}
}

// resultDefs maps each method to the definition of its result.
var resultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"logging/setLevel":         "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
}

// notificationDefs maps server notifications to their definitions.
var notificationDefs = map[string]string{
	"notifications/progress":               "ProgressNotification",
	"notifications/message":                "LoggingMessageNotification",
	"notifications/tools/list_changed":     "ToolListChangedNotification",
	"notifications/cancelled":              "CancelledNotification",
	"notifications/prompts/list_changed":   "PromptListChangedNotification",
	"notifications/resources/updated":      "ResourceUpdatedNotification",
	"notifications/resources/list_changed": "ResourceListChangedNotification",
}

// requestDefs maps server→client requests to their definitions.
var requestDefs = map[string]string{
	"elicitation/create":     "ElicitRequest",
	"sampling/createMessage": "CreateMessageRequest",
}

func TestOfficialSchemaHelperRejectsBadShapes(t *testing.T) {
	rev := revision.MustLookup("2024-11-05")
	cases := []struct {
		name, def, raw string
		valid          bool
	}{
		{"text block", "TextContent", `{"type":"text","text":"hi"}`, true},
		{"text block without text", "TextContent", `{"type":"text"}`, false},
		{"image with bad base64", "ImageContent", `{"type":"image","data":"@@@","mimeType":"image/png"}`, false},
		{"audio is not R1 content", "CallToolResult", `{"content":[{"type":"audio","data":"AA==","mimeType":"audio/wav"}]}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := validateDef(rev, tc.def, []byte(tc.raw))
			if (err == nil) != tc.valid {
				t.Fatalf("valid=%v, err=%v", tc.valid, err)
			}
		})
	}
}

// rawSchemas caches each revision's schema document for key-set checks.
var (
	rawSchemasMu sync.Mutex
	rawSchemas   = map[string]map[string]any{}
)

func rawDefs(t testing.TB, rev revision.Revision) map[string]any {
	t.Helper()
	rawSchemasMu.Lock()
	defer rawSchemasMu.Unlock()
	if d, ok := rawSchemas[rev.Name]; ok {
		return d
	}
	raw, err := os.ReadFile(filepath.Join("..", "internal", "revision", "schemas", rev.Name, "schema.json"))
	if err != nil {
		t.Fatalf("read schema: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("parse schema: %v", err)
	}
	d, _ := doc[rev.DefsKeyword].(map[string]any)
	rawSchemas[rev.Name] = d
	return d
}

// schemaNode resolves a local $ref chain.
func schemaNode(t testing.TB, rev revision.Revision, node map[string]any) map[string]any {
	t.Helper()
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node
		}
		name := filepath.Base(ref)
		next, ok := rawDefs(t, rev)[name].(map[string]any)
		if !ok {
			t.Fatalf("%s: unresolvable $ref %s", rev.Name, ref)
		}
		node = next
	}
}

// schemaProps returns the property names of a definition, or of a nested property
// reached through path (each step follows "properties" and resolves $ref).
func schemaProps(t testing.TB, rev revision.Revision, def string, path ...string) map[string]bool {
	t.Helper()
	node, ok := rawDefs(t, rev)[def].(map[string]any)
	if !ok {
		t.Fatalf("%s has no definition %s", rev.Name, def)
	}
	node = schemaNode(t, rev, node)
	for _, p := range path {
		props, _ := node["properties"].(map[string]any)
		next, ok := props[p].(map[string]any)
		if !ok {
			t.Fatalf("%s %s has no property path %v", rev.Name, def, path)
		}
		node = schemaNode(t, rev, next)
	}
	out := map[string]bool{}
	props, _ := node["properties"].(map[string]any)
	for k := range props {
		out[k] = true
	}
	return out
}

// checkKeys fails when obj has a member the revision's schema does not define at that
// place: the schemas allow extra members, but the reference server must send only the
// fields its negotiated revision has.
func checkKeys(t testing.TB, rev revision.Revision, obj map[string]any, def string, path ...string) {
	t.Helper()
	allowed := schemaProps(t, rev, def, path...)
	for k := range obj {
		if !allowed[k] {
			t.Errorf("%s: member %q is not defined by %s%v", rev.Name, k, def, path)
		}
	}
}

// contentDefs maps content block types to their definitions.
var contentDefs = map[string]string{
	"text": "TextContent", "image": "ImageContent", "audio": "AudioContent",
	"resource": "EmbeddedResource", "resource_link": "ResourceLink",
}

// checkContentKeys applies checkKeys to a content block and its nested objects.
func checkContentKeys(t testing.TB, rev revision.Revision, b map[string]any) {
	t.Helper()
	typ, _ := b["type"].(string)
	def, ok := contentDefs[typ]
	if !ok {
		t.Errorf("%s: unknown content type %q", rev.Name, typ)
		return
	}
	if _, has := rawDefs(t, rev)[def]; !has {
		t.Errorf("%s: content type %q does not exist in this revision", rev.Name, typ)
		return
	}
	checkKeys(t, rev, b, def)
	if a, ok := b["annotations"].(map[string]any); ok {
		checkKeys(t, rev, a, def, "annotations")
	}
	if res, ok := b["resource"].(map[string]any); ok {
		rdef := "TextResourceContents"
		if _, blob := res["blob"]; blob {
			rdef = "BlobResourceContents"
		}
		checkKeys(t, rev, res, rdef)
	}
	if icons, ok := b["icons"].([]any); ok {
		for _, ic := range icons {
			checkKeys(t, rev, ic.(map[string]any), "Icon")
		}
	}
}
