package lifecycle

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Revision leakage (LIFE-VERSION-RESPECT-01): tool definitions and
// tools/call results must use only what the negotiated revision has. Which member
// needs which revision is read from the registry (revision.Has), never from names.

// defMemberRule says that a member of an object needs a feature.
type defMemberRule struct {
	member  string
	feature revision.Feature
}

// defToolRules are the Tool members later revisions added.
var defToolRules = []defMemberRule{
	{"annotations", revision.ToolAnnotations},
	{"title", revision.Title},
	{"outputSchema", revision.OutputSchema},
	{"_meta", revision.Meta},
	{"icons", revision.Icons},
	{"execution", revision.Tasks},
}

// defResultRules are the CallToolResult members later revisions added.
var defResultRules = []defMemberRule{
	{"structuredContent", revision.StructuredContent},
}

// defBlockRules are the content-block members later revisions added.
var defBlockRules = []defMemberRule{
	{"_meta", revision.Meta},
	{"icons", revision.Icons},
}

// defBlockTypes are the content-block types later revisions added.
var defBlockTypes = map[string]revision.Feature{
	"audio":         revision.AudioContent,
	"resource_link": revision.ResourceLink,
}

// defLeak is one member or content type the negotiated revision lacks.
type defLeak struct {
	pointer string
	what    string
	feature revision.Feature
}

// defRuleLeaks applies member rules to one object at a JSON pointer.
func defRuleLeaks(rev revision.Revision, obj map[string]json.RawMessage, at string, rules []defMemberRule) []defLeak {
	var out []defLeak
	for _, r := range rules {
		if _, ok := obj[r.member]; ok && !rev.Has(r.feature) {
			out = append(out, defLeak{pointer: at + "/" + r.member, what: r.member, feature: r.feature})
		}
	}
	return out
}

// defToolLeaks finds, in a tools/list result, what the revision lacks. Every page of
// every walk is scanned, so a tool is decoded only when it has a member the revision
// lacks (rawjson.Members reads the keys without building a map).
func defToolLeaks(rev revision.Revision, result json.RawMessage) []defLeak {
	lacks := map[string]bool{}
	for _, r := range defToolRules {
		if !rev.Has(r.feature) {
			lacks[r.member] = true
		}
	}
	if len(lacks) == 0 {
		return nil
	}
	tools, _ := toolkit.Array(toolkit.Object(result)["tools"])
	var out []defLeak
	for i, raw := range tools {
		leaks := false
		rawjson.Members(raw, func(key string, _ json.RawMessage) bool {
			leaks = lacks[key]
			return !leaks
		})
		if !leaks {
			continue
		}
		if obj := toolkit.Object(raw); obj != nil {
			out = append(out, defRuleLeaks(rev, obj, fmt.Sprintf("/tools/%d", i), defToolRules)...)
		}
	}
	return out
}

// defCallLeaks finds, in a tools/call result, what the revision lacks.
func defCallLeaks(rev revision.Revision, result json.RawMessage) []defLeak {
	obj := toolkit.Object(result)
	if obj == nil {
		return nil
	}
	out := defRuleLeaks(rev, obj, "", defResultRules)
	blocks, _ := toolkit.Array(obj["content"])
	for i, raw := range blocks {
		out = append(out, defBlockLeaks(rev, toolkit.Object(raw), fmt.Sprintf("/content/%d", i))...)
	}
	return out
}

// defBlockLeaks checks one content block: its type, its added members, and
// annotations.lastModified (also inside an embedded resource).
func defBlockLeaks(rev revision.Revision, b map[string]json.RawMessage, at string) []defLeak {
	if b == nil {
		return nil
	}
	var out []defLeak
	if typ, ok := toolkit.String(b["type"]); ok {
		if f, added := defBlockTypes[typ]; added && !rev.Has(f) {
			out = append(out, defLeak{pointer: at + "/type", what: fmt.Sprintf("%q content", typ), feature: f})
		}
	}
	out = append(out, defRuleLeaks(rev, b, at, defBlockRules)...)
	out = append(out, defLastModified(rev, b, at)...)
	if res := toolkit.Object(b["resource"]); res != nil {
		out = append(out, defRuleLeaks(rev, res, at+"/resource", []defMemberRule{{"_meta", revision.Meta}})...)
		out = append(out, defLastModified(rev, res, at+"/resource")...)
	}
	return out
}

// defLastModified flags annotations.lastModified where the revision lacks it.
func defLastModified(rev revision.Revision, obj map[string]json.RawMessage, at string) []defLeak {
	if rev.Has(revision.LastModified) {
		return nil
	}
	if _, ok := toolkit.Object(obj["annotations"])["lastModified"]; ok {
		return []defLeak{{pointer: at + "/annotations/lastModified", what: "annotations.lastModified", feature: revision.LastModified}}
	}
	return nil
}

// defScan is what LIFE-VERSION-RESPECT-01 saw in the revision's sessions.
type defScan struct {
	leaks    []string
	lists    int // tools/list results scanned
	calls    int // tools/call results scanned
	sessions int
	unknown  []string // sessions whose negotiated version the registry lacks
}

// defScanSessions scans every tools/list and tools/call result received in the
// sessions, each judged by its own negotiated revision.
func defScanSessions(sessions []*conform.Session) defScan {
	var sc defScan
	for _, s := range sessions {
		if s.Negotiated == "" {
			continue
		}
		if s.Rev.Name != s.Negotiated {
			sc.unknown = append(sc.unknown, fmt.Sprintf("%s (%s)", s.Label, s.Negotiated))
			continue
		}
		sc.sessions++
		for e := range s.Conn.EachReceived(0) {
			if e.Msg == nil || e.Msg.Kind != wire.KindResult {
				continue
			}
			var leaks []defLeak
			switch e.ForMethod {
			case "tools/list":
				sc.lists++
				leaks = defToolLeaks(s.Rev, e.Msg.Result)
			case "tools/call":
				sc.calls++
				leaks = defCallLeaks(s.Rev, e.Msg.Result)
			default:
				continue
			}
			for _, l := range leaks {
				sc.leaks = append(sc.leaks, fmt.Sprintf("%s #%d %s result %s: %s (%s) does not exist in %s", s.Label, e.Seq, e.ForMethod, l.pointer, l.what, l.feature, s.Negotiated))
			}
		}
	}
	return sc
}
