package base

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall/toolcalltest"
	_ "github.com/mcp-conform/mcp-conform/suites/utilities" // CANCEL-IGNORE-01, probed beside BASE-NULL-ID-01
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

// envelopeServer answers ping (the barrier before the transcript checks) with {},
// preceded by extra: the messages under test.
func envelopeServer(extra ...string) func() *conformtest.Server {
	return func() *conformtest.Server {
		srv := conformtest.NewServer()
		srv.Handle("ping", func(req *wire.Message) []string {
			return append(append([]string(nil), extra...), conformtest.Result(req, `{}`))
		})
		return srv
	}
}

// The envelope rules, judged on whatever the server sent: each case sends one
// message that breaks (or keeps) a rule, next to the ordinary replies.
func TestEnvelopeVerdicts(t *testing.T) {
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "2.0 everywhere passes", ID: "BASE-JSONRPC-VERSION-01", Rev: "2025-06-18", Srv: envelopeServer(note), Want: reports.Pass},
		{Name: "jsonrpc 1.0 fails", ID: "BASE-JSONRPC-VERSION-01", Rev: "2025-06-18", Srv: envelopeServer(strings.Replace(note, `"2.0"`, `"1.0"`, 1)), Want: reports.Fail, Contains: `jsonrpc "1.0"`},
		{Name: "no jsonrpc fails", ID: "BASE-JSONRPC-VERSION-01", Rev: "2024-11-05", Srv: envelopeServer(`{"method":"notifications/message","params":{}}`), Want: reports.Fail, Contains: "no jsonrpc member"},
		{Name: "a notification without id passes", ID: "BASE-NOTIF-NOID-01", Rev: "2025-11-25", Srv: envelopeServer(note), Want: reports.Pass},
		{Name: "no notification is not exercised", ID: "BASE-NOTIF-NOID-01", Rev: "2025-11-25", Srv: envelopeServer(), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "a notification with an id fails", ID: "BASE-NOTIF-NOID-01", Rev: "2025-11-25", Srv: envelopeServer(`{"jsonrpc":"2.0","id":9,"method":"notifications/progress","params":{"progressToken":1,"progress":1}}`), Want: reports.Fail, Contains: "with id 9"},
		{Name: "a server request with a fresh id passes", ID: "BASE-SRVREQ-ID-01", Rev: "2025-06-18", Srv: envelopeServer(`{"jsonrpc":"2.0","id":"s-1","method":"ping"}`), Want: reports.Pass},
		{Name: "no server request is not exercised", ID: "BASE-SRVREQ-ID-01", Rev: "2025-06-18", Srv: envelopeServer(), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "a null id fails", ID: "BASE-SRVREQ-ID-01", Rev: "2025-06-18", Srv: envelopeServer(`{"jsonrpc":"2.0","id":null,"method":"ping"}`), Want: reports.Fail, Contains: "id null"},
		{Name: "a reused id fails", ID: "BASE-SRVREQ-ID-01", Rev: "2024-11-05", Srv: envelopeServer(`{"jsonrpc":"2.0","id":"s-1","method":"ping"}`, `{"jsonrpc":"2.0","id":"s-1","method":"ping"}`), Want: reports.Fail, Contains: "reuses id"},
		{Name: "results and errors apart pass", ID: "BASE-RESP-EXCL-01", Rev: "2025-03-26", Srv: envelopeServer(), Want: reports.Pass},
		{Name: "both members fail", ID: "BASE-RESP-EXCL-01", Rev: "2025-03-26", Srv: envelopeServer(`{"jsonrpc":"2.0","id":4242,"result":{},"error":{"code":-32603,"message":"x"}}`), Want: reports.Fail, Contains: "both result and error"},
		{Name: "neither member fails", ID: "BASE-RESP-EXCL-01", Rev: "2025-03-26", Srv: envelopeServer(`{"jsonrpc":"2.0","id":4242}`), Want: reports.Fail, Contains: "neither"},
		{Name: "a well-formed error passes", ID: "BASE-ERR-SHAPE-01", Rev: "2025-06-18", Srv: envelopeServer(`{"jsonrpc":"2.0","id":4242,"error":{"code":-32601,"message":"x","data":{}}}`), Want: reports.Pass},
		{Name: "no error is not exercised", ID: "BASE-ERR-SHAPE-01", Rev: "2025-06-18", Srv: envelopeServer(), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "a string code fails", ID: "BASE-ERR-SHAPE-01", Rev: "2025-06-18", Srv: envelopeServer(`{"jsonrpc":"2.0","id":4242,"error":{"code":"-32601","message":"x"}}`), Want: reports.Fail, Contains: "is not an integer"},
		{Name: "a fractional code fails", ID: "BASE-ERR-SHAPE-01", Rev: "2025-06-18", Srv: envelopeServer(`{"jsonrpc":"2.0","id":4242,"error":{"code":-32601.5,"message":"x"}}`), Want: reports.Fail, Contains: "is not an integer"},
		{Name: "no message fails", ID: "BASE-ERR-SHAPE-01", Rev: "2025-11-25", Srv: envelopeServer(`{"jsonrpc":"2.0","id":4242,"error":{"code":-32601}}`), Want: reports.Fail, Contains: "no message"},
	})
}

// A refusal of the null-id request that trails the barrier's reply, as from a server
// that answers pipelined requests out of order, is the probe's as long as it comes
// within the grace: the column's settle waits the grace out after the probe, and
// CANCEL-IGNORE-01's stray notifications, probed on the same session, do not take
// it for a reply to them. Past the grace it is silence (a WARN, as before).
func TestNullIDRefusalTrailingTheBarrier(t *testing.T) {
	refusal := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id must not be null"}}`
	for _, tc := range []struct {
		name  string
		delay time.Duration
		want  reports.Status
	}{
		{"at once", 0, reports.Pass},
		{"within the grace", wire.BarrierGrace / 2, reports.Pass},
		{"past the grace", 3 * wire.BarrierGrace, reports.Warn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			srv.Handle("tools/list", func(req *wire.Message) []string {
				if req.ID.IsNull() {
					return []string{conformtest.Later(tc.delay, refusal)}
				}
				return []string{conformtest.Result(req, `{"tools":[]}`)}
			})
			vs := conformtest.JudgeAll(t, []string{"BASE-NULL-ID-01", "CANCEL-IGNORE-01"}, "2025-06-18", srv)
			if vs[0].Status != tc.want {
				t.Errorf("BASE-NULL-ID-01 = %s (%s), want %s", vs[0].Status, vs[0].Message, tc.want)
			}
			if vs[1].Status != reports.Pass {
				t.Errorf("CANCEL-IGNORE-01 = %s (%s), want pass: the refusal is not a reply to its notifications", vs[1].Status, vs[1].Message)
			}
		})
	}
}

// BASE-INVALID-REQ-01's "jsonrpc":"1.0" probe to a 2026-07-28 server carries the _meta
// every request of that revision must (basic/index.mdx): a server that checks _meta
// before the version (mcp-grafana: -32602 for a request without it) answered a probe
// that was wrong twice, and its -32602 was read as the wrong code for a bad version.
func TestInvalidRequestProbeCarriesModernMeta(t *testing.T) {
	invalid := func(req *wire.Message) []string {
		return []string{conformtest.Error(req, wire.CodeInvalidRequest, "invalid request")}
	}
	srv := conformtest.NewServer().Handle("", invalid)
	srv.Handle("server/discover", func(req *wire.Message) []string {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(req.Params, &p)
		switch {
		case p.Meta[conform.MetaProtocolVersion] == nil || p.Meta[conform.MetaClientCapabilities] == nil:
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "missing _meta")}
		case req.JSONRPC != "2.0":
			return invalid(req)
		}
		return []string{conformtest.Result(req, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}`)}
	})
	v := conformtest.Judge(t, "BASE-INVALID-REQ-01", "2026-07-28", srv)
	if v.Status != reports.Pass {
		t.Errorf("BASE-INVALID-REQ-01 = %s (%s), want pass", v.Status, v.Message)
	}
}

// BASE-INVALID-REQ-01 makes its three probes at once over stdio (toolkit.SendStrayEach)
// and reads each reply by its id; a reply with no probe's id sends the probes again
// one at a time, each in its own window. Either way a verdict reads as one at a time.
func TestInvalidRequestProbesAtOnce(t *testing.T) {
	refuse := func(req *wire.Message) string {
		return conformtest.Error(req, wire.CodeInvalidRequest, "invalid request")
	}
	nullRefusal := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`
	for _, tc := range []struct {
		name     string
		reply    func(req *wire.Message) []string // to each invalid request
		want     reports.Status
		contains string
	}{
		{"each refused by id passes", func(req *wire.Message) []string { return []string{refuse(req)} }, reports.Pass, "-32600 for each of"},
		{"each refused with a null id passes, read one at a time", func(*wire.Message) []string { return []string{nullRefusal} }, reports.Pass, "-32600 for each of"},
		{"silence fails", conformtest.Silent, reports.Fail, `"jsonrpc":"1.0": no reply; method 42: no reply`},
		{"a late refusal by id is still its probe's", func(req *wire.Message) []string {
			return []string{conformtest.Later(20*time.Millisecond, refuse(req))}
		}, reports.Pass, "-32600 for each of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			answerInvalidRequests(srv, tc.reply)
			v := conformtest.Judge(t, "BASE-INVALID-REQ-01", "2025-06-18", srv)
			if v.Status != tc.want || !strings.Contains(v.Message, tc.contains) {
				t.Errorf("BASE-INVALID-REQ-01 = %s (%s), want %s with %q", v.Status, v.Message, tc.want, tc.contains)
			}
		})
	}
}

// answerInvalidRequests makes srv answer BASE-INVALID-REQ-01's probes with reply:
// the "jsonrpc":"1.0" ping, and the objects with no method or a method that is no
// string (the scripted server's catch-all handler sees those); every other ping is
// answered as usual.
func answerInvalidRequests(srv *conformtest.Server, reply conformtest.Handler) {
	srv.Handle("ping", func(req *wire.Message) []string {
		if req.JSONRPC != "2.0" {
			return reply(req)
		}
		return []string{conformtest.Result(req, `{}`)}
	})
	srv.Handle("", func(req *wire.Message) []string {
		if req.Kind == wire.KindRequest || req.Problem != "" || !req.ID.IsZero() {
			return reply(req)
		}
		return nil
	})
}
