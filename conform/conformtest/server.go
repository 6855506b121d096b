// Package conformtest scripts MCP servers in memory, for table tests of the checks'
// verdict logic with hand-written replies:
//
//	srv := conformtest.NewServer()
//	srv.Handle("tools/call", func(req *wire.Message) []string {
//		return []string{conformtest.Result(req, `{"content":[],"isError":true}`)}
//	})
//	v := conformtest.Judge(t, "TOOLS-CALL-UNKNOWN-01", "2025-06-18", srv)
//
// The default server answers initialize (echoing the requested version, declaring
// tools{listChanged:true}), ping, and tools/list (empty list); every other method is
// -32601. Handlers replace those defaults per method.
package conformtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Handler answers one message from the suite with zero or more raw JSON messages
// (responses and notifications, sent in order).
type Handler func(req *wire.Message) []string

// Server is a scripted MCP server. Every session the suite opens gets its own
// in-memory transport; handlers are shared.
type Server struct {
	mu       sync.Mutex
	handlers map[string]Handler
	raw      func(raw []byte) []string
	// Capabilities is the capabilities object the default initialize declares.
	Capabilities string
	// Version, when set, is answered to every initialize instead of the echo.
	Version string
	// Sessions counts the sessions opened.
	Sessions int
	// Exit, when set, makes every session a stdio process that reports this ending
	// once the suite has closed it (transport.EndedOnEOF: it exited when stdin was
	// closed); a session not yet closed reports transport.Running. Unset, a session
	// is no process and reports no exit.
	Exit transport.Ending
}

// NewServer returns a server with the default behaviour.
func NewServer() *Server {
	return &Server{handlers: map[string]Handler{}, Capabilities: `{"tools":{"listChanged":true}}`}
}

// Handle sets the handler of a method (or of a notification's method).
func (s *Server) Handle(method string, h Handler) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[method] = h
	return s
}

// HandleRaw sets what the server answers to input that is no JSON object (an
// unparseable line, an array), which the method handlers never see: by default
// nothing.
func (s *Server) HandleRaw(h func(raw []byte) []string) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw = h
	return s
}

// Tools makes tools/list answer one page with these raw tool definitions.
func (s *Server) Tools(defs ...string) *Server {
	list := "[" + join(defs) + "]"
	return s.Handle("tools/list", func(req *wire.Message) []string {
		return []string{Result(req, `{"tools":`+list+`}`)}
	})
}

func join(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ","
		}
		out += p
	}
	return out
}

func (s *Server) handler(method string) Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handlers[method]
}

func (s *Server) answer(req *wire.Message) []string {
	if h := s.handler(req.Method); h != nil {
		return h(req)
	}
	if req.Kind != wire.KindRequest {
		return nil
	}
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		v := p.ProtocolVersion
		if s.Version != "" {
			v = s.Version
		} else if _, ok := revision.Lookup(v); !ok {
			v = revision.All()[len(revision.All())-1].Name
		}
		vb, _ := json.Marshal(v)
		return []string{Result(req, `{"protocolVersion":`+string(vb)+`,"capabilities":`+s.Capabilities+`,"serverInfo":{"name":"scripted","version":"1"}}`)}
	case "server/discover":
		// A 2026-07-28 server: the DiscoverResult that opens a modern column (the
		// era probe), serving the version the request's _meta names.
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(req.Params, &p)
		v := string(p.Meta[conform.MetaProtocolVersion])
		if v == "" {
			return []string{Error(req, wire.CodeMethodNotFound, "method not found")}
		}
		return []string{Result(req, `{"resultType":"complete","supportedVersions":[`+v+`],"capabilities":`+s.Capabilities+`,"ttlMs":0,"cacheScope":"public"}`)}
	case "ping":
		return []string{Result(req, `{}`)}
	case "tools/list":
		return []string{Result(req, `{"tools":[]}`)}
	}
	return []string{Error(req, wire.CodeMethodNotFound, "method not found")}
}

// Result builds a result response to req.
func Result(req *wire.Message, result string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID.Raw(), result)
}

// Reply is a handler that answers every request with result.
func Reply(result string) Handler {
	return func(req *wire.Message) []string { return []string{Result(req, result)} }
}

// ReplyError is a handler that answers every request with a JSON-RPC error.
func ReplyError(code int) Handler {
	return func(req *wire.Message) []string { return []string{Error(req, code, "x")} }
}

// Silent is a handler that never answers.
func Silent(*wire.Message) []string { return nil }

// Error builds an error response to req.
func Error(req *wire.Message, code int, message string) string {
	mb, _ := json.Marshal(message)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, req.ID.Raw(), code, mb)
}

// Notification builds a notification.
func Notification(method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)
}

// httpMarker starts the replies that stand for what an HTTP transport reports
// instead of a message (the scripted transport itself is stdio-like).
const httpMarker = "\x00http:"

// HTTPError is a reply that makes the request's Send fail as an HTTP error status
// with this body does over Streamable HTTP (*transport.HTTPStatusError), for tables
// that prove a verdict does not depend on the transport.
func HTTPError(status int, body string) string {
	return fmt.Sprintf("%s%d:%s", httpMarker, status, body)
}

// HangUp is a reply that makes the request's Send fail as a POST whose connection
// the server closed without a response does (transport.ErrNoReply).
const HangUp = httpMarker + "hangup"

// laterMarker starts a message the server writes a while after the request
// (Later).
const laterMarker = "\x00later:"

// EndSession is a reply that ends the session from the server's side once the
// messages before it are written, as a server process that exits over the input
// does: later sends fail and the suite reads the session's end.
const EndSession = "\x00end"

// Later is msg written d after the request that produced it, as a server that
// debounces its notifications (go-sdk delays list changes by 10 ms) does; the
// messages after it in the handler's answer are not held back.
func Later(d time.Duration, msg string) string {
	return fmt.Sprintf("%s%d:%s", laterMarker, d, msg)
}

// later splits a Later message into its delay and the message.
func later(out string) (time.Duration, string, bool) {
	rest, ok := strings.CutPrefix(out, laterMarker)
	if !ok {
		return 0, "", false
	}
	d, msg, _ := strings.Cut(rest, ":")
	n, _ := strconv.ParseInt(d, 10, 64)
	return time.Duration(n), msg, true
}

// httpFailure turns a marker reply into the error an HTTP transport returns (nil for
// an ordinary reply).
func httpFailure(out string) error {
	rest, ok := strings.CutPrefix(out, httpMarker)
	if !ok {
		return nil
	}
	if rest == "hangup" {
		return fmt.Errorf("POST: %w", transport.ErrNoReply)
	}
	code, body, _ := strings.Cut(rest, ":")
	status, _ := strconv.Atoi(code)
	return &transport.HTTPStatusError{Status: status, ContentType: "application/json", Body: []byte(body)}
}

// Dial opens a new in-memory session with the server.
func (s *Server) Dial(context.Context) (transport.Transport, error) {
	s.mu.Lock()
	s.Sessions++
	s.mu.Unlock()
	m := &memTransport{srv: s, in: make(chan transport.Frame, 256), done: make(chan struct{})}
	if s.Exit != transport.Running {
		return &processTransport{memTransport: m, ending: s.Exit}, nil
	}
	return m, nil
}

// processTransport is a scripted session that stands for a server process: once
// closed, it reports the ending the Server was given (Server.Exit).
type processTransport struct {
	*memTransport
	ending transport.Ending
}

// Exit reports how the process ended: Running until the suite closes the session.
func (p *processTransport) Exit() transport.ExitInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		return transport.ExitInfo{}
	}
	x := transport.ExitInfo{Ending: p.ending, At: time.Now()}
	if p.ending == transport.EndedOnSIGTERM || p.ending == transport.EndedOnSIGKILL {
		x.TermSent = true
	}
	return x
}

type memTransport struct {
	srv    *Server
	mu     sync.Mutex
	in     chan transport.Frame
	done   chan struct{}
	closed bool
}

func (m *memTransport) Send(ctx context.Context, msg []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return transport.ErrClosed
	}
	var outs []string
	if req, err := wire.Decode(msg); err == nil {
		outs = m.srv.answer(req)
	} else {
		outs = m.srv.answerRaw(msg) // garbage is ignored unless HandleRaw says otherwise
	}
	for _, out := range outs {
		if err := httpFailure(out); err != nil {
			return err
		}
		if d, msg, ok := later(out); ok {
			time.AfterFunc(d, func() { _ = m.deliver(msg) })
			continue
		}
		if out == EndSession {
			m.end()
			return nil
		}
		if err := m.put(out); err != nil {
			return err
		}
	}
	return nil
}

// answerRaw answers input that is no JSON object (HandleRaw).
func (s *Server) answerRaw(raw []byte) []string {
	s.mu.Lock()
	h := s.raw
	s.mu.Unlock()
	if h == nil {
		return nil
	}
	return h(raw)
}

// put queues one message from the server; the caller holds m.mu.
func (m *memTransport) put(out string) error {
	select {
	case m.in <- transport.Frame{Data: []byte(out), Source: "stdout", At: time.Now()}:
		return nil
	default:
		return fmt.Errorf("scripted server: inbound buffer full")
	}
}

// deliver queues a message written later (Later), unless the session has closed.
func (m *memTransport) deliver(out string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return transport.ErrClosed
	}
	return m.put(out)
}

func (m *memTransport) Inbound() <-chan transport.Frame { return m.in }
func (m *memTransport) Done() <-chan struct{}           { return m.done }
func (m *memTransport) Err() error                      { return nil }
func (m *memTransport) Kind() string                    { return "stdio" }
func (m *memTransport) Close(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.end()
	return nil
}

// end closes the session once; the caller holds m.mu.
func (m *memTransport) end() {
	if !m.closed {
		m.closed = true
		close(m.done)
		close(m.in)
	}
}

// Judge runs the check with the ID at the revision against the server and returns the
// verdict. It fails the test if the check or revision does not exist.
func Judge(t testing.TB, id, rev string, srv *Server, opts ...func(*conform.Config)) conform.Verdict {
	t.Helper()
	return JudgeAll(t, []string{id}, rev, srv, opts...)[0]
}

// JudgeAll runs the checks with the IDs in one run (one main session, in run order)
// at the revision against the server and returns their verdicts in the order of ids.
// It fails the test if a check or the revision does not exist.
func JudgeAll(t testing.TB, ids []string, rev string, srv *Server, opts ...func(*conform.Config)) []conform.Verdict {
	t.Helper()
	var checks []*conform.Check
	for _, id := range ids {
		c := conform.Lookup(id)
		if c == nil {
			t.Fatalf("no check %s is registered (import its suite package)", id)
		}
		checks = append(checks, c)
	}
	r, ok := revision.Lookup(rev)
	if !ok {
		t.Fatalf("unknown revision %s", rev)
	}
	cfg := conform.Config{Timeout: 300 * time.Millisecond, KillGrace: 10 * time.Millisecond}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	vs, err := conform.JudgeAll(ctx, cfg, checks, r, srv.Dial)
	if err != nil {
		t.Fatalf("judge %v: %v", ids, err)
	}
	return vs
}
