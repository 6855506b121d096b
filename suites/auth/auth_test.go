package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/auth"
)

// protected is a scripted protected server: every request to the endpoint (the
// root, as conform.Handler serves it) is refused, as a server the run has no token
// for; the knobs break one rule each.
type protected struct {
	status     int    // the answer without a token (401)
	challenge  string // WWW-Authenticate without a token; ORIGIN is replaced
	invalid    int    // the answer to an invalid token (401)
	invalidErr string // WWW-Authenticate for an invalid token
	prm        map[string]any
	servesList bool // tools/list is served without a token
}

func clean() protected {
	return protected{
		status:     http.StatusUnauthorized,
		challenge:  `Bearer resource_metadata="ORIGIN/.well-known/oauth-protected-resource", scope="mcp"`,
		invalid:    http.StatusUnauthorized,
		invalidErr: `Bearer error="invalid_token", resource_metadata="ORIGIN/.well-known/oauth-protected-resource"`,
		prm:        map[string]any{"resource": "ORIGIN/", "authorization_servers": []string{"https://as.example"}, "scopes_supported": []string{"mcp"}},
	}
}

func (p protected) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	origin := "http://" + r.Host
	fill := func(s string) string { return strings.ReplaceAll(s, "ORIGIN", origin) }
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource":
		if p.prm == nil {
			http.NotFound(w, r)
			return
		}
		b, _ := json.Marshal(p.prm)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(fill(string(b))))
		return
	case "/.well-known/oauth-authorization-server":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(fill(`{"issuer":"ORIGIN","authorization_endpoint":"ORIGIN/authorize","token_endpoint":"ORIGIN/token","response_types_supported":["code"]}`)))
		return
	case "/":
	default:
		http.NotFound(w, r)
		return
	}
	var body struct {
		Method string `json:"method"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	if p.servesList && body.Method == "tools/list" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"mcp-conform-auth-list","result":{"tools":[]}}`))
		return
	}
	if r.Header.Get("Authorization") != "" {
		if p.invalidErr != "" {
			w.Header().Set("WWW-Authenticate", fill(p.invalidErr))
		}
		w.WriteHeader(p.invalid)
		return
	}
	if p.challenge != "" {
		w.Header().Set("WWW-Authenticate", fill(p.challenge))
	}
	w.WriteHeader(p.status)
}

// judge runs the AUTH checks against h without a token (an unprotected server, and
// a 403 to a request without a token, need a session: the self-test's fixtures
// judge them) and returns each check's
// status in the revision.
func judge(t *testing.T, h http.Handler, rev string) map[string]reports.CheckResult {
	t.Helper()
	res, err := conform.RunLibrary(context.Background(), conform.Handler(h), conform.Revisions(rev),
		conform.Configure(func(c *conform.Config) { c.Focus = []string{"AUTH-"}; c.Transport = "http" }))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]reports.CheckResult{}
	for _, col := range res.Report.Revisions {
		for _, c := range col.Checks {
			out[c.ID] = c
		}
	}
	return out
}

func TestAuthVerdicts(t *testing.T) {
	cases := []struct {
		name string
		rev  string
		srv  func(p *protected)
		want map[string]reports.Status
	}{
		{"clean", "2025-11-25", func(*protected) {}, map[string]reports.Status{
			"AUTH-401-01": reports.Pass, "AUTH-CHALLENGE-01": reports.Pass, "AUTH-RESMETA-01": reports.Pass,
			"AUTH-PRM-01": reports.Pass, "AUTH-PRM-RESOURCE-01": reports.Pass, "AUTH-PRM-AS-01": reports.Pass,
			"AUTH-SCOPE-01": reports.Pass, "AUTH-INVALID-TOKEN-01": reports.Pass, "AUTH-INVALID-TOKEN-ERR-01": reports.Pass,
			"AUTH-QUERY-TOKEN-01": reports.Skip, "AUTH-ENDPOINTS-01": reports.Pass, "AUTH-NO-TOKEN-ERR-01": reports.Pass}},
		{"no challenge, metadata at the well-known URI", "2025-11-25", func(p *protected) { p.challenge = "" }, map[string]reports.Status{
			"AUTH-CHALLENGE-01": reports.Fail, "AUTH-RESMETA-01": reports.Pass, "AUTH-SCOPE-01": reports.Skip, "AUTH-PRM-01": reports.Pass}},
		{"no resource_metadata in 2025-06-18", "2025-06-18", func(p *protected) { p.challenge = `Bearer scope="mcp"` }, map[string]reports.Status{
			"AUTH-RESMETA-01": reports.Fail, "AUTH-CHALLENGE-01": reports.Pass, "AUTH-PRM-01": reports.Pass}},
		{"malformed challenge", "2025-11-25", func(p *protected) { p.challenge = `Bearer scope="mcp` }, map[string]reports.Status{
			"AUTH-CHALLENGE-01": reports.Fail}},
		{"no metadata anywhere", "2025-11-25", func(p *protected) { p.challenge, p.prm = `Bearer scope="mcp"`, nil }, map[string]reports.Status{
			"AUTH-RESMETA-01": reports.Fail, "AUTH-PRM-01": reports.Fail, "AUTH-PRM-RESOURCE-01": reports.Skip, "AUTH-PRM-AS-01": reports.Skip}},
		{"metadata on another origin", "2025-11-25", func(p *protected) {
			p.challenge = `Bearer resource_metadata="http://elsewhere.invalid/.well-known/oauth-protected-resource", scope="mcp"`
		}, map[string]reports.Status{
			"AUTH-RESMETA-01": reports.Pass, "AUTH-PRM-01": reports.Skip, "AUTH-PRM-RESOURCE-01": reports.Skip, "AUTH-PRM-AS-01": reports.Skip}},
		{"wrong resource", "2025-11-25", func(p *protected) { p.prm["resource"] = "https://elsewhere.example/mcp" }, map[string]reports.Status{
			"AUTH-PRM-RESOURCE-01": reports.Fail, "AUTH-PRM-AS-01": reports.Pass}},
		{"no authorization server", "2025-11-25", func(p *protected) { p.prm["authorization_servers"] = []string{} }, map[string]reports.Status{
			"AUTH-PRM-AS-01": reports.Fail, "AUTH-PRM-RESOURCE-01": reports.Pass}},
		{"bad scopes_supported", "2025-11-25", func(p *protected) { p.prm["scopes_supported"] = "mcp" }, map[string]reports.Status{
			"AUTH-PRM-01": reports.Fail}},
		{"no scope", "2025-11-25", func(p *protected) {
			p.challenge = `Bearer resource_metadata="ORIGIN/.well-known/oauth-protected-resource"`
		}, map[string]reports.Status{
			"AUTH-SCOPE-01": reports.Warn}},
		{"offline_access", "2026-07-28", func(p *protected) { p.prm["scopes_supported"] = []string{"mcp", "offline_access"} }, map[string]reports.Status{
			"AUTH-OFFLINE-01": reports.Warn}},
		{"error code without a token", "2025-11-25", func(p *protected) { p.challenge += `, error="invalid_token"` }, map[string]reports.Status{
			"AUTH-NO-TOKEN-ERR-01": reports.Warn, "AUTH-CHALLENGE-01": reports.Pass}},
		{"invalid token 403", "2025-11-25", func(p *protected) { p.invalid = http.StatusForbidden }, map[string]reports.Status{
			"AUTH-INVALID-TOKEN-01": reports.Fail, "AUTH-INVALID-TOKEN-ERR-01": reports.Skip}},
		{"invalid token without error", "2025-11-25", func(p *protected) { p.invalidErr = `Bearer realm="mcp"` }, map[string]reports.Status{
			"AUTH-INVALID-TOKEN-01": reports.Pass, "AUTH-INVALID-TOKEN-ERR-01": reports.Warn}},
		{"tools/list served without a token", "2025-11-25", func(p *protected) { p.servesList = true }, map[string]reports.Status{
			"AUTH-ENDPOINTS-01": reports.Fail}},
		{"2025-03-26 metadata", "2025-03-26", func(*protected) {}, map[string]reports.Status{
			"AUTH-R2-ASMETA-01": reports.Pass, "AUTH-401-01": reports.Pass}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := clean()
			tc.srv(&p)
			got := judge(t, p, tc.rev)
			for id, want := range tc.want {
				if c := got[id]; c.Status != want {
					t.Errorf("%s in %s: %s (%s), want %s", id, tc.rev, c.Status, c.Message, want)
				}
			}
		})
	}
}

// TestChallengeSyntax: the WWW-Authenticate parser (RFC 9110 §11.6.1) takes the
// forms servers send and refuses the broken ones.
func TestChallengeSyntax(t *testing.T) {
	cases := []struct {
		in     string
		ok     bool
		scheme string
		params map[string]string
	}{
		{`Bearer`, true, "Bearer", map[string]string{}},
		{`Bearer realm="x", scope="a b"`, true, "Bearer", map[string]string{"realm": "x", "scope": "a b"}},
		{`Basic realm="x", Bearer error=invalid_token`, true, "Bearer", map[string]string{"error": "invalid_token"}},
		{`bearer Resource_Metadata="http://h/x"`, true, "bearer", map[string]string{"resource_metadata": "http://h/x"}},
		{`Bearer realm="a \"q\""`, true, "Bearer", map[string]string{"realm": `a "q"`}},
		{`Negotiate abc==, Bearer scope="s"`, true, "Bearer", map[string]string{"scope": "s"}},
		{`Bearer scope="unterminated`, false, "", nil},
		{`Bearer scope=`, true, "Bearer", map[string]string{}}, // a token68
		{`Bearer a=b=c`, false, "", nil},
		{`Bearer scope="a", scope="b"`, false, "", nil},
		{`Bearer realm="x" scope="y"`, false, "", nil},
		{``, false, "", nil},
	}
	for _, tc := range cases {
		cs, err := auth.ParseChallenges(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: error %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		b, found := auth.Bearer(cs)
		if !found || b.Scheme != tc.scheme || len(b.Params) != len(tc.params) {
			t.Errorf("%q: Bearer challenge %+v (found %v), want scheme %s params %v", tc.in, b, found, tc.scheme, tc.params)
			continue
		}
		for k, v := range tc.params {
			if b.Params[k] != v {
				t.Errorf("%q: %s=%q, want %q", tc.in, k, b.Params[k], v)
			}
		}
	}
}
