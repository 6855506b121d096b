package refserver

import (
	"strings"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// Completion ({rev}/server/utilities/completion.mdx): completion/complete for the
// arguments of the prompts (prompts.go) and for the variable of one resource
// template, test://items/{id}. Values are the candidates that start with the value
// typed so far; total and hasMore say how many there are.

// completionTemplate is the resource template whose variable completes.
const completionTemplate = "test://items/{id}"

// completionCandidates are the candidates of each completable argument, by reference
// ("prompt:NAME" or "resource:URI") and argument name.
var completionCandidates = map[string]map[string][]string{
	"prompt:greeting":                   {"name": {"Ada", "Alan", "Barbara", "Grace", "Linus"}},
	"prompt:code_review":                {"language": {"c", "cpp", "csharp", "go", "java", "javascript", "kotlin", "python", "ruby", "rust", "swift", "typescript"}, "style": {"brief", "thorough"}},
	"resource:" + completionTemplate:    {"id": {"1", "2", "3", "10", "11"}},
	"prompt:test_prompt_with_arguments": officialCompletions,
}

// styleByLanguage narrows the style candidates by the language already chosen
// (context.arguments, 2025-06-18+).
var styleByLanguage = map[string][]string{"go": {"idiomatic", "brief", "thorough"}, "python": {"pythonic", "brief", "thorough"}}

// handleComplete answers completion/complete. An unknown prompt or template is
// -32602 ({rev}/server/utilities/completion.mdx, Error Handling: "Invalid prompt
// name: -32602").
func handleComplete(s *session, rq *request) outcome {
	fs := s.cfg.faults
	p, e := paramsObject(rq.params)
	if e != nil {
		return fail(e)
	}
	ref, _, e := p.optObject("ref")
	if e == nil && ref == nil {
		e = errInvalidParams("missing required ref")
	}
	if e != nil {
		return fail(e)
	}
	arg, _, e := p.optObject("argument")
	if e == nil && arg == nil {
		e = errInvalidParams("missing required argument")
	}
	if e != nil {
		return fail(e)
	}
	argName, e := arg.reqString("name")
	if e != nil {
		return fail(e)
	}
	value, e := arg.reqString("value")
	if e != nil {
		return fail(e)
	}
	var context map[string]string
	if rq.rev.Has(revision.Title) { // context arrived with title, in 2025-06-18
		c, present, e := p.optObject("context")
		if e != nil {
			return fail(e)
		}
		if present && fs.on(faultCompletionContextRefused) {
			return fail(errInvalidParams("context is not supported"))
		}
		if context, e = stringArguments(c, "arguments"); e != nil {
			return fail(e)
		}
	}
	key, e := completionRef(ref)
	if e != nil {
		return fail(e)
	}
	cands, known := completionCandidates[key]
	if !known {
		if fs.on(faultCompletionUnknownEmpty) {
			return respond(map[string]any{"completion": map[string]any{"values": []string{}, "total": 0, "hasMore": false}})
		}
		return fail(errInvalidParams("unknown reference %s", strings.TrimPrefix(strings.TrimPrefix(key, "prompt:"), "resource:")))
	}
	pool := cands[argName]
	if key == "prompt:code_review" && argName == "style" {
		if narrowed, ok := styleByLanguage[context["language"]]; ok {
			pool = narrowed
		}
	}
	values := []string{}
	for _, c := range pool {
		if strings.HasPrefix(strings.ToLower(c), strings.ToLower(value)) {
			values = append(values, c)
		}
	}
	total, hasMore := len(values), false
	switch {
	case fs.on(faultCompletionTooMany):
		for i := len(values); i < 101; i++ {
			values = append(values, value+strings.Repeat("x", i%7+1))
		}
		total = len(values)
	case fs.on(faultCompletionTotalWrong) && len(values) > 1:
		total = len(values) - 1 // fewer than the values sent, and no more to come
	}
	return respond(map[string]any{"completion": map[string]any{"values": values, "total": total, "hasMore": hasMore}})
}

// completionRef names a PromptReference or ResourceReference ("ref/resource" is
// "ResourceTemplateReference" from 2025-06-18 on, with the same members).
func completionRef(ref params) (string, *rpcError) {
	typ, e := ref.reqString("type")
	if e != nil {
		return "", e
	}
	switch typ {
	case "ref/prompt":
		name, e := ref.reqString("name")
		if e != nil {
			return "", e
		}
		return "prompt:" + name, nil
	case "ref/resource":
		uri, e := ref.reqString("uri")
		if e != nil {
			return "", e
		}
		return "resource:" + uri, nil
	}
	return "", errInvalidParams("unknown reference type %q", typ)
}
