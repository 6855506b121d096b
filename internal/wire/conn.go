package wire

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// ErrTimeout is wrapped by every error that reports a missing reply within its deadline.
var ErrTimeout = errors.New("no reply before the deadline")

// ErrClosed is wrapped by errors for calls on a connection whose transport has ended.
var ErrClosed = errors.New("connection closed")

// ErrRejectedReply is wrapped by a call's error when the server did answer, but with
// bytes the suite could not take as a message: over the size bound
// (transport.ErrFrameTooLarge, also wrapped) or not UTF-8 (transport.ErrNotUTF8). The
// call stops waiting at once; the error says what came back.
var ErrRejectedReply = errors.New("the reply was rejected")

// Direction says which way a message went.
type Direction string

// Directions of transcript entries.
const (
	Sent     Direction = "send"
	Received Direction = "recv"
)

// Entry is one transcript line: a message as it crossed the wire.
type Entry struct {
	Seq    int
	Dir    Direction
	At     time.Time
	Raw    []byte
	Msg    *Message // nil when the bytes did not decode as a JSON-RPC object
	Err    string   // why the bytes are not a usable message (framing, JSON, shape)
	Source string   // the transport channel: stdout, post, get, sse
	// Stream is the raw JSON id of the request whose POST SSE reply carried the
	// message (Streamable HTTP; "" elsewhere).
	Stream string
	// ForMethod is, for responses, the method of the request answered ("" if the
	// response matched no request the suite sent).
	ForMethod string
	// InBatch is set for messages that arrived inside a JSON array.
	InBatch bool
	// LooseID is set on a response attributed to a request whose id had the same
	// value but another JSON type (BASE-RESP-ID-01 evidence).
	LooseID bool
}

// Response is a reply to one of the suite's requests.
type Response struct {
	Msg    *Message
	Method string // the request's method
	Result json.RawMessage
	Error  *Error
	// IDExact is false when the reply's id had the request's value but another JSON
	// type (7 answered as "7"): the reply was attributed, but BASE-RESP-ID-01 is broken.
	IDExact bool
	Elapsed time.Duration
	Seq     int // the transcript sequence number of the reply
}

// IsError reports whether the reply is a JSON-RPC error.
func (r *Response) IsError() bool { return r.Error != nil && r.Result == nil }

// Options configures a Conn.
type Options struct {
	// RequestTimeout bounds each call's wait for its reply (default 5 s); the caller's
	// context may shorten it.
	RequestTimeout time.Duration
	// MaxTranscript is how many entries are kept (default 20000). Later entries are
	// counted, not stored, so a flooding server cannot exhaust memory.
	MaxTranscript int
	// MaxTranscriptBytes bounds the memory the kept entries hold (default 16 MiB): their
	// bytes, which a decoded entry shares with its message (Message.Raw). Its last
	// quarter is kept for messages of at most 4 KiB (see reserveShare).
	// Past it entries are counted, not stored, like those past MaxTranscript.
	MaxTranscriptBytes int
	// MaxServerRequests bounds how many server→client requests (pings included) are
	// answered concurrently (default 32). Requests arriving while that many answers
	// are in flight are recorded but not answered: a flood costs no memory.
	MaxServerRequests int
	// Budget, when set, is a byte allowance the Conn shares with others (one run's
	// transcripts): an entry whose raw bytes it cannot cover is counted, not kept.
	Budget *Budget
	// HandleRequest answers server→client requests. nil uses DefaultRequestHandler.
	HandleRequest func(req *Message) (result any, rpcErr *Error)
	// Meta, when set, is stamped into params._meta of every request the Conn encodes
	// (Call, CallID, Start): the per-request metadata of 2026-07-28. Keys the caller
	// already put in _meta win, so a probe can still send another version.
	Meta map[string]any
	// BarrierMethod is the request the silence barrier and settling send ("ping" when
	// empty; 2026-07-28 has no ping, and uses server/discover).
	BarrierMethod string
}

// DefaultRequestHandler answers ping with {} and anything else with -32601: the suite
// declares no client capabilities, so it offers no sampling, roots or elicitation.
func DefaultRequestHandler(req *Message) (any, *Error) {
	if req.Method == "ping" {
		return struct{}{}, nil
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: "method not found: the client declared no capability for " + req.Method}
}

// Budget is a byte allowance shared by several Conns, so that the transcripts of a
// whole run (and the files written from them) stay within one bound.
type Budget struct {
	left    atomic.Int64
	reserve int64 // what only small messages may spend (see smallMessage)
}

// NewBudget returns an allowance of n bytes.
func NewBudget(n int64) *Budget {
	b := &Budget{reserve: n / reserveShare}
	b.left.Store(n)
	return b
}

// take spends n bytes if that many are left, leaving the reserve to small messages.
func (b *Budget) take(n int, small bool) bool {
	if b == nil {
		return true
	}
	floor := b.reserve
	if small {
		floor = 0
	}
	for {
		left := b.left.Load()
		if left-int64(n) < floor {
			return false
		}
		if b.left.CompareAndSwap(left, left-int64(n)) {
			return true
		}
	}
}

// A transcript filled by large messages (the pages of a listing of 10,000 tools)
// would otherwise drop the notifications and short replies that come after them,
// and a check waiting for one (WaitFor: a list_changed after a change, a progress
// notification) would wait out its deadline and judge a message it never saw. So
// the last 1/reserveShare of every transcript bound is kept for messages of at most
// smallMessage bytes.
const (
	reserveShare = 4
	smallMessage = 4 << 10
)

// SmallMessage is the size up to which a message may spend a transcript's reserve.
const SmallMessage = smallMessage

type pendingCall struct {
	id     ID
	method string
	sent   time.Time
	// sentSeq is the transcript seq of the request's send (0 until it is recorded,
	// or when the bytes sent did not decode as this request).
	sentSeq int
	ch      chan *Response
	failed  chan error // a rejected reply attributed to this call
}

// Conn is a client-side JSON-RPC connection over one transport.
type Conn struct {
	t    transport.Transport
	opts Options

	mu         sync.Mutex
	pending    map[string]*pendingCall // by exact key
	used       map[string]bool         // every id sent in this session
	nextID     int64
	transcript []Entry
	seq        int
	dropped    int
	// droppedSmall counts the dropped entries of at most smallMessage bytes.
	droppedSmall int
	// lostReplies are the dropped entries that could have been a reply the suite
	// reads from the transcript (DroppedRepliesIn): received responses no call
	// claimed, and received frames that did not decode. Past maxLostSeqs they are
	// not kept, and lostFrom is the seq of the first one not kept.
	lostReplies []lostReply
	lostFrom    int
	sent        int // messages sent (a batch counts once), kept or dropped
	requests    int // of them, requests
	keptBytes   int
	answering   chan struct{} // one token per server→client request being answered
	unanswered  int           // server→client requests not answered (flood)
	changed     chan struct{} // closed and replaced whenever an entry is added
	readerDone  chan struct{}
	// handled counts the frames the reader has taken from the transport; handledCh
	// is closed (and replaced) at each one (awaitHandled).
	handled   uint64
	handledCh chan struct{}
	closeOnce sync.Once
	barrier   bool // prove a missing reply with a ping barrier (SetBarrier)
	// lastSent is the seq of the last entry sent; standSeq and standRTT are the seq
	// and round trip of the last reply that stands as a barrier (Standing).
	lastSent int
	standSeq int
	standRTT time.Duration
	// barrierMethod is the request the barrier sends (Options.BarrierMethod).
	barrierMethod string
}

// BarrierGrace is the least a reply may trail the barrier ping's reply: some SDKs
// answer pipelined requests out of order. The grace a proof waits is GraceAfter the
// barrier's own round trip, so that it grows with how slow the server is right then.
const BarrierGrace = transport.TrailGrace

// GraceAfter is how long a reply may trail the reply of a barrier that took rtt to
// come back: BarrierGrace, or twice the barrier's round trip where that is longer. A
// server that is slow at that moment (still starting, or on a loaded machine) is
// slow for the reply the barrier proves absent too, so a silence is never proven in
// less time than the server took to answer the proof itself, whatever the machine.
func GraceAfter(rtt time.Duration) time.Duration {
	return max(BarrierGrace, 2*rtt)
}

// BarrierDelay is how long a call waits for its reply before it sends the barrier:
// most probes are answered at once, and a reply that is in needs no proof. It only
// saves requests; the barrier, never this delay, proves a reply absent.
const BarrierDelay = 10 * time.Millisecond

// postStreams is implemented by transports on which a reply may still be on its way
// in a stream of its own (Streamable HTTP's POST SSE replies).
type postStreams interface {
	OpenPostStreams() (int, <-chan struct{})
}

// SetBarrier turns the silence barrier on or off for later calls. With it on, every
// request but ping not answered within BarrierDelay is followed by a ping; once the
// ping's reply is in, every stream that could carry the request's reply has ended,
// and GraceAfter the ping's round trip has passed, the reply is not coming: the call returns an error
// that wraps ErrTimeout (BarrierError) instead of waiting out the request timeout.
// The channel must be ordered (stdio, an SSE stream) or end per request (a
// Streamable HTTP POST), and the request must be one a server answers at once
// (probes rejected before any work); the timeout stays the bound for a server that
// answers nothing, the ping included.
func (c *Conn) SetBarrier(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.barrier = on
}

// BarrierError is a request the barrier proved unanswered. It matches ErrTimeout.
type BarrierError struct {
	Method  string
	ID      ID
	Barrier ID
	Grace   time.Duration
	// Owed marks the error of CallRawOwed: the barrier's reply was in, the grace
	// not yet waited; the caller proves the silence once it has passed and reads a
	// reply that came meanwhile with OwedReply.
	Owed bool
	// After is the transcript's seq before the request was sent (an owed error's):
	// a reply to it can only be in a later entry.
	After int
}

func (e *BarrierError) Error() string {
	if e.Owed {
		return fmt.Sprintf("%s (id %s): no reply: the barrier request sent after it (id %s) was answered, and no reply to id %s had come when the session settled, %s or more later", e.Method, e.ID, e.Barrier, e.ID, e.Grace)
	}
	return fmt.Sprintf("%s (id %s): no reply: the barrier request sent after it (id %s) was answered, and %s later no reply to id %s had come", e.Method, e.ID, e.Barrier, e.Grace, e.ID)
}

// Is makes BarrierError a silence, like a timeout.
func (e *BarrierError) Is(target error) bool { return target == ErrTimeout }

// barrierDone is the outcome of a barrier ping.
type barrierDone struct {
	id  ID
	rtt time.Duration // the barrier's round trip
	err error
}

// BarrierMethod is the request that proves the channel is flushed: ping, or
// server/discover in 2026-07-28 (Options.BarrierMethod).
func (c *Conn) BarrierMethod() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.barrierMethod
}

// SetBarrierMethod changes the request the barrier sends (the era probe proves a
// legacy server's silence with ping, then the modern session uses server/discover).
// A reply to the old one no longer stands (Standing): the next barrier sends the new.
func (c *Conn) SetBarrierMethod(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if method != c.barrierMethod {
		c.standSeq = 0
	}
	c.barrierMethod = method
}

// startBarrier sends the barrier request and reports when its reply (any reply) is in.
func (c *Conn) startBarrier(ctx context.Context) <-chan barrierDone {
	out := make(chan barrierDone, 1)
	id := c.NextID()
	go func() {
		resp, err := c.CallID(ctx, id, c.BarrierMethod(), nil)
		d := barrierDone{id: id, err: err}
		if resp != nil {
			d.rtt = resp.Elapsed
		}
		out <- d
	}()
	return out
}

// awaitStreams waits until no POST stream of the transport is open (at once on other
// transports); false when ctx or the connection ended first.
func (c *Conn) awaitStreams(ctx context.Context) bool {
	ps, ok := c.t.(postStreams)
	if !ok {
		return true
	}
	for {
		n, ended := ps.OpenPostStreams()
		if n == 0 {
			return true
		}
		select {
		case <-ended:
		case <-ctx.Done():
			return false
		case <-c.readerDone:
			return false
		}
	}
}

// RepliesSettled reports whether no reply to anything sent can still arrive: the
// transport carries each reply in its own POST's answer (Streamable HTTP: a request
// is answered with one JSON object or an SSE stream, SHTTP-POST-CT-01; a response is
// never sent on the GET stream, SHTTP-GET-NORESP-01), no POST stream is open, and
// the reader has taken every frame those answers carried. A silence then needs no
// grace: an answer that has ended holds all it will ever hold. False on every other
// transport, and while a POST stream is open (its reply may still be on its way).
func (c *Conn) RepliesSettled(ctx context.Context) bool {
	ps, ok := c.t.(postStreams)
	if !ok {
		return false
	}
	if n, _ := ps.OpenPostStreams(); n > 0 {
		return false
	}
	if fc, ok := c.t.(transport.FrameCounter); ok {
		c.awaitHandled(ctx, fc.Delivered())
	}
	return ctx.Err() == nil && c.Err() == nil
}

// NewConn starts reading from t. The Conn owns t: Close closes it.
func NewConn(t transport.Transport, opts Options) *Conn {
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 5 * time.Second
	}
	if opts.MaxTranscript <= 0 {
		opts.MaxTranscript = 20000
	}
	if opts.MaxTranscriptBytes <= 0 {
		opts.MaxTranscriptBytes = 16 << 20
	}
	if opts.MaxServerRequests <= 0 {
		opts.MaxServerRequests = 32
	}
	if opts.HandleRequest == nil {
		opts.HandleRequest = DefaultRequestHandler
	}
	if opts.BarrierMethod == "" {
		opts.BarrierMethod = "ping"
	}
	c := &Conn{
		t:          t,
		opts:       opts,
		pending:    map[string]*pendingCall{},
		used:       map[string]bool{},
		changed:    make(chan struct{}),
		readerDone: make(chan struct{}),
		handledCh:  make(chan struct{}),
		answering:  make(chan struct{}, opts.MaxServerRequests),

		barrierMethod: opts.BarrierMethod,
	}
	go c.readLoop()
	return c
}

// Transport returns the underlying transport.
func (c *Conn) Transport() transport.Transport { return c.t }

// RequestTimeout is the per-call deadline in force.
func (c *Conn) RequestTimeout() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opts.RequestTimeout
}

// SetRequestTimeout changes the per-call deadline for later calls.
func (c *Conn) SetRequestTimeout(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts.RequestTimeout = d
}

// NextID returns a fresh integer id never used in this session.
func (c *Conn) NextID() ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		c.nextID++
		id := NumberID(c.nextID)
		if !c.used[id.Key()] {
			return id
		}
	}
}

// Call sends a request with a fresh id and waits for its reply.
func (c *Conn) Call(ctx context.Context, method string, params any) (*Response, error) {
	return c.CallID(ctx, c.NextID(), method, params)
}

// CallID sends a request with the given id and waits for its reply. Ids are never
// reused within a session (a client rule of every revision): reuse is an error.
func (c *Conn) CallID(ctx context.Context, id ID, method string, params any) (*Response, error) {
	raw, err := EncodeRequest(id, method, c.Stamp(params))
	if err != nil {
		return nil, err
	}
	return c.CallRaw(ctx, id, method, raw)
}

// CallRaw sends raw bytes that carry a request with the given id (used by probes that
// send deliberately malformed params) and waits for the reply to that id.
func (c *Conn) CallRaw(ctx context.Context, id ID, method string, raw []byte) (*Response, error) {
	return c.callRaw(ctx, id, method, raw, callOnce)
}

// CallRawOwed is CallRaw with the silence barrier on, whatever SetBarrier says, that
// does not wait out the barrier's grace: a reply not in once the barrier's is (and,
// on Streamable HTTP, once the POST streams have ended) is returned at once as a
// BarrierError marked Owed, whose Grace is how long the reply may still trail. The
// caller proves it absent later, once that grace has passed (the session's settle),
// and reads a reply that came in the meantime by its id (OwedReply): a reply that
// carries the request's own id cannot be taken for another probe's, so nothing else
// need wait for the proof.
func (c *Conn) CallRawOwed(ctx context.Context, id ID, method string, raw []byte) (*Response, error) {
	return c.callRaw(ctx, id, method, raw, callOwed)
}

// OwedReply is the reply to the request of an owed BarrierError (CallRawOwed) that
// came after its call returned, which no call claimed: the first response whose id
// is the request's by value, as deliver attributes it (IDExact false when the type
// differs). When none is in the transcript, lost says whether its bounds dropped a
// message after the request that could have been it: a silence read from the
// transcript is then no proof.
func (c *Conn) OwedReply(e *BarrierError) (resp *Response, lost bool) {
	for en := range c.EachReceived(e.After) {
		m := en.Msg
		if m == nil || !m.IsResponse() || m.ID.IsZero() || m.ID.IsNull() || m.ID.LooseKey() != e.ID.LooseKey() {
			continue
		}
		return &Response{Msg: m, Method: e.Method, Result: m.Result, Error: m.Error, IDExact: m.ID.Key() == e.ID.Key(), Seq: en.Seq}, false
	}
	n, unsure := c.DroppedRepliesIn(e.After, 0)
	return nil, n > 0 || unsure
}

// callMode is how callRaw treats the request id and a missing reply.
type callMode int

const (
	callOnce  callMode = iota // an id never used in the session; a silence proven in place
	callAgain                 // the id of an answered request (2026-07-28)
	callOwed                  // CallRawOwed: a silence left to prove after the barrier
)

// CallAnsweredID sends a request whose id an earlier request of this session used
// and that was answered, and waits for its reply: 2026-07-28 makes a request id
// unique only among the requests in flight (BASE-REQID-INFLIGHT-01). An id never
// used, or one whose request still waits for its reply, is an error.
func (c *Conn) CallAnsweredID(ctx context.Context, id ID, method string, params any) (*Response, error) {
	raw, err := EncodeRequest(id, method, c.Stamp(params))
	if err != nil {
		return nil, err
	}
	return c.callRaw(ctx, id, method, raw, callAgain)
}

// callRaw is CallRaw, CallAnsweredID (mode callAgain allows an answered request's
// id) and CallRawOwed.
func (c *Conn) callRaw(ctx context.Context, id ID, method string, raw []byte, mode callMode) (*Response, error) {
	again := mode == callAgain
	pc := &pendingCall{id: id, method: method, ch: make(chan *Response, 1), failed: make(chan error, 1)}
	c.mu.Lock()
	switch _, pending := c.pending[id.Key()]; {
	case again && (!c.used[id.Key()] || pending):
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: request id %s is not the id of an answered request of this session", method, id)
	case !again && c.used[id.Key()]:
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: request id %s was already used in this session", method, id)
	}
	c.used[id.Key()] = true
	c.pending[id.Key()] = pc
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id.Key())
		c.mu.Unlock()
	}()

	ctx, cancel := context.WithTimeout(ctx, c.RequestTimeout())
	defer cancel()
	pc.sent = time.Now()
	before := 0 // where an owed reply is looked for (OwedReply)
	if mode == callOwed {
		before = c.Seq()
	}
	if err := c.send(ctx, raw); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// Over HTTP the reply is the POST's answer: a server that never answers
			// leaves the send itself waiting.
			return nil, fmt.Errorf("%s (id %s): %w (waited %s): %v", method, id, ErrTimeout, time.Since(pc.sent).Round(time.Millisecond), err)
		}
		return nil, fmt.Errorf("%s (id %s): %w", method, id, err)
	}
	c.mu.Lock()
	useBarrier := (c.barrier || mode == callOwed) && method != c.barrierMethod
	c.mu.Unlock()
	fc, counted := c.t.(transport.FrameCounter)
	if counted && useBarrier {
		// Streamable HTTP: the reply is the POST's own answer, a JSON body already on
		// the transport's channel or an SSE stream that ends after it. Once the POST
		// streams have ended and the reader has taken what they carried, a reply that
		// came needs no barrier request; one that did not is then proven absent by
		// the barrier as before.
		settled := make(chan struct{})
		go func() {
			defer close(settled)
			if c.awaitStreams(ctx) {
				c.awaitHandled(ctx, fc.Delivered())
			}
		}()
		select {
		case resp := <-pc.ch:
			return resp, nil
		case err := <-pc.failed:
			// A rejected reply (too large, not UTF-8) is the reply: the streams
			// still open, maybe the one that carried it, have nothing to add.
			return nil, fmt.Errorf("%s (id %s): %w: %w", method, id, ErrRejectedReply, err)
		case <-settled:
			select {
			case resp := <-pc.ch:
				return resp, nil
			default:
			}
		}
	}
	var barrier <-chan barrierDone
	var delay <-chan time.Time
	if useBarrier {
		if counted {
			barrier = c.startBarrier(ctx) // the POST's own answer has ended without it
		} else {
			tm := time.NewTimer(BarrierDelay)
			defer tm.Stop()
			delay = tm.C
		}
	}
	var grace <-chan time.Time
	var graceFor time.Duration
	var barrierID ID
	for {
		select {
		case resp := <-pc.ch:
			return resp, nil
		case <-delay:
			delay = nil
			barrier = c.startBarrier(ctx)
		case err := <-pc.failed:
			return nil, fmt.Errorf("%s (id %s): %w: %w", method, id, ErrRejectedReply, err)
		case <-c.readerDone:
			// The reader may have delivered just before it ended.
			select {
			case resp := <-pc.ch:
				return resp, nil
			default:
			}
			return nil, fmt.Errorf("%s (id %s): %w: %v", method, id, ErrClosed, c.endReason())
		case b := <-barrier:
			barrier = nil
			if b.err == nil && c.awaitStreams(ctx) {
				barrierID = b.id
				graceFor = GraceAfter(b.rtt)
				if mode == callOwed {
					select {
					case resp := <-pc.ch:
						return resp, nil
					default:
					}
					return nil, &BarrierError{Method: method, ID: id, Barrier: barrierID, Grace: graceFor, Owed: true, After: before}
				}
				grace = time.After(graceFor)
			} // else: no proof; the request timeout stays the bound
		case <-grace:
			select {
			case resp := <-pc.ch:
				return resp, nil
			default:
			}
			return nil, &BarrierError{Method: method, ID: id, Barrier: barrierID, Grace: graceFor}
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("%s (id %s): %w (waited %s)", method, id, ErrTimeout, time.Since(pc.sent).Round(time.Millisecond))
			}
			return nil, fmt.Errorf("%s (id %s): %w", method, id, ctx.Err())
		}
	}
}

// Flush proves that every reply the server owes for what was sent before it has
// arrived, for probes whose reply no request id can claim (a parse error's reply
// carries none, a notification is owed none): it sends the barrier request, waits for
// its reply and for every POST stream to end, then GraceAfter its round trip, except
// where the answers themselves are the proof (RepliesSettled: on Streamable HTTP,
// once every POST's answer has ended, no reply can trail). enough, when set, ends
// the wait as soon as it holds after the barrier's reply (every reply the probe
// expects is in: no silence is left to prove). The error says why there is no proof:
// the server went silent or the connection ended.
func (c *Conn) Flush(ctx context.Context, enough func() bool) error {
	return c.flush(ctx, enough, true)
}

// FlushMessages is Flush for every message the server sends, its notifications
// too: on Streamable HTTP those may travel on the GET stream, ordered with nothing
// the suite sends, so the grace is waited there as well.
func (c *Conn) FlushMessages(ctx context.Context, enough func() bool) error {
	return c.flush(ctx, enough, false)
}

func (c *Conn) flush(ctx context.Context, enough func() bool, repliesOnly bool) error {
	ctx, cancel := context.WithTimeout(ctx, c.RequestTimeout())
	defer cancel()
	method := c.BarrierMethod()
	resp, err := c.Call(ctx, method, nil)
	if err != nil {
		return fmt.Errorf("the barrier %s: %w", method, err)
	}
	if enough != nil && enough() {
		return nil
	}
	if !c.awaitStreams(ctx) {
		return fmt.Errorf("the barrier %s was answered, but the POST streams did not end: %w", method, c.flushEnd(ctx))
	}
	if repliesOnly && c.RepliesSettled(ctx) {
		return nil // it has taken every frame the answers carried
	}
	if fc, ok := c.t.(transport.FrameCounter); ok {
		c.awaitHandled(ctx, fc.Delivered())
	}
	tm := time.NewTimer(GraceAfter(resp.Elapsed))
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-c.readerDone:
		return fmt.Errorf("after the barrier %s: %w: %v", method, ErrClosed, c.endReason())
	case <-ctx.Done():
		return fmt.Errorf("after the barrier %s: %w", method, ctx.Err())
	}
}

// flushEnd says why waiting for the POST streams stopped.
func (c *Conn) flushEnd(ctx context.Context) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("%w: %v", ErrClosed, c.endReason())
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	raw, err := EncodeNotification(method, params)
	if err != nil {
		return err
	}
	if err := c.send(ctx, raw); err != nil {
		return fmt.Errorf("notify %s: %w", method, err)
	}
	return nil
}

// SendRaw sends bytes as they are (for negative probes).
func (c *Conn) SendRaw(ctx context.Context, raw []byte) error { return c.send(ctx, raw) }

func (c *Conn) send(ctx context.Context, raw []byte) error {
	e := Entry{Dir: Sent, At: time.Now(), Raw: raw, Msg: decodeQuiet(raw)}
	if e.Msg != nil {
		e.Raw = e.Msg.Raw // one copy of the bytes, shared with the message
	}
	c.record(e)
	if err := c.t.Send(ctx, raw); err != nil {
		if errors.Is(err, transport.ErrClosed) {
			return fmt.Errorf("%w: %v", ErrClosed, c.endReason())
		}
		return err
	}
	return nil
}

func decodeQuiet(raw []byte) *Message {
	m, err := Decode(raw)
	if err != nil {
		return nil
	}
	return m
}

func (c *Conn) endReason() error {
	if err := c.t.Err(); err != nil {
		return err
	}
	// stdout can reach EOF a moment before the process is reaped: wait briefly for
	// the reason (an exit status) rather than report none.
	select {
	case <-c.t.Done():
		if err := c.t.Err(); err != nil {
			return err
		}
	case <-time.After(time.Second):
	}
	return errors.New("the transport ended")
}

func (c *Conn) readLoop() {
	defer close(c.readerDone)
	for f := range c.t.Inbound() {
		c.take(f)
		c.mu.Lock()
		c.handled++
		close(c.handledCh)
		c.handledCh = make(chan struct{})
		c.mu.Unlock()
	}
}

// take handles one frame: a rejected one, a batch, or a message.
func (c *Conn) take(f transport.Frame) {
	if f.Err != nil {
		c.rejected(f)
		return
	}
	data := bytes.TrimSpace(f.Data)
	if len(data) > 0 && data[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			c.record(Entry{Dir: Received, At: f.At, Raw: f.Data, Err: "batch: " + err.Error(), Source: f.Source, Stream: f.Stream})
			return
		}
		if len(items) == 0 {
			// No message, but the server wrote an array: the batch rules judge it.
			c.record(Entry{Dir: Received, At: f.At, Raw: f.Data, Err: "batch: an empty array", Source: f.Source, Stream: f.Stream, InBatch: true})
			return
		}
		for _, it := range items {
			c.handle(f, it, true)
		}
		return
	}
	c.handle(f, data, false)
}

// awaitHandled waits until the reader has taken n frames, ended, or ctx is done.
// The frames are already on the transport's channel: this waits on our own reader,
// not on the server.
func (c *Conn) awaitHandled(ctx context.Context, n uint64) {
	for {
		c.mu.Lock()
		done, ch := c.handled >= n, c.handledCh
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-c.readerDone:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (c *Conn) handle(f transport.Frame, raw []byte, inBatch bool) {
	e := Entry{Dir: Received, At: f.At, Raw: raw, Source: f.Source, Stream: f.Stream, InBatch: inBatch}
	if e.At.IsZero() {
		e.At = time.Now()
	}
	var m *Message
	var err error
	if f.JSON { // the transport checked the frame (and a batch item is part of it)
		m, err = decodeValid(raw, bytes.TrimSpace(raw), true)
	} else {
		m, err = Decode(raw)
	}
	if err != nil {
		e.Err = err.Error()
		c.record(e)
		return
	}
	e.Msg = m
	e.Raw = m.Raw // the frame's own bytes: the message and its entry share them
	if m.Problem != "" {
		e.Err = m.Problem
	}
	switch {
	case m.IsResponse():
		c.deliver(e, m)
	case m.Kind == KindRequest:
		c.record(e)
		select {
		case c.answering <- struct{}{}:
			go func() {
				defer func() { <-c.answering }()
				c.answer(m)
			}()
		default:
			c.mu.Lock()
			c.unanswered++
			c.mu.Unlock()
		}
	default:
		c.record(e)
	}
}

// deliver attributes a response to its pending call: by exact id first, then (to
// report a type mismatch instead of timing out) by loose id.
func (c *Conn) deliver(e Entry, m *Message) {
	c.mu.Lock()
	pc, exact := c.pending[m.ID.Key()], true
	if pc == nil && !m.ID.IsZero() && !m.ID.IsNull() {
		for _, p := range c.pending {
			if p.id.LooseKey() == m.ID.LooseKey() {
				pc, exact = p, false
				break
			}
		}
	}
	if pc != nil {
		delete(c.pending, pc.id.Key())
		e.ForMethod = pc.method
		e.LooseID = !exact
	}
	c.mu.Unlock()
	seq := c.record(e)
	if pc == nil {
		return
	}
	elapsed := e.At.Sub(pc.sent)
	c.mu.Lock()
	if pc.method == c.barrierMethod && len(c.pending) == 0 && pc.sentSeq > 0 && pc.sentSeq == c.lastSent && seq == c.seq {
		c.standSeq, c.standRTT = seq, elapsed
	}
	c.mu.Unlock()
	resp := &Response{Msg: m, Method: pc.method, Result: m.Result, Error: m.Error, IDExact: exact, Elapsed: elapsed, Seq: seq}
	pc.ch <- resp
}

// rejected records a frame the transport could not take as a message and, when it is
// a reply to a pending call (by its id, or because only one call is pending), fails
// that call at once with what came back.
func (c *Conn) rejected(f transport.Frame) {
	e := Entry{Dir: Received, At: f.At, Raw: f.Data, Err: f.Err.Error(), Source: f.Source, Stream: f.Stream}
	id, found, hasMethod := peekID(f.Data)
	c.mu.Lock()
	var pc *pendingCall
	if found && !hasMethod {
		pc = c.pending[id.Key()]
	}
	// A frame cut for its size may hide its id past the kept head: on the POST
	// stream of a pending call it is taken for that call's reply (the reply is what
	// the stream is for), and with one call pending for that call's. Other rejected
	// bytes (a log line on stdout) are no one's reply unless they carry a pending id.
	if pc == nil && !found && !hasMethod && errors.Is(f.Err, transport.ErrFrameTooLarge) {
		if sid, err := ParseID(json.RawMessage(f.Stream)); f.Stream != "" && err == nil {
			pc = c.pending[sid.Key()]
		}
		if pc == nil && len(c.pending) == 1 {
			for _, p := range c.pending {
				pc = p
			}
		}
	}
	if pc != nil {
		delete(c.pending, pc.id.Key())
		e.ForMethod = pc.method
	}
	c.mu.Unlock()
	c.record(e)
	if pc != nil {
		pc.failed <- f.Err
	}
}

// peekID finds the top-level "id" member at the start of data, which may be only the
// head of an oversize message or hold bytes that are not UTF-8. hasMethod says a
// "method" member came first: the frame is a request or notification, not a reply.
func peekID(data []byte) (id ID, found, hasMethod bool) {
	dec := json.NewDecoder(bytes.NewReader(bytes.ToValidUTF8(data, []byte("\uFFFD"))))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ID{}, false, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ID{}, false, hasMethod
		}
		hasMethod = hasMethod || key == "method"
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ID{}, false, hasMethod
		}
		if key == "id" {
			id, err := ParseID(v)
			return id, err == nil, hasMethod
		}
	}
	return ID{}, false, hasMethod
}

// Unanswered counts the server→client requests left unanswered because too many
// answers were already in flight (a flood).
func (c *Conn) Unanswered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unanswered
}

func (c *Conn) answer(req *Message) {
	result, rpcErr := c.opts.HandleRequest(req)
	var raw []byte
	var err error
	if rpcErr != nil {
		raw, err = EncodeError(req.ID, rpcErr.Code, rpcErr.Message, nil)
	} else {
		raw, err = EncodeResult(req.ID, result)
	}
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.RequestTimeout())
	defer cancel()
	_ = c.send(ctx, raw) // a failed reply shows in the transcript and the server's behaviour
}

func (c *Conn) record(e Entry) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	e.Seq = c.seq
	if e.Dir == Sent {
		c.sent++
		c.lastSent = c.seq
		if e.Msg != nil && e.Msg.Kind == KindRequest {
			c.requests++
			if pc := c.pending[e.Msg.ID.Key()]; pc != nil {
				pc.sentSeq = c.seq
			}
		}
	}
	// A decoded entry holds its bytes once: its message's members are slices of them.
	cost := len(e.Raw)
	small := cost <= smallMessage
	limit := c.opts.MaxTranscriptBytes
	if !small {
		limit -= c.opts.MaxTranscriptBytes / reserveShare
	}
	if len(c.transcript) < c.opts.MaxTranscript && c.keptBytes+cost <= limit && c.opts.Budget.take(cost, small) {
		c.transcript = append(c.transcript, e)
		c.keptBytes += cost
	} else {
		c.dropped++
		if small {
			c.droppedSmall++
		}
		if possibleReply(e) {
			if len(c.lostReplies) < maxLostSeqs {
				idless := e.Msg != nil && (e.Msg.ID.IsNull() || e.Msg.ID.IsZero())
				c.lostReplies = append(c.lostReplies, lostReply{seq: e.Seq, idless: idless, result: idless && e.Msg.Error == nil})
			} else if c.lostFrom == 0 {
				c.lostFrom = e.Seq
			}
		}
	}
	close(c.changed)
	c.changed = make(chan struct{})
	return e.Seq
}

// Sent is how many messages the session sent (a batch counts once) and how many of
// them were requests, whether or not the transcript kept them: what the run cost.
func (c *Conn) Sent() (messages, requests int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent, c.requests
}

// maxLostSeqs bounds how many dropped possible replies are remembered by seq.
const maxLostSeqs = 1 << 16

// lostReply is a dropped entry that could have been a reply: its seq, and whether it
// was a response with a null or no id, which answers no request of the suite's (the
// suite never sends a null id) and so only stray input (DroppedIDlessRepliesIn).
type lostReply struct {
	seq    int
	idless bool
	result bool // idless, and a result: what only a request with "id": null draws
}

// possibleReply reports whether a received entry could be a reply a probe reads from
// the transcript: a response no call of the suite claimed, or a frame that did not
// decode. The suite's own sends, the server's notifications and requests, and the
// replies its calls claimed (Call returned them) are none.
func possibleReply(e Entry) bool {
	if e.Dir != Received {
		return false
	}
	if e.Msg == nil {
		return true
	}
	return e.Msg.IsResponse() && e.ForMethod == ""
}

// DroppedRepliesIn is how many entries the transcript did not keep with a seq in
// (after, end] (end 0: to the latest) that could have been a reply no call claimed
// (a response, or a frame that did not decode); the server's notifications and
// requests and the suite's own sends are not counted. unsure is true when past
// its bound the Conn stopped remembering which seqs it dropped, from within the
// window: a reply may have been lost.
func (c *Conn) DroppedRepliesIn(after, end int) (n int, unsure bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lostIn(after, end, false), c.lostFrom > 0 && (end <= 0 || c.lostFrom <= end)
}

// DroppedIDlessRepliesIn is how many of DroppedRepliesIn's entries were responses
// with a null or no id: replies that came, though the transcript did not keep them,
// to input no request id of the suite's can claim. A stray probe owed one reply has
// had it: no silence is left to prove, and its verdict is "not verified" either way.
func (c *Conn) DroppedIDlessRepliesIn(after, end int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lostIn(after, end, true)
}

// DroppedIDlessResultsIn is how many of DroppedIDlessRepliesIn's entries carried a
// result, not an error: the answer only a request with "id": null draws (every
// other stray input is refused with an error, or answered by its requests' ids).
func (c *Conn) DroppedIDlessResultsIn(after, end int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, l := range c.lostReplies {
		if l.result && l.seq > after && (end <= 0 || l.seq <= end) {
			n++
		}
	}
	return n
}

// lostIn counts the remembered lost replies in (after, end], those with no id only
// when idless. The caller holds c.mu.
func (c *Conn) lostIn(after, end int, idless bool) int {
	n := 0
	for _, l := range c.lostReplies {
		if (l.idless || !idless) && l.seq > after && (end <= 0 || l.seq <= end) {
			n++
		}
	}
	return n
}

// DroppedSmall is how many of the entries the transcript has not kept were of at
// most smallMessage bytes: the messages its reserve is for (Budget), which the
// checks wait for and read. Any at all means the bounds were too small for the
// run's traffic, and a check may have judged a message it never saw.
func (c *Conn) DroppedSmall() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.droppedSmall
}

// Dropped is how many entries the transcript has not kept so far (its bounds): a
// probe that reads replies from the transcript compares it before and after.
func (c *Conn) Dropped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

// Standing reports whether the last reply received still stands as a barrier, and
// its round trip: it answered a barrier request (BarrierMethod) that was the last
// message sent, while no other call was pending, and nothing was sent or received
// since, whoever sent it (Flush, a session's barrier, a check's own ping). On an
// ordered channel (stdio, HTTP+SSE) it proves that everything the server wrote
// before it has been read, and on any transport that the server was still serving.
// Another request's reply does not stand: what its handler wrote just after it (a
// list_changed notification) a barrier request would still have to bring in.
func (c *Conn) Standing() (rtt time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.standRTT, c.standSeq > 0 && c.standSeq == c.seq
}

// Seq returns the seq of the last transcript entry (sent or received).
func (c *Conn) Seq() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

// Transcript returns the entries kept so far and how many were dropped. The slice is
// a view of the transcript, not a copy (the transcript only grows, and an append to
// the view reallocates): callers read it and must not write its entries. A copy per
// call was a fifth of a run's allocation, every transcript-wide check reading it.
func (c *Conn) Transcript() ([]Entry, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.transcript)
	return c.transcript[:n:n], c.dropped
}

// firstAfter is the index of the first kept entry whose Seq is over seq: entries are
// kept in Seq order. The caller holds c.mu.
func (c *Conn) firstAfter(seq int) int {
	i, _ := slices.BinarySearchFunc(c.transcript, seq+1, func(e Entry, target int) int { return cmp.Compare(e.Seq, target) })
	return i
}

// EachReceived yields the received entries after seq, as Received returns them, from
// a view of the transcript taken now (it only grows), not a copy: the transcript-wide
// checks read every session's traffic this way, and the copies were 7 % of the bytes
// a run allocated.
func (c *Conn) EachReceived(after int) iter.Seq[Entry] {
	c.mu.Lock()
	n := len(c.transcript)
	view := c.transcript[c.firstAfter(after):n:n]
	c.mu.Unlock()
	return func(yield func(Entry) bool) {
		for _, e := range view {
			if e.Dir == Received && !yield(e) {
				return
			}
		}
	}
}

// Received returns the received entries after seq, in a slice of the caller's.
func (c *Conn) Received(after int) []Entry { return slices.Collect(c.EachReceived(after)) }

// WaitFor waits until a received entry after seq satisfies match, the context ends,
// or the connection closes. It returns the entry, or an error wrapping ErrTimeout,
// ErrClosed or the context's error.
func (c *Conn) WaitFor(ctx context.Context, after int, match func(Entry) bool) (Entry, error) {
	// Each wake-up looks only at the entries it has not seen: a scan from the start
	// made a walk of many pages quadratic in its transcript.
	for {
		c.mu.Lock()
		for i := c.firstAfter(after); i < len(c.transcript); i++ {
			e := c.transcript[i]
			if e.Dir == Received && match(e) {
				c.mu.Unlock()
				return e, nil
			}
			after = e.Seq
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-c.readerDone:
			// One last look: the final entries may have landed just before the end.
			c.mu.Lock()
			for _, e := range c.transcript[c.firstAfter(after):] {
				if e.Dir == Received && match(e) {
					c.mu.Unlock()
					return e, nil
				}
			}
			c.mu.Unlock()
			return Entry{}, fmt.Errorf("%w: %v", ErrClosed, c.endReason())
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return Entry{}, ErrTimeout
			}
			return Entry{}, ctx.Err()
		}
	}
}

// Done is closed when the transport has delivered its last frame.
func (c *Conn) Done() <-chan struct{} { return c.readerDone }

// Err says why the connection ended, or nil while it runs.
func (c *Conn) Err() error {
	select {
	case <-c.readerDone:
		return c.endReason()
	default:
		return nil
	}
}

// Close closes the transport (bounded by ctx) and waits for the reader to finish.
func (c *Conn) Close(ctx context.Context) error {
	var err error
	c.closeOnce.Do(func() {
		err = c.t.Close(ctx)
		select {
		case <-c.readerDone:
		case <-ctx.Done():
		}
	})
	return err
}

// SharingResult returns a copy of a successful response whose result is result,
// bytes equal to r.Result that something else already holds, and which holds none
// of the reply's own bytes: its message keeps the id (copied), kind and members, but
// not Raw, which the transcript keeps. A caller that meets the same result many times
// (a tool listing walked by many checks) holds one copy of it, not one per reply.
func (r *Response) SharingResult(result json.RawMessage) *Response {
	out := *r
	out.Result = result
	if r.Msg != nil {
		m := *r.Msg
		m.Raw = nil
		m.Result = result
		m.ID = ID{raw: bytes.Clone(r.Msg.ID.raw)}
		out.Msg = &m
	}
	return &out
}
