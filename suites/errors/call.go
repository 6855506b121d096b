package errorhandling

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// errorFixture is the fixture-contract tool that always fails (spec-matrix §3.2).
const errorFixture = "test_error_handling"

// unsuitable are fixture tools TOOLS-CALL-01 never picks: they fail on purpose,
// change the session's tool list, block, or send server→client requests.
var unsuitable = map[string]bool{
	errorFixture: true, "test_trigger_tool_change": true, "test_slow": true,
	"test_elicitation": true, "test_sampling": true,
}

// TOOLS-CALL-01 — {rev}/server/tools.mdx (Calling Tools); schema CallToolResult.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-01", Title: "a listed tool answers tools/call with a successful CallToolResult with a content array",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseClean, Needs: conform.NeedsCalls,
	Source: `{rev}/server/tools.mdx (Calling Tools): "To invoke a tool, clients send a tools/call request"; schema CallToolResult: "required": ["content"], content {"type":"array"}; isError: "If not set, this is assumed to be false (the call was successful)" (an isError:true result is not a successful call)`,
	Run: func(t *conform.T) conform.Verdict {
		if v := noTools(t); v != nil {
			return *v
		}
		l := toolkit.List(t)
		if v := toolkit.ListVerdict(t, l); v != nil {
			return *v
		}
		ct, skipV := pickCallable(t, l)
		if skipV != nil {
			return *skipV
		}
		o := toolkit.CallTool(t, ct)
		return judgeCall(ct.Name, classify(o.Resp, o.Err).inEra(t.Session().Modern()))
	},
})

// pickCallable chooses the tool TOOLS-CALL-01 calls: test_simple_text, else the
// first tool allowed with --call, else the first other callable fixture tool.
func pickCallable(t *conform.T, l *toolkit.Listing) (toolkit.CallableTool, *conform.Verdict) {
	callable := toolkit.Callable(t, l)
	opts := t.Options()
	allowed := map[string]bool{}
	for _, c := range opts.Calls {
		allowed[c.Name] = true
	}
	trigger := ""
	if opts.TriggerTool != nil {
		trigger = opts.TriggerTool.Name // it changes the tool list: never called here
	}
	for _, pref := range []func(toolkit.CallableTool) bool{
		func(c toolkit.CallableTool) bool { return c.Name == "test_simple_text" },
		func(c toolkit.CallableTool) bool { return allowed[c.Name] && c.Name != trigger },
		func(c toolkit.CallableTool) bool { return !unsuitable[c.Name] && c.Name != trigger },
	} {
		for _, c := range callable {
			if pref(c) {
				return c, nil
			}
		}
	}
	if len(l.Tools) == 0 {
		v := conform.Skip(reports.NeedsFixture, "%s", "the server lists no tool; the fixture tool test_simple_text (spec-matrix §3.2), or a tool allowed with --call NAME[=JSON], exercises this")
		return toolkit.CallableTool{}, &v
	}
	nv := toolkit.NotAllowed("TOOLS-CALL-01")
	v := conform.Skip(nv.Reason, "%s", nv.Message+"; a server implementing the fixture contract lists test_simple_text")
	return toolkit.CallableTool{}, &v
}

// judgeCall wants a successful CallToolResult with a content array.
func judgeCall(name string, r reply) conform.Verdict {
	want := fmt.Sprintf("a successful CallToolResult with a content array from tools/call{name: %q}", name)
	switch {
	case r.kind == rNone:
		return conform.Silence(want, r.err)
	case r.kind != rResult:
		return conform.Violation(want, r.desc)
	case r.result == nil:
		return conform.Violation(want, "a result that is not an object: "+r.desc)
	case r.inputRequired:
		return conform.Violation(want, r.desc+" (asking for input is not completing the call)")
	case r.isError:
		return conform.Violation(want, r.desc+" (a tool execution error is not a successful call)")
	}
	raw, ok := r.result["content"]
	if !ok {
		return conform.Violation(want, "a result without content: "+conform.Clip(string(r.raw), 160))
	}
	var content []json.RawMessage
	if err := json.Unmarshal(raw, &content); err != nil || string(raw) == "null" {
		return conform.Violation(want, fmt.Sprintf("content is %s, not an array", conform.Clip(string(raw), 80)))
	}
	return conform.Pass("%s", fmt.Sprintf("%s answered a CallToolResult with a content array of %d", name, len(content)))
}

// ERR-EXEC-IN-RESULT-01 — schema CallToolResult.isError (2025-06-18 on).
var _ = conform.Register(conform.Check{
	ID: "ERR-EXEC-IN-RESULT-01", Title: "a tool's own failure comes back as an isError:true result, not a JSON-RPC error",
	Level: conform.Should, Revisions: revision.Span("R3+"), Group: conform.GroupErr, Phase: conform.PhaseClean, Needs: conform.NeedsFixture,
	Source: `schema CallToolResult.isError (2025-06-18 on): "Any errors that originate from the tool SHOULD be reported inside the result object, with isError set to true, not as an MCP protocol-level error response. Otherwise, the LLM would not be able to see that an error occurred and self-correct." Exercised by the fixture tool test_error_handling, which always fails (spec-matrix §3.2).`,
	Run: func(t *conform.T) conform.Verdict {
		o, v := callErrorFixture(t)
		if v != nil {
			return *v
		}
		return judgeExecInResult(classify(o.Resp, o.Err).inEra(t.Session().Modern()))
	},
})

// callErrorFixture calls test_error_handling once per session (memoized), or says
// why it cannot.
func callErrorFixture(t *conform.T) (*toolkit.Outcome, *conform.Verdict) {
	if v := noTools(t); v != nil {
		sv := conform.Skip(v.Reason, "%s", v.Message)
		return nil, &sv
	}
	l := toolkit.List(t)
	tl := l.Find(errorFixture)
	if tl == nil {
		v := conform.Skip(reports.NeedsFixture, "%s", "the fixture tool test_error_handling (spec-matrix §3.2) is not listed")
		return nil, &v
	}
	p := toolkit.Allowed(t, *tl)
	if !p.Allowed {
		v := conform.Skip(reports.CallsNotAllowed, "%s", p.Why)
		return nil, &v
	}
	return toolkit.CallTool(t, toolkit.CallableTool{Tool: *tl, Permission: p}), nil
}

// judgeExecInResult wants test_error_handling's failure inside an isError:true result.
func judgeExecInResult(r reply) conform.Verdict {
	want := "an isError:true result from test_error_handling, which always fails (the failure reported inside the result)"
	switch {
	case r.kind == rNone:
		return conform.Silence(want, r.err)
	case r.kind == rResult && r.isError:
		return conform.Pass("%s", "test_error_handling answered "+conform.Clip(r.desc, 160))
	case r.inputRequired:
		return conform.Violation(want, r.desc+": the failure is not reported, the server asks for input instead")
	case r.kind == rResult:
		return conform.Violation(want, "a result without isError:true: "+conform.Clip(string(r.raw), 160))
	}
	return conform.Violation(want, r.desc+": a tool failure sent as a protocol error, which the model never sees")
}
