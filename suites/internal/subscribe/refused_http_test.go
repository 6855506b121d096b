package subscribe_test

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
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"

	_ "github.com/mcp-conform/mcp-conform/suites/notifications" // the listen checks
)

// refusingListen is a 2026-07-28 Streamable HTTP server that refuses every
// subscriptions/listen with HTTP 200, application/json and a JSON-RPC error (as
// context7 4.1.1 does), and serves server/discover and tools/list.
func refusingListen(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	b, _ := io.ReadAll(r.Body)
	if json.Unmarshal(b, &m) != nil || m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch m.Method {
	case "server/discover":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"none","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}}`, m.ID)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"none"}}`, m.ID)
	case "subscriptions/listen":
		fmt.Fprintf(w, `{"error":{"code":-32603,"message":"Subscription limit reached"},"id":%s}`, m.ID)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"x"}}`, m.ID)
	}
}

// Over Streamable HTTP a listen refused with a JSON reply (no SSE stream) is the
// subscription's reply, as on stdio: the server refused subscriptions/listen, judged
// at once, not an acknowledgement that never came.
func TestListenRefusedWithJSONOverHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(refusingListen))
	defer srv.Close()
	const timeout = 2 * time.Second
	dial := func(ctx context.Context) (transport.Transport, error) {
		return transport.DialStreamableHTTP(ctx, transport.HTTPConfig{URL: srv.URL + "/mcp", Timeout: timeout})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	v, err := conform.Judge(ctx, conform.Config{Timeout: timeout, KillGrace: 10 * time.Millisecond}, conform.Lookup("NOTIF-LISTEN-ACK-R5-01"), revision.MustLookup("2026-07-28"), dial)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if v.Status != reports.Skip || v.Reason != reports.NotApplicable || !strings.Contains(v.Message, "refused subscriptions/listen") {
		t.Errorf("NOTIF-LISTEN-ACK-R5-01 = %s %s (%s), want skip not-applicable: the server refused subscriptions/listen", v.Status, v.Reason, v.Message)
	}
	if took >= timeout {
		t.Errorf("the verdict took %s, the request timeout (%s) or more: the refusal was not matched to its subscription", took, timeout)
	}
}
