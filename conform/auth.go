package conform

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// A protected server (basic/authorization.mdx) answers a request without a valid
// token with HTTP 401. A run without a token (or with one the server refused) opens
// no session then: its columns record the 401 (column.authRequired), the AUTH checks
// (Check.Auth) still run, since they probe the target themselves without the run's
// token, and every other check is skipped as needs-token with the one-line hint of
// tokenHint, never an error.

// AuthTarget is what an authorization check (Check.Auth) probes: the HTTP target
// itself, outside the column's session.
type AuthTarget struct {
	// URL is the MCP endpoint (--target URL, or --url of a launched server).
	URL string
	// Header is the run's --header values without Authorization, for every probe.
	Header http.Header
	// Token is the run's Authorization header value ("Bearer …"), "" when none was
	// given. It is a secret: the run scrubs it from everything it writes, and a
	// check names it, never shows it.
	Token string
	// SessionID is the column's Mcp-Session-Id, "" when no session opened.
	SessionID string
	// Client sends the probes: the run's --timeout per request, no redirects
	// followed (a redirect is an answer of its own).
	Client *http.Client
}

// AuthTarget is the HTTP target for an authorization check's own probes; false over
// stdio and HTTP+SSE, whose authorization the AUTH checks do not judge.
func (t *T) AuthTarget() (AuthTarget, bool) {
	if !t.Check.Auth {
		t.misused(fmt.Sprintf("%s probes the target without the run's token (T.AuthTarget) and does not declare Auth", t.Check.ID))
	}
	var cfg transport.HTTPConfig
	var mode string
	switch x := t.run.tgt.(type) {
	case *httpTarget:
		cfg = x.cfg
		x.mu.Lock()
		mode = x.mode
		x.mu.Unlock()
	case *launchTarget:
		cfg = x.cfg
		x.mu.Lock()
		mode = x.mode
		x.mu.Unlock()
	default:
		return AuthTarget{}, false
	}
	if mode == "sse" {
		return AuthTarget{}, false
	}
	h := cfg.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	token := h.Get("Authorization")
	h.Del("Authorization")
	at := AuthTarget{URL: cfg.URL, Header: h, Token: token}
	if s := t.col.main; s != nil && s.Conn != nil {
		if hs, ok := s.Conn.Transport().(*transport.StreamableHTTP); ok {
			at.SessionID = hs.SessionID()
		}
	}
	at.Client = t.Once("auth:client", func() any {
		return &http.Client{
			Timeout:       t.run.cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}).(*http.Client)
	return at, true
}

// isAuthRequired reports whether a session failed to open because the server
// answered HTTP 401.
func isAuthRequired(err error) bool {
	var se *transport.HTTPStatusError
	return errors.As(err, &se) && se.Status == http.StatusUnauthorized
}

// tokenHint says, in one line, that the server wants a token and how to give one
// (from the environment: a token is never written on a command line the run prints).
func (rs *runState) tokenHint() string {
	if rs.cfg.Headers.Get("Authorization") != "" {
		return "the server answered HTTP 401 to the token given with --header Authorization: it refused it; only the AUTH checks ran (they probe without it)"
	}
	return `the server requires a token (HTTP 401 without one): only the AUTH checks ran; give one from the environment with --header "Authorization: Bearer ${TOKEN}"`
}

// noteAuthRequired, when some column could not open for want of a token, notes the
// hint once and reports true: the server was reached and its AUTH rules can be
// judged, so the run is not unreachable. Without a token the AUTH verdicts decide
// the exit code; a token the server refused fails the run (exit 1), whatever they
// say: the run was asked to verify every other check and verified none.
func (rs *runState) noteAuthRequired() bool {
	for _, col := range rs.columns {
		if col.authRequired {
			rs.note(rs.tokenHint())
			if rs.cfg.Headers.Get("Authorization") != "" {
				rs.exitOverride = ExitFailed
			}
			return true
		}
	}
	return false
}
