package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// echoFixture is the fixture-contract tool with a required string and an integer
// parameter (the fixture contract, refserver/doc.go).
const echoFixture = "test_echo"

// The three checks below share one set of probes per session: arguments that break
// the inputSchema of each tool the suite may call with them (tier 1: only test_echo
// and tools allowed with --call), sent on a fresh session since a fragile server may
// not survive them.

// argCheck is an invalid-argument check: judge reads the session's invalid-argument
// probes, which the three such checks share (memoized), in the phase for odd input
// (PhaseOddInput), after the clean checks.
func argCheck(c conform.Check, judge func([]toolcall.Probe) conform.Verdict) conform.Check {
	c.Phase = conform.PhaseOddInput
	c.Run = func(t *conform.T) conform.Verdict {
		return judge(argProbesFor(t).tellable(t))
	}
	return c
}

// argProbes are the invalid-argument calls of one session, or why there are none.
type argProbes struct {
	probes []toolcall.Probe
	tools  []string // the tool each probe called
	// controls are the replies to a call of each tool with valid arguments.
	controls map[string]toolcall.Reply
	skip     *conform.Verdict // set in the memoized probe, which cannot end the check
}

// argCall is one invalid-argument call to make.
type argCall struct {
	tool, label string
	args        json.RawMessage
	valid       json.RawMessage // arguments the tool accepts, for the control call (nil: none known)
	// callable, when set, is the tool as the calling policy allows it, with valid as its
	// arguments: the control is then the session's one call of it (toolkit.CallTool),
	// which the checks of tool results share, instead of the same request again.
	callable *toolkit.CallableTool
}

// tellable returns the probes whose replies tell something: a rejection of invalid
// arguments shows validation only when the same tool answers valid arguments with a
// successful result — a tool that fails every call (a backend that cannot start)
// rejects invalid arguments too, and proves nothing (issue 9 item 5). Accepted
// invalid input and silence are kept whatever the control call got. With nothing
// left, the check ends with skip: not-exercised, with the reason.
func (ps argProbes) tellable(t *conform.T) []toolcall.Probe {
	var out []toolcall.Probe
	var untold []string
	for i, p := range ps.probes {
		control, ok := ps.controls[ps.tools[i]]
		if p.R.Kind == toolcall.KindNone || p.R.Success() || (ok && control.Success()) {
			out = append(out, p)
			continue
		}
		what := "no valid arguments are known for it"
		if ok {
			what = "with valid arguments it got " + control.Desc
		}
		untold = append(untold, fmt.Sprintf("%s (%s)", p.Label, what))
	}
	if len(out) == 0 {
		t.SkipNow(conform.NotExercised, "the rejections cannot be told from a tool that fails every call: %s", conform.JoinAtMost(untold, 3))
	}
	return out
}

// argProbesFor runs the probes once per session (memoized) on the session for odd
// input, or ends the check with the skip that says why there are none.
func argProbesFor(t *conform.T) argProbes {
	toolkit.RequireTools(t)
	ps := t.Once("errors.invalidargs:"+t.Session().Label, func() any { return runArgProbes(t) }).(argProbes)
	if ps.skip != nil {
		t.Stop(*ps.skip)
	}
	return ps
}

func runArgProbes(t *conform.T) argProbes {
	l := toolkit.List(t)
	if v := toolkit.ListVerdict(t, l); v != nil {
		// The probes need a listed tool; the list itself is judged by TOOLS-LIST-01.
		sv := conform.Skip(conform.NotExercised, "%s", "the tool list could not be read, so no tool was probed: "+v.Message)
		return argProbes{skip: &sv}
	}
	calls, why := argCalls(t, l)
	if why != nil {
		return argProbes{skip: why}
	}
	// The main session, without the silence barrier of T.Scratch: a server that
	// wrongly accepts the arguments runs the tool, which may take its time.
	s := t.Session()
	out := argProbes{controls: map[string]toolcall.Reply{}}
	for _, c := range calls {
		if _, done := out.controls[c.tool]; !done && c.valid != nil {
			var o *toolkit.Outcome
			if c.callable != nil {
				o = toolkit.CallTool(t, *c.callable)
			} else {
				o = toolkit.Call(t, s, c.tool, c.valid)
			}
			out.controls[c.tool] = toolcall.Classify(o.Resp, o.Err).InEra(s.Modern())
		}
		o := toolkit.Call(t, s, c.tool, c.args)
		out.probes = append(out.probes, toolcall.Probe{Label: fmt.Sprintf("%s %s", c.tool, c.label), R: toolcall.Classify(o.Resp, o.Err).InEra(s.Modern())})
		out.tools = append(out.tools, c.tool)
	}
	return out
}

// argCalls picks the tools and builds their invalid arguments: test_echo by the
// fixture contract, every tool allowed with --call from its inputSchema.
func argCalls(t *conform.T, l *toolkit.Listing) ([]argCall, *conform.Verdict) {
	var calls []argCall
	var unbreakable []string
	if l.Find(echoFixture) != nil {
		valid := json.RawMessage(`{"text":"x-conformance"}`)
		calls = append(calls,
			argCall{tool: echoFixture, label: "without the required text", args: json.RawMessage(`{}`), valid: valid},
			argCall{tool: echoFixture, label: `with count "three" (a string for an integer)`, args: json.RawMessage(`{"text":"x-conformance","count":"three"}`), valid: valid})
	}
	allowed := 0
	for _, spec := range t.Options().Calls {
		tl := l.Find(spec.Name)
		if tl == nil || spec.Name == echoFixture {
			continue
		}
		allowed++
		base := spec.Args
		var callable *toolkit.CallableTool
		if p := toolkit.Allowed(t, *tl); p.Allowed {
			if base == nil {
				base = p.Args
			}
			if bytes.Equal(base, p.Args) {
				callable = &toolkit.CallableTool{Tool: *tl, Permission: p}
			}
		}
		built := invalidArgs(tl.Fields.Get("inputSchema"), base)
		if len(built) == 0 {
			unbreakable = append(unbreakable, spec.Name)
		}
		for _, b := range built {
			calls = append(calls, argCall{tool: spec.Name, label: b.label, args: b.args, valid: base, callable: callable})
		}
	}
	switch {
	case len(calls) > 0:
		return calls, nil
	case allowed > 0:
		v := conform.Skip(conform.NotExercised, "%s", fmt.Sprintf("the inputSchema of %s has no required or typed property, so no invalid arguments could be built", strings.Join(unbreakable, ", ")))
		return nil, &v
	case len(l.Tools) == 0:
		v := conform.Skip(conform.MissingFixture, "%s", "the server lists no tool; the fixture tool test_echo (the fixture contract, refserver/doc.go), or a tool allowed with --call NAME[=JSON], exercises this")
		return nil, &v
	}
	v := conform.Skip(conform.CallsNotAllowed, "%s", "needs the fixture tool test_echo, or a tool allowed with --call NAME[=JSON] (invalid arguments are built from its inputSchema; no tool of the target is executed by default)")
	return nil, &v
}

// builtArgs is one set of invalid arguments with what makes them invalid.
type builtArgs struct {
	label string
	args  json.RawMessage
}

// invalidArgs builds arguments that break a tool's inputSchema from valid ones (base,
// nil for none): one without a required property, one with a property of the wrong
// type (a required one if any is typed). It returns none when the schema has no
// required and no typed property.
func invalidArgs(schema, base json.RawMessage) []builtArgs {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	valid := map[string]any{}
	_ = json.Unmarshal(base, &valid)
	var out []builtArgs
	if len(s.Required) > 0 {
		args := copyArgs(valid)
		delete(args, s.Required[0])
		out = append(out, builtArgs{fmt.Sprintf("without the required %s", s.Required[0]), encode(args)})
	}
	if name, value, typ, ok := wrongTyped(s.Properties, s.Required); ok {
		args := copyArgs(valid)
		args[name] = value
		vb, _ := json.Marshal(value)
		out = append(out, builtArgs{fmt.Sprintf("with %s %s (not of type %s)", name, vb, typ), encode(args)})
	}
	return out
}

// wrongTyped picks a typed property (required ones first, then by name) and a value
// of none of its types.
func wrongTyped(props map[string]map[string]any, required []string) (string, any, string, bool) {
	names := append([]string(nil), required...)
	var rest []string
	for n := range props {
		rest = append(rest, n)
	}
	sort.Strings(rest)
	names = append(names, rest...)
	for _, n := range names {
		p, ok := props[n]
		if !ok {
			continue
		}
		types := typesOf(p["type"])
		if len(types) == 0 {
			continue
		}
		if v, ok := valueNotOf(types); ok {
			return n, v, strings.Join(types, "|"), true
		}
	}
	return "", nil, "", false
}

func typesOf(t any) []string {
	switch t := t.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// valueNotOf returns a value whose JSON type is none of types.
func valueNotOf(types []string) (any, bool) {
	has := map[string]bool{}
	for _, t := range types {
		has[t] = true
	}
	candidates := []struct {
		v     any
		types []string
	}{
		{"x-conformance-wrong-type", []string{"string"}},
		{12345, []string{"integer", "number"}},
		{true, []string{"boolean"}},
		{[]any{}, []string{"array"}},
		{map[string]any{}, []string{"object"}},
	}
	for _, c := range candidates {
		ok := true
		for _, ct := range c.types {
			if has[ct] {
				ok = false
			}
		}
		if ok {
			return c.v, true
		}
	}
	return nil, false
}

func copyArgs(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func encode(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// firstSilent returns the verdict for the first probe that got no reply.
func firstSilent(probes []toolcall.Probe, want string) *conform.Verdict {
	for _, p := range probes {
		if p.R.Kind == toolcall.KindNone {
			v := conform.Silence(want+" for "+p.Label, p.R.Err)
			return &v
		}
	}
	return nil
}

// judgeInvalidArgsEither (2024-11-05 … 2025-06-18): -32602 or isError:true pass;
// a successful result or another error warns.
func judgeInvalidArgsEither(probes []toolcall.Probe) conform.Verdict {
	const want = "JSON-RPC error -32602 or an isError:true result"
	if v := firstSilent(probes, want); v != nil {
		return *v
	}
	var problems conform.Findings
	var seen []string
	for _, p := range probes {
		switch {
		case p.R.Kind == toolcall.KindRPCError && p.R.Code == wire.CodeInvalidParams, p.R.Kind == toolcall.KindResult && p.R.IsError:
			seen = append(seen, p.Label+": "+p.R.Channel())
		case p.R.Success():
			problems.Warn(p.Label + ": " + p.R.SuccessText())
		default:
			problems.Warn(p.Label + ": " + p.R.Desc)
		}
	}
	if problems.Warned() {
		return problems.Warning(want + " for arguments that break the inputSchema")
	}
	return conform.Pass("%s", strings.Join(seen, "; "))
}

// judgeInvalidArgsR4 (2025-11-25): isError:true passes, -32602 passes with a note,
// anything else is a violation of the descriptive row (a warning).
func judgeInvalidArgsR4(probes []toolcall.Probe) conform.Verdict {
	const want = "an isError:true result (a tool execution error) for arguments that break the inputSchema"
	if v := firstSilent(probes, want); v != nil {
		return *v
	}
	var problems conform.Findings
	var seen []string
	protocol := false
	for _, p := range probes {
		switch {
		case p.R.Kind == toolcall.KindResult && p.R.IsError:
			seen = append(seen, p.Label+": "+p.R.Channel())
		case p.R.Kind == toolcall.KindRPCError && p.R.Code == wire.CodeInvalidParams:
			protocol = true
			seen = append(seen, p.Label+": "+p.R.Channel())
		case p.R.Success():
			problems.Fail(p.Label + ": " + p.R.SuccessText())
		default:
			problems.Fail(p.Label + ": " + p.R.Desc)
		}
	}
	switch {
	case problems.Failed():
		return problems.Violation(want)
	case protocol:
		return conform.Note("%s", strings.Join(seen, "; ")+"; -32602 is accepted: tools.mdx (2025-11-25 on) asks for isError, but the 2026-07-28 schema still shows -32602 for invalid tool arguments (catalogue row TOOLS-CALL-INVALIDARGS-R4-01)")
	}
	return conform.Pass("%s", strings.Join(seen, "; "))
}

// judgeValidate: any rejection shows validation; a successful result warns.
func judgeValidate(probes []toolcall.Probe) conform.Verdict {
	const want = "invalid input rejected (an error reply or an isError:true result)"
	if v := firstSilent(probes, want); v != nil {
		return *v
	}
	var accepted conform.Findings
	var seen []string
	for _, p := range probes {
		switch {
		case p.R.Success():
			accepted.Warn(p.Label + ": " + p.R.SuccessText())
			continue
		case p.R.InputRequired:
			// Asking for input goes on with the call: the arguments were not rejected.
			accepted.Warn(p.Label + ": " + p.R.Desc)
			continue
		}
		seen = append(seen, p.Label+": "+p.R.Channel())
	}
	if accepted.Warned() {
		return accepted.Warning(want + " (a warning, not a failure: coercion cannot be told apart from a missing validation)")
	}
	return conform.Pass("%s", strings.Join(seen, "; "))
}
