package tools

import (
	"strings"

	"encoding/json"
	"fmt"
	"github.com/mcp-conform/mcp-conform/conform"
	"sync"
	"testing"
	"time"

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
		tools := fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, ctTriggerFixture)
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
	cases := []ctCase{
		// NOTIF-LC-SHAPE-01 in 2026-07-28: the tag is part of the shape.
		{name: "tagged list_changed is valid", id: "NOTIF-LC-SHAPE-01", rev: r5, srv: withLC(`{"_meta":{"io.modelcontextprotocol/subscriptionId":4}}`), want: reports.Pass},
		{name: "a tag that is no id fails", id: "NOTIF-LC-SHAPE-01", rev: r5, srv: withLC(`{"_meta":{"io.modelcontextprotocol/subscriptionId":true}}`), want: reports.Fail},

		// NOTIF-LISTEN-ACK-R5-01
		{name: "tagged ack first passes", id: "NOTIF-LISTEN-ACK-R5-01", rev: r5, srv: srv(lsFlags{}), want: reports.Pass},
		{name: "no ack fails", id: "NOTIF-LISTEN-ACK-R5-01", rev: r5, srv: srv(lsFlags{noAck: true}), want: reports.Fail, contains: "no message of subscription"},
		{name: "untagged ack fails", id: "NOTIF-LISTEN-ACK-R5-01", rev: r5, srv: srv(lsFlags{ackTag: "-"}), want: reports.Fail, contains: "carries no _meta"},
		{name: "ack tagged with another id fails", id: "NOTIF-LISTEN-ACK-R5-01", rev: r5, srv: srv(lsFlags{ackTag: `"x"`}), want: reports.Fail, contains: "not the listen request's id"},
		{name: "ack honouring more than asked fails", id: "NOTIF-LISTEN-ACK-R5-01", rev: r5, srv: srv(lsFlags{ackExtra: true}), want: reports.Fail, contains: "resourcesListChanged"},
		{name: "refused listen is not applicable", id: "NOTIF-LISTEN-ACK-R5-01", rev: r5, srv: srv(lsFlags{refuse: true}), want: reports.Skip, reason: reports.NotApplicable},

		// NOTIF-LISTEN-TAG-R5-01
		{name: "tagged ack and list_changed pass", id: "NOTIF-LISTEN-TAG-R5-01", rev: r5, srv: srv(lsFlags{}), want: reports.Pass, contains: "2 messages"},
		{name: "untagged list_changed fails", id: "NOTIF-LISTEN-TAG-R5-01", rev: r5, srv: srv(lsFlags{lcUntagged: true}), want: reports.Fail, contains: "list_changed carries no _meta"},
		{name: "untagged ack fails", id: "NOTIF-LISTEN-TAG-R5-01", rev: r5, srv: srv(lsFlags{ackTag: "-"}), want: reports.Fail},
		{name: "no message is not exercised", id: "NOTIF-LISTEN-TAG-R5-01", rev: r5, srv: srv(lsFlags{noAck: true, silent: true}), want: reports.Skip, reason: reports.NotExercised},

		// STDIO-SUBID-R5-01
		{name: "two subscriptions each tagged pass", id: "STDIO-SUBID-R5-01", rev: r5, srv: srv(lsFlags{}), want: reports.Pass, contains: "4 messages"},
		{name: "wrong tag fails", id: "STDIO-SUBID-R5-01", rev: r5, srv: srv(lsFlags{lcWrongTag: true}), want: reports.Fail, contains: `"other"`},
		{name: "untagged fails", id: "STDIO-SUBID-R5-01", rev: r5, srv: srv(lsFlags{ackTag: "-"}), want: reports.Fail},

		// NOTIF-LISTEN-LC-R5-01
		{name: "announced on the stream passes", id: "NOTIF-LISTEN-LC-R5-01", rev: r5, srv: srv(lsFlags{}), want: reports.Pass, contains: "added test_dynamic_tool"},
		{name: "silent change warns", id: "NOTIF-LISTEN-LC-R5-01", rev: r5, srv: srv(lsFlags{silent: true}), want: reports.Warn, contains: "none by the time"},
		// An earlier change's announcement, on the new subscription before this change,
		// is not this change's: the check waits for the one that comes later.
		{name: "debounced announcement passes", id: "NOTIF-LISTEN-LC-R5-01", rev: r5, srv: srv(lsFlags{debounced: true}), want: reports.Pass, contains: "added test_dynamic_tool"},
		{name: "a list_changed on the call's stream warns", id: "NOTIF-LISTEN-LC-R5-01", rev: r5, srv: srv(lsFlags{onCall: true, silent: true}), want: reports.Warn},
		{name: "undeclared listChanged announced warns", id: "NOTIF-LISTEN-LC-R5-01", rev: r5, srv: srv(lsFlags{caps: `{"tools":{}}`}), want: reports.Warn, contains: "is not true"},
		{name: "undeclared listChanged and silent is not applicable", id: "NOTIF-LISTEN-LC-R5-01", rev: r5, srv: srv(lsFlags{caps: `{"tools":{}}`, silent: true}), want: reports.Skip, reason: reports.NotApplicable, contains: "none came"},
		{name: "no tools capability is not applicable", id: "NOTIF-LISTEN-LC-R5-01", rev: r5, srv: srv(lsFlags{caps: `{}`}), want: reports.Skip, reason: reports.NotApplicable, contains: "no tools capability"},
		{name: "no trigger needs the fixture", id: "NOTIF-LISTEN-LC-R5-01", rev: r5, srv: noTrigger, want: reports.Skip, reason: reports.NeedsFixture},

		// NOTIF-LISTEN-FILTER-R5-01
		{name: "nothing unrequested passes", id: "NOTIF-LISTEN-FILTER-R5-01", rev: r5, srv: srv(lsFlags{}), want: reports.Pass},
		{name: "unrequested list_changed fails", id: "NOTIF-LISTEN-FILTER-R5-01", rev: r5, srv: srv(lsFlags{unfiltered: true}), want: reports.Fail, contains: "promptsListChanged only"},
		{name: "no trigger needs the fixture", id: "NOTIF-LISTEN-FILTER-R5-01", rev: r5, srv: noTrigger, want: reports.Skip, reason: reports.NeedsFixture},
	}
	ctRun(t, cases)
}

// lsObs builds an observed session: the listen ids sent, and received messages
// (raw JSON; a "stream:" prefix names the POST stream that carried one).
func lsObs(t *testing.T, listens []wire.ID, msgs ...string) lsObserved {
	t.Helper()
	o := lsObserved{label: "main", listens: map[string]bool{}, streams: map[string]bool{}}
	for _, id := range listens {
		o.listens[id.Key()] = true
		o.streams[string(id.Raw())] = true
	}
	for i, raw := range msgs {
		stream := ""
		if s, rest, ok := strings.Cut(raw, "|"); ok {
			stream, raw = s, rest
		}
		m, err := wire.Decode([]byte(raw))
		if err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		o.entries = append(o.entries, wire.Entry{Seq: i + 1, Dir: wire.Received, Raw: []byte(raw), Msg: m, Stream: stream})
	}
	return o
}

func TestListenObservedVerdicts(t *testing.T) {
	sub := []wire.ID{wire.NumberID(7)}
	tag := func(method, extra string) string {
		return conformtest.Notification(method, `{`+extra+`"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`)
	}
	ack := tag(conformtestAck, `"notifications":{},`)
	cases := []struct {
		name  string
		judge func([]lsObserved) conform.Verdict
		obs   func(t *testing.T) []lsObserved
		want  conform.Outcome
	}{
		{"scope: ack only passes", lsJudgeScope, func(t *testing.T) []lsObserved { return []lsObserved{lsObs(t, sub, ack)} }, conform.OutcomePass},
		{"scope: tagged message fails (stdio)", lsJudgeScope, func(t *testing.T) []lsObserved {
			return []lsObserved{lsObs(t, sub, ack, tag("notifications/message", `"level":"info","data":"x",`))}
		}, conform.OutcomeViolation},
		{"scope: progress on the listen POST stream fails (HTTP)", lsJudgeScope, func(t *testing.T) []lsObserved {
			return []lsObserved{lsObs(t, sub, "7|"+ack, "7|"+conformtest.Notification("notifications/progress", `{"progressToken":1,"progress":1}`))}
		}, conform.OutcomeViolation},
		{"scope: progress on a call's stream passes", lsJudgeScope, func(t *testing.T) []lsObserved {
			return []lsObserved{lsObs(t, sub, "7|"+ack, "8|"+conformtest.Notification("notifications/progress", `{"progressToken":1,"progress":1}`))}
		}, conform.OutcomePass},
		{"scope: no listen is not exercised", lsJudgeScope, func(t *testing.T) []lsObserved { return []lsObserved{lsObs(t, nil)} }, conform.OutcomeSkip},
		{"cancel: none is not exercised", lsJudgeCancel, func(t *testing.T) []lsObserved { return []lsObserved{lsObs(t, sub, ack)} }, conform.OutcomeSkip},
		{"cancel: tearing down the subscription passes", lsJudgeCancel, func(t *testing.T) []lsObserved {
			return []lsObserved{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{"requestId":7}`))}
		}, conform.OutcomePass},
		{"cancel: the id as a string is another request and fails", lsJudgeCancel, func(t *testing.T) []lsObserved {
			return []lsObserved{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{"requestId":"7"}`))}
		}, conform.OutcomeViolation},
		{"cancel: another request fails", lsJudgeCancel, func(t *testing.T) []lsObserved {
			return []lsObserved{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{"requestId":9}`))}
		}, conform.OutcomeViolation},
		{"cancel: no requestId fails", lsJudgeCancel, func(t *testing.T) []lsObserved {
			return []lsObserved{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{}`))}
		}, conform.OutcomeViolation},
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
