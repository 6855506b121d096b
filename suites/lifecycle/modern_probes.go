package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The 2026-07-28 rules probed with requests of the suite's own making: per-request
// _meta left out or wrong, removed methods, a legacy initialize on the modern
// connection.

// probeAnswer is the answer to one probe: the reply (an HTTP error status carrying a
// JSON-RPC error is turned into that error) and the HTTP status (0 on stdio or when
// the server answered 2xx).
type probeAnswer struct {
	resp   *wire.Response
	err    error // nil when there is a reply
	status int
}

// callWithMeta sends method with params whose _meta is exactly meta (nil: no _meta at
// all), bypassing the session's own stamping, and returns the answer.
func callWithMeta(t *conform.T, s *conform.Session, method string, params map[string]any, meta map[string]any) (probeAnswer, error) {
	return callWithMetaIn(t.Ctx, s, method, params, meta)
}

// callWithMetaIn is callWithMeta with a context of its own (for header overrides).
func callWithMetaIn(ctx context.Context, s *conform.Session, method string, params map[string]any, meta map[string]any) (probeAnswer, error) {
	p := maps.Clone(params)
	if p == nil {
		p = map[string]any{}
	}
	if meta != nil {
		p["_meta"] = meta
	}
	id := s.Conn.NextID()
	raw, err := wire.EncodeRequest(id, method, p)
	if err != nil {
		return probeAnswer{}, fmt.Errorf("encode %s: %w", method, err)
	}
	resp, err := s.Conn.CallRaw(ctx, id, method, raw)
	a := probeAnswer{resp: resp, err: err}
	var se *transport.HTTPStatusError
	if errors.As(err, &se) {
		a.status = se.Status
	}
	if r, ok := conform.RPCErrorReply(err, method); ok {
		a.resp, a.err = r, nil
		if meta != nil { // a legacy request's answer is not held to the modern rules
			recordHTTPError(s, seenError{where: fmt.Sprintf("%s HTTP %d (%s)", s.Label, a.status, method), code: r.Error.Code, data: r.Error.Data, status: a.status})
		}
	}
	return a, nil
}

// httpErrors keeps, per session, the JSON-RPC errors the probes received with an
// HTTP error status: they are no messages of the transcript, and the observed
// error-code checks judge them too.
var httpErrors = struct {
	sync.Mutex
	bySession map[*conform.Session][]seenError
}{bySession: map[*conform.Session][]seenError{}}

func recordHTTPError(s *conform.Session, e seenError) {
	httpErrors.Lock()
	defer httpErrors.Unlock()
	httpErrors.bySession[s] = append(httpErrors.bySession[s], e)
}

func recordedHTTPErrors(s *conform.Session) []seenError {
	httpErrors.Lock()
	defer httpErrors.Unlock()
	return slices.Clone(httpErrors.bySession[s])
}

// describe says what the probe got, for a verdict.
func (a probeAnswer) describe() string {
	d := conform.Describe(a.resp, a.err)
	if a.status != 0 && a.err == nil {
		d = fmt.Sprintf("HTTP %d, %s", a.status, d)
	}
	return d
}

// rejected judges an answer that must be JSON-RPC error code (over HTTP with status
// 400): "" when it is, otherwise what was wrong. The verdict for silence and a dead
// transport is the caller's (answer.err set).
func (a probeAnswer) rejected(kind string, code int) string {
	switch {
	case a.resp == nil:
		return ""
	case !a.resp.IsError():
		return "a result: " + a.describe()
	case a.resp.Error.Code != code:
		return fmt.Sprintf("error %d %q, not %d", a.resp.Error.Code, conform.Clip(a.resp.Error.Message, 80), code)
	case kind != "stdio" && a.status != 400:
		status := "2xx"
		if a.status != 0 {
			status = fmt.Sprint(a.status)
		}
		return fmt.Sprintf("error %d with HTTP status %s, not 400", code, status)
	}
	return ""
}

// probeMethod is the request the _meta probes send: tools/list, as spec-matrix names
// it, when the server declares tools; otherwise server/discover, which every modern
// server implements.
func probeMethod(s *conform.Session) string {
	if _, ok := s.Capabilities()["tools"]; ok {
		return "tools/list"
	}
	return "server/discover"
}

// MOD-META-REQUIRED-01 — 2026-07-28/basic/index.mdx (_meta, per-request fields).
var _ = conform.Register(conform.Check{
	ID: "MOD-META-REQUIRED-01", Title: "a request missing _meta protocolVersion or clientCapabilities is rejected with -32602 (HTTP 400)",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseOddInput, Needs: conform.NeedsAny,
	Source: `2026-07-28/basic/index.mdx (_meta): "A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code -32602 (Invalid params). On HTTP, the response status MUST be 400 Bad Request." (io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities are the required fields)`,
	Run: func(t *conform.T) conform.Verdict {
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("%v", err)
		}
		method := probeMethod(s)
		var bad, good []string
		// Each field left out in turn; the other stays, so that a dual-era server
		// still takes the request for a modern one (either field marks it).
		for _, key := range []string{conform.MetaProtocolVersion, conform.MetaClientCapabilities} {
			meta := s.Conn.Meta()
			delete(meta, key)
			a, err := callWithMeta(t, s, method, nil, meta)
			if err != nil {
				return conform.Errorf("%v", err)
			}
			want := fmt.Sprintf("-32602 for %s without _meta[%q]", method, key)
			if a.err != nil {
				return t.Silent(want, a.err)
			}
			if p := a.rejected(s.Kind, wire.CodeInvalidParams); p != "" {
				bad = append(bad, fmt.Sprintf("without %s: %s", key, p))
				continue
			}
			good = append(good, "without "+key)
		}
		if len(bad) > 0 {
			return t.Violation("JSON-RPC error -32602 (HTTP 400) for a request missing a required _meta field", strings.Join(bad, "; "))
		}
		return conform.Pass("%s %s: -32602 each time", method, strings.Join(good, ", "))
	},
})

// unsupportedVersion is a protocol version no server implements.
const unsupportedVersion = "1999-01-01"

// MOD-VERSION-UNSUPPORTED-01 — 2026-07-28/basic/versioning.mdx; schema UnsupportedProtocolVersionError.
var _ = conform.Register(conform.Check{
	ID: "MOD-VERSION-UNSUPPORTED-01", Title: "a request for an unimplemented protocol version gets -32022 naming the supported versions (HTTP 400)",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseOddInput, Needs: conform.NeedsAny,
	Source: `2026-07-28/basic/versioning.mdx: "If the server does not implement the requested version (whether the version is unknown to the server, or is a known version the server has chosen not to support), it MUST respond with an UnsupportedProtocolVersionError listing the versions it does support"; schema UnsupportedProtocolVersionError: code -32022, data {supported, requested} required; "For HTTP, the response status code MUST be 400 Bad Request."`,
	Run: func(t *conform.T) conform.Verdict {
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("%v", err)
		}
		method := probeMethod(s)
		meta := s.Conn.Meta()
		meta[conform.MetaProtocolVersion] = unsupportedVersion
		// Over Streamable HTTP the MCP-Protocol-Version header is derived from the
		// body, so header and _meta agree on the unsupported version.
		a, err := callWithMeta(t, s, method, nil, meta)
		if err != nil {
			return conform.Errorf("%v", err)
		}
		want := fmt.Sprintf("UnsupportedProtocolVersionError (-32022, data.supported, data.requested %q) for %s asking for %s", unsupportedVersion, method, unsupportedVersion)
		if a.err != nil {
			return t.Silent(want, a.err)
		}
		if p := a.rejected(s.Kind, conform.CodeUnsupportedVersion); p != "" {
			return t.Violation(want, p)
		}
		if err := s.Rev.Validate("UnsupportedProtocolVersionError", json.RawMessage(a.resp.Msg.Raw)); err != nil {
			return t.Violation(want+", valid under the "+s.Rev.Name+" schema", err.Error())
		}
		var d struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		_ = json.Unmarshal(a.resp.Error.Data, &d)
		if d.Requested != unsupportedVersion {
			return t.Violation(want, fmt.Sprintf("data.requested is %q", conform.Clip(d.Requested, 40)))
		}
		return conform.Pass("-32022, supported %v, requested %q", d.Supported, d.Requested)
	},
})

// MOD-REMOVED-01 — 2026-07-28/changelog.mdx.
var _ = conform.Register(conform.Check{
	ID: "MOD-REMOVED-01", Title: "ping, removed in 2026-07-28, is not served to a modern request",
	Level: conform.Descriptive, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseOddInput, Needs: conform.NeedsAny,
	Source: `2026-07-28/changelog.mdx: "Remove ping, logging/setLevel, and notifications/roots/list_changed." No BCP 14 key word: descriptive. A modern request for a method that does not exist is -32601 (JSON-RPC 2.0 §5.1); a result warns and never fails.`,
	Run: func(t *conform.T) conform.Verdict {
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("%v", err)
		}
		a, err := callWithMeta(t, s, "ping", nil, s.Conn.Meta())
		if err != nil {
			return conform.Errorf("%v", err)
		}
		want := "-32601 for ping with 2026-07-28 _meta (ping was removed)"
		switch {
		case a.err != nil:
			return t.Silent(want, a.err)
		case !a.resp.IsError():
			return t.Violation(want, "a result "+conform.Clip(string(a.resp.Result), 120)+": the server serves ping in 2026-07-28")
		case a.resp.Error.Code != wire.CodeMethodNotFound:
			return conform.Note("ping is not served: error %d %q (-32601 is the usual answer)", a.resp.Error.Code, conform.Clip(a.resp.Error.Message, 80))
		}
		return conform.Pass("%s", "ping: -32601 "+a.describe())
	},
})

// extensionIDProblem checks an extension identifier against the _meta key naming
// rules with a mandatory prefix (2026-07-28/basic/index.mdx, _meta): labels
// separated by dots, a slash, then a name; labels start with a letter and end with a
// letter or digit; the name begins and ends with an alphanumeric character.
func extensionIDProblem(id string) string {
	prefix, name, ok := strings.Cut(id, "/")
	if !ok || prefix == "" {
		return "no prefix (labels followed by a slash)"
	}
	for _, l := range strings.Split(prefix, ".") {
		if !validLabel(l) {
			return fmt.Sprintf("prefix label %q does not start with a letter, end with a letter or digit and hold only letters, digits and hyphens", l)
		}
	}
	if name == "" || !validName(name) {
		return fmt.Sprintf("name %q does not begin and end with an alphanumeric character (with -, _, . and alphanumerics between)", name)
	}
	return ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func validLabel(l string) bool {
	if l == "" || !isLetter(l[0]) || !(isLetter(l[len(l)-1]) || isDigit(l[len(l)-1])) {
		return false
	}
	for i := range len(l) {
		if c := l[i]; !isLetter(c) && !isDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

func validName(n string) bool {
	alnum := func(c byte) bool { return isLetter(c) || isDigit(c) }
	if !alnum(n[0]) || !alnum(n[len(n)-1]) {
		return false
	}
	for i := range len(n) {
		if c := n[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// MOD-EXT-01 — 2026-07-28/basic/versioning.mdx (Extension Negotiation).
var _ = conform.Register(conform.Check{
	ID: "MOD-EXT-01", Title: "capabilities.extensions is keyed by prefixed _meta-style identifiers with object values",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `2026-07-28/basic/versioning.mdx (Extension Negotiation): "Extension identifiers MUST follow the _meta key naming rules, with a mandatory prefix."; extensions is "a map of extension identifiers to per-extension settings objects"`,
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		if s.Init == nil || s.Init.IsError() {
			return conform.Skip(reports.NotApplicable, "no DiscoverResult to read capabilities from (MOD-DISCOVER-01 judges server/discover)")
		}
		raw, ok := s.Capabilities()["extensions"]
		if !ok {
			return conform.Skip(reports.NotApplicable, "the server advertises no capabilities.extensions")
		}
		var ext map[string]json.RawMessage
		if json.Unmarshal(raw, &ext) != nil || ext == nil {
			return t.Violation("capabilities.extensions an object", conform.Clip(string(raw), 80))
		}
		var bad []string
		keys := slices.Sorted(maps.Keys(ext))
		for _, k := range keys {
			if p := extensionIDProblem(k); p != "" {
				bad = append(bad, fmt.Sprintf("%q: %s", k, p))
			}
			if v := strings.TrimSpace(string(ext[k])); v == "" || v[0] != '{' {
				bad = append(bad, fmt.Sprintf("%q: the value %s is not an object", k, conform.Clip(v, 40)))
			}
		}
		if len(bad) > 0 {
			return t.Violation("prefixed extension identifiers with settings objects", conform.JoinAtMost(bad, 3))
		}
		return conform.Pass("extensions %s", strings.Join(keys, ", "))
	},
})

// legacyInitVersion is the legacy version MOD-LEGACY-INIT-01's initialize asks for.
const legacyInitVersion = "2025-11-25"

// MOD-LEGACY-INIT-01 (and MOD-DUAL-ERA-01) — 2026-07-28/basic/versioning.mdx.
var _ = conform.Register(conform.Check{
	ID: "MOD-LEGACY-INIT-01", Title: "a modern-only server answers a legacy initialize with an error naming its supported versions",
	Level: conform.Should, Revisions: revision.Span("R5"), Group: conform.GroupModern, Needs: conform.NeedsAny,
	// An initialize may switch the stdio process to legacy semantics (versioning.mdx:
	// "An initialize request selects legacy semantics, scoped to the stdio process"):
	// it is sent after every other probe of the column. The "era" area ranks with
	// the observed ones, after every other area's odd-input checks.
	Phase:  conform.PhaseOddInput,
	Source: `2026-07-28/basic/versioning.mdx: "A server that supports only modern versions SHOULD name the protocol versions it supports in any error it returns to an initialize request, on any transport"; "A dual-era server MAY serve both eras concurrently on the same endpoint or process." (MOD-DUAL-ERA-01: a successful initialize is that MAY, not-applicable here)`,
	Run: func(t *conform.T) conform.Verdict {
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("%v", err)
		}
		params := map[string]any{
			"protocolVersion": legacyInitVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "mcp-conform", "version": "legacy-probe"},
		}
		// A legacy client sends none of the 2026-07-28 request headers: over
		// Streamable HTTP they are removed, so that only the body speaks.
		ctx := transport.WithHeaders(t.Ctx, http.Header{
			transport.HeaderProtocolVersion: {}, transport.HeaderMethod: {}, transport.HeaderName: {},
		})
		a, err := callWithMetaIn(ctx, s, "initialize", params, nil)
		if err != nil {
			return conform.Errorf("%v", err)
		}
		want := "an error naming the supported 2026-07-28 versions for a legacy initialize"
		if a.err != nil {
			var se *transport.HTTPStatusError
			if errors.As(a.err, &se) {
				// An HTTP error status without a JSON-RPC body: the body is the message.
				return judgeLegacyInitError(t, want, fmt.Sprintf("HTTP %d", se.Status), string(se.Body), supportedVersions(s))
			}
			return t.Silent(want, a.err)
		}
		if !a.resp.IsError() {
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(a.resp.Result, &r)
			return conform.Skip(reports.NotApplicable, "the server also serves the legacy era (MOD-DUAL-ERA-01, MAY): initialize on the 2026-07-28 connection succeeded with protocolVersion %q", conform.Clip(r.ProtocolVersion, 40))
		}
		if v := legacyListed(supportedVersions(s)); v != "" {
			// The SHOULD binds a server "that supports only modern versions"; a
			// dual-era one selects the era by how the client opened the
			// connection (versioning.mdx), and this one was opened modern.
			return conform.Skip(reports.NotApplicable, "the server is dual-era (server/discover lists %s), and refused initialize on a connection opened with 2026-07-28 (error %d %q): the row binds modern-only servers", v, a.resp.Error.Code, conform.Clip(a.resp.Error.Message, 80))
		}
		text := a.resp.Error.Message + " " + string(a.resp.Error.Data)
		return judgeLegacyInitError(t, want, fmt.Sprintf("error %d", a.resp.Error.Code), text, supportedVersions(s))
	},
})

// legacyListed returns the first legacy revision among versions ("" when none).
func legacyListed(versions []string) string {
	for _, v := range versions {
		if r, ok := revision.Lookup(v); ok && r.Era == revision.Legacy {
			return v
		}
	}
	return ""
}

// supportedVersions reads supportedVersions of the column's DiscoverResult.
func supportedVersions(s *conform.Session) []string {
	var vs []string
	_ = json.Unmarshal(s.InitResult["supportedVersions"], &vs)
	return vs
}

// judgeLegacyInitError wants the refusal's text (message and data) to name at least
// one version the server supports (its DiscoverResult's list; the revision's own
// name when the list is unknown).
func judgeLegacyInitError(t *conform.T, want, what, text string, supported []string) conform.Verdict {
	if len(supported) == 0 {
		supported = []string{t.Rev.Name}
	}
	var named []string
	for _, v := range supported {
		if strings.Contains(text, v) {
			named = append(named, v)
		}
	}
	if len(named) == 0 {
		return t.Violation(want, fmt.Sprintf("%s %q names none of %s", what, conform.Clip(text, 120), strings.Join(supported, ", ")))
	}
	return conform.Pass("%s naming %s", what, strings.Join(named, ", "))
}
