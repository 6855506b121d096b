package transports

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// shttpServer is a scripted Streamable HTTP server of 2025-03-26 to 2025-11-25 on
// loopback: correct by default, each field breaks one rule of the transport.
type shttpServer struct {
	noSession     bool               // assigns no Mcp-Session-Id
	idOf          func(n int) string // the n-th session id (nil: random hex)
	otherIDs      bool               // every later reply names another session id
	missingStatus int                // a request without a session id (0: 400; 200: served)
	deleteStatus  int                // DELETE (0: 200, the session ends)
	keepAfterDel  bool               // a DELETEd session lives on
	unknownStatus int                // a request naming an unknown session (0: 404)
	refuseReinit  bool               // initialize is refused after any 404
	versionLoose  bool               // MCP-Protocol-Version is not checked
	versionNeeded bool               // a request without MCP-Protocol-Version is refused
	getStatus     int                // GET (0: 405; 200: an event stream)
	notifStatus   int                // every notification and response (0: 202)
	refuseProbes  bool               // notifications/cancelled and responses get 400
	rejectStatus  int                // a notification whose method is no string (0: 400)
	badBodyStatus int                // an unparseable body (0: 400)
	replyType     string             // Content-Type of a JSON reply (0: application/json)
	originStatus  int                // a foreign Origin (0: 403; 200: not checked)

	mu       sync.Mutex
	sessions map[string]string // session id → negotiated version
	count    int               // sessions opened
	sent404  bool              // a 404 went out
}

func (s *shttpServer) newID() string {
	s.count++
	if s.idOf != nil {
		return s.idOf(s.count)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *shttpServer) write(w http.ResponseWriter, status int, body string) {
	if s.otherIDs && status != http.StatusOK {
		w.Header().Set("Mcp-Session-Id", fmt.Sprintf("other-%d", time.Now().UnixNano()))
	}
	if body == "" {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func rpcErr(id json.RawMessage, code int) string {
	if id == nil {
		return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":%d,"message":"x"}}`, code)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"x"}}`, id, code)
}

func (s *shttpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions == nil {
		s.sessions = map[string]string{}
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.HasPrefix(o, "http://127.0.0.1") && or(s.originStatus, 403) != http.StatusOK {
		s.write(w, or(s.originStatus, 403), rpcErr(nil, -32600))
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	known := func() (string, bool) {
		v, ok := s.sessions[sid]
		if !ok {
			s.sent404 = or(s.unknownStatus, 404) == 404
			s.write(w, or(s.unknownStatus, 404), rpcErr(nil, -32600))
		}
		return v, ok
	}
	switch r.Method {
	case http.MethodGet:
		if _, ok := known(); !ok {
			return
		}
		if or(s.getStatus, 405) != http.StatusOK {
			s.write(w, or(s.getStatus, 405), "")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		s.mu.Unlock()
		<-r.Context().Done()
		s.mu.Lock()
		return
	case http.MethodDelete:
		if _, ok := known(); !ok {
			return
		}
		status := or(s.deleteStatus, 200)
		if status == 200 && !s.keepAfterDel {
			delete(s.sessions, sid)
		}
		s.write(w, status, "")
		return
	}
	b, _ := io.ReadAll(r.Body)
	if !json.Valid(b) {
		s.write(w, or(s.badBodyStatus, 400), rpcErr(nil, -32700))
		return
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	id, hasID := m["id"]
	var method string
	if raw, ok := m["method"]; ok && json.Unmarshal(raw, &method) != nil {
		if !hasID {
			s.write(w, or(s.rejectStatus, 400), rpcErr(nil, -32600))
			return
		}
	}
	if method == "initialize" && sid == "" {
		if s.refuseReinit && s.sent404 {
			s.write(w, 400, rpcErr(id, -32600))
			return
		}
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m["params"], &p)
		if !s.noSession {
			nid := s.newID()
			s.sessions[nid] = p.ProtocolVersion
			w.Header().Set("Mcp-Session-Id", nid)
		}
		s.write(w, 200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"1"}}}`, id, p.ProtocolVersion))
		return
	}
	version := "2025-03-26"
	switch {
	case sid == "" && !s.noSession && or(s.missingStatus, 400) != 200:
		s.write(w, or(s.missingStatus, 400), rpcErr(nil, -32600))
		return
	case sid != "":
		v, ok := known()
		if !ok {
			return
		}
		version = v
	}
	if rev, ok := revision.Lookup(version); ok && rev.Has(revision.VersionHeader) {
		hv := r.Header.Get("MCP-Protocol-Version")
		if (hv == "" && s.versionNeeded) || (hv != "" && hv != version && !s.versionLoose) {
			s.write(w, 400, rpcErr(nil, -32600))
			return
		}
	}
	if !hasID || method == "" {
		status := or(s.notifStatus, 202)
		if s.refuseProbes && (method == "notifications/cancelled" || method == "") {
			status = 400
		}
		s.write(w, status, "")
		return
	}
	result := `{}`
	if method == "tools/list" {
		result = `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`
	}
	if s.otherIDs {
		w.Header().Set("Mcp-Session-Id", fmt.Sprintf("other-%d", time.Now().UnixNano()))
	}
	w.Header().Set("Content-Type", cmpOr(s.replyType, "application/json"))
	w.WriteHeader(200)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

func cmpOr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// judgeSHTTP runs one check in rev against srv over Streamable HTTP.
func judgeSHTTP(t *testing.T, srv http.Handler, id, rev string) conform.Verdict {
	t.Helper()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c := conform.Lookup(id)
	if c == nil {
		t.Fatalf("no check %s", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(ctx context.Context) (transport.Transport, error) {
		return transport.DialStreamableHTTP(ctx, transport.HTTPConfig{URL: hs.URL + "/mcp"})
	}
	v, err := conform.Judge(ctx, conform.Config{Timeout: 3 * time.Second, KillGrace: 10 * time.Millisecond}, c, revision.MustLookup(rev), dial)
	if err != nil {
		t.Fatalf("judge %s: %v", id, err)
	}
	return v
}

// shttpCase is one row of a verdict table.
type shttpCase struct {
	name, id, rev string
	srv           *shttpServer
	want          reports.Status
	says          string // in the message
}

func runSHTTPCases(t *testing.T, cases []shttpCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeSHTTP(t, tc.srv, tc.id, cmpOr(tc.rev, "2025-06-18"))
			if v.Status != tc.want || !strings.Contains(v.Message, tc.says) {
				t.Errorf("%s = %s (%s), want %s mentioning %q", tc.id, v.Status, v.Message, tc.want, tc.says)
			}
		})
	}
}

func TestSessionVerdicts(t *testing.T) {
	seq := func(n int) string { return fmt.Sprintf("session-%08d", n) }
	runSHTTPCases(t, []shttpCase{
		{"assigned at initialize", "SHTTP-SESSION-ASSIGN-01", "", &shttpServer{}, reports.Pass, "assigned on the initialize reply"},
		{"no session is allowed", "SHTTP-SESSION-ASSIGN-01", "", &shttpServer{noSession: true}, reports.Pass, "note: no Mcp-Session-Id"},
		{"another id later warns", "SHTTP-SESSION-ASSIGN-01", "", &shttpServer{otherIDs: true}, reports.Warn, "not the assigned"},

		{"visible ASCII", "SHTTP-SESSION-CHARS-01", "", &shttpServer{}, reports.Pass, "all visible ASCII"},
		{"a space fails", "SHTTP-SESSION-CHARS-01", "", &shttpServer{idOf: func(n int) string { return fmt.Sprintf("session %032d", n) }}, reports.Fail, "session 0"},
		{"no session id", "SHTTP-SESSION-CHARS-01", "", &shttpServer{noSession: true}, reports.Skip, "no session id"},

		{"random ids", "SHTTP-SESSION-SECURE-01", "", &shttpServer{}, reports.Pass, "3 session ids"},
		{"a counter warns", "SHTTP-SESSION-SECURE-01", "", &shttpServer{idOf: seq}, reports.Warn, "differ only by a small count"},
		{"short ids warn", "SHTTP-SESSION-SECURE-01", "", &shttpServer{idOf: func(n int) string { return fmt.Sprintf("s%x", n*7919) }}, reports.Warn, "fewer than 16"},

		{"missing id 400", "SHTTP-SESSION-MISSING-01", "", &shttpServer{}, reports.Pass, "HTTP 400"},
		{"missing id 404 warns", "SHTTP-SESSION-MISSING-01", "", &shttpServer{missingStatus: 404}, reports.Warn, "HTTP 404"},
		{"served without an id", "SHTTP-SESSION-MISSING-01", "", &shttpServer{missingStatus: 200}, reports.Skip, "does not require"},
		{"no sessions", "SHTTP-SESSION-MISSING-01", "", &shttpServer{noSession: true}, reports.Skip, "assigned no session id"},

		{"ended session 404", "SHTTP-SESSION-404-01", "", &shttpServer{}, reports.Pass, "terminated id → HTTP 404"},
		{"DELETE ignored fails", "SHTTP-SESSION-404-01", "", &shttpServer{keepAfterDel: true}, reports.Fail, "terminated id → HTTP 200"},
		{"unknown id 400 warns", "SHTTP-SESSION-404-01", "", &shttpServer{deleteStatus: 405, unknownStatus: 400}, reports.Warn, "never-issued session id → HTTP 400"},
		{"DELETE 405, unknown 404", "SHTTP-SESSION-404-01", "", &shttpServer{deleteStatus: 405}, reports.Pass, "note: "},
		{"no sessions to end", "SHTTP-SESSION-404-01", "", &shttpServer{noSession: true}, reports.Skip, "no session to end"},

		{"DELETE ends", "SHTTP-SESSION-DELETE-01", "", &shttpServer{}, reports.Pass, "HTTP 200"},
		{"DELETE 405", "SHTTP-SESSION-DELETE-01", "", &shttpServer{deleteStatus: 405}, reports.Pass, "note: DELETE → HTTP 405"},
		{"DELETE 400 warns", "SHTTP-SESSION-DELETE-01", "", &shttpServer{deleteStatus: 400}, reports.Warn, "HTTP 400"},

		{"re-init after 404", "SHTTP-SESSION-REINIT-01", "", &shttpServer{}, reports.Pass, "new session id"},
		{"re-init refused warns", "SHTTP-SESSION-REINIT-01", "", &shttpServer{refuseReinit: true}, reports.Warn, "HTTP 400"},
		{"no 404, nothing to judge", "SHTTP-SESSION-REINIT-01", "", &shttpServer{keepAfterDel: true, unknownStatus: 400}, reports.Skip, "no request with 404"},

		{"bad versions 400", "SHTTP-PV-HEADER-BAD-01", "", &shttpServer{}, reports.Pass, "not-a-version"},
		{"bad versions served fail", "SHTTP-PV-HEADER-BAD-01", "2025-11-25", &shttpServer{versionLoose: true}, reports.Fail, "1999-01-01: HTTP 200"},

		{"missing version served", "SHTTP-PV-HEADER-MISSING-01", "", &shttpServer{}, reports.Pass, "was served"},
		{"missing version refused warns", "SHTTP-PV-HEADER-MISSING-01", "2025-11-25", &shttpServer{versionNeeded: true}, reports.Warn, "HTTP 400"},
	})
}

// Over stdio (and HTTP+SSE) the session, endpoint and Origin rules of Streamable
// HTTP do not apply: each of these checks skips as not applicable.
func TestSHTTPNotApplicableOnStdio(t *testing.T) {
	srv := conformtest.NewServer()
	prefixes := []string{"SHTTP-SESSION-", "SHTTP-PV-", "SHTTP-ENDPOINT-", "SHTTP-POST-202-", "SHTTP-POST-REJECT-", "SHTTP-POST-CT-", "SHTTP-BADBODY-", "SHTTP-ORIGIN-"}
	n := 0
	for _, c := range conform.Checks() {
		mine := false
		for _, p := range prefixes {
			mine = mine || strings.HasPrefix(c.ID, p)
		}
		if !mine {
			continue
		}
		n++
		for _, rev := range c.Revisions {
			v := conformtest.Judge(t, c.ID, rev.Name, srv)
			if v.Status != reports.Skip || v.Reason != reports.NotApplicable {
				t.Errorf("%s over stdio in %s = %s %s (%s), want skip not-applicable", c.ID, rev.Name, v.Status, v.Reason, v.Message)
			}
		}
	}
	if n != 16 {
		t.Fatalf("%d checks of these sections are registered, want 16", n)
	}
}

func TestSequential(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"session-00000001", "session-00000002", true},
		{"mcp-session-00000000000000000009", "mcp-session-00000000000000000012", true},
		{"abc-19-x", "abc-21-x", true},
		{"id0000ff", "id000100", true},
		{"7f3c9a2e41b05d68c1e2f3a4b5c6d7e8", "0b9d2c4e6f8a1b3c5d7e9f0a2b4c6d8e", false},
		{"same", "same", false},
		{"session-1", "session-900000", false},
	} {
		if got := sequential(tc.a, tc.b); got != tc.want {
			t.Errorf("sequential(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
