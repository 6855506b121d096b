package refserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Header names of the 2026-07-28 Streamable HTTP transport. Go canonicalises names,
// so every lookup is case-insensitive; values are compared exactly.
const (
	headerMcpMethod   = "Mcp-Method"
	headerMcpName     = "Mcp-Name"
	headerParamPrefix = "Mcp-Param-"
)

// base64 sentinel of header values that are not plain ASCII.
const (
	b64Prefix = "=?base64?"
	b64Suffix = "?="
)

// namedMethods carry Mcp-Name: params.name or params.uri.
var namedMethods = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

// routeModern decides whether a Streamable HTTP request is served in the modern era.
// A modern-only server serves everything so; a dual-era one serves POSTs whose body
// is a request carrying modern _meta, or whose MCP-Protocol-Version header names a
// modern revision. body is the POST body, already read (nil otherwise).
func (h *streamableHandler) routeModern(r *http.Request, body []byte) bool {
	switch {
	case !h.cfg.servesModern():
		return false
	case !h.cfg.servesLegacy():
		return true
	case r.Method != http.MethodPost:
		return false
	}
	if _, ok := h.cfg.modernRevision(r.Header.Get(headerProtocolVersion)); ok {
		return true
	}
	f, perr := parseFrame(body)
	return perr == nil && !f.batch && isModernMessage(f.msgs[0])
}

// modernHTTPStatus is the HTTP status of an error answer in the modern era.
func modernHTTPStatus(code int) int {
	switch code {
	case wire.CodeMethodNotFound:
		return http.StatusNotFound
	case CodeHeaderMismatch, CodeMissingCapability, CodeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// errorStatus is modernHTTPStatus as this server applies it: the faults
// r5-unknown-method-200 and r5-version-error-200 answer their codes with 200.
func (h *streamableHandler) errorStatus(code int) int {
	switch {
	case code == wire.CodeMethodNotFound && h.cfg.faults.on(faultR5UnknownMethod200),
		code == CodeUnsupportedVersion && h.cfg.faults.on(faultR5VersionError200):
		return http.StatusOK
	}
	return modernHTTPStatus(code)
}

// writeModernError writes an error answer with the status its code calls for; pre
// is true for errors found before the request was processed (400: a malformed
// request, unless the code calls for another status).
func (h *streamableHandler) writeModernError(w http.ResponseWriter, id wire.ID, e *rpcError, pre bool) {
	status := h.errorStatus(e.Code)
	if pre && modernHTTPStatus(e.Code) == http.StatusOK {
		status = http.StatusBadRequest
	}
	h.modernHeaders(w)
	writeJSON(w, status, encodeErrorResponse(id, e, true))
}

// modernHeaders sets what every modern answer carries: nothing, unless a fault mints
// a session id (2026-07-28 has no sessions).
func (h *streamableHandler) modernHeaders(w http.ResponseWriter) {
	if h.cfg.faults.on(faultR5SessionMinted) {
		if id, err := newSessionID(); err == nil {
			w.Header().Set(headerSessionID, id)
		}
	}
}

// serveModern serves one request of the modern era: POST only (GET and DELETE are
// 405 on a modern-only server), one JSON-RPC message per POST, headers checked
// against the body, no session.
func (h *streamableHandler) serveModern(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost {
		if h.cfg.faults.on(faultR5GetStreamServed) {
			writeHTTPError(w, http.StatusBadRequest, wire.CodeInvalidRequest, "Bad Request")
			return
		}
		w.Header().Set("Allow", http.MethodPost)
		writeHTTPError(w, http.StatusMethodNotAllowed, wire.CodeInvalidRequest,
			"Method Not Allowed: 2026-07-28 has no GET stream and no sessions to DELETE; POST every message")
		return
	}
	if h.cfg.faults.on(faultR5PostRefused) {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	if !postHeadersOK(w, r) {
		return
	}
	f, perr := parseFrame(body)
	switch {
	case perr != nil:
		h.writeModernError(w, wire.ID{}, perr, true)
		return
	case f.batch:
		h.writeModernError(w, wire.ID{}, errInvalidRequest("JSON-RPC batches are not part of 2026-07-28"), true)
		return
	}
	if r.Header.Get("Last-Event-ID") != "" && h.cfg.faults.on(faultR5LastEventIDRefuse) {
		writeHTTPError(w, http.StatusBadRequest, wire.CodeInvalidRequest, "Bad Request: no stream to resume for Last-Event-ID")
		return
	}
	m := f.msgs[0]
	switch {
	case m.Problem != "" && m.Kind != wire.KindResult:
		h.writeModernError(w, m.ID, errInvalidRequest(m.Problem), true)
	case m.Kind == wire.KindNotification:
		// Accepted and ignored: over HTTP a request is cancelled by closing its stream.
		h.modernHeaders(w)
		if h.cfg.faults.on(faultR5Notification200) {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case m.Kind != wire.KindRequest:
		h.writeModernError(w, wire.ID{}, errInvalidRequest("clients send no responses in 2026-07-28: the server sends no requests"), true)
	case m.ID.IsNull():
		h.writeModernError(w, wire.ID{}, errNullID(h.cfg.faults), true)
	case m.Method == "initialize" && !isModernMessage(m):
		h.writeModernError(w, m.ID, h.cfg.errInitializeRefused(m.Params), true)
	default:
		h.modernRequest(w, r, m)
	}
}

// modernRequest checks a request's headers and _meta, then answers it.
func (h *streamableHandler) modernRequest(w http.ResponseWriter, r *http.Request, m *wire.Message) {
	if h.cfg.faults.unanswered(m) {
		hangUp(w) // list-params-unanswered: the same silence as on stdio
		return
	}
	if e := h.checkStandardHeaders(r, m); e != nil {
		h.writeModernError(w, m.ID, e, true)
		return
	}
	mm, e := h.cfg.checkModernMeta(m.Params)
	if e != nil {
		h.writeModernError(w, m.ID, e, true)
		return
	}
	if !knownModernMethod(m.Method) && !(m.Method == "ping" && h.cfg.faults.on(faultR5PingServed)) {
		h.writeModernError(w, m.ID, h.cfg.modernMethodNotFound(m.Method), true)
		return
	}
	if m.Method == "tools/call" && !h.cfg.faults.on(faultR5ParamHeaderUnchecked) {
		if e := h.checkParamHeaders(r, m, mm.rev); e != nil {
			h.writeModernError(w, m.ID, e, true)
			return
		}
	}
	if m.Method == methodListen {
		h.modernListen(w, r, m)
		return
	}
	s := newModernSession(h.ctx, h.cfg, m.Method, mm)
	defer s.close()
	out := &lazySSE{w: w, before: func() { h.modernHeaders(w) }, noAccel: h.cfg.faults.on(faultR5NoXAccel)}
	defer out.close()
	fs := h.cfg.faults
	if fs.on(faultForeignProgress) && m.Method == "tools/call" && toolName(m) == "test_tool_with_progress" {
		// sh-foreign-progress: the stream opens with a progress for no request's token.
		if n, err := encodeNotification("notifications/progress", map[string]any{
			"progressToken": "mcp-conform-fixture-foreign", "progress": 1,
		}); err == nil {
			_ = out.send(n)
		}
	}
	rp := s.dispatchModern(m, out)
	msg, ok := rp.wait(r.Context())
	if !ok {
		if fs.on(faultR5CloseNotCancel) {
			rp.wait(h.ctx) // r5-close-not-cancel: the work runs on to its end
			return
		}
		// The client closed the request's stream: that is the cancellation. Nothing
		// more is sent for it (the session's sinks are closed).
		s.cancelRequest(mustMarshal(map[string]any{"requestId": m.ID}))
		return
	}
	if msg == nil {
		return
	}
	if out.started() {
		if err := out.send(msg); err != nil {
			h.cfg.log.Printf("sse: %v", err)
			return
		}
		if rp.after != nil {
			rp.after() // on the request's own stream, still open until out.close
		}
		if fs.on(faultStreamLingers) && m.Method == "tools/call" && toolName(m) == "test_slow" {
			// sh-stream-lingers: the stream stays open after its final response.
			select {
			case <-r.Context().Done():
			case <-h.ctx.Done():
			}
		}
		return
	}
	status := http.StatusOK
	if dm, err := wire.Decode(msg); err == nil && dm.Error != nil {
		status = h.errorStatus(dm.Error.Code)
	}
	h.modernHeaders(w)
	writeJSON(w, status, msg)
}

// decodeHeaderValue undoes the =?base64?…?= sentinel encoding.
func decodeHeaderValue(v string) (string, error) {
	if !strings.HasPrefix(v, b64Prefix) || !strings.HasSuffix(v, b64Suffix) || len(v) < len(b64Prefix)+len(b64Suffix) {
		return v, nil
	}
	enc := v[len(b64Prefix) : len(v)-len(b64Suffix)]
	dec, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", fmt.Errorf("invalid base64 header value %q: %w", v, err)
	}
	return string(dec), nil
}

func errHeaderMismatch(format string, args ...any) *rpcError {
	return &rpcError{Code: CodeHeaderMismatch, Message: "Header mismatch: " + fmt.Sprintf(format, args...)}
}

// checkStandardHeaders applies 2026-07-28's Server Validation: MCP-Protocol-Version,
// Mcp-Method and (for tools/call, resources/read, prompts/get) Mcp-Name are required
// and must equal the body's values (Mcp-Name after base64 decoding); values are
// case-sensitive.
func (h *streamableHandler) checkStandardHeaders(r *http.Request, m *wire.Message) *rpcError {
	optional := h.cfg.faults.on(faultR5HeadersOptional)
	version := r.Header.Get(headerProtocolVersion)
	if version == "" && !optional {
		return errHeaderMismatch("the %s header is required", headerProtocolVersion)
	}
	p, _ := paramsObject(m.Params)
	if meta, _, _ := p.optObject("_meta"); meta != nil {
		if body, has, _ := meta.optString(metaProtocolVersion); has && body != version && version != "" {
			return errHeaderMismatch("%s header value %q does not match _meta %q", headerProtocolVersion, version, body)
		}
	}
	lenient := h.cfg.faults.on(faultR5HeaderMismatchOK)
	method := r.Header.Get(headerMcpMethod)
	switch {
	case method == "" && optional:
	case method == "":
		return errHeaderMismatch("the %s header is required", headerMcpMethod)
	case method != m.Method && !lenient:
		return errHeaderMismatch("%s header value %q does not match body method %q", headerMcpMethod, method, m.Method)
	}
	field, named := namedMethods[m.Method]
	if !named || m.Method != "tools/call" && h.cfg.faults.on(faultR5NameToolsOnly) {
		return nil
	}
	raw := r.Header.Get(headerMcpName)
	switch {
	case raw == "" && optional:
		return nil
	case raw == "":
		return errHeaderMismatch("the %s header is required for %s", headerMcpName, m.Method)
	}
	name, err := decodeHeaderValue(raw)
	if err != nil {
		return errHeaderMismatch("%s: %v", headerMcpName, err)
	}
	if h.cfg.faults.on(faultR5NameUndecoded) || m.Method != "tools/call" && h.cfg.faults.on(faultR5NameB64ToolsOnly) {
		name = raw
	}
	if body, _, _ := p.optString(field); body != name && !lenient {
		return errHeaderMismatch("%s header value %q does not match body %s %q", headerMcpName, name, field, body)
	}
	return nil
}

// checkParamHeaders applies the x-mcp-header rule to a tools/call: every annotated
// parameter with a value in the arguments needs its Mcp-Param-{Name} header, equal
// after decoding (integers compared as numbers); null or absent values need none.
func (h *streamableHandler) checkParamHeaders(r *http.Request, m *wire.Message, rev revision.Revision) *rpcError {
	p, _ := paramsObject(m.Params)
	name, _, _ := p.optString("name")
	dynamicOn, _ := h.cfg.modern.toolList()
	t := h.cfg.tools.lookup(name, dynamicOn)
	if t == nil || !t.servedIn(rev) {
		return nil // unknown tools are the method's error (-32602)
	}
	args, err := decodeArgs(p["arguments"])
	if err != nil {
		return nil // malformed arguments are the method's error
	}
	for _, hp := range headerParams(t.input) {
		want, number, has := headerValue(args, hp.path)
		raw := r.Header.Get(headerParamPrefix + hp.header)
		switch {
		case !has:
			continue // null or absent: no header expected, and nothing to compare one with
		case raw == "":
			return errHeaderMismatch("the %s%s header is required: the arguments carry %s", headerParamPrefix, hp.header, strings.Join(hp.path, "."))
		}
		got, err := decodeHeaderValue(raw)
		if err != nil {
			return errHeaderMismatch("%s%s: %v", headerParamPrefix, hp.header, err)
		}
		if got != want && !(number && numericallyEqual(got, want)) {
			return errHeaderMismatch("%s%s header value %q does not match the argument %q", headerParamPrefix, hp.header, got, want)
		}
	}
	return nil
}

// numericallyEqual compares two decimal renderings as numbers (42.0 equals 42).
func numericallyEqual(a, b string) bool {
	var x, y json.Number = json.Number(a), json.Number(b)
	fx, err1 := x.Float64()
	fy, err2 := y.Float64()
	return err1 == nil && err2 == nil && fx == fy
}

// modernListen serves subscriptions/listen on its POST's SSE stream: the
// acknowledgement first, then tagged list_changed notifications, until the client
// closes the stream or the server ends the subscription (at shutdown, or
// test_end_subscription: config.endSubscription answers the listen request, a
// graceful closure).
func (h *streamableHandler) modernListen(w http.ResponseWriter, r *http.Request, m *wire.Message) {
	out := &lazySSE{w: w, before: func() { h.modernHeaders(w) }, noAccel: h.cfg.faults.on(faultR5NoXAccel)}
	defer out.close()
	l, ack, e := openListen(h.cfg, m, out)
	if e != nil {
		h.writeModernError(w, m.ID, e, false)
		return
	}
	// Registered before the stream's headers go out: once the client sees the
	// stream, every later change reaches it.
	err := l.start(h.cfg.modern, ack, !h.cfg.faults.on(faultR5ListenNoAck))
	if err == nil {
		err = out.begin()
	}
	if err != nil {
		h.cfg.modern.removeListener(l)
		return
	}
	select {
	case <-r.Context().Done():
		h.cfg.modern.removeListener(l)
	case <-l.ended: // the server ended it (test_end_subscription)
	case <-h.ctx.Done():
		h.cfg.endSubscription(l)
	}
}

// lazySSE is the channel of one modern request: the first message related to the
// request turns the response into an SSE stream; a request that sends none is
// answered with application/json (so that errors keep their HTTP status).
type lazySSE struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	st     *sseStream
	closed bool
	before func() // sets headers before the stream starts
	// noAccel leaves out X-Accel-Buffering (r5-no-x-accel-buffering).
	noAccel bool
}

func (l *lazySSE) send(msg []byte) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return errSessionClosed
	}
	if l.st == nil {
		l.before()
		l.st = startSSEWith(l.w, !l.noAccel)
	}
	st := l.st
	l.mu.Unlock()
	return st.event("", "", msg)
}

// begin starts the stream if no message did yet.
func (l *lazySSE) begin() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errSessionClosed
	}
	if l.st == nil {
		l.before()
		l.st = startSSEWith(l.w, !l.noAccel)
	}
	return nil
}

func (l *lazySSE) started() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.st != nil
}

// close ends writing before the handler returns.
func (l *lazySSE) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.st != nil {
		l.st.close()
	}
}

// readPOSTBody reads a POST body for routing and puts it back for the legacy
// handler; ok false means the error status is written.
func readPOSTBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, ok := readBody(w, r)
	if !ok {
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// toolName is a tools/call's params.name ("" when it has none).
func toolName(m *wire.Message) string {
	p, _ := paramsObject(m.Params)
	name, _, _ := p.optString("name")
	return name
}
