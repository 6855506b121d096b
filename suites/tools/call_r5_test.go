package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
)

// The 2026-07-28 cases of the tools/call checks of this package.

// inputRequired is an InputRequiredResult: it asks for input, completes nothing.
const inputRequired = `{"resultType":"input_required","inputRequests":{"n":{"method":"elicitation/create","params":{"mode":"form","message":"name?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s1","content":[],"isError":"no"}`

// modernServer makes srv a 2026-07-28 server (conformtest.Modern).
var modernServer = conformtest.Modern

func TestInEra(t *testing.T) {
	tests := []struct {
		name   string
		r      toolcall.Reply
		modern bool
		want   bool
	}{
		{"modern input_required", result(inputRequired), true, true},
		{"legacy has no resultType: an extra member", result(inputRequired), false, false},
		{"modern complete", result(`{"resultType":"complete","content":[]}`), true, false},
		{"modern error reply", rpcErr(-32602), true, false},
		{"resultType not a string", result(`{"resultType":1,"content":[]}`), true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r.InEra(tc.modern)
			if r.InputRequired != tc.want {
				t.Fatalf("inputRequired %v, want %v", r.InputRequired, tc.want)
			}
			if r.InputRequired && (r.Success() || !strings.Contains(r.Desc, "InputRequiredResult")) {
				t.Errorf("an InputRequiredResult counts as a success or is not named: %q", r.Desc)
			}
		})
	}
}

func TestR5Judges(t *testing.T) {
	ir := result(inputRequired).InEra(true)
	tests := []struct {
		name string
		got  conform.Verdict
		want conform.Outcome
	}{
		{"TOOLS-CALL-01: an InputRequiredResult is no CallToolResult", judgeCall("test_simple_text", ir), conform.OutcomeViolation},
		{"TOOLS-CALL-01: the same result in a legacy session has a content array", judgeCall("test_simple_text", result(`{"resultType":"input_required","content":[]}`).InEra(false)), conform.OutcomePass},
		{"TOOLS-CALL-VALIDATE-01: asking for input rejects nothing", judgeValidate([]toolcall.Probe{{Label: "test_echo {}", R: ir}}), conform.OutcomeWarn},
		{"TOOLS-CALL-INVALIDARGS-R4-01: asking for input is no isError result", judgeInvalidArgsR4([]toolcall.Probe{{Label: "test_echo {}", R: ir}}), conform.OutcomeViolation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s)", tc.got.Outcome(), tc.got.Message)
			}
		})
	}
}

func TestCallsInLeavesOutInputRequired(t *testing.T) {
	entries := []wire.Entry{
		{Seq: 1, Dir: wire.Sent, Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}`)},
		{Seq: 2, Dir: wire.Received, ForMethod: "tools/call", Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":1,"result":`+inputRequired+`}`)},
		{Seq: 3, Dir: wire.Sent, Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}}`)},
		{Seq: 4, Dir: wire.Received, ForMethod: "tools/call", Msg: decodeMsg(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[],"isError":false}}`)},
	}
	if got := toolcall.CallsIn("s", true, entries); len(got) != 1 || got[0].Where != "s #4" {
		t.Errorf("modern: got %+v, want only the complete result #4", got)
	}
	if got := toolcall.CallsIn("s", false, entries); len(got) != 2 {
		t.Errorf("legacy: got %d calls, want 2 (resultType means nothing there)", len(got))
	}
}

func TestR5Verdicts(t *testing.T) {
	const r5 = "2026-07-28"
	complete := func(raw string) string { return `{"resultType":"complete",` + raw[1:] }
	tests := []struct {
		name, id string
		srv      *conformtest.Server
		opts     []func(*conform.Config)
		want     reports.Status
	}{
		{"call: a content array passes", "TOOLS-CALL-01", modernServer(server(answer("test_simple_text", complete(okText)), fixtureDefs...)), nil, reports.Pass},
		{"call: an InputRequiredResult fails", "TOOLS-CALL-01", modernServer(server(answer("test_simple_text", inputRequired), fixtureDefs...)), nil, reports.Fail},
		{"exec: an isError result passes", "ERR-EXEC-IN-RESULT-01", modernServer(server(nil, fixtureDefs...)), nil, reports.Pass},
		{"exec: a protocol error warns", "ERR-EXEC-IN-RESULT-01", modernServer(server(answer("test_error_handling", "error:-32603"), fixtureDefs...)), nil, reports.Warn},
		{"validate: isError passes", "TOOLS-CALL-VALIDATE-01", modernServer(server(nil, fixtureDefs...)), nil, reports.Pass},
		{"validate: no validation warns", "TOOLS-CALL-VALIDATE-01", modernServer(server(noValidation, fixtureDefs...)), nil, reports.Warn},
		{"invalidargs: isError passes", "TOOLS-CALL-INVALIDARGS-R4-01", modernServer(server(nil, fixtureDefs...)), nil, reports.Pass},
		{"invalidargs: -32602 passes with a note", "TOOLS-CALL-INVALIDARGS-R4-01", modernServer(server(rejectInvalidEcho, fixtureDefs...)), nil, reports.Pass},
		{"iserror content: a text block passes", "ERR-ISERROR-CONTENT-01", modernServer(server(nil, fixtureDefs...)), nil, reports.Pass},
		{"iserror content: none fails", "ERR-ISERROR-CONTENT-01", modernServer(server(answer("test_error_handling", `{"resultType":"complete","isError":true}`), fixtureDefs...)), nil, reports.Fail},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := conformtest.Judge(t, tc.id, r5, tc.srv, tc.opts...)
			if v.Status != tc.want {
				t.Errorf("%s: status %s, want %s (%s)", tc.id, v.Status, tc.want, v.Message)
			}
		})
	}
}

// The scripted server's InputRequiredResult decodes as the schema's shape (a guard
// against a typo making the cases above vacuous).
func TestInputRequiredFixtureShape(t *testing.T) {
	var r struct {
		ResultType string `json:"resultType"`
	}
	if err := json.Unmarshal([]byte(inputRequired), &r); err != nil || r.ResultType != "input_required" {
		t.Fatalf("inputRequired: %v %q", err, r.ResultType)
	}
}
