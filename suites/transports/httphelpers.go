package transports

// The HTTP helpers every HTTP transport's checks share (Streamable HTTP of 2025-03-26
// to 2025-11-25, its 2026-07-28 form, and HTTP+SSE): a probe is one request whose
// headers transport.WithHeaders overrides, and its status and reply headers are read
// from the transport's record of exchanges.

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// prober sends a bare GET or DELETE (transport.StreamableHTTP.Probe).
type prober interface {
	Probe(ctx context.Context, method string, h http.Header) (transport.Exchange, error)
}

// httpReply is one probe: the JSON-RPC reply (an HTTP error status carrying a JSON-RPC
// error counts as that error), the transport error when there is none, and the
// POST's exchange (nil when none was recorded, e.g. the connection failed).
type httpReply struct {
	resp *wire.Response
	err  error
	x    *transport.Exchange
}

// status is the HTTP status of the probe's POST, 0 when none came.
func (r httpReply) status() int {
	if r.x == nil {
		return 0
	}
	return r.x.Status
}

// describe says what came back: the status and the reply.
func (r httpReply) describe() string {
	if r.x == nil {
		return conform.Describe(r.resp, r.err)
	}
	return fmt.Sprintf("HTTP %d, %s", r.x.Status, conform.Describe(r.resp, r.err))
}

// is reports whether the probe got exactly status with JSON-RPC error code.
func (r httpReply) is(status, code int) bool {
	return r.status() == status && r.err == nil && r.resp != nil && r.resp.IsError() && r.resp.Error.Code == code
}

// processed reports whether the request was served: a result came with a 2xx status.
func (r httpReply) processed() bool {
	return r.err == nil && r.resp != nil && !r.resp.IsError() && r.status() >= 200 && r.status() < 300
}

// httpCall sends method with params (stamped with the session's _meta) and the header
// overrides h, and returns the reply with the POST's exchange.
func httpCall(t *conform.T, s *conform.Session, hs transport.HTTPSession, method string, params any, h http.Header) httpReply {
	raw, err := wire.EncodeRequest(s.Conn.NextID(), method, s.Conn.Stamp(params))
	if err != nil {
		return httpReply{err: fmt.Errorf("encode %s: %w", method, err)}
	}
	return httpCallRaw(t, s, hs, method, raw, h)
}

// httpCallRaw sends raw (a request whose id it reads) with the header overrides h.
func httpCallRaw(t *conform.T, s *conform.Session, hs transport.HTTPSession, method string, raw []byte, h http.Header) httpReply {
	m, err := wire.Decode(raw)
	if err != nil {
		return httpReply{err: fmt.Errorf("probe %s: %w", method, err)}
	}
	n := hs.ExchangeCount()
	var r httpReply
	r.resp, r.err = s.Conn.CallRaw(transport.WithHeaders(t.Ctx, h), m.ID, method, raw)
	if resp, ok := conform.RPCErrorReply(r.err, method); ok {
		r.resp, r.err = resp, nil
	}
	xs := hs.ExchangesFrom(n)
	for i := range xs {
		if xs[i].Method == http.MethodPost {
			x := xs[i]
			r.x = &x
			break
		}
	}
	return r
}

// hdr builds header overrides: pairs of name and value, "" removing the header.
func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			h[kv[i]] = []string{}
			continue
		}
		h[kv[i]] = []string{kv[i+1]}
	}
	return h
}
