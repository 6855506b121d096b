package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/modern"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// MOD-DISCOVER-01 — 2026-07-28/server/discover.mdx; basic/versioning.mdx.
// The column's session is opened with server/discover (the era probe), so its reply
// is the one judged: a server that does not answer it the modern way has no
// 2026-07-28 column at all (revision-unsupported).
var _ = conform.Register(conform.Check{
	ID: "MOD-DISCOVER-01", Title: "server/discover is answered with a DiscoverResult",
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		want := "a DiscoverResult for server/discover"
		if s.Init == nil {
			return conform.Silence(want, t.ColumnErr())
		}
		if s.Init.IsError() {
			return conform.Violation(want, conform.Describe(s.Init, nil))
		}
		if err := s.Rev.Validate("DiscoverResult", json.RawMessage(s.Init.Result)); err != nil {
			return conform.Violation("a DiscoverResult valid under the "+s.Rev.Name+" schema", err.Error())
		}
		var r struct {
			ResultType string `json:"resultType"`
		}
		_ = json.Unmarshal(s.Init.Result, &r)
		if r.ResultType != "complete" {
			return conform.Violation(`resultType "complete" on the DiscoverResult`, "resultType "+conform.Clip(r.ResultType, 40))
		}
		return conform.Pass("DiscoverResult valid under the %s schema, supportedVersions include %s", s.Rev.Name, t.Rev.Name)
	},
})

// MOD-DISCOVER-INFO-01 — 2026-07-28/server/discover.mdx.
var _ = conform.Register(conform.Check{
	ID: "MOD-DISCOVER-INFO-01", Title: "the DiscoverResult names the server in _meta io.modelcontextprotocol/serverInfo",
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		want := "_meta[\"" + conform.MetaServerInfo + "\"] (name and version) in the DiscoverResult"
		switch {
		case s.Init == nil:
			return conform.Silence(want, t.ColumnErr())
		case s.Init.IsError():
			return conform.Skip(conform.NotApplicable, "server/discover was answered with error %d, not a DiscoverResult (MOD-DISCOVER-01 judges it)", s.Init.Error.Code)
		}
		if p := serverInfoProblem(s.Init.Result); p != "" {
			return conform.Violation(want, p)
		}
		return conform.Pass("serverInfo %s", conform.Clip(string(s.ServerInfo()), 120))
	},
})

// MOD-SERVERINFO-01 — 2026-07-28/basic/index.mdx (_meta, per-response fields).
var _ = conform.Register(conform.Check{
	ID: "MOD-SERVERINFO-01", Title: "every 2026-07-28 result names the server in _meta io.modelcontextprotocol/serverInfo",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var bad conform.Findings
		for _, r := range modern.Replies(t) {
			if r.Msg.Kind != wire.KindResult {
				continue
			}
			bad.Judged++
			if p := serverInfoProblem(r.Msg.Result); p != "" {
				bad.Fail(fmt.Sprintf("%s (%s): %s", r.Where, r.Method, p))
			}
		}
		return bad.VerdictOrNone("no result was received in this revision's sessions",
			fmt.Sprintf("_meta serverInfo in every result (%d of %d lack it)", bad.Count(), bad.Judged),
			fmt.Sprintf("%d results, each with _meta serverInfo", bad.Judged))
	},
})

// MOD-NO-SERVER-REQ-01 — 2026-07-28/basic/patterns/index.mdx.
var _ = conform.Register(conform.Check{
	ID: "MOD-NO-SERVER-REQ-01", Title: "the server sends no JSON-RPC request to the client",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		reqs, _ := modern.ServerRequests(t, false)
		return reqs.VerdictOrNone("no message was received in this revision's sessions",
			fmt.Sprintf("no server-to-client request (input is asked for with an InputRequiredResult); got %d", reqs.Count()),
			fmt.Sprintf("%d messages received, none a request", reqs.Judged))
	},
})

// MOD-META-REQUIRED-01 — 2026-07-28/basic/index.mdx (_meta, per-request fields).
var _ = conform.Register(scratchCheck(conform.Check{
	ID: "MOD-META-REQUIRED-01", Title: "a request missing _meta protocolVersion or clientCapabilities is rejected with -32602 (HTTP 400)",
}, func(t *conform.T, s *conform.Session) conform.Verdict {
	method := probeMethod(s)
	var bad conform.Findings
	var good []string
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
			return conform.Silence(want, a.err)
		}
		if p := a.rejected(s.Kind, wire.CodeInvalidParams); p != "" {
			bad.Fail(fmt.Sprintf("without %s: %s", key, p))
			continue
		}
		good = append(good, "without "+key)
	}
	if bad.Failed() {
		return bad.Violation("JSON-RPC error -32602 (HTTP 400) for a request missing a required _meta field")
	}
	return conform.Pass("%s %s: -32602 each time", method, strings.Join(good, ", "))
}))

// MOD-VERSION-UNSUPPORTED-01 — 2026-07-28/basic/versioning.mdx; schema UnsupportedProtocolVersionError.
var _ = conform.Register(scratchCheck(conform.Check{
	ID: "MOD-VERSION-UNSUPPORTED-01", Title: "a request for an unimplemented protocol version gets -32022 naming the supported versions (HTTP 400)",
}, func(t *conform.T, s *conform.Session) conform.Verdict {
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
	var d struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	if v := a.typedError(s, want, conform.CodeUnsupportedVersion, "UnsupportedProtocolVersionError", &d); v != nil {
		return *v
	}
	if d.Requested != unsupportedVersion {
		return conform.Violation(want, fmt.Sprintf("data.requested is %q", conform.Clip(d.Requested, 40)))
	}
	return conform.Pass("-32022, supported %v, requested %q", d.Supported, d.Requested)
}))

// MOD-REMOVED-01 — 2026-07-28/changelog.mdx.
var _ = conform.Register(scratchCheck(conform.Check{
	ID: "MOD-REMOVED-01", Title: "ping, removed in 2026-07-28, is not served to a modern request",
}, func(t *conform.T, s *conform.Session) conform.Verdict {
	a, err := callWithMeta(t, s, "ping", nil, s.Conn.Meta())
	if err != nil {
		return conform.Errorf("%v", err)
	}
	want := "-32601 for ping with 2026-07-28 _meta (ping was removed)"
	switch {
	case a.err != nil:
		return conform.Silence(want, a.err)
	case !a.resp.IsError():
		return conform.Violation(want, "a result "+conform.ClipBytes(a.resp.Result, 120)+": the server serves ping in 2026-07-28")
	case a.resp.Error.Code != wire.CodeMethodNotFound:
		return conform.Note("ping is not served: error %d %q (-32601 is the usual answer)", a.resp.Error.Code, conform.Clip(a.resp.Error.Message, 80))
	}
	return conform.Pass("%s", "ping: -32601 "+a.describe())
}))

// MOD-EXT-01 — 2026-07-28/basic/versioning.mdx (Extension Negotiation).
var _ = conform.Register(conform.Check{
	ID: "MOD-EXT-01", Title: "capabilities.extensions is keyed by prefixed _meta-style identifiers with object values",
	Run: func(t *conform.T) conform.Verdict {
		s := settledSession(t, "no DiscoverResult to read capabilities from (MOD-DISCOVER-01 judges server/discover)")
		raw, ok := s.Capabilities()["extensions"]
		if !ok {
			return conform.Skip(conform.NotApplicable, "the server advertises no capabilities.extensions")
		}
		var ext map[string]json.RawMessage
		if json.Unmarshal(raw, &ext) != nil || ext == nil {
			return conform.Violation("capabilities.extensions an object", conform.ClipBytes(raw, 80))
		}
		var bad conform.Findings
		keys := slices.Sorted(maps.Keys(ext))
		for _, k := range keys {
			if p := extensionIDProblem(k); p != "" {
				bad.Fail(fmt.Sprintf("%q: %s", k, p))
			}
			if v := strings.TrimSpace(string(ext[k])); v == "" || v[0] != '{' {
				bad.Fail(fmt.Sprintf("%q: the value %s is not an object", k, conform.Clip(v, 40)))
			}
		}
		if bad.Failed() {
			return bad.Violation("prefixed extension identifiers with settings objects")
		}
		return conform.Pass("extensions %s", strings.Join(keys, ", "))
	},
})

// MOD-LEGACY-INIT-01 (and MOD-DUAL-ERA-01) — 2026-07-28/basic/versioning.mdx.
// An initialize may switch the stdio process to legacy semantics (versioning.mdx:
// "An initialize request selects legacy semantics, scoped to the stdio process"):
// it is sent after every other probe of the column. The "era" area ranks with the
// observed ones, after every other area's odd-input checks (PhaseOddInput).
var _ = conform.Register(scratchCheck(conform.Check{
	ID: "MOD-LEGACY-INIT-01", Title: "a modern-only server answers a legacy initialize with an error naming its supported versions",
}, func(t *conform.T, s *conform.Session) conform.Verdict {
	params := conform.InitializeParams(legacyInitVersion, "legacy-probe")
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
	// The SHOULD binds a server "that supports only modern versions": a
	// dual-era one is not bound, whatever it answered.
	if dual := modern.DualEra(t); dual != "" {
		return conform.Skip(conform.NotApplicable, "the server also serves the legacy era (%s); the row binds modern-only servers (initialize on the 2026-07-28 connection: %s)", dual, legacyInitAnswer(a))
	}
	if a.err != nil {
		var se *transport.HTTPStatusError
		if errors.As(a.err, &se) {
			// An HTTP error status without a JSON-RPC body: the body is the message.
			return judgeLegacyInitError(t, want, fmt.Sprintf("HTTP %d", se.Status), string(se.Body), supportedVersions(s))
		}
		return conform.Silence(want, a.err)
	}
	if !a.resp.IsError() {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(a.resp.Result, &r)
		return conform.Skip(conform.NotApplicable, "the server also serves the legacy era (MOD-DUAL-ERA-01, MAY): initialize on the 2026-07-28 connection succeeded with protocolVersion %q", conform.Clip(r.ProtocolVersion, 40))
	}
	text := a.resp.Error.Message + " " + string(a.resp.Error.Data)
	return judgeLegacyInitError(t, want, fmt.Sprintf("error %d", a.resp.Error.Code), text, supportedVersions(s))
}))

// legacyInitAnswer says in a few words how MOD-LEGACY-INIT-01's initialize was answered.
func legacyInitAnswer(a probeAnswer) string {
	var se *transport.HTTPStatusError
	switch {
	case errors.As(a.err, &se):
		return fmt.Sprintf("HTTP %d", se.Status)
	case a.err != nil:
		return a.err.Error()
	case a.resp.IsError():
		return fmt.Sprintf("error %d %q", a.resp.Error.Code, conform.Clip(a.resp.Error.Message, 80))
	}
	return "a result"
}

// MOD-CAP-MISSING-01 — 2026-07-28/basic/index.mdx (_meta); schema MissingRequiredClientCapabilityError.
var _ = conform.Register(conform.Check{
	ID: "MOD-CAP-MISSING-01", Title: "a request that needs an undeclared client capability gets -32021 naming it (HTTP 400)",
	Run: func(t *conform.T) conform.Verdict {
		fixtureTool(t, toolRequiresElicitation)
		s := t.Session()
		u := firstUndeclaredCall(t)
		a, err := u.a, u.err
		if err != nil {
			return conform.Errorf("%v", err)
		}
		want := "-32021 with data.requiredCapabilities naming elicitation, for " + toolRequiresElicitation + " called with clientCapabilities {}"
		var d struct {
			Required map[string]json.RawMessage `json:"requiredCapabilities"`
		}
		if v := a.typedError(s, want, conform.CodeMissingCapability, "MissingRequiredClientCapabilityError", &d); v != nil {
			return *v
		}
		if _, ok := d.Required["elicitation"]; !ok {
			return conform.Violation(want, "data.requiredCapabilities is "+conform.ClipBytes(a.resp.Error.Data, 80))
		}
		return conform.Pass("-32021, data %s", conform.ClipBytes(a.resp.Error.Data, 120))
	},
})

// MOD-STATELESS-01 — 2026-07-28/basic/index.mdx (Statelessness).
var _ = conform.Register(conform.Check{
	ID: "MOD-STATELESS-01", Title: "the server does not carry context from earlier requests on the connection",
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		if _, ok := s.Capabilities()["tools"]; !ok {
			return conform.Skip(conform.NotApplicable, "the server declares no tools capability: tools/list, the request compared, is not served")
		}
		// Before: the session's listing (toolkit.List), taken before any request of
		// this check declared other capabilities.
		before, ok := listedNames(toolkit.List(t))
		if !ok {
			return conform.Skip(conform.NotExercised, "tools/list did not complete (TOOLS-LIST rows judge it)")
		}
		var bad conform.Findings
		fixture := ""
		if v := fixtureVerdict(t, toolRequiresElicitation); v == nil {
			// Undeclared, declared, undeclared again: only a server that refuses the
			// first (MOD-CAP-MISSING-01 judges that) can show whether the declared
			// call's capabilities outlived it.
			earlier := firstUndeclaredCall(t) // before any request declares elicitation
			var refused []bool
			for _, caps := range []map[string]any{{}, elicitationCaps, {}} {
				a, err := callDeclaring(t, s, toolRequiresElicitation, caps)
				if err != nil {
					return conform.Errorf("%v", err)
				}
				if a.err != nil {
					return conform.Silence("a reply to "+toolRequiresElicitation, a.err)
				}
				refused = append(refused, a.resp.IsError())
			}
			switch {
			case !refused[0] && earlier.refusedWithout():
				bad.Fail(toolRequiresElicitation + " with clientCapabilities {} succeeded, though the same request was refused earlier in this session, before other requests declared elicitation: the server used an earlier request's capabilities")
			case !refused[0]:
				fixture = "; " + toolRequiresElicitation + " is not refused without elicitation, so it cannot show remembered capabilities"
			case !refused[2]:
				bad.Fail(toolRequiresElicitation + " with clientCapabilities {} was refused, then succeeded right after a call that declared elicitation: the server used the earlier request's capabilities")
			default:
				fixture = "; " + toolRequiresElicitation + " without elicitation still refused after a call that declared it"
			}
		}
		// Requests that carry other context: rich capabilities and a client identity.
		meta := s.Conn.Meta()
		meta[conform.MetaClientCapabilities] = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}, "sampling": map[string]any{}, "roots": map[string]any{}}
		meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "mcp-conform-stateless-probe", "version": "1"}
		for _, m := range []string{"server/discover", "tools/list"} {
			if a, err := callWithMeta(t, s, m, nil, meta); err != nil {
				return conform.Errorf("%v", err)
			} else if a.err != nil {
				return conform.Silence("a reply to "+m, a.err)
			}
		}
		// Kept for TOOLS-LIST-ORDER-01's second listing (toolkit.Relist).
		after, ok := listedNames(toolkit.Relist(t))
		if !ok {
			return conform.Skip(conform.NotExercised, "the second tools/list did not complete")
		}
		if !slices.Equal(before, after) {
			bad.Fail(fmt.Sprintf("tools/list with the same _meta changed after requests that declared other capabilities: before %s, after %s", conform.Clip(strings.Join(before, ","), 120), conform.Clip(strings.Join(after, ","), 120)))
		}
		if bad.Failed() {
			return bad.Violation("every request served from its own _meta alone")
		}
		where := "within the column's one stdio process"
		if s.Kind != "stdio" {
			where = "over HTTP, where each POST is a request of its own and no connection is shared by design"
		}
		return conform.Pass("tools/list unchanged (%d tools) after requests with other capabilities and a client identity, %s%s", len(before), where, fixture)
	},
})

// serverInfoProblem says what is wrong with a result's _meta serverInfo ("" when it
// is an Implementation: an object with string name and version).
//
// The reply was decoded whole (wire.Decode validated it), so its members are read
// where they lie (rawjson.Lookup, exact names, the last of a repeated one), not
// decoded again: every 2026-07-28 result passes here.
func serverInfoProblem(result json.RawMessage) string {
	if rawjson.KindOf(result) != rawjson.KindObject {
		return "the result is not an object"
	}
	meta, ok := rawjson.Lookup(result, "_meta")
	if !ok || rawjson.KindOf(meta) != rawjson.KindObject {
		return "no _meta object"
	}
	raw, ok := rawjson.Lookup(meta, conform.MetaServerInfo)
	if !ok {
		return "no _meta[\"" + conform.MetaServerInfo + "\"]"
	}
	if !isImplementation(raw) {
		return "_meta[\"" + conform.MetaServerInfo + "\"] is " + conform.ClipBytes(raw, 60) + ", not an Implementation with name and version"
	}
	return ""
}

// isImplementation reports whether raw (valid JSON) is an object whose name and
// version are strings.
func isImplementation(raw json.RawMessage) bool {
	if rawjson.KindOf(raw) != rawjson.KindObject {
		return false
	}
	for _, member := range []string{"name", "version"} {
		if v, ok := rawjson.Lookup(raw, member); !ok || rawjson.KindOf(v) != rawjson.KindString {
			return false
		}
	}
	return true
}
