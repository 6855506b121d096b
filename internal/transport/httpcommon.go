package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

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
}

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

// statusError reads up to 64 KiB of a non-2xx reply into an HTTPStatusError.
func (h *httpBase) statusError(resp *http.Response) *HTTPStatusError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return &HTTPStatusError{
		Status:      resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"),
		Body:        h.redact(body),
	}
}

// readBody reads a reply body, keeping at most max bytes; long says it was longer.
// The body it returns is its own, sized to fit: a declared length sizes it at once;
// a body of unknown length (chunked, as Go's own servers send anything over a few
// kilobytes) is read into a pooled scratch buffer and copied out once, instead of
// growing a new buffer from 512 bytes for every reply.
func readBody(r io.Reader, size int64, max int) (body []byte, long bool, err error) {
	lr := io.LimitReader(r, int64(max)+1)
	if size >= 0 && size <= int64(max) {
		// A server that sends more or less than it declared is read to the end all
		// the same; the extra byte lets the end be seen without growing.
		body, err = readInto(lr, make([]byte, 0, size+1))
	} else {
		scratch := bodyScratch.Get().(*[]byte)
		buf, rerr := readInto(lr, (*scratch)[:0])
		body, err = bytes.Clone(buf), rerr
		*scratch = buf
		bodyScratch.Put(scratch)
	}
	if len(body) > max {
		return body[:max], true, err
	}
	return body, false, err
}

// bodyScratch holds the buffers readBody reads bodies of unknown length into.
var bodyScratch = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// readInto appends r to buf until EOF (not an error) or an error.
func readInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

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

// copyExchanges deep-copies a record.
func copyExchanges(xs []Exchange) []Exchange {
	out := make([]Exchange, len(xs))
	for i, x := range xs {
		x.Header = x.Header.Clone()
		if x.Stream != nil {
			s := *x.Stream
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
