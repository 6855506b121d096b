package refserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// sink carries messages from the server to the client over one channel: stdout, an
// SSE stream, or an HTTP response.
type sink interface {
	send(msg []byte) error
}

// rawSink is a sink that can also write bytes as they are (stdio), for the faults
// that break the framing itself.
type rawSink interface {
	sendRaw(b []byte) error
}

// sinkFunc adapts a function to sink.
type sinkFunc func(msg []byte) error

func (f sinkFunc) send(msg []byte) error { return f(msg) }

// resumedSignal is implemented by the sink of a stream a client may resume
// (Streamable HTTP, streamlog.go): the channel closes once the client resumed it.
type resumedSignal interface {
	resumed() <-chan struct{}
}

// resumedOf is the resumption signal of out, nil when out's stream cannot be
// resumed.
func resumedOf(out sink) <-chan struct{} {
	if r, ok := out.(resumedSignal); ok {
		return r.resumed()
	}
	return nil
}

// errNoChannel is returned by sinks that cannot carry server-initiated messages.
var errNoChannel = errors.New("no channel to the client for this message")

// errSessionClosed is returned once a session has ended.
var errSessionClosed = errors.New("session closed")

// guardedSink drops every message once ctx is done: a cancelled request sends nothing
// more (no progress, no log, no response).
type guardedSink struct {
	ctx context.Context
	out sink
}

func (g guardedSink) send(msg []byte) error {
	if err := g.ctx.Err(); err != nil {
		return fmt.Errorf("request ended: %w", err)
	}
	return g.out.send(msg)
}

// reply is the eventual response to one incoming message. msg nil means nothing is
// sent (the request was cancelled). invalid marks the answer to a message that is not
// a request at all (no usable id), which Streamable HTTP rejects with status 400; an
// invalid request that carries a readable id is answered like any request.
type reply struct {
	done    chan struct{}
	msg     []byte
	invalid bool
	// after, when set, runs once the reply was written (only faults use it: a
	// message sent after the response).
	after func()
}

func readyReply(msg []byte) *reply {
	r := &reply{done: make(chan struct{}), msg: msg}
	close(r.done)
	return r
}

func invalidReply(msg []byte) *reply {
	r := readyReply(msg)
	r.invalid = true
	return r
}

// ready reports whether the reply is known.
func (r *reply) ready() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// wait returns the reply, or false if ctx ended first.
func (r *reply) wait(ctx context.Context) ([]byte, bool) {
	select {
	case <-r.done:
		return r.msg, true
	case <-ctx.Done():
		return nil, false
	}
}

// inflightCall is a request being worked on off the reader's goroutine.
type inflightCall struct {
	method    string
	cancel    context.CancelFunc
	cancelled bool // by the client's notifications/cancelled
}

// session is one logical MCP session: one stdio process, one Streamable HTTP session,
// or one HTTP+SSE stream.
type session struct {
	cfg    *config
	ctx    context.Context // ends when the session ends
	cancel context.CancelFunc
	wg     sync.WaitGroup // work started off the reader's goroutine

	mu            sync.Mutex
	closed        bool
	initialized   bool              // initialize was answered
	rev           revision.Revision // negotiated; valid once initialized
	clientCaps    params            // the client's declared capabilities
	clientReady   bool              // notifications/initialized arrived
	logLevel      int               // index into logLevels: the minimum level sent
	dynamicOn     bool              // test_dynamic_tool is listed
	listVersion   int               // bumped on every change of the tool list
	inflight      map[string]*inflightCall
	lastCancelled string // raw JSON of the last cancelled in-flight request id
	pending       map[string]chan *wire.Message
	nextReqID     int64
	cursorsServed map[string]int   // tools/list requests per cursor (read by a fault only)
	tasks         map[string]*task // 2025-11-25 tasks by id (tasks.go)
	// onModernChannel is set once the dual-era channel carrying this session has
	// served a 2026-07-28 request (read by a fault only: a legacy handshake there is
	// a probe of the modern column, which a legacy fault must not reach).
	onModernChannel bool

	// The session of one modern-era request (modern.go) reads the tool list and the
	// last cancellation from the server-wide shared state; its results are decorated
	// for modernMethod; logOff: the request asked for no log messages.
	shared       *modernState
	modernMethod string
	logOff       bool
}

func newSession(parent context.Context, cfg *config) *session {
	ctx, cancel := context.WithCancel(parent)
	return &session{
		cfg:      cfg,
		ctx:      ctx,
		cancel:   cancel,
		inflight: map[string]*inflightCall{},
		pending:  map[string]chan *wire.Message{},
	}
}

// close ends the session: in-flight work is cancelled (and sends nothing more) and
// waited for.
func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
}

// drain lets in-flight work finish for up to grace, then closes the session.
func (s *session) drain(grace time.Duration) {
	done := stopAndWait(&s.mu, &s.closed, &s.wg, grace)
	s.close()
	<-done
}

// stopAndWait marks a connection closed under mu, so that no new work starts and
// wg.Wait cannot race with wg.Add, then waits up to grace for the work in flight. The
// returned channel is closed once that work has ended (which may be after grace).
func stopAndWait(mu *sync.Mutex, closed *bool, wg *sync.WaitGroup, grace time.Duration) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		mu.Lock()
		*closed = true
		mu.Unlock()
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	return done
}

// goTracked runs fn on a goroutine the session waits for at close. It reports false
// (and does not run fn) once the session is closed.
func (s *session) goTracked(fn func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
	return true
}

// negotiated returns the session's revision once initialize was answered.
func (s *session) negotiated() (revision.Revision, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rev, s.initialized
}

// omitUnusableID reports whether error responses leave out an unreadable id.
func (s *session) omitUnusableID() bool {
	r, ok := s.negotiated()
	return ok && r.Has(revision.ErrorIDOptional)
}

// errorResponse encodes an error response for this session's revision.
func (s *session) errorResponse(id wire.ID, e *rpcError) []byte {
	return encodeErrorResponse(id, e, s.omitUnusableID())
}

// batchAllowed reports whether JSON-RPC batches are accepted: only in a 2025-03-26
// session. Before initialize nothing may be batched (initialize itself must not be).
func (s *session) batchAllowed() bool {
	r, ok := s.negotiated()
	switch {
	case !ok:
		return false
	case r.Has(revision.Batching):
		return !s.cfg.faults.on(faultBatchRefused)
	}
	return s.cfg.faults.on(faultBatchAfterRemoval)
}

// pingInArray reports whether fault ping-reply-in-array wraps the reply to this
// frame's ping in an array: in 2025-06-18 and 2025-11-25 sessions.
func (s *session) pingInArray(f frame) bool {
	if f.batch || !s.cfg.faults.on(faultReplyInArray) || f.msgs[0].Method != "ping" {
		return false
	}
	r, ok := s.negotiated()
	return ok && r.Has(revision.Title)
}

// errBatchRejected answers an array outside a 2025-03-26 session.
func errBatchRejected() *rpcError {
	return errInvalidRequest("JSON-RPC batches are not supported in this session's protocol revision")
}

// serveFrame handles one incoming JSON text on a single-channel transport (stdio,
// HTTP+SSE): replies, notifications and server requests all go to out. Replies that
// are ready at once are written before serveFrame returns, so their order follows the
// input; replies of long-running calls follow when the work ends.
func (s *session) serveFrame(raw []byte, out sink) {
	f, perr := parseFrame(raw)
	fs := s.cfg.faults
	if perr != nil {
		if fs.on(faultParseSilent) && perr.Code == wire.CodeParseError {
			s.cfg.log.Printf("fault %s: unparseable input dropped", faultParseSilent)
			return
		}
		id := wire.ID{}
		if fs.on(faultParseErrorID) && perr.Code == wire.CodeParseError {
			id = wire.StringID("parse-error")
		}
		s.sendLogged(out, s.errorResponse(id, perr))
		return
	}
	if f.batch && !s.batchAllowed() {
		s.sendLogged(out, s.errorResponse(wire.ID{}, errBatchRejected()))
		return
	}
	replies := s.accept(f, out)
	if len(replies) == 0 {
		return
	}
	batch := f.batch || s.pingInArray(f)
	deliver := func() { s.deliver(batch, replies, out) }
	if allReady(replies) {
		deliver()
		return
	}
	s.goTracked(deliver)
}

func allReady(rs []*reply) bool {
	for _, r := range rs {
		if !r.ready() {
			return false
		}
	}
	return true
}

// deliver writes the replies of one frame: one message, or one array for a batch
// (an array with no replies left is not written at all).
func (s *session) deliver(batch bool, replies []*reply, out sink) {
	var msgs []json.RawMessage
	for _, r := range replies {
		<-r.done
		if r.msg != nil {
			msgs = append(msgs, r.msg)
		}
	}
	switch {
	case len(msgs) == 0:
	case batch:
		s.sendLogged(out, mustMarshal(msgs))
	default:
		s.sendLogged(out, msgs[0])
	}
	for _, r := range replies {
		if r.after != nil && r.msg != nil {
			r.after()
		}
	}
}

func (s *session) sendLogged(out sink, msg []byte) {
	if err := out.send(msg); err != nil {
		s.cfg.log.Printf("send: %v", err)
	}
}

// accept consumes the messages of one frame: requests are dispatched and their
// replies returned in input order; notifications and responses produce none.
func (s *session) accept(f frame, out sink) []*reply {
	var replies []*reply
	for _, m := range f.msgs {
		if r := s.acceptOne(m, out); r != nil {
			replies = append(replies, r)
		}
	}
	return replies
}

// acceptOne consumes one message and returns its reply, or nil when none is due.
func (s *session) acceptOne(m *wire.Message, out sink) *reply {
	switch {
	case s.cfg.faults.unanswered(m):
		s.cfg.log.Printf("fault %s: %s left unanswered", faultListParamsNoReply, m.Method)
	case m.Problem != "" && m.Kind != wire.KindResult:
		return s.rejectInvalid(m)
	case m.Kind == wire.KindRequest:
		return s.dispatch(m, out)
	case m.Kind == wire.KindNotification:
		s.notification(m, out)
	case m.IsResponse():
		s.routeResponse(m)
	}
	return nil
}

// rejectInvalid answers a message that is not a valid request with -32600, echoing
// its id when it could be read. Broken responses are dropped unanswered.
func (s *session) rejectInvalid(m *wire.Message) *reply {
	if looksLikeResponse(m) {
		s.cfg.log.Printf("dropped an invalid response: %s", m.Problem)
		return nil
	}
	e := errInvalidRequest(m.Problem)
	if s.cfg.faults.on(faultInvalidReqCode) {
		e = errInvalidParams("%s", m.Problem)
	}
	msg := s.errorResponse(m.ID, e)
	if m.ID.IsZero() || m.ID.IsNull() {
		return invalidReply(msg)
	}
	return readyReply(msg)
}

// preInitMethods are answered before initialize.
var preInitMethods = map[string]bool{"initialize": true, "ping": true}

// errNotInitialized answers any other request before initialize. The specification
// leaves this case undefined (LIFE-PRE-INIT-OTHER-01); the reference server treats the
// request as invalid in the session's current state: -32600.
func errNotInitialized(method string) *rpcError {
	return errInvalidRequest(fmt.Sprintf("%s before initialize: the session is not initialized (only ping is answered before initialize)", method))
}

// dispatch answers one request.
func (s *session) dispatch(m *wire.Message, out sink) *reply {
	if m.ID.IsNull() && !s.cfg.faults.on(faultNullIDProcessed) {
		return invalidReply(s.errorResponse(wire.ID{}, errNullID(s.cfg.faults)))
	}
	rev, ok := s.negotiated()
	if !ok && m.Method == "ping" && s.cfg.faults.on(faultPingBeforeInitDrop) {
		s.cfg.log.Printf("fault %s: a ping before initialize left unanswered", faultPingBeforeInitDrop)
		return nil
	}
	if !ok && !preInitMethods[m.Method] {
		return readyReply(s.errorResponse(m.ID, errNotInitialized(m.Method)))
	}
	fn, found := methods[m.Method]
	if taskMethods[m.Method] && !tasksServed(rev) {
		found = false
	}
	if !found {
		e := errMethodNotFound(m.Method)
		if s.cfg.faults.on(faultUnknownMethodIntern) {
			e = errInternal(fmt.Errorf("no handler for %s", m.Method))
		}
		return readyReply(s.notFoundReply(m.ID, e))
	}
	oc := fn(s, &request{id: m.ID, method: m.Method, params: m.Params, rev: rev, out: out})
	if oc.async == nil {
		r := readyReply(s.encodeOutcome(m.ID, oc))
		r.after = oc.after
		return r
	}
	return s.startAsync(m.ID, m.Method, oc.async)
}

// encodeOutcome turns a handler's outcome into a response.
func (s *session) encodeOutcome(id wire.ID, oc outcome) []byte {
	if s.cfg.faults.on(faultIDAsString) && id.IsNumber() {
		id = wire.StringID(string(id.Raw()))
	}
	if oc.err != nil {
		return s.errorResponse(id, oc.err)
	}
	if s.shared != nil {
		decorated, err := s.decorateModern(oc.result)
		if err != nil {
			return s.errorResponse(id, errInternal(err))
		}
		oc.result = decorated
	}
	b, err := encodeResultResponse(id, oc.result)
	if err != nil {
		return s.errorResponse(id, errInternal(err))
	}
	return b
}

// startAsync runs a request's work on its own goroutine so that the session keeps
// reading (cancellations, answers to server requests) meanwhile. A request cancelled
// by the client, or cut off by the end of the session, gets no response.
func (s *session) startAsync(id wire.ID, method string, run func(ctx context.Context) outcome) *reply {
	key := id.Key()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return readyReply(nil)
	}
	if _, dup := s.inflight[key]; dup {
		s.mu.Unlock()
		return readyReply(s.errorResponse(id, errInvalidRequest(fmt.Sprintf("id %s is already used by a request in flight", id))))
	}
	ctx, cancel := context.WithCancel(s.ctx)
	call := &inflightCall{method: method, cancel: cancel}
	s.inflight[key] = call
	s.wg.Add(1)
	s.mu.Unlock()

	r := &reply{done: make(chan struct{})}
	go func() {
		defer s.wg.Done()
		defer cancel()
		oc := run(ctx)
		s.mu.Lock()
		delete(s.inflight, key)
		suppressed := call.cancelled || s.ctx.Err() != nil
		s.mu.Unlock()
		if !suppressed {
			r.msg, r.after = s.encodeOutcome(id, oc), oc.after
		}
		close(r.done)
	}()
	return r
}

// notification consumes a client notification. Notifications are never answered;
// out is the channel for messages the server sends in consequence (only faults send
// any).
func (s *session) notification(m *wire.Message, out sink) {
	switch m.Method {
	case "notifications/initialized":
		s.mu.Lock()
		s.clientReady = true
		s.mu.Unlock()
		if s.cfg.faults.on(faultInitializedAnswered) {
			// LIFE-INITIALIZED-01: the notification answered as if it were a
			// request, with id null (JSON-RPC's id for an unreadable one).
			s.sendLogged(out, encodeErrorResponse(wire.ID{}, errMethodNotFound(m.Method), false))
		}
		s.afterInitialized(out)
	case "notifications/cancelled":
		if !s.cancelRequest(m.Params) && s.cfg.faults.on(faultCancelUnknownAnswered) {
			s.sendLogged(out, s.errorResponse(wire.ID{}, errInvalidParams("notifications/cancelled names no request in flight")))
		}
	case "notifications/roots/list_changed":
		if s.cfg.faults.on(faultRootsNotifAnswered) {
			// NOTIF-CLIENTNOTIF-01: a client notification answered.
			s.sendLogged(out, s.errorResponse(wire.ID{}, errInvalidRequest("the client declared no roots capability")))
		}
	default:
		if s.cfg.faults.on(faultNotificationAnswer) && !strings.HasPrefix(m.Method, "notifications/roots") {
			s.sendLogged(out, s.errorResponse(wire.ID{}, errMethodNotFound(m.Method)))
		}
	}
}

// afterInitialized sends what a faulty server sends as soon as the client is ready
// (a correct server sends nothing): an unannounced list_changed, or a sampling
// request to a client that did not declare sampling.
func (s *session) afterInitialized(out sink) {
	fs := s.cfg.faults
	if fs.on(faultListChangedNever) || fs.on(faultListChangedUndec) {
		if n, err := encodeNotification("notifications/tools/list_changed", nil); err == nil {
			s.sendLogged(out, n)
		}
	}
	writeStdoutFaults(fs, out)
	if fs.on(faultSamplingUndeclared) {
		if _, ok := s.clientCapability("sampling"); !ok {
			s.sendLogged(out, s.serverRequest("sampling/createMessage", map[string]any{
				"messages": []any{map[string]any{
					"role": "user", "content": textBlock("Say hello to the mcp-conform fixture."),
				}},
				"maxTokens": 16,
			}))
		}
	}
}

// writeStdoutFaults writes what the stdout faults put on the channel once the client
// is ready (legacy: after notifications/initialized; modern: after the first
// server/discover reply). Bytes no correct server writes; the client rejects them
// before decoding, so they reach no other check.
func writeStdoutFaults(fs faultSet, out sink) {
	if raw, ok := out.(rawSink); ok {
		if fs.on(faultStdoutLogLine) {
			_ = raw.sendRaw([]byte("reference server: ready (a log line on stdout)\n"))
		}
		if fs.on(faultStdoutTwoPerLine) {
			n := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
			_ = raw.sendRaw([]byte(n + n + "\n"))
		}
	}
	for _, f := range readyFaultMessages {
		if fs.on(f.fault) {
			_ = out.send([]byte(f.msg))
		}
	}
	if fs.on(faultInvalidUTF8) {
		if raw, ok := out.(rawSink); ok {
			_ = raw.sendRaw([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"caf` + "\xe9" + `"}}` + "\n"))
		} else {
			_ = out.send([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"caf` + "\xe9" + `"}}`))
		}
	}
}

// readyFaultMessages are what the base-protocol faults send once the client is ready:
// each breaks one rule of a message's envelope.
var readyFaultMessages = []struct{ fault, msg string }{
	{faultJSONRPC10, `{"jsonrpc":"1.0","method":"notifications/message","params":{"level":"info","data":"x"}}`},
	{faultNotificationWithID, `{"jsonrpc":"2.0","id":"fixture-note-1","method":"notifications/message","params":{"level":"info","data":"x"}}`},
	{faultServerRequestNullID, `{"jsonrpc":"2.0","id":null,"method":"ping"}`},
}

// notFoundReply answers a method the server does not have with -32601, or, under the
// error-and-result and error-without-message faults, with an envelope that breaks
// JSON-RPC's response rules.
func (s *session) notFoundReply(id wire.ID, e *rpcError) []byte {
	b := s.encodeOutcome(id, fail(e))
	fs := s.cfg.faults
	if !fs.on(faultErrorAndResult) && !fs.on(faultErrorNoMessage) {
		return b
	}
	var env map[string]any
	if json.Unmarshal(b, &env) != nil {
		return b
	}
	if fs.on(faultErrorAndResult) {
		env["result"] = map[string]any{}
	}
	if errObj, ok := env["error"].(map[string]any); ok && fs.on(faultErrorNoMessage) {
		delete(errObj, "message")
	}
	return mustMarshal(env)
}

// serverRequest encodes a server→client request that nobody waits for: its answer
// is dropped as a response to an unknown request.
func (s *session) serverRequest(method string, p any) []byte {
	s.mu.Lock()
	s.nextReqID++
	id := wire.NumberID(s.nextReqID)
	s.mu.Unlock()
	msg, err := wire.EncodeRequest(id, method, p)
	if err != nil {
		panic(fmt.Sprintf("fixtures: encode %s: %v", method, err))
	}
	return msg
}

// cancelRequest honours notifications/cancelled for a request in flight and reports
// whether it named one. Unknown, finished and malformed cancellations are ignored.
func (s *session) cancelRequest(raw json.RawMessage) bool {
	p, perr := paramsObject(raw)
	if perr != nil {
		return false
	}
	id, err := wire.ParseID(p["requestId"])
	if err != nil || id.IsZero() || id.IsNull() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	call := s.inflight[id.Key()]
	if call == nil {
		return false
	}
	if call.cancelled || (call.method == "tools/call" && s.cfg.faults.on(faultCancelIgnored)) {
		return true
	}
	call.cancelled = true
	s.lastCancelled = string(id.Raw())
	if s.shared != nil {
		s.shared.recordCancel(s.lastCancelled)
	}
	call.cancel()
	return true
}

// routeResponse hands the client's answer to the server request waiting for it.
func (s *session) routeResponse(m *wire.Message) {
	s.mu.Lock()
	ch := s.pending[m.ID.Key()]
	delete(s.pending, m.ID.Key())
	s.mu.Unlock()
	if ch == nil {
		s.cfg.log.Printf("dropped a response to unknown request id %s", m.ID)
		return
	}
	ch <- m // buffered: never blocks
}

// errClientTimeout is returned when the client does not answer a server request.
var errClientTimeout = errors.New("the client did not answer in time")

// clientRequest sends a server→client request on out and waits, bounded, for the
// client's answer.
func (s *session) clientRequest(ctx context.Context, out sink, method string, p any) (*wire.Message, error) {
	s.mu.Lock()
	s.nextReqID++
	id := wire.NumberID(s.nextReqID)
	ch := make(chan *wire.Message, 1)
	s.pending[id.Key()] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id.Key())
		s.mu.Unlock()
	}()

	msg, err := wire.EncodeRequest(id, method, p)
	if err != nil {
		return nil, fmt.Errorf("server request %s: %w", method, err)
	}
	if err := out.send(msg); err != nil {
		return nil, fmt.Errorf("send %s: %w", method, err)
	}
	t := time.NewTimer(s.cfg.clientReqLimit)
	defer t.Stop()
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the answer to %s: %w", method, ctx.Err())
	case <-t.C:
		// Tell the client the request is abandoned (cancellation utility).
		if n, err := encodeNotification("notifications/cancelled", map[string]any{
			"requestId": id, "reason": "timed out waiting for the answer",
		}); err == nil {
			_ = out.send(n)
		}
		return nil, fmt.Errorf("%s: %w", method, errClientTimeout)
	}
}

// setInitialized records the outcome of initialize; false if it already happened.
func (s *session) setInitialized(rev revision.Revision, caps params) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return false
	}
	s.initialized, s.rev, s.clientCaps = true, rev, caps
	return true
}

// clientInitialized reports whether notifications/initialized arrived.
func (s *session) clientInitialized() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientReady
}

// clientCapability returns the client's declaration of one capability.
func (s *session) clientCapability(name string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, ok := s.clientCaps[name]
	return raw, ok
}

// logThreshold returns the index of the minimum log level sent.
func (s *session) logThreshold() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logLevel
}

func (s *session) setLogThreshold(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logLevel = i
}

// toolList returns whether test_dynamic_tool is listed and the list's version.
func (s *session) toolList() (dynamicOn bool, version int) {
	if s.shared != nil {
		return s.shared.toolList()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dynamicOn, s.listVersion
}

// toggleDynamic adds or removes test_dynamic_tool and reports whether it is now listed.
func (s *session) toggleDynamic() bool {
	if s.shared != nil {
		on, tell := s.shared.toggleDynamic(s.cfg.faults.on(faultR5ListenUnfiltered))
		announceToolsChanged(s.cfg, tell)
		announceListChanged(s.cfg, promptsListChanged, s.shared.listenersWhere(func(l *listener) bool { return l.prompts }), s.cfg.faults.on(faultPromptsLCNever))
		announceListChanged(s.cfg, resourcesListChanged, s.shared.listenersWhere(func(l *listener) bool { return l.resources }), s.cfg.faults.on(faultResLCNever))
		return on
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dynamicOn = !s.dynamicOn
	s.listVersion++
	return s.dynamicOn
}

// cursorServed counts a tools/list request with the cursor and returns how many came
// before it in this session.
func (s *session) cursorServed(cursor string) int {
	if s.shared != nil {
		// A modern request's session lives for that request only: count on the
		// state its requests share.
		s.shared.mu.Lock()
		defer s.shared.mu.Unlock()
		if s.shared.cursorsServed == nil {
			s.shared.cursorsServed = map[string]int{}
		}
		n := s.shared.cursorsServed[cursor]
		s.shared.cursorsServed[cursor] = n + 1
		return n
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cursorsServed == nil {
		s.cursorsServed = map[string]int{}
	}
	n := s.cursorsServed[cursor]
	s.cursorsServed[cursor] = n + 1
	return n
}

// lastCancellation returns the raw JSON of the last cancelled request id, or "".
func (s *session) lastCancellation() string {
	if s.shared != nil {
		return s.shared.lastCancellation()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastCancelled
}
