package refserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// modernConn serves the modern era on one stdio channel. Every request is stateless
// (its own session, built from its _meta); what the channel keeps is only what
// cancellation and demultiplexing need: the requests in flight and the open listen
// subscriptions, by request id.
type modernConn struct {
	cfg    *config
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	calls   map[string]*session  // in-flight requests
	listens map[string]*listener // open subscriptions, by the listen request's id
	order   []string             // listens in opening order (graceful closure order)
	// answered holds the ids of requests answered on the channel, for the fault
	// r5-answered-id-refused (an id is unique only among requests in flight).
	answered map[string]bool

	// ready writes the stdout faults once, after the first server/discover reply
	// (the modern era's first exchange; there is no notifications/initialized).
	ready sync.Once
	// servedModern is set once the channel served a modern request (fault
	// r5-initialize-refusal-unnamed refuses a later initialize on it).
	servedModern bool
	// Fault r5-progress-after-cancel: the progress token and start of each call in
	// flight that has one (tokens), and the progress a cancelled call had queued,
	// written after the channel's next response (stale).
	tokens map[string]queuedProgress
	stale  [][]byte
}

// queuedProgress is what fault r5-progress-after-cancel needs of a call in flight.
type queuedProgress struct {
	token json.RawMessage
	start time.Time
}

func newModernConn(parent context.Context, cfg *config) *modernConn {
	ctx, cancel := context.WithCancel(parent)
	return &modernConn{cfg: cfg, ctx: ctx, cancel: cancel, calls: map[string]*session{},
		listens: map[string]*listener{}}
}

// serveLine routes one stdio line to the modern era or to the legacy session: a
// legacy-only server sends everything to the legacy session, a modern-only one
// nothing, and a dual-era one routes requests carrying modern _meta (and
// cancellations of modern requests) here.
func (mc *modernConn) serveLine(line []byte, legacy *session, w sink) {
	if !mc.cfg.servesModern() {
		legacy.serveFrame(line, w)
		return
	}
	f, perr := parseFrame(line)
	if mc.cfg.servesLegacy() {
		if perr == nil && !f.batch && (isModernMessage(f.msgs[0]) || mc.ownsCancellation(f.msgs[0])) {
			mc.mu.Lock()
			mc.servedModern = true
			mc.mu.Unlock()
			mc.serve(f.msgs[0], w)
			return
		}
		if perr == nil && !f.batch && mc.refusesInitialize(f.msgs[0]) {
			mc.send(w, encodeErrorResponse(f.msgs[0].ID, mc.cfg.errInitializeRefused(f.msgs[0].Params), true))
			return
		}
		mc.mu.Lock()
		modern := mc.servedModern
		mc.mu.Unlock()
		if modern {
			legacy.mu.Lock()
			legacy.onModernChannel = true
			legacy.mu.Unlock()
		}
		legacy.serveFrame(line, w)
		return
	}
	switch {
	case perr != nil:
		mc.send(w, encodeErrorResponse(wire.ID{}, perr, true))
	case f.batch:
		mc.send(w, encodeErrorResponse(wire.ID{}, errInvalidRequest("JSON-RPC batches are not part of 2026-07-28"), true))
	default:
		mc.serve(f.msgs[0], w)
	}
}

// refusesInitialize reports whether a dual-era channel refuses a legacy initialize:
// only with fault r5-initialize-refusal-unnamed, once it has served modern requests
// (the channel then behaves as a modern-only server would).
func (mc *modernConn) refusesInitialize(m *wire.Message) bool {
	if m.Kind != wire.KindRequest || m.Method != "initialize" || !mc.cfg.faults.on(faultR5InitUnnamed) {
		return false
	}
	mc.mu.Lock()
	defer mc.mu.Unlock()
	return mc.servedModern
}

func (mc *modernConn) send(w sink, msg []byte) {
	if err := w.send(msg); err != nil {
		mc.cfg.log.Printf("send: %v", err)
	}
}

// ownsCancellation reports whether m cancels a modern request or subscription.
func (mc *modernConn) ownsCancellation(m *wire.Message) bool {
	if m.Kind != wire.KindNotification || m.Method != "notifications/cancelled" {
		return false
	}
	key, ok := cancelledKey(m)
	if !ok {
		return false
	}
	mc.mu.Lock()
	defer mc.mu.Unlock()
	return mc.calls[key] != nil || mc.listens[key] != nil
}

// cancelledKey reads the id key of notifications/cancelled.
func cancelledKey(m *wire.Message) (string, bool) {
	p, e := paramsObject(m.Params)
	if e != nil {
		return "", false
	}
	id, err := wire.ParseID(p["requestId"])
	if err != nil || id.IsZero() || id.IsNull() {
		return "", false
	}
	return id.Key(), true
}

// serve handles one modern message.
func (mc *modernConn) serve(m *wire.Message, w sink) {
	switch {
	case m.Problem != "" && m.Kind != wire.KindResult:
		if !looksLikeResponse(m) {
			mc.send(w, encodeErrorResponse(m.ID, errInvalidRequest(m.Problem), true))
		}
	case m.Kind == wire.KindNotification:
		if m.Method == "notifications/cancelled" {
			mc.cancelled(m)
		}
	case m.Kind == wire.KindRequest:
		mc.request(m, w)
	}
	// Responses are dropped: a modern server sends no requests to answer.
}

// request answers one modern request.
func (mc *modernConn) request(m *wire.Message, w sink) {
	if m.ID.IsNull() {
		mc.send(w, encodeErrorResponse(wire.ID{}, errNullID(mc.cfg.faults), true))
		return
	}
	if m.Method == "initialize" && !isModernMessage(m) {
		mc.send(w, encodeErrorResponse(m.ID, mc.cfg.errInitializeRefused(m.Params), true))
		return
	}
	mm, e := mc.cfg.checkModernMeta(m.Params)
	if e != nil {
		mc.send(w, encodeErrorResponse(m.ID, e, true))
		return
	}
	if m.Method == methodListen {
		mc.listen(m, w)
		return
	}
	key := m.ID.Key()
	mc.mu.Lock()
	if mc.closed {
		mc.mu.Unlock()
		return
	}
	if mc.calls[key] != nil || mc.listens[key] != nil {
		mc.mu.Unlock()
		mc.send(w, encodeErrorResponse(m.ID, errInvalidRequest(fmt.Sprintf("id %s is already used by a request in flight", m.ID)), true))
		return
	}
	if mc.answered[key] && mc.cfg.faults.on(faultR5AnsweredIDRefused) {
		mc.mu.Unlock()
		mc.send(w, encodeErrorResponse(m.ID, errInvalidRequest(fmt.Sprintf("id %s was used before on this connection", m.ID)), true))
		return
	}
	s := newModernSession(mc.ctx, mc.cfg, m.Method, mm)
	mc.calls[key] = s
	mc.trackProgress(key, m)
	mc.wg.Add(1)
	mc.mu.Unlock()

	r := s.dispatchModern(m, w)
	finish := func() {
		defer mc.wg.Done()
		<-r.done
		mc.mu.Lock()
		delete(mc.calls, key)
		delete(mc.tokens, key)
		if mc.answered == nil {
			mc.answered = map[string]bool{}
		}
		mc.answered[key] = true
		mc.mu.Unlock()
		if r.msg != nil {
			mc.send(w, r.msg)
			if r.after != nil {
				r.after()
			}
			mc.flushStaleProgress(w)
		}
		if m.Method == "server/discover" {
			mc.ready.Do(func() { writeStdoutFaults(mc.cfg.faults, w) })
		}
		s.close()
	}
	if r.ready() {
		finish() // in input order
		return
	}
	go finish()
}

// listen opens a subscription on the shared channel: the acknowledgement first, then
// tagged list_changed notifications until the client cancels it or the channel ends.
func (mc *modernConn) listen(m *wire.Message, w sink) {
	l, ack, e := openListen(mc.cfg, m, w)
	if e != nil {
		mc.send(w, encodeErrorResponse(m.ID, e, true))
		return
	}
	key := m.ID.Key()
	mc.mu.Lock()
	if mc.calls[key] != nil || mc.listens[key] != nil || mc.closed {
		mc.mu.Unlock()
		mc.send(w, encodeErrorResponse(m.ID, errInvalidRequest(fmt.Sprintf("id %s is already used by a request in flight", m.ID)), true))
		return
	}
	mc.listens[key] = l
	mc.order = append(mc.order, key)
	// A subscription the server ends itself (test_end_subscription) frees its id.
	l.forget = func() {
		mc.mu.Lock()
		defer mc.mu.Unlock()
		if mc.listens[key] == l {
			delete(mc.listens, key)
		}
	}
	mc.mu.Unlock()
	if err := l.start(mc.cfg.modern, ack, !mc.cfg.faults.on(faultR5ListenNoAck)); err != nil {
		mc.cfg.log.Printf("listen: %v", err)
	}
}

// cancelled honours notifications/cancelled: a request in flight is cancelled and
// sends nothing more; a subscription ends without a further message.
func (mc *modernConn) cancelled(m *wire.Message) {
	key, ok := cancelledKey(m)
	if !ok {
		return
	}
	mc.mu.Lock()
	s, l := mc.calls[key], mc.listens[key]
	delete(mc.listens, key)
	// The token is read before the cancellation: once cancelled, the call may
	// finish and forget it before this goroutine looks again.
	q, tracked := mc.tokens[key]
	mc.mu.Unlock()
	if l != nil {
		mc.cfg.modern.removeListener(l)
		l.end()
	}
	if s != nil && s.cancelRequest(m.Params) && tracked {
		mc.queueStaleProgress(q)
	}
}

// trackProgress remembers, for fault r5-progress-after-cancel only, the progress
// token of a request in flight (under mc.mu).
func (mc *modernConn) trackProgress(key string, m *wire.Message) {
	if !mc.cfg.faults.on(faultR5ProgressAfterCancel) {
		return
	}
	p, e := paramsObject(m.Params)
	if e != nil {
		return
	}
	if tok, e := progressToken(p); e == nil && tok != nil {
		if mc.tokens == nil {
			mc.tokens = map[string]queuedProgress{}
		}
		mc.tokens[key] = queuedProgress{token: tok, start: time.Now()}
	}
}

// queueStaleProgress is fault r5-progress-after-cancel: the call cancelled in flight
// stops and is not answered, but a progress notification for it is queued and
// written after the channel's next response, when the server has provably read the
// cancellation (STDIO-CANCEL-R5-01).
func (mc *modernConn) queueStaleProgress(q queuedProgress) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	// The work done so far: more than any progress the call reported.
	done := float64(time.Since(q.start).Microseconds())/1000 + 0.001
	msg, err := encodeNotification("notifications/progress", map[string]any{
		"progressToken": q.token, "progress": done, "message": fmt.Sprintf("cancelled after %.3f ms", done)})
	if err != nil {
		mc.cfg.log.Printf("stale progress: %v", err)
		return
	}
	mc.stale = append(mc.stale, msg)
}

// flushStaleProgress writes the progress fault r5-progress-after-cancel queued.
func (mc *modernConn) flushStaleProgress(w sink) {
	mc.mu.Lock()
	stale := mc.stale
	mc.stale = nil
	mc.mu.Unlock()
	for _, msg := range stale {
		mc.send(w, msg)
	}
}

// drain ends the channel after stdin's EOF: calls in flight get up to grace to
// finish, then every open subscription is closed gracefully (its listen request is
// answered), then anything left is cancelled.
func (mc *modernConn) drain(grace time.Duration, w sink) {
	done := stopAndWait(&mc.mu, &mc.closed, &mc.wg, grace)
	mc.closeListens(w)
	mc.close()
	<-done
}

// closeListens ends every open subscription with its completion result.
func (mc *modernConn) closeListens(w sink) {
	mc.mu.Lock()
	var open []*listener
	for _, key := range mc.order {
		if l := mc.listens[key]; l != nil {
			open = append(open, l)
		}
	}
	mc.listens, mc.order = map[string]*listener{}, nil
	mc.mu.Unlock()
	for _, l := range open {
		if w == nil {
			mc.cfg.modern.removeListener(l)
			continue
		}
		mc.cfg.endSubscription(l)
	}
}

// close cancels everything in flight and drops the subscriptions.
func (mc *modernConn) close() {
	mc.mu.Lock()
	mc.closed = true
	open := mc.listens
	mc.listens = map[string]*listener{}
	mc.mu.Unlock()
	for _, l := range open {
		mc.cfg.modern.removeListener(l)
	}
	mc.cancel()
}
