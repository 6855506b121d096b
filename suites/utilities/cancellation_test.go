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
				return []string{conformtest.Result(req, fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, last))}
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
