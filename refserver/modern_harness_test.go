package refserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

const r5 = "2026-07-28"

// rev5 is the modern revision the fixture serves.
func rev5(t testing.TB) revision.Revision {
	t.Helper()
	r, ok := revision.Lookup(r5)
	if !ok {
		t.Fatal("no pending revision 2026-07-28")
	}
	return r
}

// modernParams returns request params carrying the per-request _meta, merged with
// extra; caps nil means {}.
func modernParams(caps map[string]any, extra map[string]any) map[string]any {
	if caps == nil {
		caps = map[string]any{}
	}
	p := map[string]any{"_meta": map[string]any{
		metaProtocolVersion:                  r5,
		metaClientCaps:                       caps,
		"io.modelcontextprotocol/clientInfo": map[string]any{"name": "fixture-test", "version": "0"},
	}}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// exchangeResult is what the server sent for one request: the messages related to
// it (notifications) and its response; status and header are HTTP's (0 on stdio).
type exchangeResult struct {
	notes  []*wire.Message
	resp   *wire.Message
	status int
	header http.Header
}

// modernConnT is a modern client on one transport.
type modernConnT interface {
	// do sends a request (method, params, id) and returns what came back for it.
	do(t testing.TB, id wire.ID, method string, params any) exchangeResult
	// sendRaw sends one JSON text (a notification) without waiting.
	sendRaw(t testing.TB, raw []byte)
	name() string
}

// modernTransports are the transports a modern test runs on.
var modernTransports = []struct {
	name string
	dial func(t testing.TB, opts Options) modernConnT
}{
	{"stdio", dialModernStdio},
	{"http", dialModernHTTP},
}

// validateModern checks one server message against the 2026-07-28 schema: every
// message is a JSONRPCMessage; notifications, results (by method, or
// InputRequiredResult) and the modern errors against their own definitions; results
// carry resultType and _meta serverInfo; the server sends no requests.
func validateModern(t testing.TB, method string, m *wire.Message) {
	t.Helper()
	rev := rev5(t)
	if m.Problem != "" {
		t.Errorf("invalid message: %s: %s", m.Problem, m.Raw)
		return
	}
	mustValidate(t, rev, "JSONRPCMessage", m.Raw)
	switch m.Kind {
	case wire.KindRequest:
		t.Errorf("2026-07-28 server sent a request: %s", m.Raw)
	case wire.KindNotification:
		def, ok := rev.NotificationDefinition(m.Method)
		if !ok {
			t.Errorf("notification %s does not exist in 2026-07-28: %s", m.Method, m.Raw)
			return
		}
		mustValidate(t, rev, def, m.Raw)
	case wire.KindError:
		mustValidate(t, rev, "JSONRPCErrorResponse", m.Raw)
		defs := map[int]string{CodeHeaderMismatch: "HeaderMismatchError",
			CodeMissingCapability: "MissingRequiredClientCapabilityError", CodeUnsupportedVersion: "UnsupportedProtocolVersionError"}
		if def, ok := defs[m.Error.Code]; ok {
			mustValidate(t, rev, def, m.Raw)
		}
	case wire.KindResult:
		var obj map[string]any
		if err := json.Unmarshal(m.Result, &obj); err != nil {
			t.Errorf("result is not an object: %s", m.Result)
			return
		}
		def, ok := rev.ResultDefinition(method)
		if obj["resultType"] == "input_required" {
			def, ok = "InputRequiredResult", true
		}
		if !ok {
			t.Errorf("no result definition for %s", method)
			return
		}
		mustValidate(t, rev, def, m.Result)
		checkKeys(t, rev, obj, def)
		if rt, _ := obj["resultType"].(string); rt != "complete" && rt != "input_required" {
			t.Errorf("%s: resultType = %v", method, obj["resultType"])
		}
		meta, _ := obj["_meta"].(map[string]any)
		if _, ok := meta[metaServerInfo].(map[string]any); !ok {
			t.Errorf("%s: result without _meta serverInfo: %s", method, m.Result)
		}
		if method == "tools/call" {
			for _, b := range asSlice(obj["content"]) {
				checkContentKeys(t, rev, b.(map[string]any))
			}
		}
	}
}

// decodeAll decodes and validates messages of one request.
func decodeMsg(t testing.TB, raw []byte) *wire.Message {
	t.Helper()
	m, err := wire.Decode(raw)
	if err != nil {
		t.Fatalf("not a JSON-RPC message: %v: %s", err, raw)
	}
	return m
}

// --- stdio ---

// modernStdio is a modern client over ServeStdio; messages of other requests read
// while waiting (e.g. listen notifications) are kept in others.
type modernStdio struct {
	c      *stdioConn
	mu     sync.Mutex
	others []*wire.Message
}

func dialModernStdio(t testing.TB, opts Options) modernConnT {
	return &modernStdio{c: dialStdio(t, opts).(*stdioConn)}
}

func (ms *modernStdio) name() string { return "stdio" }

func (ms *modernStdio) sendRaw(t testing.TB, raw []byte) { ms.c.send(t, raw) }

func (ms *modernStdio) recv(t testing.TB) *wire.Message {
	t.Helper()
	select {
	case b, ok := <-ms.c.inbox():
		if !ok {
			t.Fatal("stdout closed")
		}
		return decodeMsg(t, b)
	case <-time.After(recvTimeout):
		t.Fatalf("no message within %v", recvTimeout)
	}
	return nil
}

// do sends a request and reads until its response. Notifications tagged with a
// subscription id, and messages of other requests, go to others.
func (ms *modernStdio) do(t testing.TB, id wire.ID, method string, params any) exchangeResult {
	t.Helper()
	b, err := wire.EncodeRequest(id, method, params)
	if err != nil {
		t.Fatal(err)
	}
	ms.c.send(t, b)
	return ms.await(t, id, method)
}

func (ms *modernStdio) await(t testing.TB, id wire.ID, method string) exchangeResult {
	t.Helper()
	var res exchangeResult
	for {
		m := ms.recv(t)
		switch {
		case m.IsResponse() && m.ID.Key() == id.Key():
			validateModern(t, method, m)
			res.resp = m
			return res
		case m.Kind == wire.KindNotification && !subscriptionTagged(m):
			validateModern(t, method, m)
			res.notes = append(res.notes, m)
		default:
			ms.mu.Lock()
			ms.others = append(ms.others, m)
			ms.mu.Unlock()
		}
	}
}

// takeOthers returns and forgets the messages set aside.
func (ms *modernStdio) takeOthers() []*wire.Message {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	o := ms.others
	ms.others = nil
	return o
}

// subscriptionTagged reports whether a notification carries a subscription id.
func subscriptionTagged(m *wire.Message) bool {
	_, ok := subscriptionID(m)
	return ok
}

// subscriptionID returns the raw subscription id in a message's params._meta (or
// result._meta).
func subscriptionID(m *wire.Message) (string, bool) {
	body := m.Params
	if m.IsResponse() {
		body = m.Result
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(body, &p) != nil {
		return "", false
	}
	raw, ok := p.Meta[metaSubscriptionID]
	return string(raw), ok
}

// --- Streamable HTTP ---

// modernHTTP is a modern client of the Streamable HTTP handler.
type modernHTTP struct {
	url string
	h   http.Handler
	// noAccel: the server runs r5-no-x-accel-buffering, so a stream without
	// X-Accel-Buffering: no is expected.
	noAccel bool
}

func dialModernHTTP(t testing.TB, opts Options) modernConnT {
	t.Helper()
	h := NewStreamableHandler(opts)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		_ = h.(io.Closer).Close()
		srv.Close()
	})
	return &modernHTTP{url: srv.URL, h: h}
}

func (mh *modernHTTP) name() string { return "http" }

// standardHeaders are the 2026-07-28 request headers mirroring a body.
func standardHeaders(method string, params any) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set(headerProtocolVersion, r5)
	h.Set(headerMcpMethod, method)
	if p, ok := params.(map[string]any); ok {
		if field, named := namedMethods[method]; named {
			if v, ok := p[field].(string); ok {
				h.Set(headerMcpName, v)
			}
		}
	}
	return h
}

func (mh *modernHTTP) sendRaw(t testing.TB, raw []byte) {
	t.Helper()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(headerProtocolVersion, r5)
	status, _, _ := mh.post(t, context.Background(), h, raw)
	if status != http.StatusAccepted {
		t.Errorf("notification POST: status %d, want 202", status)
	}
}

// post sends a body with headers and returns the status, headers and every message
// of the response (one JSON body or every SSE event).
func (mh *modernHTTP) post(t testing.TB, ctx context.Context, h http.Header, body []byte) (int, http.Header, [][]byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, mh.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	var msgs [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		readSSE(resp.Body, func(ev sseEvent) bool {
			if ev.data != "" {
				msgs = append(msgs, []byte(ev.data))
			}
			return true
		})
	} else {
		b, _ := io.ReadAll(resp.Body)
		if len(bytes.TrimSpace(b)) > 0 {
			msgs = append(msgs, b)
		}
	}
	return resp.StatusCode, resp.Header, msgs
}

func (mh *modernHTTP) do(t testing.TB, id wire.ID, method string, params any) exchangeResult {
	t.Helper()
	return mh.doWith(t, id, method, params, standardHeaders(method, params))
}

func (mh *modernHTTP) doWith(t testing.TB, id wire.ID, method string, params any, h http.Header) exchangeResult {
	t.Helper()
	b, err := wire.EncodeRequest(id, method, params)
	if err != nil {
		t.Fatal(err)
	}
	status, header, msgs := mh.post(t, context.Background(), h, b)
	res := exchangeResult{status: status, header: header}
	for _, raw := range msgs {
		m := decodeMsg(t, raw)
		validateModern(t, method, m)
		switch {
		case m.IsResponse():
			if res.resp != nil {
				t.Errorf("two responses on one request's stream: %s", raw)
			}
			res.resp = m
		default:
			if res.resp != nil {
				t.Errorf("a message after the response: %s", raw)
			}
			res.notes = append(res.notes, m)
		}
	}
	if res.resp == nil {
		t.Fatalf("%s: no response (status %d)", method, status)
	}
	return res
}

// openListen POSTs subscriptions/listen and returns its events as they arrive;
// the channel closes when the stream ends.
func (mh *modernHTTP) openListen(t testing.TB, ctx context.Context, id wire.ID, filter map[string]any) <-chan *wire.Message {
	t.Helper()
	params := modernParams(nil, map[string]any{"notifications": filter})
	b, err := wire.EncodeRequest(id, methodListen, params)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, mh.url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = standardHeaders(methodListen, params)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST listen: %v", err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") || (resp.Header.Get("X-Accel-Buffering") != "no") != mh.noAccel {
		t.Errorf("listen: Content-Type %q, X-Accel-Buffering %q", ct, resp.Header.Get("X-Accel-Buffering"))
	}
	ch := make(chan *wire.Message, 64)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		readSSE(resp.Body, func(ev sseEvent) bool {
			if ev.data == "" {
				return true
			}
			m, err := wire.Decode([]byte(ev.data))
			if err != nil {
				return false
			}
			ch <- m
			return true
		})
	}()
	return ch
}

// recvFrom reads one message from a channel, bounded.
func recvFrom(t testing.TB, ch <-chan *wire.Message) *wire.Message {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("stream ended")
		}
		return m
	case <-time.After(recvTimeout):
		t.Fatalf("nothing on the stream within %v", recvTimeout)
	}
	return nil
}

// b64 encodes a header value with the 2026-07-28 sentinel.
func b64(s string) string {
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + b64Suffix
}

// resultObject decodes a response's result.
func resultObject(t testing.TB, m *wire.Message) map[string]any {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("error %d: %s", m.Error.Code, m.Error.Message)
	}
	var obj map[string]any
	if err := json.Unmarshal(m.Result, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// errorData decodes a response's error data.
func errorData(t testing.TB, m *wire.Message) map[string]any {
	t.Helper()
	if m.Error == nil {
		t.Fatalf("want an error, got %s", m.Raw)
	}
	var d map[string]any
	_ = json.Unmarshal(m.Error.Data, &d)
	return d
}

// seq numbers request ids of one test.
type seq struct{ n int64 }

func (s *seq) next() wire.ID { s.n++; return wire.NumberID(s.n) }

func (s *seq) str(prefix string) wire.ID {
	s.n++
	return wire.StringID(fmt.Sprintf("%s-%d", prefix, s.n))
}
