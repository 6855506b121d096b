package transports

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// h5Server is a scripted 2026-07-28 Streamable HTTP server on loopback: correct by
// default, each field breaks one rule of the transport.
type h5Server struct {
	getStatus       int  // GET and DELETE (0: 405)
	mintSession     bool // every reply carries a fresh Mcp-Session-Id
	lastEventID     int  // a status for a POST carrying Last-Event-ID (0: ignore it)
	headersOptional bool // missing MCP headers are tolerated
	lenientMatch    bool // Mcp-Method and Mcp-Name values are not compared
	noBase64        bool // Mcp-Name is compared undecoded
	nameToolsOnly   bool // Mcp-Name is required and compared on tools/call only
	noBase64Named   bool // Mcp-Name is compared undecoded on resources/read and prompts/get
	unknownStatus   int  // status of -32601 (0: 404)
	versionStatus   int  // status of -32022 (0: 400)
	notifStatus     int  // status of an accepted notification (0: 202)
	anyOrigin       bool // Origin is not checked
	listen          bool // subscriptions/listen opens an SSE stream (else -32601)
	noAccel         bool // that stream has no X-Accel-Buffering: no
	postStatus      int  // every POST is answered with this status and no JSON-RPC body (0: served)
}

func (s *h5Server) reply(w http.ResponseWriter, status int, body string) {
	if s.mintSession {
		w.Header().Set("Mcp-Session-Id", fmt.Sprintf("sid-%d", time.Now().UnixNano()))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func (s *h5Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	errBody := func(id json.RawMessage, code int) string {
		if id == nil {
			id = json.RawMessage("null")
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"x","data":{"supported":["2026-07-28"],"requested":"1999-01-01"}}}`, id, code)
	}
	if r.Method != http.MethodPost {
		s.reply(w, or(s.getStatus, http.StatusMethodNotAllowed), errBody(nil, -32600))
		return
	}
	if s.postStatus != 0 {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "refused", s.postStatus)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !strings.HasPrefix(o, "http://127.0.0.1") && !s.anyOrigin {
		s.reply(w, http.StatusForbidden, errBody(nil, -32600))
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string                     `json:"name"`
			URI  string                     `json:"uri"`
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	b, _ := io.ReadAll(r.Body)
	if json.Unmarshal(b, &m) != nil {
		s.reply(w, http.StatusBadRequest, errBody(nil, -32700))
		return
	}
	if m.ID == nil {
		w.WriteHeader(or(s.notifStatus, http.StatusAccepted))
		return
	}
	if r.Header.Get("Last-Event-ID") != "" && s.lastEventID != 0 {
		s.reply(w, s.lastEventID, errBody(m.ID, -32600))
		return
	}
	var version string
	_ = json.Unmarshal(m.Params.Meta[conform.MetaProtocolVersion], &version)
	mismatch := func() { s.reply(w, http.StatusBadRequest, errBody(m.ID, conform.CodeHeaderMismatch)) }
	hv, hm, hn := r.Header.Get(transport.HeaderProtocolVersion), r.Header.Get(transport.HeaderMethod), r.Header.Get(transport.HeaderName)
	// Mcp-Name mirrors params.name of tools/call and prompts/get, params.uri of
	// resources/read (Standard Request Headers).
	body, named := map[string]string{"tools/call": m.Params.Name, "prompts/get": m.Params.Name, "resources/read": m.Params.URI}[m.Method]
	named = named && (m.Method == "tools/call" || !s.nameToolsOnly)
	if (hv == "" || hm == "" || (named && hn == "")) && !s.headersOptional {
		mismatch()
		return
	}
	if hv != "" && hv != version {
		mismatch()
		return
	}
	undecoded := s.noBase64 || s.noBase64Named && m.Method != "tools/call"
	if !undecoded && strings.HasPrefix(hn, "=?base64?") && strings.HasSuffix(hn, "?=") {
		d, _ := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(hn, "=?base64?"), "?="))
		hn = string(d)
	}
	if !s.lenientMatch && ((hm != "" && hm != m.Method) || (named && hn != "" && hn != body)) {
		mismatch()
		return
	}
	if version != "2026-07-28" {
		s.reply(w, or(s.versionStatus, http.StatusBadRequest), errBody(m.ID, conform.CodeUnsupportedVersion))
		return
	}
	result := func(r string) {
		s.reply(w, http.StatusOK, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, r))
	}
	switch m.Method {
	case "server/discover":
		result(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{},"prompts":{}},"ttlMs":0,"cacheScope":"none"}`)
	case "tools/list":
		result(`{"resultType":"complete","tools":[{"name":"test_simple_text","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"none"}`)
	case "tools/call":
		result(`{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`)
	case "resources/list":
		result(`{"resultType":"complete","resources":[{"uri":"test://static/a","name":"a"}],"ttlMs":0,"cacheScope":"none"}`)
	case "resources/read":
		result(`{"resultType":"complete","contents":[{"uri":"test://static/a","text":"a"}],"ttlMs":0,"cacheScope":"none"}`)
	case "prompts/list":
		result(`{"resultType":"complete","prompts":[{"name":"greet","arguments":[{"name":"who","required":true}]}],"ttlMs":0,"cacheScope":"none"}`)
	case "prompts/get":
		result(`{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}`)
	case "subscriptions/listen":
		if !s.listen {
			s.reply(w, http.StatusNotFound, errBody(m.ID, -32601))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if !s.noAccel {
			w.Header().Set("X-Accel-Buffering", "no")
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // until the client closes the stream
	default:
		s.reply(w, or(s.unknownStatus, http.StatusNotFound), errBody(m.ID, -32601))
	}
}

// judgeH5 runs one check in 2026-07-28 against srv.
func judgeH5(t *testing.T, srv http.Handler, id string) conform.Verdict {
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
	v, err := conform.Judge(ctx, conform.Config{Timeout: 3 * time.Second, KillGrace: 10 * time.Millisecond}, c, revision.MustLookup("2026-07-28"), dial)
	if err != nil {
		t.Fatalf("judge %s: %v", id, err)
	}
	return v
}

func TestH5Verdicts(t *testing.T) {
	tests := []struct {
		name, id string
		srv      *h5Server
		want     reports.Status
		says     string // in the message
	}{
		{"GET and DELETE 405 pass", "H5-GET-DELETE-405-01", &h5Server{}, reports.Pass, "405"},
		// Judge runs 2026-07-28 alone: whether the server serves older clients is
		// unknown, so a SHOULD that binds only modern-only servers is not judged.
		{"GET 400 is not judged without a legacy column", "H5-GET-DELETE-405-01", &h5Server{getStatus: 400}, reports.Skip, "GET → HTTP 400"},
		{"no session pass", "H5-SESSION-IGNORE-01", &h5Server{}, reports.Pass, ""},
		{"minted session not judged alone", "H5-SESSION-IGNORE-01", &h5Server{mintSession: true}, reports.Skip, "Mcp-Session-Id"},
		{"Last-Event-ID ignored pass", "H5-LASTEVENTID-IGNORE-01", &h5Server{}, reports.Pass, ""},
		{"Last-Event-ID refused not judged alone", "H5-LASTEVENTID-IGNORE-01", &h5Server{lastEventID: 400}, reports.Skip, "HTTP 400"},
		{"missing headers rejected pass", "H5-HEADERS-REQUIRED-01", &h5Server{}, reports.Pass, "without Mcp-Name"},
		{"missing headers tolerated fail", "H5-HEADERS-REQUIRED-01", &h5Server{headersOptional: true}, reports.Fail, "without Mcp-Method: HTTP 200"},
		{"Mcp-Name unchecked on resources/read and prompts/get fails", "H5-HEADERS-REQUIRED-01", &h5Server{nameToolsOnly: true}, reports.Fail, `prompts/get "greet" without Mcp-Name: HTTP 200`},
		{"mismatches rejected pass", "H5-HEADERS-MATCH-01", &h5Server{}, reports.Pass, `resources/read "test://static/a" with Mcp-Name: x-conformance:///no/such/resource`},
		{"resource and prompt names not compared fail", "H5-HEADERS-MATCH-01", &h5Server{nameToolsOnly: true}, reports.Fail, `resources/read "test://static/a" with Mcp-Name: x-conformance:///no/such/resource: HTTP 200`},
		{"mismatches accepted fail", "H5-HEADERS-MATCH-01", &h5Server{lenientMatch: true}, reports.Fail, "Mcp-Method: tools/list: HTTP 200"},
		{"case rules pass", "H5-HEADER-CASE-01", &h5Server{}, reports.Pass, ""},
		{"value case ignored fails", "H5-HEADER-CASE-01", &h5Server{lenientMatch: true}, reports.Fail, "SERVER/DISCOVER"},
		{"base64 name decoded pass", "H5-NAME-B64-01", &h5Server{}, reports.Pass, "=?base64?"},
		{"base64 name undecoded fail", "H5-NAME-B64-01", &h5Server{noBase64: true}, reports.Fail, "-32020"},
		{"base64 URI and prompt name undecoded fail", "H5-NAME-B64-01", &h5Server{noBase64Named: true}, reports.Fail, `prompts/get "greet" with Mcp-Name: =?base64?Z3JlZXQ=?=: HTTP 400`},
		{"unknown method 404 pass", "H5-UNKNOWN-METHOD-01", &h5Server{}, reports.Pass, "HTTP 404"},
		{"unknown method 200 fail", "H5-UNKNOWN-METHOD-01", &h5Server{unknownStatus: 200}, reports.Fail, "HTTP 200"},
		{"unknown method 400 fail", "H5-UNKNOWN-METHOD-01", &h5Server{unknownStatus: 400}, reports.Fail, "HTTP 400"},
		{"version 400 pass", "H5-VERSION-400-01", &h5Server{}, reports.Pass, "-32022"},
		{"version 200 fail", "H5-VERSION-400-01", &h5Server{versionStatus: 200}, reports.Fail, "HTTP 200"},
		{"notification 202 pass", "H5-POST-CT-01", &h5Server{}, reports.Pass, ""},
		{"notification refused pass", "H5-POST-CT-01", &h5Server{notifStatus: 400}, reports.Pass, "refused with HTTP 400"},
		{"notification 200 fail", "H5-POST-CT-01", &h5Server{notifStatus: 200}, reports.Fail, "accepted with HTTP 200"},
		{"origin 403 pass", "H5-ORIGIN-403-01", &h5Server{}, reports.Pass, "403"},
		{"origin unchecked fail", "H5-ORIGIN-403-01", &h5Server{anyOrigin: true}, reports.Fail, "HTTP 200"},
		{"SSE with X-Accel-Buffering pass", "H5-XACCEL-01", &h5Server{listen: true}, reports.Pass, "1 SSE"},
		{"SSE without X-Accel-Buffering warns", "H5-XACCEL-01", &h5Server{listen: true, noAccel: true}, reports.Warn, `X-Accel-Buffering ""`},
		{"no SSE at all is not exercised", "H5-XACCEL-01", &h5Server{}, reports.Skip, "listen did not open one"},
		// An opening check: judged from the opening's POST, whether the column opened.
		{"endpoint takes POST passes", "H5-ENDPOINT-01", &h5Server{}, reports.Pass, "POST of server/discover → HTTP 200"},
		{"POST 405 fails", "H5-ENDPOINT-01", &h5Server{postStatus: http.StatusMethodNotAllowed}, reports.Fail, "HTTP 405 (Allow: GET)"},
		{"POST 501 fails", "H5-ENDPOINT-01", &h5Server{postStatus: http.StatusNotImplemented}, reports.Fail, "HTTP 501"},
		{"POST 404 without JSON-RPC is a legacy server", "H5-ENDPOINT-01", &h5Server{postStatus: http.StatusNotFound}, reports.Skip, "HTTP 404 without a JSON-RPC error"},
		{"POST 500 shows nothing of POST", "H5-ENDPOINT-01", &h5Server{postStatus: http.StatusInternalServerError}, reports.Skip, "neither served the POST nor refused the method"},
		{"no version header rejected passes", "H5-NOHEADER-LEGACY-01", &h5Server{}, reports.Pass, "rejected per Server Validation: HTTP 400"},
		// Judge runs 2026-07-28 alone: whether the server serves older clients is
		// unknown, so the MAY cannot be told from the MUST.
		{"no version header served, older clients unknown", "H5-NOHEADER-LEGACY-01", &h5Server{headersOptional: true}, reports.Skip, "not rejected (HTTP 200"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeH5(t, tc.srv, tc.id)
			if v.Status != tc.want || !strings.Contains(v.Message, tc.says) {
				t.Errorf("%s = %s (%s), want %s mentioning %q", tc.id, v.Status, v.Message, tc.want, tc.says)
			}
		})
	}
}

// H5-NOHEADER-LEGACY-01's branches: rejected passes for every server; not rejected is
// the MAY of a server that serves clients older than 2025-06-18, a violation of any
// other, and unknown when the run asked no such revision.
func TestJudgeNoVersionHeader(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rejected bool
		older    legacyTri
		want     conform.Outcome
	}{
		{"rejected, serves older clients", true, legacyYes, conform.OutcomePass},
		{"rejected, serves none", true, legacyNo, conform.OutcomePass},
		{"served, serves older clients", false, legacyYes, conform.OutcomeNote},
		{"served, serves none", false, legacyNo, conform.OutcomeViolation},
		{"served, unknown", false, legacyUnknown, conform.OutcomeSkip},
	} {
		if got := judgeNoVersionHeader("HTTP 200", tc.rejected, tc.older).Outcome(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// The modern-only rules are judged only when the run's legacy columns tell: a
// negotiated legacy revision means the server serves older clients.
func TestServesLegacy(t *testing.T) {
	tests := []struct {
		name  string
		asked map[string]string
		only  []string
		want  legacyTri
	}{
		{"no legacy column", map[string]string{"2026-07-28": "2026-07-28"}, nil, legacyUnknown},
		{"legacy refused", map[string]string{"2025-11-25": "", "2026-07-28": "2026-07-28"}, nil, legacyNo},
		{"legacy served", map[string]string{"2025-11-25": "2025-11-25", "2025-06-18": ""}, nil, legacyYes},
		{"legacy answered with another version", map[string]string{"2025-03-26": "2025-11-25"}, nil, legacyYes},
		{"old clients: 2025-03-26 served", map[string]string{"2025-03-26": "2025-03-26"}, []string{"2024-11-05", "2025-03-26"}, legacyYes},
		{"old clients: 2025-03-26 upgraded", map[string]string{"2025-03-26": "2025-11-25", "2025-11-25": "2025-11-25"}, []string{"2024-11-05", "2025-03-26"}, legacyNo},
		{"old clients: not asked", map[string]string{"2025-11-25": "2025-11-25"}, []string{"2024-11-05", "2025-03-26"}, legacyUnknown},
	}
	for _, tc := range tests {
		if got := servesLegacy(tc.asked, tc.only...); got != tc.want {
			t.Errorf("%s: servesLegacy = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// Over stdio the H5 rules do not apply: every H5 check skips as not applicable.
func TestH5NotApplicableOnStdio(t *testing.T) {
	srv := conformtest.NewServer().Handle("server/discover", conformtest.Reply(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"none"}`))
	n := 0
	for _, c := range conform.Checks() {
		if !strings.HasPrefix(c.ID, "H5-") {
			continue
		}
		n++
		v := conformtest.Judge(t, c.ID, "2026-07-28", srv)
		if v.Status != reports.Skip || v.Reason != reports.NotApplicable {
			t.Errorf("%s over stdio = %s %s (%s), want skip not-applicable", c.ID, v.Status, v.Reason, v.Message)
		}
	}
	if n == 0 {
		t.Fatal("no H5 check is registered")
	}
}

func TestValidPostType(t *testing.T) {
	for ct, want := range map[string]bool{"application/json; charset=utf-8": true, "Text/Event-Stream": true, "text/plain": false, "": false} {
		if got := validPostType(ct); got != want {
			t.Errorf("validPostType(%q) = %v, want %v", ct, got, want)
		}
	}
}
