package errors

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall/toolcalltest"
)

// The replies and calls of the verdict tables (toolcalltest).
var (
	errClosed = toolcalltest.ErrClosed
	rpcErr    = toolcalltest.RPCError
	result    = toolcalltest.Result
	none      = toolcalltest.None
	seen      = toolcalltest.Seen
)

const (
	okText    = toolcalltest.OKText
	isErrText = toolcalltest.IsErrText
)

func TestJudgeExecInResult(t *testing.T) {
	tests := []struct {
		name string
		r    toolcall.Reply
		want conform.Outcome
	}{
		{"isError result", result(isErrText), conform.OutcomePass},
		{"success", result(okText), conform.OutcomeViolation},
		{"JSON-RPC error", rpcErr(-32603), conform.OutcomeViolation},
		{"silence", none(errClosed), conform.OutcomeSilence},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeExecInResult(tc.r); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}

func TestJudgeIsErrorContent(t *testing.T) {
	tests := []struct {
		name   string
		calls  []toolcall.SeenCall
		called bool
		want   conform.Outcome
		reason reports.SkipReason
		says   string // in the message
	}{
		{"text block", []toolcall.SeenCall{seen("a", isErrText), seen("b", okText)}, true, conform.OutcomePass, "", ""},
		{"no content", []toolcall.SeenCall{seen("a", `{"isError":true}`)}, true, conform.OutcomeViolation, "", ""},
		{"content not an array", []toolcall.SeenCall{seen("a", `{"content":"boom","isError":true}`)}, true, conform.OutcomeViolation, "", ""},
		{"no text block", []toolcall.SeenCall{seen("a", `{"content":[{"type":"image","data":"","mimeType":"image/png"}],"isError":true}`)}, true, conform.OutcomeWarn, "", ""},
		{"empty content", []toolcall.SeenCall{seen("a", `{"content":[],"isError":true}`)}, true, conform.OutcomeWarn, "", ""},
		// The skip says what would exercise the check, not an empty clause (issue 32).
		{"no fixture, nothing seen", []toolcall.SeenCall{seen("a", okText)}, false, conform.OutcomeSkip, reports.NeedsFixture, "list the fixture tool test_error_handling"},
		{"fixture called, no isError", []toolcall.SeenCall{seen("a", okText)}, true, conform.OutcomeSkip, reports.NotExercised, "fixture"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fixture := ""
			if tc.called {
				fixture = "fixture"
			}
			got := judgeIsErrorContent(tc.calls, tc.called, fixture)
			if got.Outcome() != tc.want || got.Reason != tc.reason || !strings.Contains(got.Message, tc.says) || strings.HasSuffix(got.Message, "; ") {
				t.Errorf("got kind %s/%s (%s)", got.Outcome(), got.Reason, got.Message)
			}
		})
	}
}

func TestJudgeIsErrorStruct(t *testing.T) {
	schemas := map[string]json.RawMessage{"w": json.RawMessage(`{"type":"object","properties":{"t":{"type":"number"}},"required":["t"]}`)}
	tests := []struct {
		name  string
		calls []toolcall.SeenCall
		want  conform.Outcome
		msg   string
	}{
		{"none", []toolcall.SeenCall{seen("w", okText), seen("x", isErrText)}, conform.OutcomeSkip, ""},
		{"isError without structuredContent", []toolcall.SeenCall{seen("w", isErrText)}, conform.OutcomeNote, "no structuredContent"},
		{"isError with non-conforming structuredContent", []toolcall.SeenCall{seen("w", `{"content":[{"type":"text","text":"boom"}],"isError":true,"structuredContent":{"t":"hot"}}`)}, conform.OutcomeNote, "does not conform"},
		{"isError with conforming structuredContent", []toolcall.SeenCall{seen("w", `{"content":[{"type":"text","text":"boom"}],"isError":true,"structuredContent":{"t":1}}`)}, conform.OutcomeNote, "conforms"},
		{"isError without a text block warns", []toolcall.SeenCall{seen("w", `{"content":[],"isError":true,"structuredContent":{"t":1}}`)}, conform.OutcomeWarn, "no text block"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := judgeIsErrorStruct(tc.calls, schemas, revision.Draft07)
			if got.Outcome() != tc.want || !strings.Contains(got.Message, tc.msg) {
				t.Errorf("got kind %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}

// In 2026-07-28 an InputRequiredResult asks for input: it reports no failure.
func TestExecInResultInputRequired(t *testing.T) {
	ir := result(`{"resultType":"input_required","inputRequests":{"n":{"method":"elicitation/create","params":{}}},"requestState":"s1"}`).InEra(true)
	if got := judgeExecInResult(ir); got.Outcome() != conform.OutcomeViolation {
		t.Errorf("got kind %s (%s), want a violation", got.Outcome(), got.Message)
	}
}

func TestJudgeNotDeclared(t *testing.T) {
	probe := func(r toolcall.Reply) toolcall.Probe {
		return toolcall.Probe{Label: "prompts/list (no prompts capability)", R: r}
	}
	tests := []struct {
		name   string
		probes []toolcall.Probe
		want   conform.Outcome
	}{
		{"-32601 passes", []toolcall.Probe{probe(rpcErr(-32601)), probe(rpcErr(-32601))}, conform.OutcomePass},
		{"a result is a violation", []toolcall.Probe{probe(rpcErr(-32601)), probe(result(`{"prompts":[]}`))}, conform.OutcomeViolation},
		{"another code is a violation", []toolcall.Probe{probe(rpcErr(-32603))}, conform.OutcomeViolation},
		{"silence", []toolcall.Probe{probe(none(errClosed))}, conform.OutcomeSilence},
		{"everything declared", nil, conform.OutcomeSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeNotDeclared(tc.probes); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}

// ERR-NOTDECLARED-01 on scripted servers: the default one declares only tools and
// answers anything else with -32601.
func TestNotDeclaredVerdicts(t *testing.T) {
	serving := func() *conformtest.Server {
		return conformtest.NewServer().Handle("prompts/list", conformtest.Reply(`{"prompts":[]}`))
	}
	allDeclared := func() *conformtest.Server {
		srv := conformtest.NewServer()
		srv.Capabilities = `{"tools":{},"prompts":{},"resources":{},"logging":{},"completions":{}}`
		return srv
	}
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "-32601 passes", ID: "ERR-NOTDECLARED-01", Rev: "2025-06-18", Srv: conformtest.NewServer, Want: reports.Pass, Contains: "completion/complete"},
		{Name: "-32601 in 2026-07-28 passes", ID: "ERR-NOTDECLARED-01", Rev: "2026-07-28", Srv: func() *conformtest.Server { return conformtest.Modern(conformtest.NewServer()) }, Want: reports.Pass, Contains: "prompts/list"},
		{Name: "undeclared prompts served warns", ID: "ERR-NOTDECLARED-01", Rev: "2024-11-05", Srv: serving, Want: reports.Warn, Contains: "prompts/list"},
		{Name: "every capability declared is not applicable", ID: "ERR-NOTDECLARED-01", Rev: "2025-03-26", Srv: allDeclared, Want: reports.Skip, Reason: reports.NotApplicable},
	})
}

// logging/setLevel is gone in 2026-07-28: it is not probed there.
func TestNotDeclaredModernSkipsSetLevel(t *testing.T) {
	v := conformtest.Judge(t, "ERR-NOTDECLARED-01", "2026-07-28", conformtest.Modern(conformtest.NewServer()))
	if v.Status != reports.Pass || strings.Contains(v.Message, "logging/setLevel") {
		t.Errorf("got %s: %s", v.Status, v.Message)
	}
}
