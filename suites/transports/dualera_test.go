package transports

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/refserver"
	"github.com/mcp-conform/mcp-conform/reports"

	_ "github.com/mcp-conform/mcp-conform/suites/lifecycle" // MOD-LEGACY-INIT-01
)

// modernOnlyIDs are the checks of rules that bind only "a server that supports only
// this revision" (2026-07-28).
var modernOnlyIDs = []string{"H5-GET-DELETE-405-01", "H5-SESSION-IGNORE-01", "H5-LASTEVENTID-IGNORE-01", "MOD-LEGACY-INIT-01"}

// dualAsModernOnly is a dual-era server that answers every 2026-07-28 probe exactly
// as a modern-only one would (h5Server: GET and DELETE 405, no session, Last-Event-ID
// ignored, a legacy initialize on the modern connection refused naming 2026-07-28),
// while its legacy sessions (initialize, then requests without Mcp-Method) are the
// reference server's.
func dualAsModernOnly() http.Handler {
	modern, legacy := &h5Server{}, refserver.NewStreamableHandler(refserver.Options{Era: refserver.EraLegacy})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		probe := bytes.Contains(body, []byte(`"legacy-probe"`)) // MOD-LEGACY-INIT-01's initialize
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == "" && !probe {
			legacy.ServeHTTP(w, r)
			return
		}
		modern.ServeHTTP(w, r)
	})
}

// The modern-only rules do not bind a dual-era server: each is not applicable,
// whatever the server answers, also when it answers as a modern-only one would;
// a modern-only server is judged.
func TestModernOnlyRulesSkipDualEra(t *testing.T) {
	for _, tc := range []struct {
		name string
		srv  http.Handler
		want reports.Status
		says string
	}{
		{"dual-era answering as modern-only", dualAsModernOnly(), reports.Skip, "2025-11-25 session was negotiated"},
		{"modern-only", &h5Server{}, reports.Pass, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := conform.RunLibrary(context.Background(), conform.Handler(tc.srv), conform.Revisions("2025-11-25", "2026-07-28"),
				// A legacy check, so that the 2025-11-25 column opens.
				conform.Configure(func(c *conform.Config) { c.Focus = append([]string{`2025-11-25 PING-01 `}, modernOnlyIDs...) }))
			if res == nil {
				t.Fatal(err)
			}
			seen := 0
			for _, rev := range res.Report.Revisions {
				if rev.Revision != "2026-07-28" {
					continue
				}
				for _, c := range rev.Checks {
					seen++
					notApplicable := c.Status != reports.Skip || c.Reason == reports.NotApplicable
					if c.Status != tc.want || !notApplicable || !strings.Contains(c.Message, tc.says) {
						t.Errorf("%s = %s %s (%s), want %s mentioning %q", c.ID, c.Status, c.Reason, c.Message, tc.want, tc.says)
					}
				}
			}
			if seen != len(modernOnlyIDs) {
				t.Errorf("%d verdicts in 2026-07-28, want %d", seen, len(modernOnlyIDs))
			}
		})
	}
}
