package prompts

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// completion/complete (COMPL-*): the first argument of the first listed prompt
// that has one (ref/prompt), and the first variable of the first listed resource
// template (ref/resource; the first page of resources/templates/list).

// maxValues is the most values a CompleteResult may hold
// ({rev}/server/utilities/completion.mdx: "Maximum 100 items per response").
const maxValues = 100

// completion is one completion/complete probe and its reply.
type completion struct {
	What   string // the reference and argument, for messages
	Resp   *wire.Response
	Err    error
	Params map[string]any
}

// completionsOn reports whether the revision's server offers completion: declared
// from 2025-03-26, and in 2024-11-05 (no capability) assumed, the probes' replies
// telling.
func completionsOn(t *conform.T) bool {
	return t.Rev.Before("2025-03-26") || declared(t.Session(), "completions")
}

// requireCompletions ends the check as not applicable when the server did not
// declare completions (2025-03-26 on).
func requireCompletions(t *conform.T) {
	if !completionsOn(t) {
		t.SkipNow(conform.NotApplicable, "the server did not declare the completions capability")
	}
}

// templateVar finds the first variable of an RFC 6570 URI template.
var templateVar = regexp.MustCompile(`\{[+#./;?&]?([A-Za-z0-9_%]+)`)

// targets are the completion probes a server's listings allow: a prompt argument
// and a resource template variable, as completion/complete params.
func targets(t *conform.T) []completion {
	s := t.Session()
	return t.Once("compl.targets:"+s.Label, func() any {
		var out []completion
		if declared(s, "prompts") {
			for _, p := range list(t).Prompts {
				if p.Name != "" && len(p.Args) > 0 {
					out = append(out, completion{
						What:   fmt.Sprintf("ref/prompt %q argument %q", p.Name, p.Args[0].Name),
						Params: map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": p.Name}, "argument": map[string]any{"name": p.Args[0].Name, "value": ""}},
					})
					break
				}
			}
		}
		if declared(s, "resources") {
			resp, err := s.Call(t.Ctx, "resources/templates/list", map[string]any{})
			if err == nil && !resp.IsError() {
				var r struct {
					ResourceTemplates []struct {
						URITemplate string `json:"uriTemplate"`
					} `json:"resourceTemplates"`
				}
				_ = json.Unmarshal(resp.Result, &r)
				for _, rt := range r.ResourceTemplates {
					if m := templateVar.FindStringSubmatch(rt.URITemplate); m != nil {
						out = append(out, completion{
							What:   fmt.Sprintf("ref/resource %q variable %q", rt.URITemplate, m[1]),
							Params: map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": rt.URITemplate}, "argument": map[string]any{"name": m[1], "value": ""}},
						})
						break
					}
				}
			}
		}
		return out
	}).([]completion)
}

// completions sends the probes of targets once per revision.
func completions(t *conform.T) []completion {
	s := t.Session()
	return t.Once("compl.results:"+s.Label, func() any {
		out := targets(t)
		for i := range out {
			out[i].Resp, out[i].Err = s.Call(t.Ctx, "completion/complete", out[i].Params)
		}
		return out
	}).([]completion)
}

// completeResults returns the probes that got a result, ending the check when none
// was made or none got one.
func completeResults(t *conform.T) []completion {
	requireCompletions(t)
	all := completions(t)
	if len(all) == 0 {
		t.SkipNow(conform.NotExercised, "no listed prompt has an argument and no listed resource template has a variable: nothing to complete")
	}
	var ok []completion
	var notes []string
	for _, c := range all {
		switch {
		case c.Err != nil:
			notes = append(notes, fmt.Sprintf("%s: %s", c.What, conform.Describe(nil, c.Err)))
		case c.Resp.IsError() && c.Resp.Error.Code == wire.CodeMethodNotFound && t.Rev.Before("2025-03-26"):
			t.SkipNow(conform.NotApplicable, "completion/complete is answered -32601: the server does not offer completion (2024-11-05 has no completions capability)")
		case c.Resp.IsError():
			notes = append(notes, fmt.Sprintf("%s: %s", c.What, conform.Describe(c.Resp, nil)))
		default:
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		t.SkipNow(conform.NotExercised, "no completion/complete got a result: %s", conform.JoinAtMost(notes, 3))
	}
	return ok
}

// completionOf decodes a CompleteResult's completion (ok false when it is not an
// object with a values array).
type completionBody struct {
	Values  []json.RawMessage `json:"values"`
	Total   *json.Number      `json:"total"`
	HasMore *bool             `json:"hasMore"`
}

func completionOf(result json.RawMessage) (completionBody, bool) {
	var r struct {
		Completion *completionBody `json:"completion"`
	}
	if json.Unmarshal(result, &r) != nil || r.Completion == nil || r.Completion.Values == nil {
		return completionBody{}, false
	}
	return *r.Completion, true
}

// COMPL-CAP-01 — {rev}/server/utilities/completion.mdx (Capabilities).
var _ = conform.Register(conform.Check{
	ID: "COMPL-CAP-01", Title: "a server that answers completion/complete declares capabilities.completions",
	Run: func(t *conform.T) conform.Verdict {
		if raw, ok := t.Session().Capabilities()["completions"]; ok {
			if toolkit.JSONKind(raw) != "object" {
				return conform.Violation("capabilities.completions as an object", "capabilities.completions is "+toolkit.JSONKind(raw))
			}
			return conform.Pass("capabilities.completions declared: %s", conform.ClipBytes(raw, 80))
		}
		all := completions(t)
		if len(all) == 0 {
			return conform.Skip(conform.NotApplicable, "no completions capability, and no listed prompt argument or resource template to complete: the server offers no completion")
		}
		for _, c := range all {
			if c.Err == nil && !c.Resp.IsError() {
				return conform.Violation("capabilities.completions declared by a server that answers completion/complete",
					fmt.Sprintf("no completions capability, yet completion/complete for %s succeeded: %s", c.What, conform.Describe(c.Resp, nil)))
			}
		}
		return conform.Skip(conform.NotApplicable, "no completions capability declared, and completion/complete is refused (%s): the server offers no completion (ERR-NOTDECLARED-01 judges the code)", conform.Describe(all[0].Resp, all[0].Err))
	},
})

// COMPL-RESULT-01 — {rev}/server/utilities/completion.mdx (Completion Results);
// schema CompleteResult.
var _ = conform.Register(conform.Check{
	ID: "COMPL-RESULT-01", Title: "completion/complete for a prompt argument or template variable is a valid CompleteResult of at most 100 values",
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		var what []string
		for _, c := range completeResults(t) {
			f.Judged++
			what = append(what, c.What)
			if err := t.Rev.Validate("CompleteResult", c.Resp.Result); err != nil {
				f.Fail(toolkit.Problems(err, c.What))
				continue
			}
			if b, ok := completionOf(c.Resp.Result); ok && len(b.Values) > maxValues {
				f.Fail(fmt.Sprintf("%s: %d values (at most %d)", c.What, len(b.Values), maxValues))
			}
		}
		return f.Verdict(fmt.Sprintf("a CompleteResult valid under the %s schema with at most %d values", t.Rev.Name, maxValues), "",
			fmt.Sprintf("valid CompleteResult(s), at most %d values, for %s", maxValues, conform.JoinAtMost(what, 2)))
	},
})

// COMPL-TOTAL-01 — schema CompleteResult (total, hasMore); derived.
var _ = conform.Register(conform.Check{
	ID: "COMPL-TOTAL-01", Title: "a completion's total is at least its values, and more than them only with hasMore",
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, c := range completeResults(t) {
			b, ok := completionOf(c.Resp.Result)
			if !ok || b.Total == nil {
				continue
			}
			total, err := b.Total.Int64()
			if err != nil {
				continue // not an integer: COMPL-RESULT-01
			}
			f.Judged++
			n := int64(len(b.Values))
			switch {
			case total < n:
				f.Fail(fmt.Sprintf("%s: total %d, yet %d values were sent", c.What, total, n))
			case total > n && (b.HasMore == nil || !*b.HasMore):
				f.Fail(fmt.Sprintf("%s: total %d with %d values sent, and hasMore is not true", c.What, total, n))
			}
		}
		return f.VerdictOrNone("no completion result carries a total: nothing to compare",
			"total ≥ the values sent, and hasMore: true when total exceeds them", fmt.Sprintf("%d completion result(s) whose total and hasMore agree with their values", f.Judged))
	},
})

// COMPL-UNKNOWN-REF-01 — {rev}/server/utilities/completion.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "COMPL-UNKNOWN-REF-01", Title: "completion/complete for a prompt the server does not have is answered with -32602",
	Run: func(t *conform.T) conform.Verdict {
		requireCompletions(t)
		const name = "x_conformance_nonexistent_prompt"
		resp, err := t.Session().Call(t.Ctx, "completion/complete", map[string]any{
			"ref": map[string]any{"type": "ref/prompt", "name": name}, "argument": map[string]any{"name": "x", "value": ""},
		})
		return t.ExpectRPCError(resp, err, wire.CodeInvalidParams, fmt.Sprintf("completion/complete of ref/prompt %q (no such prompt)", name))
	},
})

// COMPL-CONTEXT-01 — 2025-06-18+/server/utilities/completion.mdx (Requesting
// Completions); schema CompleteRequest.context.
var _ = conform.Register(conform.Check{
	ID: "COMPL-CONTEXT-01", Title: "completion/complete with context.arguments is answered with a valid CompleteResult",
	Run: func(t *conform.T) conform.Verdict {
		requireCompletions(t)
		if !declared(t.Session(), "prompts") {
			return conform.Skip(conform.NotApplicable, "the server did not declare the prompts capability: no prompt arguments to complete in context")
		}
		l := list(t)
		for _, p := range l.Prompts {
			if p.Name == "" || len(p.Args) < 2 {
				continue
			}
			what := fmt.Sprintf("completion/complete of ref/prompt %q argument %q with context.arguments {%q: %q}", p.Name, p.Args[1].Name, p.Args[0].Name, argValue)
			resp, err := t.Session().Call(t.Ctx, "completion/complete", map[string]any{
				"ref":      map[string]any{"type": "ref/prompt", "name": p.Name},
				"argument": map[string]any{"name": p.Args[1].Name, "value": ""},
				"context":  map[string]any{"arguments": map[string]string{p.Args[0].Name: argValue}},
			})
			result := t.ExpectResult(resp, err, what)
			if err := t.Rev.Validate("CompleteResult", result); err != nil {
				return conform.Violation("a valid CompleteResult for "+what, toolkit.Problems(err, "the result"))
			}
			return conform.Pass("%s: a valid CompleteResult", what)
		}
		return conform.Skip(conform.NotExercised, "no listed prompt has two arguments%s: no argument to complete in the context of another", l.partial())
	},
})
