package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// httpReply is one finished HTTP exchange.
type httpReply struct {
	status int
	header http.Header
	body   []byte
}

func (r httpReply) events() []sseEvent {
	var evs []sseEvent
	readSSE(bytes.NewReader(r.body), func(ev sseEvent) bool { evs = append(evs, ev); return true })
	return evs
}

// shttp drives a Streamable HTTP handler with raw requests.
type shttp struct {
	t   *testing.T
	srv *httptest.Server
	h   http.Handler
}

func newSHTTP(t *testing.T, opts Options) *shttp {
	t.Helper()
	h := NewStreamableHandler(opts)
	srv := httptest.NewServer(h)
	srv.Client().Timeout = recvTimeout
	t.Cleanup(func() {
		_ = h.(io.Closer).Close()
		srv.Close()
	})
	return &shttp{t: t, srv: srv, h: h}
}

// do sends a request; headers with empty values are left out.
func (s *shttp) do(method, body string, headers map[string]string) httpReply {
	s.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.srv.URL, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := s.srv.Client().Do(req)
	if err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("%s: read body: %v", method, err)
	}
	return httpReply{status: resp.StatusCode, header: resp.Header, body: b}
}

func postHeaders(sid, version string) map[string]string {
	return map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		headerSessionID: sid, headerProtocolVersion: version,
	}
}

func (s *shttp) post(sid, version, body string) httpReply {
	s.t.Helper()
	return s.do(http.MethodPost, body, postHeaders(sid, version))
}

// open initializes a session and returns its id.
func (s *shttp) open(rev string) string {
	s.t.Helper()
	r := s.post("", "", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, rev))
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		s.t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	mustValidate(s.t, revision.MustLookup(rev), "JSONRPCMessage", r.body)
	sid := r.header.Get(headerSessionID)
	if !regexp.MustCompile(`^[\x21-\x7E]{32,}$`).MatchString(sid) {
		s.t.Fatalf("session id %q", sid)
	}
	if r := s.post(sid, rev, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted || len(r.body) != 0 {
		s.t.Fatalf("initialized: %d %q", r.status, r.body)
	}
	return sid
}

const pingBody = `{"jsonrpc":"2.0","id":9,"method":"ping"}`

func TestStreamableSessions(t *testing.T) {
	s := newSHTTP(t, Options{})
	a, b := s.open("2025-03-26"), s.open("2025-03-26")
	if a == b {
		t.Fatal("two sessions share an id")
	}
	cases := []struct {
		name       string
		method     string
		sid        string
		body       string
		headers    map[string]string
		wantStatus int
	}{
		{"ping", http.MethodPost, a, pingBody, nil, 200},
		{"no session header", http.MethodPost, "", pingBody, nil, 400},
		{"unknown session", http.MethodPost, "no-such-session-000000000000000000000", pingBody, nil, 404},
		{"notification only", http.MethodPost, a, `{"jsonrpc":"2.0","method":"notifications/x"}`, nil, 202},
		{"response only", http.MethodPost, a, `{"jsonrpc":"2.0","id":99,"result":{}}`, nil, 202},
		{"unparseable body", http.MethodPost, a, `{"jsonrpc":`, nil, 400},
		{"unparseable body without session", http.MethodPost, "", `{`, nil, 400},
		{"invalid message", http.MethodPost, a, `{"jsonrpc":"2.0","method":5}`, nil, 400},
		{"null id", http.MethodPost, a, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, 400},
		{"invalid request with an id", http.MethodPost, a, `{"jsonrpc":"1.0","id":5,"method":"ping"}`, nil, 200},
		{"initialize again in a session", http.MethodPost, a, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`, nil, 200},
		{"Accept json only", http.MethodPost, a, pingBody, map[string]string{"Accept": "application/json"}, 406},
		{"Accept sse only", http.MethodPost, a, pingBody, map[string]string{"Accept": "text/event-stream"}, 406},
		{"Accept wildcard", http.MethodPost, a, pingBody, map[string]string{"Accept": "*/*"}, 200},
		{"Accept q=0", http.MethodPost, a, pingBody, map[string]string{"Accept": "application/json, text/event-stream;q=0"}, 406},
		{"Content-Type text", http.MethodPost, a, pingBody, map[string]string{"Content-Type": "text/plain"}, 415},
		{"evil Origin", http.MethodPost, a, pingBody, map[string]string{"Origin": "http://evil.example"}, 403},
		{"null Origin", http.MethodPost, a, pingBody, map[string]string{"Origin": "null"}, 403},
		{"localhost Origin", http.MethodPost, a, pingBody, map[string]string{"Origin": "http://localhost:3000"}, 200},
		{"127.0.0.1 Origin", http.MethodPost, a, pingBody, map[string]string{"Origin": "http://127.0.0.1:8080"}, 200},
		{"[::1] Origin", http.MethodPost, a, pingBody, map[string]string{"Origin": "http://[::1]:8080"}, 200},
		{"look-alike Origin", http.MethodPost, a, pingBody, map[string]string{"Origin": "http://localhost.evil.example"}, 403},
		{"GET evil Origin", http.MethodGet, a, "", map[string]string{"Origin": "http://evil.example", "Accept": "text/event-stream"}, 403},
		{"GET without session", http.MethodGet, "", "", map[string]string{"Accept": "text/event-stream"}, 400},
		{"GET unknown session", http.MethodGet, "nope", "", map[string]string{"Accept": "text/event-stream"}, 404},
		{"GET Accept json", http.MethodGet, a, "", map[string]string{"Accept": "application/json"}, 406},
		{"DELETE without session", http.MethodDelete, "", "", nil, 400},
		{"DELETE unknown session", http.MethodDelete, "nope", "", nil, 404},
		{"DELETE evil Origin", http.MethodDelete, a, "", map[string]string{"Origin": "http://evil.example"}, 403},
		{"PUT", http.MethodPut, a, "", nil, 405},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := postHeaders(tc.sid, "")
			for k, v := range tc.headers {
				h[k] = v
			}
			r := s.do(tc.method, tc.body, h)
			if r.status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.status, tc.wantStatus, r.body)
			}
			if r.status == http.StatusAccepted && len(r.body) != 0 {
				t.Errorf("202 with a body: %q", r.body)
			}
			if r.status >= 400 && len(r.body) > 0 && json.Valid(r.body) {
				// Transport rejections carry no id; message-level errors of this
				// 2025-03-26 session carry JSON-RPC's null for an unreadable id.
				checkErrorBody(t, r.body)
			}
		})
	}

	t.Run("DELETE terminates", func(t *testing.T) {
		if r := s.do(http.MethodDelete, "", postHeaders(b, "")); r.status != http.StatusOK {
			t.Fatalf("DELETE: %d", r.status)
		}
		if r := s.post(b, "", pingBody); r.status != http.StatusNotFound {
			t.Fatalf("POST after DELETE: %d", r.status)
		}
		if r := s.do(http.MethodDelete, "", postHeaders(b, "")); r.status != http.StatusNotFound {
			t.Fatalf("second DELETE: %d", r.status)
		}
		s.open("2025-03-26") // re-initialize after 404
	})

	t.Run("failed initialize opens no session", func(t *testing.T) {
		r := s.post("", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
		if r.status != http.StatusOK || r.header.Get(headerSessionID) != "" || !strings.Contains(string(r.body), "-32602") {
			t.Fatalf("initialize without protocolVersion: %d %s %v", r.status, r.body, r.header)
		}
	})
}

func TestStreamableVersionHeader(t *testing.T) {
	s := newSHTTP(t, Options{})
	cases := []struct {
		rev, header string
		want        int
	}{
		{"2025-06-18", "", 200},
		{"2025-06-18", "2025-06-18", 200},
		{"2025-06-18", "1999-01-01", 400},
		{"2025-06-18", "garbage", 400},
		// Another version the server serves is neither invalid nor unsupported:
		// served, on the session's negotiated rules.
		{"2025-06-18", "2025-03-26", 200},
		{"2025-11-25", "2025-11-25", 200},
		{"2025-11-25", "2025-06-18", 200},
		{"2025-11-25", "2026-07-28", 400}, // not a version of the session's era
		{"2025-03-26", "garbage", 200},    // before 2025-06-18 the header does not exist
		{"2024-11-05", "garbage", 200},
	}
	for _, tc := range cases {
		t.Run(tc.rev+"/"+tc.header, func(t *testing.T) {
			sid := s.open(tc.rev)
			if r := s.post(sid, tc.header, pingBody); r.status != tc.want {
				t.Fatalf("POST: %d, want %d: %s", r.status, tc.want, r.body)
			}
			if tc.want == 400 {
				h := postHeaders(sid, tc.header)
				h["Accept"] = "text/event-stream"
				if r := s.do(http.MethodGet, "", h); r.status != 400 {
					t.Fatalf("GET: %d, want 400", r.status)
				}
			}
		})
	}
}

func TestStreamableReplies(t *testing.T) {
	for _, rev := range legacyRevisions {
		t.Run(rev.Name, func(t *testing.T) {
			s := newSHTTP(t, Options{})
			sid := s.open(rev.Name)
			r := s.post(sid, rev.Name, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
				t.Fatalf("tools/list: %d %s", r.status, r.header.Get("Content-Type"))
			}
			ids := map[string]bool{}
			for call := 0; call < 2; call++ {
				r = s.post(sid, rev.Name, `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":7}}}`)
				if r.status != 200 || r.header.Get("Content-Type") != "text/event-stream" {
					t.Fatalf("tools/call: %d %s", r.status, r.header.Get("Content-Type"))
				}
				evs := r.events()
				if rev.AtLeast("2025-11-25") {
					if len(evs) == 0 || !evs[0].hasID || evs[0].data != "" {
						t.Fatalf("first event is not a priming event: %+v", evs)
					}
					evs = evs[1:]
				}
				if len(evs) != 4 {
					t.Fatalf("%d events, want 3 progress + 1 response: %+v", len(evs), evs)
				}
				for i, ev := range evs {
					mustValidate(t, rev, "JSONRPCMessage", []byte(ev.data))
					want := `"method":"notifications/progress"`
					if i == 3 {
						want = `"id":"c"`
					}
					if !strings.Contains(ev.data, want) {
						t.Errorf("event %d = %s, want %s", i, ev.data, want)
					}
				}
				for _, ev := range r.events() {
					if !ev.hasID || ids[ev.id] {
						t.Errorf("event id %q missing or reused", ev.id)
					}
					ids[ev.id] = true
				}
			}
		})
	}
}

func TestStreamableBatches(t *testing.T) {
	s := newSHTTP(t, Options{})
	r2 := s.open("2025-03-26")
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x"}]`
	r := s.post(r2, "", batch)
	var replies []json.RawMessage
	if r.status != 200 || json.Unmarshal(r.body, &replies) != nil || len(replies) != 2 {
		t.Fatalf("2025-03-26 batch: %d %s", r.status, r.body)
	}
	mustValidate(t, revision.MustLookup("2025-03-26"), "JSONRPCMessage", r.body)
	if r := s.post(r2, "", `[{"jsonrpc":"2.0","method":"notifications/a"}]`); r.status != 202 {
		t.Fatalf("notification batch: %d", r.status)
	}
	r = s.post(r2, "", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text"}}]`)
	if r.header.Get("Content-Type") != "text/event-stream" || len(r.events()) != 2 {
		t.Fatalf("batch with tools/call: %s %s", r.header.Get("Content-Type"), r.body)
	}
	r3 := s.open("2025-06-18")
	if r := s.post(r3, "2025-06-18", batch); r.status != 400 || !strings.Contains(string(r.body), "-32600") {
		t.Fatalf("2025-06-18 batch: %d %s", r.status, r.body)
	}
}

func TestStreamableGetStream(t *testing.T) {
	noLeaks(t)
	s := newSHTTP(t, Options{})
	sid := s.open("2025-11-25")
	req, _ := http.NewRequest(http.MethodGet, s.srv.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerSessionID, sid)
	req.Header.Set(headerProtocolVersion, "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := make(chan sseEvent, 8)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		readSSE(resp.Body, func(ev sseEvent) bool { events <- ev; return true })
	}()
	select {
	case ev := <-events:
		if !ev.hasID || ev.data != "" {
			t.Errorf("first GET event = %+v, want priming", ev)
		}
	case <-time.After(recvTimeout):
		t.Fatal("no priming event on the GET stream")
	}
	// A tool call's notifications go on its own POST stream, never on the GET stream.
	s.post(sid, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_trigger_tool_change"}}`)
	if r := s.do(http.MethodDelete, "", postHeaders(sid, "2025-11-25")); r.status != 200 {
		t.Fatalf("DELETE: %d", r.status)
	}
	select {
	case <-ended:
	case <-time.After(recvTimeout):
		t.Fatal("GET stream still open after DELETE")
	}
	close(events)
	for ev := range events {
		// The one message a new GET stream gets: a log related to no request.
		if strings.Contains(ev.data, `"method":"notifications/message"`) && strings.Contains(ev.data, "Listening") {
			continue
		}
		t.Errorf("unexpected event on the GET stream: %+v", ev)
	}
}

func TestStreamableDisconnectIsNotCancellation(t *testing.T) {
	s := newSHTTP(t, Options{})
	sid := s.open("2025-06-18")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.srv.URL,
		strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"test_slow","arguments":{"ms":300}}}`))
	for k, v := range postHeaders(sid, "2025-06-18") {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	_ = resp.Body.Close()
	r := s.post(sid, "2025-06-18", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"test_last_cancellation"}}`)
	if evs := r.events(); len(evs) != 1 || !strings.Contains(evs[0].data, `"text":"none"`) {
		t.Fatalf("last cancellation after a disconnect: %s", r.body)
	}
}

func TestStreamableHandlerCloseEndsStreams(t *testing.T) {
	noLeaks(t)
	h := NewStreamableHandler(Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	s := &shttp{t: t, srv: srv, h: h}
	sid := s.open("2025-03-26")
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerSessionID, sid)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_ = h.(io.Closer).Close()
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, resp.Body); close(done) }()
	select {
	case <-done:
	case <-time.After(recvTimeout):
		t.Fatal("GET stream survived Close")
	}
	if r := s.post(sid, "", pingBody); r.status != 404 {
		t.Fatalf("POST after Close: %d", r.status)
	}
}

func TestMisconfiguredHandlers(t *testing.T) {
	for _, h := range []http.Handler{
		NewStreamableHandler(Options{Revisions: []string{"nope"}}),
		NewSSEHandler(Options{Revisions: []string{"nope"}}),
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(pingBody)))
		if rec.Code != 500 {
			t.Errorf("status %d, want 500", rec.Code)
		}
	}
}

// checkErrorBody checks an HTTP error body is a JSON-RPC error whose id is absent
// (transport rejection, valid from 2025-11-25) or null (JSON-RPC, unreadable id).
func checkErrorBody(t *testing.T, body []byte) {
	t.Helper()
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	if id, has := env["id"]; has && string(id) != "null" {
		return // a readable id: checked by the message-level tests
	}
	stripped := map[string]json.RawMessage{"jsonrpc": env["jsonrpc"], "error": env["error"]}
	b, _ := json.Marshal(stripped)
	mustValidate(t, revision.MustLookup("2025-11-25"), "JSONRPCErrorResponse", b)
}

// TestUntilResumed: test_slow's untilResumed works until its stream is resumed, so its
// response comes on the resumed stream and never on the first one, with no duration
// in between: before 2025-11-25 the client drops the stream at the call's first
// progress; in 2025-11-25 the server closes the connection right after the priming
// event (polling).
func TestUntilResumed(t *testing.T) {
	for _, tc := range []struct {
		rev  string
		poll bool // the server ends the first connection itself
	}{{"2025-03-26", false}, {"2025-06-18", false}, {"2025-11-25", true}} {
		t.Run(tc.rev, func(t *testing.T) {
			s := newSHTTP(t, Options{})
			sid := s.open(tc.rev)
			call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"test_slow","arguments":{"ms":10000,"untilResumed":true},"_meta":{"progressToken":"tok"}}}`
			st, cancel := s.openStream(t, http.MethodPost, sid, tc.rev, call, nil)
			evs, ended := collect(st, recvTimeout, func(ev streamEvent) bool { return !tc.poll && ev.id != "" && ev.data != "" })
			cancel()
			if ended != tc.poll {
				t.Fatalf("first stream ended=%v, want %v: %v", ended, tc.poll, evs)
			}
			last := ""
			for _, ev := range evs {
				if hasResponse("7")(ev) {
					t.Fatalf("the response came before the stream was resumed: %v", evs)
				}
				if ev.id != "" {
					last = ev.id
				}
			}
			if last == "" {
				t.Fatalf("no event id to resume from: %v", evs)
			}
			st, cancel = s.openStream(t, http.MethodGet, sid, tc.rev, "", map[string]string{"Last-Event-ID": last})
			defer cancel()
			evs, _ = collect(st, recvTimeout, hasResponse("7"))
			if len(evs) == 0 || !strings.Contains(evs[len(evs)-1].data, "Worked until the stream was resumed.") {
				t.Fatalf("the resumed stream carried %v", evs)
			}
		})
	}
	t.Run("no resumable stream", func(t *testing.T) {
		cl := newInitialized(t, dialStdio, Options{}, "2025-06-18", nil)
		r, _ := cl.result("tools/call", map[string]any{"name": "test_slow", "arguments": map[string]any{"ms": 10000, "untilResumed": true}})
		if b, _ := json.Marshal(r["content"]); !strings.Contains(string(b), "no stream to resume") {
			t.Errorf("test_slow untilResumed over stdio answered %s", b)
		}
	})
}
