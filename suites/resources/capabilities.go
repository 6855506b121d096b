package resources

import (
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// RES-CAP-01 — {rev}/server/resources.mdx (Capabilities).
var _ = conform.Register(conform.Check{
	ID: "RES-CAP-01", Title: "a server that serves resources declares capabilities.resources (an object)",
	Run: func(t *conform.T) conform.Verdict {
		if obj, ok := capability(t); ok {
			if obj == nil {
				raw := t.Session().Capabilities()["resources"]
				return conform.Violation("capabilities.resources as an object", "capabilities.resources is "+toolkit.JSONKind(raw)+": "+conform.ClipBytes(raw, 80))
			}
			return conform.Pass("capabilities.resources declared: %s", conform.ClipBytes(t.Session().Capabilities()["resources"], 80))
		}
		l := resourceList(t)
		first := l.First()
		if first == nil {
			return conform.Errorf("resources/list was not called (--max-pages?)")
		}
		return judgeUndeclaredList(*first, t.Session().Modern())
	},
})

// judgeUndeclaredList judges the first resources/list page of a server that did not
// declare the resources capability.
func judgeUndeclaredList(first listwalk.Page, modern bool) conform.Verdict {
	switch {
	case first.Err != nil:
		return conform.Skip(conform.NotExercised, "no resources capability, and resources/list got no answer (%s): whether the server offers resources is unknown", conform.Describe(nil, first.Err))
	case first.Resp.IsError() && first.Resp.Error.Code == wire.CodeMethodNotFound:
		return conform.Note("no resources capability declared, and resources/list is answered -32601: the server offers no resources")
	case first.Resp.IsError():
		return conform.Note("no resources capability declared; resources/list is answered with %s (-32601 expected for a method the server does not offer: RES-UNDECLARED-01)", conform.Describe(first.Resp, nil))
	case len(first.Items) == 0:
		return conform.Note("no resources capability declared; resources/list answers an empty list (judged by RES-UNDECLARED-01)")
	}
	where := "InitializeResult"
	if modern {
		where = "DiscoverResult"
	}
	return conform.Violation("capabilities.resources declared by a server that serves resources",
		fmt.Sprintf("no resources capability in the %s, yet resources/list lists %d resource(s)", where, len(first.Items)))
}

// RES-CAP-FLAGS-01 — {rev}/server/resources.mdx (Capabilities); schema
// ServerCapabilities.resources.
var _ = conform.Register(conform.Check{
	ID: "RES-CAP-FLAGS-01", Title: "capabilities.resources.subscribe and .listChanged, when set, are booleans",
	Run: func(t *conform.T) conform.Verdict {
		requireResources(t)
		obj, _ := capability(t)
		if obj == nil {
			return conform.Skip(conform.NotApplicable, "capabilities.resources is not an object: judged by RES-CAP-01 and LIFE-CAPS-SHAPE-01")
		}
		var f conform.Findings
		var set []string
		for _, name := range []string{"subscribe", "listChanged"} {
			raw, ok := obj[name]
			if !ok {
				continue
			}
			f.Judged++
			if k := toolkit.JSONKind(raw); k != "boolean" {
				f.Fail(fmt.Sprintf("capabilities.resources.%s is a %s: %s", name, k, conform.ClipBytes(raw, 60)))
				continue
			}
			set = append(set, fmt.Sprintf("%s: %s", name, raw))
		}
		if f.Judged == 0 {
			return conform.Skip(conform.NotExercised, "capabilities.resources sets neither subscribe nor listChanged (both optional)")
		}
		return f.Verdict("capabilities.resources.subscribe and listChanged as booleans", "", strings.Join(set, ", "))
	},
})

// RES-UNDECLARED-01 — 2026-07-28 schema MethodNotFoundError; JSON-RPC 2.0 §5.1.
var _ = conform.Register(conform.Check{
	ID: "RES-UNDECLARED-01", Title: "without capabilities.resources, the resources methods are answered with -32601",
	Run: func(t *conform.T) conform.Verdict {
		if _, ok := capability(t); ok {
			return conform.Skip(conform.NotApplicable, "the server declared the resources capability")
		}
		s := t.Session()
		var probes []toolcall.Probe
		for _, m := range []struct {
			method string
			params map[string]any
		}{{methodList, map[string]any{}}, {methodTemplates, map[string]any{}}, {methodRead, map[string]any{"uri": notFoundURI}}} {
			resp, err := s.Call(t.Ctx, m.method, m.params)
			probes = append(probes, toolcall.Probe{Label: m.method + " (no resources capability)", R: toolcall.Classify(resp, err)})
			if conform.Gone(err) {
				break
			}
		}
		return judgeMethodNotFound(probes, "a resources method of a server that did not declare the resources capability")
	},
})

// judgeMethodNotFound wants -32601 for every probe.
func judgeMethodNotFound(probes []toolcall.Probe, what string) conform.Verdict {
	return toolcall.JudgeMethodNotFound(probes, what, func(names []string) string { return fmt.Sprintf("-32601 for %v", names) })
}
