package base

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// status400Server is a 2026-07-28 Streamable HTTP server that answers every
// malformed or unknown request with HTTP 400 and a JSON-RPC error body, as
// 2026-07-28 requires (context7, mongodb, notion, mcp-grafana do).
func status400Server(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	reply := func(status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, msg)
	}
	m, err := wire.Decode(body)
	switch {
	case !json.Valid(body):
		reply(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
	case err != nil || m.Kind != wire.KindRequest && m.Kind != wire.KindNotification:
		reply(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`)
	case m.Kind == wire.KindNotification:
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "server/discover":
		reply(200, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"none"}}`, m.ID))
	default:
		reply(404, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, m.ID))
	}
}

// The error replies that came with HTTP 400 are received error replies: the base
// error checks judge them as they judge those of a 2xx reply or of stdio.
func TestErrorChecksReadHTTP400Bodies(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(status400Server))
	defer hs.Close()
	ids := []string{"BASE-PARSE-01", "BASE-ERR-ID-01", "BASE-ERR-CODES-01", "BASE-ERR-SHAPE-01"}
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
	for i, v := range vs {
		t.Logf("%s: %s %s: %s", ids[i], v.Status, v.Reason, v.Message)
		if v.Status != reports.Pass {
			t.Errorf("%s = %s (%s), want pass", ids[i], v.Status, v.Message)
		}
	}
}
