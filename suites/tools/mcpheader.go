package tools

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
)

// TOOLS-XMCPHEADER-01 — 2026-07-28/server/tools.mdx (x-mcp-header);
// basic/transports/streamable-http.mdx (Custom Headers from Tool Parameters).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-XMCPHEADER-01", Title: "x-mcp-header values are non-empty tokens, unique ignoring case, on integer, string or boolean properties reached through properties only",
	Run: func(t *conform.T) conform.Verdict {
		l := defList(t)
		var problems conform.Findings
		annotated, headers := 0, 0
		for _, d := range l.Tools {
			raw, ok := d.Fields.Lookup("inputSchema")
			if !ok {
				continue // judged by TOOLS-DEF-01
			}
			found, probs := mcpHeaderProblems(raw)
			if found > 0 {
				annotated++
				headers += found
			}
			for _, p := range probs {
				problems.Fail(d.Pointer("/inputSchema") + p)
			}
		}
		switch {
		case problems.Failed():
			return problems.Violation("every x-mcp-header a non-empty token, unique ignoring case, on an integer, string or boolean property reached through properties only")
		case headers == 0:
			return conform.Skip(conform.NotExercised, "no inputSchema of %d tool(s) uses x-mcp-header%s", len(l.Tools), l.partial())
		}
		return conform.Pass("%d x-mcp-header annotation(s) on %d tool(s), all valid", headers, annotated)
	},
})

// mcpHeaderValueKeywords hold JSON values, not subschemas: an "x-mcp-header" member
// inside them is data.
var mcpHeaderValueKeywords = map[string]bool{"const": true, "default": true, "enum": true, "examples": true}

// mcpHeaderProblems finds every x-mcp-header annotation of an inputSchema and says
// what breaks the 2026-07-28 constraints.
func mcpHeaderProblems(raw json.RawMessage) (found int, problems []string) {
	// A schema whose text cannot spell the key (escapes included) has none: at
	// 10,000 tools, decoding each whole schema to look was 3 % of the run.
	if !rawjson.MayHold(raw, "x-mcp-header") {
		return 0, nil
	}
	var root any
	if json.Unmarshal(raw, &root) != nil {
		return 0, nil
	}
	seen := map[string]string{} // lower-case header → pointer of its first use
	var walk func(node any, ptr string, reachable bool)
	walk = func(node any, ptr string, reachable bool) {
		switch n := node.(type) {
		case []any:
			for i, e := range n {
				walk(e, fmt.Sprintf("%s/%d", ptr, i), false)
			}
		case map[string]any:
			if h, ok := n["x-mcp-header"]; ok {
				found++
				problems = append(problems, mcpHeaderAt(n, h, ptr, reachable, seen)...)
			}
			keys := make([]string, 0, len(n))
			for k := range n {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				switch {
				case k == "properties":
					if props, ok := n[k].(map[string]any); ok {
						names := make([]string, 0, len(props))
						for name := range props {
							names = append(names, name)
						}
						sort.Strings(names)
						for _, name := range names {
							// A property stays reachable only if its parent was.
							walk(props[name], ptr+"/properties/"+escapePointer(name), reachable)
						}
					}
				case mcpHeaderValueKeywords[k] || k == "x-mcp-header":
				default:
					walk(n[k], ptr+"/"+escapePointer(k), false)
				}
			}
		}
	}
	walk(root, "", true)
	return found, problems
}

// mcpHeaderAt judges one annotated schema node.
func mcpHeaderAt(n map[string]any, h any, ptr string, reachable bool, seen map[string]string) []string {
	at := ptr // the caller prefixes the inputSchema's own pointer
	var out []string
	name, isString := h.(string)
	switch {
	case !isString:
		out = append(out, fmt.Sprintf("%s: x-mcp-header is %s, not a string", at, conform.Clip(mustJSON(h), 40)))
	case name == "":
		out = append(out, at+": x-mcp-header is empty")
	case !isToken(name):
		out = append(out, fmt.Sprintf("%s: x-mcp-header %q is not an HTTP token (1*tchar)", at, name))
	default:
		key := strings.ToLower(name)
		if first, dup := seen[key]; dup {
			out = append(out, fmt.Sprintf("%s: x-mcp-header %q repeats %s (ignoring case)", at, name, first))
		} else {
			seen[key] = fmt.Sprintf("%q at %s", name, at)
		}
	}
	if ptr == "" || !reachable {
		out = append(out, at+": x-mcp-header on a schema that is not a property reached from the root through properties only")
	}
	if typ, _ := n["type"].(string); typ != "integer" && typ != "string" && typ != "boolean" {
		out = append(out, fmt.Sprintf("%s: x-mcp-header on a property of type %s (only integer, string or boolean)", at, conform.Clip(mustJSON(n["type"]), 40)))
	}
	return out
}

// isToken reports whether s is 1*tchar (RFC 9110 §5.6.2).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return s != ""
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func mustJSON(v any) string {
	if v == nil {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
