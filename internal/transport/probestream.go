package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// ProbeStream is an SSE stream a check reads itself, event by event, instead of the
// transport delivering its messages to Inbound: the probes of how a server's streams
// behave (where a response goes, what a resumed stream replays, when a stream ends,
// SHTTP-RESUME-01 and the other stream rows) need the events, their ids and the
// stream's end, and need to drop the connection at a chosen point. Its exchange is
// recorded like any other (Exchange.Probe set), so the session's record of event ids
// stays whole. Every read is bounded by the caller's context; events are bounded by
// Limits.MaxFrame, and an event over the bound is skipped for no longer than the
// transport's Timeout, as on the transport's own streams.
type ProbeStream struct {
	t      *StreamableHTTP
	idx    int
	events chan probeEvent
	cancel context.CancelFunc

	mu   sync.Mutex
	end  error // why the stream ended: io.EOF when the server ended it
	done chan struct{}
}

type probeEvent struct {
	ev  Event
	err error // ErrFrameTooLarge for an event cut at the bound
}

// ProbeReply is what a probe's request got: the exchange and, when the reply was an
// SSE stream with a 2xx status, the stream; otherwise Body holds the start of the
// reply body (at most 64 KiB).
type ProbeReply struct {
	Exchange Exchange
	Stream   *ProbeStream
	Body     []byte
}

// OpenProbeStream sends one request with the given HTTP method: a POST carrying body
// (with the headers Send would set), or a bodiless GET (Accept: text/event-stream).
// h is applied last, as WithHeaders does: a GET that resumes a stream names
// Last-Event-ID there. ctx bounds the wait for the reply head; a non-stream body is
// read within the transport's Timeout.
func (t *StreamableHTTP) OpenProbeStream(ctx context.Context, method string, body []byte, h http.Header) (ProbeReply, error) {
	if !t.enter() {
		return ProbeReply{}, fmt.Errorf("%s %s: %w", method, t.safeURL, ErrClosed)
	}
	defer t.wg.Done()
	rs := t.newRequestScope(ctx)
	defer rs.release()
	req, err := t.newRequest(rs.ctx, method, t.url.String(), body)
	if err != nil {
		return ProbeReply{}, err
	}
	t.setMCPHeaders(req)
	if method == http.MethodPost {
		t.setPostHeaders(req, body)
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	applyOverrides(req, h)
	resp, err := t.client.Do(req)
	if err != nil {
		return ProbeReply{}, t.requestErr(ctx, method, t.safeURL, err)
	}
	x := t.scrubExchange(newExchange(method, resp))
	x.Probe = true
	for name, vs := range req.Header { // as applyOverrides spelled it
		if strings.EqualFold(name, "Last-Event-ID") && len(vs) > 0 {
			x.LastEventID = vs[0]
		}
	}
	if method == http.MethodPost {
		x.Request, x.RPCMethod = requestKey(body)
	}
	if mediaType(resp.Header) != "text/event-stream" || !is2xx(resp.StatusCode) {
		t.record(x)
		defer resp.Body.Close()
		defer t.bodyTimer(rs.cancelCause).Stop()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return ProbeReply{Exchange: x, Body: t.redact(b)}, nil
	}
	x.Stream = &StreamInfo{Retry: -1}
	idx := t.record(x)
	if !rs.stop() {
		resp.Body.Close()
		return ProbeReply{Exchange: x}, t.requestErr(ctx, method, t.safeURL, ctx.Err())
	}
	rs.handedOver = true
	ps := &ProbeStream{t: t, idx: idx, events: make(chan probeEvent, 16), cancel: rs.cancel, done: make(chan struct{})}
	t.wg.Add(1)
	go ps.read(resp.Body)
	return ProbeReply{Exchange: x, Stream: ps}, nil
}

// read parses the stream into ps.events until it ends, the probe closes it, or the
// transport closes.
func (ps *ProbeStream) read(body io.ReadCloser) {
	t := ps.t
	defer t.wg.Done()
	defer ps.cancel()
	defer body.Close()
	er := newEventReader(body, t.limits.MaxFrame)
	defer er.release()
	finish := func(err error) {
		t.endStream(ps.idx, err)
		ps.mu.Lock()
		ps.end = err
		ps.mu.Unlock()
		close(ps.events)
	}
	for {
		if er.skip {
			if err := t.skipRest(er, ps.cancel); err != nil {
				finish(err)
				return
			}
		}
		ev, err := er.Next()
		if err != nil && !errors.Is(err, ErrFrameTooLarge) {
			select {
			case <-ps.done:
				err = errProbeClosed // the read failed because the probe dropped it
			default:
			}
			finish(err)
			return
		}
		t.noteEvent(ps.idx, ev)
		ev.Data = string(t.redact([]byte(ev.Data)))
		select {
		case ps.events <- probeEvent{ev: ev, err: err}:
		case <-t.life.Done():
			finish(t.life.Err())
			return
		case <-ps.done:
			finish(errProbeClosed)
			return
		}
	}
}

// errProbeClosed ends a stream the probe closed.
var errProbeClosed = errors.New("closed by the probe")

// Next returns the stream's next event, bounded by ctx. At the stream's end it
// returns io.EOF when the server ended it, or the reason it ended otherwise; an
// event cut at the size bound comes with an error wrapping ErrFrameTooLarge, and
// reading may go on.
func (ps *ProbeStream) Next(ctx context.Context) (Event, error) {
	select {
	case pe, ok := <-ps.events:
		if !ok {
			ps.mu.Lock()
			defer ps.mu.Unlock()
			if ps.end == nil {
				return Event{}, io.EOF
			}
			return Event{}, ps.end
		}
		return pe.ev, pe.err
	case <-ctx.Done():
		return Event{}, fmt.Errorf("reading the stream: %w", ctx.Err())
	}
}

// Close drops the connection (the client's disconnect). It does not wait.
func (ps *ProbeStream) Close() {
	ps.mu.Lock()
	select {
	case <-ps.done:
	default:
		close(ps.done)
	}
	ps.mu.Unlock()
	ps.cancel()
}

// Info returns the stream's record so far (its exchange's StreamInfo).
func (ps *ProbeStream) Info() StreamInfo {
	ps.t.mu.Lock()
	defer ps.t.mu.Unlock()
	s := *ps.t.exchanges[ps.idx].Stream
	s.IDs = append([]string(nil), s.IDs...)
	return s
}
