package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// SSE is the legacy HTTP+SSE client transport (MCP 2024-11-05): a long-lived GET
// event stream whose first event names the endpoint that takes POSTed messages, and
// whose "message" events carry the server's messages.
type SSE struct {
	*httpBase
	endpoint *url.URL
	in       chan Frame

	exchangeRecord // mu guards what follows
	closed         bool
	err            error
	opening        SSEOpening
	ignored        []IgnoredEvent
	nIgnored       int

	wg       sync.WaitGroup // the stream reader and in-flight Sends
	done     chan struct{}
	doneOnce sync.Once
}

var _ Transport = (*SSE)(nil)

// SSEOpening is what the GET of an HTTP+SSE event stream showed up to its endpoint
// event, kept whether or not the stream opened: the evidence SSE-ENDPOINT-EVENT-01
// judges (2024-11-05/basic/transports.mdx, HTTP with SSE).
type SSEOpening struct {
	URL string // the SSE URL, redacted
	// Exchange is the GET's reply (nil when none came: the connection failed).
	Exchange *Exchange
	// First is the first dispatched event, its Data cut to OversizeHead bytes (nil
	// when the stream ended, or was not an event stream, before one came).
	First *Event
	// Endpoint is the endpoint event's data resolved against URL, redacted ("" when
	// it is not a URI or does not resolve to an http(s) URL).
	Endpoint string
	// Problem is why the stream is unusable (nil when it opened): an
	// *HTTPStatusError, an error wrapping ErrNoEndpointEvent (ErrEndpointOffOrigin
	// among them), or a failure to reach the server.
	Problem error
}

// OpeningError is DialSSE's failure, carrying what the opening showed. It unwraps
// to the Problem, so errors.Is and errors.As see through it.
type OpeningError struct{ Opening SSEOpening }

func (e *OpeningError) Error() string { return e.Opening.Problem.Error() }
func (e *OpeningError) Unwrap() error { return e.Opening.Problem }

// DialSSE opens the GET event stream at cfg.URL and waits (bounded by ctx) for its
// first event, which must be "endpoint" with a URI that resolves, against cfg.URL, to
// an http or https URL on the stream's origin. A failure is an *OpeningError with what
// the GET showed: it wraps an *HTTPStatusError for a non-2xx reply, and
// ErrNoEndpointEvent for a reply that is not an event stream or whose first event is
// not a usable endpoint event.
func DialSSE(ctx context.Context, cfg HTTPConfig) (*SSE, error) {
	b, err := newHTTPBase(cfg, "HTTP+SSE")
	if err != nil {
		return nil, err
	}
	t := &SSE{httpBase: b, in: make(chan Frame, inboundBuffer), done: make(chan struct{})}
	t.opening.URL = t.safeURL
	ok := false
	defer func() {
		if !ok {
			t.cancel()
			if t.owned {
				t.client.CloseIdleConnections()
			}
		}
	}()
	// Until the endpoint event arrives, ctx may end the whole stream.
	stop := context.AfterFunc(ctx, t.cancel)
	defer stop()
	body, er, err := t.openStream(ctx, stop)
	if err != nil {
		t.opening.Problem = err
		return nil, &OpeningError{Opening: t.opening}
	}
	ok = true
	t.wg.Add(1)
	go t.readStream(body, er)
	return t, nil
}

// openStream sends the GET and reads up to the endpoint event, recording what it
// saw in t.opening; stop ends ctx's hold on the stream once the event is in.
func (t *SSE) openStream(ctx context.Context, stop func() bool) (io.ReadCloser, *eventReader, error) {
	req, err := t.newRequest(t.life, http.MethodGet, t.url.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, nil, t.requestErr(ctx, http.MethodGet, t.safeURL, err)
	}
	x := t.scrubExchange(newExchange(http.MethodGet, resp))
	t.exchanges = append(t.exchanges, x)
	t.opening.Exchange = &x
	if !is2xx(resp.StatusCode) {
		defer resp.Body.Close()
		return nil, nil, t.statusError(resp)
	}
	fail := func(err error) (io.ReadCloser, *eventReader, error) {
		resp.Body.Close()
		return nil, nil, err
	}
	if mt := mediaType(resp.Header); mt != "text/event-stream" {
		return fail(fmt.Errorf("GET %s: HTTP %d reply has Content-Type %q, not text/event-stream: %w",
			t.safeURL, resp.StatusCode, resp.Header.Get("Content-Type"), ErrNoEndpointEvent))
	}
	er := newEventReader(resp.Body, t.limits.MaxFrame)
	ev, err := firstEvent(er)
	if ev != nil {
		first := *ev
		first.Data = string(headOf([]byte(first.Data)))
		t.opening.First = &first
	}
	if err != nil {
		if ctx.Err() != nil {
			return fail(fmt.Errorf("GET %s: waiting for the endpoint event: %w", t.safeURL, ctx.Err()))
		}
		return fail(fmt.Errorf("GET %s: %w", t.safeURL, err))
	}
	if !stop() {
		return fail(fmt.Errorf("GET %s: waiting for the endpoint event: %w", t.safeURL, ctx.Err()))
	}
	raw := strings.TrimSpace(ev.Data)
	ref, err := url.Parse(raw)
	if err != nil {
		return fail(fmt.Errorf("GET %s: endpoint %q is not a URI (%v): %w", t.safeURL, raw, err, ErrNoEndpointEvent))
	}
	t.endpoint = t.url.ResolveReference(ref)
	if t.endpoint.Scheme != "http" && t.endpoint.Scheme != "https" || t.endpoint.Host == "" {
		return fail(fmt.Errorf("GET %s: endpoint %q does not resolve to an http(s) URL: %w", t.safeURL, raw, ErrNoEndpointEvent))
	}
	t.opening.Endpoint = t.endpoint.Redacted()
	if o, want := Origin(t.endpoint), Origin(t.url); o != want {
		return fail(fmt.Errorf("GET %s: endpoint %q is on origin %s, not the SSE stream's origin %s; no request was sent there (the user's headers would go with it): %w",
			t.safeURL, t.endpoint.Redacted(), o, want, ErrEndpointOffOrigin))
	}
	return resp.Body, er, nil
}

// firstEvent returns the first dispatchable event, which must be an endpoint event;
// the event is returned with the error when one came but is not usable. Events with
// neither a type nor data (which WHATWG would not dispatch) are skipped.
func firstEvent(er *eventReader) (*Event, error) {
	for {
		ev, err := er.Next()
		switch {
		case errors.Is(err, ErrFrameTooLarge):
			return &ev, fmt.Errorf("first event: %v: %w", err, ErrNoEndpointEvent)
		case err != nil:
			return nil, fmt.Errorf("stream ended before the first event (%v): %w", err, ErrNoEndpointEvent)
		case ev.Type == "" && ev.Data == "":
			continue
		case ev.Type != "endpoint":
			return &ev, fmt.Errorf("first event has type %q, want \"endpoint\": %w", ev.Type, ErrNoEndpointEvent)
		case strings.TrimSpace(ev.Data) == "":
			return &ev, fmt.Errorf("endpoint event has no data: %w", ErrNoEndpointEvent)
		}
		return &ev, nil
	}
}

// readStream delivers message events until the stream ends or Close. When the server
// ends the stream, the transport ends with it.
func (t *SSE) readStream(body io.ReadCloser, er *eventReader) {
	defer t.wg.Done()
	defer close(t.in)
	defer body.Close()
	defer er.release()
	for {
		if er.skip {
			if err := t.skipRest(er, t.cancel); err != nil {
				t.end(fmt.Errorf("HTTP+SSE: %w", err))
				return
			}
		}
		ev, err := er.Next()
		if err != nil && !errors.Is(err, ErrFrameTooLarge) {
			t.end(fmt.Errorf("HTTP+SSE: the event stream ended: %w", err))
			return
		}
		if ev.Type != "" && ev.Type != "message" {
			t.ignore(ev)
			continue
		}
		if ev.Data == "" && err == nil {
			continue
		}
		f := eventFrame(ev, err, "sse", "")
		select {
		case t.in <- t.scrubFrame(f):
		case <-t.life.Done():
			t.end(nil)
			return
		}
	}
}

// IgnoredEvent is an event of the HTTP+SSE stream that carried data under a type
// other than "message" (after the endpoint event): the transport delivers no frame
// for it, as a client does not (SSE-MESSAGE-EVENT-01 judges it).
type IgnoredEvent struct {
	Type string
	Data string // at most the first OversizeHead bytes
}

// maxIgnored bounds the record of ignored events.
const maxIgnored = 16

func (t *SSE) ignore(ev Event) {
	if ev.Data == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nIgnored++
	if len(t.ignored) < maxIgnored {
		t.ignored = append(t.ignored, IgnoredEvent{Type: ev.Type, Data: string(headOf([]byte(ev.Data)))})
	}
}

// Ignored returns the first events that carried data under another type than
// "message", and how many there were in all.
func (t *SSE) Ignored() ([]IgnoredEvent, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]IgnoredEvent(nil), t.ignored...), t.nIgnored
}

// ProbeStream sends a GET to the SSE URL, as DialSSE does, with the header
// overrides h (as WithHeaders applies them), records the exchange and returns it
// without reading the reply: a stream the server opened is closed at once, which
// ends the session it started. SSE-ORIGIN-01 probes with it.
func (t *SSE) ProbeStream(ctx context.Context, h http.Header) (Exchange, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return Exchange{}, fmt.Errorf("GET %s: %w", t.safeURL, ErrClosed)
	}
	t.wg.Add(1)
	t.mu.Unlock()
	defer t.wg.Done()
	rs := t.newRequestScope(ctx)
	defer rs.release()
	req, err := t.newRequest(rs.ctx, http.MethodGet, t.url.String(), nil)
	if err != nil {
		return Exchange{}, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	applyOverrides(req, h)
	resp, err := t.client.Do(req)
	if err != nil {
		return Exchange{}, t.requestErr(ctx, http.MethodGet, t.safeURL, err)
	}
	defer resp.Body.Close()
	x := t.scrubExchange(newExchange(http.MethodGet, resp))
	t.mu.Lock()
	t.exchanges = append(t.exchanges, x)
	t.mu.Unlock()
	if mediaType(resp.Header) != "text/event-stream" {
		defer t.bodyTimer(rs.cancelCause).Stop()
		drain(resp.Body)
	}
	return x, nil
}

// end records why the transport ended (the first reason wins) and closes Done.
func (t *SSE) end(err error) {
	t.mu.Lock()
	if t.err == nil {
		if t.closed || err == nil {
			err = fmt.Errorf("HTTP+SSE: %w", ErrClosed)
		}
		t.err = err
	}
	t.mu.Unlock()
	t.doneOnce.Do(func() { close(t.done) })
}

// Kind returns "sse".
func (t *SSE) Kind() string { return "sse" }

// Opening returns what the GET of the event stream showed up to its endpoint event.
func (t *SSE) Opening() SSEOpening { return t.opening }

// Endpoint returns the resolved URL that takes POSTed messages.
func (t *SSE) Endpoint() string { return t.endpoint.Redacted() }

// Inbound yields the data of every message event. It is closed when the stream ends.
func (t *SSE) Inbound() <-chan Frame { return t.in }

// Done is closed when the event stream has ended or Close has been called.
func (t *SSE) Done() <-chan struct{} { return t.done }

// Err says why the transport ended; nil while it runs.
func (t *SSE) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Send POSTs msg to the endpoint, with the header overrides of WithHeaders. Any 2xx is accepted (the status is recorded in
// Exchanges); the reply itself arrives on the event stream. A non-2xx reply is
// returned as *HTTPStatusError. After the stream has ended or Close, Send returns an
// error wrapping ErrClosed.
func (t *SSE) Send(ctx context.Context, msg []byte) error {
	t.mu.Lock()
	if t.closed || t.err != nil {
		reason := t.err
		t.mu.Unlock()
		if reason != nil && !errors.Is(reason, ErrClosed) {
			return fmt.Errorf("POST %s: %w (%v)", t.endpoint.Redacted(), ErrClosed, reason)
		}
		return fmt.Errorf("POST %s: %w", t.endpoint.Redacted(), ErrClosed)
	}
	t.wg.Add(1)
	t.mu.Unlock()
	defer t.wg.Done()

	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(t.life, func() { cancel(nil) })
	defer stop()
	req, err := t.newRequest(reqCtx, http.MethodPost, t.endpoint.String(), msg)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	applyOverrides(req, headersFrom(ctx))
	resp, err := t.client.Do(req)
	if err != nil {
		return t.requestErr(ctx, http.MethodPost, t.endpoint.Redacted(), err)
	}
	defer resp.Body.Close()
	// The reply is on the event stream; this body is read for the connection's sake,
	// and no longer than the body timer allows.
	defer t.bodyTimer(cancel).Stop()
	t.mu.Lock()
	x := t.scrubExchange(newExchange(http.MethodPost, resp))
	x.Carried = Carries(msg)
	x.Overrides = overrideNames(headersFrom(ctx))
	t.exchanges = append(t.exchanges, x)
	idx := len(t.exchanges) - 1
	t.mu.Unlock()
	if !is2xx(resp.StatusCode) {
		return t.withBody(idx, t.statusError(resp))
	}
	drain(resp.Body)
	return nil
}

// Close ends the event stream, waits for the goroutines (bounded by ctx) and leaves
// Inbound closed. It is idempotent.
func (t *SSE) Close(ctx context.Context) error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cancel()
	err := waitGroups(ctx, &t.wg)
	if t.owned {
		t.client.CloseIdleConnections()
	}
	t.end(nil)
	if err != nil {
		return fmt.Errorf("HTTP+SSE close: %w", err)
	}
	return nil
}
