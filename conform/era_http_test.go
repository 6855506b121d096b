package conform_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/refserver"
	"github.com/mcp-conform/mcp-conform/reports"
)

// A legacy Streamable HTTP server that answers a request for a protocol version it
// does not support with a bare HTTP 400 (2025-06-18 on require the 400; a body is
// optional) is a legacy server to era detection, exactly as one whose 400 carries a
// JSON-RPC error: its 2026-07-28 column is revision-unsupported, and the legacy
// columns run. A bare 400 read as a broken server gave 137 errors and exit 1.
func TestBareHTTP400IsALegacyAnswer(t *testing.T) {
	legacy := refserver.NewStreamableHandler(refserver.Options{Era: "legacy"})
	for _, tc := range []struct {
		name string
		body string
	}{
		{"bare 400", ""},
		{"400 with a JSON-RPC error", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Unsupported protocol version"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("MCP-Protocol-Version") == "2026-07-28" {
					if tc.body != "" {
						w.Header().Set("Content-Type", "application/json")
					}
					w.WriteHeader(http.StatusBadRequest)
					_, _ = w.Write([]byte(tc.body))
					return
				}
				legacy.ServeHTTP(w, r)
			})
			res, err := conform.RunLibrary(context.Background(), conform.Handler(h), conform.Revisions("2025-11-25", "2026-07-28"))
			if res == nil {
				t.Fatal(err)
			}
			for _, rev := range res.Report.Revisions {
				errs, unsupported := 0, 0
				for _, c := range rev.Checks {
					switch {
					case c.Status == reports.Error:
						errs++
					case c.Reason == reports.RevisionUnsupported:
						unsupported++
					}
				}
				switch {
				case errs > 0:
					t.Errorf("%s: %d error verdicts, want none (the column is %s)", rev.Revision, errs, rev.Negotiated)
				case rev.Revision == "2026-07-28" && unsupported != len(rev.Checks):
					t.Errorf("2026-07-28: %d of %d checks revision-unsupported, want all", unsupported, len(rev.Checks))
				case rev.Revision == "2025-11-25" && unsupported > 0:
					t.Errorf("2025-11-25: %d checks revision-unsupported, want none", unsupported)
				}
			}
		})
	}
}
