package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/redact"
)

// HTTPConfig configures the Streamable HTTP and HTTP+SSE transports.
type HTTPConfig struct {
	// URL is the MCP endpoint (Streamable HTTP) or the SSE endpoint (HTTP+SSE).
	URL string
	// Headers are the user's --header values, sent on every request. They are never
	// written to Exchanges or errors, and are redacted from error bodies.
	Headers http.Header
	// Client is optional. The default client has no overall timeout (streams are
	// long-lived; contexts bound each wait) and does not follow redirects, so that a
	// redirect shows up as an HTTPStatusError instead of silently changing the request.
	Client *http.Client
	// Limits bounds frames.
	Limits Limits
	// Timeout bounds the reading of every reply body from the arrival of its head
	// (default 30 s), whatever its Content-Type: a server can hold a body open
	// forever, and a caller's context may be long (a subscription, a notification).
	// An event stream is not a body in this sense: its events are bounded by Limits,
	// its life by the caller and Close.
	Timeout time.Duration
}

// defaultBodyTimeout is HTTPConfig.Timeout when none is given.
const defaultBodyTimeout = 30 * time.Second

// ErrBodyNotEnded is wrapped by the error, or the Frame.Err, that reports a reply body
// still open HTTPConfig.Timeout after its head arrived.
var ErrBodyNotEnded = errors.New("the reply body did not end")

// errBodyTimeout is the cause a body timer cancels its request with.
var errBodyTimeout = errors.New("body timeout")

// maxErrorBody is how much of a non-2xx reply body is kept.
const maxErrorBody = 64 << 10

// ErrNoEndpointEvent is wrapped by DialSSE's error when the GET reply is not an event
// stream, or its first event is not a usable "endpoint" event.
var ErrNoEndpointEvent = errors.New("SSE stream did not start with a usable endpoint event")

// ErrEndpointOffOrigin is wrapped by DialSSE's error when the endpoint event names a
// URL on another origin than the SSE stream's. The suite never sends a request (and
// so never the user's headers) to an origin the user did not name. It also wraps
// ErrNoEndpointEvent: the stream gave no usable endpoint.
var ErrEndpointOffOrigin = fmt.Errorf("endpoint event names another origin (SSE-ENDPOINT-EVENT-01: its data is the URI for POSTs on this server): %w", ErrNoEndpointEvent)

// Origin is u's scheme, host and port (the default port made explicit), lower-case.
func Origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// httpBase is what the two HTTP transports share.
type httpBase struct {
	url     *url.URL
	safeURL string // url without user info, for messages
	headers http.Header
	client  *http.Client
	owned   bool // client was made here; its idle connections are closed on Close
	limits  Limits
	timeout time.Duration   // HTTPConfig.Timeout
	secrets *redact.Secrets // header values, scrubbed from everything the server sends back

	life   context.Context // ends at Close: every request derives from it
	cancel context.CancelFunc
}

func newHTTPBase(cfg HTTPConfig, what string) (*httpBase, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("%s: bad URL: %w", what, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s: URL %s: scheme must be http or https", what, u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s: URL %s has no host", what, u.Redacted())
	}
	b := &httpBase{
		url:     u,
		safeURL: u.Redacted(),
		headers: cfg.Headers.Clone(),
		client:  cfg.Client,
		limits:  cfg.Limits.WithDefaults(),
		timeout: cfg.Timeout,
	}
	if b.timeout <= 0 {
		b.timeout = defaultBodyTimeout
	}
	if b.client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		b.client = &http.Client{
			Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
		b.owned = true
	}
	var values []string
	for _, vs := range b.headers {
		values = append(values, vs...)
	}
	b.secrets = redact.New(values)
	b.life, b.cancel = context.WithCancel(context.Background())
	return b, nil
}

// redact replaces every form of every user header value in b. Everything the server
// sends back passes through it before anything else sees it: frames, error bodies,
// reply headers. (conform scrubs the finished report and the console once more.)
func (h *httpBase) redact(b []byte) []byte { return h.secrets.Bytes(b) }

// scrubFrame redacts a frame's bytes before delivery. Bytes that a redaction changed
// are no longer known to be JSON (a mask inside an escape sequence is not).
func (h *httpBase) scrubFrame(f Frame) Frame {
	data := h.secrets.Bytes(f.Data)
	if len(data) != len(f.Data) || (len(data) > 0 && &data[0] != &f.Data[0]) {
		f.JSON = false
	}
	f.Data = data
	return f
}

// scrubExchange redacts the reply header values of an exchange record.
func (h *httpBase) scrubExchange(x Exchange) Exchange {
	for k, vs := range x.Header {
		for i, v := range vs {
			x.Header[k][i] = h.secrets.String(v)
		}
	}
	return x
}

// newRequest builds a request bound to ctx carrying the user's headers.
func (h *httpBase) newRequest(ctx context.Context, method, target string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, h.safeURL, err)
	}
	for k, vs := range h.headers {
		if strings.EqualFold(k, "Host") && len(vs) > 0 {
			req.Host = vs[0]
			continue
		}
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	return req, nil
}

// requestErr explains a failed round trip: ctx's error when ctx ended, ErrClosed
// when the transport was closed, else the client's error (which names the URL
// without user info, never the headers).
func (h *httpBase) requestErr(ctx context.Context, method, target string, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s %s: %w", method, target, ctx.Err())
	case h.life.Err() != nil:
		return fmt.Errorf("%s %s: %w", method, target, ErrClosed)
	}
	return fmt.Errorf("%s: %w", method, asNoReply(err))
}

// bodyTimer bounds the reading of a reply body whose head has just arrived: after the
// transport's Timeout it cancels the request with errBodyTimeout, which ends every
// read of the body. The caller stops it once the body is done.
func (h *httpBase) bodyTimer(cancel context.CancelCauseFunc) *time.Timer {
	return time.AfterFunc(h.timeout, func() { cancel(errBodyTimeout) })
}

// bodyErr explains a failed read of a reply body of which n bytes had arrived: the
// body timer's cut (which is also a deadline: the reply is judged as one that never
// came), the end of ctx or of the transport, or the connection's failure.
func (h *httpBase) bodyErr(ctx, reqCtx context.Context, method, target string, n int, err error) error {
	if errors.Is(context.Cause(reqCtx), errBodyTimeout) {
		return fmt.Errorf("%s %s: reading the reply body: %w within %s of its head (%d bytes read, no complete JSON value): %w",
			method, target, ErrBodyNotEnded, h.timeout, n, context.DeadlineExceeded)
	}
	if ctx.Err() != nil || h.life.Err() != nil {
		return h.requestErr(ctx, method, target, err)
	}
	return fmt.Errorf("%s %s: reading the reply body: %w", method, target, asNoReply(err))
}

// skipRest skips the rest of the oversize event er last returned, keeping none of it,
// for no longer than the transport's Timeout: a server can make an event that never
// ends, and its stream would be read for nothing until Close. Past the bound, cancel
// closes the stream and skipRest says so; otherwise it returns the read's error.
func (h *httpBase) skipRest(er *eventReader, cancel context.CancelFunc) error {
	timer := time.AfterFunc(h.timeout, cancel)
	err := er.skipEvent()
	if !timer.Stop() {
		return fmt.Errorf("an SSE event over the bound of %d bytes (--max-message-bytes) went on for %s past it: the stream was closed",
			er.max, h.timeout)
	}
	return err
}

// statusError reads up to 64 KiB of a non-2xx reply into an HTTPStatusError.
func (h *httpBase) statusError(resp *http.Response) *HTTPStatusError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return &HTTPStatusError{
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Body:        h.redact(body),
	}
}

// replyEnd says what settled a reply body's reading.
type replyEnd int

const (
	// replyEnded: the body ended; it is all there.
	replyEnded replyEnd = iota
	// replyLong: the body went past the bound; the first max bytes are there.
	replyLong
	// replyOpen: one complete JSON value has arrived, then nothing but whitespace,
	// and the body is still open. The value is the reply: the rest is read apart.
	replyOpen
	// replyMore: one complete JSON value has arrived, then something else: the
	// body is not one JSON value, whatever else comes.
	replyMore
)

// readReply reads a reply body, keeping at most max bytes, until its bytes settle
// what it is: its end (replyEnded), the bound (replyLong), or, while it is still
// open, a first JSON value followed by nothing yet (replyOpen) or by something
// (replyMore). A reply is one message, so it is not held back until the body ends:
// a server that keeps the body open after it would make every request wait out its
// timeout. The body it returns is its own, sized to fit: a declared length sizes it
// at once; a body of unknown length (chunked, as Go's own servers send anything over
// a few kilobytes) is read into a pooled scratch buffer and copied out once, instead
// of growing a new buffer from 512 bytes for every reply.
func readReply(r io.Reader, size int64, max int) (body []byte, end replyEnd, err error) {
	lr := io.LimitReader(r, int64(max)+1)
	if size >= 0 && size <= int64(max) {
		// A server that sends more or less than it declared is read all the same;
		// the extra byte lets the end be seen without growing.
		return readReplyInto(lr, make([]byte, 0, size+1), max)
	}
	scratch := bodyScratch.Get().(*[]byte)
	buf, end, err := readReplyInto(lr, (*scratch)[:0], max)
	body = bytes.Clone(buf)
	*scratch = buf[:0]
	bodyScratch.Put(scratch)
	return body, end, err
}

// bodyScratch holds the buffers readReply reads bodies of unknown length into.
var bodyScratch = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// readReplyInto appends r to buf until readReply's question is settled or a read
// fails (EOF is the body's end, not an error).
func readReplyInto(r io.Reader, buf []byte, max int) ([]byte, replyEnd, error) {
	var v valueScan
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case len(buf) > max:
			return buf[:max], replyLong, nil
		case err == io.EOF:
			return buf, replyEnded, nil
		case err != nil:
			return buf, replyEnded, err
		}
		switch v.scan(buf) {
		case valueComplete:
			return buf, replyOpen, nil
		case valueFollowed:
			return buf, replyMore, nil
		}
	}
}

// valueScan follows the first JSON value of a body as its bytes arrive, to see it
// complete without waiting for the body's end. It tracks strings and nesting only,
// each byte once: checkFrame judges the syntax of what it finds. A body that does not
// start with an object or an array (no JSON-RPC message does) is settled by its end.
type valueScan struct {
	pos    int // bytes scanned; past the end after an escape split by a read
	depth  int
	begun  bool
	inStr  bool
	opaque bool // the body starts with something else than an object or array
	end    int  // just past the first value; 0 until it is complete
}

// What a valueScan has seen of a body so far.
const (
	valuePartial  = iota // no complete value yet
	valueComplete        // a complete value, then only whitespace
	valueFollowed        // a complete value, then something else
)

// scan advances over buf, the whole body read so far.
func (v *valueScan) scan(buf []byte) int {
	for v.pos < len(buf) && !v.opaque {
		rest := buf[v.pos:]
		switch {
		case v.end > 0:
			if len(bytes.TrimLeft(rest, " \t\r\n")) > 0 {
				return valueFollowed
			}
			v.pos = len(buf)
		case !v.begun:
			rest = bytes.TrimLeft(rest, " \t\r\n")
			v.pos = len(buf) - len(rest)
			if len(rest) == 0 {
				break
			}
			if rest[0] != '{' && rest[0] != '[' {
				v.opaque = true
				break
			}
			v.begun, v.depth = true, 1
			v.pos++
		case v.inStr:
			i := rawjson.IndexQuoteOrEscape(rest)
			if i < 0 {
				v.pos = len(buf)
				break
			}
			if rest[i] == '\\' {
				v.pos += i + 2 // the escaped byte, even when a later read brings it
				break
			}
			v.inStr = false
			v.pos += i + 1
		default:
			i := rawjson.IndexStructural(rest)
			if i < 0 {
				v.pos = len(buf)
				break
			}
			v.pos += i + 1
			switch rest[i] {
			case '"':
				v.inStr = true
			case '{', '[':
				v.depth++
			default:
				if v.depth--; v.depth == 0 {
					v.end = v.pos
				}
			}
		}
	}
	if v.end == 0 {
		return valuePartial
	}
	return valueComplete
}

// readRest reads what a reply body holds after the JSON value already delivered,
// until it ends: nothing but whitespace (the bytes a correct server may add) returns
// nil, nil. It returns the first bytes of anything else as soon as they arrive, and
// stops reading there; whitespace past max bytes, or a read error, is returned as
// the error.
func readRest(r io.Reader, max int) ([]byte, error) {
	// Every reply read before its body ended comes here (most of Go's servers'
	// chunked replies): a pooled buffer, not 4 KB of garbage a reply.
	scratch := restScratch.Get().(*[]byte)
	defer restScratch.Put(scratch)
	buf := *scratch
	total := 0
	for {
		n, err := r.Read(buf)
		if rest := bytes.TrimLeft(buf[:n], " \t\r\n"); len(rest) > 0 {
			return bytes.Clone(headOf(rest)), nil // its own bytes: buf goes back to the pool
		}
		total += n
		switch {
		case err == io.EOF:
			return nil, nil
		case err != nil:
			return nil, err
		case total > max:
			return nil, fmt.Errorf("%w: more than %d bytes of whitespace after its JSON value", ErrBodyNotEnded, max)
		}
	}
}

// restScratch holds readRest's buffers.
var restScratch = sync.Pool{New: func() any { b := make([]byte, 4<<10); return &b }}

// mediaType returns the lower-case media type of a Content-Type header, without
// parameters.
func mediaType(h http.Header) string {
	ct := h.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

func is2xx(status int) bool { return status >= 200 && status < 300 }

// Carries classifies a POST body as Exchange.Carried does: one JSON-RPC 2.0 object
// with a string or integer id and a string method is a "request", with a method and
// no id a "notification", with such an id, no method and exactly one of result and
// error a "response"; anything else (a batch, a null id, a method that is no string,
// another jsonrpc, unparseable bytes) is "".
func Carries(body []byte) string {
	// One pass over the members, the last of a repeated key winning, as decoding
	// into a map does (TestCarriesAsDecoded): every POST is classified, and
	// encoding/json's reflection was 3 % of a run judging 10,000 tools.
	if !rawjson.Valid(body) {
		return ""
	}
	var jsonrpc, id, method, result, errValue json.RawMessage
	keep := func(key string, v json.RawMessage) {
		switch key {
		case "jsonrpc":
			jsonrpc = v
		case "id":
			id = v
		case "method":
			method = v
		case "result":
			result = v
		case "error":
			errValue = v
		}
	}
	isObject := rawjson.MemberTokens(body, func(k []byte, plain bool, v json.RawMessage) bool {
		if plain {
			keep(string(k), v) // compared, never kept: no copy
		} else {
			keep(rawjson.Key(k), v)
		}
		return true
	})
	if !isObject || string(jsonrpc) != `"2.0"` {
		return ""
	}
	hasID, hasMethod := id != nil, method != nil
	if hasID && !validID(id) {
		return ""
	}
	if hasMethod {
		// A string, or null (decoding null into a string leaves it as it is).
		if _, err := rawjson.StringOfValid(method); err != nil {
			return ""
		}
	}
	return carried(hasID, hasMethod, result != nil, errValue != nil)
}

// carried names what a JSON-RPC 2.0 object with a valid id (or none) and a string
// method (or none) is, from the members it has (Carries).
func carried(hasID, hasMethod, hasResult, hasError bool) string {
	switch {
	case hasMethod && hasID:
		return "request"
	case hasMethod:
		return "notification"
	case hasID && hasResult != hasError:
		return "response"
	}
	return ""
}

// validID reports whether raw, a value of valid JSON (MemberTokens'), is a string or
// an integer. A number literal is read as it is: a json.Decoder per message (it
// takes a 512-byte buffer) was most of what classifying a frame allocated.
func validID(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9':
		_, err := strconv.ParseInt(string(raw), 10, 64)
		return err == nil
	}
	return false
}

// newExchange records the head of a reply (never request headers).
func newExchange(method string, resp *http.Response) Exchange {
	return Exchange{
		Method:      method,
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Header:      resp.Header.Clone(),
		At:          time.Now(),
	}
}

// eventFrame is the frame of a message event that came from source (and stream),
// read with err (nil, or why the event is cut short): its data and id, checked as a
// message when the event is whole.
func eventFrame(ev Event, err error, source, stream string) Frame {
	f := Frame{Data: []byte(ev.Data), Source: source, Stream: stream, At: time.Now()}
	if ev.HasID {
		f.EventID = ev.ID
	}
	if err != nil {
		f.Err = err
	} else {
		checkFrame(&f)
	}
	return f
}

// requestScope is the context of one request: it ends at Close, when the caller's
// ctx ends before stop is called (while the reply head is awaited), and at release,
// unless the request was handed over to a goroutine that reads on and cancels it
// when done.
type requestScope struct {
	ctx         context.Context
	cancelCause context.CancelCauseFunc
	stop        func() bool
	handedOver  bool
}

func (h *httpBase) newRequestScope(ctx context.Context) *requestScope {
	reqCtx, cancelCause := context.WithCancelCause(h.life)
	rs := &requestScope{ctx: reqCtx, cancelCause: cancelCause}
	rs.stop = context.AfterFunc(ctx, rs.cancel)
	return rs
}

// cancel ends the request without a cause.
func (rs *requestScope) cancel() { rs.cancelCause(nil) }

// release ends the request unless it was handed over: deferred by its sender.
func (rs *requestScope) release() {
	if !rs.handedOver {
		rs.stop()
		rs.cancel()
	}
}

// exchangeRecord is an HTTP transport's record of its exchanges and the transport's
// one lock, mu, which guards the record and the rest of the transport's state.
type exchangeRecord struct {
	mu        sync.Mutex
	exchanges []Exchange
}

// Exchanges returns a copy of the record of every HTTP exchange so far.
func (r *exchangeRecord) Exchanges() []Exchange { return r.ExchangesFrom(0) }

// ExchangeCount is how many exchanges the record holds.
func (r *exchangeRecord) ExchangeCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.exchanges)
}

// ExchangesFrom returns a copy of the record of the exchanges after the first n.
func (r *exchangeRecord) ExchangesFrom(n int) []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return copyExchanges(r.exchanges[min(max(n, 0), len(r.exchanges)):])
}

// withBody records a non-2xx reply's body in exchange idx and returns its error.
func (r *exchangeRecord) withBody(idx int, se *HTTPStatusError) *HTTPStatusError {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exchanges[idx].Body = se.Body
	return se
}

// copyExchanges snapshots a record: what is updated after the exchange is
// recorded (a stream's summary) is copied, and the headers, which never are, are
// shared. A check reads the record many times (a session's hundreds of exchanges):
// cloning every header map each time was 6 % of an HTTP run's CPU.
func copyExchanges(xs []Exchange) []Exchange {
	out := make([]Exchange, len(xs))
	for i, x := range xs {
		if x.Stream != nil {
			s := *x.Stream
			s.IDs = append([]string(nil), s.IDs...)
			x.Stream = &s
		}
		out[i] = x
	}
	return out
}

// drain reads and discards a bounded amount of a body so the connection can be reused.
func drain(r io.Reader) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r, maxErrorBody))
}
