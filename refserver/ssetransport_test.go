package refserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// openSSE opens an HTTP+SSE stream and returns the endpoint path and the events.
func openSSE(t *testing.T, srv *httptest.Server, ctx context.Context) (string, <-chan sseEvent) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /sse: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := make(chan sseEvent, 64)
	go func() {
		defer resp.Body.Close()
		defer close(events)
		readSSE(resp.Body, func(ev sseEvent) bool { events <- ev; return true })
	}()
	ev := nextEvent(t, events)
	if ev.name != "endpoint" || !strings.HasPrefix(ev.data, "/messages?sessionId=") {
		t.Fatalf("first event = %+v, want endpoint", ev)
	}
	return ev.data, events
}

func nextEvent(t *testing.T, events <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("stream ended")
		}
		return ev
	case <-time.After(recvTimeout):
		t.Fatal("no event")
	}
	return sseEvent{}
}

func TestSSETransport(t *testing.T) {
	noLeaks(t)
	h := NewSSEHandler(Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.(io.Closer).Close()
	ctx, cancel := context.WithCancel(context.Background())
	endpoint, events := openSSE(t, srv, ctx)

	post := func(path, body string, headers ...string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}

	if code := post(endpoint, initLine); code != http.StatusAccepted {
		t.Fatalf("POST initialize: %d", code)
	}
	ev := nextEvent(t, events)
	if ev.name != "message" || !strings.Contains(ev.data, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize reply = %+v", ev)
	}
	cases := []struct {
		name, path, body string
		headers          []string
		want             int
		event            string // substring of the event the POST causes, "" for none
	}{
		{"notification", endpoint, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, 202, ""},
		{"ping", endpoint, pingBody, nil, 202, `"id":9`},
		{"unparseable", endpoint, `{"jsonrpc":`, nil, 400, `"code":-32700`},
		{"unknown session", "/messages?sessionId=nope", pingBody, nil, 404, ""},
		{"missing session", "/messages", pingBody, nil, 400, ""},
		{"evil origin", endpoint, pingBody, []string{"Origin", "http://evil.example"}, 403, ""},
		{"tool call", endpoint, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"test_simple_text"}}`, nil, 202, `"id":10`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if code := post(tc.path, tc.body, tc.headers...); code != tc.want {
				t.Fatalf("status %d, want %d", code, tc.want)
			}
			if tc.event != "" {
				if ev := nextEvent(t, events); ev.name != "message" || !strings.Contains(ev.data, tc.event) {
					t.Fatalf("event = %+v, want %s", ev, tc.event)
				}
			}
		})
	}
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/messages", 405},
		{http.MethodPost, "/sse", 405},
		{http.MethodGet, "/elsewhere", 404},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
		}
	}

	cancel() // the client leaves: the session ends
	for range events {
	}
	deadline := time.Now().Add(recvTimeout)
	for post(endpoint, pingBody) != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatal("session outlived its stream")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSSEOriginOnGet(t *testing.T) {
	h := NewSSEHandler(Options{})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/sse", nil)
	req.Header.Set("Origin", "https://evil.example")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("status %d, want 403", rec.Code)
	}
}
