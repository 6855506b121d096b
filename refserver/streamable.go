package refserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Header names of the Streamable HTTP transport (matched case-insensitively).
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "MCP-Protocol-Version"
)

// streamableHandler serves the Streamable HTTP transport on one endpoint.
type streamableHandler struct {
	cfg    *config
	cfgErr error
	ctx    context.Context // ends every session and stream at Close
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*httpSession
	minted   atomic.Int64 // session ids minted (the shttp-session-id-counter fault)
	// usedConns are the client connections (remote addresses) that carried a
	// session's request (the shttp-reinit-refused fault only).
	usedConns map[string]bool
}

// httpSession is one Streamable HTTP session.
type httpSession struct {
	id     string
	s      *session
	events atomic.Int64 // SSE event ids: unique across every stream of the session
	// ended is closed when a DELETE ends the session's GET streams (also under
	// the shttp-delete-keeps-session fault, which keeps the session itself).
	ended   chan struct{}
	endOnce sync.Once

	mu         sync.Mutex
	logs       map[int]*sseLog // the session's streams, for resumption (streamlog.go)
	nextStream int
	gets       []*sseLog // the GET streams open now, oldest first
	// getOpened is closed when the session's first GET stream opens.
	getOpened     chan struct{}
	getOpenedOnce sync.Once
}

// endStreams ends the session's GET streams.
func (hs *httpSession) endStreams() { hs.endOnce.Do(func() { close(hs.ended) }) }

// NewStreamableHandler returns the Streamable HTTP transport (2025-03-26 semantics,
// also serving sessions that negotiate 2024-11-05), to be mounted at /mcp.
//
//   - POST carries one JSON-RPC message, or a batch in a 2025-03-26 session.
//     initialize without Mcp-Session-Id opens a session and returns its id; any other
//     POST needs a live session id (missing → 400, unknown or terminated → 404).
//     Notifications and responses only → 202. tools/call is answered on an SSE stream
//     (its notifications and server requests first, then the response); other
//     requests with application/json.
//   - GET opens an SSE stream for server-initiated messages; DELETE ends the session.
//   - A present, non-loopback Origin → 403; an Accept that excludes what the method
//     returns → 406; after a 2025-06-18+ negotiation, an MCP-Protocol-Version header
//     other than the negotiated version → 400.
//
// The returned handler also implements io.Closer: Close ends every session.
func NewStreamableHandler(opts Options) http.Handler {
	cfg, err := newConfig(opts)
	ctx, cancel := context.WithCancel(context.Background())
	return &streamableHandler{cfg: cfg, cfgErr: err, ctx: ctx, cancel: cancel, sessions: map[string]*httpSession{}}
}

// Close ends every session and open stream.
func (h *streamableHandler) Close() error {
	h.cancel()
	h.mu.Lock()
	all := h.sessions
	h.sessions = map[string]*httpSession{}
	h.mu.Unlock()
	for _, hs := range all {
		hs.s.close()
	}
	return nil
}

var _ io.Closer = (*streamableHandler)(nil)

func (h *streamableHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.cfgErr != nil {
		http.Error(w, "fixture misconfigured: "+h.cfgErr.Error(), http.StatusInternalServerError)
		return
	}
	// r5-origin-unchecked: a modern request (it names its method in Mcp-Method)
	// passes whatever its Origin.
	// shttp-origin-unchecked: a legacy request (no Mcp-Method) passes whatever its
	// Origin; shttp-origin-400 refuses it with the wrong status.
	unchecked := h.cfg.faults.on(faultR5OriginUnchecked) && r.Header.Get(headerMcpMethod) != "" ||
		h.cfg.faults.on(faultSHTTPOriginUnchecked) && r.Header.Get(headerMcpMethod) == ""
	if !originAllowed(r) && !unchecked {
		status := http.StatusForbidden
		if h.cfg.faults.on(faultSHTTPOrigin400) {
			status = http.StatusBadRequest
		}
		writeHTTPError(w, status, wire.CodeInvalidRequest, "Forbidden: Origin is not a loopback origin")
		return
	}
	var body []byte // read here only when the era must be told from it (modern.go)
	if h.cfg.servesModern() && r.Method == http.MethodPost {
		var ok bool
		if body, ok = readPOSTBody(w, r); !ok {
			return
		}
	}
	if h.routeModern(r, body) {
		h.serveModern(w, r, body)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeHTTPError(w, http.StatusMethodNotAllowed, wire.CodeInvalidRequest, "Method Not Allowed")
	}
}

// lookup finds the session named by the request: missing header → 400, unknown or
// terminated → 404 (the error is already written when nil is returned).
func (h *streamableHandler) lookup(w http.ResponseWriter, r *http.Request) *httpSession {
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		status := http.StatusBadRequest
		if h.cfg.faults.on(faultSHTTPMissingID404) {
			status = http.StatusNotFound
		}
		writeHTTPError(w, status, wire.CodeInvalidRequest, "Bad Request: the Mcp-Session-Id header is required")
		return nil
	}
	h.mu.Lock()
	hs := h.sessions[sid]
	if hs != nil && h.cfg.faults.on(faultSHTTPReinitRefused) {
		if h.usedConns == nil {
			h.usedConns = map[string]bool{}
		}
		h.usedConns[r.RemoteAddr] = true
	}
	h.mu.Unlock()
	if hs == nil {
		writeHTTPError(w, http.StatusNotFound, wire.CodeInvalidRequest, "Not Found: no such session (unknown or terminated)")
		return nil
	}
	return hs
}

// checkedSession is lookup followed by the MCP-Protocol-Version check of versionOK,
// for a GET or a DELETE: the session, or nil with the error already written.
func (h *streamableHandler) checkedSession(w http.ResponseWriter, r *http.Request) *httpSession {
	hs := h.lookup(w, r)
	if hs == nil {
		return nil
	}
	if !versionOK(hs, r) {
		writeHTTPError(w, http.StatusBadRequest, wire.CodeInvalidRequest, badVersionHeader)
		return nil
	}
	return hs
}

// badVersionHeader is the 400 for an MCP-Protocol-Version header versionOK refuses.
const badVersionHeader = "Bad Request: unsupported or mismatched MCP-Protocol-Version header"

// versionOK applies the MCP-Protocol-Version rule of 2025-06-18+ sessions: an absent
// header is fine (assume the negotiated version), a present one must name the
// negotiated version. Earlier sessions ignore the header.
func versionOK(hs *httpSession, r *http.Request) bool {
	v := r.Header.Get(headerProtocolVersion)
	rev, ok := hs.s.negotiated()
	faults := hs.s.cfg.faults
	switch {
	case !ok || !rev.Has(revision.VersionHeader):
		return true
	case v == "":
		return !faults.on(faultSHTTPVersionRequired)
	}
	if faults.on(faultSHTTPVersionUnchecked) || v == rev.Name {
		return true
	}
	// transports.mdx (Protocol Version Header) asks 400 for an "invalid or
	// unsupported" version; another version the session's era serves is neither,
	// though a client should send the negotiated one. The session keeps its
	// negotiated rules. (The official suite's SSE scenarios send 2025-03-26 on a
	// 2025-11-25 session.)
	other, ok := revision.Lookup(v)
	return ok && other.Era == rev.Era
}

// newHTTPSession creates an unregistered session.
func (h *streamableHandler) newHTTPSession() (*httpSession, error) {
	id, err := newSessionID()
	switch {
	case err != nil:
		return nil, err
	case h.cfg.faults.on(faultSHTTPSessionIDCounter):
		id = fmt.Sprintf("mcp-session-%020d", h.minted.Add(1))
	case h.cfg.faults.on(faultSHTTPSessionIDSpace):
		id = "mcp session-" + id
	}
	return &httpSession{id: id, s: newSession(h.ctx, h.cfg), ended: make(chan struct{}), getOpened: make(chan struct{})}, nil
}

// register adds an initialized session; false when the handler is full or closed.
func (h *streamableHandler) register(hs *httpSession) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions) >= maxSessions || h.ctx.Err() != nil {
		return false
	}
	h.sessions[hs.id] = hs
	return true
}

// isInitialize reports whether a frame is exactly one initialize request.
func isInitialize(f frame) bool {
	return !f.batch && len(f.msgs) == 1 && f.msgs[0].Kind == wire.KindRequest &&
		f.msgs[0].Problem == "" && f.msgs[0].Method == "initialize"
}

// wantsStream reports whether a frame holds a tools/call or a tasks/result, which are
// answered on an SSE stream so that their progress, log and list_changed notifications
// and their server requests (a task's, for tasks/result) can precede the response.
func wantsStream(f frame) bool {
	for _, m := range f.msgs {
		if m.Kind == wire.KindRequest && m.Problem == "" && (m.Method == "tools/call" || m.Method == "tasks/result") {
			return true
		}
	}
	return false
}

// readBody reads a bounded POST body; on failure the status is already written.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeHTTPError(w, http.StatusRequestEntityTooLarge, wire.CodeInvalidRequest, "Request Entity Too Large")
		} else {
			writeHTTPError(w, http.StatusBadRequest, wire.CodeParseError, "Bad Request: cannot read the body")
		}
		return nil, false
	}
	return body, true
}

// postHeadersOK applies the POST rules both eras of Streamable HTTP share: Accept
// allows JSON and SSE replies, and the body is JSON. A POST that breaks one is
// answered here (406 or 415), and false is returned.
func postHeadersOK(w http.ResponseWriter, r *http.Request) bool {
	if !accepts(r, "application/json") || !accepts(r, "text/event-stream") {
		writeHTTPError(w, http.StatusNotAcceptable, wire.CodeInvalidRequest, "Not Acceptable: Accept must allow application/json and text/event-stream")
		return false
	}
	if !isJSONContent(r) {
		writeHTTPError(w, http.StatusUnsupportedMediaType, wire.CodeInvalidRequest, "Unsupported Media Type: the body must be application/json")
		return false
	}
	return true
}

func (h *streamableHandler) post(w http.ResponseWriter, r *http.Request) {
	if !postHeadersOK(w, r) {
		return
	}
	body, okBody := readBody(w, r)
	if !okBody {
		return
	}
	f, perr := parseFrame(body)
	// shttp-bad-body-200: an unparseable body is refused with a success status.
	badBody := http.StatusBadRequest
	if perr != nil && perr.Code == wire.CodeParseError && h.cfg.faults.on(faultSHTTPBadBody200) {
		badBody = http.StatusOK
	}
	if r.Header.Get(headerSessionID) == "" && perr == nil && isInitialize(f) {
		if h.reinitRefused(r) {
			writeHTTPError(w, http.StatusBadRequest, wire.CodeInvalidRequest, "Bad Request: this connection belongs to another session")
			return
		}
		h.initialize(w, f)
		return
	}
	if perr != nil && r.Header.Get(headerSessionID) == "" {
		writeJSON(w, badBody, encodeErrorResponse(wire.ID{}, perr, false))
		return
	}
	hs := h.lookup(w, r)
	if hs == nil {
		return
	}
	if h.cfg.faults.on(faultSHTTPSessionIDChanges) {
		if other, err := newSessionID(); err == nil {
			w.Header().Set(headerSessionID, other)
		}
	}
	switch {
	case !versionOK(hs, r):
		writeHTTPError(w, http.StatusBadRequest, wire.CodeInvalidRequest, badVersionHeader)
	case perr != nil:
		writeJSON(w, badBody, hs.s.errorResponse(wire.ID{}, perr))
	case h.cfg.faults.on(faultSHTTPBadNotifAccepted) && !f.batch && len(f.msgs) == 1 && f.msgs[0].Problem != "" && f.msgs[0].ID.IsZero():
		w.WriteHeader(http.StatusAccepted) // dropped as if it were a notification
	case f.batch && !hs.s.batchAllowed():
		writeJSON(w, http.StatusBadRequest, hs.s.errorResponse(wire.ID{}, errBatchRejected()))
	case len(f.msgs) == 1 && hs.s.cfg.faults.unanswered(f.msgs[0]):
		hangUp(w)
	case wantsStream(f):
		h.answerStream(w, r, hs, f)
	default:
		answerJSON(w, r, hs, f)
	}
}

// reinitRefused applies the shttp-reinit-refused fault: an initialize on a client
// connection that has carried a session's requests is refused.
func (h *streamableHandler) reinitRefused(r *http.Request) bool {
	if !h.cfg.faults.on(faultSHTTPReinitRefused) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.usedConns[r.RemoteAddr]
}

// initialize opens a session for an initialize POST. The session is kept (and its id
// returned in Mcp-Session-Id) only when initialize succeeded.
func (h *streamableHandler) initialize(w http.ResponseWriter, f frame) {
	hs, err := h.newHTTPSession()
	if err != nil {
		writeHTTPError(w, http.StatusInternalServerError, wire.CodeInternalError, "Internal Server Error: "+err.Error())
		return
	}
	replies := hs.s.accept(f, sinkFunc(func([]byte) error { return errNoChannel }))
	msg, _ := replies[0].wait(context.Background()) // initialize is answered synchronously
	if _, ok := hs.s.negotiated(); !ok {
		hs.s.close()
		writeJSON(w, http.StatusOK, msg)
		return
	}
	if !h.register(hs) {
		hs.s.close()
		writeHTTPError(w, http.StatusServiceUnavailable, wire.CodeInternalError, "Service Unavailable: too many sessions")
		return
	}
	w.Header().Set(headerSessionID, hs.id)
	writeJSON(w, http.StatusOK, msg)
}

// answerJSON processes a frame without tools/call: 202 when nothing is to be answered,
// otherwise the reply (or the batch's replies) as application/json. A lone message
// that is not a valid request is rejected with 400.
func answerJSON(w http.ResponseWriter, r *http.Request, hs *httpSession, f frame) {
	replies := hs.s.accept(f, sinkFunc(func([]byte) error { return errNoChannel }))
	var msgs [][]byte
	for _, rp := range replies {
		msg, ok := rp.wait(r.Context())
		if !ok {
			return // the client went away
		}
		if msg != nil {
			msgs = append(msgs, msg)
		}
	}
	faults := hs.s.cfg.faults
	switch {
	case len(msgs) == 0 && faults.on(faultSHTTPNotification200):
		w.WriteHeader(http.StatusOK)
	case len(msgs) == 0:
		w.WriteHeader(http.StatusAccepted)
	case f.batch:
		writeJSON(w, http.StatusOK, joinArray(msgs))
	case replies[0].invalid:
		writeJSON(w, http.StatusBadRequest, msgs[0])
	case faults.on(faultSHTTPReplyTextPlain):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(msgs[0])
	default:
		writeJSON(w, http.StatusOK, msgs[0])
	}
}

// joinArray writes encoded messages as one JSON array.
func joinArray(msgs [][]byte) []byte {
	out := []byte{'['}
	for i, m := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	return append(out, ']')
}

// The polling of 2025-11-25 (basic/transports.mdx, Sending Messages): the priming
// event tells the client to come back retryMs after a closed connection, and a
// test_slow call still running pollAfter after its stream opened has its
// connection closed without its stream ending, the client resuming it with GET and
// Last-Event-ID.
const (
	retryMs   = 10
	pollAfter = 150 * time.Millisecond
	// pollMinMs is the least ms of a test_slow call that polls: shorter calls keep
	// their connection, for clients that do not resume.
	pollMinMs = 400
)

// answerStream answers a frame holding tools/call on a resumable SSE stream: (from
// 2025-11-25) a priming event, then every message related to the call, then the
// response(s), then the end of the stream. A client disconnect is not a
// cancellation: the call runs on, and what it sends waits in the stream's log for
// the client to resume the stream (streamlog.go).
func (h *streamableHandler) answerStream(w http.ResponseWriter, r *http.Request, hs *httpSession, f frame) {
	fs := h.cfg.faults
	st := startSSE(w)
	defer st.close()
	lg := hs.newLog()
	// sh-disconnect-cancels: the connection's drop cancels the stream's requests,
	// when the server notices it or, at the latest, when the client resumes.
	var cancelAll func()
	if fs.on(faultDisconnectCancels) {
		cancelAll = func() {
			for _, m := range f.msgs {
				if m.Kind == wire.KindRequest {
					hs.s.cancelRequest(mustMarshal(map[string]any{"requestId": m.ID}))
				}
			}
		}
		lg.beforeResume = cancelAll
	}
	gen := lg.attach(st)
	rev, _ := hs.s.negotiated()
	r4 := rev.AtLeast("2025-11-25")
	if r4 {
		primeLog(lg, fs)
	}
	slow := isSlowCall(f)
	replies := hs.s.accept(f, h.streamSink(r.Context(), hs, lg, f))
	work := func() {
		defer lg.finish()
		for _, rp := range replies {
			msg, ok := rp.wait(hs.s.ctx)
			if !ok {
				return
			}
			if msg == nil {
				continue
			}
			if fs.on(faultResponseOnGet) && !slow && hs.awaitGet(r.Context()) && hs.sendGet(msg) {
				continue // sh-response-on-get-stream: the POST stream ends without it
			}
			send := lg.send
			if fs.on(faultEventIDReused) {
				// sh-event-id-reused: the response reuses the stream's first event id.
				send = func(msg []byte) error { return lg.event(lg.firstEventID(), msg, 0) }
			}
			if err := send(msg); err != nil {
				hs.s.cfg.log.Printf("sse: %v", err)
				return
			}
			if rp.after != nil {
				rp.after()
			}
		}
	}
	if !hs.s.goTracked(work) {
		return
	}
	var poll <-chan time.Time
	switch {
	case !r4 || !slow || lg.firstEventID() == "":
		// The connection may close only after an event with an id: the client's
		// cursor to resume from.
	case slowUntilResumed(f.msgs[0]):
		// A call that works until its stream is resumed polls at once: its
		// response cannot come before the client's return (SHTTP-RETRY-01,
		// SHTTP-DISCONNECT-01 without a duration).
		now := make(chan time.Time, 1)
		now <- time.Now()
		poll = now
	case slowMs(f.msgs[0]) >= pollMinMs:
		t := time.NewTimer(pollAfter)
		defer t.Stop()
		poll = t.C
	}
	select {
	case <-lg.doneCh:
		if fs.on(faultStreamLingers) && slow {
			// sh-stream-lingers: the stream stays open after its response.
			select {
			case <-r.Context().Done():
			case <-hs.s.ctx.Done():
			}
		}
	case <-poll:
		lg.detach(gen) // the connection closes; the stream goes on in the log
	case <-r.Context().Done():
		lg.detach(gen)
		if cancelAll != nil {
			cancelAll()
		}
	case <-hs.s.ctx.Done():
	}
}

// primeLog sends the 2025-11-25 priming event: an event id with empty data, and the
// retry the client is to wait before it reconnects (sh-no-priming leaves the event
// out, sh-poll-without-retry the retry).
func primeLog(lg *sseLog, fs faultSet) {
	if fs.on(faultNoPriming) {
		return
	}
	retry := retryMs
	if fs.on(faultPollNoRetry) {
		retry = 0
	}
	if err := lg.event(lg.nextID(), nil, retry); err != nil {
		lg.hs.s.cfg.log.Printf("sse: prime: %v", err)
	}
}

// isSlowCall reports whether a frame is one tools/call of test_slow: the calls that
// poll in 2025-11-25 and that the sh-stream-lingers fault keeps open.
func isSlowCall(f frame) bool {
	return isCallOf(f, "test_slow")
}

// slowMs is the ms argument of a test_slow call (its default when absent).
func slowMs(m *wire.Message) int64 {
	p, _ := paramsObject(m.Params)
	var args struct {
		Ms *int64 `json:"ms"`
	}
	if raw, ok := p["arguments"]; ok && json.Unmarshal(raw, &args) == nil && args.Ms != nil {
		return *args.Ms
	}
	return 1000
}

// slowUntilResumed reports whether a test_slow call asks untilResumed.
func slowUntilResumed(m *wire.Message) bool {
	p, _ := paramsObject(m.Params)
	var args struct {
		UntilResumed bool `json:"untilResumed"`
	}
	if raw, ok := p["arguments"]; ok && json.Unmarshal(raw, &args) == nil {
		return args.UntilResumed
	}
	return false
}

// streamSink is what a call's messages go through on their way to its stream: the
// stream itself, save where a fault sends them elsewhere as well or instead. The
// faults spare test_slow, the suite's probe of the streams themselves.
func (h *streamableHandler) streamSink(ctx context.Context, hs *httpSession, lg *sseLog, f frame) sink {
	fs := h.cfg.faults
	slow := isSlowCall(f)
	foreign := fs.on(faultForeignProgress) && isCallOf(f, "test_tool_with_progress")
	return resumableSink{lg: lg, sink: sinkFunc(func(msg []byte) error {
		if foreign {
			foreign = false // once per stream, ahead of the call's own messages
			if n, err := encodeNotification("notifications/progress", map[string]any{
				"progressToken": "mcp-conform-fixture-foreign", "progress": 1,
			}); err == nil {
				_ = lg.send(n)
			}
		}
		if isProgress(msg) && !slow {
			if fs.on(faultProgressOnGet) && hs.awaitGet(ctx) && hs.sendGet(msg) {
				return nil
			}
			if fs.on(faultStreamBroadcast) {
				h.broadcast(hs, msg)
			}
		}
		return lg.send(msg)
	})}
}

// resumableSink is the sink of a resumable stream: it tells a call when the client
// resumed the stream (resumedSignal).
type resumableSink struct {
	sink
	lg *sseLog
}

func (r resumableSink) resumed() <-chan struct{} { return r.lg.resumedCh }

// isCallOf reports whether a frame is one tools/call of the named tool.
func isCallOf(f frame, name string) bool {
	return len(f.msgs) == 1 && f.msgs[0].Method == "tools/call" && toolName(f.msgs[0]) == name
}

// isProgress reports whether msg is a notifications/progress.
func isProgress(msg []byte) bool {
	m, err := wire.Decode(msg)
	return err == nil && m.Method == "notifications/progress"
}

// broadcast sends msg on every GET stream of every other session (the fault
// sh-stream-broadcast: a session's progress reaches every open session).
func (h *streamableHandler) broadcast(from *httpSession, msg []byte) {
	h.mu.Lock()
	others := make([]*httpSession, 0, len(h.sessions))
	for _, hs := range h.sessions {
		if hs != from {
			others = append(others, hs)
		}
	}
	h.mu.Unlock()
	for _, hs := range others {
		hs.mu.Lock()
		gets := append([]*sseLog(nil), hs.gets...)
		hs.mu.Unlock()
		for _, lg := range gets {
			_ = lg.send(msg)
		}
	}
}

// sendGet sends a server-initiated message on one GET stream of the session (the
// oldest open one): never on more than one (Multiple Connections). false when none
// is open.
// awaitGet waits until the session's first GET stream has opened, or ctx ends: a
// fault that moves a message to the GET stream moves it whatever the order in which
// the client's GET and POST reached the server, so its verdict does not rest on
// the machine's speed.
func (hs *httpSession) awaitGet(ctx context.Context) bool {
	select {
	case <-hs.getOpened:
		return true
	case <-ctx.Done():
		return false
	}
}

func (hs *httpSession) sendGet(msg []byte) bool {
	hs.mu.Lock()
	var lg *sseLog
	if len(hs.gets) > 0 {
		lg = hs.gets[0]
	}
	hs.mu.Unlock()
	return lg != nil && lg.send(msg) == nil
}

// get opens a stream for server-initiated messages (or, with Last-Event-ID, resumes
// an earlier stream). It stays open until the session ends, the client disconnects
// or the handler closes. A new stream is told, once, that the server is listening:
// a log message related to no request.
func (h *streamableHandler) get(w http.ResponseWriter, r *http.Request) {
	if h.cfg.faults.on(faultSHTTPGet404) {
		http.NotFound(w, r)
		return
	}
	if !accepts(r, "text/event-stream") {
		writeHTTPError(w, http.StatusNotAcceptable, wire.CodeInvalidRequest, "Not Acceptable: Accept must allow text/event-stream")
		return
	}
	hs := h.checkedSession(w, r)
	if hs == nil {
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		h.resume(w, r, hs, last)
		return
	}
	// The stream is one of the session's GET streams before the client can learn
	// it is open (the response's headers go out below, or with the first event):
	// whatever the server sends to its GET streams from then on reaches it,
	// however the client's next request races this one.
	st := prepareSSE(w, true)
	defer st.close()
	lg := hs.newLog()
	defer lg.finish()
	gen := lg.attach(st)
	defer lg.detach(gen)
	hs.mu.Lock()
	hs.gets = append(hs.gets, lg)
	hs.mu.Unlock()
	hs.getOpenedOnce.Do(func() { close(hs.getOpened) })
	defer func() {
		hs.mu.Lock()
		hs.gets = slices.DeleteFunc(hs.gets, func(l *sseLog) bool { return l == lg })
		hs.mu.Unlock()
	}()
	if rev, ok := hs.s.negotiated(); ok && rev.AtLeast("2025-11-25") {
		primeLog(lg, h.cfg.faults)
	}
	_ = st.rc.Flush()
	if hs.s.logThreshold() <= logLevelIndex("info") {
		if n, err := encodeNotification("notifications/message", map[string]any{
			"level": "info", "logger": ServerName, "data": "Listening: this stream carries the server's messages that relate to no request.",
		}); err == nil {
			_ = lg.send(n)
		}
	}
	select {
	case <-r.Context().Done():
	case <-hs.s.ctx.Done():
	case <-hs.ended:
	}
}

// resume serves a GET with Last-Event-ID: the events of that stream after that id,
// then the stream's later events until it ends. An id of no stream this session
// keeps is answered 400 (the specification names no status for it).
func (h *streamableHandler) resume(w http.ResponseWriter, r *http.Request, hs *httpSession, last string) {
	lg := hs.logOf(last)
	if lg == nil || !lg.has(last) {
		writeHTTPError(w, http.StatusBadRequest, wire.CodeInvalidRequest, "Bad Request: Last-Event-ID names no event of a stream this session keeps")
		return
	}
	st := startSSE(w)
	defer st.close()
	gen, ok := lg.resume(st, last, h.cfg.faults.on(faultResumeReplaysAll))
	if !ok {
		return
	}
	defer lg.detach(gen)
	select {
	case <-lg.doneCh:
	case <-r.Context().Done():
	case <-hs.s.ctx.Done():
	case <-hs.ended:
	}
}

// delete terminates a session: 200, after which its id is unknown (404).
func (h *streamableHandler) delete(w http.ResponseWriter, r *http.Request) {
	hs := h.checkedSession(w, r)
	if hs == nil {
		return
	}
	switch {
	case h.cfg.faults.on(faultSHTTPDelete400):
		writeHTTPError(w, http.StatusBadRequest, wire.CodeInvalidRequest, "Bad Request: sessions are not ended by DELETE")
		return
	case h.cfg.faults.on(faultSHTTPDeleteKeeps):
		hs.endStreams() // the streams end, the session serves on
		w.WriteHeader(http.StatusOK)
		return
	}
	h.mu.Lock()
	delete(h.sessions, hs.id)
	h.mu.Unlock()
	hs.endStreams()
	hs.s.close()
	w.WriteHeader(http.StatusOK)
}

// hangUp closes the request's connection without writing any response (the
// list-params-unanswered fault).
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	if conn, _, err := hj.Hijack(); err == nil {
		_ = conn.Close()
	}
}
