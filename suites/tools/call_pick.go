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

// callCandidates lists the tools TOOLS-CALL-01 may call, in the order it tries
// them: test_simple_text, then the tools allowed with --call in the operator's
// order, then the other callable fixture tools; with none, it ends the check with a
// skip.
func callCandidates(t *conform.T, l *toolkit.Listing) []toolkit.CallableTool {
	callable := toolkit.Callable(t, l)
	opts := t.Options()
	trigger := ""
	if opts.TriggerTool != nil {
		trigger = opts.TriggerTool.Name // it changes the tool list: never called here
	}
	var out []toolkit.CallableTool
	taken := map[string]bool{}
	add := func(c toolkit.CallableTool) {
		if !taken[c.Name] && c.Name != trigger {
			taken[c.Name] = true
			out = append(out, c)
		}
	}
	for _, c := range callable {
		if c.Name == "test_simple_text" {
			add(c)
		}
	}
	for _, spec := range opts.Calls {
		for _, c := range callable {
			if c.Name == spec.Name {
				add(c)
			}
		}
	}
	for _, c := range callable {
		if toolkit.FixtureTools[c.Name] && !unsuitable[c.Name] {
			add(c)
		}
	}
	if len(out) > 0 {
		return out
	}
	if len(l.Tools) == 0 {
		t.SkipNow(conform.MissingFixture, "%s", "the server lists no tool; the fixture tool test_simple_text (the fixture contract, refserver/doc.go), or a tool allowed with --call NAME[=JSON], exercises this")
	}
	nv := toolkit.NotAllowed("TOOLS-CALL-01")
	t.SkipNow(nv.Reason, "%s", nv.Message+"; a server implementing the fixture contract lists test_simple_text")
	return nil
}

// callFirstJudged calls the candidates in order and judges the first answer that
// is evidence: an isError:true result to arguments the suite invented (a tool
// allowed with --call NAME, no =JSON) is the tool refusing input it cannot use —
// tools.mdx's own answer to invalid input — so the next candidate is tried; when
// every candidate refused invented arguments, the call was not exercised.
func callFirstJudged(t *conform.T, cands []toolkit.CallableTool) conform.Verdict {
	var refused []string
	for _, ct := range cands {
		o := toolkit.CallTool(t, ct)
		r := toolcall.Classify(o.Resp, o.Err).InEra(t.Session().Modern())
		if ct.Invented && r.Kind == toolcall.KindResult && r.Result != nil && r.IsError && !r.InputRequired {
			refused = append(refused, fmt.Sprintf("%s %s", ct.Name, conform.ClipBytes(ct.Args, 80)))
			continue
		}
		return judgeCall(ct.Name, r)
	}
	return conform.Skip(conform.NotExercised, "every tool allowed with --call answered isError:true to the arguments the suite built from its inputSchema (%s): a tool may refuse input it cannot use, so no call was judged; give arguments it accepts with --call NAME=JSON", conform.JoinAtMost(refused, 3))
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
