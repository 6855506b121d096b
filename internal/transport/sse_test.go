package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// legacyServer implements the 2024-11-05 HTTP+SSE pattern: GET /sse opens the stream
// and announces /messages?sessionId=abc; POSTs there are answered 202 and the
// JSON-RPC response is pushed on the stream as a message event.
type legacyServer struct {
	*httptest.Server
	push     chan string
	mu       sync.Mutex
	headers  []http.Header
	handlers sync.WaitGroup
	endAfter int // the GET handler returns after pushing this many messages (0: never)
}

var idRE = regexp.MustCompile(`"id":(\d+)`)

func newLegacyServer(t *testing.T, endAfter int) *legacyServer {
	ls := &legacyServer{push: make(chan string, 16), endAfter: endAfter}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
		ls.handlers.Add(1)
		defer ls.handlers.Done()
		ls.record(r)
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, ": hello\n\nevent: endpoint\ndata: /messages?sessionId=abc\n\n")
		for n := 1; ; n++ {
			select {
			case m := <-ls.push:
				sseWrite(w, fmt.Sprintf("event: message\nid: %d\ndata: %s\n\n", n, m))
				if n == ls.endAfter {
					return
				}
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("POST /messages", func(w http.ResponseWriter, r *http.Request) {
		ls.record(r)
		body, _ := io.ReadAll(r.Body)
		if r.URL.Query().Get("sessionId") != "abc" {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		if strings.Contains(string(body), `"reject"`) {
			http.Error(w, "rejected", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		if m := idRE.FindStringSubmatch(string(body)); m != nil {
			ls.push <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m[1])
		}
	})
	ls.Server = httptest.NewServer(mux)
	t.Cleanup(ls.Close)
	return ls
}

func (ls *legacyServer) record(r *http.Request) {
	ls.mu.Lock()
	ls.headers = append(ls.headers, r.Header.Clone())
	ls.mu.Unlock()
}

func dialSSE(t *testing.T, url string) *SSE {
	t.Helper()
	tr, err := DialSSE(bg(t, 10*time.Second), HTTPConfig{URL: url, Headers: secretHeaders()})
	if err != nil {
		t.Fatalf("DialSSE: %v", err)
	}
	t.Cleanup(func() {
		if err := tr.Close(bg(t, 10*time.Second)); err != nil {
			t.Errorf("cleanup Close: %v", err)
		}
	})
	return tr
}

func TestSSERoundTrip(t *testing.T) {
	ls := newLegacyServer(t, 0)
	tr := dialSSE(t, ls.URL+"/sse")
	if tr.Kind() != "sse" || tr.Err() != nil {
		t.Fatalf("kind %q err %v", tr.Kind(), tr.Err())
	}
	if got, want := tr.Endpoint(), ls.URL+"/messages?sessionId=abc"; got != want {
		t.Fatalf("Endpoint = %q, want %q", got, want)
	}
	ctx := bg(t, 10*time.Second)
	for i := 1; i <= 3; i++ {
		if err := tr.Send(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)); err != nil {
			t.Fatalf("Send: %v", err)
		}
		f := recv(t, tr.Inbound())
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i)
		if string(f.Data) != want || f.Source != "sse" || f.EventID != fmt.Sprint(i) || f.Err != nil {
			t.Fatalf("frame %q source %q id %q err %v", f.Data, f.Source, f.EventID, f.Err)
		}
	}
	err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","id":9,"method":"reject"}`))
	var herr *HTTPStatusError
	if !errors.As(err, &herr) || herr.Status != 400 || !strings.Contains(string(herr.Body), "rejected") {
		t.Fatalf("Send = %v, want HTTPStatusError 400", err)
	}

	xs := tr.Exchanges()
	wantX := []struct {
		method string
		status int
	}{{"GET", 200}, {"POST", 202}, {"POST", 202}, {"POST", 202}, {"POST", 400}}
	if len(xs) != len(wantX) {
		t.Fatalf("%d exchanges: %+v", len(xs), xs)
	}
	for i, w := range wantX {
		if xs[i].Method != w.method || xs[i].Status != w.status {
			t.Errorf("exchange %d = %s %d, want %s %d", i, xs[i].Method, xs[i].Status, w.method, w.status)
		}
	}
	assertNoSecrets(t, "Exchanges", fmt.Sprintf("%+v", xs))
	ls.mu.Lock()
	for i, h := range ls.headers {
		if h.Get("Authorization") != "Bearer s3cr3t-token-value" {
			t.Errorf("request %d lacks the user headers", i)
		}
		if i == 0 && h.Get("Accept") != "text/event-stream" {
			t.Errorf("GET Accept = %q", h.Get("Accept"))
		}
		if i > 0 && h.Get("Content-Type") != "application/json" {
			t.Errorf("POST Content-Type = %q", h.Get("Content-Type"))
		}
	}
	ls.mu.Unlock()

	if err := tr.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := tr.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	waitClosed(t, tr.Inbound())
	waitDone(t, tr.Done(), "Done")
	if !errors.Is(tr.Err(), ErrClosed) {
		t.Fatalf("Err = %v", tr.Err())
	}
	if err := tr.Send(ctx, []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close = %v", err)
	}
	hdone := make(chan struct{})
	go func() { ls.handlers.Wait(); close(hdone) }()
	waitDone(t, hdone, "the GET handler to see the client leave")
}

func TestSSEServerEndsStream(t *testing.T) {
	ls := newLegacyServer(t, 1)
	tr := dialSSE(t, ls.URL+"/sse")
	if err := tr.Send(bg(t, 10*time.Second), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	recv(t, tr.Inbound())
	waitClosed(t, tr.Inbound())
	waitDone(t, tr.Done(), "Done")
	if err := tr.Err(); err == nil || errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "event stream ended") {
		t.Fatalf("Err = %v", err)
	}
	if err := tr.Send(bg(t, 10*time.Second), []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after the stream ended = %v", err)
	}
}

func TestDialSSEFailures(t *testing.T) {
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		errIs   error
		status  int // want *HTTPStatusError with this status
	}{
		{"first event is not endpoint", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, "event: message\ndata: {}\n\nevent: endpoint\ndata: /m\n\n")
		}, ErrNoEndpointEvent, 0},
		{"default type first", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, "data: /m\n\n")
		}, ErrNoEndpointEvent, 0},
		{"JSON instead of a stream", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{}`)
		}, ErrNoEndpointEvent, 0},
		{"stream ends before any event", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, ": nothing\n\nevent: endpoint\n") // incomplete: discarded
		}, ErrNoEndpointEvent, 0},
		{"endpoint not http", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, "event: endpoint\ndata: ftp://example.com/m\n\n")
		}, ErrNoEndpointEvent, 0},
		{"empty endpoint", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, "event: endpoint\ndata:\n\n")
		}, ErrNoEndpointEvent, 0},
		{"401", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no entry for "+r.Header.Get("X-Api-Key"), http.StatusUnauthorized)
		}, nil, 401},
		{"never sends an event", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			sseWrite(w, ": waiting\n\n")
			<-r.Context().Done()
		}, context.DeadlineExceeded, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(tt.handler))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			tr, err := DialSSE(ctx, HTTPConfig{URL: srv.URL + "/sse", Headers: secretHeaders()})
			if err == nil {
				tr.Close(ctx)
				t.Fatal("DialSSE succeeded")
			}
			assertNoSecrets(t, "error", err.Error())
			if tt.status != 0 {
				var herr *HTTPStatusError
				if !errors.As(err, &herr) || herr.Status != tt.status {
					t.Fatalf("DialSSE = %v, want HTTPStatusError %d", err, tt.status)
				}
				return
			}
			if !errors.Is(err, tt.errIs) {
				t.Fatalf("DialSSE = %v, want %v", err, tt.errIs)
			}
		})
	}
}

func TestSSEAbsoluteEndpoint(t *testing.T) {
	posted := make(chan struct{}, 1)
	var srvURL string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posted <- struct{}{}
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		sseWrite(w, "event: endpoint\r\ndata: "+srvURL+"/post?x=1\r\n\r\n")
		<-r.Context().Done()
	}))
	defer srv.Close()
	srvURL = srv.URL
	tr := dialSSE(t, srv.URL)
	if tr.Endpoint() != srv.URL+"/post?x=1" {
		t.Fatalf("Endpoint = %q", tr.Endpoint())
	}
	if err := tr.Send(bg(t, 10*time.Second), []byte(`{}`)); err != nil {
		t.Fatalf("Send: %v", err)
	}
	select {
	case <-posted:
	case <-time.After(10 * time.Second):
		t.Fatal("the POST did not reach the absolute endpoint")
	}
	if err := tr.Close(bg(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
}

// TestSSEOffOriginEndpointGetsNoRequest: an endpoint on another origin (here another
// port of the same host) is refused, and nothing, the user's headers least of all,
// is sent there.
func TestSSEOffOriginEndpointGetsNoRequest(t *testing.T) {
	reached := make(chan http.Header, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- r.Header.Clone()
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, "event: endpoint\ndata: "+other.URL+"/post\n\n")
		<-r.Context().Done()
	}))
	defer srv.Close()
	tr, err := DialSSE(bg(t, 10*time.Second), HTTPConfig{URL: srv.URL + "/sse", Headers: secretHeaders()})
	if err == nil {
		tr.Close(bg(t, 10*time.Second))
		t.Fatal("DialSSE accepted an endpoint on another origin")
	}
	if !errors.Is(err, ErrEndpointOffOrigin) || !errors.Is(err, ErrNoEndpointEvent) {
		t.Fatalf("DialSSE = %v, want ErrEndpointOffOrigin", err)
	}
	assertNoSecrets(t, "error", err.Error())
	select {
	case h := <-reached:
		t.Fatalf("a request reached the other origin, with headers %v", h)
	default:
	}
}

func TestOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"http://h/x", "http://H:80/y", true},
		{"https://h/x", "https://h:443", true},
		{"http://h:8080/x", "http://h:8081/x", false},
		{"http://h/x", "https://h/x", false},
		{"http://a.example/x", "http://b.example/x", false},
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := Origin(a) == Origin(b); got != tt.same {
			t.Errorf("same origin(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

func TestDialSSEBadURL(t *testing.T) {
	for _, u := range []string{"", "ws://example.com/sse", "http://"} {
		if _, err := DialSSE(context.Background(), HTTPConfig{URL: u}); err == nil {
			t.Errorf("DialSSE(%q) succeeded", u)
		}
	}
}

// TestSSEUnended: on HTTP+SSE, an event stream whose data line never ends gives an
// oversize frame at once and ends the transport once the rest has gone on for the
// Timeout; a POST accepted with a body that never ends costs Send no more than the
// Timeout, whatever the caller's context allows.
func TestSSEUnended(t *testing.T) {
	for _, tt := range []struct {
		name       string
		endless    bool // the event stream sends an endless data line after the endpoint
		postBody   bool // the POST's 202 has a body that never ends
		frameErr   error
		transportE string // the transport ends saying this ("" it lives on)
	}{
		{name: "endless data line", endless: true, frameErr: ErrFrameTooLarge, transportE: "the stream was closed"},
		{name: "POST body that never ends", postBody: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			hold := func(r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-release:
				}
			}
			mux := http.NewServeMux()
			mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				sseWrite(w, "event: endpoint\ndata: /messages\n\n")
				if !tt.endless {
					hold(r)
					return
				}
				io.WriteString(w, "data: ")
				chunk := []byte(strings.Repeat("a", 64<<10))
				for range 1 << 17 { // 8 GiB, or until the client goes away
					if _, err := w.Write(chunk); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					time.Sleep(time.Millisecond)
				}
			})
			mux.HandleFunc("POST /messages", func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusAccepted)
				if tt.postBody {
					io.WriteString(w, "accepted")
					w.(http.Flusher).Flush()
					hold(r)
				}
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			t.Cleanup(func() { close(release) })
			tr, err := DialSSE(bg(t, 10*time.Second), HTTPConfig{URL: srv.URL + "/sse", Limits: Limits{MaxFrame: 256 << 10}, Timeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tr.Close(bg(t, 10*time.Second)) })
			start := time.Now()
			if err := tr.Send(bg(t, time.Minute), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
				t.Fatalf("Send: %v", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("Send took %s", d)
			}
			if tt.frameErr != nil {
				if f := recv(t, tr.Inbound()); !errors.Is(f.Err, tt.frameErr) {
					t.Fatalf("frame Err %v, want %v", f.Err, tt.frameErr)
				}
			}
			if tt.transportE == "" {
				if err := tr.Err(); err != nil {
					t.Fatalf("the transport ended: %v", err)
				}
				return
			}
			waitDone(t, tr.Done(), "the transport to end")
			if err := tr.Err(); err == nil || !strings.Contains(err.Error(), tt.transportE) {
				t.Fatalf("Err = %v; want it to say %q", err, tt.transportE)
			}
		})
	}
}

// A probe GET carries its header overrides and is recorded, and so does a POST with
// the overrides of WithHeaders.
func TestSSEProbeOverridesAndIgnoredEvents(t *testing.T) {
	ls := newLegacyServer(t, 0)
	tr := dialSSE(t, ls.URL+"/sse")
	ctx := bg(t, 10*time.Second)
	x, err := tr.ProbeStream(ctx, http.Header{"Origin": {"http://mcp-conform.invalid"}})
	if err != nil || x.Method != http.MethodGet || x.Status != http.StatusOK {
		t.Fatalf("ProbeStream = %+v, %v", x, err)
	}
	if err := tr.Send(WithHeaders(ctx, http.Header{"Origin": {"http://mcp-conform.invalid"}}), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatalf("Send: %v", err)
	}
	recv(t, tr.Inbound())
	ls.mu.Lock()
	for i, h := range ls.headers[1:] {
		if h.Get("Origin") != "http://mcp-conform.invalid" {
			t.Errorf("request %d: Origin %q, want the override", i+1, h.Get("Origin"))
		}
	}
	ls.mu.Unlock()
	if xs := tr.Exchanges(); len(xs) != 3 || xs[2].Carried != "request" {
		t.Errorf("exchanges %+v: want the stream, the probe and a POST carrying a request", xs)
	}

	if ev, n := tr.Ignored(); n != 0 || len(ev) != 0 {
		t.Fatalf("ignored %v (%d): the stream had only message events", ev, n)
	}
}

func TestSSEIgnoredEventTypes(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, "event: endpoint\ndata: /messages\n\nevent: response\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\nevent: heartbeat\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n")
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tr := dialSSE(t, srv.URL+"/sse")
	if f := recv(t, tr.Inbound()); string(f.Data) != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("frame %q, want the unnamed (message) event only", f.Data)
	}
	ev, n := tr.Ignored()
	if n != 1 || len(ev) != 1 || ev[0].Type != "response" || !strings.Contains(ev[0].Data, `"id":1`) {
		t.Fatalf("ignored %+v (%d), want the one data-carrying event of type response", ev, n)
	}
}

func TestCarries(t *testing.T) {
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`:               "request",
		`{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}`: "request",
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`: "notification",
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                   "response",
		`{"jsonrpc":"2.0","id":"x","error":{"code":1}}`:          "response",
		`{"jsonrpc":"2.0","id":1}`:                               "",
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`:        "",
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`:            "",
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`:             "",
		`{"jsonrpc":"2.0","method":5}`:                           "",
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`:               "",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`:             "",
		`{`: "",
	} {
		if got := Carries([]byte(body)); got != want {
			t.Errorf("Carries(%s) = %q, want %q", body, got, want)
		}
	}
}

// carriesDecoded is Carries as it was written with encoding/json, the reference the
// one-pass scan must agree with on which members a body has (carried then names
// the same members the same way).
func carriesDecoded(body []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || string(m["jsonrpc"]) != `"2.0"` {
		return ""
	}
	id, hasID := m["id"]
	if hasID && !validIDDecoded(id) {
		return ""
	}
	method, hasMethod := m["method"]
	var name string
	if hasMethod && json.Unmarshal(method, &name) != nil {
		return ""
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	return carried(hasID, hasMethod, hasResult, hasError)
}

// validIDDecoded is validID as it was written with encoding/json: a string, or a
// number a json.Decoder reads as an int64.
func validIDDecoded(raw json.RawMessage) bool {
	var s string
	if len(raw) > 0 && raw[0] == '"' {
		return json.Unmarshal(raw, &s) == nil
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&n) != nil {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

// Carries classifies every body as decoding it into a map did: repeated keys (the
// last wins), escaped keys, null members, white space, other JSON values, broken
// text, and random cuts and byte changes of each.
func TestCarriesAsDecoded(t *testing.T) {
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a","method":"ping","params":{"_meta":{"id":2}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"result":{"method":"x"}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":null}`,
		`{"jsonrpc":"2.0","method":null}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"id":"x","method":"ping"}`,
		`{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"a","method":5}`,
		`{"\u006asonrpc":"2.0","\u0069d":1,"m\u0065thod":"ping"}`,
		`{"jsonrpc" : "2.0" , "id" : 1 , "method" : "ping" }`,
		` {"jsonrpc":"2.0","id":1,"result":null} `,
		`{"jsonrpc":"2.0","ID":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"p\u0000ng"}`,
		`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
		`{"jsonrpc": "2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0" ,"id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"result":1}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`null`, `"2.0"`, `{}`, ``, `{`, `{"jsonrpc":"2.0",}`,
	}
	rng := rand.New(rand.NewPCG(7, 11))
	check := func(body []byte) {
		if got, want := Carries(body), carriesDecoded(body); got != want {
			t.Errorf("Carries(%q) = %q; decoded into a map: %q", body, got, want)
		}
	}
	for _, b := range bodies {
		check([]byte(b))
		for range 200 {
			m := []byte(b)
			switch rng.IntN(3) {
			case 0:
				m = m[:rng.IntN(len(m)+1)]
			case 1:
				if len(m) > 0 {
					m[rng.IntN(len(m))] = `{}[]":,\ 0129aeE.-nulltrue`[rng.IntN(26)]
				}
			case 2:
				if len(m) > 0 {
					i := rng.IntN(len(m))
					m = append(m[:i:i], append([]byte(` "id":2,`), m[i:]...)...)
				}
			}
			check(m)
		}
	}
}
