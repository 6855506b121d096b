package transport

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// The request headers of the 2026-07-28 Streamable HTTP transport (Standard Request
// Headers): every POST names its protocol version and JSON-RPC method, and the
// requests that address a tool, prompt or resource name it too, so that proxies can
// route without reading the body.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// metaProtocolVersion is the _meta key carrying a modern request's protocol version.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// SetModern switches the transport to the stateless era of 2026-07-28: no session is
// adopted (an offered Mcp-Session-Id is recorded in the exchange, never sent back),
// every POST carries the standard request headers derived from its body
// (ModernHeaders), and a request's SSE stream can be closed on its own (CancelStream),
// which is how that era cancels a request over HTTP. version is the header value
// used when a message carries no _meta protocolVersion (notifications).
func (t *StreamableHTTP) SetModern(version string) {
	t.mu.Lock()
	t.modern, t.version = true, version
	t.mu.Unlock()
}

// headersKey carries per-request header overrides through a context.
type headersKey struct{}

// WithHeaders returns a context whose Send over Streamable HTTP or HTTP+SSE applies h
// to the POST after the transport's own headers: a value replaces the derived one, and
// a name mapped to an empty slice removes the header. Probes of the header rules use
// it to send what a correct client never would (a mismatched Mcp-Method, a missing
// MCP-Protocol-Version or Mcp-Session-Id, a foreign Origin); stdio ignores it.
func WithHeaders(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, headersKey{}, h)
}

func headersFrom(ctx context.Context) http.Header {
	h, _ := ctx.Value(headersKey{}).(http.Header)
	return h
}

// applyOverrides sets or removes the headers a probe asked for. A name is kept as
// spelled in h (not canonicalised), so that a probe can send "mcp-method" in lower
// case: header names are case-insensitive, and a server must treat it as Mcp-Method.
func applyOverrides(req *http.Request, h http.Header) {
	for name, vals := range h {
		for k := range req.Header {
			if strings.EqualFold(k, name) {
				delete(req.Header, k)
			}
		}
		if len(vals) > 0 {
			req.Header[name] = append([]string(nil), vals...)
		}
	}
}

// overrideNames lists the header names h sets or removes, sorted (nil for none).
func overrideNames(h http.Header) []string {
	if len(h) == 0 {
		return nil
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Probe sends one bodiless request with the given HTTP method (GET, DELETE) to the
// endpoint, carrying the transport's headers plus h (as WithHeaders applies them),
// records the exchange, and returns it without reading the reply further than its
// head and a bounded body: the 2026-07-28 probes of what a modern-only server does
// with an older client's GET stream or session DELETE. A reply stream is closed at
// once, never read.
func (t *StreamableHTTP) Probe(ctx context.Context, method string, h http.Header) (Exchange, error) {
	if !t.enter() {
		return Exchange{}, fmt.Errorf("%s %s: %w", method, t.safeURL, ErrClosed)
	}
	defer t.wg.Done()
	rs := t.newRequestScope(ctx)
	defer rs.release()
	req, err := t.newRequest(rs.ctx, method, t.url.String(), nil)
	if err != nil {
		return Exchange{}, err
	}
	t.setMCPHeaders(req)
	req.Header.Set("Accept", "application/json, text/event-stream")
	applyOverrides(req, h)
	resp, err := t.client.Do(req)
	if err != nil {
		return Exchange{}, t.requestErr(ctx, method, t.safeURL, err)
	}
	defer resp.Body.Close()
	x := t.scrubExchange(newExchange(method, resp))
	t.record(x)
	if mediaType(resp.Header) != "text/event-stream" {
		defer t.bodyTimer(rs.cancelCause).Stop()
		drain(resp.Body)
	}
	return x, nil
}

// modernEnvelope is what the modern headers are derived from.
type modernEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		// Name and URI stay raw: a header mirrors them only when they are strings
		// (see nameSource).
		Name json.RawMessage `json:"name"`
		URI  json.RawMessage `json:"uri"`
		Meta map[string]any  `json:"_meta"`
	} `json:"params"`
}

// nameSource returns the string a body field holds and whether it holds one. The
// Mcp-Name header mirrors params.name or params.uri; a body without that field, or
// with a non-string there (a malformed-request probe), has no value to mirror, so the
// header is left out rather than sent empty, which would claim the name is "".
func nameSource(raw json.RawMessage) (string, bool) {
	var v string
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// ModernHeaders returns the standard request headers a correct 2026-07-28 client
// sends with body: MCP-Protocol-Version (the body's _meta version, else fallback),
// Mcp-Method, and Mcp-Name for tools/call and prompts/get (params.name) and
// resources/read (params.uri) when that field is a string. A body that is not one
// JSON-RPC object gets only the version header.
func ModernHeaders(body []byte, fallback string) http.Header {
	h := http.Header{}
	var env modernEnvelope
	_ = json.Unmarshal(body, &env) // a malformed probe gets the headers it can
	version := fallback
	if v, ok := env.Params.Meta[metaProtocolVersion].(string); ok {
		version = v
	}
	if version != "" {
		h.Set(HeaderProtocolVersion, EncodeHeaderValue(version))
	}
	if env.Method != "" {
		h.Set(HeaderMethod, EncodeHeaderValue(env.Method))
	}
	var src json.RawMessage
	switch env.Method {
	case "tools/call", "prompts/get":
		src = env.Params.Name
	case "resources/read":
		src = env.Params.URI
	}
	if name, ok := nameSource(src); ok {
		h.Set(HeaderName, EncodeHeaderValue(name))
	}
	return h
}

// The markers of an encoded header value (2026-07-28 Value Encoding).
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// EncodeHeaderValue returns v as a header value: unchanged when it is printable
// ASCII without leading or trailing whitespace, otherwise in the =?base64?…?= form
// that 2026-07-28 (Value Encoding) defines for values a header cannot carry as they
// are. A plain value that looks encoded is encoded too: "clients MUST also
// Base64-encode any plain-ASCII value that matches the sentinel pattern", or the
// server would decode it into something else.
func EncodeHeaderValue(v string) string {
	sentinel := strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix)
	plain := !sentinel && v == strings.TrimSpace(v)
	for i := 0; plain && i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			plain = false
		}
	}
	if plain {
		return v
	}
	return base64Prefix + base64.StdEncoding.EncodeToString([]byte(v)) + base64Suffix
}

// requestKey is the identity of a request's POST stream: the raw id bytes, or "" for
// a message without an id.
func requestKey(body []byte) (key, method string) {
	// Only the two members are decoded: a probe's malformed params must not cost
	// its stream its key.
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(body, &env) != nil {
		return "", ""
	}
	_ = json.Unmarshal(env.Method, &method) // a method that is not a string has none
	return string(env.ID), method
}

// openStream is a POST whose SSE reply is still being read.
type openStream struct {
	method string // the JSON-RPC method of the request
	cancel context.CancelFunc
}

// CancelStream closes the SSE stream of the request whose raw JSON id is rawID and
// reports whether one was open. In 2026-07-28 closing a request's stream is its
// cancellation over HTTP.
func (t *StreamableHTTP) CancelStream(rawID string) bool {
	t.mu.Lock()
	s, ok := t.streams[rawID]
	t.mu.Unlock()
	if ok {
		s.cancel()
	}
	return ok
}

// trackStream remembers an open request stream for CancelStream and Drain.
func (t *StreamableHTTP) trackStream(key, method string, cancel context.CancelFunc) {
	if key == "" {
		return
	}
	t.mu.Lock()
	if t.streams == nil {
		t.streams = map[string]openStream{}
	}
	t.streams[key] = openStream{method: method, cancel: cancel}
	t.mu.Unlock()
}

func (t *StreamableHTTP) untrackStream(key string) {
	if key == "" {
		return
	}
	t.mu.Lock()
	delete(t.streams, key)
	t.mu.Unlock()
}

// cancelListens closes every subscriptions/listen stream still open: they have no
// end of their own, so a drain that waited for them would only wait out its bound.
func (t *StreamableHTTP) cancelListens() {
	t.mu.Lock()
	var cancels []context.CancelFunc
	for _, s := range t.streams {
		if s.method == "subscriptions/listen" {
			cancels = append(cancels, s.cancel)
		}
	}
	t.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}
