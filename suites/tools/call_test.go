package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall/toolcalltest"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// ---- replies for the pure tables -------------------------------------------------

var (
	errTimeout = toolcalltest.ErrTimeout
	rpcErr     = toolcalltest.RPCError
	result     = toolcalltest.Result
	none       = toolcalltest.None
	httpErr    = toolcalltest.HTTPError
	seen       = toolcalltest.Seen
)

const (
	okText     = toolcalltest.OKText
	isErrText  = toolcalltest.IsErrText
	isErrFalse = toolcalltest.IsErrFalse
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name    string
		r       toolcall.Reply
		kind    toolcall.Kind
		code    int
		isError bool
	}{
		{"result", result(okText), toolcall.KindResult, 0, false},
		{"isError result", result(isErrText), toolcall.KindResult, 0, true},
		{"isError false", result(isErrFalse), toolcall.KindResult, 0, false},
		{"isError a string is not true", result(`{"content":[],"isError":"true"}`), toolcall.KindResult, 0, false},
		{"error", rpcErr(-32602), toolcall.KindRPCError, -32602, false},
		{"HTTP with JSON-RPC error", httpErr(400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`), toolcall.KindRPCError, -32602, false},
		{"HTTP without", httpErr(500, `oops`), toolcall.KindHTTP, 0, false},
		{"errTimeout", none(errTimeout), toolcall.KindNone, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.r.Kind != tc.kind || tc.r.Code != tc.code || tc.r.IsError != tc.isError {
				t.Errorf("got kind %d code %d isError %v", tc.r.Kind, tc.r.Code, tc.r.IsError)
			}
		})
	}
}

func TestJudgeUnknownTool(t *testing.T) {
	tests := []struct {
		name string
		r    toolcall.Reply
		want conform.Outcome
		msg  string
	}{
		{"-32602 passes", rpcErr(-32602), conform.OutcomePass, "-32602"},
		{"-32602 over HTTP 400 passes", httpErr(400, `{"error":{"code":-32602,"message":"unknown"}}`), conform.OutcomePass, "-32602"},
		{"another code warns naming it", rpcErr(-32601), conform.OutcomeWarn, "-32601"},
		{"HTTP error without JSON-RPC warns", httpErr(404, `not found`), conform.OutcomeWarn, "HTTP 404"},
		{"isError result breaks the SHOULD", result(isErrText), conform.OutcomeViolation, "isError:true"},
		{"success breaks the SHOULD", result(okText), conform.OutcomeViolation, "successful result"},
		{"isError false is a success", result(isErrFalse), conform.OutcomeViolation, "successful result"},
		{"silence", none(errTimeout), conform.OutcomeSilence, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := judgeUnknownTool("x_conformance_nonexistent_00", tc.r)
			if got.Outcome() != tc.want || !strings.Contains(got.Message, tc.msg) {
				t.Errorf("got kind %s %q, want %s mentioning %q", got.Outcome(), got.Message, tc.want, tc.msg)
			}
		})
	}
}

func TestUnusedName(t *testing.T) {
	l := &toolkit.Listing{Tools: []toolkit.Tool{{ToolDef: &toolkit.ToolDef{Name: "a"}}}}
	a, b := unusedName(l), unusedName(l)
	if a == b || !strings.HasPrefix(a, "x_conformance_nonexistent_") || len(a) != len("x_conformance_nonexistent_")+16 {
		t.Errorf("names %q and %q", a, b)
	}
}

func TestJudgeMalformed(t *testing.T) {
	ok := toolcall.Probe{Label: "p", R: rpcErr(-32602)}
	header := toolcall.Probe{Label: "{}", R: rpcErr(conform.CodeHeaderMismatch)}
	tests := []struct {
		name     string
		probes   []toolcall.Probe
		headerOK map[string]bool
		want     conform.Outcome
	}{
		{"all -32602", []toolcall.Probe{ok, ok, ok}, nil, conform.OutcomePass},
		{"no listed tool: two probes", []toolcall.Probe{ok, ok}, nil, conform.OutcomePass},
		{"dispatched", []toolcall.Probe{ok, ok, {Label: "arguments [1]", R: result(okText)}}, nil, conform.OutcomeViolation},
		{"isError result", []toolcall.Probe{ok, ok, {Label: "arguments [1]", R: result(isErrText)}}, nil, conform.OutcomeViolation},
		{"another code", []toolcall.Probe{{Label: "{}", R: rpcErr(-32600)}, ok, ok}, nil, conform.OutcomeViolation},
		{"silence", []toolcall.Probe{ok, {Label: "name 5", R: none(errTimeout)}, ok}, nil, conform.OutcomeSilence},
		// 2026-07-28 over HTTP: no Mcp-Name header can carry a missing name.
		{"-32020 for a nameless call over modern HTTP is a note", []toolcall.Probe{header, ok, ok}, map[string]bool{"{}": true}, conform.OutcomeNote},
		{"-32020 elsewhere is another code", []toolcall.Probe{header, ok, ok}, nil, conform.OutcomeViolation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeMalformed(tc.probes, tc.headerOK); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}

func TestJudgeCall(t *testing.T) {
	tests := []struct {
		name string
		r    toolcall.Reply
		want conform.Outcome
	}{
		{"content array", result(okText), conform.OutcomePass},
		{"empty content array", result(`{"content":[]}`), conform.OutcomePass},
		{"isError false", result(isErrFalse), conform.OutcomePass},
		{"isError is not a success (#515)", result(isErrText), conform.OutcomeViolation},
		{"no content", result(`{"structuredContent":{}}`), conform.OutcomeViolation},
		{"content null", result(`{"content":null}`), conform.OutcomeViolation},
		{"content an object", result(`{"content":{"type":"text"}}`), conform.OutcomeViolation},
		{"not an object", result(`[1]`), conform.OutcomeViolation},
		{"JSON-RPC error", rpcErr(-32603), conform.OutcomeViolation},
		{"silence", none(errTimeout), conform.OutcomeSilence},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeCall("test_simple_text", tc.r); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}

// decodeMsg decodes one message of a scripted transcript.
func decodeMsg(t *testing.T, raw string) *wire.Message {
	t.Helper()
	m, err := wire.Decode([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCallsIn(t *testing.T) {
	entries := []wire.Entry{
		{Seq: 1, Dir: wire.Sent, Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`)},
		{Seq: 2, Dir: wire.Sent, Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":"2","method":"tools/call","params":{"name":"b"}}`)},
		{Seq: 3, Dir: wire.Sent, Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)},
		{Seq: 4, Dir: wire.Received, ForMethod: "tools/call", Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":"2","result":{"content":[],"isError":"yes"}}`)},
		{Seq: 5, Dir: wire.Received, ForMethod: "tools/call", LooseID: true, Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":"1","result":{"content":[]}}`)},
		{Seq: 6, Dir: wire.Received, ForMethod: "tools/list", Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`)},
		{Seq: 7, Dir: wire.Received, ForMethod: "tools/call", Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"x"}}`)},
	}
	got := toolcall.CallsIn("s", false, entries)
	if len(got) != 2 || got[0].Name != "b" || string(got[0].IsErrorRaw) != `"yes"` || got[1].Name != "a" || got[1].IsErrorRaw != nil {
		t.Errorf("got %+v", got)
	}
}

func TestJudgeIsErrorType(t *testing.T) {
	tests := []struct {
		name  string
		calls []toolcall.SeenCall
		want  conform.Outcome
	}{
		{"none seen", nil, conform.OutcomeSkip},
		{"booleans and absent", []toolcall.SeenCall{seen("a", okText), seen("b", isErrText), seen("c", isErrFalse)}, conform.OutcomePass},
		{"a string", []toolcall.SeenCall{seen("a", okText), seen("b", `{"content":[],"isError":"true"}`)}, conform.OutcomeViolation},
		{"null", []toolcall.SeenCall{seen("b", `{"content":[],"isError":null}`)}, conform.OutcomeViolation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeIsErrorType(tc.calls); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}

func TestInvalidArgs(t *testing.T) {
	tests := []struct {
		name, schema, base string
		want               []string // "label => args"
	}{
		{"required string", `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`, `{"city":"x"}`,
			[]string{`without the required city => {}`, `with city 12345 (not of type string) => {"city":12345}`}},
		{"integer gets a string", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`, `{"n":0}`,
			[]string{`without the required n => {}`, `with n "x-conformance-wrong-type" (not of type integer) => {"n":"x-conformance-wrong-type"}`}},
		{"optional typed only", `{"type":"object","properties":{"b":{"type":"boolean"}}}`, `{}`,
			[]string{`with b "x-conformance-wrong-type" (not of type boolean) => {"b":"x-conformance-wrong-type"}`}},
		{"type union", `{"type":"object","properties":{"v":{"type":["string","integer"]}},"required":["v"]}`, `{"v":"a"}`,
			[]string{`without the required v => {}`, `with v true (not of type string|integer) => {"v":true}`}},
		{"nothing to break", `{"type":"object","properties":{"a":{}}}`, `{}`, nil},
		{"no schema", ``, ``, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, b := range invalidArgs(json.RawMessage(tc.schema), json.RawMessage(tc.base)) {
				got = append(got, b.label+" => "+string(b.args))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestJudgeInvalidArgs(t *testing.T) {
	isErr, p602, ok, p603 := result(isErrText), rpcErr(-32602), result(okText), rpcErr(-32603)
	tests := []struct {
		name                 string
		a, b                 toolcall.Reply
		either, r4, validate conform.Outcome
	}{
		{"isError both", isErr, isErr, conform.OutcomePass, conform.OutcomePass, conform.OutcomePass},
		{"-32602 both", p602, p602, conform.OutcomePass, conform.OutcomeNote, conform.OutcomePass},
		{"mixed channels", isErr, p602, conform.OutcomePass, conform.OutcomeNote, conform.OutcomePass},
		{"accepted", isErr, ok, conform.OutcomeWarn, conform.OutcomeViolation, conform.OutcomeWarn},
		{"isError false is accepted", isErr, result(isErrFalse), conform.OutcomeWarn, conform.OutcomeViolation, conform.OutcomeWarn},
		{"another code", p603, isErr, conform.OutcomeWarn, conform.OutcomeViolation, conform.OutcomePass},
		{"silence", isErr, none(errTimeout), conform.OutcomeSilence, conform.OutcomeSilence, conform.OutcomeSilence},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps := []toolcall.Probe{{Label: "test_echo without text", R: tc.a}, {Label: `test_echo with count "three"`, R: tc.b}}
			if got := judgeInvalidArgsEither(ps); got.Outcome() != tc.either {
				t.Errorf("R1-R3: kind %s (%s)", got.Outcome(), got.Message)
			}
			if got := judgeInvalidArgsR4(ps); got.Outcome() != tc.r4 {
				t.Errorf("R4: kind %s (%s)", got.Outcome(), got.Message)
			}
			if got := judgeValidate(ps); got.Outcome() != tc.validate {
				t.Errorf("validate: kind %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}

// ---- end-to-end verdicts against scripted servers --------------------------------

const (
	defSimple = `{"name":"test_simple_text","inputSchema":{"type":"object"}}`
	defError  = `{"name":"test_error_handling","inputSchema":{"type":"object"}}`
	defEcho   = `{"name":"test_echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"}},"required":["text"]}}`
	defOther  = `{"name":"weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`
	defLoose  = `{"name":"loose","inputSchema":{"type":"object"}}`
	// defDeeplink is mcp-grafana's generate_deeplink in short: the suite invents
	// {"resourceType":"x"}, which the tool refuses with isError:true.
	defDeeplink = `{"name":"deeplink","inputSchema":{"type":"object","properties":{"resourceType":{"type":"string"}},"required":["resourceType"]}}`
)

// callParams is a tools/call's params as the scripted server reads them.
type callParams struct {
	Name      json.RawMessage `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// behaviour overrides the reference-like answers of the scripted server: it gets the
// tool name (or "" when name is not a string) and the request, and answers when ok.
type behaviour func(name string, args map[string]any, req *wire.Message) (out []string, ok bool)

// server is a scripted server that lists defs and answers tools/call like the
// reference server, unless b answers first.
func server(b behaviour, defs ...string) *conformtest.Server {
	srv := conformtest.NewServer().Tools(defs...)
	srv.Handle("tools/call", func(req *wire.Message) []string {
		var p callParams
		_ = json.Unmarshal(req.Params, &p)
		var name string
		nameOK := json.Unmarshal(p.Name, &name) == nil && len(p.Name) > 0
		var args map[string]any
		argsOK := len(p.Arguments) == 0 || json.Unmarshal(p.Arguments, &args) == nil
		if b != nil {
			if out, ok := b(name, args, req); ok {
				return out
			}
		}
		if !nameOK || !argsOK {
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "malformed tools/call")}
		}
		listed := false
		for _, d := range defs {
			listed = listed || strings.Contains(d, `"name":"`+name+`"`)
		}
		switch {
		case !listed:
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "Unknown tool: "+name)}
		case name == "test_error_handling":
			return []string{conformtest.Result(req, isErrText)}
		case name == "test_echo":
			if _, ok := args["text"].(string); !ok {
				return []string{conformtest.Result(req, `{"content":[{"type":"text","text":"text is required"}],"isError":true}`)}
			}
			if c, has := args["count"]; has {
				if _, ok := c.(float64); !ok {
					return []string{conformtest.Result(req, `{"content":[{"type":"text","text":"count must be an integer"}],"isError":true}`)}
				}
			}
		case name == "weather":
			if _, ok := args["city"].(string); !ok {
				return []string{conformtest.Result(req, `{"content":[{"type":"text","text":"city must be a string"}],"isError":true}`)}
			}
		}
		return []string{conformtest.Result(req, okText)}
	})
	// tools/list checks its params, as BASE-INVALID-PARAMS-01 wants.
	list := `{"tools":[` + strings.Join(defs, ",") + `]}`
	srv.Handle("tools/list", func(req *wire.Message) []string {
		var p map[string]json.RawMessage
		if len(req.Params) > 0 && json.Unmarshal(req.Params, &p) != nil {
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "params must be an object")}
		}
		if c, ok := p["cursor"]; ok {
			var s string
			if json.Unmarshal(c, &s) != nil {
				return []string{conformtest.Error(req, wire.CodeInvalidParams, "cursor must be a string")}
			}
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "invalid cursor")}
		}
		return []string{conformtest.Result(req, list)}
	})
	return srv
}

var fixtureDefs = []string{defSimple, defError, defEcho}

// answer makes a behaviour that answers raw for one tool name (or every name when
// tool is "*").
func answer(tool, raw string) behaviour {
	return func(name string, _ map[string]any, req *wire.Message) ([]string, bool) {
		if tool != "*" && name != tool {
			return nil, false
		}
		switch {
		case raw == "silence":
			return nil, true
		case strings.HasPrefix(raw, "error:"):
			var code int
			_, _ = fmt.Sscanf(raw, "error:%d", &code)
			return []string{conformtest.Error(req, code, "x")}, true
		}
		return []string{conformtest.Result(req, raw)}, true
	}
}

// unknownAnswer answers raw to any name that is not listed.
func unknownAnswer(raw string) behaviour {
	b := answer("*", raw)
	return func(name string, args map[string]any, req *wire.Message) ([]string, bool) {
		if !strings.HasPrefix(name, "x_conformance_nonexistent_") {
			return nil, false
		}
		return b(name, args, req)
	}
}

// rejectInvalidEcho answers test_echo arguments that break its inputSchema with
// -32602 and runs it otherwise.
func rejectInvalidEcho(name string, args map[string]any, req *wire.Message) ([]string, bool) {
	if name != "test_echo" {
		return nil, false
	}
	if _, ok := args["text"].(string); !ok {
		return []string{conformtest.Error(req, wire.CodeInvalidParams, "text is required")}, true
	}
	if c, ok := args["count"]; ok {
		if _, isNum := c.(float64); !isNum {
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "count must be an integer")}, true
		}
	}
	return []string{conformtest.Result(req, okText)}, true
}

// noValidation runs test_echo whatever its arguments.
func noValidation(name string, _ map[string]any, req *wire.Message) ([]string, bool) {
	if name != "test_echo" {
		return nil, false
	}
	return []string{conformtest.Result(req, okText)}, true
}

// dispatchArrays runs a listed tool even when arguments is an array.
func dispatchArrays(name string, args map[string]any, req *wire.Message) ([]string, bool) {
	if name == "test_simple_text" && strings.Contains(string(req.Params), `"arguments":[`) {
		return []string{conformtest.Result(req, okText)}, true
	}
	return nil, false
}

func TestVerdicts(t *testing.T) {
	call := func(name string) func(*conform.Config) {
		return func(c *conform.Config) { c.Calls = append(c.Calls, conform.CallSpec{Name: name}) }
	}
	callArgs := func(name, args string) func(*conform.Config) {
		return func(c *conform.Config) {
			c.Calls = append(c.Calls, conform.CallSpec{Name: name, Args: json.RawMessage(args)})
		}
	}
	strict := func(c *conform.Config) { c.Strict = true }
	tests := []struct {
		name, id, rev string
		srv           *conformtest.Server
		opts          []func(*conform.Config)
		want          reports.Status
		reason        reports.SkipReason
	}{
		{"unknown: -32602", "TOOLS-CALL-UNKNOWN-01", "2025-06-18", server(nil, fixtureDefs...), nil, reports.Pass, ""},
		{"unknown: isError result warns (SHOULD)", "TOOLS-CALL-UNKNOWN-01", "2024-11-05", server(unknownAnswer(isErrText), fixtureDefs...), nil, reports.Warn, ""},
		{"unknown: success warns (SHOULD)", "TOOLS-CALL-UNKNOWN-01", "2025-11-25", server(unknownAnswer(okText), fixtureDefs...), nil, reports.Warn, ""},
		{"unknown: -32601", "TOOLS-CALL-UNKNOWN-01", "2025-03-26", server(unknownAnswer("error:-32601"), fixtureDefs...), nil, reports.Warn, ""},
		{"unknown: silence", "TOOLS-CALL-UNKNOWN-01", "2025-06-18", server(unknownAnswer("silence"), fixtureDefs...), nil, reports.Warn, ""},
		{"unknown: no tools capability", "TOOLS-CALL-UNKNOWN-01", "2025-06-18", noCaps(server(nil)), nil, reports.Skip, reports.NotApplicable},

		{"malformed: -32602", "TOOLS-CALL-MALFORMED-01", "2025-11-25", server(nil, fixtureDefs...), nil, reports.Pass, ""},
		{"malformed: array arguments dispatched", "TOOLS-CALL-MALFORMED-01", "2025-11-25", server(dispatchArrays, fixtureDefs...), nil, reports.Warn, ""},
		{"malformed: name 5 unanswered", "TOOLS-CALL-MALFORMED-01", "2024-11-05", server(func(name string, _ map[string]any, req *wire.Message) ([]string, bool) {
			return nil, strings.Contains(string(req.Params), `"name":5`)
		}, fixtureDefs...), nil, reports.Warn, ""},

		{"invalid params: -32602", "BASE-INVALID-PARAMS-01", "2025-06-18", server(nil, fixtureDefs...), nil, reports.Pass, ""},
		{"invalid params: ignored", "BASE-INVALID-PARAMS-01", "2025-06-18", conformtest.NewServer(), nil, reports.Fail, ""},
		// No reply is the same verdict on every transport (issue 9 item 3): silence
		// on stdio, a POST whose connection is closed without a response over HTTP.
		{"invalid params: params \"abc\" unanswered", "BASE-INVALID-PARAMS-01", "2025-06-18", listParamsAnswer(nil), nil, reports.Fail, ""},
		{"invalid params: params \"abc\" hung up", "BASE-INVALID-PARAMS-01", "2025-06-18", listParamsAnswer([]string{conformtest.HangUp}), nil, reports.Fail, ""},
		// A reply that trails its barrier's is read when the column has settled, by
		// its id; one that trails it by more than the grace is no reply.
		{"invalid params: -32602 after the barrier", "BASE-INVALID-PARAMS-01", "2025-06-18", listParamsLater(60 * time.Millisecond), nil, reports.Pass, ""},
		{"invalid params: -32602 past the grace", "BASE-INVALID-PARAMS-01", "2025-06-18", listParamsLater(3 * time.Second), nil, reports.Fail, ""},

		{"call: simple text", "TOOLS-CALL-01", "2025-06-18", server(nil, fixtureDefs...), nil, reports.Pass, ""},
		{"call: isError is not a success", "TOOLS-CALL-01", "2025-06-18", server(answer("test_simple_text", isErrText), fixtureDefs...), nil, reports.Fail, ""},
		{"call: no content", "TOOLS-CALL-01", "2024-11-05", server(answer("test_simple_text", `{}`), fixtureDefs...), nil, reports.Fail, ""},
		{"call: silence", "TOOLS-CALL-01", "2024-11-05", server(answer("test_simple_text", "silence"), fixtureDefs...), nil, reports.Fail, ""},
		{"call: never the error fixture", "TOOLS-CALL-01", "2025-06-18", server(nil, defError), nil, reports.Skip, reports.CallsNotAllowed},
		{"call: no tool listed", "TOOLS-CALL-01", "2025-06-18", server(nil), nil, reports.Skip, reports.NeedsFixture},
		{"call: target tool not allowed", "TOOLS-CALL-01", "2025-06-18", server(nil, defOther), nil, reports.Skip, reports.CallsNotAllowed},
		{"call: target tool allowed", "TOOLS-CALL-01", "2025-06-18", server(nil, defOther), []func(*conform.Config){call("weather")}, reports.Pass, ""},
		// Issue 32: an isError:true answer to arguments the suite invented from the
		// inputSchema is the tool reporting invalid input (tools.mdx), not a failed
		// call: the next allowed tool, in the operator's --call order, is judged.
		{"call: isError to invented arguments tries the next allowed tool", "TOOLS-CALL-01", "2025-06-18", server(answer("deeplink", isErrText), defDeeplink, defOther), []func(*conform.Config){call("deeplink"), call("weather")}, reports.Pass, ""},
		{"call: isError to invented arguments of every allowed tool", "TOOLS-CALL-01", "2025-06-18", server(answer("*", isErrText), defDeeplink, defOther), []func(*conform.Config){call("deeplink"), call("weather")}, reports.Skip, reports.NotExercised},
		{"call: isError to the operator's arguments fails", "TOOLS-CALL-01", "2025-06-18", server(answer("deeplink", isErrText), defDeeplink, defOther), []func(*conform.Config){callArgs("deeplink", `{"resourceType":"dashboard"}`), call("weather")}, reports.Fail, ""},
		{"call: the --call order, not the list order", "TOOLS-CALL-01", "2025-06-18", server(answer("deeplink", `{}`), defOther, defDeeplink), []func(*conform.Config){call("deeplink"), call("weather")}, reports.Fail, ""},

		{"isError type: nothing seen in a lone check", "TOOLS-CALL-ISERROR-01", "2025-06-18", server(nil, fixtureDefs...), nil, reports.Skip, reports.NotExercised},

		{"exec in result: isError", "ERR-EXEC-IN-RESULT-01", "2025-06-18", server(nil, fixtureDefs...), nil, reports.Pass, ""},
		{"exec in result: JSON-RPC error", "ERR-EXEC-IN-RESULT-01", "2025-11-25", server(answer("test_error_handling", "error:-32603"), fixtureDefs...), nil, reports.Warn, ""},
		{"exec in result: success", "ERR-EXEC-IN-RESULT-01", "2025-11-25", server(answer("test_error_handling", okText), fixtureDefs...), nil, reports.Warn, ""},
		{"exec in result: not listed", "ERR-EXEC-IN-RESULT-01", "2025-06-18", server(nil, defSimple), nil, reports.Skip, reports.NeedsFixture},

		{"isError content: text", "ERR-ISERROR-CONTENT-01", "2024-11-05", server(nil, fixtureDefs...), nil, reports.Pass, ""},
		{"isError content: missing", "ERR-ISERROR-CONTENT-01", "2025-06-18", server(answer("test_error_handling", `{"isError":true}`), fixtureDefs...), nil, reports.Fail, ""},
		{"isError content: no text", "ERR-ISERROR-CONTENT-01", "2025-06-18", server(answer("test_error_handling", `{"content":[],"isError":true}`), fixtureDefs...), nil, reports.Warn, ""},
		{"isError content: fixture succeeds", "ERR-ISERROR-CONTENT-01", "2025-06-18", server(answer("test_error_handling", okText), fixtureDefs...), nil, reports.Skip, reports.NotExercised},
		{"isError content: not listed", "ERR-ISERROR-CONTENT-01", "2025-06-18", server(nil, defSimple), nil, reports.Skip, reports.NeedsFixture},

		{"isError struct: nothing seen", "ERR-ISERROR-STRUCT-01", "2025-06-18", server(nil, fixtureDefs...), nil, reports.Skip, reports.NotExercised},

		{"invalid args R1: isError", "TOOLS-CALL-INVALIDARGS-R1-01", "2024-11-05", server(nil, fixtureDefs...), nil, reports.Pass, ""},
		{"invalid args R1: -32602", "TOOLS-CALL-INVALIDARGS-R1-01", "2025-06-18", server(rejectInvalidEcho, fixtureDefs...), nil, reports.Pass, ""},
		// A tool that fails valid arguments too proves nothing by rejecting invalid ones.
		{"invalid args R1: -32602 for every call", "TOOLS-CALL-INVALIDARGS-R1-01", "2025-06-18", server(answer("test_echo", "error:-32602"), fixtureDefs...), nil, reports.Skip, reports.NotExercised},
		{"invalid args R1: isError for every call", "TOOLS-CALL-INVALIDARGS-R1-01", "2025-06-18", server(answer("test_echo", isErrText), fixtureDefs...), nil, reports.Skip, reports.NotExercised},
		{"invalid args R1: accepted", "TOOLS-CALL-INVALIDARGS-R1-01", "2025-03-26", server(noValidation, fixtureDefs...), nil, reports.Warn, ""},
		{"invalid args R1: nothing callable", "TOOLS-CALL-INVALIDARGS-R1-01", "2025-03-26", server(nil, defOther), nil, reports.Skip, reports.CallsNotAllowed},
		{"invalid args R4: isError", "TOOLS-CALL-INVALIDARGS-R4-01", "2025-11-25", server(nil, fixtureDefs...), nil, reports.Pass, ""},
		{"invalid args R4: -32602 with a note", "TOOLS-CALL-INVALIDARGS-R4-01", "2025-11-25", server(rejectInvalidEcho, fixtureDefs...), nil, reports.Pass, ""},
		{"invalid args R4: isError for every call", "TOOLS-CALL-INVALIDARGS-R4-01", "2025-11-25", server(answer("test_echo", isErrText), fixtureDefs...), nil, reports.Skip, reports.NotExercised},
		{"invalid args R4: accepted", "TOOLS-CALL-INVALIDARGS-R4-01", "2025-11-25", server(noValidation, fixtureDefs...), nil, reports.Warn, ""},
		// Descriptive (no key word binds the server): --strict leaves the warning.
		{"invalid args R4: accepted, strict", "TOOLS-CALL-INVALIDARGS-R4-01", "2025-11-25", server(noValidation, fixtureDefs...), []func(*conform.Config){strict}, reports.Warn, ""},
		{"malformed: array arguments dispatched, strict", "TOOLS-CALL-MALFORMED-01", "2025-11-25", server(dispatchArrays, fixtureDefs...), []func(*conform.Config){strict}, reports.Warn, ""},

		{"validate: rejected", "TOOLS-CALL-VALIDATE-01", "2025-06-18", server(nil, fixtureDefs...), nil, reports.Pass, ""},
		{"validate: accepted", "TOOLS-CALL-VALIDATE-01", "2025-06-18", server(noValidation, fixtureDefs...), nil, reports.Warn, ""},
		{"validate: every call fails", "TOOLS-CALL-VALIDATE-01", "2025-06-18", server(answer("*", isErrText), fixtureDefs...), nil, reports.Skip, reports.NotExercised},
		{"validate: accepted, strict stays a warning", "TOOLS-CALL-VALIDATE-01", "2025-06-18", server(noValidation, fixtureDefs...), []func(*conform.Config){strict}, reports.Warn, ""},
		{"validate: silence", "TOOLS-CALL-VALIDATE-01", "2025-06-18", server(answer("test_echo", "silence"), fixtureDefs...), nil, reports.Fail, ""},
		{"validate: --call tool from its schema", "TOOLS-CALL-VALIDATE-01", "2025-06-18", server(nil, defOther), []func(*conform.Config){call("weather")}, reports.Pass, ""},
		{"validate: --call tool validates nothing", "TOOLS-CALL-VALIDATE-01", "2025-06-18", server(answer("weather", okText), defOther), []func(*conform.Config){call("weather")}, reports.Warn, ""},
		{"validate: --call tool with nothing to break", "TOOLS-CALL-VALIDATE-01", "2025-06-18", server(nil, defLoose), []func(*conform.Config){call("loose")}, reports.Skip, reports.NotExercised},
		{"validate: no tool listed", "TOOLS-CALL-VALIDATE-01", "2025-06-18", server(nil), nil, reports.Skip, reports.NeedsFixture},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := conformtest.Judge(t, tc.id, tc.rev, tc.srv, tc.opts...)
			if v.Status != tc.want || (tc.reason != "" && v.Reason != tc.reason) {
				t.Errorf("%s: %s/%s (%s), want %s/%s", tc.id, v.Status, v.Reason, v.Message, tc.want, tc.reason)
			}
		})
	}
}

func noCaps(s *conformtest.Server) *conformtest.Server {
	s.Capabilities = `{}`
	return s
}

// The malformed and invalid-argument probes open no session of their own (the
// process budget): they run on the main session, after every check that needs a
// clean session: in the phase for odd input, or BASE-INVALID-PARAMS-01's with the
// transcript checks' probes, judged once the column has settled (its replies carry
// their ids, so a missing one is proven absent by the settle).
func TestProbesRunLateOnTheMainSession(t *testing.T) {
	for _, id := range []string{"TOOLS-CALL-MALFORMED-01", "BASE-INVALID-PARAMS-01", "TOOLS-CALL-VALIDATE-01", "TOOLS-CALL-INVALIDARGS-R1-01", "TOOLS-CALL-INVALIDARGS-R4-01"} {
		srv := server(nil, fixtureDefs...)
		rev := "2025-06-18"
		if id == "TOOLS-CALL-INVALIDARGS-R4-01" {
			rev = "2025-11-25"
		}
		conformtest.Judge(t, id, rev, srv)
		if srv.Sessions != 1 {
			t.Errorf("%s opened %d sessions, want only the main one", id, srv.Sessions)
		}
		want := conform.PhaseOddInput
		if id == "BASE-INVALID-PARAMS-01" {
			want = conform.PhaseTranscript
		}
		if p := conform.Lookup(id).RunPhase(); p != want {
			t.Errorf("%s runs in phase %d, want %d", id, p, want)
		}
	}
}

// listParamsLater is a server that answers tools/list with params that are not an
// object, or a cursor that is not a string, with -32602, d after the request: after
// the barrier sent behind it.
func listParamsLater(d time.Duration) *conformtest.Server {
	srv := server(nil, fixtureDefs...)
	srv.Handle("tools/list", func(req *wire.Message) []string {
		if p := strings.TrimSpace(string(req.Params)); p != "" && (p[0] != '{' || strings.Contains(p, `"cursor":5`)) {
			return []string{conformtest.Later(d, conformtest.Error(req, wire.CodeInvalidParams, "invalid params"))}
		}
		return []string{conformtest.Result(req, `{"tools":[`+strings.Join(fixtureDefs, ",")+`]}`)}
	})
	return srv
}

// listParamsAnswer is a server that answers tools/list with params that are not an
// object with out (nil: silence), and every other tools/list with its tools.
func listParamsAnswer(out []string) *conformtest.Server {
	srv := server(nil, fixtureDefs...)
	srv.Handle("tools/list", func(req *wire.Message) []string {
		if p := strings.TrimSpace(string(req.Params)); p != "" && p[0] != '{' {
			return out
		}
		return []string{conformtest.Result(req, `{"tools":[`+strings.Join(fixtureDefs, ",")+`]}`)}
	})
	return srv
}

// The control call of the invalid-argument probes (valid arguments, to tell a
// validating tool from one that fails every call) is the session's one call of the
// tool that the checks of tool results share, not the same request again.
func TestInvalidArgControlIsTheSharedCall(t *testing.T) {
	var valid atomic.Int32
	srv := server(func(name string, args map[string]any, _ *wire.Message) ([]string, bool) {
		if _, ok := args["city"].(string); ok && name == "weather" {
			valid.Add(1)
		}
		return nil, false
	}, defOther)
	allow := func(c *conform.Config) { c.Calls = append(c.Calls, conform.CallSpec{Name: "weather"}) }
	vs := conformtest.JudgeAll(t, []string{"TOOLS-CALL-01", "TOOLS-CALL-VALIDATE-01"}, "2025-06-18", srv, allow)
	for i, want := range []reports.Status{reports.Pass, reports.Pass} {
		if vs[i].Status != want {
			t.Errorf("verdict %d: %s (%s), want %s", i, vs[i].Status, vs[i].Message, want)
		}
	}
	if n := valid.Load(); n != 1 {
		t.Errorf("weather was called %d times with valid arguments, want 1 (one call shared by the call check and the control)", n)
	}
}
