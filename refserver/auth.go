package refserver

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// The protected mode of the reference server (Options.AuthToken, `mcp-conform fixture
// --transport http --auth-token TOKEN`): the Streamable HTTP endpoint is an OAuth
// protected resource ({rev}/basic/authorization.mdx) that accepts one static bearer
// token. Without it a request is answered 401 with a Bearer challenge naming the
// Protected Resource Metadata (RFC 9728 §5.1) and the scope needed; an invalid token
// gets 401 with error="invalid_token" (RFC 6750 §3.1). The metadata is served at both
// well-known URIs (RFC 9728 §3.1) and names the server's own origin as its
// authorization server, whose RFC 8414 metadata (the 2025-03-26 model) is served at
// the root too; no authorization server runs: the suite fetches no token.

// Faults of the protected mode, each breaking one AUTH rule. They bite only when
// the server is protected (the self-test's "http-auth" fixture).
const (
	faultAuth403NoToken      = "auth-403-without-token"
	faultAuthNoChallenge     = "auth-no-challenge"
	faultAuthNoMetadata      = "auth-no-resource-metadata"
	faultAuthPRMBadMethods   = "auth-prm-bad-bearer-methods"
	faultAuthPRMWrongRes     = "auth-prm-wrong-resource"
	faultAuthPRMNoAS         = "auth-prm-no-authorization-servers"
	faultAuthNoScope         = "auth-no-scope"
	faultAuthOfflineScope    = "auth-offline-access-scope"
	faultAuthMalformed400    = "auth-malformed-token-400"
	faultAuthInvalidNoError  = "auth-invalid-token-no-error"
	faultAuthQueryToken      = "auth-query-token-accepted"
	faultAuthInitializeOnly  = "auth-initialize-only"
	faultAuthNoServerMetaR2  = "auth-no-as-metadata"
	faultAuthNoTokenError    = "auth-error-without-token"
	authTransport            = "http-auth"
	authScope                = "mcp:tools"
	wellKnownPRM             = "/.well-known/oauth-protected-resource"
	wellKnownASMeta          = "/.well-known/oauth-authorization-server"
	authMaxInitializePeekLen = 1 << 20
)

// authFaultCatalogue lists the protected mode's faults (Faults adds them).
var authFaultCatalogue = []Fault{
	{Name: faultAuth403NoToken, Transport: authTransport, Targets: []string{"AUTH-401-01"},
		Description: "a request without a token is answered 403 (with the Bearer challenge) instead of 401"},
	// Without a challenge there is no scope to read (AUTH-SCOPE-01 skips); the
	// metadata is still found at the well-known URIs, so from 2025-11-25 discovery
	// holds, and 2025-06-18's header rule breaks.
	{Name: faultAuthNoChallenge, Transport: authTransport, Targets: []string{"AUTH-CHALLENGE-01", "AUTH-RESMETA-01", "AUTH-INVALID-TOKEN-ERR-01"},
		Masks: []string{"AUTH-SCOPE-01", "AUTH-NO-TOKEN-ERR-01"}, Description: "a 401 carries no WWW-Authenticate header"},
	{Name: faultAuthNoMetadata, Transport: authTransport, Targets: []string{"AUTH-RESMETA-01", "AUTH-PRM-01"},
		Masks:       []string{"AUTH-PRM-RESOURCE-01", "AUTH-PRM-AS-01"},
		Description: "no Protected Resource Metadata: the challenge has no resource_metadata, and the well-known URIs answer 404"},
	{Name: faultAuthPRMBadMethods, Transport: authTransport, Targets: []string{"AUTH-PRM-01"},
		Description: `the metadata's bearer_methods_supported names "cookie"`},
	{Name: faultAuthPRMWrongRes, Transport: authTransport, Targets: []string{"AUTH-PRM-RESOURCE-01"},
		Description: "the metadata's resource names another URL than the MCP endpoint"},
	{Name: faultAuthPRMNoAS, Transport: authTransport, Targets: []string{"AUTH-PRM-AS-01"},
		Description: "the metadata's authorization_servers is empty"},
	{Name: faultAuthNoScope, Transport: authTransport, Targets: []string{"AUTH-SCOPE-01"},
		Description: "the 401's Bearer challenge has no scope parameter"},
	{Name: faultAuthOfflineScope, Transport: authTransport, Targets: []string{"AUTH-OFFLINE-01"},
		Description: "the challenge's scope and scopes_supported include offline_access"},
	{Name: faultAuthMalformed400, Transport: authTransport, Targets: []string{"AUTH-INVALID-TOKEN-01"},
		Description: `a token with a "." that is not the server's is answered 400 (invalid_request) instead of 401`},
	{Name: faultAuthInvalidNoError, Transport: authTransport, Targets: []string{"AUTH-INVALID-TOKEN-ERR-01"},
		Description: `the 401 for an invalid token has no error="invalid_token"`},
	{Name: faultAuthQueryToken, Transport: authTransport, Targets: []string{"AUTH-QUERY-TOKEN-01"},
		Description: "the token is accepted from the query string (?access_token=)"},
	{Name: faultAuthInitializeOnly, Transport: authTransport, Targets: []string{"AUTH-ENDPOINTS-01"},
		Description: "only initialize needs the token: other POSTs and the GET stream are served without one"},
	{Name: faultAuthNoTokenError, Transport: authTransport, Targets: []string{"AUTH-NO-TOKEN-ERR-01"},
		Description: `the 401 to a request without any token says error="invalid_token"`},
	{Name: faultAuthNoServerMetaR2, Transport: authTransport, Targets: []string{"AUTH-R2-ASMETA-01"},
		Description: "no Authorization Server Metadata at the root (the 2025-03-26 model)"},
}

// authGate is the protected endpoint: it lets a request with the token through to
// the MCP handler and challenges every other.
type authGate struct {
	token  string
	faults faultSet
	next   http.Handler
}

// mountAuth serves the protected endpoint at path and the metadata documents.
func mountAuth(mux *http.ServeMux, path string, h http.Handler, opts Options) {
	fs, _ := newFaultSet(opts.Faults) // validated by newConfig already
	g := &authGate{token: opts.AuthToken, faults: fs, next: h}
	mux.Handle(path, g)
	if !fs.on(faultAuthNoMetadata) {
		mux.HandleFunc(wellKnownPRM+path, func(w http.ResponseWriter, r *http.Request) { g.serveMetadata(w, r, path) })
		mux.HandleFunc(wellKnownPRM, func(w http.ResponseWriter, r *http.Request) { g.serveMetadata(w, r, path) })
	}
	if !fs.on(faultAuthNoServerMetaR2) {
		mux.HandleFunc(wellKnownASMeta, g.serveASMetadata)
	}
}

// origin is the server's origin as the client addressed it.
func origin(r *http.Request) string { return "http://" + r.Host }

func (g *authGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tok, given := bearerToken(r)
	if !given && g.faults.on(faultAuthQueryToken) {
		tok, given = r.URL.Query().Get("access_token"), r.URL.Query().Has("access_token")
	}
	switch {
	case given && subtle.ConstantTimeCompare([]byte(tok), []byte(g.token)) == 1:
		g.next.ServeHTTP(w, r)
	case g.faults.on(faultAuthInitializeOnly) && !isInitializePost(r):
		g.next.ServeHTTP(w, r)
	case !given && r.Header.Get("Authorization") == "":
		status := http.StatusUnauthorized
		if g.faults.on(faultAuth403NoToken) {
			status = http.StatusForbidden
		}
		code := ""
		if g.faults.on(faultAuthNoTokenError) {
			code = "invalid_token"
		}
		g.challenge(w, r, status, code)
	case g.faults.on(faultAuthMalformed400) && strings.Contains(tok, "."):
		g.challenge(w, r, http.StatusBadRequest, "invalid_request")
	case g.faults.on(faultAuthInvalidNoError):
		g.challenge(w, r, http.StatusUnauthorized, "")
	default:
		g.challenge(w, r, http.StatusUnauthorized, "invalid_token")
	}
}

// bearerToken reads the Authorization header's Bearer token (RFC 6750 §2.1; the
// scheme is case-insensitive).
func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// isInitializePost reports whether r POSTs initialize; it restores the body it read.
func isInitializePost(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	b, _ := io.ReadAll(io.LimitReader(r.Body, authMaxInitializePeekLen))
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), r.Body))
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(b, &m) == nil && m.Method == "initialize"
}

// challenge answers status with the Bearer challenge (RFC 6750 §3): the metadata's
// URL (RFC 9728 §5.1), the scope needed, and the error code when a token was refused.
func (g *authGate) challenge(w http.ResponseWriter, r *http.Request, status int, code string) {
	if !g.faults.on(faultAuthNoChallenge) {
		var params []string
		if !g.faults.on(faultAuthNoMetadata) {
			params = append(params, `resource_metadata="`+origin(r)+wellKnownPRM+r.URL.Path+`"`)
		}
		if !g.faults.on(faultAuthNoScope) {
			params = append(params, `scope="`+g.scope()+`"`)
		}
		if code != "" {
			params = append(params, `error="`+code+`"`)
		}
		w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	}
	writeAuthJSON(w, status, map[string]string{"error": orDefault(code, "unauthorized"), "error_description": "a bearer token is required"})
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// scope is the scope the endpoint needs.
func (g *authGate) scope() string {
	if g.faults.on(faultAuthOfflineScope) {
		return authScope + " offline_access"
	}
	return authScope
}

// serveMetadata serves the Protected Resource Metadata of the endpoint at path
// (RFC 9728 §2, §3.2).
func (g *authGate) serveMetadata(w http.ResponseWriter, r *http.Request, path string) {
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	resource := origin(r) + path
	if g.faults.on(faultAuthPRMWrongRes) {
		resource = origin(r) + "/not-the-mcp-endpoint"
	}
	servers := []string{origin(r)}
	if g.faults.on(faultAuthPRMNoAS) {
		servers = []string{}
	}
	methods := []string{"header"}
	if g.faults.on(faultAuthPRMBadMethods) {
		methods = append(methods, "cookie")
	}
	writeAuthJSON(w, http.StatusOK, map[string]any{
		"resource":                 resource,
		"authorization_servers":    servers,
		"scopes_supported":         strings.Fields(g.scope()),
		"bearer_methods_supported": methods,
		"resource_name":            ServerTitle,
	})
}

// serveASMetadata serves RFC 8414 metadata at the root: in 2025-03-26 the MCP
// server's origin is the authorization base URL. No endpoint it names is served.
func (g *authGate) serveASMetadata(w http.ResponseWriter, r *http.Request) {
	base := origin(r)
	writeAuthJSON(w, http.StatusOK, map[string]any{
		"issuer":                           base,
		"authorization_endpoint":           base + "/authorize",
		"token_endpoint":                   base + "/token",
		"registration_endpoint":            base + "/register",
		"response_types_supported":         []string{"code"},
		"code_challenge_methods_supported": []string{"S256"},
	})
}

func writeAuthJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
