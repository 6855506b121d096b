package conform

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// On a stdio legacy server that answers the era probe, the version probe goes on
// with the era probe's process (server/discover, then initialize as a dual-era
// client falls back) and the run starts one process fewer; on a modern server, or a
// legacy one that died on the probe, the version probe starts a process of its own.
func TestVersionProbeOnEraProbeProcess(t *testing.T) {
	tests := []struct {
		name      string
		discover  discoverAnswer
		handed    bool
		wantDials int32
	}{
		{"legacy server that answers discover with an error", discoverNotFound, true, 2},
		{"lenient legacy server that answers discover with {}", discoverResult, true, 2},
		{"modern server", discoverModern, false, 3},
		{"legacy server that dies on discover", discoverCrash, false, 3},
	}
	legacy, modern := revision.MustLookup("2025-06-18"), revision.MustLookup("2026-07-28")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withRegistry(t, func() {
				Register(Check{ID: "AA-PROBE-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{legacy}, Group: GroupBase, Source: "test"},
					PreOpen: []string{"1999-01-01"}, Run: call("ping")})
				Register(Check{ID: "AB-MOD-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{modern}, Group: GroupBase, Source: "test"},
					Run: call("ping")})
				if err := RegistryErr(); err != nil {
					t.Fatal(err)
				}
				srv := &pipeServer{discover: tc.discover}
				cfg := Config{Timeout: time.Second, KillGrace: 10 * time.Millisecond, Revisions: []revision.Revision{legacy, modern}}.withDefaults()
				sel, err := newSelection(cfg)
				if err != nil {
					t.Fatal(err)
				}
				rs := newRunState(cfg, dialTarget{dialer: srv.dial}, sel)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				rs.ctx = ctx
				rs.openColumns(ctx)
				p := rs.preOpened["1999-01-01"]
				if p == nil || !p.wait(ctx) {
					t.Fatal("the version probe's session did not open")
				}
				eraCol := rs.columns[1]
				eraMain := eraCol.main
				rs.closeSessions(context.Background())
				if n := srv.dials.Load(); n != tc.wantDials {
					t.Errorf("%d processes started, want %d", n, tc.wantDials)
				}
				if p.err != nil {
					t.Fatalf("the version probe's session: %v", p.err)
				}
				onEra := eraMain != nil && p.s.Conn == eraMain.Conn
				if onEra != tc.handed {
					t.Fatalf("the version probe went on with the era probe's process: %v, want %v", onEra, tc.handed)
				}
				eraCol.mu.Lock()
				kept := slices.Contains(eraCol.sessions, eraMain)
				eraCol.mu.Unlock()
				if kept == tc.handed {
					t.Errorf("the era column keeps the era probe's session for its transcripts: %v, want %v", kept, !tc.handed)
				}
				if !tc.handed {
					return
				}
				var methods []string
				entries, _ := p.s.Conn.Transcript()
				for _, e := range entries {
					if e.Dir != wire.Sent || e.Msg == nil || e.Msg.Kind != wire.KindRequest && e.Msg.Kind != wire.KindNotification {
						continue
					}
					methods = append(methods, e.Msg.Method)
					var params map[string]json.RawMessage
					_ = json.Unmarshal(e.Msg.Params, &params)
					_, hasMeta := params["_meta"]
					if hasMeta != (e.Msg.Method == "server/discover") {
						t.Errorf("%s carries _meta: %v", e.Msg.Method, hasMeta)
					}
					if e.Msg.Method == "initialize" && string(params["protocolVersion"]) != `"1999-01-01"` {
						t.Errorf("initialize asks for %s, want 1999-01-01", params["protocolVersion"])
					}
				}
				if want := []string{"server/discover", "initialize", "notifications/initialized"}; !slices.Equal(methods[:min(3, len(methods))], want) {
					t.Errorf("the process was sent %v, want %v first", methods, want)
				}
				if p.s.Rev.Name != legacy.Name || p.s.Requested != "1999-01-01" || p.s.Init == nil || p.s.Init.IsError() {
					t.Errorf("the version probe's session: rev %s, asked %s, init %v", p.s.Rev.Name, p.s.Requested, p.s.Init)
				}
			})
		})
	}
}
