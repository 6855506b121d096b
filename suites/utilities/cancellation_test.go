package utilities

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
)

// lsObs builds an observed session from scripted traffic.
var lsObs = subscribe.MustObservedOf

// CANCEL-R5-SERVER-01 over scripted traffic: a server's notifications/cancelled
// only tears down a subscription it opened.
func TestJudgeCancel(t *testing.T) {
	sub := []wire.ID{wire.NumberID(7)}
	ack := conformtest.Notification(conform.MethodAcknowledged, `{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`)
	cases := []struct {
		name string
		obs  func(t *testing.T) []subscribe.Observed
		want conform.Outcome
	}{
		{"none is not exercised", func(t *testing.T) []subscribe.Observed { return []subscribe.Observed{lsObs(t, sub, ack)} }, conform.OutcomeSkip},
		{"tearing down the subscription passes", func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{"requestId":7}`))}
		}, conform.OutcomePass},
		{"the id as a string is another request and fails", func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{"requestId":"7"}`))}
		}, conform.OutcomeViolation},
		{"another request fails", func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{"requestId":9}`))}
		}, conform.OutcomeViolation},
		{"no requestId fails", func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{}`))}
		}, conform.OutcomeViolation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := lsJudgeCancel(tc.obs(t))
			if got := v.Outcome(); got != tc.want {
				t.Fatalf("outcome %s, want %s (%s)", got, tc.want, v.Message)
			}
		})
	}
}

// cnSlowServer lists test_slow and test_last_cancellation. test_slow answers
// nothing at once (slow, or later when given); the cancellation of it is recorded,
// and answered with onCancel's messages; test_last_cancellation names the recorded
// id when record is set, else "none".
func cnSlowServer(slow func(req *wire.Message) []string, record bool, onCancel func(slowReq *wire.Message) []string) func() *conformtest.Server {
	return cnScripted(cnScript{slow: slow, record: record, onCancel: onCancel})
}

// cnScript is what cnScripted's server does: cnSlowServer's arguments, and what
// test_last_cancellation sends after its reply (afterLast, given test_slow's request).
type cnScript struct {
	slow      func(req *wire.Message) []string
	record    bool
	onCancel  func(slowReq *wire.Message) []string
	afterLast func(slowReq *wire.Message) []string
}

// cnScripted is cnSlowServer with every part of the script given.
func cnScripted(sc cnScript) func() *conformtest.Server {
	slow, record, onCancel := sc.slow, sc.record, sc.onCancel
	return func() *conformtest.Server {
		var mu sync.Mutex
		var slowReq *wire.Message
		last := "none"
		srv := conformtest.ServeTools(map[string]conformtest.Tool{
			cnSlowFixture: {Reply: func(req *wire.Message) []string {
				mu.Lock()
				slowReq = req
				mu.Unlock()
				if slow == nil {
					return nil
				}
				return slow(req)
			}},
			cnLastFixture: {Reply: func(req *wire.Message) []string {
				mu.Lock()
				defer mu.Unlock()
				out := []string{conformtest.Result(req, fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, last))}
				if sc.afterLast != nil && slowReq != nil {
					out = append(out, sc.afterLast(slowReq)...)
				}
				return out
			}},
		})
		srv.Handle(cnMethod, func(n *wire.Message) []string {
			mu.Lock()
			defer mu.Unlock()
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(n.Params, &p)
			if slowReq == nil || string(p.RequestID) != string(slowReq.ID.Raw()) {
				return nil
			}
			if record {
				last = string(slowReq.ID.Raw())
			}
			if onCancel != nil {
				return onCancel(slowReq)
			}
			return nil
		})
		return srv
	}
}

func TestCancelInflightVerdicts(t *testing.T) {
	answer := func(req *wire.Message) []string {
		return []string{conformtest.Result(req, conformtest.Content(conformtest.TextBlock))}
	}
	later := func(req *wire.Message) []string {
		return []string{conformtest.Later(800*time.Millisecond, conformtest.Result(req, conformtest.Content(conformtest.TextBlock)))}
	}
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "cancelled and silent passes", ID: "CANCEL-INFLIGHT-01", Rev: "2025-06-18", Srv: cnSlowServer(nil, true, nil), Want: reports.Pass, Contains: "proven by the barrier"},
		{Name: "R5 stdio cancelled and silent passes", ID: "CANCEL-INFLIGHT-01", Rev: "2026-07-28", Srv: func() *conformtest.Server { return conformtest.Modern(cnSlowServer(nil, true, nil)()) }, Want: reports.Pass},
		{Name: "answered on the cancellation warns", ID: "CANCEL-INFLIGHT-01", Rev: "2024-11-05", Srv: cnSlowServer(nil, true, answer), Want: reports.Warn, Contains: "after its cancellation"},
		{Name: "ignored and answered later warns", ID: "CANCEL-INFLIGHT-01", Rev: "2025-11-25", Srv: cnSlowServer(later, false, nil), Want: reports.Warn, Contains: "said none"},
		{Name: "unreported and never answered is an error", ID: "CANCEL-INFLIGHT-01", Rev: "2025-11-25", Srv: cnSlowServer(nil, false, nil), Want: reports.Error, Contains: "does not name"},
		{Name: "answered before the cancellation is an error", ID: "CANCEL-INFLIGHT-01", Rev: "2025-03-26", Srv: cnSlowServer(answer, true, nil), Want: reports.Error, Contains: "before it was cancelled"},
		{Name: "no fixture needs the fixture", ID: "CANCEL-INFLIGHT-01", Rev: "2025-06-18", Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NeedsFixture, Contains: cnSlowFixture},
	})
}

// cnProgressOf is a progress notification for the token of test_slow's request.
func cnProgressOf(req *wire.Message, progress int) string {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return conformtest.Notification(ctProgressMethod, fmt.Sprintf(`{"progressToken":%s,"progress":%d}`, p.Meta.Token, progress))
}

// STDIO-CANCEL-R5-01 from CANCEL-INFLIGHT-01's probe, over the scripted stdio
// transport of 2026-07-28.
func TestStdioCancelVerdicts(t *testing.T) {
	r5 := func(sc cnScript) func() *conformtest.Server {
		return func() *conformtest.Server { return conformtest.Modern(cnScripted(sc)()) }
	}
	starts := func(req *wire.Message) []string { return []string{cnProgressOf(req, 0)} }
	progress := func(req *wire.Message) []string { return []string{cnProgressOf(req, 1)} }
	answer := func(req *wire.Message) []string {
		return []string{conformtest.Result(req, conformtest.Content(conformtest.TextBlock))}
	}
	later := func(req *wire.Message) []string {
		return []string{cnProgressOf(req, 0), conformtest.Later(800*time.Millisecond, conformtest.Result(req, conformtest.Content(conformtest.TextBlock)))}
	}
	const id = "STDIO-CANCEL-R5-01"
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "cancelled and silent passes", ID: id, Rev: r5Rev, Srv: r5(cnScript{slow: starts, record: true}), Want: reports.Pass, Contains: "no response and no progress"},
		{Name: "progress that may have crossed the cancellation is a note", ID: id, Rev: r5Rev, Srv: r5(cnScript{slow: starts, record: true, onCancel: progress}), Want: reports.Pass, Contains: "may have crossed"},
		{Name: "progress after a later request's reply fails", ID: id, Rev: r5Rev, Srv: r5(cnScript{slow: starts, record: true, afterLast: progress}), Want: reports.Fail, Contains: "after the server answered a request sent after the cancellation"},
		{Name: "answered on the cancellation fails", ID: id, Rev: r5Rev, Srv: r5(cnScript{slow: starts, record: true, onCancel: answer}), Want: reports.Fail, Contains: "answers the cancelled"},
		{Name: "ignored and answered later fails", ID: id, Rev: r5Rev, Srv: r5(cnScript{slow: later}), Want: reports.Fail, Contains: "answers the cancelled"},
		{Name: "unreported and silent passes", ID: id, Rev: r5Rev, Srv: r5(cnScript{slow: starts}), Want: reports.Pass, Contains: "did not name it"},
		{Name: "answered before the cancellation is an error", ID: id, Rev: r5Rev, Srv: r5(cnScript{slow: answer, record: true}), Want: reports.Error, Contains: "before it was cancelled"},
		{Name: "no fixture needs the fixture", ID: id, Rev: r5Rev, Srv: func() *conformtest.Server { return conformtest.Modern(conformtest.NewServer()) }, Want: reports.Skip, Reason: reports.NeedsFixture, Contains: cnSlowFixture},
	})
}

// r5Rev is the stateless revision.
const r5Rev = "2026-07-28"

func TestCancelIgnoreVerdicts(t *testing.T) {
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "ignored passes", ID: "CANCEL-IGNORE-01", Rev: "2025-06-18", Srv: conformtest.NewServer, Want: reports.Pass, Contains: "no requestId"},
		{Name: "R5 ignored passes", ID: "CANCEL-IGNORE-01", Rev: "2026-07-28", Srv: func() *conformtest.Server { return conformtest.Modern(conformtest.NewServer()) }, Want: reports.Pass},
		{Name: "an error reply warns", ID: "CANCEL-IGNORE-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return conformtest.NewServer().Handle(cnMethod, func(*wire.Message) []string {
				return []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"unknown request"}}`}
			})
		}, Want: reports.Warn, Contains: "-32602"},
		{Name: "an HTTP refusal warns", ID: "CANCEL-IGNORE-01", Rev: "2025-11-25", Srv: func() *conformtest.Server {
			return conformtest.NewServer().Handle(cnMethod, func(*wire.Message) []string { return []string{conformtest.HTTPError(400, "")} })
		}, Want: reports.Warn, Contains: "HTTP 400"},
		{Name: "silence after the cancellations warns", ID: "CANCEL-IGNORE-01", Rev: "2025-03-26", Srv: func() *conformtest.Server {
			n := 0
			return conformtest.NewServer().Handle("ping", func(req *wire.Message) []string {
				if n++; n > 1 {
					return nil // the server stopped serving after the cancellations
				}
				return []string{conformtest.Result(req, `{}`)}
			})
		}, Want: reports.Warn, Contains: "after the cancellations"},
	})
}

func TestCancelDirectionVerdicts(t *testing.T) {
	// The kept session's barrier ping carries what the server sends.
	pingSends := func(extra func(req *wire.Message) []string) func() *conformtest.Server {
		return func() *conformtest.Server {
			return conformtest.NewServer().Handle("ping", func(req *wire.Message) []string {
				return append(extra(req), conformtest.Result(req, `{}`))
			})
		}
	}
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "its own request passes", ID: "CANCEL-DIRECTION-01", Rev: "2025-06-18", Srv: pingSends(func(*wire.Message) []string {
			return []string{`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`, conformtest.Notification(cnMethod, `{"requestId":"srv-1"}`)}
		}), Want: reports.Pass},
		{Name: "the client's request fails", ID: "CANCEL-DIRECTION-01", Rev: "2025-11-25", Srv: pingSends(func(req *wire.Message) []string {
			return []string{conformtest.Notification(cnMethod, fmt.Sprintf(`{"requestId":%s}`, req.ID.Raw()))}
		}), Want: reports.Fail, Contains: "wrong direction"},
		{Name: "an unknown request fails", ID: "CANCEL-DIRECTION-01", Rev: "2024-11-05", Srv: pingSends(func(*wire.Message) []string {
			return []string{conformtest.Notification(cnMethod, `{"requestId":"who-knows"}`)}
		}), Want: reports.Fail, Contains: "who-knows"},
		{Name: "none is not exercised", ID: "CANCEL-DIRECTION-01", Rev: "2025-03-26", Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NotExercised},
	})
}
