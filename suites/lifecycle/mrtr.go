package lifecycle

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/modern"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The 2026-07-28 rules about client capabilities and multi-round-trip requests
// (MRTR), exercised with the fixture tools of the fixture contract (refserver/doc.go) and judged on every
// input_required result seen.

// Fixture tools (the fixture contract, refserver/doc.go).
const (
	toolRequiresElicitation = "test_requires_elicitation"
	toolElicitation         = "test_elicitation"
)

// elicitationCaps is a clientCapabilities object that declares form elicitation.
var elicitationCaps = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}

// fixtureTool ends the check when the fixture tool is not one the suite may call:
// not listed, not allowed, or the listing failed (fixtureVerdict).
func fixtureTool(t *conform.T, name string) {
	if v := fixtureVerdict(t, name); v != nil {
		t.Stop(*v)
	}
}

// fixtureVerdict finds a fixture tool the suite may call, or the verdict why not:
// for the checks that go on without the fixture (MOD-MRTR-01, MOD-STATELESS-01).
func fixtureVerdict(t *conform.T, name string) *conform.Verdict {
	l := toolkit.List(t)
	if v := toolkit.ListVerdict(t, l); v != nil {
		return v
	}
	tl := l.Find(name)
	if tl == nil {
		v := conform.Skip(conform.MissingFixture, "the fixture tool %s (the fixture contract, refserver/doc.go) is not listed", name)
		return &v
	}
	if p := toolkit.Allowed(t, *tl); !p.Allowed {
		v := conform.Skip(conform.CallsNotAllowed, "%s", p.Why)
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
// elicitation declared; a verdict when the calls could not be made, nil otherwise
// (memoized by mrtrElicited, which ends the check with it).
// Undeclared first: a server that wrongly remembered the declared call's
// capabilities (MOD-STATELESS-01) must not be able to hide this one.
// When the fixture prompt introduce_user is listed, its prompts/get is probed the
// same way: prompts/get may answer input_required too (mrtr.mdx).
func probeElicitation(t *conform.T) *conform.Verdict {
	s := t.Session()
	prompt := promptListed(t, promptElicitation)
	for _, caps := range []map[string]any{{}, elicitationCaps} {
		a, err := callDeclaring(t, s, toolElicitation, caps)
		if err == nil && a.err == nil && prompt {
			meta := s.Conn.Meta()
			meta[conform.MetaClientCapabilities] = caps
			a, err = callWithMeta(t, s, "prompts/get", map[string]any{"name": promptElicitation}, meta)
		}
		if err != nil {
			v := conform.Errorf("%v", err)
			return &v
		}
		if a.err != nil {
			v := conform.Silence("a reply to "+toolElicitation+" or prompts/get "+promptElicitation, a.err)
			return &v
		}
	}
	return nil
}

// promptElicitation is the fixture prompt whose prompts/get answers input_required
// (the fixture contract, refserver/doc.go; 2026-07-28 only).
const promptElicitation = "introduce_user"

// promptListed reports whether the main session's prompts/list walk (the one the
// PROMPT checks share) lists the prompt name; false without the prompts capability.
func promptListed(t *conform.T, name string) bool {
	if _, ok := t.Session().Capabilities()["prompts"]; !ok {
		return false
	}
	for _, it := range listwalk.Main(t, "prompts/list", "prompts", map[string]any{}).Items {
		if n, ok := it.String("name"); ok && n == name {
			return true
		}
	}
	return false
}

// mayBeInputRequired reports whether a result's text can hold "resultType":
// "input_required". Most results cannot, and are not decoded.
func mayBeInputRequired(result json.RawMessage) bool {
	return result != nil && rawjson.MayHold(result, "input_required")
}

// MOD-MRTR-01 — 2026-07-28/basic/patterns/mrtr.mdx.
var _ = conform.Register(conform.Check{
	ID: "MOD-MRTR-01", Title: "input_required only for tools/call, prompts/get, resources/read, well-formed, asking only for declared kinds of input",
	Probe: func(t *conform.T) { mrtrElicited(t) },
	Run: func(t *conform.T) conform.Verdict {
		fixture := mrtrElicited(t)
		var bad conform.Findings
		n := 0
		for _, r := range modern.Replies(t) {
			var rt struct {
				ResultType string `json:"resultType"`
			}
			if !mayBeInputRequired(r.Msg.Result) || json.Unmarshal(r.Msg.Result, &rt) != nil || rt.ResultType != "input_required" {
				continue
			}
			n++
			bad.Fail(inputRequiredProblems(t.Rev, r)...)
		}
		switch {
		case bad.Failed():
			return bad.Violation("input_required results that follow the MRTR rules")
		case n == 0 && fixture == "":
			return conform.Skip(conform.MissingFixture, "no input_required result was seen and the fixture tool %s is not callable", toolElicitation)
		case n == 0:
			return conform.Skip(conform.NotExercised, "%sno input_required result was seen", fixture)
		}
		return conform.Pass("%s%d input_required results, each well-formed and asking only for declared kinds of input", fixture, n)
	},
})

// mrtrElicited is MOD-MRTR-01's probe, made once per revision while the column is
// open (Probe) when the fixture tool test_elicitation may be called. It returns what
// the probe did, for the verdict ("" when the fixture is not callable), and ends the
// check when the listing failed or the probe's calls could not be made.
func mrtrElicited(t *conform.T) string {
	if v := fixtureVerdict(t, toolElicitation); v != nil {
		if v.Status != reports.Skip {
			t.Stop(*v)
		}
		return ""
	}
	if probe := t.Once("MOD-MRTR-01:"+t.Rev.Name, func() any { return probeElicitation(t) }).(*conform.Verdict); probe != nil {
		t.Stop(*probe)
	}
	if promptListed(t, promptElicitation) {
		return toolElicitation + " called and prompts/get " + promptElicitation + " sent, without and with elicitation declared; "
	}
	return toolElicitation + " called without and with elicitation declared; "
}

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

// The MRTR round trip driven as a client drives it (2026-07-28/basic/patterns/mrtr.mdx):
// the fixture tool test_elicitation is called with form elicitation declared, its
// InputRequiredResult answered, and the call retried with a new id, the
// inputResponses and the requestState echoed. The server's side of each step is
// judged: it completes the honest retry, rejects a tampered requestState, asks
// again for a missing answer, and refuses inputResponses that are no valid answers.

// mrtrFirst is the first round: what the suite's retries build on.
type mrtrFirst struct {
	skip     *conform.Verdict // why no round trip can be driven
	key      string           // the inputRequests key of the elicitation/create request
	schema   json.RawMessage  // its requestedSchema
	state    string
	hasState bool
}

// mrtrFirstRound calls test_elicitation with form elicitation declared (once per
// revision) and reads its InputRequiredResult; it ends the check when no round trip
// can be driven.
func mrtrFirstRound(t *conform.T) mrtrFirst {
	fixtureTool(t, toolElicitation)
	f := t.Once("MOD-MRTR:first:"+t.Rev.Name, func() any {
		a, err := callDeclaring(t, t.Session(), toolElicitation, elicitationCaps)
		return mrtrReadFirst(a, err)
	}).(mrtrFirst)
	if f.skip != nil {
		t.Stop(*f.skip)
	}
	return f
}

// mrtrReadFirst reads the first round's answer.
func mrtrReadFirst(a probeAnswer, err error) mrtrFirst {
	skip := func(v conform.Verdict) mrtrFirst { return mrtrFirst{skip: &v} }
	switch {
	case err != nil:
		return skip(conform.Errorf("%v", err))
	case a.err != nil || a.resp == nil:
		return skip(conform.Errorf("the first round (%s with form elicitation declared) got no reply: %s", toolElicitation, a.describe()))
	case a.resp.IsError():
		return skip(conform.Skip(conform.NotExercised, "%s with form elicitation declared answered %s: no round trip to drive", toolElicitation, a.describe()))
	}
	obj := modern.ResultObject(a.resp.Result)
	var rt string
	_ = json.Unmarshal(obj["resultType"], &rt)
	if rt != "input_required" {
		return skip(conform.Skip(conform.NotExercised, "%s with form elicitation declared completed without asking for input (%s): no round trip to drive", toolElicitation, a.describe()))
	}
	var reqs map[string]struct {
		Method string `json:"method"`
		Params struct {
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	_ = json.Unmarshal(obj["inputRequests"], &reqs)
	f := mrtrFirst{}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if reqs[k].Method == "elicitation/create" {
			f.key, f.schema = k, reqs[k].Params.RequestedSchema
			break
		}
	}
	if f.key == "" {
		return skip(conform.Skip(conform.NotExercised, "%s's InputRequiredResult asks for no elicitation/create (%s): no answer the suite can build", toolElicitation, conform.ClipBytes(a.resp.Result, 200)))
	}
	if raw, ok := obj["requestState"]; ok {
		f.hasState = json.Unmarshal(raw, &f.state) == nil
	}
	return f
}

// answer is an ElicitResult that accepts the form: content built from the requested
// schema's required properties.
func (f mrtrFirst) answer() map[string]any {
	content := map[string]any{}
	if args, err := toolkit.Synthesize(f.schema); err == nil {
		_ = json.Unmarshal(args, &content)
	}
	return map[string]any{"action": "accept", "content": content}
}

// retry sends the retry with these members besides the tool's name and arguments:
// a new id (Conn.NextID), the same declared capabilities.
func (f mrtrFirst) retry(t *conform.T, s *conform.Session, members map[string]any) (probeAnswer, error) {
	meta := s.Conn.Meta()
	meta[conform.MetaClientCapabilities] = elicitationCaps
	params := map[string]any{"name": toolElicitation, "arguments": map[string]any{}}
	for k, v := range members {
		params[k] = v
	}
	return callWithMeta(t, s, "tools/call", params, meta)
}

// withState adds the requestState to a retry's members, when the first round had one.
func (f mrtrFirst) withState(members map[string]any) map[string]any {
	if f.hasState {
		members["requestState"] = f.state
	}
	return members
}

// Kinds of answer to a retry.
const (
	mrtrComplete      = "a complete result"
	mrtrInputRequired = "input_required again"
	mrtrToolError     = "an isError result"
	mrtrRPCError      = "a JSON-RPC error"
	mrtrNoReply       = "no reply"
)

// mrtrKind says what a retry got.
func mrtrKind(a probeAnswer) string {
	switch {
	case a.err != nil || a.resp == nil:
		return mrtrNoReply
	case a.resp.IsError():
		return mrtrRPCError
	}
	obj := modern.ResultObject(a.resp.Result)
	var rt string
	var isErr bool
	_ = json.Unmarshal(obj["resultType"], &rt)
	_ = json.Unmarshal(obj["isError"], &isErr)
	switch {
	case rt == "input_required":
		return mrtrInputRequired
	case isErr:
		return mrtrToolError
	}
	return mrtrComplete
}

// mrtrProbe runs the first round and one retry, or ends the check when it could not.
func mrtrProbe(t *conform.T, s *conform.Session, needState bool, members func(f mrtrFirst) map[string]any) (probeAnswer, mrtrFirst) {
	f := mrtrFirstRound(t)
	if needState && !f.hasState {
		t.SkipNow(conform.NotExercised, "%s's InputRequiredResult carries no requestState", toolElicitation)
	}
	a, err := f.retry(t, s, members(f))
	if err != nil {
		t.ErrorNow("%v", err)
	}
	return a, f
}

// MOD-MRTR-RETRY-01 — 2026-07-28/basic/patterns/mrtr.mdx (Basic Workflow).
var _ = conform.Register(conform.Check{
	ID: "MOD-MRTR-RETRY-01", Title: "a retry with the answers and the echoed requestState is accepted and completed (or asked again)",
	Run: func(t *conform.T) conform.Verdict {
		a, f := mrtrProbe(t, t.Session(), false, func(f mrtrFirst) map[string]any {
			return f.withState(map[string]any{"inputResponses": map[string]any{f.key: f.answer()}})
		})
		return mrtrJudgeRetry(a, f.hasState)
	},
})

func mrtrJudgeRetry(a probeAnswer, hasState bool) conform.Verdict {
	const want = "the retry (a new id, the answer, the requestState echoed) completed"
	what := "the answer"
	if hasState {
		what += " and the echoed requestState"
	}
	switch mrtrKind(a) {
	case mrtrNoReply:
		return conform.Silence("a reply to the retry", a.err)
	case mrtrRPCError:
		return conform.Violation(want, "the retry with "+what+" was refused: "+a.describe())
	case mrtrInputRequired:
		return conform.Note("the retry with %s was answered with input_required again, which the server may do (\"Servers MAY choose to return an InputRequiredResult on multiple attempts\"); the round trip did not complete", what)
	case mrtrToolError:
		return conform.Note("the retry with %s was accepted, and the tool reported an execution error: %s", what, a.describe())
	}
	return conform.Pass("the retry with %s was accepted and completed: %s", what, conform.Clip(a.describe(), 160))
}

// MOD-MRTR-STATE-01 — 2026-07-28/basic/patterns/mrtr.mdx (Server Requirements).
var _ = conform.Register(conform.Check{
	ID: "MOD-MRTR-STATE-01", Title: "a tampered requestState is rejected, never completed",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no session for the tampered-state probe: %v", err)
		}
		a, _ := mrtrProbe(t, s, true, func(f mrtrFirst) map[string]any {
			return map[string]any{"requestState": mrtrTampered(f.state), "inputResponses": map[string]any{f.key: f.answer()}}
		})
		return mrtrJudgeTampered(a)
	},
})

// mrtrTampered alters a requestState: its last character changed, and a suffix.
func mrtrTampered(state string) string {
	if state == "" {
		return "mcp-conform-tampered"
	}
	last := state[len(state)-1]
	swap := byte('A')
	if last == 'A' {
		swap = 'B'
	}
	return state[:len(state)-1] + string(swap) + "-mcp-conform-tampered"
}

func mrtrJudgeTampered(a probeAnswer) conform.Verdict {
	const want = "the tampered requestState rejected"
	switch k := mrtrKind(a); k {
	case mrtrNoReply:
		return conform.Silence("a reply to the retry with a tampered requestState", a.err)
	case mrtrComplete:
		return conform.Violation(want, "the call completed on the tampered requestState: "+conform.Clip(a.describe(), 160))
	case mrtrRPCError:
		return conform.Pass("the tampered requestState was rejected: %s", a.describe())
	default:
		return conform.Pass("the tampered requestState was not honoured: %s (%s)", k, conform.Clip(a.describe(), 120))
	}
}

// MOD-MRTR-MISSING-01 — 2026-07-28/basic/patterns/mrtr.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "MOD-MRTR-MISSING-01", Title: "a retry without the answer asked for gets input_required again, not an error",
	Run: func(t *conform.T) conform.Verdict {
		a, f := mrtrProbe(t, t.Session(), false, func(f mrtrFirst) map[string]any {
			return f.withState(map[string]any{"inputResponses": map[string]any{}})
		})
		return mrtrJudgeMissing(a, f.key)
	},
})

func mrtrJudgeMissing(a probeAnswer, key string) conform.Verdict {
	const want = "input_required again, asking for the missing answer"
	switch mrtrKind(a) {
	case mrtrNoReply:
		return conform.Silence("a reply to the retry without the answer", a.err)
	case mrtrRPCError, mrtrToolError:
		return conform.Violation(want, "the retry without an answer for "+toolkit.Quote(key)+" got "+a.describe())
	case mrtrComplete:
		return conform.Note("the retry without an answer for %q completed (the server did not need it): %s", key, conform.Clip(a.describe(), 120))
	}
	var reqs map[string]json.RawMessage
	_ = json.Unmarshal(modern.ResultObject(a.resp.Result)["inputRequests"], &reqs)
	if len(reqs) == 0 {
		return conform.Violation(want, "input_required again, but with no inputRequests: the missing information is not asked for")
	}
	return conform.Pass("the retry without the answer got input_required again, asking for %d input%s", len(reqs), toolkit.Plural(len(reqs)))
}

// MOD-MRTR-VALIDATE-01 — 2026-07-28/basic/patterns/mrtr.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "MOD-MRTR-VALIDATE-01", Title: "inputResponses that are no valid answers are refused, not used",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no session for the invalid-answer probes: %v", err)
		}
		f := mrtrFirstRound(t)
		// Each retry waits for its reply, bounded by the request timeout: a barrier
		// proves the silence only of a request answered at once, and an answer is
		// refused (or taken) only after the server validated it, which can take a
		// schema compile (the reference server's first: 0.3 to 0.7 s on a loaded
		// machine). Scratch's barrier stays off for the rest of the check.
		s.Conn.SetBarrier(false)
		probes := []struct {
			what    string
			members map[string]any
		}{
			{"the answer 12345, no ElicitResult", map[string]any{"inputResponses": map[string]any{f.key: 12345}}},
			{"inputResponses a string, no object", map[string]any{"inputResponses": "mcp-conform: not an object"}},
		}
		var answers []mrtrValidateAnswer
		for _, p := range probes {
			a, err := f.retry(t, s, f.withState(p.members))
			if err != nil {
				return conform.Errorf("%v", err)
			}
			answers = append(answers, mrtrValidateAnswer{what: p.what, a: a})
		}
		return mrtrJudgeValidate(answers)
	},
})

// mrtrValidateAnswer is one invalid-answer probe and what it got.
type mrtrValidateAnswer struct {
	what string
	a    probeAnswer
}

func mrtrJudgeValidate(answers []mrtrValidateAnswer) conform.Verdict {
	var f conform.Findings
	for _, x := range answers {
		f.Judged++
		switch k := mrtrKind(x.a); k {
		case mrtrNoReply:
			return conform.Silence("a reply to the retry with "+x.what, x.a.err)
		case mrtrRPCError:
		case mrtrInputRequired:
			f.Note(x.what + ": input_required again (the answer was not used)")
		default:
			f.Fail(fmt.Sprintf("%s: %s, the invalid answer taken (%s)", x.what, k, conform.Clip(x.a.describe(), 120)))
		}
	}
	return f.Verdict("a JSON-RPC error for inputResponses that are no valid answers", "",
		fmt.Sprintf("%d retries with invalid inputResponses, none used", f.Judged))
}
