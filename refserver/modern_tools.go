package refserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Schemas of the modern-only fixture tools.
const (
	schemaNumberArray = `{"type": "array", "items": {"type": "number"}}`
	schemaHeaderParam = `{
		"type": "object",
		"properties": {
			"region": {"type": "string", "description": "Region, mirrored in the Mcp-Param-Region header.", "x-mcp-header": "Region"}
		},
		"required": ["region"],
		"additionalProperties": false
	}`
	schemaEndSubscription = `{
		"type": "object",
		"properties": {
			"subscriptionId": {"type": ["string", "integer"], "description": "The id of the subscriptions/listen request whose subscription to end."}
		},
		"required": ["subscriptionId"],
		"additionalProperties": false
	}`
	// schemaHeaderOnNumber is schemaHeaderParam as fault r5-mcp-header-on-number
	// lists it: x-mcp-header on a number property, which 2026-07-28 forbids.
	// schemaExternalRef is test_simple_text's listed inputSchema under the fault
	// r5-schema-external-ref: an optional property whose schema is a network $ref,
	// which no client fetches (TOOLS-INSCHEMA-REF-01).
	schemaExternalRef    = `{"type":"object","properties":{"style":{"$ref":"https://schemas.example.com/mcp-conform/style.json"}},"additionalProperties":false}`
	schemaHeaderOnNumber = `{
		"type": "object",
		"properties": {
			"region": {"type": "string", "description": "Region, mirrored in the Mcp-Param-Region header.", "x-mcp-header": "Region"},
			"zone": {"type": "number", "description": "A number mirrored in a header.", "x-mcp-header": "Zone"}
		},
		"required": ["region"],
		"additionalProperties": false
	}`
)

// modernTools are the fixture contract tools that exist only in 2026-07-28
// (the fixture contract, refserver/doc.go): listed after every other tool, so legacy listings and
// their pages are unchanged.
func modernTools() []*tool {
	return []*tool{
		{name: "test_structured_array", title: "Structured array",
			description: "Returns an array as structuredContent, matching its array outputSchema, mirrored in a text block (2026-07-28 only).",
			input:       schemaNoParams, output: schemaNumberArray, annotations: readOnlyHints("Structured array"),
			run: runStructuredArray, modernOnly: true},
		{name: "test_requires_elicitation", title: "Requires elicitation",
			description: "Needs the elicitation client capability: without it the call fails with -32021 (2026-07-28 only).",
			input:       schemaNoParams, annotations: readOnlyHints("Requires elicitation"),
			run: runRequiresElicitation, modernOnly: true},
		{name: "test_header_param", title: "Header parameter",
			description: "Echoes region, a parameter mirrored in the Mcp-Param-Region HTTP header (2026-07-28 only).",
			input:       schemaHeaderParam, annotations: readOnlyHints("Header parameter"),
			run: runHeaderParam, modernOnly: true},
		// An addition of this project's: without it a server ends a subscription
		// itself only at shutdown, after the checks (NOTIF-LISTEN-CLOSE-R5-01).
		{name: "test_end_subscription", title: "End subscription",
			description: "Ends the open subscription whose subscriptions/listen request had the id subscriptionId, as the server does when it tears one down itself, before answering (2026-07-28 only).",
			input:       schemaEndSubscription, run: runEndSubscription, modernOnly: true},
	}
}

// runEndSubscription tears down the subscriptions whose listen request had the
// given id, on whatever connection they are open: the completion result goes out
// on the subscription's stream before this call is answered.
func runEndSubscription(tc *toolCall) toolResult {
	raw := mustMarshal(tc.args["subscriptionId"])
	id, err := wire.ParseID(raw)
	if err != nil {
		return errorResult(fmt.Sprintf("subscriptionId %s is not a request id.", raw))
	}
	if n := tc.s.cfg.endSubscriptions(id); n > 0 {
		return textResult(fmt.Sprintf("Ended subscription %s.", id))
	}
	return errorResult(fmt.Sprintf("No subscription with id %s is open.", id))
}

// runStructuredArray returns structuredContent that is not an object: 2026-07-28
// allows any JSON value.
func runStructuredArray(tc *toolCall) toolResult {
	data := mustMarshal([]float64{1.5, 2.5, 4})
	if tc.fault(faultR5StructArrayBad) {
		data = mustMarshal([]string{"1.5", "2.5", "4"})
	}
	return toolResult{content: []block{textBlock(string(data))}, structured: data}
}

// errMissingCapability is -32021 naming the capabilities a request needed.
func errMissingCapability(required map[string]any) *rpcError {
	names := make([]string, 0, len(required))
	for n := range required {
		names = append(names, n)
	}
	return &rpcError{Code: CodeMissingCapability,
		Message: "Missing required client capability: " + strings.Join(names, ", "),
		Data:    map[string]any{"requiredCapabilities": required}}
}

// failWith turns a tool run into a JSON-RPC error response.
func failWith(e *rpcError) toolResult {
	r := errorResult("")
	r.rpcErr = e
	return r
}

func runRequiresElicitation(tc *toolCall) toolResult {
	if raw, ok := tc.s.clientCapability("elicitation"); (!ok || jsonKind(raw) != "object") && !tc.fault(faultR5CapAssumed) {
		e := errMissingCapability(map[string]any{"elicitation": map[string]any{}})
		if tc.fault(faultR5CapNoData) {
			e.Data = nil
		}
		return failWith(e)
	}
	return textResult("The request declared the elicitation capability.")
}

func runHeaderParam(tc *toolCall) toolResult {
	return textResult("Region: " + tc.stringArg("region", ""))
}

// The keys of the fixture's input requests.
const (
	inputKeyName       = "user_name"
	inputKeyCompletion = "completion"
)

// mrtrElicitation is test_elicitation in 2026-07-28: no server→client request, but an
// InputRequiredResult asking for the user's name, completed by the retry.
func mrtrElicitation(tc *toolCall) toolResult {
	if !elicitationFormDeclared(tc) && !tc.fault(faultR5CapAssumed) {
		return failWith(errMissingCapability(map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}))
	}
	return tc.mrtrAsk(inputKeyName, "elicitation/create", "ElicitResult", nameForm(tc.stringArg("message", "Please tell the mcp-conform fixture your name.")))
}

// nameForm is the params of a form-mode elicitation/create asking for a name.
func nameForm(message string) map[string]any {
	return map[string]any{
		"mode":    "form",
		"message": message,
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"name": map[string]any{"type": "string", "description": "Your name."}},
			"required":   []string{"name"},
		},
	}
}

// mrtrSampling is test_sampling in 2026-07-28.
func mrtrSampling(tc *toolCall) toolResult {
	if raw, ok := tc.s.clientCapability("sampling"); !ok || jsonKind(raw) != "object" {
		return failWith(errMissingCapability(map[string]any{"sampling": map[string]any{}}))
	}
	return tc.mrtrAsk(inputKeyCompletion, "sampling/createMessage", "CreateMessageResult", map[string]any{
		"messages": []any{map[string]any{
			"role":    "user",
			"content": textBlock(tc.stringArg("prompt", "Say hello to the mcp-conform fixture.")),
		}},
		"maxTokens": 64,
	})
}

// requestState is the opaque state of one MRTR exchange: a digest of the tool and its
// arguments, so that a state presented with another call is rejected. It carries no
// authority: a forged one can only make the call fail or ask again.
func (tc *toolCall) requestState() string {
	args, _ := json.Marshal(tc.args) // map keys are sorted: the same arguments, the same bytes
	sum := sha256.Sum256(append([]byte(tc.callParams.toolName()+"\x00"), args...))
	return base64.RawURLEncoding.EncodeToString(append([]byte("mrtr1:"), sum[:12]...))
}

// toolName returns params.name of a tools/call (already checked).
func (p params) toolName() string {
	name, _, _ := p.optString("name")
	return name
}

// mrtrAsk completes the call when the retry carries this call's requestState and a
// valid answer (the result type resultDef) under key; otherwise it answers
// input_required with the input request and the state (again, when the answer is
// missing: 2026-07-28/basic/patterns/mrtr.mdx, Error Handling). A requestState from
// another call, inputResponses that are no object and an answer that is no
// resultDef are -32602.
func (tc *toolCall) mrtrAsk(key, method, resultDef string, p map[string]any) toolResult {
	state := tc.requestState()
	got, hasState, e := tc.callParams.optString("requestState")
	if e != nil {
		return failWith(e)
	}
	if hasState && got != state && !tc.fault(faultR5StateUnchecked) {
		return failWith(errInvalidParams("requestState does not belong to this call of %s", tc.callParams.toolName()))
	}
	responses, _, e := tc.callParams.optObject("inputResponses")
	if e != nil {
		return failWith(e)
	}
	if hasState {
		if raw, ok := responses[key]; ok && !tc.fault(faultR5InputUnvalidated) {
			// Every answer kind is an object: one that is not is refused before the
			// schema, whose first refusal compiles it (0.3 to 0.7 s on a loaded
			// machine, the cost MOD-MRTR-VALIDATE-01's probe of 12345 paid).
			if k := jsonKind(raw); k != "object" {
				return failWith(errInvalidParams("inputResponses[%q] is not a valid %s: a %s, not an object", key, resultDef, k))
			}
			if err := tc.rev.Validate(resultDef, raw); err != nil {
				return failWith(errInvalidParams("inputResponses[%q] is not a valid %s: %v", key, resultDef, err))
			}
		}
		if raw, ok := responses[key]; ok {
			if tc.fault(faultR5RetryRefused) {
				return failWith(errInvalidParams("requestState has expired; call %s again", tc.callParams.toolName()))
			}
			text, err := compactJSON(string(raw))
			if err != nil {
				return failWith(errInvalidParams("inputResponses[%q]: %v", key, err))
			}
			return textResult(text)
		}
		if tc.fault(faultR5MissingAnswerError) {
			return failWith(errInvalidParams("inputResponses has no answer for %q", key))
		}
	}
	if tc.fault(faultR5ServerRequest) {
		if err := tc.out.send(tc.s.serverRequest(method, p)); err != nil {
			tc.s.cfg.log.Printf("server request: %v", err)
		}
	}
	members := map[string]any{
		"resultType":    "input_required",
		"inputRequests": map[string]any{key: map[string]any{"method": method, "params": p}},
		"requestState":  state,
	}
	return toolResult{noContent: true, members: members}
}

// secondPageCursor is the cursor of the second tools/list page, which the modern era
// writes as "" (2026-07-28: the empty string is a valid cursor, not the end).
func secondPageCursor(cfg *config, version int) string {
	step := cfg.pageSize
	if cfg.faults.on(faultToolAcrossPages) && step > 1 {
		step--
	}
	if step <= 0 {
		return "\x00no paging"
	}
	return encodeCursor(step, version)
}

// headerParam is one x-mcp-header parameter of a tool's input schema.
type headerParam struct {
	path   []string // property names from the root
	header string   // the Mcp-Param-{header} name part
}

// headerParams finds the x-mcp-header annotations reachable from the schema root
// through properties only (the only place 2026-07-28 allows them).
func headerParams(schema string) []headerParam {
	var root map[string]any
	if json.Unmarshal([]byte(schema), &root) != nil {
		return nil
	}
	var out []headerParam
	var walk func(node map[string]any, path []string)
	walk = func(node map[string]any, path []string) {
		props, _ := node["properties"].(map[string]any)
		for name, sub := range props {
			child, ok := sub.(map[string]any)
			if !ok {
				continue
			}
			p := append(append([]string(nil), path...), name)
			if h, ok := child["x-mcp-header"].(string); ok {
				out = append(out, headerParam{path: p, header: h})
			}
			walk(child, p)
		}
	}
	walk(root, nil)
	return out
}

// headerValue renders an argument as 2026-07-28 mirrors it into a header: strings as
// they are, integers in decimal, booleans lower-case; absent or null means no header.
// number reports an integer (compared numerically).
func headerValue(args map[string]any, path []string) (value string, number, ok bool) {
	var v any = args
	for _, name := range path {
		obj, isObj := v.(map[string]any)
		if !isObj {
			return "", false, false
		}
		if v, ok = obj[name]; !ok {
			return "", false, false
		}
	}
	switch x := v.(type) {
	case nil:
		return "", false, false
	case string:
		return x, false, true
	case bool:
		return fmt.Sprint(x), false, true
	case json.Number:
		return x.String(), true, true
	default:
		return string(mustMarshal(x)), false, true
	}
}
