package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// StreamableHTTP is the Streamable HTTP client transport (MCP 2025-03-26 to
// 2025-11-25): every message is POSTed to one endpoint, and replies come back as a
// JSON body or an SSE stream; an optional GET stream carries server-initiated
// messages.
type StreamableHTTP struct {
	*httpBase
	in        chan Frame
	delivered atomic.Uint64 // frames put on in (Delivered)

	exchangeRecord // mu guards what follows
	closed         bool
	sessionID      string
	version        string
	// streamEnded is closed and replaced whenever a stream ends (for Drain).
	streamEnded chan struct{}
	// modern is set by SetModern (2026-07-28: no session, headers from the body).
	modern bool
	// streams are the POST streams still being read, by raw request id.
	streams map[string]openStream

	wg       sync.WaitGroup // in-flight Sends and stream readers
	done     chan struct{}
	doneOnce sync.Once
}

var (
	_ Transport   = (*StreamableHTTP)(nil)
	_ HTTPSession = (*StreamableHTTP)(nil)
)

// DialStreamableHTTP validates cfg (the URL must be http or https) and returns the
// transport. It does no I/O: the first Send is the first request.
func DialStreamableHTTP(ctx context.Context, cfg HTTPConfig) (*StreamableHTTP, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("streamable HTTP: %w", err)
	}
	b, err := newHTTPBase(cfg, "streamable HTTP")
	if err != nil {
		return nil, err
	}
	return &StreamableHTTP{
		httpBase: b,
		in:       make(chan Frame, inboundBuffer),
		done:     make(chan struct{}),
	}, nil
}

// Kind returns "http".
func (t *StreamableHTTP) Kind() string { return "http" }

// Inbound yields the frames of every reply body and stream. It is closed after Close.
func (t *StreamableHTTP) Inbound() <-chan Frame { return t.in }

// Done is closed when Close has been called.
func (t *StreamableHTTP) Done() <-chan struct{} { return t.done }

// Err returns an error wrapping ErrClosed once Close has been called, else nil.
func (t *StreamableHTTP) Err() error {
	select {
	case <-t.done:
		return fmt.Errorf("streamable HTTP: %w", ErrClosed)
	default:
		return nil
	}
}

// SetProtocolVersion makes later requests carry MCP-Protocol-Version: v ("" = none).
func (t *StreamableHTTP) SetProtocolVersion(v string) {
	t.mu.Lock()
	t.version = v
	t.mu.Unlock()
}

// SessionID returns the Mcp-Session-Id the server assigned, or "".
func (t *StreamableHTTP) SessionID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessionID
}

// enter registers an operation that may deliver frames; false after Close.
func (t *StreamableHTTP) enter() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.wg.Add(1)
	return true
}

// setPostHeaders sets what a POST of the JSON-RPC message body carries: its
// Content-Type and Accept, and on a modern transport the headers that mirror body.
func (t *StreamableHTTP) setPostHeaders(req *http.Request, body []byte) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	t.mu.Lock()
	modern, version := t.modern, t.version
	t.mu.Unlock()
	if modern {
		applyOverrides(req, ModernHeaders(body, version))
	}
}

// setMCPHeaders adds the session and version headers.
func (t *StreamableHTTP) setMCPHeaders(req *http.Request) {
	t.mu.Lock()
	sid, ver := t.sessionID, t.version
	t.mu.Unlock()
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if ver != "" {
		req.Header.Set("MCP-Protocol-Version", ver)
	}
}

// record appends an Exchange and adopts a session id offered when none is assigned.
// It returns the exchange's index.
func (t *StreamableHTTP) record(x Exchange) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if sid := x.Header.Get("Mcp-Session-Id"); sid != "" && t.sessionID == "" && x.Method != http.MethodDelete && !t.modern {
		t.sessionID = sid
	}
	t.exchanges = append(t.exchanges, x)
	return len(t.exchanges) - 1
}

// deliver queues a frame for Inbound; false when the transport (or ctx) ended first.
func (t *StreamableHTTP) deliver(ctx context.Context, f Frame) bool {
	select {
	case t.in <- t.scrubFrame(f):
		t.delivered.Add(1)
		return true
	case <-t.life.Done():
		return false
	case <-ctx.Done():
		return false
	}
}

// Delivered is how many frames have been put on Inbound (FrameCounter).
func (t *StreamableHTTP) Delivered() uint64 { return t.delivered.Load() }

// Send POSTs msg. A JSON reply body is delivered as one Frame (Source "post"; a JSON
// array is one frame too) as soon as it is complete: a body still open after its
// value is read to its end by a goroutine after Send returns, and what it holds
// after the value, or its failure to end, is delivered as a rejected frame. An SSE
// reply is read by a goroutine after Send returns, each non-empty message event
// becoming a Frame. 202, 204 and empty 2xx replies deliver nothing. ctx bounds the
// wait for the reply head and the reading of a body, and so does the transport's
// Timeout once the head is in; neither bounds an SSE stream, which runs until it ends
// or Close. A non-2xx reply is returned as *HTTPStatusError.
func (t *StreamableHTTP) Send(ctx context.Context, msg []byte) error {
	if !t.enter() {
		return fmt.Errorf("POST %s: %w", t.safeURL, ErrClosed)
	}
	defer t.wg.Done()

	rs := t.newRequestScope(ctx)
	defer rs.release()

	req, err := t.newRequest(rs.ctx, http.MethodPost, t.url.String(), msg)
	if err != nil {
		return err
	}
	t.setMCPHeaders(req)
	t.setPostHeaders(req, msg)
	applyOverrides(req, headersFrom(ctx))
	resp, err := t.client.Do(req)
	if err != nil {
		return t.requestErr(ctx, http.MethodPost, t.safeURL, err)
	}
	x := t.scrubExchange(newExchange(http.MethodPost, resp))
	x.Carried = Carries(msg)
	x.Request, x.RPCMethod = requestKey(msg)
	x.Overrides = overrideNames(headersFrom(ctx))
	ct := mediaType(resp.Header)
	if ct == "text/event-stream" && is2xx(resp.StatusCode) {
		x.Stream = &StreamInfo{Retry: -1}
		idx := t.record(x)
		if !rs.stop() {
			// ctx ended just as the head arrived; the request is being cancelled.
			resp.Body.Close()
			return t.requestErr(ctx, http.MethodPost, t.safeURL, ctx.Err())
		}
		rs.handedOver = true
		key, method := requestKey(msg)
		t.trackStream(key, method, rs.cancel)
		t.wg.Add(1) // we hold a count, so this cannot race with Close's Wait
		go func() {
			defer t.untrackStream(key)
			t.readStream(resp.Body, rs.cancel, "post", key, idx)
		}()
		return nil
	}
	idx := t.record(x)
	cut := t.bodyTimer(rs.cancelCause)
	defer func() {
		if !rs.handedOver {
			cut.Stop()
			resp.Body.Close()
		}
	}()
	if !is2xx(resp.StatusCode) {
		return t.withBody(idx, t.statusError(resp))
	}
	body, end, err := readReply(resp.Body, resp.ContentLength, t.limits.MaxFrame)
	switch {
	case err != nil:
		return t.bodyErr(ctx, rs.ctx, http.MethodPost, t.safeURL, len(body), err)
	case len(body) == 0:
		return nil
	case ct != "application/json" && (end != replyEnded || !json.Valid(body)):
		return fmt.Errorf("POST %s: HTTP %d reply has Content-Type %q and a body; want application/json or text/event-stream",
			t.safeURL, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// A whole JSON body under another Content-Type is still the reply: the
	// exchange records the type, which SHTTP-POST-CT-01 judges, so that one
	// mislabelled reply is one finding, not a failed request in every check.
	f := Frame{Data: body, Source: "post", At: time.Now()}
	if end == replyLong {
		f.Err = tooLarge("a reply body", t.limits.MaxFrame, int64(len(body)), false)
		f.Data = headOf(body)
	} else {
		checkFrame(&f)
	}
	if !t.deliver(ctx, f) {
		if ctx.Err() != nil {
			return fmt.Errorf("POST %s: delivering the reply: %w", t.safeURL, ctx.Err())
		}
		return fmt.Errorf("POST %s: %w", t.safeURL, ErrClosed)
	}
	if end == replyOpen {
		// The caller's ctx no longer bounds the rest of the body: the body timer does.
		rs.stop()
		rs.handedOver = true
		t.wg.Add(1)
		go t.finishReply(resp.Body, rs.ctx, rs.cancel, cut)
	}
	return nil
}

// finishReply reads the rest of a JSON reply body whose value was delivered while
// the body was still open, until it ends, the body timer cuts it, or Close. What the
// server sent after the value, or its failure to end, is delivered as a rejected
// frame: the evidence that the body was not one JSON value.
func (t *StreamableHTTP) finishReply(body io.ReadCloser, reqCtx context.Context, cancel context.CancelFunc, cut *time.Timer) {
	defer t.wg.Done()
	defer cancel()
	defer cut.Stop()
	defer body.Close()
	rest, err := readRest(body, t.limits.MaxFrame)
	f := Frame{Data: rest, Source: "post", At: time.Now()}
	switch {
	case len(rest) > 0:
		f.Err = fmt.Errorf("%w: bytes after the JSON value of an application/json reply, which is one JSON value (the value was taken as the reply)", ErrNotJSON)
	case errors.Is(err, ErrBodyNotEnded):
		f.Err = err
	case errors.Is(context.Cause(reqCtx), errBodyTimeout):
		f.Err = fmt.Errorf("%w within %s of its head: the application/json reply went on after its JSON value, which was taken as the reply", ErrBodyNotEnded, t.timeout)
	default:
		return // it ended, or the connection or the transport did: the reply was whole
	}
	t.deliver(t.life, f)
}

// OpenGetStream opens the optional GET SSE stream. 405 gives (false, nil); a 2xx
// event stream is read by a goroutine, its frames arriving with Source "get"; any
// other reply is an error (*HTTPStatusError for non-2xx). ctx bounds only the wait
// for the reply head.
func (t *StreamableHTTP) OpenGetStream(ctx context.Context) (bool, error) {
	if !t.enter() {
		return false, fmt.Errorf("GET %s: %w", t.safeURL, ErrClosed)
	}
	defer t.wg.Done()
	rs := t.newRequestScope(ctx)
	defer rs.release()
	req, err := t.newRequest(rs.ctx, http.MethodGet, t.url.String(), nil)
	if err != nil {
		return false, err
	}
	t.setMCPHeaders(req)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := t.client.Do(req)
	if err != nil {
		return false, t.requestErr(ctx, http.MethodGet, t.safeURL, err)
	}
	x := t.scrubExchange(newExchange(http.MethodGet, resp))
	switch {
	case resp.StatusCode == http.StatusMethodNotAllowed:
		t.record(x)
		defer t.bodyTimer(rs.cancelCause).Stop()
		drain(resp.Body)
		resp.Body.Close()
		return false, nil
	case !is2xx(resp.StatusCode):
		t.record(x)
		defer resp.Body.Close()
		defer t.bodyTimer(rs.cancelCause).Stop()
		return false, t.statusError(resp)
	case mediaType(resp.Header) != "text/event-stream":
		t.record(x)
		resp.Body.Close()
		return false, fmt.Errorf("GET %s: HTTP %d reply has Content-Type %q; want text/event-stream",
			t.safeURL, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	x.Stream = &StreamInfo{Retry: -1}
	idx := t.record(x)
	if !rs.stop() {
		resp.Body.Close()
		return false, t.requestErr(ctx, http.MethodGet, t.safeURL, ctx.Err())
	}
	rs.handedOver = true
	t.wg.Add(1)
	go t.readStream(resp.Body, rs.cancel, "get", "", idx)
	return true, nil
}

// readStream delivers the message events of an SSE reply until it ends or Close.
func (t *StreamableHTTP) readStream(body io.ReadCloser, cancel context.CancelFunc, source, stream string, idx int) {
	defer t.wg.Done()
	defer cancel()
	defer body.Close()
	er := newEventReader(body, t.limits.MaxFrame)
	defer er.release()
	for {
		if er.skip {
			if err := t.skipRest(er, cancel); err != nil {
				t.endStream(idx, err)
				return
			}
		}
		ev, err := er.Next()
		if err != nil && !errors.Is(err, ErrFrameTooLarge) {
			t.endStream(idx, err)
			return
		}
		t.noteEvent(idx, ev)
		if (ev.Type != "" && ev.Type != "message") || (ev.Data == "" && err == nil) {
			continue
		}
		f := eventFrame(ev, err, source, stream)
		if !t.deliver(t.life, f) {
			t.endStream(idx, t.life.Err())
			return
		}
	}
}

func (t *StreamableHTTP) noteEvent(idx int, ev Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.exchanges[idx].Stream
	if s.Events == 0 {
		s.FirstHasID, s.FirstID, s.FirstEmpty = ev.HasID, ev.ID, ev.Data == ""
	}
	s.Events++
	if ev.Retry >= 0 {
		s.Retry = ev.Retry
	}
	if ev.HasID {
		if len(s.IDs) < MaxStreamIDs {
			s.IDs = append(s.IDs, ev.ID)
		} else {
			s.IDsDropped++
		}
	}
}

// MaxStreamIDs bounds the event ids kept per stream (StreamInfo.IDs).
const MaxStreamIDs = 1024

func (t *StreamableHTTP) endStream(idx int, err error) {
	reason := "eof"
	switch {
	case t.life.Err() != nil, errors.Is(err, errProbeClosed):
		reason = "closed"
	case err != nil && !errors.Is(err, io.EOF):
		reason = err.Error()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.exchanges[idx].Stream
	s.Ended, s.EndReason = time.Now(), reason
	if t.streamEnded != nil {
		close(t.streamEnded)
		t.streamEnded = nil
	}
}

// OpenPostStreams counts the POST replies whose SSE stream is still being read, and
// returns a channel closed when a stream next ends: a reply to a request can still
// arrive while one is open (the wire layer's silence barrier waits for them).
func (t *StreamableHTTP) OpenPostStreams() (int, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, x := range t.exchanges {
		if x.Method == http.MethodPost && x.Stream != nil && x.Stream.Ended.IsZero() && !x.Probe {
			n++ // a probe's stream carries nothing to Inbound: no reply waits on it
		}
	}
	if t.streamEnded == nil {
		t.streamEnded = make(chan struct{})
	}
	return n, t.streamEnded
}

// Drain ends the session from the server's side and waits, bounded by ctx, until the
// streams it had open have ended on their own, so that every message the server sent
// on them has been delivered to Inbound: it DELETEs the session when one was
// assigned, then waits for every stream if the server accepted the DELETE (2xx), and
// for the POST streams only otherwise (a GET stream of a session that lives on has no
// end to wait for). A GET stream the server keeps open after it accepted the DELETE
// and once every POST stream has ended is given TrailGrace, the grace a barrier
// gives a reply on a channel ordered with nothing, and then left to Close: waiting
// for it to the end of ctx would cost every such server the request timeout in each
// session. It returns whether every awaited stream ended. Close must still be called;
// it sends no second DELETE.
func (t *StreamableHTTP) Drain(ctx context.Context) bool {
	t.mu.Lock()
	sid := t.sessionID
	t.sessionID = ""
	closed, modern := t.closed, t.modern
	t.mu.Unlock()
	if closed {
		return true
	}
	if modern {
		t.cancelListens()
	}
	deleted := false
	if sid != "" && t.deleteSession(ctx, sid) == nil {
		t.mu.Lock()
		if n := len(t.exchanges); n > 0 && t.exchanges[n-1].Method == http.MethodDelete {
			deleted = is2xx(t.exchanges[n-1].Status)
		}
		t.mu.Unlock()
	}
	var trail <-chan time.Time
	for {
		t.mu.Lock()
		open, posts := false, false
		for _, x := range t.exchanges {
			if x.Stream != nil && x.Stream.Ended.IsZero() && !x.Probe && (deleted || x.Method == http.MethodPost) {
				open = true
				posts = posts || x.Method == http.MethodPost
			}
		}
		if !open {
			t.mu.Unlock()
			return true
		}
		if t.streamEnded == nil {
			t.streamEnded = make(chan struct{})
		}
		ended := t.streamEnded
		t.mu.Unlock()
		if !posts && trail == nil {
			tm := time.NewTimer(TrailGrace)
			defer tm.Stop()
			trail = tm.C
		}
		select {
		case <-ended:
		case <-trail:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// TrailGrace is how long a message may trail the proof that it was sent — a
// barrier's reply, the end of the POST streams — on a stream ordered with nothing
// else (the GET stream): some servers write such a stream from another goroutine.
const TrailGrace = 200 * time.Millisecond

// Close DELETEs the session when one was assigned (any status is fine, and it is
// recorded), closes every stream, waits for the goroutines, and closes Inbound.
// Close is idempotent and bounded by ctx.
func (t *StreamableHTTP) Close(ctx context.Context) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		select {
		case <-t.done:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("streamable HTTP close: %w", ctx.Err())
		}
	}
	t.closed = true
	sid := t.sessionID
	t.mu.Unlock()

	var errs []error
	if sid != "" {
		if err := t.deleteSession(ctx, sid); err != nil {
			errs = append(errs, err)
		}
	}
	t.cancel()
	if err := waitGroups(ctx, &t.wg); err != nil {
		errs = append(errs, fmt.Errorf("streamable HTTP close: %w", err))
		go func() { t.wg.Wait(); close(t.in) }() // the readers end promptly once cancelled
	} else {
		close(t.in)
	}
	if t.owned {
		t.client.CloseIdleConnections()
	}
	t.doneOnce.Do(func() { close(t.done) })
	return errors.Join(errs...)
}

func (t *StreamableHTTP) deleteSession(ctx context.Context, sid string) error {
	req, err := t.newRequest(ctx, http.MethodDelete, t.url.String(), nil)
	if err != nil {
		return err
	}
	t.setMCPHeaders(req)
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := t.client.Do(req)
	if err != nil {
		return t.requestErr(ctx, http.MethodDelete, t.safeURL, err)
	}
	t.record(t.scrubExchange(newExchange(http.MethodDelete, resp)))
	drain(resp.Body)
	resp.Body.Close()
	return nil
}
