package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/metakey"
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

// scratchCheck is a check whose probe sends unusual input (PhaseOddInput) on the
// revision's scratch session s, so as not to disturb the main one; it ends in
// error when the scratch session cannot be opened.
func scratchCheck(c conform.Check, run func(t *conform.T, s *conform.Session) conform.Verdict) conform.Check {
	c.Phase = conform.PhaseOddInput
	c.Run = func(t *conform.T) conform.Verdict {
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("%v", err)
		}
		return run(t, s)
	}
	return c
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
		// The session's HTTP record keeps the body too: modern.Errors reads it there.
		a.resp, a.err = r, nil
	}
	return a, nil
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

// typedError judges an answer that must be the error object schemaType of the
// session's revision with code (over HTTP with status 400), and decodes its data into
// data. It returns the failing verdict, or nil when the error is well formed and
// the caller may judge the data.
func (a probeAnswer) typedError(s *conform.Session, want string, code int, schemaType string, data any) *conform.Verdict {
	var v conform.Verdict
	if a.err != nil {
		v = conform.Silence(want, a.err)
		return &v
	}
	if p := a.rejected(s.Kind, code); p != "" {
		v = conform.Violation(want, p)
		return &v
	}
	if err := s.Rev.Validate(schemaType, json.RawMessage(a.resp.Msg.Raw)); err != nil {
		v = conform.Violation(want+", valid under the "+s.Rev.Name+" schema", err.Error())
		return &v
	}
	_ = json.Unmarshal(a.resp.Error.Data, data)
	return nil
}

// probeMethod is the request the _meta probes send: tools/list, as the catalogue row names
// it, when the server declares tools; otherwise server/discover, which every modern
// server implements.
func probeMethod(s *conform.Session) string {
	if _, ok := s.Capabilities()["tools"]; ok {
		return "tools/list"
	}
	return "server/discover"
}

// unsupportedVersion is a protocol version no server implements.
const unsupportedVersion = "1999-01-01"

// extensionIDProblem checks an extension identifier against the _meta key naming
// rules with a mandatory prefix (2026-07-28/basic/index.mdx, _meta); the rules are
// shared with BASE-META-KEYS-01 (suites/internal/metakey).
func extensionIDProblem(id string) string { return metakey.ExtensionIDProblem(id) }

// legacyInitVersion is the legacy version MOD-LEGACY-INIT-01's initialize asks for.
const legacyInitVersion = "2025-11-25"

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
		return conform.Violation(want, fmt.Sprintf("%s %q names none of %s", what, conform.Clip(text, 120), strings.Join(supported, ", ")))
	}
	return conform.Pass("%s naming %s", what, strings.Join(named, ", "))
}
