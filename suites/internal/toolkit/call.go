package toolkit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// ErrorFixture is the fixture-contract tool that always fails: its result is a tool
// execution error (isError: true).
const ErrorFixture = "test_error_handling"

// FixtureTools are the tool names of the fixture contract (the fixture contract, refserver/doc.go, the
// official TypeScript suite's names plus the matrix's additions). They promise to be
// side-effect-free, so the suite calls them whenever a server lists them.
var FixtureTools = map[string]bool{
	"test_simple_text": true, "test_image_content": true, "test_audio_content": true,
	"test_embedded_resource": true, "test_multiple_content_types": true,
	"test_tool_with_logging": true, "test_tool_with_progress": true,
	"test_error_handling": true, "test_trigger_tool_change": true,
	"test_elicitation": true, "test_sampling": true, "test_resource_link": true,
	"test_annotated_content": true, "test_structured_output": true,
	"test_echo": true, "test_slow": true, "test_last_cancellation": true,
	"test_dynamic_tool":         true,
	"test_requires_elicitation": true, // 2026-07-28: refuses without the elicitation capability (-32021)
	// Additions of this project's reference server (the fixture contract, refserver/doc.go).
	"test_structured_no_schema": true, "test_structured_error": true,
	// 2026-07-28 additions: structuredContent that is not an object; the server
	// ending a subscription itself (NOTIF-LISTEN-CLOSE-R5-01).
	"test_structured_array": true, "test_end_subscription": true,
}

// Permission is whether the suite may call a tool, and with what.
type Permission struct {
	Allowed bool
	Args    json.RawMessage // the arguments to send (a JSON object)
	Why     string          // fixture contract, --call, or why not
	// Invented says the suite built Args from the inputSchema of a tool allowed with
	// --call NAME (no =JSON): an isError:true answer to them may be the tool
	// reporting input it cannot use, not a failed call.
	Invented bool
}

// Allowed applies the calling policy (no tool of the target is executed by default):
// fixture-contract tools and tools the operator allowed with --call or --trigger-tool are callable; nothing else is.
// Annotations never make a tool callable.
func Allowed(t *conform.T, tl Tool) Permission {
	opts := t.Options()
	if c, ok := allowedSpec(opts, tl.Name); ok {
		if c.Args != nil {
			return Permission{Allowed: true, Args: c.Args, Why: "allowed by --call with the given arguments"}
		}
		args, err := Synthesize(tl.Fields.Get("inputSchema"))
		if err != nil {
			return Permission{Why: fmt.Sprintf("allowed by --call, but no arguments could be built from its inputSchema (%v): give them with --call %s=JSON", err, tl.Name)}
		}
		return Permission{Allowed: true, Args: args, Invented: true, Why: "allowed by --call, arguments built from its inputSchema"}
	}
	if FixtureTools[tl.Name] {
		args, err := Synthesize(tl.Fields.Get("inputSchema"))
		if err != nil {
			args = json.RawMessage(`{}`)
		}
		return Permission{Allowed: true, Args: args, Why: "a fixture-contract tool"}
	}
	return Permission{Why: "not allowed: the suite never executes the target's own tools unless --call " + tl.Name + " allows it"}
}

// allowedSpec returns the first --call (then --trigger-tool) that names the tool.
func allowedSpec(opts conform.Options, name string) (conform.CallSpec, bool) {
	for _, c := range opts.Calls {
		if c.Name == name {
			return c, true
		}
	}
	if opts.TriggerTool != nil && opts.TriggerTool.Name == name {
		return *opts.TriggerTool, true
	}
	return conform.CallSpec{}, false
}

// NotAllowed is the skip verdict of a check that needs a call it may not make.
func NotAllowed(what string) conform.Verdict {
	return conform.Skip(conform.CallsNotAllowed, "%s needs a tool call; allow one of the server's tools with --call NAME[=JSON] (no tool of the target is executed by default)", what)
}

// Callable returns the listed tools the suite may call, with their permissions.
func Callable(t *conform.T, l *Listing) []CallableTool {
	// Several checks ask of the same listing (the run's options do not change): at
	// 100,000 tools each asking was a twentieth of the run's CPU.
	l.callableOnce.Do(func() { l.callable = callable(t, l) })
	return l.callable[:len(l.callable):len(l.callable)]
}

// callable is Callable without the memo.
func callable(t *conform.T, l *Listing) []CallableTool {
	var out []CallableTool
	opts := t.Options()
	for _, tl := range l.Tools {
		if tl.Name == "" {
			continue
		}
		if _, named := allowedSpec(opts, tl.Name); !named && !FixtureTools[tl.Name] {
			continue // not allowed (Allowed's last case), said without building why
		}
		if p := Allowed(t, tl); p.Allowed {
			out = append(out, CallableTool{Tool: tl, Permission: p})
		}
	}
	return out
}

// CallableTool is a listed tool with its permission.
type CallableTool struct {
	Tool
	Permission
}

// Outcome is one tools/call and what the suite saw for it.
type Outcome struct {
	Name  string
	Args  json.RawMessage
	Token any // the progressToken sent: a string or an integer
	Resp  *wire.Response
	Err   error
	// Result holds the decoded result members (nil for an error reply or silence).
	Result  map[string]json.RawMessage
	IsError bool // the result says isError: true
	// Content holds the content blocks, raw.
	Content []json.RawMessage
	// Session is the session the call was made on; SeqSent is the transcript seq
	// before the request went out.
	Session *conform.Session
	SeqSent int
}

// Succeeded reports whether the call returned a result that is not isError:true.
// A check that needs a successful result never accepts isError:true as one.
func (o *Outcome) Succeeded() bool {
	return o.Err == nil && o.Resp != nil && !o.Resp.IsError() && o.Result != nil && !o.IsError
}

// Describe says what came back.
func (o *Outcome) Describe() string {
	if o.Result != nil && o.IsError {
		return "an isError:true result: " + conform.ClipBytes(o.Resp.Result, 200)
	}
	return conform.Describe(o.Resp, o.Err)
}

var tokenSeq atomic.Int64

// nextToken alternates string and integer progress tokens, unique across the run.
func nextToken() any {
	n := tokenSeq.Add(1)
	if n%2 == 0 {
		return int64(900000 + n)
	}
	return fmt.Sprintf("mcp-conform-progress-%d", n)
}

// NewToken returns a fresh progressToken for a request the suite builds itself
// (suites/internal/tasks' task-augmented call): unique across the run, like the
// tokens of Call, and always a string: the alternating types of Call's tokens follow
// the order of calls across concurrent columns, and a call whose token type changed
// from run to run met the number-token faults in some runs only.
// The token is recorded as s's, so that progress naming it on another session is
// TokenElsewhere's leak there.
func NewToken(s *conform.Session) any {
	tok := fmt.Sprintf("mcp-conform-progress-%d", tokenSeq.Add(1))
	if id, err := wire.ParseID([]byte(strconv.Quote(tok))); err == nil {
		tokens.Lock()
		tokens.built[id.Key()] = s
		tokens.Unlock()
	}
	return tok
}

// tokens records every progressToken the suite sent, per session, for PROG-* checks,
// and those of the stream probes' calls (ProbeToken).
var tokens = struct {
	sync.Mutex
	bySession map[*conform.Session][]*Outcome
	probes    map[string]bool             // wire.ID keys
	built     map[string]*conform.Session // NewToken's, by wire.ID key
}{bySession: map[*conform.Session][]*Outcome{}, probes: map[string]bool{}, built: map[string]*conform.Session{}}

// ProbeToken records the progress token of a call a stream probe made on a stream it
// reads itself (transport.ProbeStream): the call and its stream are in no
// transcript, so a progress notification naming the token that reaches a transcript
// all the same (on a GET stream, or another session's) is left out of the progress
// rows (TokenElsewhere), as a leak SHTTP-NO-BROADCAST-01 and SHTTP-GET-UNRELATED-01
// judge.
func ProbeToken(token string) {
	b, _ := json.Marshal(token)
	id, err := wire.ParseID(b)
	if err != nil {
		return
	}
	tokens.Lock()
	tokens.probes[id.Key()] = true
	tokens.Unlock()
}

// Call sends tools/call{name, arguments, _meta.progressToken} and decodes the reply.
func Call(t *conform.T, s *conform.Session, name string, args json.RawMessage) *Outcome {
	o := &Outcome{Name: name, Args: args, Token: nextToken(), Session: s}
	params := map[string]any{"name": name, "_meta": map[string]any{"progressToken": o.Token}}
	if args != nil {
		params["arguments"] = args
	}
	o.SeqSent = s.Conn.Seq()
	tokens.Lock()
	tokens.bySession[s] = append(tokens.bySession[s], o)
	tokens.Unlock()
	o.Resp, o.Err = s.Call(t.Ctx, "tools/call", params)
	if resp, ok := conform.RPCErrorReply(o.Err, "tools/call"); ok {
		// An HTTP error status carrying a JSON-RPC error is that error, as on stdio.
		o.Resp, o.Err = resp, nil
	}
	if o.Err != nil || o.Resp.IsError() {
		return o
	}
	// Slices of the reply (wire.Decode validated it), not copies of it.
	result, err := rawjson.ObjectOfValid(o.Resp.Result)
	if err != nil {
		return o
	}
	o.Result = result
	var isErr bool
	if json.Unmarshal(o.Result["isError"], &isErr) == nil {
		o.IsError = isErr
	}
	if content, err := rawjson.ArrayOfValid(o.Result["content"]); err == nil {
		o.Content = content
	}
	return o
}

// TokenElsewhere reports whether a progress token (raw JSON) is one the suite sent on
// a tools/call of another session than s, in any column of the run, or on a stream
// probe's call (ProbeToken): a progress
// notification naming it on s leaked from that session (a server that sends every
// session's progress to every session). Whether it arrives depends on which
// sessions were open when the other call ran, so the per-session progress rows leave
// it out, and SHTTP-NO-BROADCAST-01 judges the leak with a probe of its own.
func TokenElsewhere(s *conform.Session, raw json.RawMessage) bool {
	want, err := wire.ParseID(raw)
	if err != nil || want.IsZero() {
		return false
	}
	tokens.Lock()
	defer tokens.Unlock()
	if tokens.probes[want.Key()] {
		return true
	}
	if owner, ok := tokens.built[want.Key()]; ok && owner != s {
		return true
	}
	for other, calls := range tokens.bySession {
		if other == s {
			continue
		}
		for _, o := range calls {
			b, err := json.Marshal(o.Token)
			if err != nil {
				continue
			}
			if id, err := wire.ParseID(b); err == nil && id.Key() == want.Key() {
				return true
			}
		}
	}
	return false
}

// CallsOn returns the calls the suite made on a session.
func CallsOn(s *conform.Session) []*Outcome {
	tokens.Lock()
	defer tokens.Unlock()
	return append([]*Outcome(nil), tokens.bySession[s]...)
}

// CallTool calls a listed tool the suite may call, on the main session, once per run
// (memoized by session and name): checks that look at the same tool's result share
// one call.
func CallTool(t *conform.T, ct CallableTool) *Outcome {
	s := t.Session()
	return t.Once("toolkit.call:"+s.Label+":"+ct.Name, func() any {
		return Call(t, s, ct.Name, ct.Args)
	}).(*Outcome)
}

// Synthesize builds arguments from an inputSchema: required properties only, each
// from default, const, examples[0], enum[0], or else a minimal value of its type.
func Synthesize(schema json.RawMessage) (json.RawMessage, error) {
	if len(schema) == 0 {
		return json.RawMessage(`{}`), nil
	}
	// Every check that looks for a callable tool asks again for the same tools:
	// decoding their schemas each time was a twentieth of a run's CPU.
	if v, ok := synthesized.Load(string(schema)); ok {
		r := v.(synthesis)
		return r.args, r.err
	}
	args, err := synthesize(schema)
	synthesized.Store(string(schema), synthesis{args: args[:len(args):len(args)], err: err})
	return args, err
}

// synthesized memoizes Synthesize by schema text (the arguments are read, never
// written, by its callers).
var synthesized sync.Map

// synthesis is one Synthesize result.
type synthesis struct {
	args json.RawMessage
	err  error
}

// synthesize is Synthesize without the memo.
func synthesize(schema json.RawMessage) (json.RawMessage, error) {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("inputSchema is not an object: %w", err)
	}
	v, err := synthValue(s, 0)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("inputSchema does not describe an object")
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	return b, nil
}

func synthValue(s map[string]any, depth int) (any, error) {
	if depth > 8 {
		return nil, fmt.Errorf("schema nests too deeply")
	}
	if v, ok := s["default"]; ok {
		return v, nil
	}
	if v, ok := s["const"]; ok {
		return v, nil
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		return ex[0], nil
	}
	if en, ok := s["enum"].([]any); ok && len(en) > 0 {
		return en[0], nil
	}
	typ := s["type"]
	if list, ok := typ.([]any); ok && len(list) > 0 {
		typ = list[0]
	}
	switch typ {
	case "object", nil:
		if _, hasProps := s["properties"]; typ == nil && !hasProps {
			return nil, fmt.Errorf("a property has no type, default, const, example or enum")
		}
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		names := make([]string, 0, len(req))
		for _, r := range req {
			if n, ok := r.(string); ok {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			ps, _ := props[n].(map[string]any)
			if ps == nil {
				return nil, fmt.Errorf("required property %q has no schema", n)
			}
			v, err := synthValue(ps, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
			out[n] = v
		}
		return out, nil
	case "string":
		n := intOf(s["minLength"], 1)
		return strings.Repeat("x", max(n, 1)), nil
	case "integer":
		return intOf(s["minimum"], 0), nil
	case "number":
		if m, ok := s["minimum"].(float64); ok {
			return m, nil
		}
		return 0, nil
	case "boolean":
		return false, nil
	case "array":
		n := intOf(s["minItems"], 0)
		items, _ := s["items"].(map[string]any)
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			if items == nil {
				return nil, fmt.Errorf("array needs items but has no items schema")
			}
			v, err := synthValue(items, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case "null":
		return nil, nil
	}
	return nil, fmt.Errorf("unsupported type %v", typ)
}

func intOf(v any, def int) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return def
}
