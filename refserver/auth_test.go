package refserver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const testAuthToken = "refserver-test-token"

// authServer serves the protected mode with faults on (httptest binds 127.0.0.1).
func authServer(t *testing.T, faults ...string) *httptest.Server {
	t.Helper()
	opts := Options{AuthToken: testAuthToken, Faults: map[string]bool{}}
	for _, f := range faults {
		opts.Faults[f] = true
	}
	if _, err := newConfig(opts); err != nil {
		t.Fatal(err)
	}
	h := NewStreamableHandler(opts)
	mux := http.NewServeMux()
	mountAuth(mux, "/mcp", h, opts)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		if c, ok := h.(io.Closer); ok {
			_ = c.Close()
		}
	})
	return srv
}

const authInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// authProbes is what the AUTH checks ask a protected server: each probe's status,
// challenge and body, as one transcript.
func authProbes(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	var out []string
	do := func(what, method, path, auth, body string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, srv.URL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer resp.Body.Close()
		b := ""
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			raw, _ := io.ReadAll(resp.Body)
			b = strings.ReplaceAll(string(raw), srv.URL, "ORIGIN")
		}
		out = append(out, fmt.Sprintf("%s: %d %q %s", what, resp.StatusCode,
			strings.ReplaceAll(resp.Header.Get("WWW-Authenticate"), srv.URL, "ORIGIN"), strings.TrimSpace(b)))
	}
	do("no token", http.MethodPost, "/mcp", "", authInitialize)
	do("malformed", http.MethodPost, "/mcp", "Bearer eyJ.x", authInitialize)
	do("unknown", http.MethodPost, "/mcp", "Bearer nope", authInitialize)
	do("query", http.MethodPost, "/mcp?access_token="+testAuthToken, "", authInitialize)
	do("list without token", http.MethodPost, "/mcp", "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	do("prm path", http.MethodGet, wellKnownPRM+"/mcp", "", "")
	do("prm root", http.MethodGet, wellKnownPRM, "", "")
	do("as metadata", http.MethodGet, wellKnownASMeta, "", "")
	return strings.Join(out, "\n")
}

// TestAuthClean: the protected mode serves the token's requests and challenges every
// other as the AUTH rows want.
func TestAuthClean(t *testing.T) {
	srv := authServer(t)
	got := authProbes(t, srv)
	for _, want := range []string{
		`no token: 401 "Bearer resource_metadata=\"ORIGIN/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:tools\""`,
		`unknown: 401 "Bearer resource_metadata=\"ORIGIN/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:tools\", error=\"invalid_token\""`,
		`malformed: 401`, `query: 401`, `list without token: 401`,
		`prm path: 200 "" {"authorization_servers":["ORIGIN"],"bearer_methods_supported":["header"],"resource":"ORIGIN/mcp"`,
		`prm root: 200`, `as metadata: 200 "" {"authorization_endpoint":"ORIGIN/authorize"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(authInitialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testAuthToken)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("initialize with the token: HTTP %d, want 200", resp.StatusCode)
	}
}

// TestEveryAuthFaultIsObservable: each protected-mode fault changes what the AUTH
// probes see (the e2e self-test proves which checks each flips).
func TestEveryAuthFaultIsObservable(t *testing.T) {
	clean := authProbes(t, authServer(t))
	for _, f := range authFaultCatalogue {
		t.Run(f.Name, func(t *testing.T) {
			if got := authProbes(t, authServer(t, f.Name)); got == clean {
				t.Errorf("the probes see the same with fault %s on as without it:\n%s", f.Name, got)
			}
		})
	}
}

// TestAuthTokenFlag: --auth-token protects the http transport only.
func TestAuthTokenFlag(t *testing.T) {
	if _, err := parseCLI([]string{"--transport", "stdio", "--auth-token", "x"}, io.Discard); err == nil {
		t.Error("--auth-token with stdio: no error")
	}
	c, err := parseCLI([]string{"--transport", "http", "--auth-token", "x"}, io.Discard)
	if err != nil || c.opts.AuthToken != "x" {
		t.Errorf("--auth-token x over http: %v, token %q", err, c.opts.AuthToken)
	}
}
