package base

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall/toolcalltest"
)

func TestJudgeInvalidParams(t *testing.T) {
	ok := toolcalltest.RPCError(-32602)
	tests := []struct {
		name string
		abc  toolcall.Reply
		cur  toolcall.Reply
		want conform.Outcome
	}{
		{"both -32602", ok, ok, conform.OutcomePass},
		{"-32600 for a string params is allowed", toolcalltest.RPCError(-32600), ok, conform.OutcomeNote},
		{"-32600 for cursor 5 fails", ok, toolcalltest.RPCError(-32600), conform.OutcomeViolation},
		{"params ignored", toolcalltest.Result(`{"tools":[]}`), ok, conform.OutcomeViolation},
		{"cursor 5 ignored", ok, toolcalltest.Result(`{"tools":[]}`), conform.OutcomeViolation},
		{"internal error", ok, toolcalltest.RPCError(-32603), conform.OutcomeViolation},
		{"silence", toolcalltest.None(toolcalltest.ErrTimeout), ok, conform.OutcomeSilence},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeInvalidParams([]toolcall.Probe{{Label: "abc", R: tc.abc}, {Label: "cursor 5", R: tc.cur}}); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}
