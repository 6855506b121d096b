package base

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall/toolcalltest"
)

func TestJudgeErrCodes(t *testing.T) {
	tests := []struct {
		name string
		seen []seenCode
		want conform.Outcome
	}{
		{"standard codes pass", []seenCode{{code: -32601, method: "x/unknown"}, {code: -32602, method: "tools/list", wellFormed: true}, {code: -32000}, {code: -32099}}, conform.OutcomePass},
		{"a code reserved for future use fails", []seenCode{{code: -32650}}, conform.OutcomeViolation},
		{"-32768 fails", []seenCode{{code: -32768}}, conform.OutcomeViolation},
		{"an application code passes", []seenCode{{code: -31999}, {code: 1}}, conform.OutcomePass},
		{"-32700 for a well-formed request fails", []seenCode{{code: -32700, method: "ping", wellFormed: true}}, conform.OutcomeViolation},
		{"-32700 answering nothing passes", []seenCode{{code: -32700}}, conform.OutcomePass},
		{"-32601 for a method the session served fails", []seenCode{{code: -32601, method: "resources/list", served: true}}, conform.OutcomeViolation},
		{"-32601 for tools/call is the TOOLS-CALL rows'", []seenCode{{code: -32601, method: "tools/call", served: true}}, conform.OutcomePass},
		{"no error is not exercised", nil, conform.OutcomeSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeErrCodes(tc.seen); got.Outcome() != tc.want {
				t.Errorf("got %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}

// sessionCodes pairs each error with its request: whether the request was
// well-formed JSON and whether its method got a result in the session.
func TestSessionCodes(t *testing.T) {
	entry := func(dir wire.Direction, raw, forMethod string) wire.Entry {
		m, err := wire.Decode([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return wire.Entry{Dir: dir, Raw: []byte(raw), Msg: m, ForMethod: forMethod}
	}
	entries := []wire.Entry{
		entry(wire.Sent, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, ""),
		entry(wire.Received, `{"jsonrpc":"2.0","id":1,"result":{"resources":[]}}`, "resources/list"),
		entry(wire.Sent, `{"jsonrpc":"2.0","id":2,"method":"resources/list"}`, ""),
		entry(wire.Received, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"m"}}`, "resources/list"),
		entry(wire.Sent, `{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`, ""),
		entry(wire.Received, `{"jsonrpc":"2.0","id":3,"error":{"code":-32700,"message":"m"}}`, "prompts/list"),
		entry(wire.Received, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, ""),
	}
	got := sessionCodes(&conform.Session{Label: "s"}, entries)
	want := []seenCode{
		{code: -32601, method: "resources/list", wellFormed: true, served: true},
		{code: -32700, method: "prompts/list", wellFormed: true},
		{code: -32700},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		got[i].where = ""
		if got[i] != want[i] {
			t.Errorf("error %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// BASE-ERR-CODES-01 on a scripted server: an error with a code JSON-RPC reserves
// without a meaning, next to the ordinary replies.
func TestErrCodesVerdicts(t *testing.T) {
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "-32600 passes", ID: "BASE-ERR-CODES-01", Rev: "2025-06-18", Srv: envelopeServer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}`), Want: reports.Pass},
		{Name: "-32650 fails", ID: "BASE-ERR-CODES-01", Rev: "2024-11-05", Srv: envelopeServer(`{"jsonrpc":"2.0","id":null,"error":{"code":-32650,"message":"m"}}`), Want: reports.Fail, Contains: "-32650"},
		{Name: "no error is not exercised", ID: "BASE-ERR-CODES-01", Rev: "2025-11-25", Srv: envelopeServer(), Want: reports.Skip, Reason: reports.NotExercised},
	})
}

func TestJudgeReusedID(t *testing.T) {
	tests := []struct {
		name string
		r    toolcall.Reply
		want conform.Outcome
	}{
		{"served", toolcalltest.Result(`{"resultType":"complete"}`), conform.OutcomePass},
		{"refused", toolcalltest.RPCError(-32600), conform.OutcomeViolation},
		{"silence", toolcalltest.None(toolcalltest.ErrTimeout), conform.OutcomeSilence},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeReusedID("server/discover", wire.NumberID(3), tc.r); got.Outcome() != tc.want {
				t.Errorf("got %s (%s)", got.Outcome(), got.Message)
			}
		})
	}
}

// BASE-REQID-INFLIGHT-01 on scripted 2026-07-28 servers: one serves every request,
// one refuses an id it has answered before.
func TestReusedIDVerdicts(t *testing.T) {
	refusing := func() *conformtest.Server {
		srv := conformtest.Modern(conformtest.NewServer())
		seen := map[string]bool{}
		discover := `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private"}`
		srv.Handle("server/discover", func(req *wire.Message) []string {
			if seen[req.ID.Key()] {
				return []string{conformtest.Error(req, wire.CodeInvalidRequest, "id used before")}
			}
			seen[req.ID.Key()] = true
			return []string{conformtest.Result(req, discover)}
		})
		return srv
	}
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "served passes", ID: "BASE-REQID-INFLIGHT-01", Rev: "2026-07-28", Srv: func() *conformtest.Server { return conformtest.Modern(conformtest.NewServer()) }, Want: reports.Pass},
		{Name: "refused warns", ID: "BASE-REQID-INFLIGHT-01", Rev: "2026-07-28", Srv: refusing, Want: reports.Warn, Contains: "-32600"},
	})
}
