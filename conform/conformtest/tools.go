package conformtest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Tool is one scripted tool: its definition (default: name and an object
// inputSchema) and how tools/call answers it.
type Tool struct {
	Def   string
	Reply Handler
}

// ServeTools answers tools/list with the tools and tools/call by name (-32602 for
// an unknown name).
func ServeTools(tools map[string]Tool) *Server {
	srv := NewServer()
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	defs := make([]string, 0, len(names))
	for _, n := range names {
		d := tools[n].Def
		if d == "" {
			d = fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, n)
		}
		defs = append(defs, d)
	}
	srv.Tools(defs...)
	srv.Handle("tools/call", func(req *wire.Message) []string {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Params, &p)
		tl, ok := tools[p.Name]
		if !ok || tl.Reply == nil {
			return []string{Error(req, wire.CodeInvalidParams, "unknown tool")}
		}
		return tl.Reply(req)
	})
	return srv
}

// Content is a CallToolResult with these blocks.
func Content(blocks ...string) string { return `{"content":[` + strings.Join(blocks, ",") + `]}` }

// Case is one row of a verdict table: check ID at revision Rev against the server
// Srv makes, with the status (and skip reason, and a part of the message) it must
// give.
type Case struct {
	Name, ID, Rev string
	Srv           func() *Server
	Want          reports.Status
	Reason        reports.SkipReason
	Opts          []func(*conform.Config)
	Contains      string // a substring the message must contain ("" for any)
}

// RunCases judges every case in a parallel subtest.
func RunCases(t *testing.T, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.ID+"/"+tc.Name, func(t *testing.T) {
			t.Parallel()
			v := Judge(t, tc.ID, tc.Rev, tc.Srv(), tc.Opts...)
			t.Logf("%s %s: %s", v.Status, v.Reason, v.Message)
			if v.Status != tc.Want {
				t.Fatalf("status %s, want %s (%s)", v.Status, tc.Want, v.Message)
			}
			if tc.Reason != "" && v.Reason != tc.Reason {
				t.Errorf("skip reason %s, want %s (%s)", v.Reason, tc.Reason, v.Message)
			}
			if tc.Contains != "" && !strings.Contains(v.Message, tc.Contains) {
				t.Errorf("message %q does not contain %q", v.Message, tc.Contains)
			}
		})
	}
}

// Modern makes srv a 2026-07-28 server: it answers the era probe (server/discover)
// with tools and resources declared, and refuses ping, which 2026-07-28 does not
// have (a check that still pinged for its barrier would find no reply).
func Modern(srv *Server) *Server {
	srv.Handle("server/discover", Reply(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted","version":"1"}},"ttlMs":0,"cacheScope":"private"}`))
	srv.Handle("ping", func(req *wire.Message) []string {
		return []string{Error(req, wire.CodeMethodNotFound, "no ping in 2026-07-28")}
	})
	return srv
}

// TextBlock is a text content block.
const TextBlock = `{"type":"text","text":"hello"}`
