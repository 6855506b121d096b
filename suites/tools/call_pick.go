package tools

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// unsuitable are fixture tools TOOLS-CALL-01 never picks: they fail on purpose,
// change the session's tool list, block, or send server→client requests.
var unsuitable = map[string]bool{
	toolkit.ErrorFixture: true, "test_trigger_tool_change": true, "test_slow": true,
	"test_elicitation": true, "test_sampling": true,
}

// pickCallable chooses the tool TOOLS-CALL-01 calls: test_simple_text, else the
// first tool allowed with --call, else the first other callable fixture tool; with
// none, it ends the check with a skip.
func pickCallable(t *conform.T, l *toolkit.Listing) toolkit.CallableTool {
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
				return c
			}
		}
	}
	if len(l.Tools) == 0 {
		t.SkipNow(conform.MissingFixture, "%s", "the server lists no tool; the fixture tool test_simple_text (the fixture contract, refserver/doc.go), or a tool allowed with --call NAME[=JSON], exercises this")
	}
	nv := toolkit.NotAllowed("TOOLS-CALL-01")
	t.SkipNow(nv.Reason, "%s", nv.Message+"; a server implementing the fixture contract lists test_simple_text")
	return toolkit.CallableTool{}
}

// judgeCall wants a successful CallToolResult with a content array.
func judgeCall(name string, r toolcall.Reply) conform.Verdict {
	want := fmt.Sprintf("a successful CallToolResult with a content array from tools/call{name: %q}", name)
	switch {
	case r.Kind == toolcall.KindNone:
		return conform.Silence(want, r.Err)
	case r.Kind != toolcall.KindResult:
		return conform.Violation(want, r.Desc)
	case r.Result == nil:
		return conform.Violation(want, "a result that is not an object: "+r.Desc)
	case r.InputRequired:
		return conform.Violation(want, r.Desc+" (asking for input is not completing the call)")
	case r.IsError:
		return conform.Violation(want, r.Desc+" (a tool execution error is not a successful call)")
	}
	raw, ok := r.Result["content"]
	if !ok {
		return conform.Violation(want, "a result without content: "+conform.ClipBytes(r.Raw, 160))
	}
	var content []json.RawMessage
	if err := json.Unmarshal(raw, &content); err != nil || string(raw) == "null" {
		return conform.Violation(want, fmt.Sprintf("content is %s, not an array", conform.ClipBytes(raw, 80)))
	}
	return conform.Pass("%s", fmt.Sprintf("%s answered a CallToolResult with a content array of %d", name, len(content)))
}
