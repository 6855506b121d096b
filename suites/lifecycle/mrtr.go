package lifecycle

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/modern"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The 2026-07-28 rules about client capabilities and multi-round-trip requests
// (MRTR), exercised with the fixture tools of the fixture contract (fixtures/doc.go) and judged on every
// input_required result seen.

// Fixture tools (the fixture contract, fixtures/doc.go).
const (
	toolRequiresElicitation = "test_requires_elicitation"
	toolElicitation         = "test_elicitation"
)

// elicitationCaps is a clientCapabilities object that declares form elicitation.
var elicitationCaps = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}

// fixtureTool finds a fixture tool the suite may call, or the verdict why not.
func fixtureTool(t *conform.T, name string) *conform.Verdict {
	l := toolkit.List(t)
	if v := toolkit.ListVerdict(t, l); v != nil {
		return v
	}
	tl := l.Find(name)
	if tl == nil {
		v := conform.Skip(reports.NeedsFixture, "the fixture tool %s (the fixture contract, fixtures/doc.go) is not listed", name)
		return &v
	}
	if p := toolkit.Allowed(t, *tl); !p.Allowed {
		v := conform.Skip(reports.CallsNotAllowed, "%s", p.Why)
		return &v
	}
	return nil
}

// callDeclaring calls a tool with the session's _meta but clientCapabilities caps.
func callDeclaring(t *conform.T, s *conform.Session, name string, caps map[string]any) (probeAnswer, error) {
	meta := s.Conn.Meta()
	meta[conform.MetaClientCapabilities] = caps
	return callWithMeta(t, s, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}}, meta)
}

// inputCapability is the client capability an input request's method needs.
var inputCapability = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// declaredCaps reads params._meta clientCapabilities of a request.
func declaredCaps(params json.RawMessage) map[string]json.RawMessage {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(p.Meta[conform.MetaClientCapabilities], &caps)
	return caps
}

// inputRequiredProblems judges one input_required result against the request that
// caused it: only an MRTR method, a valid InputRequiredResult with inputRequests or
// requestState, and input requests only of kinds the request declared.
func inputRequiredProblems(rev revision.Revision, r modern.Reply) []string {
	var out []string
	where := fmt.Sprintf("%s (%s)", r.Where, r.Method)
	if !conform.MayRequireInput(r.Method) {
		out = append(out, where+": input_required for a method other than tools/call, prompts/get, resources/read")
	}
	if err := rev.Validate("InputRequiredResult", json.RawMessage(r.Msg.Result)); err != nil {
		out = append(out, where+": not a valid InputRequiredResult: "+err.Error())
	}
	obj := modern.ResultObject(r.Msg.Result)
	_, hasReqs := obj["inputRequests"]
	_, hasState := obj["requestState"]
	if !hasReqs && !hasState {
		out = append(out, where+": neither inputRequests nor requestState")
	}
	var reqs map[string]struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(obj["inputRequests"], &reqs)
	caps := declaredCaps(r.Params)
	for key, ir := range reqs {
		cp, known := inputCapability[ir.Method]
		if !known {
			continue // the schema check above names an unknown kind
		}
		if _, ok := caps[cp]; !ok {
			out = append(out, fmt.Sprintf("%s: inputRequests[%q] asks for %s, but the request declared no %s capability", where, key, ir.Method, cp))
		}
	}
	return out
}

// probeElicitation calls the fixture tool test_elicitation without and with form
// elicitation declared; a verdict when the calls could not be made, nil otherwise.
// Undeclared first: a server that wrongly remembered the declared call's
// capabilities (MOD-STATELESS-01) must not be able to hide this one.
func probeElicitation(t *conform.T) *conform.Verdict {
	s := t.Session()
	for _, caps := range []map[string]any{{}, elicitationCaps} {
		a, err := callDeclaring(t, s, toolElicitation, caps)
		if err != nil {
			v := conform.Errorf("%v", err)
			return &v
		}
		if a.err != nil {
			v := conform.Silence("a reply to "+toolElicitation, a.err)
			return &v
		}
	}
	return nil
}

// MOD-MRTR-01 — 2026-07-28/basic/patterns/mrtr.mdx.
var _ = conform.Register(conform.Check{
	ID: "MOD-MRTR-01", Title: "input_required only for tools/call, prompts/get, resources/read, well-formed, asking only for declared kinds of input",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseTranscript, Needs: conform.NeedsFixture,
	Source: `2026-07-28/basic/patterns/mrtr.mdx: an InputRequiredResult is returned only by tools/call, prompts/get and resources/read; schema InputRequiredResult: "At least one of inputRequests or requestState MUST be present."; 2026-07-28/basic/index.mdx (_meta): "A server MUST NOT rely on capabilities the client has not declared." Exercised by the fixture tool test_elicitation with clientCapabilities {} (no elicitation may be asked for) and with form elicitation declared, and judged on every input_required result seen.`,
	Run: func(t *conform.T) conform.Verdict {
		fixture := ""
		if v := fixtureTool(t, toolElicitation); v == nil {
			// Made once per revision: a transcript-wide check may run twice (to make
			// its probes while the session is open, then to judge).
			probe := t.Once("MOD-MRTR-01:"+t.Rev.Name, func() any { return probeElicitation(t) }).(*conform.Verdict)
			if probe != nil {
				return *probe
			}
			fixture = toolElicitation + " called without and with elicitation declared; "
		} else if v.Status != reports.Skip {
			return *v
		}
		var bad conform.Findings
		n := 0
		for _, r := range modern.Replies(t) {
			var rt struct {
				ResultType string `json:"resultType"`
			}
			if r.Msg.Result == nil || json.Unmarshal(r.Msg.Result, &rt) != nil || rt.ResultType != "input_required" {
				continue
			}
			n++
			bad.Fail(inputRequiredProblems(t.Rev, r)...)
		}
		switch {
		case bad.Failed():
			return bad.Violation("input_required results that follow the MRTR rules")
		case n == 0 && fixture == "":
			return conform.Skip(reports.NeedsFixture, "no input_required result was seen and the fixture tool %s is not callable", toolElicitation)
		case n == 0:
			return conform.Skip(reports.NotExercised, "%sno input_required result was seen", fixture)
		}
		return conform.Pass("%s%d input_required results, each well-formed and asking only for declared kinds of input", fixture, n)
	},
})

// undeclaredCall is the session's first call of test_requires_elicitation with
// clientCapabilities {}: made once per revision and shared, so that
// MOD-CAP-MISSING-01 judges its answer and MOD-STATELESS-01 knows whether it was
// refused before any request declared elicitation, whichever of them runs first.
type undeclaredCall struct {
	a   probeAnswer
	err error
}

func firstUndeclaredCall(t *conform.T) undeclaredCall {
	return t.Once("MOD:undeclared:"+toolRequiresElicitation+":"+t.Rev.Name, func() any {
		a, err := callDeclaring(t, t.Session(), toolRequiresElicitation, map[string]any{})
		return undeclaredCall{a: a, err: err}
	}).(undeclaredCall)
}

// refusedWithout reports whether the first undeclared call was refused with -32021.
func (u undeclaredCall) refusedWithout() bool {
	return u.err == nil && u.a.err == nil && u.a.resp != nil && u.a.resp.IsError() && u.a.resp.Error.Code == conform.CodeMissingCapability
}

// toolNames lists a complete tools/list walk's names, sorted; ok is false when the
// walk did not complete.
func toolNames(t *conform.T, s *conform.Session) (names []string, ok bool) {
	return listedNames(toolkit.Walk(t, s))
}

// listedNames returns the sorted names of a complete listing.
func listedNames(l *toolkit.Listing) (names []string, ok bool) {
	if !l.Complete() {
		return nil, false
	}
	for _, p := range l.Pages {
		for _, tl := range p.Tools {
			names = append(names, tl.Name)
		}
	}
	slices.Sort(names)
	return names, true
}
