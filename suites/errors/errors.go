package errors

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/loglevel"
	"github.com/mcp-conform/mcp-conform/suites/internal/modern"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// ERR-R5-CODES-01 — 2026-07-28/basic/index.mdx (Error Codes); schema.
var _ = conform.Register(conform.Check{
	ID: "ERR-R5-CODES-01", Title: "-32020, -32021 and -32022 are used only with their meanings: their data, and HTTP 400",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var bad conform.Findings
		for _, e := range modern.Errors(t) {
			if e.Code > conform.CodeHeaderMismatch || e.Code < conform.CodeUnsupportedVersion {
				continue
			}
			bad.Judged++
			failed := bad.Count()
			if rule, p := modern.CodeProblem(e.Code, e.Data); rule == "meaning" {
				bad.Fail(e.Where + ": " + p)
			}
			if e.Code == conform.CodeHeaderMismatch {
				if p := notHeaderMismatch(e); p != "" {
					bad.Fail(e.Where + ": " + p)
				}
			}
			switch {
			case e.HTTP:
				bad.Fail(fmt.Sprintf("%s: %d came in a 2xx reply or stream, not with HTTP 400", e.Where, e.Code))
			case e.Status != 0 && e.Status != 400:
				bad.Fail(fmt.Sprintf("%s: %d came with HTTP %d, not 400", e.Where, e.Code, e.Status))
			}
			if bad.Count() > failed {
				t.Cite(e.Session, e.Request)
			}
		}
		return bad.VerdictOrNone("no -32020, -32021 or -32022 error was received in this revision's sessions",
			"-32020/-32021/-32022 with their meanings and data, over HTTP with status 400",
			fmt.Sprintf("%d errors -32020…-32022, each with its data", bad.Judged))
	},
})

// notHeaderMismatch says why a -32020 cannot mean what 2026-07-28 defines it for
// ("" when it may): the schema's HeaderMismatchError is "Returned when a server
// rejects a request because the values in the HTTP headers do not match the
// corresponding values in the request body, or because required headers are
// missing or malformed". A request over stdio has no HTTP headers; a POST whose
// standard headers the transport derived from its body (transport.ModernHeaders:
// MCP-Protocol-Version from _meta, Mcp-Method, Mcp-Name from a string name or uri)
// and no probe changed has none missing and none that differs. A tools/call is
// left out: its Mcp-Param headers, which a tool's schema may require, are not
// derived.
func notHeaderMismatch(e modern.SeenError) string {
	switch {
	case e.Kind == "stdio":
		return "-32020 (HeaderMismatch) over stdio, where a request has no HTTP headers to mismatch: the code is used for another meaning"
	case e.Kind != "http" || !e.Headers || e.Method == "tools/call" || !derivedHeaders(e.Method, e.Params):
		return ""
	}
	var std []string
	for _, name := range e.Overrides {
		if n := strings.ToLower(name); n == "mcp-protocol-version" || strings.HasPrefix(n, "mcp-method") || strings.HasPrefix(n, "mcp-name") || strings.HasPrefix(n, "mcp-param-") {
			std = append(std, name)
		}
	}
	if len(std) > 0 {
		return ""
	}
	set := "the probe changed no header"
	if len(e.Overrides) > 0 {
		set = "the probe changed only " + strings.Join(e.Overrides, ", ") + ", no standard header"
	}
	return "-32020 (HeaderMismatch) for a request whose standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) were derived from its body and all present (" + set + "): no header mismatched or was missing, so the code is used for another meaning"
}

// derivedHeaders reports whether the transport derived every standard header a
// request with these params needs: the body's _meta carries the protocol version
// as a string, and a method whose Mcp-Name mirrors params.name or params.uri has a
// string there.
func derivedHeaders(method string, params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
		Name json.RawMessage            `json:"name"`
		URI  json.RawMessage            `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	var s string
	if json.Unmarshal(p.Meta[conform.MetaProtocolVersion], &s) != nil {
		return false
	}
	switch method {
	case "prompts/get":
		return json.Unmarshal(p.Name, &s) == nil
	case "resources/read":
		return json.Unmarshal(p.URI, &s) == nil
	}
	return true
}

// ERR-EXEC-IN-RESULT-01 — schema CallToolResult.isError (2025-06-18 on).
var _ = conform.Register(conform.Check{
	ID: "ERR-EXEC-IN-RESULT-01", Title: "a tool's own failure comes back as an isError:true result, not a JSON-RPC error",
	Run: func(t *conform.T) conform.Verdict {
		o := callErrorFixture(t)
		return judgeExecInResult(toolcall.Classify(o.Resp, o.Err).InEra(t.Session().Modern()))
	},
})

// callErrorFixture calls test_error_handling once per session (memoized), or ends
// the check with a skip that says why it cannot.
func callErrorFixture(t *conform.T) *toolkit.Outcome {
	toolkit.RequireTools(t)
	l := toolkit.List(t)
	tl := l.Find(toolkit.ErrorFixture)
	if tl == nil {
		t.SkipNow(conform.MissingFixture, "%s", "the fixture tool test_error_handling (the fixture contract, refserver/doc.go) is not listed")
	}
	p := toolkit.Allowed(t, *tl)
	if !p.Allowed {
		t.SkipNow(conform.CallsNotAllowed, "%s", p.Why)
	}
	return toolkit.CallTool(t, toolkit.CallableTool{Tool: *tl, Permission: p})
}

// errorFixtureOutcome is the memoized call of test_error_handling (the one
// callErrorFixture makes), or nil when the main session cannot make it.
func errorFixtureOutcome(t *conform.T) *toolkit.Outcome {
	if !toolkit.Declared(t.Session()) {
		return nil
	}
	return toolkit.CallIfAllowed(t, toolkit.List(t), toolkit.ErrorFixture)
}

// judgeExecInResult wants test_error_handling's failure inside an isError:true result.
func judgeExecInResult(r toolcall.Reply) conform.Verdict {
	want := "an isError:true result from test_error_handling, which always fails (the failure reported inside the result)"
	switch {
	case r.Kind == toolcall.KindNone:
		return conform.Silence(want, r.Err)
	case r.Kind == toolcall.KindResult && r.IsError:
		return conform.Pass("%s", "test_error_handling answered "+conform.Clip(r.Desc, 160))
	case r.InputRequired:
		return conform.Violation(want, r.Desc+": the failure is not reported, the server asks for input instead")
	case r.Kind == toolcall.KindResult:
		return conform.Violation(want, "a result without isError:true: "+conform.ClipBytes(r.Raw, 160))
	}
	return conform.Violation(want, r.Desc+": a tool failure sent as a protocol error, which the model never sees")
}

// ERR-ISERROR-CONTENT-01 — schema CallToolResult; {rev}/server/tools.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "ERR-ISERROR-CONTENT-01", Title: "an isError:true result keeps a content array with a text block describing the failure",
	Probe: func(t *conform.T) { errorFixtureOutcome(t) },
	Run: func(t *conform.T) conform.Verdict {
		o := errorFixtureOutcome(t)
		fixture := ""
		if o != nil {
			fixture = "test_error_handling answered " + o.Describe()
		}
		return judgeIsErrorContent(toolcall.SeenCalls(t), o != nil, fixture)
	},
})

// judgeIsErrorContent checks the content of every isError:true result seen;
// called says whether the fixture was called, fixture what became of it.
func judgeIsErrorContent(calls []toolcall.SeenCall, called bool, fixture string) conform.Verdict {
	var problems conform.Findings
	var textless conform.Findings
	var seen []string
	for _, c := range calls {
		if !c.IsError() {
			continue
		}
		seen = append(seen, c.Label())
		raw, ok := c.Result["content"]
		var blocks []struct {
			Type string `json:"type"`
		}
		switch {
		case !ok:
			problems.Fail(c.Label() + ": no content member")
		case json.Unmarshal(raw, &blocks) != nil || string(raw) == "null":
			problems.Fail(fmt.Sprintf("%s: content is %s, not an array", c.Label(), conform.ClipBytes(raw, 60)))
		case !hasText(blocks):
			textless.Warn(fmt.Sprintf("%s: %d content blocks, none of type text", c.Label(), len(blocks)))
		}
	}
	switch {
	case len(seen) == 0 && !called:
		return conform.Skip(conform.MissingFixture, "%s", "no isError:true result was seen; list the fixture tool test_error_handling (the fixture contract, refserver/doc.go), which always fails, to exercise it")
	case len(seen) == 0:
		return conform.Skip(conform.NotExercised, "%s", "no isError:true result was seen: "+fixture)
	case problems.Failed():
		return problems.Violation("a content array in every isError:true result")
	case textless.Warned():
		return textless.Warning("a text block describing the failure in every isError:true result (derived from the spec's example)")
	}
	return conform.Pass("%s", fmt.Sprintf("%d isError:true results, each with a content array holding a text block: %s", len(seen), conform.Clip(strings.Join(seen, ", "), 240)))
}

func hasText(blocks []struct {
	Type string `json:"type"`
}) bool {
	for _, b := range blocks {
		if b.Type == "text" {
			return true
		}
	}
	return false
}

// ERR-ISERROR-STRUCT-01 — 2025-06-18/server/tools.mdx (Output Schema), derived.
var _ = conform.Register(conform.Check{
	ID: "ERR-ISERROR-STRUCT-01", Title: "an isError:true result of a tool with an outputSchema is not held to it, and explains the failure in a text block",
	Probe: func(t *conform.T) { isErrorStructProbe(t) },
	Run: func(t *conform.T) conform.Verdict {
		schemas := map[string]json.RawMessage{}
		for _, tl := range isErrorStructProbe(t).Tools {
			if tl.Has("outputSchema") && tl.Name != "" {
				schemas[tl.Name] = tl.Fields.Get("outputSchema")
			}
		}
		dialect := revision.Draft07
		if t.Rev.Has(revision.DefaultDialect2020) {
			dialect = revision.Draft2020
		}
		return judgeIsErrorStruct(toolcall.SeenCalls(t), schemas, dialect)
	},
})

// isErrorStructProbe is ERR-ISERROR-STRUCT-01's probe: the main session's memoized
// tool listing, when it declared the tools capability (else the check is skipped).
func isErrorStructProbe(t *conform.T) *toolkit.Listing {
	toolkit.RequireTools(t)
	return toolkit.List(t)
}

// judgeIsErrorStruct notes how isError:true results of tools with an outputSchema
// relate to the schema; it never fails.
func judgeIsErrorStruct(calls []toolcall.SeenCall, schemas map[string]json.RawMessage, dialect string) conform.Verdict {
	var textless conform.Findings
	var seen []string
	for _, c := range calls {
		schema, ok := schemas[c.Name]
		if !ok || !c.IsError() {
			continue
		}
		seen = append(seen, c.Label()+": "+structState(c, schema, dialect))
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(c.Result["content"], &blocks) != nil || !hasText(blocks) {
			textless.Warn("no text block in " + c.Label())
		}
	}
	if len(seen) == 0 {
		return conform.Skip(conform.NotExercised, "%s", "no isError:true result of a tool with an outputSchema was seen in this revision's sessions")
	}
	if textless.Warned() {
		return textless.Warning("the failure explained in a text block of every isError:true result (such a result is exempt from the outputSchema)")
	}
	return conform.Note("%s", fmt.Sprintf("%d isError:true results of tools with an outputSchema, not held to it (the MUST covers structured results only): %s", len(seen), strings.Join(seen, "; ")))
}

// structState says how a result's structuredContent relates to the outputSchema.
func structState(c toolcall.SeenCall, schema json.RawMessage, dialect string) string {
	sc, ok := c.Result["structuredContent"]
	if !ok {
		return "no structuredContent"
	}
	ts, err := revision.CompileToolSchema(schema, dialect)
	if err != nil {
		return fmt.Sprintf("structuredContent present; the outputSchema does not compile (%v)", err)
	}
	if err := ts.Validate(sc); err != nil {
		return fmt.Sprintf("structuredContent does not conform (%v), which is allowed", err)
	}
	return "structuredContent conforms"
}

// ERR-LOGLEVEL-01 — {rev}/server/utilities/logging.mdx (Error Handling).
var _ = conform.Register(loglevel.InvalidCheck(conform.Check{
	ID: "ERR-LOGLEVEL-01", Title: "an unknown log level is refused with -32602 (Invalid params), not another code",
}, judgeLogLevelCode))

// judgeLogLevelCode judges the error code the server refused the unknown level
// "verbose" with (the probe LOG-SETLEVEL-INVALID-01 and LOG-R5-INVALID-01 share).
func judgeLogLevelCode(_ *conform.T, a loglevel.InvalidAnswer) conform.Verdict {
	want := "JSON-RPC error -32602 (Invalid params) for " + a.What
	switch {
	case a.Err != nil:
		return conform.Silence(want, a.Err)
	case !a.Resp.IsError():
		return conform.Skip(conform.NotExercised, "%s was accepted (%s): there is no error code to judge (LOG-SETLEVEL-INVALID-01 and LOG-R5-INVALID-01 judge the acceptance)", a.What, conform.Describe(a.Resp, nil))
	case a.Resp.Error.Code == wire.CodeInternalError:
		return conform.Violation(want, conform.Describe(a.Resp, nil)+": -32603 is for configuration and internal errors, an invalid level is -32602")
	case a.Resp.Error.Code != wire.CodeInvalidParams:
		return conform.Violation(want, conform.Describe(a.Resp, nil))
	}
	return conform.Pass("JSON-RPC error -32602 %q", conform.Clip(a.Resp.Error.Message, 80))
}

// gatedMethod is the main method of a server capability: the request ERR-NOTDECLARED-01
// sends when the capability is not declared.
type gatedMethod struct {
	capability, method string
	params             map[string]any
	// from and before bound the revisions where the method is gated by the capability
	// ("" for no bound): completion/complete has a capability from 2025-03-26,
	// logging/setLevel is gone in 2026-07-28.
	from, before string
}

// gatedMethods are the probes, one per server capability with a method behind it.
var gatedMethods = []gatedMethod{
	{capability: "tools", method: "tools/list", params: map[string]any{}},
	{capability: "prompts", method: "prompts/list", params: map[string]any{}},
	{capability: "resources", method: "resources/list", params: map[string]any{}},
	{capability: "completions", method: "completion/complete", from: "2025-03-26", params: map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "x_conformance_prompt"},
		"argument": map[string]any{"name": "x", "value": ""},
	}},
	{capability: "logging", method: "logging/setLevel", before: "2026-07-28", params: map[string]any{"level": "error"}},
}

// ERR-NOTDECLARED-01 — 2026-07-28 schema MethodNotFoundError; JSON-RPC 2.0 §5.1.
var _ = conform.Register(conform.Check{
	ID: "ERR-NOTDECLARED-01", Title: "a method behind a capability the server did not declare is answered with -32601",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no session for the undeclared-capability probes: %v", err)
		}
		caps := s.Capabilities()
		var probes []toolcall.Probe
		for _, g := range gatedMethods {
			if _, declared := caps[g.capability]; declared || (g.from != "" && t.Rev.Before(g.from)) || (g.before != "" && !t.Rev.Before(g.before)) {
				continue
			}
			resp, err := s.Call(t.Ctx, g.method, g.params)
			probes = append(probes, toolcall.Probe{Label: fmt.Sprintf("%s (no %s capability)", g.method, g.capability), R: toolcall.Classify(resp, err)})
			if conform.Gone(err) {
				break
			}
		}
		if t.Ctx.Err() != nil {
			return conform.Errorf("not verified: %v", t.Ctx.Err())
		}
		return judgeNotDeclared(probes)
	},
})

// judgeNotDeclared wants -32601 for every probe.
func judgeNotDeclared(probes []toolcall.Probe) conform.Verdict {
	if len(probes) == 0 {
		return conform.Skip(conform.NotApplicable, "the server declares every capability with a method behind it in this revision")
	}
	return toolcall.JudgeMethodNotFound(probes, "a method behind a capability the server did not declare",
		func(names []string) string { return "-32601 for " + strings.Join(names, ", ") })
}
