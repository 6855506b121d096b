package refserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// sseHandler serves the 2024-11-05 HTTP+SSE transport.
type sseHandler struct {
	cfg    *config
	cfgErr error
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*sseSession
}

// sseSession is one HTTP+SSE session: its event stream carries every server message.
type sseSession struct {
	id string
	s  *session
	st *sseStream
}

// send delivers one server message as an SSE "message" event (under the
// sse-response-event-named fault a response goes out a second time, as an event
// named "response", which a client does not read).
func (ss *sseSession) send(msg []byte) error {
	if err := ss.st.event("", "message", msg); err != nil {
		return err
	}
	if ss.s.cfg.faults.on(faultSSEResponseEventNamed) {
		if m, err := wire.Decode(msg); err == nil && m.IsResponse() {
			return ss.st.event("", "response", msg)
		}
	}
	return nil
}

// NewSSEHandler returns the 2024-11-05 HTTP+SSE transport. A GET to a path ending in
// /sse opens a session's event stream, whose first event is "endpoint" with the POST
// URI (/messages?sessionId=<id>, relative to the same mount). POSTs to that URI are
// answered 202 Accepted (400 for a body that is not JSON, which also gets -32700 on
// the stream; 404 for an unknown session) and every reply and notification goes out
// on the stream as an event named "message". The session ends with its GET stream.
// Origin is checked as for Streamable HTTP (403). The returned handler also
// implements io.Closer.
func NewSSEHandler(opts Options) http.Handler {
	cfg, err := newConfig(opts)
	ctx, cancel := context.WithCancel(context.Background())
	return &sseHandler{cfg: cfg, cfgErr: err, ctx: ctx, cancel: cancel, sessions: map[string]*sseSession{}}
}

// Close ends every session; their GET streams return.
func (h *sseHandler) Close() error {
	h.cancel()
	return nil
}

var _ io.Closer = (*sseHandler)(nil)

func (h *sseHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.cfgErr != nil {
		http.Error(w, "fixture misconfigured: "+h.cfgErr.Error(), http.StatusInternalServerError)
		return
	}
	if !originAllowed(r) && !h.cfg.faults.on(faultSSEOriginUnchecked) {
		writeHTTPError(w, http.StatusForbidden, wire.CodeInvalidRequest, "Forbidden: Origin is not a loopback origin")
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/sse") && r.Method == http.MethodGet:
		h.stream(w, r)
	case strings.HasSuffix(r.URL.Path, "/messages") && r.Method == http.MethodPost:
		h.message(w, r)
	case strings.HasSuffix(r.URL.Path, "/sse"):
		w.Header().Set("Allow", "GET")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	case strings.HasSuffix(r.URL.Path, "/messages"):
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	default:
		http.NotFound(w, r)
	}
}

// stream serves one session's event stream for as long as the client stays.
func (h *sseHandler) stream(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, "text/event-stream") {
		http.Error(w, "Not Acceptable: Accept must allow text/event-stream", http.StatusNotAcceptable)
		return
	}
	id, err := newSessionID()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.mu.Lock()
	full := len(h.sessions) >= maxSessions
	h.mu.Unlock()
	if full {
		http.Error(w, "Service Unavailable: too many sessions", http.StatusServiceUnavailable)
		return
	}
	ss := &sseSession{id: id, s: newSession(h.ctx, h.cfg), st: startSSE(w)}
	h.mu.Lock()
	h.sessions[id] = ss // registered before the endpoint event announces it
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.sessions, id)
		h.mu.Unlock()
		ss.st.close()
		ss.s.close()
	}()
	endpoint := strings.TrimSuffix(r.URL.Path, "sse") + "messages?sessionId=" + id
	if h.cfg.faults.on(faultSSEEndpointNotFirst) {
		early := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"stream opened"}}`)
		if err := ss.st.event("", "message", early); err != nil {
			return
		}
	}
	if err := ss.st.event("", "endpoint", []byte(endpoint)); err != nil {
		return
	}
	select {
	case <-r.Context().Done():
	case <-h.ctx.Done():
	}
}

// message accepts one POSTed JSON text for a session.
func (h *sseHandler) message(w http.ResponseWriter, r *http.Request) {
	sid := r.URL.Query().Get("sessionId")
	if sid == "" {
		http.Error(w, "Bad Request: the sessionId query parameter is required", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	ss := h.sessions[sid]
	h.mu.Unlock()
	if ss == nil {
		http.Error(w, "Not Found: no such session", http.StatusNotFound)
		return
	}
	if h.cfg.faults.on(faultSSEPostRefused) {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	body, okBody := readBody(w, r)
	if !okBody {
		return
	}
	ss.s.serveFrame(body, ss) // replies and notifications go out on the stream
	if !json.Valid(body) {
		http.Error(w, "Bad Request: the body is not JSON", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}
