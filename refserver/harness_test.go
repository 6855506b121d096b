package refserver

import (
	"bufio"
	"bytes"
	"context"
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

// recvTimeout bounds every wait for a server message in tests.
const recvTimeout = 5 * time.Second

// conn is a test client's view of one transport: it sends JSON texts and receives
// every message the server sends, in order of arrival.
type conn interface {
	send(t testing.TB, raw []byte)
	inbox() <-chan []byte
	close()
}

// versionSetter is implemented by transports that carry the negotiated version.
type versionSetter interface{ setProtocolVersion(v string) }

// transports builds each transport's conn for the matrix tests.
var transports = []struct {
	name string
	dial func(t testing.TB, opts Options) conn
}{
	{"session", dialSession},
	{"stdio", dialStdio},
	{"http", dialStreamable},
	{"sse", dialSSE},
}

// sessionConn drives a session directly, as the stdio transport does.
type sessionConn struct {
	s  *session
	ch chan []byte
}

func dialSession(t testing.TB, opts Options) conn {
	t.Helper()
	cfg, err := newConfig(opts)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	c := &sessionConn{s: newSession(context.Background(), cfg), ch: make(chan []byte, 4096)}
	t.Cleanup(c.close)
	return c
}

func (c *sessionConn) send(_ testing.TB, raw []byte) {
	c.s.serveFrame(raw, sinkFunc(func(b []byte) error {
		c.ch <- append([]byte(nil), b...)
		return nil
	}))
}
func (c *sessionConn) inbox() <-chan []byte { return c.ch }
func (c *sessionConn) close()               { c.s.close() }

// stdioConn runs ServeStdio over pipes.
type stdioConn struct {
	inW    *io.PipeWriter
	ch     chan []byte
	done   chan error
	once   sync.Once
	cancel context.CancelFunc
}

func dialStdio(t testing.TB, opts Options) conn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &stdioConn{inW: inW, ch: make(chan []byte, 4096), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := ServeStdio(ctx, inR, outW, opts)
		_ = outW.Close()
		_ = inR.Close()
		c.done <- err
	}()
	go func() {
		defer close(c.ch)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64<<10), 32<<20)
		for sc.Scan() {
			c.ch <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	t.Cleanup(func() {
		c.close()
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(recvTimeout):
			t.Errorf("ServeStdio did not return after stdin closed")
		}
	})
	return c
}

func (c *stdioConn) send(t testing.TB, raw []byte) {
	t.Helper()
	if _, err := c.inW.Write(append(append([]byte(nil), raw...), '\n')); err != nil {
		t.Fatalf("write stdin: %v", err)
	}
}
func (c *stdioConn) inbox() <-chan []byte { return c.ch }
func (c *stdioConn) close()               { c.once.Do(func() { _ = c.inW.Close() }) }

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	id, name, data string
	hasID          bool
}

// readSSE parses an event stream and calls fn for each event until it returns false.
func readSSE(r io.Reader, fn func(sseEvent) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	var ev sseEvent
	var data []string
	dispatch := false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if dispatch {
				ev.data = strings.Join(data, "\n")
				if !fn(ev) {
					return
				}
			}
			ev, data, dispatch = sseEvent{}, nil, false
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
		case "event":
			ev.name, dispatch = value, true
		case "data":
			data, dispatch = append(data, value), true
		}
	}
}

// streamableConn is a Streamable HTTP client: each send is one POST; JSON bodies and
// SSE events feed the inbox.
type streamableConn struct {
	srv     *httptest.Server
	handler http.Handler
	ch      chan []byte
	wg      sync.WaitGroup
	mu      sync.Mutex
	sid     string
	version string
}

func dialStreamable(t testing.TB, opts Options) conn {
	t.Helper()
	h := NewStreamableHandler(opts)
	srv := httptest.NewServer(h)
	c := &streamableConn{srv: srv, handler: h, ch: make(chan []byte, 4096)}
	t.Cleanup(func() {
		c.close()
		srv.Close()
	})
	return c
}

func (c *streamableConn) setProtocolVersion(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

func (c *streamableConn) send(t testing.TB, raw []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.srv.URL, bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.mu.Lock()
	if c.sid != "" {
		req.Header.Set(headerSessionID, c.sid)
	}
	if c.version != "" {
		req.Header.Set(headerProtocolVersion, c.version)
	}
	c.mu.Unlock()
	resp, err := c.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	if sid := resp.Header.Get(headerSessionID); sid != "" {
		c.mu.Lock()
		c.sid = sid
		c.mu.Unlock()
	}
	switch ct := resp.Header.Get("Content-Type"); {
	case resp.StatusCode == http.StatusAccepted:
		_ = resp.Body.Close()
	case strings.HasPrefix(ct, "text/event-stream"):
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer resp.Body.Close()
			readSSE(resp.Body, func(ev sseEvent) bool {
				if ev.data != "" {
					c.ch <- []byte(ev.data)
				}
				return true
			})
		}()
	default:
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("POST %s: status %d: %s", raw, resp.StatusCode, body)
		}
		if len(bytes.TrimSpace(body)) > 0 {
			c.ch <- body
		}
	}
}
func (c *streamableConn) inbox() <-chan []byte { return c.ch }
func (c *streamableConn) close() {
	_ = c.handler.(io.Closer).Close()
	c.wg.Wait()
}

// sseConn is an HTTP+SSE (2024-11-05) client.
type sseConn struct {
	srv      *httptest.Server
	handler  http.Handler
	endpoint string
	ch       chan []byte
	cancel   context.CancelFunc
	done     chan struct{}
}

func dialSSE(t testing.TB, opts Options) conn {
	t.Helper()
	h := NewSSEHandler(opts)
	srv := httptest.NewServer(h)
	ctx, cancel := context.WithCancel(context.Background())
	c := &sseConn{srv: srv, handler: h, ch: make(chan []byte, 4096), cancel: cancel, done: make(chan struct{})}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("GET /sse: %v", err)
	}
	endpoint := make(chan string, 1)
	go func() {
		defer close(c.done)
		defer resp.Body.Close()
		readSSE(resp.Body, func(ev sseEvent) bool {
			switch ev.name {
			case "endpoint":
				endpoint <- ev.data
			case "message":
				c.ch <- []byte(ev.data)
			}
			return true
		})
	}()
	select {
	case ep := <-endpoint:
		c.endpoint = srv.URL + ep
	case <-time.After(recvTimeout):
		t.Fatal("no endpoint event")
	}
	t.Cleanup(func() {
		c.close()
		srv.Close()
	})
	return c
}

func (c *sseConn) send(t testing.TB, raw []byte) {
	t.Helper()
	resp, err := c.srv.Client().Post(c.endpoint, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted && json.Valid(raw) {
		t.Errorf("POST %s: status %d, want 202", raw, resp.StatusCode)
	}
}
func (c *sseConn) inbox() <-chan []byte { return c.ch }
func (c *sseConn) close() {
	c.cancel()
	<-c.done
	_ = c.handler.(io.Closer).Close()
}

// client is a strict test client: it validates every message the server sends
// against the official schema of the session's revision, answers server requests,
// and correlates replies.
type client struct {
	t       testing.TB
	c       conn
	rev     revision.Revision // requested, then negotiated
	nextID  int64
	methods map[string]string // request id key → method, for result validation
	// answer handles server→client requests; nil answers -32601.
	answer         func(m *wire.Message) (any, *rpcError)
	serverRequests []*wire.Message
}

func newClient(t testing.TB, c conn, rev string) *client {
	return &client{t: t, c: c, rev: revision.MustLookup(rev), methods: map[string]string{}}
}

// sendRaw writes one JSON text as is.
func (cl *client) sendRaw(raw string) {
	cl.t.Helper()
	cl.c.send(cl.t, []byte(raw))
}

// sendRequest sends a request with the given id and returns without waiting.
func (cl *client) sendRequest(id wire.ID, method string, params any) {
	cl.t.Helper()
	b, err := wire.EncodeRequest(id, method, params)
	if err != nil {
		cl.t.Fatal(err)
	}
	cl.methods[id.Key()] = method
	cl.c.send(cl.t, b)
}

// notify sends a notification.
func (cl *client) notify(method string, params any) {
	cl.t.Helper()
	b, err := wire.EncodeNotification(method, params)
	if err != nil {
		cl.t.Fatal(err)
	}
	cl.c.send(cl.t, b)
}

// recvRaw returns the next JSON text from the server.
func (cl *client) recvRaw(timeout time.Duration) ([]byte, bool) {
	select {
	case b, ok := <-cl.c.inbox():
		return b, ok
	case <-time.After(timeout):
		return nil, false
	}
}

// recv returns the next message, validated. Batches are returned as an array message
// via recvBatch instead.
func (cl *client) recv() *wire.Message {
	cl.t.Helper()
	b, ok := cl.recvRaw(recvTimeout)
	if !ok {
		cl.t.Fatalf("no message from the server within %v", recvTimeout)
	}
	m, err := wire.Decode(b)
	if err != nil {
		cl.t.Fatalf("server sent something that is not a JSON-RPC object: %v: %s", err, b)
	}
	cl.check(m)
	return m
}

// check validates one message against the negotiated revision.
func (cl *client) check(m *wire.Message) {
	t := cl.t
	t.Helper()
	if m.Problem != "" {
		t.Errorf("invalid message: %s: %s", m.Problem, m.Raw)
		return
	}
	if m.Kind == wire.KindError && (m.ID.IsNull() || m.ID.IsZero()) {
		// JSON-RPC's null id for an unreadable request; the 2024-11-05 … 2025-06-18
		// schemas require a RequestId, 2025-11-25 allows leaving id out.
		if m.ID.IsNull() && cl.rev.Has(revision.ErrorIDOptional) {
			t.Errorf("%s: an unusable id must be left out, not null: %s", cl.rev.Name, m.Raw)
		}
		if m.ID.IsZero() && !cl.rev.Has(revision.ErrorIDOptional) {
			t.Errorf("%s: an error response needs an id member: %s", cl.rev.Name, m.Raw)
		}
		return
	}
	mustValidate(t, cl.rev, "JSONRPCMessage", m.Raw)
	switch m.Kind {
	case wire.KindNotification:
		cl.checkNotification(m)
	case wire.KindRequest:
		def, ok := requestDefs[m.Method]
		if !ok {
			t.Errorf("unexpected server request %s", m.Raw)
			return
		}
		mustValidate(t, cl.rev, def, m.Raw)
	case wire.KindResult:
		cl.checkResult(m)
	}
}

func (cl *client) checkNotification(m *wire.Message) {
	t := cl.t
	t.Helper()
	if m.Members["id"] {
		t.Errorf("notification with an id: %s", m.Raw)
	}
	def, ok := notificationDefs[m.Method]
	if !ok {
		t.Errorf("unexpected notification %s", m.Raw)
		return
	}
	mustValidate(t, cl.rev, def, m.Raw)
	if len(m.Params) > 0 {
		var p map[string]any
		_ = json.Unmarshal(m.Params, &p)
		checkKeys(t, cl.rev, p, def, "params")
	}
}

func (cl *client) checkResult(m *wire.Message) {
	t := cl.t
	t.Helper()
	method := cl.methods[m.ID.Key()]
	def, ok := resultDefs[method]
	if !ok {
		return
	}
	rev := cl.rev
	if method == "initialize" {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Result, &r)
		if nr, ok := revision.Lookup(r.ProtocolVersion); ok {
			rev = nr
		}
	}
	mustValidate(t, rev, def, m.Result)
	var obj map[string]any
	if err := json.Unmarshal(m.Result, &obj); err != nil {
		t.Errorf("result is not an object: %s", m.Result)
		return
	}
	checkKeys(t, rev, obj, def)
	switch method {
	case "initialize":
		checkKeys(t, rev, obj["serverInfo"].(map[string]any), "Implementation")
		checkKeys(t, rev, obj["capabilities"].(map[string]any), "ServerCapabilities")
	case "tools/list":
		for _, x := range obj["tools"].([]any) {
			tl := x.(map[string]any)
			checkKeys(t, rev, tl, "Tool")
			if a, ok := tl["annotations"].(map[string]any); ok {
				checkKeys(t, rev, a, "ToolAnnotations")
			}
			for _, ic := range asSlice(tl["icons"]) {
				checkKeys(t, rev, ic.(map[string]any), "Icon")
			}
		}
	case "tools/call":
		for _, b := range asSlice(obj["content"]) {
			checkContentKeys(t, rev, b.(map[string]any))
		}
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// exchange sends a request and reads until its response, answering server requests
// on the way; it returns the response and the notifications that preceded it.
func (cl *client) exchange(id wire.ID, method string, params any) (*wire.Message, []*wire.Message) {
	cl.t.Helper()
	cl.sendRequest(id, method, params)
	return cl.await(id)
}

// await reads until the response with the given id.
func (cl *client) await(id wire.ID) (*wire.Message, []*wire.Message) {
	cl.t.Helper()
	var notes []*wire.Message
	for {
		m := cl.recv()
		switch {
		case m.Kind == wire.KindRequest:
			cl.serverRequests = append(cl.serverRequests, m)
			cl.answerServer(m)
		case m.Kind == wire.KindNotification:
			notes = append(notes, m)
		case m.IsResponse() && m.ID.Key() == id.Key():
			return m, notes
		case m.IsResponse():
			cl.t.Fatalf("response for another id (want %s): %s", id, m.Raw)
		}
	}
}

func (cl *client) answerServer(m *wire.Message) {
	cl.t.Helper()
	var b []byte
	if cl.answer == nil {
		b = encodeErrorResponse(m.ID, errMethodNotFound(m.Method), false)
	} else if res, e := cl.answer(m); e != nil {
		b = encodeErrorResponse(m.ID, e, false)
	} else {
		var err error
		if b, err = wire.EncodeResult(m.ID, res); err != nil {
			cl.t.Fatal(err)
		}
	}
	cl.c.send(cl.t, b)
}

// call sends a request with a fresh integer id and returns its response.
func (cl *client) call(method string, params any) (*wire.Message, []*wire.Message) {
	cl.t.Helper()
	cl.nextID++
	return cl.exchange(wire.NumberID(cl.nextID), method, params)
}

// result calls and decodes a successful result.
func (cl *client) result(method string, params any) (map[string]any, []*wire.Message) {
	cl.t.Helper()
	m, notes := cl.call(method, params)
	if m.Error != nil {
		cl.t.Fatalf("%s: unexpected error %d %s", method, m.Error.Code, m.Error.Message)
	}
	var r map[string]any
	if err := json.Unmarshal(m.Result, &r); err != nil {
		cl.t.Fatalf("%s: %v", method, err)
	}
	return r, notes
}

// initialize performs the handshake for the client's revision (or another requested
// version) with the given capabilities and returns the result.
func (cl *client) initialize(requested string, caps map[string]any) map[string]any {
	cl.t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	r, _ := cl.result("initialize", map[string]any{
		"protocolVersion": requested,
		"capabilities":    caps,
		"clientInfo":      map[string]any{"name": "fixtures-test", "version": "0"},
	})
	pv, _ := r["protocolVersion"].(string)
	rev, ok := revision.Lookup(pv)
	if !ok {
		cl.t.Fatalf("initialize answered unknown protocolVersion %q", pv)
	}
	cl.rev = rev
	if vs, ok := cl.c.(versionSetter); ok && rev.Has(revision.VersionHeader) {
		vs.setProtocolVersion(rev.Name)
	}
	cl.notify("notifications/initialized", nil)
	return r
}

// expectError checks a response is an error with the code.
func expectError(t testing.TB, m *wire.Message, code int) {
	t.Helper()
	if m.Error == nil {
		t.Fatalf("want error %d, got %s", code, m.Raw)
	}
	if m.Error.Code != code {
		t.Fatalf("want error %d, got %d %q", code, m.Error.Code, m.Error.Message)
	}
}

// barrier proves nothing else is queued: a ping's reply must be the next message.
func (cl *client) barrier() {
	cl.t.Helper()
	cl.nextID++
	id := wire.NumberID(cl.nextID)
	cl.sendRequest(id, "ping", nil)
	m := cl.recv()
	if !m.IsResponse() || m.ID.Key() != id.Key() {
		cl.t.Fatalf("expected only the barrier ping's reply, got %s", m.Raw)
	}
}

// newInitialized dials a transport and completes the handshake.
func newInitialized(t testing.TB, dial func(testing.TB, Options) conn, opts Options, rev string, caps map[string]any) *client {
	t.Helper()
	cl := newClient(t, dial(t, opts), rev)
	cl.initialize(rev, caps)
	return cl
}

// toolText returns the text of a result's only text block.
func toolText(t testing.TB, r map[string]any) string {
	t.Helper()
	content := asSlice(r["content"])
	if len(content) != 1 {
		t.Fatalf("want one content block, got %v", r["content"])
	}
	b := content[0].(map[string]any)
	if b["type"] != "text" {
		t.Fatalf("want a text block, got %v", b)
	}
	return b["text"].(string)
}

func toolCallParams(name string, args map[string]any) map[string]any {
	p := map[string]any{"name": name}
	if args != nil {
		p["arguments"] = args
	}
	return p
}

func (cl *client) String() string { return fmt.Sprintf("client(%s)", cl.rev.Name) }
