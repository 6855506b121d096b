package conform_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

func TestReproCommand(t *testing.T) {
	tests := []struct {
		name   string
		cfg    conform.Config
		want   []string // the argv the command splits into
		absent []string // text that must not appear
	}{
		{
			name: "bundled server",
			cfg:  conform.Config{},
			want: []string{"mcp-conform", "--revision", "2025-06-18", "--label-filter", "id:PING-01", "--report-dir", "mcp-conform-repro"},
		},
		{
			name: "command with spaces, env, cwd, calls, strict, timeout",
			cfg: conform.Config{
				Target: "node 'my server.js'", Env: []string{"MODE=test it", "API_TOKEN=s3cr3t"}, Cwd: "/srv/x",
				Calls:  []conform.CallSpec{{Name: "echo", Args: []byte(`{"text":"it's"}`)}, {Name: "add"}},
				Strict: true, Timeout: 2 * time.Second,
			},
			want: []string{"mcp-conform", "--target", "node 'my server.js'", "--env", "MODE=test it",
				"--env", "API_TOKEN=<value of API_TOKEN>", "--cwd", "/srv/x",
				"--revision", "2025-06-18", "--label-filter", "id:PING-01",
				"--call", `echo={"text":"it's"}`, "--call", "add", "--timeout", "2s", "--strict",
				"--report-dir", "mcp-conform-repro"},
			absent: []string{"s3cr3t"},
		},
		{
			name: "HTTP with headers: names kept, values never",
			cfg: conform.Config{
				Target: "./srv --port 9", URL: "http://127.0.0.1:9/mcp", Transport: "sse",
				Headers: map[string][]string{"Authorization": {"Bearer hunter2"}, "X-Tenant": {"acme"}},
			},
			want: []string{"mcp-conform", "--target", "./srv --port 9", "--url", "http://127.0.0.1:9/mcp", "--transport", "sse",
				"--header", "Authorization: <value>", "--header", "X-Tenant: <value>",
				"--revision", "2025-06-18", "--label-filter", "id:PING-01", "--report-dir", "mcp-conform-repro"},
			absent: []string{"hunter2", "acme"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := conform.ReproCommand(tc.cfg, "PING-01", "2025-06-18")
			got, err := transport.SplitCommand(cmd)
			if err != nil {
				t.Fatalf("%s: %v", cmd, err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ReproCommand = %s\nsplits into %q\nwant        %q", cmd, got, tc.want)
			}
			for _, s := range tc.absent {
				if strings.Contains(cmd, s) {
					t.Errorf("ReproCommand = %s: holds %q", cmd, s)
				}
			}
		})
	}
}

// sliceProbe is a check registered for this test only: it pings on the main session,
// lists tools on a fresh one (of the two it declared, so one prefetched spare stays
// unused), and fails or passes as asked.
var sliceProbe = conform.Register(conform.Check{
	ID: "ZZ-SLICE-PROBE-01", Title: "test-only probe of the transcript slice", Row: conform.Row{Level: conform.Must, Revisions: revision.All(), Group: conform.GroupBase, Needs: conform.NeedsAny, Source: "test"},
	Phase: conform.PhaseStateChange, Changes: conform.StateToolList, FreshSessions: 2,
	Run: func(t *conform.T) conform.Verdict {
		if _, err := t.Session().Call(t.Ctx, "ping", nil); err != nil {
			return conform.Errorf("ping: %v", err)
		}
		s, err := t.NewSession()
		if err != nil {
			return conform.Errorf("%v", err)
		}
		resp, err := s.Call(t.Ctx, "tools/list", nil)
		if err != nil {
			return conform.Errorf("tools/list: %v", err)
		}
		if strings.Contains(string(resp.Result), "pass-me") {
			return conform.Pass("")
		}
		return conform.Fail("a tool named pass-me", string(resp.Result))
	},
})

func TestVerdictExchangeIsTheCheckSlice(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	judge := func(srv *conformtest.Server) conform.Verdict {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		v, err := conform.Judge(ctx, conform.Config{Timeout: 2 * time.Second, KillGrace: 10 * time.Millisecond}, sliceProbe, rev, srv.Dial)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	if v := judge(conformtest.NewServer().Tools(`{"name":"pass-me","inputSchema":{"type":"object"}}`)); v.Status != reports.Pass || v.Exchange() != nil {
		t.Fatalf("passing verdict %+v: want pass with no exchange", v)
	}

	v := judge(conformtest.NewServer())
	if v.Status != reports.Fail {
		t.Fatalf("verdict %+v, want fail", v)
	}
	ex := v.Exchange()
	if ex == nil || len(ex.Sessions) != 2 {
		t.Fatalf("exchange %+v: want the main session and the one fresh session used (not the unused spare)", ex)
	}
	methods := func(s reports.ExchangeSession) []string {
		var out []string
		for _, m := range s.Messages {
			name := m.Method()
			if name == "" {
				name = "reply"
			}
			out = append(out, m.Dir+" "+name)
		}
		return out
	}
	var sawMain, sawFresh bool
	for _, s := range ex.Sessions {
		if s.Requested != "2025-06-18" || s.Negotiated != "2025-06-18" || s.Session == "" {
			t.Errorf("session head %+v: want requested and negotiated 2025-06-18 and a label", s)
		}
		for i := 1; i < len(s.Messages); i++ {
			if s.Messages[i].Seq <= s.Messages[i-1].Seq || s.Messages[i].At.Before(s.Messages[i-1].At) {
				t.Errorf("session %s: messages out of order: %+v", s.Session, s.Messages)
			}
		}
		got := methods(s)
		switch {
		case slices.Equal(got, []string{"send ping", "recv reply"}):
			sawMain = true // the main session: its handshake came before the check
		case slices.Equal(got, []string{"send tools/list", "recv reply"}):
			sawFresh = true // a prefetched spare: its handshake came before the check too
		case slices.Equal(got, []string{"send initialize", "recv reply", "send notifications/initialized", "send tools/list", "recv reply"}):
			sawFresh = true // a fresh session opened during the check
		default:
			t.Errorf("session %s: unexpected slice %q", s.Session, got)
		}
	}
	if !sawMain || !sawFresh {
		t.Errorf("slice %+v: want the main session's ping and the fresh session's tools/list", ex)
	}
	var text strings.Builder
	if err := reports.WriteExchangeText(&text, ex); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "-> ") || !strings.Contains(text.String(), `"method":"tools/list"`) {
		t.Errorf("exchange text lacks the sent tools/list:\n%s", text.String())
	}
}
