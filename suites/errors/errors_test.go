package errorhandling

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
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
	}{
		{"text block", []toolcall.SeenCall{seen("a", isErrText), seen("b", okText)}, true, conform.OutcomePass, ""},
		{"no content", []toolcall.SeenCall{seen("a", `{"isError":true}`)}, true, conform.OutcomeViolation, ""},
		{"content not an array", []toolcall.SeenCall{seen("a", `{"content":"boom","isError":true}`)}, true, conform.OutcomeViolation, ""},
		{"no text block", []toolcall.SeenCall{seen("a", `{"content":[{"type":"image","data":"","mimeType":"image/png"}],"isError":true}`)}, true, conform.OutcomeWarn, ""},
		{"empty content", []toolcall.SeenCall{seen("a", `{"content":[],"isError":true}`)}, true, conform.OutcomeWarn, ""},
		{"no fixture, nothing seen", []toolcall.SeenCall{seen("a", okText)}, false, conform.OutcomeSkip, reports.NeedsFixture},
		{"fixture called, no isError", []toolcall.SeenCall{seen("a", okText)}, true, conform.OutcomeSkip, reports.NotExercised},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := judgeIsErrorContent(tc.calls, tc.called, "fixture")
			if got.Outcome() != tc.want || got.Reason != tc.reason {
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
