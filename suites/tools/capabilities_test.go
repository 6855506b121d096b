package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// defCase is one verdict-table row of the capability, listing and definition checks.
type defCase struct {
	name, id, rev string
	setup         func(s *conformtest.Server)
	opts          []func(*conform.Config)
	want          reports.Status
	reason        reports.SkipReason // checked when want is Skip
	contains      string             // a substring the message must hold
	excludes      string             // a substring the message must not hold
}

// defRunCases judges every case against a fresh scripted server.
func defRunCases(t *testing.T, cases []defCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.id+"/"+tc.rev+"/"+tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			if tc.setup != nil {
				tc.setup(srv)
			}
			v := conformtest.Judge(t, tc.id, tc.rev, srv, tc.opts...)
			if v.Status != tc.want {
				t.Fatalf("%s: status %s, want %s (%s)", tc.id, v.Status, tc.want, v.Message)
			}
			if tc.want == reports.Skip && tc.reason != "" && v.Reason != tc.reason {
				t.Errorf("%s: skip reason %s, want %s (%s)", tc.id, v.Reason, tc.reason, v.Message)
			}
			if tc.contains != "" && !strings.Contains(v.Message, tc.contains) {
				t.Errorf("%s: message %q lacks %q", tc.id, v.Message, tc.contains)
			}
			if tc.excludes != "" && strings.Contains(v.Message, tc.excludes) {
				t.Errorf("%s: message %q holds %q", tc.id, v.Message, tc.excludes)
			}
		})
	}
}

func defReply(result string) conformtest.Handler {
	return func(req *wire.Message) []string { return []string{conformtest.Result(req, result)} }
}

func defRPCError(code int) conformtest.Handler {
	return func(req *wire.Message) []string { return []string{conformtest.Error(req, code, "nope")} }
}

func defSilent(*wire.Message) []string { return nil }

// defStrict runs the check under --strict.
func defStrict(c *conform.Config) { c.Strict = true }

// defStrictOpts is the option list of a case run under --strict.
var defStrictOpts = []func(*conform.Config){defStrict}

// defInitWith answers initialize echoing the version, after sending extra messages
// (server→client requests) first.
func defInitWith(caps string, before ...string) conformtest.Handler {
	return func(req *wire.Message) []string {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		v, _ := json.Marshal(p.ProtocolVersion)
		res := conformtest.Result(req, `{"protocolVersion":`+string(v)+`,"capabilities":`+caps+`,"serverInfo":{"name":"s","version":"1"}}`)
		return append(append([]string(nil), before...), res)
	}
}

func TestCapabilityVerdicts(t *testing.T) {
	noCaps := func(s *conformtest.Server) { s.Capabilities = `{}` }
	defRunCases(t, []defCase{
		{name: "declared passes", id: "TOOLS-CAP-01", rev: "2024-11-05", want: reports.Pass},
		{name: "declared as true fails", id: "TOOLS-CAP-01", rev: "2025-11-25", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"tools":true}` }},
		{name: "absent and tools/list succeeds fails", id: "TOOLS-CAP-01", rev: "2025-06-18", want: reports.Fail, setup: noCaps},
		{name: "absent and -32601 is a note", id: "TOOLS-CAP-01", rev: "2025-03-26", want: reports.Pass, contains: "-32601",
			setup: func(s *conformtest.Server) { noCaps(s); s.Handle("tools/list", defRPCError(wire.CodeMethodNotFound)) }},
		{name: "absent and another error is a note", id: "TOOLS-CAP-01", rev: "2025-03-26", want: reports.Pass, contains: "note:",
			setup: func(s *conformtest.Server) { noCaps(s); s.Handle("tools/list", defRPCError(-32603)) }},
		{name: "absent and silence is not exercised", id: "TOOLS-CAP-01", rev: "2025-03-26", want: reports.Skip, reason: reports.NotExercised,
			setup: func(s *conformtest.Server) { noCaps(s); s.Handle("tools/list", defSilent) }},

		// 2026-07-28: the capabilities come from the DiscoverResult.
		{name: "declared in the DiscoverResult passes", id: "TOOLS-CAP-01", rev: "2026-07-28", want: reports.Pass},
		{name: "absent from the DiscoverResult and tools/list succeeds fails", id: "TOOLS-CAP-01", rev: "2026-07-28", want: reports.Fail,
			contains: "DiscoverResult", setup: noCaps},
		{name: "string fails in 2026-07-28", id: "TOOLS-CAP-LISTCHANGED-01", rev: "2026-07-28", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"tools":{"listChanged":"yes"}}` }},

		{name: "boolean passes", id: "TOOLS-CAP-LISTCHANGED-01", rev: "2024-11-05", want: reports.Pass},
		{name: "string fails", id: "TOOLS-CAP-LISTCHANGED-01", rev: "2025-11-25", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"tools":{"listChanged":"yes"}}` }},
		{name: "absent flag is not exercised", id: "TOOLS-CAP-LISTCHANGED-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"tools":{}}` }},
		{name: "no tools capability is not applicable", id: "TOOLS-CAP-LISTCHANGED-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotApplicable, setup: noCaps},

		{name: "nothing seen passes with a note", id: "LIFE-CAPS-HONEST-01", rev: "2025-06-18", want: reports.Pass, contains: "none seen in"},
		{name: "sampling in 2025-06-18 fails", id: "LIFE-CAPS-HONEST-01", rev: "2025-06-18", want: reports.Fail, contains: "sampling/createMessage",
			setup: func(s *conformtest.Server) {
				s.Handle("initialize", defInitWith(`{"tools":{}}`, `{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}`))
			}},
		{name: "elicitation in 2025-11-25 fails", id: "LIFE-CAPS-HONEST-01", rev: "2025-11-25", want: reports.Fail, contains: "elicitation/create",
			setup: func(s *conformtest.Server) {
				s.Handle("initialize", defInitWith(`{"tools":{}}`, `{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"x","requestedSchema":{"type":"object","properties":{}}}}`))
			}},
		{name: "roots/list in 2024-11-05 warns", id: "LIFE-CAPS-HONEST-01", rev: "2024-11-05", want: reports.Warn, contains: "roots/list",
			setup: func(s *conformtest.Server) {
				s.Handle("initialize", defInitWith(`{"tools":{}}`, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`))
			}},
		{name: "roots/list in 2025-03-26 fails under strict", id: "LIFE-CAPS-HONEST-01", rev: "2025-03-26", want: reports.Fail, opts: []func(*conform.Config){defStrict},
			setup: func(s *conformtest.Server) {
				s.Handle("initialize", defInitWith(`{"tools":{}}`, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`))
			}},
		{name: "a server ping is fine", id: "LIFE-CAPS-HONEST-01", rev: "2025-06-18", want: reports.Pass,
			setup: func(s *conformtest.Server) {
				s.Handle("initialize", defInitWith(`{"tools":{}}`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			}},
	})
}
