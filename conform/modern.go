package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// The reserved _meta keys of 2026-07-28 (basic/index.mdx, Reserved Keys) that the
// suite sends or reads.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// The error codes 2026-07-28 added (basic/index.mdx, Error Codes).
const (
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
)

// ModernMeta is the per-request metadata a correct 2026-07-28 client stamps into
// every request: the version, and the client's capabilities (the suite declares none).
func ModernMeta(version string) map[string]any {
	return map[string]any{MetaProtocolVersion: version, MetaClientCapabilities: map[string]any{}}
}

// modernDriver opens a 2026-07-28 "session": there is no handshake and no server-side
// session, so it is one transport (on stdio, the column's one process) whose every
// request carries the version and capabilities in _meta (and, over Streamable HTTP,
// the standard request headers derived from the body). Opening it is the era probe of
// era detection (2026-07-28 basic/versioning.mdx): server/discover first; a DiscoverResult, or the modern error
// -32022, means a modern server; any other error, or silence, means a legacy one, and
// the column is revision-unsupported (never a failure).
type modernDriver struct{}

// errNotModern marks a server that did not answer server/discover the modern way.
var errNotModern = errors.New("the server did not answer server/discover as a 2026-07-28 server")

func (modernDriver) open(ctx context.Context, tgt target, requested string, rev revision.Revision, opts sessionOptions) (*Session, error) {
	s, tr, err := openTransport(ctx, tgt, requested, rev, opts, wire.Options{Meta: ModernMeta(requested), BarrierMethod: "server/discover"})
	var sseFailed *transport.OpeningError
	if errors.As(err, &sseFailed) {
		// The target serves HTTP+SSE, whose event stream did not open: whatever
		// broke it, 2026-07-28 does not run over that transport.
		s.InitErr = &initError{stage: "discover", err: fmt.Errorf("%w: the URL serves the legacy HTTP+SSE transport (%w)", errNotModern, err)}
		return s, s.InitErr
	}
	if err != nil {
		return s, err
	}
	if s.Kind == "sse" {
		// HTTP+SSE is a 2024-11-05 transport; 2026-07-28 runs over stdio and
		// Streamable HTTP only (basic/transports/index.mdx).
		s.InitErr = &initError{stage: "discover", err: fmt.Errorf("%w: the URL serves the legacy HTTP+SSE transport", errNotModern)}
		return s, s.InitErr
	}
	if hs, ok := tr.(interface{ SetModern(string) }); ok {
		hs.SetModern(requested)
	}
	// A legacy server may drop a request it does not know before initialize; a ping
	// after the probe proves that silence without waiting out the timeout (a legacy
	// server answers ping at any time; a modern one answers it with an error).
	if s.Kind == "stdio" {
		s.Conn.SetBarrier(true)
		s.Conn.SetBarrierMethod("ping")
	}
	resp, err := s.Conn.Call(ctx, "server/discover", nil)
	s.Conn.SetBarrier(false)
	s.Conn.SetBarrierMethod("server/discover")
	s.Conn.SetRequestTimeout(opts.timeout)
	if r, ok := RPCErrorReply(err, "server/discover"); ok {
		resp, err = r, nil
	}
	if err != nil {
		var refused *transport.HTTPStatusError
		switch {
		case errors.Is(err, wire.ErrTimeout) || errors.Is(err, transport.ErrNoReply):
			err = fmt.Errorf("%w: no reply (%v)", errNotModern, err)
		case errors.As(err, &refused) && refused.Status == http.StatusBadRequest:
			// A legacy server refuses a protocol version it does not serve with
			// HTTP 400 (2025-06-18 basic/transports.mdx, Protocol Version Header),
			// the body optional: with no JSON-RPC error in it, the refusal is the
			// same answer as one with -32600, not a broken server. Other statuses
			// are the endpoint's own answer, which H5-ENDPOINT-01 judges.
			err = fmt.Errorf("%w: HTTP %d with no JSON-RPC error", errNotModern, refused.Status)
		}
		s.InitErr = &initError{stage: "discover", err: err}
		return s, s.InitErr
	}
	s.Init = resp
	if resp.IsError() {
		if resp.Error.Code == CodeUnsupportedVersion {
			// A modern server that does not serve this version: it names those it
			// does (data.supported), which the column reports as the answer.
			s.Negotiated = newestSupported(resp.Error.Data)
			if s.Negotiated == "" {
				s.Negotiated = "(none named)"
			}
			return s, nil
		}
		s.InitErr = &initError{stage: "discover", rpc: resp.Error, err: errNotModern}
		return s, s.InitErr
	}
	if err := json.Unmarshal(resp.Result, &s.InitResult); err != nil || s.InitResult == nil {
		s.InitErr = &initError{stage: "discover", err: fmt.Errorf("%w: the result is not an object", errNotModern)}
		return s, s.InitErr
	}
	var versions []string
	_, hasVersions := s.InitResult["supportedVersions"]
	_, hasType := s.InitResult["resultType"]
	if !hasVersions && !hasType {
		// Neither a supported-version list nor a resultType: not a DiscoverResult
		// but a lenient legacy server answering any method.
		s.InitErr = &initError{stage: "discover", err: fmt.Errorf("%w: the result has neither supportedVersions nor resultType", errNotModern)}
		return s, s.InitErr
	}
	_ = json.Unmarshal(s.InitResult["supportedVersions"], &versions)
	switch {
	case slices.Contains(versions, requested), !hasVersions || versions == nil:
		// Served, or a modern server whose DiscoverResult is malformed: the column
		// runs and MOD-DISCOVER-01 judges the result.
		s.Negotiated = requested
	default:
		s.Negotiated = newest(versions)
	}
	return s, nil
}

// newestSupported reads data.supported of -32022 and returns its newest version.
func newestSupported(data json.RawMessage) string {
	var d struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(data, &d)
	return newest(d.Supported)
}

// newest returns the greatest version string (dates compare as strings), or "".
func newest(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return slices.Max(vs)
}

// isNotModern reports whether a modern open failed because the server is not modern.
func isNotModern(err error) bool { return errors.Is(err, errNotModern) }

// IsModernRequest reports whether request params make a well-formed request of the
// modern revision version: _meta carries both per-request fields that 2026-07-28
// requires (protocolVersion, equal to version, and clientCapabilities). The rules
// about results bind the answers to such requests; a probe that leaves a field out
// or asks for another version on purpose is judged by its own check
// (MOD-META-REQUIRED-01, MOD-VERSION-UNSUPPORTED-01) alone.
func IsModernRequest(params json.RawMessage, version string) bool {
	if !rawjson.Valid(params) {
		return false
	}
	meta, ok := rawjson.Lookup(params, "_meta")
	if !ok || !rawjson.Valid(meta) {
		return false
	}
	raw, _ := rawjson.Lookup(meta, MetaProtocolVersion)
	v, _ := rawjson.StringOfValid(raw)
	_, c := rawjson.Lookup(meta, MetaClientCapabilities)
	return v == version && c
}
