package lifecycle

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The 2026-07-28 rules about client capabilities and multi-round-trip requests
// (MRTR), exercised with the fixture tools of spec-matrix §3.2 and judged on every
// input_required result seen.

// Fixture tools (spec-matrix §3.2).
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
		v := conform.Skip(reports.NeedsFixture, "the fixture tool %s (spec-matrix §3.2) is not listed", name)
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

// MOD-CAP-MISSING-01 — 2026-07-28/basic/index.mdx (_meta); schema MissingRequiredClientCapabilityError.
var _ = conform.Register(conform.Check{
	ID: "MOD-CAP-MISSING-01", Title: "a request that needs an undeclared client capability gets -32021 naming it (HTTP 400)",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseClean, Needs: conform.NeedsFixture,
	Source: `2026-07-28/basic/index.mdx (_meta): "A server MUST NOT rely on capabilities the client has not declared. If processing a request requires a capability that is not present in io.modelcontextprotocol/clientCapabilities, the server MUST return a MissingRequiredClientCapabilityError (-32021) whose data.requiredCapabilities lists the missing capabilities. On HTTP, the response status MUST be 400 Bad Request." Exercised by the fixture tool test_requires_elicitation, called with clientCapabilities {}.`,
	Run: func(t *conform.T) conform.Verdict {
		if v := fixtureTool(t, toolRequiresElicitation); v != nil {
			return *v
		}
		s := t.Session()
		a, err := callDeclaring(t, s, toolRequiresElicitation, map[string]any{})
		if err != nil {
			return conform.Errorf("%v", err)
		}
		want := "-32021 with data.requiredCapabilities naming elicitation, for " + toolRequiresElicitation + " called with clientCapabilities {}"
		if a.err != nil {
			return t.Silent(want, a.err)
		}
		if p := a.rejected(s.Kind, conform.CodeMissingCapability); p != "" {
			return t.Violation(want, p)
		}
		if err := s.Rev.Validate("MissingRequiredClientCapabilityError", json.RawMessage(a.resp.Msg.Raw)); err != nil {
			return t.Violation(want+", valid under the "+s.Rev.Name+" schema", err.Error())
		}
		var d struct {
			Required map[string]json.RawMessage `json:"requiredCapabilities"`
		}
		_ = json.Unmarshal(a.resp.Error.Data, &d)
		if _, ok := d.Required["elicitation"]; !ok {
			return t.Violation(want, "data.requiredCapabilities is "+conform.Clip(string(a.resp.Error.Data), 80))
		}
		return conform.Pass("-32021, data %s", conform.Clip(string(a.resp.Error.Data), 120))
	},
})

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
func inputRequiredProblems(rev revision.Revision, r modernReply) []string {
	var out []string
	where := fmt.Sprintf("%s (%s)", r.where, r.method)
	if !conform.MayRequireInput(r.method) {
		out = append(out, where+": input_required for a method other than tools/call, prompts/get, resources/read")
	}
	if err := rev.Validate("InputRequiredResult", json.RawMessage(r.msg.Result)); err != nil {
		out = append(out, where+": not a valid InputRequiredResult: "+err.Error())
	}
	obj := resultObject(r.msg.Result)
	_, hasReqs := obj["inputRequests"]
	_, hasState := obj["requestState"]
	if !hasReqs && !hasState {
		out = append(out, where+": neither inputRequests nor requestState")
	}
	var reqs map[string]struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(obj["inputRequests"], &reqs)
	caps := declaredCaps(r.params)
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
			v := t.Silent("a reply to "+toolElicitation, a.err)
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
		var bad []string
		n := 0
		for _, r := range modernReplies(t) {
			var rt struct {
				ResultType string `json:"resultType"`
			}
			if r.msg.Result == nil || json.Unmarshal(r.msg.Result, &rt) != nil || rt.ResultType != "input_required" {
				continue
			}
			n++
			bad = append(bad, inputRequiredProblems(t.Rev, r)...)
		}
		switch {
		case len(bad) > 0:
			return t.Violation("input_required results that follow the MRTR rules", conform.JoinAtMost(bad, 3))
		case n == 0 && fixture == "":
			return conform.Skip(reports.NeedsFixture, "no input_required result was seen and the fixture tool %s is not callable", toolElicitation)
		case n == 0:
			return conform.Skip(reports.NotExercised, "%sno input_required result was seen", fixture)
		}
		return conform.Pass("%s%d input_required results, each well-formed and asking only for declared kinds of input", fixture, n)
	},
})

// refusedEarlier reports whether a call of the tool that declared no elicitation
// capability was refused with -32021 earlier in the revision's sessions.
func refusedEarlier(t *conform.T, tool string) bool {
	for _, r := range modernReplies(t) {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(r.params, &p)
		if _, declared := declaredCaps(r.params)["elicitation"]; r.method != "tools/call" || p.Name != tool || declared {
			continue
		}
		if r.msg.Kind == wire.KindError && r.msg.Error != nil && r.msg.Error.Code == conform.CodeMissingCapability {
			return true
		}
	}
	return false
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

// MOD-STATELESS-01 — 2026-07-28/basic/index.mdx (Statelessness).
var _ = conform.Register(conform.Check{
	ID: "MOD-STATELESS-01", Title: "the server does not carry context from earlier requests on the connection",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `2026-07-28/basic/index.mdx (Statelessness): "Servers MUST NOT rely on prior requests over the same connection to establish context (e.g., capabilities, protocol version, client identity)." Probed within the column's one connection: tools/list before and after requests that declare other capabilities must match, and (fixture) test_requires_elicitation called with clientCapabilities {} right after a call that declared elicitation must still be -32021.`,
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		if _, ok := s.Capabilities()["tools"]; !ok {
			return conform.Skip(reports.NotApplicable, "the server declares no tools capability: tools/list, the request compared, is not served")
		}
		// Before: the session's listing (toolkit.List), taken before any request of
		// this check declared other capabilities.
		before, ok := listedNames(toolkit.List(t))
		if !ok {
			return conform.Skip(reports.NotExercised, "tools/list did not complete (TOOLS-LIST rows judge it)")
		}
		var bad []string
		fixture := ""
		if v := fixtureTool(t, toolRequiresElicitation); v == nil {
			// Undeclared, declared, undeclared again: only a server that refuses the
			// first (MOD-CAP-MISSING-01 judges that) can show whether the declared
			// call's capabilities outlived it.
			var refused []bool
			for _, caps := range []map[string]any{{}, elicitationCaps, {}} {
				a, err := callDeclaring(t, s, toolRequiresElicitation, caps)
				if err != nil {
					return conform.Errorf("%v", err)
				}
				if a.err != nil {
					return t.Silent("a reply to "+toolRequiresElicitation, a.err)
				}
				refused = append(refused, a.resp.IsError())
			}
			switch {
			case !refused[0] && refusedEarlier(t, toolRequiresElicitation):
				bad = append(bad, toolRequiresElicitation+" with clientCapabilities {} succeeded, though the same request was refused earlier in this session, before other requests declared elicitation: the server used an earlier request's capabilities")
			case !refused[0]:
				fixture = "; " + toolRequiresElicitation + " is not refused without elicitation, so it cannot show remembered capabilities"
			case !refused[2]:
				bad = append(bad, toolRequiresElicitation+" with clientCapabilities {} was refused, then succeeded right after a call that declared elicitation: the server used the earlier request's capabilities")
			default:
				fixture = "; " + toolRequiresElicitation + " without elicitation still refused after a call that declared it"
			}
		}
		// Requests that carry other context: rich capabilities and a client identity.
		meta := s.Conn.Meta()
		meta[conform.MetaClientCapabilities] = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}, "sampling": map[string]any{}, "roots": map[string]any{}}
		meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "mcp-conform-stateless-probe", "version": "1"}
		for _, m := range []string{"server/discover", "tools/list"} {
			if a, err := callWithMeta(t, s, m, nil, meta); err != nil {
				return conform.Errorf("%v", err)
			} else if a.err != nil {
				return t.Silent("a reply to "+m, a.err)
			}
		}
		after, ok := toolNames(t, s)
		if !ok {
			return conform.Skip(reports.NotExercised, "the second tools/list did not complete")
		}
		if !slices.Equal(before, after) {
			bad = append(bad, fmt.Sprintf("tools/list with the same _meta changed after requests that declared other capabilities: before %s, after %s", conform.Clip(strings.Join(before, ","), 120), conform.Clip(strings.Join(after, ","), 120)))
		}
		if len(bad) > 0 {
			return t.Violation("every request served from its own _meta alone", strings.Join(bad, "; "))
		}
		where := "within the column's one stdio process"
		if s.Kind != "stdio" {
			where = "over HTTP, where each POST is a request of its own and no connection is shared by design"
		}
		return conform.Pass("tools/list unchanged (%d tools) after requests with other capabilities and a client identity, %s%s", len(before), where, fixture)
	},
})
