package errorhandling

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// noTools is the skip of a check whose probe needs the tools capability (nil when
// the main session declared it).
func noTools(t *conform.T) *conform.Verdict {
	if toolkit.Declared(t.Session()) {
		return nil
	}
	v := conform.Skip(reports.NotApplicable, "the server did not declare the tools capability")
	return &v
}

// TOOLS-CALL-UNKNOWN-01 — {rev}/server/tools.mdx (Error Handling); design.md §4.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-UNKNOWN-01", Title: "an unknown tool is a JSON-RPC error -32602, not a result",
	Level: conform.Should, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `{rev}/server/tools.mdx (Error Handling): "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools", with the example {"code": -32602, "message": "Unknown tool: invalid_tool_name"}; schema CallToolResult: "any errors in finding the tool … should be reported as an MCP error response". Verdict policy fixed by design.md §4 (it overrides the matrix row's isError → WARN): -32602 pass, another code warn, an isError:true or successful result fail.`,
	Run: func(t *conform.T) conform.Verdict {
		if v := noTools(t); v != nil {
			return *v
		}
		name := unusedName(toolkit.List(t))
		o := toolkit.Call(t, t.Session(), name, json.RawMessage(`{}`))
		return judgeUnknownTool(name, classify(o.Resp, o.Err))
	},
})

// unusedName is x_conformance_nonexistent_<random hex>, never a listed name. Calling
// it executes nothing (tier 0).
func unusedName(l *toolkit.Listing) string {
	for {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		name := "x_conformance_nonexistent_" + hex.EncodeToString(b)
		if l.Find(name) == nil {
			return name
		}
	}
}

// judgeUnknownTool applies design.md §4's fixed policy to the reply to a call of an
// unknown tool.
func judgeUnknownTool(name string, r reply) conform.Verdict {
	want := fmt.Sprintf("JSON-RPC error -32602 for tools/call{name: %q}, a tool that does not exist", name)
	switch {
	case r.kind == rNone:
		return conform.Silence(want, r.err)
	case r.kind == rRPCError && r.code == wire.CodeInvalidParams:
		return conform.Pass("%s", fmt.Sprintf("JSON-RPC error -32602 %q", conform.Clip(r.message, 80)))
	case r.kind == rRPCError:
		return conform.Warn(want, fmt.Sprintf("JSON-RPC error %d %q: a protocol error, but not the code every revision's example uses", r.code, conform.Clip(r.message, 80)))
	case r.kind == rHTTP:
		return conform.Warn(want, r.desc+": an error, but not a JSON-RPC error")
	case r.isError:
		return conform.Fail(want, r.desc+": an unknown tool is a protocol error, not a tool execution error")
	}
	return conform.Fail(want, r.successText()+": the server claims to have run a tool that does not exist")
}

// TOOLS-CALL-MALFORMED-01 — 2025-11-25/server/tools.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-MALFORMED-01", Title: "a tools/call that breaks the CallToolRequest schema is answered with -32602",
	Level: conform.Descriptive, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseOddInput, Needs: conform.NeedsAny,
	Source: `2025-11-25/server/tools.mdx (Error Handling): "Protocol Errors: Standard JSON-RPC errors for issues like: … Malformed requests (requests that fail to satisfy CallToolRequest schema)"; schema CallToolRequest: params {name: string, arguments?: object}; JSON-RPC 2.0 §5.1: "-32602 Invalid params". Explicit from 2025-11-25, the same protocol-error class in every revision. No BCP 14 key word: descriptive, so another answer warns and never fails, also under --strict.`,
	Run: func(t *conform.T) conform.Verdict {
		if v := noTools(t); v != nil {
			return *v
		}
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no fresh session for the malformed tools/call probes: %v", err)
		}
		// Over Streamable HTTP in 2026-07-28 a tools/call whose name is missing or
		// not a string has no Mcp-Name header to send, and the transport rule
		// (basic/transports/streamable-http.mdx: -32020 when "A required standard
		// header … is missing") may reject it before the params are read.
		headerFirst := s.Modern() && s.Kind != "stdio"
		var probes []probe
		headerOK := map[string]bool{}
		for _, m := range malformedCalls(toolkit.List(t)) {
			resp, err := s.Call(t.Ctx, "tools/call", m.params)
			probes = append(probes, probe{label: m.label, r: classify(resp, err)})
			if headerFirst && m.nameless {
				headerOK[m.label] = true
			}
		}
		return judgeMalformed(probes, headerOK)
	},
})

// probe is one request of a multi-request check and its reply.
type probe struct {
	label string
	r     reply
}

type malformedCall struct {
	label    string
	params   any
	nameless bool // no string name: no Mcp-Name header can carry it
}

// malformedCalls are params that break the CallToolRequest schema. The one with array
// arguments names a real tool (preferring one the suite may call), so that only the
// arguments are wrong; a correct server rejects it before dispatch.
func malformedCalls(l *toolkit.Listing) []malformedCall {
	out := []malformedCall{
		{`params {} (no name)`, map[string]any{}, true},
		{`params {"name":5}`, map[string]any{"name": 5}, true},
	}
	if name := realName(l); name != "" {
		out = append(out, malformedCall{fmt.Sprintf(`params {"name":%q,"arguments":[1]}`, name), map[string]any{"name": name, "arguments": []any{1}}, false})
	}
	return out
}

// realName picks a listed tool name for the array-arguments probe.
func realName(l *toolkit.Listing) string {
	if l.Find("test_simple_text") != nil {
		return "test_simple_text"
	}
	for _, tl := range l.Tools {
		if toolkit.FixtureTools[tl.Name] && !unsuitable[tl.Name] {
			return tl.Name
		}
	}
	for _, tl := range l.Tools {
		if tl.Name != "" {
			return tl.Name
		}
	}
	return ""
}

// judgeMalformed wants -32602 for every malformed call; headerOK names the probes
// for which the 2026-07-28 HTTP header error -32020 is an answer too.
func judgeMalformed(probes []probe, headerOK map[string]bool) conform.Verdict {
	var problems, labels, notes []string
	for _, p := range probes {
		switch {
		case p.r.kind == rNone:
			return conform.Silence("JSON-RPC error -32602 for tools/call with "+p.label, p.r.err)
		case p.r.kind == rRPCError && p.r.code == wire.CodeInvalidParams:
			labels = append(labels, p.label)
		case p.r.kind == rRPCError && p.r.code == conform.CodeHeaderMismatch && headerOK[p.label]:
			notes = append(notes, p.label+" got -32020 (no Mcp-Name header can carry a missing or non-string name)")
		case p.r.success():
			problems = append(problems, p.label+": "+p.r.successText()+" (the malformed call was dispatched)")
		default:
			problems = append(problems, p.label+": "+p.r.desc)
		}
	}
	if len(problems) > 0 {
		return conform.Violation("JSON-RPC error -32602 for each tools/call that breaks the CallToolRequest schema", strings.Join(problems, "; "))
	}
	msg := "-32602 for " + strings.Join(labels, ", ")
	if len(probes) < 3 {
		msg += " (no tool is listed, so arguments [1] were not sent)"
	}
	if len(notes) > 0 {
		if len(labels) == 0 {
			msg = "no -32602"
		}
		return conform.Note("%s; %s", msg, strings.Join(notes, "; "))
	}
	return conform.Pass("%s", msg)
}

// BASE-INVALID-PARAMS-01 — JSON-RPC 2.0 §5.1.
var _ = conform.Register(conform.Check{
	ID: "BASE-INVALID-PARAMS-01", Title: "structurally wrong params for tools/list are answered with -32602",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupBase, Phase: conform.PhaseOddInput, Needs: conform.NeedsAny,
	Source: `JSON-RPC 2.0 §5.1: "-32602 Invalid params: Invalid method parameter(s)."; {rev}/basic/index.mdx: messages "MUST follow the JSON-RPC 2.0 specification"; schema PaginatedRequest: params {cursor?: string}. JSON-RPC §4.2 also makes non-structured params ("abc") an invalid Request, so -32600 is accepted for that probe, with a note.`,
	Run: func(t *conform.T) conform.Verdict {
		if v := noTools(t); v != nil {
			return *v
		}
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no fresh session for the invalid-params probes: %v", err)
		}
		id := s.Conn.NextID()
		raw := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/list","params":"abc"}`, id.Raw())
		resp, err := s.Conn.CallRaw(t.Ctx, id, "tools/list", []byte(raw))
		probes := []probe{{label: `tools/list with params "abc"`, r: classify(resp, err)}}
		resp, err = s.Call(t.Ctx, "tools/list", map[string]any{"cursor": 5})
		probes = append(probes, probe{label: `tools/list with params {"cursor":5}`, r: classify(resp, err)})
		return judgeInvalidParams(probes)
	},
})

// judgeInvalidParams wants -32602 for each probe; the first (params "abc", not a
// structured value) may also get -32600.
func judgeInvalidParams(probes []probe) conform.Verdict {
	var problems, notes []string
	for i, p := range probes {
		switch {
		case p.r.kind == rNone:
			return conform.Silence("JSON-RPC error -32602 for "+p.label, p.r.err)
		case p.r.kind == rRPCError && p.r.code == wire.CodeInvalidParams:
		case i == 0 && p.r.kind == rRPCError && p.r.code == wire.CodeInvalidRequest:
			notes = append(notes, p.label+" got -32600, which JSON-RPC §4.2 allows (params must be a structured value)")
		case p.r.kind == rResult:
			problems = append(problems, p.label+": a result "+conform.Clip(string(p.r.raw), 160)+" (the params were not checked)")
		default:
			problems = append(problems, p.label+": "+p.r.desc)
		}
	}
	if len(problems) > 0 {
		return conform.Violation("JSON-RPC error -32602 for structurally wrong params", strings.Join(problems, "; "))
	}
	if len(notes) > 0 {
		return conform.Note("%s", strings.Join(notes, "; ")+"; the others got -32602")
	}
	return conform.Pass("%s", "-32602 for params \"abc\" and {\"cursor\":5}")
}
