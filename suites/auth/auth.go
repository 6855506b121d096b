// Package auth registers the checks of the AUTH group: the rules a protected MCP
// server follows over HTTP ({rev}/basic/authorization.mdx; 2026-07-28:
// basic/authorization/), black-box. Each check probes the target itself without the
// run's token (conform.Check.Auth, T.AuthTarget), so the AUTH rows are judged with or
// without a token: a run without one opens no session on a protected server and still
// judges its 401, its challenge and its metadata. Authorization is OPTIONAL: a server
// that serves a request without a token gets not-applicable, never a failure.
package auth

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
)

// AUTH-401-01 — {rev}/basic/authorization.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "AUTH-401-01", Title: "a request without a token is answered 401", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		_, r := protectedOr(t)
		if r.status != http.StatusUnauthorized {
			return conform.Violation("HTTP 401 for a request without a token", fmt.Sprintf("initialize without a token → HTTP %d with a Bearer challenge", r.status))
		}
		return conform.Pass("initialize without a token → HTTP 401")
	},
})

// AUTH-CHALLENGE-01 — RFC 6750 §3; RFC 9110 §11.6.1.
var _ = conform.Register(conform.Check{
	ID: "AUTH-CHALLENGE-01", Title: "a 401 carries a well-formed Bearer challenge in WWW-Authenticate", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		_, r := protectedOr(t)
		ch, err := bearerOf(r)
		if err != nil {
			return conform.Violation("a WWW-Authenticate header with a Bearer challenge (RFC 6750 §3)", fmt.Sprintf("HTTP %d: %v", r.status, err))
		}
		return conform.Pass("HTTP %d: Bearer challenge with %s", r.status, paramNames(ch))
	},
})

// paramNames lists a challenge's auth-param names.
func paramNames(ch challenge) string {
	var names []string
	for k := range ch.Params {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "no parameters"
	}
	return strings.Join(names, ", ")
}

// challengeOr ends the check when the Bearer challenge is missing or malformed:
// AUTH-CHALLENGE-01 judges that, and what rests on it has nothing to read.
func challengeOr(t *conform.T, r reply) challenge {
	ch, err := bearerOf(r)
	if err != nil {
		t.SkipNow(conform.NotExercised, "no Bearer challenge to read (AUTH-CHALLENGE-01): %v", err)
	}
	return ch
}

// AUTH-RESMETA-01 — 2025-06-18/basic/authorization.mdx (Authorization Server
// Location); from 2025-11-25, Protected Resource Metadata Discovery Requirements.
var _ = conform.Register(conform.Check{
	ID: "AUTH-RESMETA-01", Title: "the Protected Resource Metadata can be found as clients look for it", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		at, r := protectedOr(t)
		ch, chErr := bearerOf(r)
		var why string
		switch v, ok := ch.Params["resource_metadata"]; {
		case chErr != nil:
			why = chErr.Error()
		case !ok:
			why = "the Bearer challenge has no resource_metadata"
		default:
			if _, err := metadataURL(v); err != nil {
				why = err.Error()
			} else {
				return conform.Pass("the 401's Bearer challenge names resource_metadata %s", v)
			}
		}
		if t.Rev.Name == "2025-06-18" {
			return conform.Violation("resource_metadata in the 401's WWW-Authenticate (RFC 9728 §5.1)", why)
		}
		d := findMetadata(t, at, challenge{})
		if d.found {
			return conform.Pass("%s; the metadata is at %s (%s)", why, d.src.url, d.src.via)
		}
		return conform.Violation("resource_metadata in the 401's WWW-Authenticate, or the metadata at a well-known URI",
			fmt.Sprintf("%s; %s", why, strings.Join(d.tried, "; ")))
	},
})

// challengeAndMetadata reads the Bearer challenge of the 401 to a request without a
// token (zero when there is none: AUTH-CHALLENGE-01 judges that) and the Protected
// Resource Metadata a client finds from it.
func challengeAndMetadata(t *conform.T) (challenge, metaDoc) {
	at, r := protectedOr(t)
	ch, _ := bearerOf(r)
	return ch, findMetadata(t, at, ch)
}

// metadataOr fetches the metadata as a client would and ends the check when there is
// no document to judge (AUTH-PRM-01 judges its absence).
func metadataOr(t *conform.T) metaDoc {
	_, d := challengeAndMetadata(t)
	if d.offOrigin != "" {
		t.SkipNow(conform.NotExercised, "resource_metadata %s is on another origin than the target's, which the suite sends nothing to", d.offOrigin)
	}
	if !d.found || d.obj == nil {
		t.SkipNow(conform.NotExercised, "no Protected Resource Metadata document to read (AUTH-PRM-01)")
	}
	return d
}

// AUTH-PRM-01 — {rev}/basic/authorization.mdx (Standards Compliance); RFC 9728 §2, §3.2.
var _ = conform.Register(conform.Check{
	ID: "AUTH-PRM-01", Title: "the Protected Resource Metadata is a JSON object of RFC 9728's members", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		_, d := challengeAndMetadata(t)
		const want = "a Protected Resource Metadata document: 200, application/json, a JSON object (RFC 9728 §3.2)"
		switch {
		case d.offOrigin != "":
			return conform.Skip(conform.NotExercised, "resource_metadata %s is on another origin than the target's, which the suite sends nothing to", d.offOrigin)
		case len(d.tried) == 0:
			return conform.Violation(want, "no resource_metadata and no well-known URI to try")
		case !d.found:
			return conform.Violation(want, strings.Join(d.tried, "; "))
		case d.obj == nil:
			return conform.Violation(want, fmt.Sprintf("%s (%s): %s", d.src.url, d.src.via, d.bad))
		}
		var f conform.Findings
		for _, name := range []string{"scopes_supported", "bearer_methods_supported", "resource_signing_alg_values_supported", "authorization_details_types_supported"} {
			vs, present, ok := stringArray(d.obj, name)
			switch {
			case !ok:
				f.Fail(fmt.Sprintf("%s is not a JSON array of strings", name))
			case present && name == "bearer_methods_supported":
				for _, m := range vs {
					if m != "header" && m != "body" && m != "query" {
						f.Fail(fmt.Sprintf("bearer_methods_supported names %q, not one of header, body, query", m))
					}
				}
			}
		}
		for _, name := range []string{"resource_name", "resource_documentation", "resource_policy_uri", "resource_tos_uri", "jwks_uri"} {
			if v, ok := d.obj[name]; ok {
				if _, isStr := v.(string); !isStr {
					f.Fail(fmt.Sprintf("%s is not a string", name))
				}
			}
		}
		return f.Verdict(want, "", fmt.Sprintf("%s (%s): %d members, each of its type", d.src.url, d.src.via, len(d.obj)))
	},
})

// AUTH-PRM-RESOURCE-01 — RFC 9728 §3.3.
var _ = conform.Register(conform.Check{
	ID: "AUTH-PRM-RESOURCE-01", Title: "the metadata's resource is the MCP server's own URL", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		d := metadataOr(t)
		want := fmt.Sprintf("resource identical to %s (RFC 9728 §3.3)", strings.Join(d.src.resources, " or "))
		raw, ok := d.obj["resource"]
		if !ok {
			return conform.Violation(want, fmt.Sprintf("%s has no resource member", d.src.url))
		}
		res, isStr := raw.(string)
		if !isStr {
			return conform.Violation(want, fmt.Sprintf("%s: resource is not a string", d.src.url))
		}
		if !slices.Contains(d.src.resources, res) {
			return conform.Violation(want, fmt.Sprintf("%s (%s): resource %q", d.src.url, d.src.via, res))
		}
		return conform.Pass("%s (%s): resource %q", d.src.url, d.src.via, res)
	},
})

// AUTH-PRM-AS-01 — {rev}/basic/authorization.mdx (Authorization Server Location).
var _ = conform.Register(conform.Check{
	ID: "AUTH-PRM-AS-01", Title: "the metadata names at least one authorization server", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		d := metadataOr(t)
		const want = "authorization_servers: a non-empty JSON array of issuer URLs"
		vs, present, ok := stringArray(d.obj, "authorization_servers")
		switch {
		case !present:
			return conform.Violation(want, fmt.Sprintf("%s has no authorization_servers", d.src.url))
		case !ok:
			return conform.Violation(want, fmt.Sprintf("%s: authorization_servers is not an array of strings", d.src.url))
		case len(vs) == 0:
			return conform.Violation(want, fmt.Sprintf("%s: authorization_servers is empty", d.src.url))
		}
		var f conform.Findings
		for _, v := range vs {
			if !absoluteHTTPURL(v) {
				f.Fail(fmt.Sprintf("%q is not an issuer URL (absolute http(s), no query or fragment)", v))
			}
		}
		return f.Verdict(want, "", fmt.Sprintf("%s: authorization_servers %q", d.src.url, vs))
	},
})

// AUTH-SCOPE-01 — {rev}/basic/authorization.mdx (Protected Resource Metadata
// Discovery Requirements; 2026-07-28: basic/authorization/index.mdx).
var _ = conform.Register(conform.Check{
	ID: "AUTH-SCOPE-01", Title: "the 401 challenge names the scopes needed", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		_, r := protectedOr(t)
		ch := challengeOr(t, r)
		if s := strings.TrimSpace(ch.Params["scope"]); s != "" {
			return conform.Pass("the Bearer challenge names scope %q", s)
		}
		return conform.Violation("a scope parameter in the 401's Bearer challenge (RFC 6750 §3)", "the Bearer challenge has "+paramNames(ch))
	},
})

// AUTH-OFFLINE-01 — 2026-07-28/basic/authorization/index.mdx (Refresh Tokens).
var _ = conform.Register(conform.Check{
	ID: "AUTH-OFFLINE-01", Title: "offline_access is neither challenged nor listed in scopes_supported", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		ch, d := challengeAndMetadata(t)
		var f conform.Findings
		if slices.Contains(strings.Fields(ch.Params["scope"]), "offline_access") {
			f.Fail("the 401's Bearer challenge asks for scope offline_access")
		}
		seen := "no metadata document read"
		if d.obj != nil {
			seen = "scopes_supported of " + d.src.url
			if vs, _, _ := stringArray(d.obj, "scopes_supported"); slices.Contains(vs, "offline_access") {
				f.Fail(fmt.Sprintf("%s lists offline_access in scopes_supported", d.src.url))
			}
		}
		return f.Verdict("no offline_access in the challenge's scope or in scopes_supported", "", "the challenge's scope and "+seen+" without offline_access")
	},
})

// AUTH-NO-TOKEN-ERR-01 — RFC 6750 §3.1.
var _ = conform.Register(conform.Check{
	ID: "AUTH-NO-TOKEN-ERR-01", Title: "the challenge to a request without a token carries no error code", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		_, r := protectedOr(t)
		ch := challengeOr(t, r)
		if code, ok := ch.Params["error"]; ok {
			return conform.Violation("no error code in the challenge to a request without any token (RFC 6750 §3.1)", fmt.Sprintf("initialize without a token → HTTP %d, Bearer challenge with error=%q", r.status, code))
		}
		return conform.Pass("initialize without a token → HTTP %d, Bearer challenge without an error code", r.status)
	},
})

// The two invalid tokens: a malformed one (a JWT cut short: a header and no payload
// or signature) and a well-formed opaque one no server issued. Both are b64token
// (RFC 6750 §2.1), so the request is well-formed and only the token is bad.
var invalidTokens = []struct{ what, value string }{
	{"a malformed token (a JWT cut short)", "eyJhbGciOiJSUzI1NiJ9.mcp-conform"},
	{"an unknown token", "mcp-conform-unknown-token-4f1d2c9b7a"},
}

// invalidReplies sends initialize with each invalid token, once per run.
func invalidReplies(t *conform.T, at conform.AuthTarget) []reply {
	return t.Once("auth:invalid", func() any {
		var out []reply
		for _, tok := range invalidTokens {
			out = append(out, postInitialize(t, at, at.URL, http.Header{"Authorization": {"Bearer " + tok.value}}))
		}
		return out
	}).([]reply)
}

// AUTH-INVALID-TOKEN-01 — {rev}/basic/authorization.mdx (Token Handling).
var _ = conform.Register(conform.Check{
	ID: "AUTH-INVALID-TOKEN-01", Title: "an invalid token is answered 401", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		at, _ := protectedOr(t)
		var f conform.Findings
		var seen []string
		for i, r := range invalidReplies(t, at) {
			if r.err != nil {
				return conform.Errorf("not verified: initialize with %s got %s", invalidTokens[i].what, r.describe())
			}
			seen = append(seen, fmt.Sprintf("%s → HTTP %d", invalidTokens[i].what, r.status))
			if r.status != http.StatusUnauthorized {
				f.Fail(fmt.Sprintf("initialize with %s → HTTP %d", invalidTokens[i].what, r.status))
			}
		}
		return f.Verdict("HTTP 401 for an invalid token", "", strings.Join(seen, "; "))
	},
})

// AUTH-INVALID-TOKEN-ERR-01 — RFC 6750 §3, §3.1.
var _ = conform.Register(conform.Check{
	ID: "AUTH-INVALID-TOKEN-ERR-01", Title: `a refused token's challenge says error="invalid_token"`, Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		at, _ := protectedOr(t)
		var f conform.Findings
		judged := 0
		for i, r := range invalidReplies(t, at) {
			if r.err != nil || r.status != http.StatusUnauthorized {
				continue // AUTH-INVALID-TOKEN-01 judges the status
			}
			judged++
			ch, err := bearerOf(r)
			switch {
			case err != nil:
				f.Fail(fmt.Sprintf("the 401 for %s: %v", invalidTokens[i].what, err))
			case ch.Params["error"] != "invalid_token":
				f.Fail(fmt.Sprintf("the 401 for %s: error=%q", invalidTokens[i].what, ch.Params["error"]))
			}
		}
		if judged == 0 {
			return conform.Skip(conform.NotExercised, "no invalid token was answered 401 (AUTH-INVALID-TOKEN-01)")
		}
		return f.Verdict(`error="invalid_token" in the Bearer challenge of a refused token`, "", fmt.Sprintf(`error="invalid_token" for each of %d refused tokens`, judged))
	},
})

// AUTH-QUERY-TOKEN-01 — {rev}/basic/authorization.mdx (Token Requirements).
var _ = conform.Register(conform.Check{
	ID: "AUTH-QUERY-TOKEN-01", Title: "a token in the query string is not accepted", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		at, _ := protectedOr(t)
		scheme, tok, ok := strings.Cut(at.Token, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
			return conform.Skip(conform.NotExercised, `needs the run's token (--header "Authorization: Bearer ${TOKEN}") to offer it in the query string`)
		}
		u, err := url.Parse(at.URL)
		if err != nil {
			return conform.Errorf("not verified: the target URL does not parse")
		}
		q := u.Query()
		q.Set("access_token", strings.TrimSpace(tok))
		u.RawQuery = q.Encode()
		r := postInitialize(t, at, u.String(), nil)
		switch {
		case r.err != nil:
			return conform.Errorf("not verified: initialize with the run's token as ?access_token= got %s", r.describe())
		case is2xx(r.status):
			return conform.Violation("a token in the URI query string refused", fmt.Sprintf("initialize with the run's token as ?access_token= and no Authorization header → HTTP %d: served", r.status))
		}
		return conform.Pass("initialize with the run's token as ?access_token= and no Authorization header → HTTP %d", r.status)
	},
})

// AUTH-ENDPOINTS-01 — {rev}/basic/authorization.mdx (Token Requirements; Error
// Handling; from 2025-06-18, Access Token Privilege Restriction).
var _ = conform.Register(conform.Check{
	ID: "AUTH-ENDPOINTS-01", Title: "every request to the endpoint needs the token, not only the first", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		at, _ := protectedOr(t)
		h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
		body := `{"jsonrpc":"2.0","id":"mcp-conform-auth-list","method":"tools/list","params":{}}`
		if t.Rev.Name != "2024-11-05" && t.Rev.Name != "2025-03-26" {
			h.Set("MCP-Protocol-Version", t.Rev.Name)
		}
		if t.Rev.Name == "2026-07-28" {
			// A well-formed 2026-07-28 request (_meta and the standard headers), so
			// that only the missing token can refuse it.
			body = `{"jsonrpc":"2.0","id":"mcp-conform-auth-list","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			h.Set("Mcp-Method", "tools/list")
		}
		session := "no session"
		if at.SessionID != "" {
			h.Set("Mcp-Session-Id", at.SessionID)
			session = "the session's Mcp-Session-Id"
		}
		post := send(t, at, http.MethodPost, at.URL, h, []byte(body), false)
		gh := http.Header{"Accept": {"text/event-stream"}}
		if at.SessionID != "" {
			gh.Set("Mcp-Session-Id", at.SessionID)
		}
		if v := h.Get("MCP-Protocol-Version"); v != "" {
			gh.Set("MCP-Protocol-Version", v)
		}
		get := send(t, at, http.MethodGet, at.URL, gh, nil, false)
		var f conform.Findings
		for _, p := range []struct {
			what string
			r    reply
		}{{"POST tools/list with " + session, post}, {"GET of the endpoint (the stream) with " + session, get}} {
			if p.r.err != nil {
				return conform.Errorf("not verified: %s without a token got %s", p.what, p.r.describe())
			}
			if is2xx(p.r.status) {
				f.Fail(fmt.Sprintf("%s and no token → HTTP %d: served", p.what, p.r.status))
			}
		}
		return f.Verdict("every request without a token refused, as initialize is", "",
			fmt.Sprintf("without a token: POST tools/list → HTTP %d, GET → HTTP %d", post.status, get.status))
	},
})

// AUTH-R2-ASMETA-01 — 2025-03-26/basic/authorization.mdx (Server Metadata Discovery).
var _ = conform.Register(conform.Check{
	ID: "AUTH-R2-ASMETA-01", Title: "Authorization Server Metadata at the authorization base URL", Auth: true,
	Run: func(t *conform.T) conform.Verdict {
		at, _ := protectedOr(t)
		u, err := url.Parse(at.URL)
		if err != nil {
			return conform.Errorf("not verified: the target URL does not parse")
		}
		where := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server"
		r := t.Once("auth:asmeta", func() any {
			return send(t, at, http.MethodGet, where, http.Header{"Accept": {"application/json"}}, nil, true)
		}).(reply)
		const want = "RFC 8414 metadata (issuer, authorization_endpoint, token_endpoint, response_types_supported) at the authorization base URL"
		if r.err != nil {
			return conform.Errorf("not verified: GET %s got %s", where, r.describe())
		}
		if r.status != http.StatusOK {
			return conform.Violation(want, fmt.Sprintf("GET %s → HTTP %d (clients fall back to /authorize, /token, /register)", where, r.status))
		}
		obj, bad := decodeDoc(r)
		if obj == nil {
			return conform.Violation(want, fmt.Sprintf("GET %s: %s", where, bad))
		}
		var f conform.Findings
		for _, name := range []string{"issuer", "authorization_endpoint", "token_endpoint"} {
			if s, ok := obj[name].(string); !ok || s == "" {
				f.Fail(fmt.Sprintf("%s is missing or not a string", name))
			}
		}
		if vs, present, ok := stringArray(obj, "response_types_supported"); !present || !ok || len(vs) == 0 {
			f.Fail("response_types_supported is missing or not a non-empty array of strings")
		}
		return f.Verdict(want, "", fmt.Sprintf("GET %s → 200 with the required members", where))
	},
})
