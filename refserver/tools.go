package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// toolAnnotations is ToolAnnotations (2025-03-26+).
type toolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

func ptr[T any](v T) *T { return &v }

// readOnlyHints are the four hints, consistent, of a tool that changes nothing and
// talks to nothing outside the server.
func readOnlyHints(title string) *toolAnnotations {
	return &toolAnnotations{Title: title, ReadOnlyHint: ptr(true), DestructiveHint: ptr(false),
		IdempotentHint: ptr(true), OpenWorldHint: ptr(false)}
}

// tool is one tool: its definition (rendered per revision) and its behaviour.
type tool struct {
	name        string
	title       string // Tool.title, 2025-06-18+
	description string
	input       string           // inputSchema, JSON text
	output      string           // outputSchema, JSON text, 2025-06-18+
	annotations *toolAnnotations // 2025-03-26+
	icons       []icon           // 2025-11-25+
	meta        map[string]any   // Tool._meta, 2025-06-18+
	execution   map[string]any   // Tool.execution, 2025-11-25 (tasks)
	modernOnly  bool             // listed and callable only in the modern era (2026-07-28)
	run         func(tc *toolCall) toolResult
	// blocking tools wait (on time or on the client) and run off the reader's
	// goroutine, so that cancellations and client answers are read meanwhile; the
	// others complete at once, in input order.
	blocking bool
	// asksClient tools wait on a server request only before 2026-07-28; there they
	// answer input_required at once (the multi-round trip) and so complete in input
	// order, which a client's barrier may then rely on whatever the machine's load.
	asksClient bool

	inputSchema *lazySchema // input, compiled on the first call that validates against it
	// encoded is the tool's definition in each revision (by revision index),
	// encoded on first use (registry.definitionJSON); revisions of the same shape
	// share the bytes of shapes.
	encoded  [revisionSlots]atomic.Pointer[[]byte]
	shapesMu sync.Mutex
	shapes   []encodedShape
}

// encodedShape is a tool's definition in one shape, encoded.
type encodedShape struct {
	shape defShape
	json  []byte
}

// revisionSlots bounds the revisions a tool keeps an encoded definition for; a
// test checks that it covers every known revision.
const revisionSlots = 8

// lazySchema is a tool's input schema, compiled on first use: compiling every tool's
// schemas as a server started was a fifth of the CPU of a reference-server process
// in a full run (perf), and most tools are never called. The tests compile every
// tool's schemas as draft-07 and as 2020-12 (TestEveryToolSchemaCompiles).
type lazySchema struct {
	name, text string
	once       sync.Once
	schema     *jsonschema.Schema
	err        error
}

// get compiles the schema once and returns it.
func (l *lazySchema) get() (*jsonschema.Schema, error) {
	l.once.Do(func() { l.schema, l.err = compileSchema(l.name, l.text) })
	return l.schema, l.err
}

// definition renders the tool for a revision, with only the fields it has.
func (t *tool) definition(rev revision.Revision, fs faultSet) map[string]any {
	return t.render(t.shapeIn(rev, fs))
}

// defShape is what of a tool's definition a revision (and the fault set) shows: the
// definition is a function of the tool and its shape alone, so revisions that show
// the same fields share one encoding (registry.definitionJSON). A bulk tool (name,
// description, inputSchema) has one shape in every revision.
type defShape struct {
	input                                              inputVariant
	title, annotations, output, icons, meta, execution bool
}

// inputVariant is the inputSchema a definition lists.
type inputVariant uint8

const (
	inputOwn         inputVariant = iota // the tool's own schema
	inputHeaderFault                     // r5-mcp-header-invalid: x-mcp-header on a number
	inputExternalRef                     // r5-schema-external-ref: a $ref out of the document
)

// shapeIn is the tool's shape in a revision under the fault set.
func (t *tool) shapeIn(rev revision.Revision, fs faultSet) defShape {
	sh := defShape{
		title:       t.title != "" && (rev.Has(revision.Title) || fs.on(faultTitleInOldRevisions)),
		annotations: t.annotations != nil && rev.Has(revision.ToolAnnotations),
		output:      t.output != "" && rev.Has(revision.OutputSchema),
		icons:       len(t.icons) > 0 && rev.Has(revision.Icons),
		meta:        t.meta != nil && rev.Has(revision.Meta),
		execution:   t.execution != nil && rev.Has(revision.Tasks),
	}
	switch {
	case t.name == "test_simple_text" && rev.Era == revision.Modern && fs.on(faultR5SchemaExternalRef):
		sh.input = inputExternalRef // listed only: calls keep the valid schema
	case t.name == "test_header_param" && fs.on(faultR5McpHeaderInvalid):
		sh.input = inputHeaderFault // listed only, like the one above
	}
	return sh
}

// render is the tool's definition in a shape.
func (t *tool) render(sh defShape) map[string]any {
	d := map[string]any{"name": t.name, "inputSchema": json.RawMessage(t.input)}
	switch sh.input {
	case inputHeaderFault:
		d["inputSchema"] = json.RawMessage(schemaHeaderOnNumber)
	case inputExternalRef:
		d["inputSchema"] = json.RawMessage(schemaExternalRef)
	}
	if t.description != "" {
		d["description"] = t.description
	}
	if sh.title {
		d["title"] = t.title
	}
	if sh.annotations {
		d["annotations"] = t.annotations
	}
	if sh.output {
		d["outputSchema"] = json.RawMessage(t.output)
	}
	if sh.icons {
		d["icons"] = t.icons
	}
	if sh.meta {
		d["_meta"] = t.meta
	}
	if sh.execution {
		d["execution"] = t.execution
	}
	return d
}

// toolResult is a CallToolResult.
type toolResult struct {
	content    []block
	isError    bool
	structured json.RawMessage // structuredContent (2025-06-18+), nil when absent

	// Set only by faults: rpcErr turns the call into a JSON-RPC error response,
	// noContent leaves the content member out, members override result members.
	rpcErr    *rpcError
	noContent bool
	members   map[string]any
}

// MarshalJSON writes the result; content is always an array, isError only when true.
func (r toolResult) MarshalJSON() ([]byte, error) {
	m := map[string]any{"content": r.content}
	if r.content == nil {
		m["content"] = []block{}
	}
	if r.isError {
		m["isError"] = true
	}
	if r.structured != nil {
		m["structuredContent"] = r.structured
	}
	if r.noContent {
		delete(m, "content")
	}
	for k, v := range r.members {
		m[k] = v
	}
	return json.Marshal(m)
}

// textResult is a successful result with one text block.
func textResult(text string) toolResult { return toolResult{content: []block{textBlock(text)}} }

// errorResult is a tool execution error: isError with an explanatory text block.
func errorResult(text string) toolResult {
	return toolResult{content: []block{textBlock(text)}, isError: true}
}

// toolCall is one execution of a tool.
type toolCall struct {
	ctx           context.Context
	s             *session
	requestID     wire.ID // the tools/call request's id
	rev           revision.Revision
	args          map[string]any  // validated arguments; numbers are json.Number
	callParams    params          // the tools/call params (MRTR reads requestState, inputResponses)
	progressToken json.RawMessage // _meta.progressToken as sent, nil when absent
	out           sink            // drops everything once ctx is done
	// after runs once the response was written (only faults set it).
	after func()
	// retrieved, for a call run as a task, is closed once a tasks/result asks for
	// the task's result; nil otherwise.
	retrieved <-chan struct{}
	// resumed, for a call answered on a resumable SSE stream, is closed once the
	// client resumed that stream; nil otherwise.
	resumed <-chan struct{}
}

// fault reports whether the named fault is switched on in this server.
func (tc *toolCall) fault(name string) bool { return tc.s.cfg.faults.on(name) }

// notify sends a notification related to this call.
func (tc *toolCall) notify(method string, p any) error {
	msg, err := encodeNotification(method, p)
	if err != nil {
		return err
	}
	if err := tc.out.send(msg); err != nil {
		return fmt.Errorf("send %s: %w", method, err)
	}
	return nil
}

// progress sends notifications/progress when the caller asked for it, echoing the
// token exactly (same JSON value and type). message exists from 2025-03-26.
func (tc *toolCall) progress(progress, total float64, message string) {
	tc.progressFor(tc.progressToken, progress, total, message)
}

// progressFor is progress with the token given explicitly (faults name other tokens).
func (tc *toolCall) progressFor(token json.RawMessage, progress, total float64, message string) {
	if token == nil {
		return
	}
	p := map[string]any{"progressToken": token, "progress": progress, "total": total}
	if message != "" && tc.rev.Has(revision.ProgressMessage) {
		p["message"] = message
	}
	if err := tc.notify("notifications/progress", p); err != nil {
		tc.s.cfg.log.Printf("progress: %v", err)
	}
}

// intArg returns an integer argument, or def when it is absent. Arguments were
// validated against the input schema, so the type is known.
func (tc *toolCall) intArg(name string, def int64) int64 {
	n, ok := tc.args[name].(json.Number)
	if !ok {
		return def
	}
	if i, err := n.Int64(); err == nil {
		return i
	}
	f, _ := n.Float64() // an integer written like 2.0 or 2e0
	return int64(f)
}

// stringArg returns a string argument, or def when it is absent.
func (tc *toolCall) stringArg(name, def string) string {
	if v, ok := tc.args[name].(string); ok {
		return v
	}
	return def
}

// boolArg returns a boolean argument, false when it is absent.
func (tc *toolCall) boolArg(name string) bool {
	v, _ := tc.args[name].(bool)
	return v
}

// dynamicToolName is the tool test_trigger_tool_change adds and removes.
const dynamicToolName = "test_dynamic_tool"

// registry holds the tools, in listing order.
type registry struct {
	tools   []*tool // always listed
	dynamic *tool   // listed while the session's toggle is on
	byName  map[string]*tool
	faults  faultSet

	// Built on first use: a page of a 10,000-tool list would otherwise build (and
	// filter) the whole list and encode its hundred definitions on every request.
	viewsMu sync.Mutex
	views   map[viewKey][]listed
}

// viewKey names one list view: with or without the dynamic tool, in one revision.
type viewKey struct {
	dynamicOn bool
	rev       string
}

// listed is one entry of a tools/list: a tool, or (t nil) the fault probe.
type listed struct {
	t *tool
}

// definition renders the entry for a revision.
func (e listed) definition(rev revision.Revision, fs faultSet) map[string]any {
	if e.t == nil {
		return fs.probeDefinition(rev)
	}
	return e.t.definition(rev, fs)
}

// newRegistry builds the fixture tools and checks them: valid unique names, and
// schemas that compile as both draft-07 and 2020-12 JSON Schema.
func newRegistry(fs faultSet) (*registry, error) {
	reg := &registry{tools: append(fixtureTools(), modernTools()...), dynamic: dynamicTool(), byName: map[string]*tool{}, faults: fs}
	if fs.on(faultIsErrorStructNoText) {
		for _, t := range reg.tools {
			if t.name == "test_error_handling" {
				t.output = schemaWeather
			}
		}
	}
	for _, t := range append(append([]*tool(nil), reg.tools...), reg.dynamic) {
		if !revision.ToolNameValid(t.name) { // the 2025-11-25 rule, for every tool
			return nil, fmt.Errorf("tool name %q breaks the naming rule", t.name)
		}
		if _, dup := reg.byName[t.name]; dup {
			return nil, fmt.Errorf("duplicate tool name %q", t.name)
		}
		if err := t.prepare(); err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.name, err)
		}
		reg.byName[t.name] = t
	}
	return reg, nil
}

// MaxExtraTools bounds Options.ExtraTools.
const MaxExtraTools = 100000

// bulkSchemas are the input schemas of the bulk tools, in turn: tools of real servers
// share a few shapes.
var bulkSchemas = []string{
	`{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"]}`,
	`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`,
	`{"type":"object","properties":{}}`,
}

// addBulk appends n bulk tools; each schema is compiled once and shared.
func (reg *registry) addBulk(n int) error {
	if n == 0 {
		return nil
	}
	shapes := make([]*tool, len(bulkSchemas))
	for i, in := range bulkSchemas {
		shapes[i] = &tool{name: fmt.Sprintf("bulk_shape_%d", i), input: in}
		if err := shapes[i].prepare(); err != nil {
			return fmt.Errorf("bulk schema %d: %w", i, err)
		}
	}
	for i := 1; i <= n; i++ {
		shape := shapes[i%len(shapes)]
		t := &tool{
			name:        fmt.Sprintf("bulk_%05d", i),
			description: fmt.Sprintf("Bulk tool %d of %d, listed for the scale benchmark; returns one text block.", i, n),
			input:       shape.input, inputSchema: shape.inputSchema,
			run: func(*toolCall) toolResult { return textResult("bulk") },
		}
		if _, dup := reg.byName[t.name]; dup {
			return fmt.Errorf("duplicate tool name %q", t.name)
		}
		reg.byName[t.name] = t
		reg.tools = append(reg.tools, t)
	}
	return nil
}

// list returns the tools of a session, in a fixed order.
func (reg *registry) list(dynamicOn bool) []listed {
	// Sized once: a page of a 10,000-tool list is built from the whole list.
	out := make([]listed, 0, len(reg.tools)+2)
	if reg.faults.probeListed() {
		out = append(out, listed{})
	}
	for i, t := range reg.tools {
		out = append(out, listed{t: t})
		if i == 0 && reg.faults.on(faultDuplicateName) {
			out = append(out, listed{t: t})
		}
	}
	if dynamicOn {
		out = append(out, listed{t: reg.dynamic})
	}
	return out
}

// visible returns the tools a session lists in a revision (list filtered by
// visibleIn), built once per view. Callers must not modify it.
func (reg *registry) visible(dynamicOn bool, rev revision.Revision) []listed {
	k := viewKey{dynamicOn, rev.Name}
	reg.viewsMu.Lock()
	defer reg.viewsMu.Unlock()
	v, ok := reg.views[k]
	if !ok {
		if reg.views == nil {
			reg.views = map[viewKey][]listed{}
		}
		v = slices.Clip(visibleIn(reg.list(dynamicOn), rev))
		reg.views[k] = v
	}
	return v
}

// definitionJSON is the entry's definition in a revision, encoded once per tool and
// shape (the registry's fault set is fixed): at 10,000 bulk tools, one encoding each
// instead of one per revision, which was a sixth of the reference server's CPU in a
// five-revision run.
func (reg *registry) definitionJSON(e listed, rev revision.Revision) (json.RawMessage, error) {
	if e.t == nil {
		return json.Marshal(e.definition(rev, reg.faults))
	}
	slot := &e.t.encoded[rev.Index()]
	if b := slot.Load(); b != nil {
		return *b, nil
	}
	b, err := e.t.encodedShape(e.t.shapeIn(rev, reg.faults))
	if err != nil {
		return nil, err
	}
	slot.Store(&b)
	return b, nil
}

// encodedShape is the tool's definition in a shape, encoded on first use.
func (t *tool) encodedShape(sh defShape) ([]byte, error) {
	t.shapesMu.Lock()
	defer t.shapesMu.Unlock()
	for _, es := range t.shapes {
		if es.shape == sh {
			return es.json, nil
		}
	}
	b, err := json.Marshal(t.render(sh))
	if err != nil {
		return nil, fmt.Errorf("encode the definition of %s: %w", t.name, err)
	}
	t.shapes = append(t.shapes, encodedShape{shape: sh, json: b})
	return b, nil
}

// lookup finds a listed tool by its exact (case-sensitive) name.
func (reg *registry) lookup(name string, dynamicOn bool) *tool {
	t := reg.byName[name]
	if t == nil && reg.faults.on(faultNamesCaseInsens) {
		for n, c := range reg.byName {
			if strings.EqualFold(n, name) {
				t = c
			}
		}
	}
	if t == reg.dynamic && !dynamicOn {
		return nil
	}
	return t
}

// prepare compacts the tool's schemas and compiles them in both dialects; the 2020-12
// compilation of the input schema validates arguments.
func (t *tool) prepare() error {
	var err error
	if t.input, err = compactJSON(t.input); err != nil {
		return fmt.Errorf("inputSchema: %w", err)
	}
	t.inputSchema = &lazySchema{name: t.name + "/input", text: t.input}
	if t.output == "" {
		return nil
	}
	if t.output, err = compactJSON(t.output); err != nil {
		return fmt.Errorf("outputSchema: %w", err)
	}
	return nil
}

func compactJSON(s string) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return "", fmt.Errorf("compact JSON: %w", err)
	}
	return buf.String(), nil
}

// compileSchema compiles a tool schema as 2020-12, the draft the server validates
// arguments with. Every schema the server lists is valid as draft-07 too: the tests
// prove it (TestEveryToolSchemaCompiles), so a call does not compile it twice.
func compileSchema(name, text string) (*jsonschema.Schema, error) {
	return compileAs(jsonschema.Draft2020, name, text)
}

// compileAs compiles a tool schema as draft. Nothing is ever loaded from the network.
func compileAs(draft *jsonschema.Draft, name, text string) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = draft
	c.LoadURL = func(u string) (_ io.ReadCloser, err error) {
		return nil, fmt.Errorf("refusing to load %s: tool schemas are self-contained", u)
	}
	url := "mem://fixtures/" + name + ".json"
	if err := c.AddResource(url, strings.NewReader(text)); err != nil {
		return nil, fmt.Errorf("add schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	return sch, nil
}

// validateArgs checks arguments (a JSON object, or nil when absent) against the input
// schema; the error describes every violation for the model to correct.
func (t *tool) validateArgs(raw json.RawMessage) (map[string]any, error) {
	args, err := decodeArgs(raw)
	if err != nil {
		return nil, err
	}
	schema, err := t.inputSchema.get()
	if err != nil {
		return nil, fmt.Errorf("the tool's own inputSchema: %w", err)
	}
	if err := schema.Validate(args); err != nil {
		return nil, errors.New(describeValidation(err))
	}
	return args, nil
}

// decodeArgs decodes arguments (a JSON object, or nil when absent), numbers as
// json.Number.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return args, nil
}

// describeValidation turns a schema validation error into one readable sentence.
func describeValidation(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			leaves = append(leaves, fmt.Sprintf("at %s: %s", loc, e.Message))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(leaves)
	return strings.Join(leaves, "; ")
}

// call validates the arguments and runs the tool. Arguments that break the input
// schema are a tool execution error (isError), in every revision: 2025-11-25 asks for
// that and 2024-11-05 … 2025-06-18 allow it.
func (t *tool) call(tc *toolCall, rawArgs json.RawMessage) toolResult {
	if tc.fault(faultProgressRetyped) && jsonKind(tc.progressToken) == "number" {
		tc.progressFor(mustMarshal(string(tc.progressToken)), 0, 1, "")
	}
	args, err := t.validateArgs(rawArgs)
	switch {
	case err != nil && tc.fault(faultArgsUnvalidated):
		args, _ = decodeArgs(rawArgs)
	case err != nil && tc.fault(faultArgsInternal):
		r := errorResult("")
		r.rpcErr = errInternal(fmt.Errorf("tool %s failed: %v", t.name, err))
		return r
	case err != nil:
		return errorResult(fmt.Sprintf("Invalid arguments for tool %s: %v", t.name, err))
	}
	tc.args = args
	return t.run(tc)
}

// blocksIn reports whether a call of the tool runs off the reader's goroutine in
// this revision.
func (t *tool) blocksIn(rev revision.Revision) bool {
	return t.blocking && !(t.asksClient && rev.Era == revision.Modern)
}
