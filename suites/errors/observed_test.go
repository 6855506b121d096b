package errors

import (
	"context"
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
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	_ "github.com/mcp-conform/mcp-conform/suites/base"
	_ "github.com/mcp-conform/mcp-conform/suites/lifecycle"
	_ "github.com/mcp-conform/mcp-conform/suites/transports"
)

// missingCapsServer answers a 2026-07-28 request whose _meta has no
// clientCapabilities with -32021 and no data.requiredCapabilities, as mcp-grafana
// does: the reply to MOD-META-REQUIRED-01's probe.
func missingCapsServer() *conformtest.Server {
	srv := conformtest.Modern(conformtest.NewServer())
	guard := func(result string) conformtest.Handler {
		return func(req *wire.Message) []string {
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			_ = json.Unmarshal(req.Params, &p)
			if _, ok := p.Meta[conform.MetaClientCapabilities]; p.Meta != nil && !ok {
				return []string{conformtest.Error(req, conform.CodeMissingCapability, "client capabilities required")}
			}
			return []string{conformtest.Result(req, result)}
		}
	}
	srv.Handle("server/discover", guard(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted","version":"1"}},"ttlMs":0,"cacheScope":"private"}`))
	srv.Handle("tools/list", guard(`{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"private"}`))
	return srv
}

// The same -32021 without its data is one verdict whatever probe provoked it:
// over stdio it answers MOD-META-REQUIRED-01's probe, whose _meta leaves
// clientCapabilities out on purpose, and ERR-R5-CODES-01 judges it there too.
func TestR5CodesReplyToAnotherProbe(t *testing.T) {
	vs := conformtest.JudgeAll(t, []string{"MOD-META-REQUIRED-01", "ERR-R5-CODES-01"}, "2026-07-28", missingCapsServer())
	v := vs[1]
	t.Logf("%s %s: %s", v.Status, v.Reason, v.Message)
	if v.Status != reports.Fail || !strings.Contains(v.Message, "requiredCapabilities") {
		t.Errorf("ERR-R5-CODES-01 = %s (%s), want fail naming data.requiredCapabilities", v.Status, v.Message)
	}
}

// A -32020 over stdio answers a request that has no HTTP headers: HeaderMismatch
// is used for another meaning.
func TestR5CodesHeaderMismatchOverStdio(t *testing.T) {
	srv := conformtest.Modern(conformtest.NewServer())
	srv.Handle("x_conformance/unknown_method", conformtest.ReplyError(conform.CodeHeaderMismatch))
	vs := conformtest.JudgeAll(t, []string{"BASE-METHOD-UNKNOWN-01", "ERR-R5-CODES-01"}, "2026-07-28", srv)
	v := vs[1]
	t.Logf("%s %s: %s", v.Status, v.Reason, v.Message)
	if v.Status != reports.Fail || !strings.Contains(v.Message, "over stdio") {
		t.Errorf("ERR-R5-CODES-01 = %s (%s), want fail: -32020 over stdio", v.Status, v.Message)
	}
}

// lastEventIDServer is a 2026-07-28 Streamable HTTP server that refuses a
// server/discover carrying Last-Event-ID with HTTP 400 and -32020 "Last-Event-ID is
// not supported", as mcp-grafana does; headerErr 400s with -32020 every request
// whose Mcp-Method header differs from its body (a true mismatch).
type lastEventIDServer struct{ code int }

func (s lastEventIDServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	m, err := wire.Decode(body)
	if err != nil || m.Kind != wire.KindRequest {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	reply := func(status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, msg)
	}
	fail := func(status, code int, text string) {
		reply(status, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, m.ID, code, text))
	}
	switch {
	case r.Header.Get("Mcp-Method") != m.Method:
		fail(400, conform.CodeHeaderMismatch, "Mcp-Method does not match the body")
	case r.Header.Get("Last-Event-ID") != "":
		fail(400, s.code, "Last-Event-ID is not supported")
	case m.Method == "server/discover":
		reply(200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"none"}}`, m.ID))
	default:
		fail(404, wire.CodeMethodNotFound, "no such method")
	}
}

func judgeHTTP(t *testing.T, h http.Handler, ids ...string) []conform.Verdict {
	t.Helper()
	hs := httptest.NewServer(h)
	defer hs.Close()
	var checks []*conform.Check
	for _, id := range ids {
		checks = append(checks, conform.Lookup(id))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(ctx context.Context) (transport.Transport, error) {
		return transport.DialStreamableHTTP(ctx, transport.HTTPConfig{URL: hs.URL + "/mcp"})
	}
	vs, err := conform.JudgeAll(ctx, conform.Config{Timeout: 3 * time.Second, KillGrace: 10 * time.Millisecond}, checks, revision.MustLookup("2026-07-28"), dial)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

// A -32020 refusing a request whose standard headers the suite derived from its
// body and left alone (the probe added only Last-Event-ID) is not a header
// mismatch; a -32020 for a real mismatch (H5-HEADERS-MATCH-01's probes) is.
func TestR5CodesHeaderMismatchOverHTTP(t *testing.T) {
	tests := []struct {
		name string
		code int
		ids  []string
		want reports.Status
		says string
	}{
		{"-32020 for Last-Event-ID fails", conform.CodeHeaderMismatch, []string{"H5-LASTEVENTID-IGNORE-01", "ERR-R5-CODES-01"}, reports.Fail, "Last-Event-ID"},
		{"-32020 for a changed Mcp-Method passes", -32600, []string{"H5-HEADERS-MATCH-01", "ERR-R5-CODES-01"}, reports.Pass, "-32020"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := judgeHTTP(t, lastEventIDServer{code: tc.code}, tc.ids...)
			v := vs[len(vs)-1]
			t.Logf("%s %s: %s", v.Status, v.Reason, v.Message)
			if v.Status != tc.want || !strings.Contains(v.Message, tc.says) {
				t.Errorf("ERR-R5-CODES-01 = %s (%s), want %s mentioning %q", v.Status, v.Message, tc.want, tc.says)
			}
		})
	}
}
