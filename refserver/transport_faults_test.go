package refserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// isTransportFault reports whether a fault bites only over a legacy HTTP transport.
func isTransportFault(f Fault) bool {
	return f.Transport == transportLegacyHTTP || f.Transport == transportSSE
}

// legacyHTTPTranscript drives a Streamable HTTP server through every behaviour a
// legacy HTTP fault can break, in a 2025-11-25 session, and returns one line per
// exchange: the status, and what the rule at hand reads (the shape of a session id,
// a Content-Type).
func legacyHTTPTranscript(t *testing.T, opts Options) string {
	opts.Era = EraLegacy
	s := newSHTTP(t, opts)
	const rev = "2025-11-25"
	var out []string
	shape := func(sid string) string {
		switch {
		case sid == "":
			return "none"
		case strings.Contains(sid, " "):
			return "spaced"
		case strings.HasPrefix(sid, "mcp-session-"):
			return "counter"
		}
		return "random"
	}
	note := func(what string, r httpReply, extra string) {
		out = append(out, fmt.Sprintf("%s %d %s", what, r.status, extra))
	}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, rev)
	r := s.post("", "", init)
	sid := r.header.Get(headerSessionID)
	note("initialize", r, shape(sid))
	r = s.post(sid, rev, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	note("initialized", r, fmt.Sprintf("other-id=%v", r.header.Get(headerSessionID) != ""))

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.srv.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerSessionID, sid)
	if resp, err := s.srv.Client().Do(req); err == nil {
		out = append(out, fmt.Sprintf("GET %d", resp.StatusCode))
		cancel()
		_ = resp.Body.Close()
	}
	cancel()

	note("bad version", s.post(sid, "1999-01-01", pingBody), "")
	note("no version", s.post(sid, "", pingBody), "")
	note("no session", s.post("", rev, pingBody), "")
	note("method 5", s.post(sid, rev, `{"jsonrpc":"2.0","method":5}`), "")
	note("unparseable", s.post(sid, rev, `{`), "")
	r = s.post(sid, rev, pingBody)
	note("ping", r, r.header.Get("Content-Type"))
	h := postHeaders(sid, rev)
	h["Origin"] = "http://evil.invalid"
	note("foreign origin", s.do(http.MethodPost, pingBody, h), "")
	note("DELETE", s.do(http.MethodDelete, "", map[string]string{headerSessionID: sid}), "")
	note("after DELETE", s.post(sid, rev, pingBody), "")
	r = s.post("", "", init)
	note("initialize again", r, shape(r.header.Get(headerSessionID)))
	return strings.Join(out, "\n")
}

// Every legacy HTTP fault changes what the Streamable HTTP server answers (the
// HTTP+SSE faults: sseTranscript). The self-test proves which checks each flips.
func TestEveryLegacyHTTPFaultIsObservable(t *testing.T) {
	clean := legacyHTTPTranscript(t, Options{})
	for _, want := range []string{"initialize 200 random", "GET 200", "bad version 400", "no version 200", "no session 400",
		"method 5 400", "unparseable 400", "ping 200 application/json", "foreign origin 403", "DELETE 200", "after DELETE 404", "initialize again 200 random"} {
		if !strings.Contains(clean, want) {
			t.Errorf("the clean transcript lacks %q:\n%s", want, clean)
		}
	}
	for _, f := range Faults() {
		if f.Transport != transportLegacyHTTP {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			if _, err := newConfig(Options{Faults: map[string]bool{f.Name: true}}); err != nil {
				t.Fatalf("fault %s is refused: %v", f.Name, err)
			}
			if got := legacyHTTPTranscript(t, Options{Faults: map[string]bool{f.Name: true}}); got == clean {
				t.Errorf("the server answers the same with fault %s on as without it:\n%s", f.Name, got)
			}
		})
	}
	if !slices.ContainsFunc(Faults(), isTransportFault) {
		t.Fatal("no legacy HTTP fault in the catalogue")
	}
}

// sseTranscript drives an HTTP+SSE server through what the HTTP+SSE faults break: a
// stream opened from a foreign Origin, and the events that carry the replies to an
// initialize and a ping.
func sseTranscript(t *testing.T, opts Options) string {
	opts.Era = EraLegacy
	h := NewSSEHandler(opts)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.(io.Closer).Close()
	var out []string
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/sse", nil)
	req.Header.Set("Origin", "http://evil.invalid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if resp, err := srv.Client().Do(req.WithContext(ctx)); err == nil {
		out = append(out, fmt.Sprintf("foreign GET %d", resp.StatusCode))
		_ = resp.Body.Close()
	}
	// The stream's events up to the endpoint event (sse-endpoint-not-first sends one
	// before it).
	greq, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sse", nil)
	greq.Header.Set("Accept", "text/event-stream")
	resp, err := srv.Client().Do(greq)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan sseEvent, 64)
	go func() {
		defer resp.Body.Close()
		defer close(events)
		readSSE(resp.Body, func(ev sseEvent) bool { events <- ev; return true })
	}()
	endpoint := ""
	for endpoint == "" {
		ev := nextEvent(t, events)
		out = append(out, "event "+ev.name)
		if ev.name == "endpoint" {
			endpoint = ev.data
		}
	}
	post := func(body string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		out = append(out, fmt.Sprintf("POST %d", resp.StatusCode))
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if out[len(out)-1] != "POST 202" {
		return strings.Join(out, "\n") // refused: no reply will come on the stream
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	// A second ping is the barrier: every event the first one caused comes before
	// its reply.
	post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	for {
		ev := nextEvent(t, events)
		if strings.Contains(ev.data, `"id":3`) {
			break
		}
		out = append(out, "event "+ev.name)
	}
	return strings.Join(out, "\n")
}

func TestEverySSEFaultIsObservable(t *testing.T) {
	clean := sseTranscript(t, Options{})
	if !strings.Contains(clean, "foreign GET 403") || strings.Contains(clean, "event response") {
		t.Errorf("clean transcript:\n%s", clean)
	}
	for _, f := range Faults() {
		if f.Transport != transportSSE {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			if _, err := newConfig(Options{Faults: map[string]bool{f.Name: true}}); err != nil {
				t.Fatalf("fault %s is refused: %v", f.Name, err)
			}
			if got := sseTranscript(t, Options{Faults: map[string]bool{f.Name: true}}); got == clean {
				t.Errorf("the server answers the same with fault %s on as without it:\n%s", f.Name, got)
			}
		})
	}
}
