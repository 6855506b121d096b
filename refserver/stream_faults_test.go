package refserver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// streamEvent is one event of a stream the stream probe read.
type streamEvent struct {
	id, data string
	retry    bool
}

// openStream sends a request and reads its SSE reply on a goroutine; the returned
// channel yields its events and is closed when the stream ends; cancel drops it.
func (s *shttp) openStream(t *testing.T, method, sid, version, body string, extra map[string]string) (<-chan streamEvent, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequestWithContext(ctx, method, s.srv.URL, nil)
	if rd != nil {
		req, _ = http.NewRequestWithContext(ctx, method, s.srv.URL, rd)
	}
	h := postHeaders(sid, version)
	if method == http.MethodGet {
		h = map[string]string{"Accept": "text/event-stream", headerSessionID: sid, headerProtocolVersion: version}
	}
	for k, v := range extra {
		h[k] = v
	}
	for k, v := range h {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("%s: %v", method, err)
	}
	out := make(chan streamEvent, 64)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			out <- streamEvent{data: fmt.Sprintf("HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))}
			return
		}
		readSSEWithRetry(resp.Body, func(ev sseEvent, retry bool) bool {
			out <- streamEvent{id: ev.id, data: ev.data, retry: retry}
			return true
		})
	}()
	return out, cancel
}

// collect reads events until the stream ends or wait passes; it says which.
func collect(events <-chan streamEvent, wait time.Duration, stop func(streamEvent) bool) ([]streamEvent, bool) {
	var got []streamEvent
	tm := time.NewTimer(wait)
	defer tm.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return got, true
			}
			got = append(got, ev)
			if stop != nil && stop(ev) {
				return got, false
			}
		case <-tm.C:
			return got, false
		}
	}
}

// describe renders events without their session-specific bytes: each event's id as
// "#<n>" in the order ids were first seen in the whole transcript, so that a
// repeated id shows.
type idNames map[string]int

func (n idNames) describe(evs []streamEvent, ended bool) string {
	var parts []string
	for _, ev := range evs {
		p := ev.data
		if ev.id != "" {
			if _, ok := n[ev.id]; !ok {
				n[ev.id] = len(n) + 1
			}
			p = fmt.Sprintf("#%d %s", n[ev.id], p)
		}
		if ev.retry {
			p += " (retry)"
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("%s ended=%v", strings.Join(parts, " | "), ended)
}

func hasResponse(id string) func(streamEvent) bool {
	return func(ev streamEvent) bool { return strings.Contains(ev.data, `"id":`+id+`,"result"`) }
}

// streamTranscript drives two 2025-11-25 sessions and a 2026-07-28 request through
// every behaviour a stream fault breaks, and renders what came back.
func streamTranscript(t *testing.T, opts Options) string {
	s := newSHTTP(t, opts)
	const v = "2025-11-25"
	a, b := s.open(v), s.open(v)
	names := idNames{}
	var out []string
	line := func(what string, evs []streamEvent, ended bool) {
		out = append(out, what+": "+names.describe(evs, ended))
	}
	getA, stopA := s.openStream(t, http.MethodGet, a, v, "", nil)
	defer stopA()
	getB, stopB := s.openStream(t, http.MethodGet, b, v, "", nil)
	defer stopB()
	isLog := func(ev streamEvent) bool { return strings.Contains(ev.data, "Listening") }
	evs, ended := collect(getA, recvTimeout, isLog)
	line("GET a", evs, ended)
	evs, ended = collect(getB, recvTimeout, isLog)
	line("GET b", evs, ended)

	call := func(id int, tool, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":{"progressToken":"tok-%d"}}}`, id, tool, args, id)
	}
	// A call with progress on its own stream.
	st, cancel := s.openStream(t, http.MethodPost, a, v, call(10, "test_tool_with_progress", "{}"), nil)
	evs, ended = collect(st, recvTimeout, nil)
	cancel()
	line("progress call", evs, ended)
	// A slow call polled: the connection closes early; another call runs; the
	// stream is resumed from its last id.
	st, cancel = s.openStream(t, http.MethodPost, a, v, call(11, "test_slow", `{"ms":450}`), nil)
	evs, ended = collect(st, recvTimeout, hasResponse("11"))
	cancel()
	line("slow call", evs, ended)
	last := ""
	for _, ev := range evs {
		if ev.id != "" {
			last = ev.id
		}
	}
	st, cancel = s.openStream(t, http.MethodPost, a, v, call(12, "test_simple_text", "{}"), nil)
	evs, ended = collect(st, recvTimeout, nil)
	cancel()
	line("simple call", evs, ended)
	if last != "" {
		st, cancel = s.openStream(t, http.MethodGet, a, v, "", map[string]string{"Last-Event-ID": last})
		evs, ended = collect(st, recvTimeout, nil)
		cancel()
		line("resumed", evs, ended)
	}
	// A short slow call: does its stream end after the response?
	st, cancel = s.openStream(t, http.MethodPost, a, v, call(13, "test_slow", `{"ms":10}`), nil)
	evs, ended = collect(st, 300*time.Millisecond, nil)
	cancel()
	line("short slow call", evs, ended)
	// A call dropped by the client, then the last cancellation.
	st, cancel = s.openStream(t, http.MethodPost, a, v, call(14, "test_slow", `{"ms":300}`), nil)
	collect(st, recvTimeout, func(ev streamEvent) bool { return ev.id != "" })
	cancel()
	time.Sleep(50 * time.Millisecond) // the server sees the disconnect
	r := s.post(a, v, call(15, "test_last_cancellation", "{}"))
	out = append(out, "last cancellation: "+string(r.body))
	// What the GET streams carried meanwhile.
	stopA()
	stopB()
	evs, ended = collect(getA, recvTimeout, nil)
	line("GET a after", evs, ended)
	evs, ended = collect(getB, recvTimeout, nil)
	line("GET b after", evs, ended)
	out = append(out, fmt.Sprintf("%d distinct ids", len(names)))
	out = append(out, modernCloseTranscript(t, opts))
	return strings.Join(out, "\n")
}

// modernCloseTranscript closes a 2026-07-28 test_slow call's stream and asks for the
// last cancellation.
func modernCloseTranscript(t *testing.T, opts Options) string {
	opts.Era = EraModern
	c := dialModernHTTP(t, opts).(*modernHTTP)
	p := modernParams(nil, map[string]any{"name": "test_slow", "arguments": map[string]any{"ms": 400}})
	p["_meta"].(map[string]any)["progressToken"] = "slow"
	ctx, cancel := context.WithCancel(context.Background())
	b := mustMarshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": p})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(string(b)))
	req.Header = standardHeaders("tools/call", p)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("POST: %v", err)
	}
	// The first event (a progress) is in: the request runs; close its stream.
	readSSE(resp.Body, func(sseEvent) bool { return false })
	cancel()
	resp.Body.Close()
	time.Sleep(50 * time.Millisecond)
	q := modernParams(nil, map[string]any{"name": "test_last_cancellation"})
	qb := mustMarshal(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": q})
	_, _, msgs := c.post(t, context.Background(), standardHeaders("tools/call", q), qb)
	var parts []string
	for _, m := range msgs {
		parts = append(parts, string(m))
	}
	return "modern last cancellation: " + strings.Join(parts, " ")
}

// TestEveryStreamFaultIsObservable runs the stream probe against the clean server
// and against each stream fault: each must change what comes back.
func TestEveryStreamFaultIsObservable(t *testing.T) {
	clean := streamTranscript(t, Options{})
	for _, want := range []string{"Listening", "(retry)", "resumed: ", `"text":"7"`, `"text":"none"`} {
		if !strings.Contains(clean, want) {
			t.Errorf("the clean transcript lacks %s:\n%s", want, clean)
		}
	}
	for _, f := range streamFaultCatalogue {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			if got := streamTranscript(t, Options{Faults: map[string]bool{f.Name: true}}); got == clean {
				t.Errorf("the stream probe sees the same with fault %s on as without it:\n%s", f.Name, got)
			}
		})
	}
	if !slices.ContainsFunc(streamFaultCatalogue, func(f Fault) bool { return f.Transport == httpDual }) {
		t.Error("no stream fault runs over the dual-era fixture")
	}
}

// readSSEWithRetry is readSSE that also says whether an event carried a retry field.
func readSSEWithRetry(r io.Reader, fn func(sseEvent, bool) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	var ev sseEvent
	var data []string
	dispatch, retry := false, false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if dispatch {
				ev.data = strings.Join(data, "\n")
				if !fn(ev, retry) {
					return
				}
			}
			ev, data, dispatch, retry = sseEvent{}, nil, false, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id, ev.hasID, dispatch = value, true, true
		case "retry":
			retry, dispatch = true, true
		case "data":
			data, dispatch = append(data, value), true
		}
	}
}
