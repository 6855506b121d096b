package transport

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// secretHeaders are user headers that must be sent but never recorded.
func secretHeaders() http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer s3cr3t-token-value")
	h.Set("X-Api-Key", "key-abcdef-123456")
	return h
}

func assertNoSecrets(t *testing.T, what, s string) {
	t.Helper()
	for _, secret := range []string{"s3cr3t-token-value", "key-abcdef-123456"} {
		if strings.Contains(s, secret) {
			t.Errorf("%s contains a user header value: %s", what, s)
		}
	}
}

// seenRequest is what the test server saw of one request.
type seenRequest struct {
	Method string
	Header http.Header
	Body   string
}

// recorder is an http.Handler that records requests and hands them to a handler.
type recorder struct {
	mu   sync.Mutex
	seen []seenRequest
	h    func(w http.ResponseWriter, r *http.Request, body string)
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.seen = append(rc.seen, seenRequest{r.Method, r.Header.Clone(), string(b)})
	rc.mu.Unlock()
	rc.h(w, r, string(b))
}

func (rc *recorder) requests() []seenRequest {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]seenRequest(nil), rc.seen...)
}

// sseWrite writes raw event-stream text and flushes it.
func sseWrite(w http.ResponseWriter, s string) {
	io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

func dialStreamable(t *testing.T, url string, mut func(*HTTPConfig)) *StreamableHTTP {
	t.Helper()
	cfg := HTTPConfig{URL: url, Headers: secretHeaders()}
	if mut != nil {
		mut(&cfg)
	}
	tr, err := DialStreamableHTTP(context.Background(), cfg)
	if err != nil {
		t.Fatalf("DialStreamableHTTP: %v", err)
	}
	t.Cleanup(func() {
		if err := tr.Close(bg(t, 10*time.Second)); err != nil {
			t.Errorf("cleanup Close: %v", err)
		}
	})
	return tr
}

// newMCPServer answers POSTs like a session-based Streamable HTTP server: the body
// method selects the reply.
func newMCPServer(t *testing.T) (*httptest.Server, *recorder) {
	rc := &recorder{h: func(w http.ResponseWriter, r *http.Request, body string) {
		switch r.Method {
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
			return
		case http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		switch {
		case strings.Contains(body, `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "sess-1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		case strings.Contains(body, `"notifications/`):
			w.Header().Set("Mcp-Session-Id", "sess-OTHER") // must not replace sess-1
			w.WriteHeader(http.StatusAccepted)
		case strings.HasPrefix(body, "["):
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			io.WriteString(w, `[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]`)
		case strings.Contains(body, `"tools/call"`):
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, "id: prime-1\ndata:\n\n")
			sseWrite(w, ": keepalive\n\n")
			sseWrite(w, "id: e2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n")
			sseWrite(w, "retry: 1000\nid: e3\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":4,\"result\":{}}\r\n\r\n")
		case strings.Contains(body, `"bad"`):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			// A careless server echoes the request's credentials.
			fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"bad, auth was %s"}}`, r.Header.Get("Authorization"))
		case strings.Contains(body, `"gone"`):
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "session not found")
		case strings.Contains(body, `"plainjson"`):
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, `{"jsonrpc":"2.0","id":10,"result":{}}`)
		case strings.Contains(body, `"plain"`):
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "hello")
		case strings.Contains(body, `"empty200"`):
			w.Header().Set("Content-Type", "application/json")
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":9,"result":{}}`)
		}
	}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return srv, rc
}

func TestStreamableSend(t *testing.T) {
	srv, rc := newMCPServer(t)
	tr := dialStreamable(t, srv.URL+"/mcp", nil)
	if tr.Kind() != "http" || tr.SessionID() != "" || tr.Err() != nil {
		t.Fatalf("fresh transport: kind %q session %q err %v", tr.Kind(), tr.SessionID(), tr.Err())
	}
	ctx := bg(t, 10*time.Second)
	type frameWant struct {
		data, source, eventID string
		stream                string // the raw id of the POST whose SSE reply carried it
	}
	tests := []struct {
		name    string
		msg     string
		frames  []frameWant
		errText string // Send's error, "" for success
	}{
		{"initialize assigns session", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
			[]frameWant{{data: `{"jsonrpc":"2.0","id":1,"result":{}}`, source: "post"}}, ""},
		{"notification 202", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, ""},
		{"batch reply is one frame", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
			[]frameWant{{data: `[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"result":{}}]`, source: "post"}}, ""},
		{"SSE reply", `{"jsonrpc":"2.0","id":4,"method":"tools/call"}`, []frameWant{
			{data: `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, source: "post", eventID: "e2", stream: "4"},
			{data: "{\"jsonrpc\":\"2.0\",\n\"id\":4,\"result\":{}}", source: "post", eventID: "e3", stream: "4"},
		}, ""},
		{"empty 200", `{"jsonrpc":"2.0","id":5,"method":"empty200"}`, nil, ""},
		{"400 with body", `{"jsonrpc":"2.0","id":6,"method":"bad"}`, nil, "HTTP 400 Bad Request"},
		{"404", `{"jsonrpc":"2.0","id":7,"method":"gone"}`, nil, "HTTP 404 Not Found: session not found"},
		{"unexpected content type", `{"jsonrpc":"2.0","id":8,"method":"plain"}`, nil, `Content-Type "text/plain"`},
		// A whole JSON reply under another type is delivered (SHTTP-POST-CT-01
		// judges the type from the exchange).
		{"JSON under another content type", `{"jsonrpc":"2.0","id":10,"method":"plainjson"}`,
			[]frameWant{{data: `{"jsonrpc":"2.0","id":10,"result":{}}`, source: "post"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tr.Send(ctx, []byte(tt.msg))
			if tt.errText == "" && err != nil {
				t.Fatalf("Send: %v", err)
			}
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("Send = %v, want error containing %q", err, tt.errText)
				}
				assertNoSecrets(t, "Send error", err.Error())
			}
			for _, w := range tt.frames {
				f := recv(t, tr.Inbound())
				if string(f.Data) != w.data || f.Source != w.source || f.EventID != w.eventID || f.Stream != w.stream || f.Err != nil {
					t.Fatalf("frame %q source %q id %q stream %q err %v; want %q %q %q %q", f.Data, f.Source, f.EventID, f.Stream, f.Err, w.data, w.source, w.eventID, w.stream)
				}
			}
			// Anything this request wrongly delivered would arrive before the marker.
			if err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","id":9,"method":"marker"}`)); err != nil {
				t.Fatalf("marker Send: %v", err)
			}
			if f := recv(t, tr.Inbound()); string(f.Data) != `{"jsonrpc":"2.0","id":9,"result":{}}` {
				t.Fatalf("got %q, want the marker reply", f.Data)
			}
		})
	}

	var herr *HTTPStatusError
	err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","id":6,"method":"bad"}`))
	if !errors.As(err, &herr) || herr.Status != 400 || herr.ContentType != "application/json" ||
		!strings.Contains(string(herr.Body), `"code":-32600`) || !strings.Contains(string(herr.Body), "[REDACTED]") {
		t.Fatalf("Send = %#v", err)
	}
	assertNoSecrets(t, "HTTPStatusError body", string(herr.Body))

	if got := tr.SessionID(); got != "sess-1" {
		t.Fatalf("SessionID = %q, want sess-1", got)
	}
	reqs := rc.requests()
	for i, r := range reqs {
		if r.Header.Get("Authorization") != "Bearer s3cr3t-token-value" || r.Header.Get("X-Api-Key") != "key-abcdef-123456" {
			t.Errorf("request %d lacks the user headers", i)
		}
		if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Accept") != "application/json, text/event-stream" {
			t.Errorf("request %d: Content-Type %q Accept %q", i, r.Header.Get("Content-Type"), r.Header.Get("Accept"))
		}
		if got, want := r.Header.Get("Mcp-Session-Id"), map[bool]string{true: "", false: "sess-1"}[i == 0]; got != want {
			t.Errorf("request %d Mcp-Session-Id = %q, want %q", i, got, want)
		}
		if r.Header.Get("MCP-Protocol-Version") != "" {
			t.Errorf("request %d carries MCP-Protocol-Version before SetProtocolVersion", i)
		}
	}

	xs := tr.Exchanges()
	if len(xs) != len(reqs) {
		t.Fatalf("%d exchanges for %d requests", len(xs), len(reqs))
	}
	assertNoSecrets(t, "Exchanges", fmt.Sprintf("%+v", xs))
	if xs[0].Method != "POST" || xs[0].Status != 200 || xs[0].ContentType != "application/json" || xs[0].Header.Get("Mcp-Session-Id") != "sess-1" {
		t.Errorf("first exchange %+v", xs[0])
	}
	// The SSE reply's stream summary: a priming event first, and an end.
	var sx *Exchange
	for i := range xs {
		if xs[i].Stream != nil {
			sx = &xs[i]
		}
	}
	if sx == nil {
		t.Fatal("no exchange has a Stream")
	}
	deadline := time.Now().Add(10 * time.Second)
	for sx.Stream.Ended.IsZero() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		for _, x := range tr.Exchanges() {
			if x.Stream != nil {
				sx = &x
			}
		}
	}
	if s := sx.Stream; !s.FirstHasID || s.FirstID != "prime-1" || !s.FirstEmpty || s.Events != 3 || s.Retry != 1000 || s.EndReason != "eof" {
		t.Errorf("Stream = %+v", *s)
	}
}

func TestStreamableProtocolVersionHeader(t *testing.T) {
	srv, rc := newMCPServer(t)
	tr := dialStreamable(t, srv.URL, nil)
	ctx := bg(t, 10*time.Second)
	for _, v := range []string{"", "2025-06-18", "2025-11-25", ""} {
		tr.SetProtocolVersion(v)
		if err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/x"}`)); err != nil {
			t.Fatal(err)
		}
		reqs := rc.requests()
		last := reqs[len(reqs)-1]
		if got := last.Header.Get("MCP-Protocol-Version"); got != v {
			t.Errorf("MCP-Protocol-Version = %q, want %q", got, v)
		}
		if vs := last.Header.Values("Mcp-Protocol-Version"); len(vs) > 1 {
			t.Errorf("header sent %d times", len(vs))
		}
	}
}

func TestStreamableGetStream(t *testing.T) {
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		ok      bool
		errText string
		frames  []string
	}{
		{"405", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusMethodNotAllowed) }, false, "", nil},
		{"stream", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, "id: g0\ndata:\n\n")
			sseWrite(w, "id: g1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
			sseWrite(w, "event: other\ndata: {\"ignored\":true}\n\n")
			sseWrite(w, "data: not json\n\n")
		}, true, "", []string{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, "not json"}},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "boom")
		}, false, "HTTP 500 Internal Server Error: boom", nil},
		{"wrong content type", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>")
		}, false, `Content-Type "text/html"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got http.Header
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					w.Header().Set("Mcp-Session-Id", "s-get")
					w.WriteHeader(http.StatusAccepted)
					return
				}
				if r.Method == http.MethodGet {
					mu.Lock()
					got = r.Header.Clone()
					mu.Unlock()
				}
				tt.handler(w, r)
			}))
			t.Cleanup(srv.Close) // after the transport's Close (cleanups run last first)
			tr := dialStreamable(t, srv.URL, nil)
			ctx := bg(t, 10*time.Second)
			if err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
				t.Fatal(err)
			}
			tr.SetProtocolVersion("2025-06-18")
			ok, err := tr.OpenGetStream(ctx)
			if ok != tt.ok || (tt.errText == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.errText)) {
				t.Fatalf("OpenGetStream = %v, %v; want %v, error containing %q", ok, err, tt.ok, tt.errText)
			}
			mu.Lock()
			h := got
			mu.Unlock()
			if h.Get("Accept") != "text/event-stream" || h.Get("Mcp-Session-Id") != "s-get" ||
				h.Get("MCP-Protocol-Version") != "2025-06-18" || h.Get("Authorization") == "" {
				t.Errorf("GET headers: Accept %q session %q version %q auth set %v", h.Get("Accept"),
					h.Get("Mcp-Session-Id"), h.Get("MCP-Protocol-Version"), h.Get("Authorization") != "")
			}
			for i, want := range tt.frames {
				f := recv(t, tr.Inbound())
				if string(f.Data) != want || f.Source != "get" {
					t.Fatalf("frame %d = %q from %q, want %q", i, f.Data, f.Source, want)
				}
				if want == "not json" && !errors.Is(f.Err, ErrNotJSON) {
					t.Fatalf("frame %d Err = %v", i, f.Err)
				}
				if i == 0 && f.EventID != "g1" {
					t.Fatalf("EventID = %q", f.EventID)
				}
			}
			xs := tr.Exchanges()
			if x := xs[len(xs)-1]; x.Method != "GET" {
				t.Fatalf("last exchange %+v", x)
			}
		})
	}
}

func TestStreamableOversizeEvent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, "data: {\"x\":\""+strings.Repeat("x", 500)+"\"}\n\n")
		sseWrite(w, "data: {\"ok\":1}\n\n")
	}))
	defer srv.Close()
	tr := dialStreamable(t, srv.URL, func(c *HTTPConfig) { c.Limits.MaxFrame = 64 })
	if err := tr.Send(bg(t, 10*time.Second), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if f := recv(t, tr.Inbound()); !errors.Is(f.Err, ErrFrameTooLarge) || len(f.Data) != 64 {
		t.Fatalf("frame %d bytes, Err %v", len(f.Data), f.Err)
	}
	if f := recv(t, tr.Inbound()); string(f.Data) != `{"ok":1}` || f.Err != nil {
		t.Fatalf("frame %q, Err %v", f.Data, f.Err)
	}
}

func TestStreamableServerNeverAnswers(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	tr := dialStreamable(t, srv.URL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Send = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Send took %v", d)
	}
	assertNoSecrets(t, "error", err.Error())
	ok, err := tr.OpenGetStream(ctx)
	if ok || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("OpenGetStream = %v, %v", ok, err)
	}
}

func TestStreamableCloseWithOpenStreams(t *testing.T) {
	var handlers sync.WaitGroup
	sid := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			sid <- r.Header.Get("Mcp-Session-Id")
			w.WriteHeader(http.StatusOK)
			return
		case http.MethodPost:
			w.Header().Set("Mcp-Session-Id", "sess-close")
		}
		handlers.Add(1)
		defer handlers.Done()
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, "data: {\"open\":\""+r.Method+"\"}\n\n")
		<-r.Context().Done() // held open until the client goes away
	}))
	defer srv.Close()
	before := runtime.NumGoroutine()

	tr, err := DialStreamableHTTP(context.Background(), HTTPConfig{URL: srv.URL, Headers: secretHeaders()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := bg(t, 10*time.Second)
	if err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)); err != nil {
		t.Fatal(err)
	}
	if ok, err := tr.OpenGetStream(ctx); !ok || err != nil {
		t.Fatalf("OpenGetStream = %v, %v", ok, err)
	}
	got := map[string]bool{}
	for range 2 {
		got[string(recv(t, tr.Inbound()).Data)] = true
	}
	if !got[`{"open":"POST"}`] || !got[`{"open":"GET"}`] {
		t.Fatalf("frames %v", got)
	}
	if err := tr.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := tr.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case s := <-sid:
		if s != "sess-close" {
			t.Fatalf("DELETE carried session %q", s)
		}
	default:
		t.Fatal("no DELETE was sent")
	}
	xs := tr.Exchanges()
	if x := xs[len(xs)-1]; x.Method != "DELETE" || x.Status != 200 {
		t.Fatalf("last exchange %+v", x)
	}
	for _, x := range xs {
		if x.Stream != nil && x.Stream.EndReason != "closed" {
			t.Errorf("%s stream EndReason %q", x.Method, x.Stream.EndReason)
		}
	}
	waitClosed(t, tr.Inbound())
	waitDone(t, tr.Done(), "Done")
	if err := tr.Err(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Err = %v", err)
	}
	if err := tr.Send(ctx, []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close = %v", err)
	}
	if _, err := tr.OpenGetStream(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("OpenGetStream after Close = %v", err)
	}
	// The server handlers saw their connections go away.
	hdone := make(chan struct{})
	go func() { handlers.Wait(); close(hdone) }()
	waitDone(t, hdone, "server handlers to end")
	srv.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d before, %d after Close", before, runtime.NumGoroutine())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDialStreamableHTTPBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://example.com/mcp", "http://", "://x", "localhost:8080/mcp"} {
		t.Run(u, func(t *testing.T) {
			if _, err := DialStreamableHTTP(context.Background(), HTTPConfig{URL: u}); err == nil {
				t.Fatalf("DialStreamableHTTP(%q) succeeded", u)
			}
		})
	}
}

// TestStreamableUnendedBody: a reply body that never ends costs no more than the
// transport's Timeout, whatever the caller's context allows (here: a minute), and
// whatever its Content-Type. A complete JSON value is delivered at once, with what
// followed it or the body's failure to end as a rejected frame after; a body that
// holds no complete value fails Send when the Timeout cuts it.
func TestStreamableUnendedBody(t *testing.T) {
	const reply = `{"jsonrpc":"2.0","id":1,"result":{}}`
	const notif = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	type frame struct {
		data  string
		err   error // nil: a valid JSON frame
		inErr string
	}
	for _, tt := range []struct {
		name   string
		modern bool
		status int
		ctype  string
		writes []string // flushed one by one, a pause between them; then the body stays open
		fails  bool     // Send fails,
		wraps  []error  // with an error wrapping each of these
		inErr  string   // and saying this
		frames []frame
	}{
		{name: "reply, then open", writes: []string{reply + "\n"},
			frames: []frame{{data: reply + "\n"}, {err: ErrBodyNotEnded, inErr: "went on after its JSON value"}}},
		{name: "reply and a second frame, then open", writes: []string{reply + "\n" + notif + "\n"},
			frames: []frame{{data: reply + "\n" + notif + "\n", err: ErrNotJSON, inErr: "after top-level value"}}},
		{name: "reply, later a second frame, then open", writes: []string{reply + "\n", notif + "\n"},
			frames: []frame{{data: reply + "\n"}, {data: notif + "\n", err: ErrNotJSON, inErr: "after the JSON value"}}},
		{name: "2026-07-28 listen answered by a JSON body that stays open", modern: true, writes: []string{notif + "\n"},
			frames: []frame{{data: notif + "\n"}, {err: ErrBodyNotEnded}}},
		{name: "part of a reply, then open", writes: []string{`{"jsonrpc":"2.0","id":1,"res`},
			fails: true, wraps: []error{ErrBodyNotEnded, context.DeadlineExceeded}, inErr: "28 bytes read"},
		{name: "text, then open", ctype: "text/plain", writes: []string{"working…"},
			fails: true, wraps: []error{ErrBodyNotEnded}},
		{name: "an error status, then open", status: http.StatusInternalServerError, writes: []string{"internal"},
			fails: true, inErr: "HTTP 500 Internal Server Error: internal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", cmp.Or(tt.ctype, "application/json"))
				w.WriteHeader(cmp.Or(tt.status, http.StatusOK))
				for i, s := range tt.writes {
					if i > 0 {
						time.Sleep(200 * time.Millisecond) // well within the Timeout
					}
					io.WriteString(w, s)
					w.(http.Flusher).Flush()
				}
				select { // held open until the client goes away
				case <-r.Context().Done():
				case <-release:
				}
			}))
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(release) })
			tr := dialStreamable(t, srv.URL, func(c *HTTPConfig) { c.Timeout = time.Second })
			method := "tools/list"
			if tt.modern {
				tr.SetModern("2026-07-28")
				method = "subscriptions/listen"
			}
			start := time.Now()
			err := tr.Send(bg(t, time.Minute), []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`))
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("Send took %s", d)
			}
			if (err != nil) != tt.fails {
				t.Fatalf("Send = %v; want an error %v", err, tt.fails)
			}
			for _, want := range tt.wraps {
				if !errors.Is(err, want) {
					t.Errorf("Send = %v; want it to wrap %v", err, want)
				}
			}
			if err != nil && !strings.Contains(err.Error(), tt.inErr) {
				t.Errorf("Send = %v; want it to say %q", err, tt.inErr)
			}
			for i, want := range tt.frames {
				f := recv(t, tr.Inbound())
				if string(f.Data) != want.data || f.JSON != (want.err == nil) || !errors.Is(f.Err, want.err) ||
					(f.Err != nil && !strings.Contains(f.Err.Error(), want.inErr)) || f.Source != "post" {
					t.Fatalf("frame %d = %q (JSON %v, Err %v, from %q); want %q, Err %v saying %q", i, f.Data, f.JSON, f.Err, f.Source, want.data, want.err, want.inErr)
				}
			}
			select {
			case f := <-tr.Inbound():
				t.Fatalf("one frame too many: %q, Err %v", f.Data, f.Err)
			case <-time.After(100 * time.Millisecond):
			}
		})
	}
}

// TestStreamableEndlessEventLine: an SSE data line that never ends is delivered as an
// oversize event as soon as it passes the bound, and its stream is closed once the
// rest has gone on for the transport's Timeout, instead of being read until Close.
func TestStreamableEndlessEventLine(t *testing.T) {
	stopped := make(chan int64, 1) // how much the server wrote before its writes failed
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: ")
		chunk := []byte(strings.Repeat("a", 64<<10))
		var n int64
		for n < 8<<30 {
			if _, err := w.Write(chunk); err != nil {
				break
			}
			w.(http.Flusher).Flush()
			n += int64(len(chunk))
			time.Sleep(time.Millisecond)
		}
		stopped <- n
	}))
	t.Cleanup(srv.Close)
	tr := dialStreamable(t, srv.URL, func(c *HTTPConfig) {
		c.Limits.MaxFrame = 256 << 10
		c.Timeout = 300 * time.Millisecond
	})
	if err := tr.Send(bg(t, 10*time.Second), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)); err != nil {
		t.Fatal(err)
	}
	f := recv(t, tr.Inbound())
	if !errors.Is(f.Err, ErrFrameTooLarge) || !strings.Contains(f.Err.Error(), "an SSE event of more than 262144 bytes") || f.Stream != "7" {
		t.Fatalf("frame Err %v on stream %q; want an SSE event of more than 262144 bytes on stream 7", f.Err, f.Stream)
	}
	select {
	case n := <-stopped:
		t.Logf("the server wrote %d bytes before the stream was closed", n)
	case <-time.After(10 * time.Second):
		t.Fatal("the stream was still being read after 10 s")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		x := tr.Exchanges()[0]
		if !x.Stream.Ended.IsZero() {
			if !strings.Contains(x.Stream.EndReason, "the stream was closed") {
				t.Fatalf("EndReason %q", x.Stream.EndReason)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stream is not recorded as ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Drain after an accepted DELETE: a GET stream the server ends is read to its end;
// one it keeps open is given TrailGrace and left to Close, not waited for until the
// context ends (the mcp-go server keeps its GET stream open after the DELETE). Either
// way the message the server wrote on it before answering the DELETE is delivered.
func TestStreamableDrainAfterDelete(t *testing.T) {
	tests := []struct {
		name     string
		endOnDel bool
		want     bool
	}{
		{"GET stream ended by the DELETE", true, true},
		{"GET stream kept open after the DELETE", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deleted := make(chan struct{})
			getOpen := make(chan http.Flusher, 1)
			var getW http.ResponseWriter
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.Method {
				case http.MethodPost:
					w.Header().Set("Mcp-Session-Id", "sess-drain")
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
				case http.MethodGet:
					w.Header().Set("Content-Type", "text/event-stream")
					sseWrite(w, ": open\n\n")
					getW = w
					getOpen <- w.(http.Flusher)
					<-deleted
					if !tt.endOnDel {
						<-r.Context().Done() // the session "lives on" for this stream
					}
				case http.MethodDelete:
					// A notification on the GET stream before the DELETE is answered.
					sseWrite(getW, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n")
					close(deleted)
					w.WriteHeader(http.StatusOK)
				}
			}))
			defer srv.Close()
			tr := dialStreamable(t, srv.URL, nil)
			ctx := bg(t, 30*time.Second)
			if err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)); err != nil {
				t.Fatal(err)
			}
			recv(t, tr.Inbound())
			if ok, err := tr.OpenGetStream(ctx); !ok || err != nil {
				t.Fatalf("OpenGetStream = %v, %v", ok, err)
			}
			<-getOpen
			if got := tr.Drain(ctx); got != tt.want {
				t.Errorf("Drain = %v, want %v", got, tt.want)
			}
			if ctx.Err() != nil {
				t.Fatalf("Drain returned only when its context ended: %v", ctx.Err())
			}
			if f := recv(t, tr.Inbound()); !strings.Contains(string(f.Data), "notifications/message") {
				t.Fatalf("frame %q, want the notification sent before the DELETE was answered", f.Data)
			}
			if err := tr.Close(ctx); err != nil {
				t.Fatalf("Close: %v", err)
			}
		})
	}
}

// ExchangesFrom is the tail of Exchanges after the first n, a copy like it: a probe
// reads its own requests' exchanges without copying the session's whole record.
func TestExchangesFrom(t *testing.T) {
	record := []Exchange{{Method: "POST", Status: 200, Stream: &StreamInfo{IDs: []string{"a"}}}, {Method: "POST", Status: 202}, {Method: "GET", Status: 405}}
	type recorder interface {
		ExchangeCount() int
		ExchangesFrom(n int) []Exchange
	}
	for _, tr := range []recorder{&StreamableHTTP{exchangeRecord: exchangeRecord{exchanges: record}}, &SSE{exchangeRecord: exchangeRecord{exchanges: record}}} {
		if got := tr.ExchangeCount(); got != len(record) {
			t.Errorf("%T: ExchangeCount %d, want %d", tr, got, len(record))
		}
		for _, tc := range []struct {
			n    int
			want []int
		}{{0, []int{200, 202, 405}}, {1, []int{202, 405}}, {3, nil}, {7, nil}, {-1, []int{200, 202, 405}}} {
			var got []int
			for _, x := range tr.ExchangesFrom(tc.n) {
				got = append(got, x.Status)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%T: ExchangesFrom(%d) statuses %v, want %v", tr, tc.n, got, tc.want)
			}
		}
		xs := tr.ExchangesFrom(0)
		xs[0].Stream.IDs[0] = "changed"
		if record[0].Stream.IDs[0] != "a" {
			t.Fatalf("%T: ExchangesFrom shares the record's stream ids", tr)
		}
	}
}
