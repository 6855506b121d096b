package notifications

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// lsServer is a scripted 2026-07-28 server with subscriptions and a trigger tool.
// The zero value behaves correctly; each flag breaks one rule.
type lsServer struct {
	lsFlags
	mu     sync.Mutex
	on     bool
	listen []lsListen
	lists  int // tools/list requests answered
}

// lsFlags are the rules an lsServer breaks.
type lsFlags struct {
	noAck      bool   // no acknowledgement
	ackTag     string // the ack's _meta subscriptionId raw JSON ("" = the id, "-" = none)
	ackExtra   bool   // the ack honours a type not asked for
	lcUntagged bool   // list_changed without a tag
	lcWrongTag bool   // list_changed tagged with another id
	silent     bool   // no list_changed at all
	unfiltered bool   // list_changed to every subscription
	onCall     bool   // also an untagged list_changed on the call's stream
	refuse     bool   // subscriptions/listen is answered with an error
	caps       string // capabilities ("" = tools{listChanged:true})
	// debounced announces a change 50 ms after it, and a new subscription gets at once
	// the announcement of a change made before it (as go-sdk does, by 10 ms): a
	// correct server that the check must wait for.
	debounced bool
}

type lsListen struct {
	id    wire.ID
	tools bool
}

func (l *lsServer) server() *conformtest.Server {
	srv := conformtest.NewServer()
	caps := l.caps
	if caps == "" {
		caps = `{"tools":{"listChanged":true}}`
	}
	srv.Handle("server/discover", func(req *wire.Message) []string {
		return []string{conformtest.Result(req, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+caps+`,"ttlMs":0,"cacheScope":"public"}`)}
	})
	srv.Handle("tools/list", func(req *wire.Message) []string {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lists++
		tools := fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, toolkit.TriggerFixture)
		if l.on {
			tools += `,{"name":"test_dynamic_tool","inputSchema":{"type":"object"}}`
		}
		return []string{conformtest.Result(req, `{"resultType":"complete","tools":[`+tools+`]}`)}
	})
	srv.Handle("subscriptions/listen", func(req *wire.Message) []string {
		if l.refuse {
			return []string{conformtest.Error(req, wire.CodeMethodNotFound, "no subscriptions")}
		}
		var p struct {
			Notifications map[string]bool `json:"notifications"`
		}
		_ = json.Unmarshal(req.Params, &p)
		l.mu.Lock()
		l.listen = append(l.listen, lsListen{id: req.ID, tools: p.Notifications["toolsListChanged"]})
		l.mu.Unlock()
		if l.noAck {
			return nil
		}
		honoured := map[string]bool{}
		if p.Notifications["toolsListChanged"] {
			honoured["toolsListChanged"] = true
		}
		if l.ackExtra {
			honoured["resourcesListChanged"] = true
		}
		hb, _ := json.Marshal(honoured)
		tagged := `{"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(req.ID.Raw()) + `}}`
		meta := `,"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(req.ID.Raw()) + `}`
		switch l.ackTag {
		case "":
		case "-":
			meta = ""
		default:
			meta = `,"_meta":{"io.modelcontextprotocol/subscriptionId":` + l.ackTag + `}`
		}
		ack := conformtest.Notification("notifications/subscriptions/acknowledged", `{"notifications":`+string(hb)+meta+`}`)
		if l.debounced && p.Notifications["toolsListChanged"] {
			return []string{ack, conformtest.Notification(ctListChanged, tagged)}
		}
		return []string{ack}
	})
	srv.Handle("tools/call", func(req *wire.Message) []string {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.on = !l.on
		var out []string
		for _, s := range l.listen {
			if l.silent || !(s.tools || l.unfiltered) {
				continue
			}
			tag := string(s.id.Raw())
			switch {
			case l.lcUntagged:
				out = append(out, conformtest.Notification(ctListChanged, ""))
				continue
			case l.lcWrongTag:
				tag = `"other"`
			}
			lc := conformtest.Notification(ctListChanged, `{"_meta":{"io.modelcontextprotocol/subscriptionId":`+tag+`}}`)
			if l.debounced {
				lc = conformtest.Later(50*time.Millisecond, lc)
			}
			out = append(out, lc)
		}
		if l.onCall {
			out = append(out, conformtest.Notification(ctListChanged, `{}`))
		}
		return append(out, conformtest.Result(req, `{"resultType":"complete","content":[]}`))
	})
	return srv
}

func TestListenVerdicts(t *testing.T) {
	const r5 = "2026-07-28"
	srv := func(f lsFlags) func() *conformtest.Server {
		return func() *conformtest.Server { return (&lsServer{lsFlags: f}).server() }
	}
	noTrigger := func() *conformtest.Server {
		s := (&lsServer{}).server()
		s.Handle("tools/list", func(req *wire.Message) []string {
			return []string{conformtest.Result(req, `{"resultType":"complete","tools":[]}`)}
		})
		return s
	}
	// withLC makes server/discover bring a list_changed with these params first.
	withLC := func(params string) func() *conformtest.Server {
		return func() *conformtest.Server {
			s := (&lsServer{}).server()
			s.Handle("server/discover", func(req *wire.Message) []string {
				return []string{conformtest.Notification(ctListChanged, params),
					conformtest.Result(req, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"public"}`)}
			})
			return s
		}
	}
	cases := []conformtest.Case{
		// NOTIF-LC-SHAPE-01 in 2026-07-28: the tag is part of the shape.
		{Name: "tagged list_changed is valid", ID: "NOTIF-LC-SHAPE-01", Rev: r5, Srv: withLC(`{"_meta":{"io.modelcontextprotocol/subscriptionId":4}}`), Want: reports.Pass},
		{Name: "a tag that is no id fails", ID: "NOTIF-LC-SHAPE-01", Rev: r5, Srv: withLC(`{"_meta":{"io.modelcontextprotocol/subscriptionId":true}}`), Want: reports.Fail},

		// NOTIF-LISTEN-ACK-R5-01
		{Name: "tagged ack first passes", ID: "NOTIF-LISTEN-ACK-R5-01", Rev: r5, Srv: srv(lsFlags{}), Want: reports.Pass},
		{Name: "no ack fails", ID: "NOTIF-LISTEN-ACK-R5-01", Rev: r5, Srv: srv(lsFlags{noAck: true}), Want: reports.Fail, Contains: "no message of subscription"},
		{Name: "untagged ack fails", ID: "NOTIF-LISTEN-ACK-R5-01", Rev: r5, Srv: srv(lsFlags{ackTag: "-"}), Want: reports.Fail, Contains: "carries no _meta"},
		{Name: "ack tagged with another id fails", ID: "NOTIF-LISTEN-ACK-R5-01", Rev: r5, Srv: srv(lsFlags{ackTag: `"x"`}), Want: reports.Fail, Contains: "not the listen request's id"},
		{Name: "ack honouring more than asked fails", ID: "NOTIF-LISTEN-ACK-R5-01", Rev: r5, Srv: srv(lsFlags{ackExtra: true}), Want: reports.Fail, Contains: "resourcesListChanged"},
		{Name: "refused listen is not applicable", ID: "NOTIF-LISTEN-ACK-R5-01", Rev: r5, Srv: srv(lsFlags{refuse: true}), Want: reports.Skip, Reason: reports.NotApplicable},

		// NOTIF-LISTEN-TAG-R5-01
		{Name: "tagged ack and list_changed pass", ID: "NOTIF-LISTEN-TAG-R5-01", Rev: r5, Srv: srv(lsFlags{}), Want: reports.Pass, Contains: "2 messages"},
		{Name: "untagged list_changed fails", ID: "NOTIF-LISTEN-TAG-R5-01", Rev: r5, Srv: srv(lsFlags{lcUntagged: true}), Want: reports.Fail, Contains: "list_changed carries no _meta"},
		{Name: "untagged ack fails", ID: "NOTIF-LISTEN-TAG-R5-01", Rev: r5, Srv: srv(lsFlags{ackTag: "-"}), Want: reports.Fail},
		{Name: "no message is not exercised", ID: "NOTIF-LISTEN-TAG-R5-01", Rev: r5, Srv: srv(lsFlags{noAck: true, silent: true}), Want: reports.Skip, Reason: reports.NotExercised},

		// STDIO-SUBID-R5-01
		{Name: "two subscriptions each tagged pass", ID: "STDIO-SUBID-R5-01", Rev: r5, Srv: srv(lsFlags{}), Want: reports.Pass, Contains: "4 messages"},
		{Name: "wrong tag fails", ID: "STDIO-SUBID-R5-01", Rev: r5, Srv: srv(lsFlags{lcWrongTag: true}), Want: reports.Fail, Contains: `"other"`},
		{Name: "untagged fails", ID: "STDIO-SUBID-R5-01", Rev: r5, Srv: srv(lsFlags{ackTag: "-"}), Want: reports.Fail},

		// NOTIF-LISTEN-LC-R5-01
		{Name: "announced on the stream passes", ID: "NOTIF-LISTEN-LC-R5-01", Rev: r5, Srv: srv(lsFlags{}), Want: reports.Pass, Contains: "added test_dynamic_tool"},
		{Name: "silent change warns", ID: "NOTIF-LISTEN-LC-R5-01", Rev: r5, Srv: srv(lsFlags{silent: true}), Want: reports.Warn, Contains: "none by the time"},
		// An earlier change's announcement, on the new subscription before this change,
		// is not this change's: the check waits for the one that comes later.
		{Name: "debounced announcement passes", ID: "NOTIF-LISTEN-LC-R5-01", Rev: r5, Srv: srv(lsFlags{debounced: true}), Want: reports.Pass, Contains: "added test_dynamic_tool"},
		{Name: "a list_changed on the call's stream warns", ID: "NOTIF-LISTEN-LC-R5-01", Rev: r5, Srv: srv(lsFlags{onCall: true, silent: true}), Want: reports.Warn},
		{Name: "undeclared listChanged announced warns", ID: "NOTIF-LISTEN-LC-R5-01", Rev: r5, Srv: srv(lsFlags{caps: `{"tools":{}}`}), Want: reports.Warn, Contains: "is not true"},
		{Name: "undeclared listChanged and silent is not applicable", ID: "NOTIF-LISTEN-LC-R5-01", Rev: r5, Srv: srv(lsFlags{caps: `{"tools":{}}`, silent: true}), Want: reports.Skip, Reason: reports.NotApplicable, Contains: "none came"},
		{Name: "no tools capability is not applicable", ID: "NOTIF-LISTEN-LC-R5-01", Rev: r5, Srv: srv(lsFlags{caps: `{}`}), Want: reports.Skip, Reason: reports.NotApplicable, Contains: "no tools capability"},
		{Name: "no trigger needs the fixture", ID: "NOTIF-LISTEN-LC-R5-01", Rev: r5, Srv: noTrigger, Want: reports.Skip, Reason: reports.NeedsFixture},

		// NOTIF-LISTEN-FILTER-R5-01
		{Name: "nothing unrequested passes", ID: "NOTIF-LISTEN-FILTER-R5-01", Rev: r5, Srv: srv(lsFlags{}), Want: reports.Pass},
		{Name: "unrequested list_changed fails", ID: "NOTIF-LISTEN-FILTER-R5-01", Rev: r5, Srv: srv(lsFlags{unfiltered: true}), Want: reports.Fail, Contains: "promptsListChanged only"},
		{Name: "no trigger needs the fixture", ID: "NOTIF-LISTEN-FILTER-R5-01", Rev: r5, Srv: noTrigger, Want: reports.Skip, Reason: reports.NeedsFixture},
	}
	conformtest.RunCases(t, cases)
}

// lsObs builds an observed session from scripted traffic.
var lsObs = subscribe.MustObservedOf

func TestListenObservedVerdicts(t *testing.T) {
	sub := []wire.ID{wire.NumberID(7)}
	tag := func(method, extra string) string {
		return conformtest.Notification(method, `{`+extra+`"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`)
	}
	ack := tag(conformtestAck, `"notifications":{},`)
	cases := []struct {
		name  string
		judge func([]subscribe.Observed) conform.Verdict
		obs   func(t *testing.T) []subscribe.Observed
		want  conform.Outcome
	}{
		{"scope: ack only passes", lsJudgeScope, func(t *testing.T) []subscribe.Observed { return []subscribe.Observed{lsObs(t, sub, ack)} }, conform.OutcomePass},
		{"scope: tagged message fails (stdio)", lsJudgeScope, func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, ack, tag("notifications/message", `"level":"info","data":"x",`))}
		}, conform.OutcomeViolation},
		{"scope: progress on the listen POST stream fails (HTTP)", lsJudgeScope, func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, "7|"+ack, "7|"+conformtest.Notification("notifications/progress", `{"progressToken":1,"progress":1}`))}
		}, conform.OutcomeViolation},
		{"scope: progress on a call's stream passes", lsJudgeScope, func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, "7|"+ack, "8|"+conformtest.Notification("notifications/progress", `{"progressToken":1,"progress":1}`))}
		}, conform.OutcomePass},
		{"scope: no listen is not exercised", lsJudgeScope, func(t *testing.T) []subscribe.Observed { return []subscribe.Observed{lsObs(t, nil)} }, conform.OutcomeSkip},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.judge(tc.obs(t))
			if got := v.Outcome(); got != tc.want {
				t.Fatalf("outcome %s, want %s (%s)", got, tc.want, v.Message)
			}
		})
	}
}

// conformtestAck is the acknowledgement's method.
const conformtestAck = conform.MethodAcknowledged

// lsCloseServer is a 2026-07-28 server whose test_end_subscription ends the
// subscription it names with the messages end returns (given the listen request's
// id), before its own reply; with end nil it fails (isError).
func lsCloseServer(end func(sub wire.ID) []string) func() *conformtest.Server {
	return func() *conformtest.Server {
		var mu sync.Mutex
		subs := map[string]wire.ID{}
		srv := conformtest.Modern(conformtest.ServeTools(map[string]conformtest.Tool{
			lsEndFixture: {Reply: func(req *wire.Message) []string {
				var p struct {
					Arguments struct {
						ID json.RawMessage `json:"subscriptionId"`
					} `json:"arguments"`
				}
				_ = json.Unmarshal(req.Params, &p)
				id, _ := wire.ParseID(p.Arguments.ID)
				mu.Lock()
				sub, ok := subs[id.Key()]
				mu.Unlock()
				if !ok || end == nil {
					return []string{conformtest.Result(req, `{"content":[{"type":"text","text":"no such subscription"}],"isError":true}`)}
				}
				return append(end(sub), conformtest.Result(req, conformtest.Content(conformtest.TextBlock)))
			}},
		}))
		srv.Handle("subscriptions/listen", func(req *wire.Message) []string {
			mu.Lock()
			subs[req.ID.Key()] = req.ID
			mu.Unlock()
			return []string{conformtest.Notification(conform.MethodAcknowledged, `{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":`+string(req.ID.Raw())+`}}`)}
		})
		return srv
	}
}

func TestListenCloseVerdicts(t *testing.T) {
	const r5 = "2026-07-28"
	complete := func(sub wire.ID) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, sub.Raw(), sub.Raw())
	}
	cancelled := func(sub wire.ID) string {
		return conformtest.Notification("notifications/cancelled", `{"requestId":`+string(sub.Raw())+`}`)
	}
	const id = "NOTIF-LISTEN-CLOSE-R5-01"
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "a completion result is accepted with a note", ID: id, Rev: r5, Srv: lsCloseServer(func(sub wire.ID) []string { return []string{complete(sub)} }), Want: reports.Pass, Contains: "note: subscription"},
		{Name: "notifications/cancelled is accepted with a note", ID: id, Rev: r5, Srv: lsCloseServer(func(sub wire.ID) []string { return []string{cancelled(sub)} }), Want: reports.Pass, Contains: "as cancellation.mdx requires"},
		{Name: "both pass", ID: id, Rev: r5, Srv: lsCloseServer(func(sub wire.ID) []string { return []string{cancelled(sub), complete(sub)} }), Want: reports.Pass, Contains: "both pages followed"},
		{Name: "neither fails", ID: id, Rev: r5, Srv: lsCloseServer(func(wire.ID) []string { return nil }), Want: reports.Fail, Contains: "just stopped"},
		{Name: "cancelling another request is neither and fails", ID: id, Rev: r5, Srv: lsCloseServer(func(wire.ID) []string {
			return []string{conformtest.Notification("notifications/cancelled", `{"requestId":"other"}`)}
		}), Want: reports.Fail, Contains: "neither came"},
		{Name: "an error for the listen request is no completion and fails", ID: id, Rev: r5, Srv: lsCloseServer(func(sub wire.ID) []string {
			return []string{fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"gone"}}`, sub.Raw())}
		}), Want: reports.Fail, Contains: "no completion result"},
		{Name: "the tool failing is not verified", ID: id, Rev: r5, Srv: lsCloseServer(nil), Want: reports.Error, Contains: "did not end"},
		{Name: "no fixture needs the fixture", ID: id, Rev: r5, Srv: func() *conformtest.Server { return conformtest.Modern(conformtest.NewServer()) }, Want: reports.Skip, Reason: reports.NeedsFixture, Contains: lsEndFixture},
	})
}

// TestListingAfterIsNextListingBefore runs NOTIF-LISTEN-FILTER-R5-01 and then
// NOTIF-LISTEN-LC-R5-01 on one session: the second check's listing before its change
// is the first one's listing after (toolkit.Current keeps it for the check that reads
// first next), so the run walks the list once less, and both verdicts are what they
// are alone.
func TestListingAfterIsNextListingBefore(t *testing.T) {
	const r5 = "2026-07-28"
	ids := []string{"NOTIF-LISTEN-FILTER-R5-01", "NOTIF-LISTEN-LC-R5-01"}
	// run judges ids and counts the tools/list requests the server answered.
	run := func(ids ...string) ([]conform.Verdict, int) {
		l := &lsServer{}
		vs := conformtest.JudgeAll(t, ids, r5, l.server())
		l.mu.Lock()
		defer l.mu.Unlock()
		return vs, l.lists
	}
	together, n := run(ids...)
	alone := 0
	for i, id := range ids {
		vs, k := run(id)
		alone += k
		if vs[0].Status != reports.Pass || together[i].Status != vs[0].Status {
			t.Errorf("%s: %s together, %s alone; want a pass both ways", id, together[i].Status, vs[0].Status)
		}
	}
	// The list is one page, so each walk is one request: the column's listing
	// (toolkit.List), then each check asks for the first page again before its change
	// and walks after it. NOTIF-LISTEN-LC-R5-01's listing before is
	// NOTIF-LISTEN-FILTER-R5-01's after: 1 + 2 + 2. Without the keep it walks again (6).
	const want = 5
	if n != want {
		t.Errorf("together %d tools/list requests, want %d (alone %d in all)", n, want, alone)
	}
}
