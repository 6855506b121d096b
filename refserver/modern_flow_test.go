package refserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// MRTR: test_elicitation, test_sampling and the prompt introduce_user answer
// input_required; the retry (a new id, the same requestState, the answer) completes;
// a foreign requestState is -32602.
func TestModernMRTR(t *testing.T) {
	ada := map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}
	cases := []struct {
		rpc, tool, key, method, capability string
		answer                             map[string]any
		want                               string // in the completed result's text
	}{
		{"tools/call", "test_elicitation", inputKeyName, "elicitation/create", "elicitation", ada, `{"name":"Ada"}`},
		{"tools/call", "test_sampling", inputKeyCompletion, "sampling/createMessage", "sampling",
			map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Hello"}, "model": "m"}, `{"text":"Hello","type":"text"}`},
		{"prompts/get", promptIntroduce, inputKeyName, "elicitation/create", "elicitation", ada, "Please introduce Ada"},
	}
	forEachModern(t, func(t *testing.T, c modernConnT) {
		var ids seq
		for _, tc := range cases {
			caps := map[string]any{tc.capability: map[string]any{}}
			first := resultObject(t, c.do(t, ids.next(), tc.rpc, modernParams(caps, map[string]any{"name": tc.tool})).resp)
			if first["resultType"] != "input_required" {
				t.Fatalf("%s: resultType %v", tc.tool, first["resultType"])
			}
			if _, has := first["ttlMs"]; has {
				t.Errorf("%s: an input_required result carries caching hints", tc.tool)
			}
			req, _ := first["inputRequests"].(map[string]any)[tc.key].(map[string]any)
			if req["method"] != tc.method {
				t.Errorf("%s: inputRequests = %v", tc.tool, first["inputRequests"])
			}
			state, _ := first["requestState"].(string)
			if state == "" {
				t.Fatalf("%s: no requestState", tc.tool)
			}
			// Retry without the answer: asked again.
			again := resultObject(t, c.do(t, ids.next(), tc.rpc, modernParams(caps,
				map[string]any{"name": tc.tool, "requestState": state})).resp)
			if again["resultType"] != "input_required" || again["requestState"] != state {
				t.Errorf("%s: a retry without the answer got %v", tc.tool, again)
			}
			done := resultObject(t, c.do(t, ids.next(), tc.rpc, modernParams(caps, map[string]any{
				"name": tc.tool, "requestState": state, "inputResponses": map[string]any{tc.key: tc.answer},
			})).resp)
			// A tool's text content, a prompt's first message's text.
			block := asSlice(done["content"])
			if tc.rpc == "prompts/get" {
				block = []any{asSlice(done["messages"])[0].(map[string]any)["content"]}
			}
			if text, _ := block[0].(map[string]any)["text"].(string); done["resultType"] != "complete" || !strings.Contains(text, tc.want) {
				t.Errorf("%s: retry result %v", tc.tool, done)
			}
			bad := c.do(t, ids.next(), tc.rpc, modernParams(caps, map[string]any{
				"name": tc.tool, "requestState": "forged", "inputResponses": map[string]any{tc.key: tc.answer},
			}))
			expectError(t, bad.resp, wire.CodeInvalidParams)
			// Undeclared capability: -32021 naming it, never an input request for it.
			res := c.do(t, ids.next(), tc.rpc, modernParams(nil, map[string]any{"name": tc.tool}))
			expectError(t, res.resp, CodeMissingCapability)
			if _, ok := errorData(t, res.resp)["requiredCapabilities"].(map[string]any)[tc.capability]; !ok {
				t.Errorf("%s: -32021 data %s", tc.tool, res.resp.Error.Data)
			}
			wantStatus(t, res, http.StatusBadRequest)
		}
		res := c.do(t, ids.next(), "tools/call", modernParams(nil, map[string]any{"name": "test_requires_elicitation"}))
		expectError(t, res.resp, CodeMissingCapability)
		wantStatus(t, res, http.StatusBadRequest)
		ok := c.do(t, ids.next(), "tools/call", modernParams(map[string]any{"elicitation": map[string]any{}},
			map[string]any{"name": "test_requires_elicitation"}))
		if r := resultObject(t, ok.resp); r["isError"] == true {
			t.Errorf("test_requires_elicitation with the capability: %v", r)
		}
	})
}

// listenParams is a subscriptions/listen request's params.
func listenParams(filter map[string]any) map[string]any {
	return modernParams(nil, map[string]any{"notifications": filter})
}

// subscriptions/listen on stdio: the ack first, tagged, with the honoured subset;
// list_changed only to subscriptions that asked, tagged, never on the trigger's own
// reply; a cancelled subscription gets nothing more; EOF closes the rest gracefully.
func TestModernListenStdio(t *testing.T) {
	c := dialModernStdio(t, Options{}).(*modernStdio)
	send := func(id wire.ID, method string, p any) {
		b, _ := wire.EncodeRequest(id, method, p)
		c.c.send(t, b)
	}
	send(wire.StringID("sub-tools"), methodListen, listenParams(map[string]any{"toolsListChanged": true, "promptsListChanged": true}))
	ack := c.recv(t)
	validateModern(t, methodListen, ack)
	var ap struct {
		Notifications map[string]any `json:"notifications"`
	}
	_ = json.Unmarshal(ack.Params, &ap)
	if id, _ := subscriptionID(ack); ack.Method != "notifications/subscriptions/acknowledged" || id != `"sub-tools"` {
		t.Fatalf("first message %s", ack.Raw)
	}
	if len(ap.Notifications) != 2 || ap.Notifications["toolsListChanged"] != true || ap.Notifications["promptsListChanged"] != true {
		t.Errorf("honoured filter %v, want toolsListChanged and promptsListChanged", ap.Notifications)
	}
	send(wire.NumberID(7), methodListen, listenParams(map[string]any{"promptsListChanged": true}))
	ack7 := c.recv(t)
	if id, _ := subscriptionID(ack7); id != "7" {
		t.Fatalf("second ack %s", ack7.Raw)
	}
	var ids seq
	res := c.do(t, ids.str("trigger"), "tools/call", modernParams(nil, map[string]any{"name": "test_trigger_tool_change"}))
	if len(res.notes) != 0 {
		t.Errorf("list_changed on the trigger's own reply: %v", res.notes)
	}
	// The trigger changes the prompt list too (prompts.go): sub-tools asked for
	// both, 7 for prompts only.
	others := c.takeOthers()
	got := map[string]int{}
	for _, o := range others {
		id, _ := subscriptionID(o)
		got[o.Method+" "+id]++
		validateModern(t, methodListen, o)
	}
	want := map[string]int{`notifications/tools/list_changed "sub-tools"`: 1, `notifications/prompts/list_changed "sub-tools"`: 1, "notifications/prompts/list_changed 7": 1}
	if !maps.Equal(got, want) {
		t.Fatalf("before the trigger's reply, got %v, want %v", got, want)
	}
	// Cancel sub-tools: the next change reaches only 7's prompts.
	n, _ := wire.EncodeNotification("notifications/cancelled", map[string]any{"requestId": "sub-tools"})
	c.sendRaw(t, n)
	c.do(t, ids.str("trigger"), "tools/call", modernParams(nil, map[string]any{"name": "test_trigger_tool_change"}))
	if o := c.takeOthers(); len(o) != 1 || o[0].Method != "notifications/prompts/list_changed" {
		t.Errorf("after cancellation: %d more messages, want 7's prompts list_changed", len(o))
	}
	// EOF: the open subscription 7 is answered (graceful closure), tagged.
	c.c.close()
	m := c.recv(t)
	validateModern(t, methodListen, m)
	if id, _ := subscriptionID(m); !m.IsResponse() || m.ID.Key() != wire.NumberID(7).Key() || id != "7" {
		t.Errorf("graceful closure %s", m.Raw)
	}
}

// subscriptions/listen over HTTP: the listen POST's own SSE stream.
func TestModernListenHTTP(t *testing.T) {
	c := dialModernHTTP(t, Options{}).(*modernHTTP)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tools := c.openListen(t, ctx, wire.NumberID(1), map[string]any{"toolsListChanged": true})
	prompts := c.openListen(t, context.Background(), wire.StringID("p"), map[string]any{"promptsListChanged": true})
	for _, ch := range []<-chan *wire.Message{tools, prompts} {
		ack := recvFrom(t, ch)
		validateModern(t, methodListen, ack)
		if ack.Method != "notifications/subscriptions/acknowledged" || !subscriptionTagged(ack) {
			t.Fatalf("first event %s", ack.Raw)
		}
	}
	var ids seq
	res := c.do(t, ids.next(), "tools/call", modernParams(nil, map[string]any{"name": "test_trigger_tool_change"}))
	if len(res.notes) != 0 {
		t.Errorf("list_changed on the trigger's stream")
	}
	lc := recvFrom(t, tools)
	validateModern(t, methodListen, lc)
	if id, _ := subscriptionID(lc); lc.Method != "notifications/tools/list_changed" || id != "1" {
		t.Errorf("list_changed %s", lc.Raw)
	}
	// The trigger changes the prompt list too (prompts.go).
	plc := recvFrom(t, prompts)
	validateModern(t, methodListen, plc)
	if id, _ := subscriptionID(plc); plc.Method != "notifications/prompts/list_changed" || id != `"p"` {
		t.Errorf("prompts list_changed %s", plc.Raw)
	}
	// Shutdown closes prompts gracefully: its only other event is the listen result.
	_ = c.h.(interface{ Close() error }).Close()
	end := recvFrom(t, prompts)
	validateModern(t, methodListen, end)
	if !end.IsResponse() || end.ID.Key() != wire.StringID("p").Key() {
		t.Errorf("prompts stream got %s, want only its closing result", end.Raw)
	}
}

// test_end_subscription: the server ends a subscription itself. The listen request
// gets its completion result, tagged, before the tool answers (stdio) or as its
// stream's last event (HTTP); with r5-listen-end-silent nothing comes. An id no
// subscription has is an isError result.
func TestModernEndSubscription(t *testing.T) {
	end := func(id any) map[string]any {
		return modernParams(nil, map[string]any{"name": "test_end_subscription", "arguments": map[string]any{"subscriptionId": id}})
	}
	for _, silent := range []bool{false, true} {
		opts := Options{Faults: map[string]bool{faultR5ListenEndSilent: silent}}
		t.Run(fmt.Sprintf("stdio/silent=%v", silent), func(t *testing.T) {
			c := dialModernStdio(t, opts).(*modernStdio)
			b, _ := wire.EncodeRequest(wire.NumberID(7), methodListen, listenParams(map[string]any{"toolsListChanged": true}))
			c.c.send(t, b)
			if ack := c.recv(t); ack.Method != "notifications/subscriptions/acknowledged" {
				t.Fatalf("first message %s", ack.Raw)
			}
			var ids seq
			res := c.do(t, ids.str("end"), "tools/call", end(7))
			if toolFailed(res.resp) {
				t.Fatalf("test_end_subscription: %s", res.resp.Raw)
			}
			others := c.takeOthers()
			if silent {
				if len(others) != 0 {
					t.Errorf("silent end sent %s", others[0].Raw)
				}
			} else {
				if len(others) != 1 || !others[0].IsResponse() || others[0].ID.Key() != wire.NumberID(7).Key() {
					t.Fatalf("before the tool's reply, want the listen result, got %d messages", len(others))
				}
				validateModern(t, methodListen, others[0])
				if id, _ := subscriptionID(others[0]); id != "7" || !strings.Contains(string(others[0].Result), `"resultType":"complete"`) {
					t.Errorf("completion result %s", others[0].Raw)
				}
			}
			// Ended: a second call finds nothing, and the id is free again.
			if again := c.do(t, ids.str("end"), "tools/call", end(7)); !toolFailed(again.resp) {
				t.Errorf("a second end: %s", again.resp.Raw)
			}
			c.c.send(t, b)
			if ack := c.recv(t); ack.Method != "notifications/subscriptions/acknowledged" {
				t.Errorf("listen with the ended subscription's id: %s", ack.Raw)
			}
		})
		t.Run(fmt.Sprintf("http/silent=%v", silent), func(t *testing.T) {
			c := dialModernHTTP(t, opts).(*modernHTTP)
			ch := c.openListen(t, context.Background(), wire.StringID("s"), map[string]any{"toolsListChanged": true})
			if ack := recvFrom(t, ch); ack.Method != "notifications/subscriptions/acknowledged" {
				t.Fatalf("first event %s", ack.Raw)
			}
			var ids seq
			if res := c.do(t, ids.next(), "tools/call", end("s")); toolFailed(res.resp) {
				t.Fatalf("test_end_subscription: %s", res.resp.Raw)
			}
			var rest []*wire.Message
			deadline := time.After(recvTimeout)
			for done := false; !done; {
				select {
				case m, ok := <-ch:
					if !ok {
						done = true
						break
					}
					rest = append(rest, m)
				case <-deadline:
					t.Fatal("the listen stream did not end")
				}
			}
			switch {
			case silent && len(rest) != 0:
				t.Errorf("silent end sent %s", rest[0].Raw)
			case !silent && (len(rest) != 1 || !rest[0].IsResponse() || rest[0].ID.Key() != wire.StringID("s").Key()):
				t.Errorf("the stream's last events: %d, want the listen result", len(rest))
			}
		})
	}
}

// toolFailed reports whether a tools/call reply is an error or an isError result.
func toolFailed(m *wire.Message) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.IsError
}

// Cancellation: notifications/cancelled on stdio, closing the request's stream over
// HTTP. Nothing more is sent for the request and test_last_cancellation reports it.
func TestModernCancellation(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		c := dialModernStdio(t, Options{}).(*modernStdio)
		p := modernParams(nil, map[string]any{"name": "test_slow", "arguments": map[string]any{"ms": 5000}})
		p["_meta"].(map[string]any)["progressToken"] = "slow"
		b, _ := wire.EncodeRequest(wire.StringID("slow-1"), "tools/call", p)
		c.c.send(t, b)
		if m := c.recv(t); m.Method != "notifications/progress" {
			t.Fatalf("want progress first, got %s", m.Raw)
		}
		n, _ := wire.EncodeNotification("notifications/cancelled", map[string]any{"requestId": "slow-1"})
		c.sendRaw(t, n)
		var ids seq
		res := c.do(t, ids.next(), "tools/call", modernParams(nil, map[string]any{"name": "test_last_cancellation"}))
		if got := toolTextOf(t, res); got != `"slow-1"` {
			t.Errorf("test_last_cancellation = %s", got)
		}
		for _, o := range c.takeOthers() {
			if o.Kind == wire.KindNotification && o.Method == "notifications/progress" {
				continue // sent before the cancellation arrived
			}
			t.Errorf("after cancellation: %s", o.Raw)
		}
	})
	t.Run("http", func(t *testing.T) {
		c := dialModernHTTP(t, Options{}).(*modernHTTP)
		p := modernParams(nil, map[string]any{"name": "test_slow", "arguments": map[string]any{"ms": 5000}})
		p["_meta"].(map[string]any)["progressToken"] = 9
		b, _ := wire.EncodeRequest(wire.NumberID(41), "tools/call", p)
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(string(b)))
		req.Header = standardHeaders("tools/call", p)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
			t.Errorf("SSE headers: %v", resp.Header)
		}
		got := make(chan string, 1)
		go readSSE(resp.Body, func(ev sseEvent) bool { got <- ev.data; return false })
		select {
		case <-got:
		case <-time.After(recvTimeout):
			t.Fatal("no progress event")
		}
		cancel()
		_ = resp.Body.Close()
		var ids seq
		deadline := time.Now().Add(recvTimeout)
		for {
			res := c.do(t, ids.next(), "tools/call", modernParams(nil, map[string]any{"name": "test_last_cancellation"}))
			if toolTextOf(t, res) == "41" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the closed stream was not recorded as a cancellation")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

func toolTextOf(t *testing.T, res exchangeResult) string {
	t.Helper()
	return asSlice(resultObject(t, res.resp)["content"])[0].(map[string]any)["text"].(string)
}
