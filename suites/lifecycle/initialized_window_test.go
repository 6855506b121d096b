package lifecycle

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// TestInitializedWindow: the window after notifications/initialized closes at the
// first reply a call claims; odd input sent in it leaves it open, the suite's own
// answer to a server request does not.
func TestInitializedWindow(t *testing.T) {
	msg := func(raw string) *wire.Message {
		m, err := wire.Decode([]byte(raw))
		if err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		return m
	}
	initialized := wire.Entry{Dir: wire.Sent, Msg: msg(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)}
	serverReq := wire.Entry{Dir: wire.Received, Msg: msg(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}`)}
	ourAnswer := wire.Entry{Dir: wire.Sent, Msg: msg(`{"jsonrpc":"2.0","id":"s1","error":{"code":-32601,"message":"no sampling"}}`)}
	oddInput := wire.Entry{Dir: wire.Sent, Msg: msg(`{"jsonrpc":"1.0","id":9,"method":"ping"}`)}
	claimed := wire.Entry{Dir: wire.Received, Msg: msg(`{"jsonrpc":"2.0","id":2,"result":{}}`), ForMethod: "ping"}
	stray := wire.Entry{Dir: wire.Received, Msg: msg(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`)}
	tests := []struct {
		name    string
		entries []wire.Entry
		want    initializedWindow
		failed  bool
	}{
		{"no initialized sent", []wire.Entry{claimed}, initializedNone, false},
		{"closed by a claimed reply", []wire.Entry{initialized, claimed}, initializedJudged, false},
		{"the suite's answer to a server request keeps it judgeable", []wire.Entry{initialized, serverReq, ourAnswer, claimed}, initializedJudged, false},
		{"odd input leaves it open", []wire.Entry{initialized, oddInput, claimed}, initializedOpen, false},
		{"a stray reply in the window fails", []wire.Entry{initialized, stray, claimed}, initializedJudged, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f conform.Findings
			if got := judgeInitialized("s", tt.entries, &f); got != tt.want || f.Failed() != tt.failed {
				t.Errorf("window %v, failed %v; want %v, %v", got, f.Failed(), tt.want, tt.failed)
			}
		})
	}
}
