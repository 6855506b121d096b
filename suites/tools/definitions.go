package tools

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Listing and definition checks (the TOOLS rows): the ListToolsResult of every
// page, each Tool's required members, names, title, annotations and execution.

func runToolsList(t *conform.T) conform.Verdict {
	s := t.Session()
	l, first := toolkit.FirstPage(t)
	switch {
	case first.Err != nil:
		return conform.Silence("a ListToolsResult for tools/list", first.Err)
	case first.Resp.IsError() && !toolkit.Declared(s):
		return conform.Skip(conform.NotApplicable, "no tools capability, and tools/list is answered with %s (judged by TOOLS-CAP-01)", conform.Describe(first.Resp, nil))
	case first.Resp.IsError():
		return conform.Violation("a ListToolsResult for tools/list (the server declares capabilities.tools)", conform.Describe(first.Resp, nil))
	}
	var problems conform.Findings
	var notes []string
	for i, p := range l.Pages {
		switch {
		case p.Err != nil:
			notes = append(notes, fmt.Sprintf("page %d (cursor %q) got no answer (%s)", i+1, derefCursor(p.Cursor), conform.Describe(nil, p.Err)))
			continue
		case p.Resp.IsError():
			notes = append(notes, fmt.Sprintf("page %d (cursor %q) was answered %s (judged by the PAG-* checks)", i+1, derefCursor(p.Cursor), conform.Describe(p.Resp, nil)))
			continue
		}
		if err := s.Rev.Validate("ListToolsResult", json.RawMessage(p.Resp.Result)); err != nil {
			problems.Fail(fmt.Sprintf("page %d: %v", i+1, err))
		}
	}
	if problems.Failed() {
		return problems.Violation("every page valid as ListToolsResult under the " + s.Rev.Name + " schema")
	}
	msg := fmt.Sprintf("%d page(s), %d tool(s), valid under the %s schema", len(l.Pages), len(l.Tools), s.Rev.Name)
	if len(notes) > 0 {
		return conform.Note("%s; %s", msg, conform.JoinAtMost(notes, 3))
	}
	return conform.Pass("%s", msg)
}

func derefCursor(c *string) string {
	if c == nil {
		return ""
	}
	return *c
}

// TOOLS-DEF-01 — {rev}/server/tools.mdx (Data Types); schema Tool.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-DEF-01", Title: "every tool has a string name and an object inputSchema; description, if any, is a string",
	Run: func(t *conform.T) conform.Verdict {
		l := defList(t)
		var problems conform.Findings
		for _, d := range l.Tools {
			problems.Fail(defToolProblems(d)...)
		}
		if problems.Failed() {
			return problems.Violation("each Tool with name (string) and inputSchema (object), description a string if present")
		}
		return conform.Pass("%d tool definition(s) have a string name and an object inputSchema%s", len(l.Tools), l.partial())
	},
})

// defToolProblems lists what breaks the Tool's required members.
func defToolProblems(d defTool) []string {
	if d.Fields == nil {
		return []string{fmt.Sprintf("%s is a %s, not an object", d.Pointer(""), toolkit.JSONKind(d.Raw))}
	}
	var out []string
	if k := toolkit.JSONKind(d.Fields.Get("name")); k != "string" {
		out = append(out, fmt.Sprintf("%s: name is %s", d.Pointer("/name"), k))
	}
	if k := toolkit.JSONKind(d.Fields.Get("inputSchema")); k != "object" {
		out = append(out, fmt.Sprintf("%s: inputSchema is %s", d, k))
	}
	if raw, ok := d.Fields.Lookup("description"); ok && toolkit.JSONKind(raw) != "string" {
		out = append(out, fmt.Sprintf("%s: description is %s", d, toolkit.JSONKind(raw)))
	}
	return out
}

// TOOLS-NAME-UNIQUE-01 — {rev}/server/tools.mdx; 2025-11-25 Tool Names.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-NAME-UNIQUE-01", Title: "no two listed tools share a name (across all pages)",
	Run: func(t *conform.T) conform.Verdict {
		l := defList(t)
		// How often each name is listed; the places are written out only for a
		// duplicate (at 100,000 tools a list of places per name was 20 MB).
		count := make(map[string]int, len(l.Tools))
		for _, d := range l.Tools {
			if d.Name != "" {
				count[d.Name]++
			}
		}
		places := map[string][]string{}
		var dupNames []string // in the order of their first place
		for _, d := range l.Tools {
			if d.Name == "" || count[d.Name] < 2 {
				continue
			}
			if places[d.Name] == nil {
				dupNames = append(dupNames, d.Name)
			}
			places[d.Name] = append(places[d.Name], d.Pointer(""))
		}
		var dups conform.Findings
		for _, n := range dupNames {
			dups.Fail(fmt.Sprintf("high severity: a client cannot tell these tools apart: %s at %s", toolkit.Quote(n), strings.Join(places[n], ", ")))
		}
		if dups.Failed() {
			return dups.Violation("unique tool names")
		}
		return conform.Pass("%d distinct names in %d tool(s) over %d page(s)%s", len(count), len(l.Tools), len(l.Pages), l.partial())
	},
})

// TOOLS-NAME-FORMAT-01 — 2025-11-25/server/tools.mdx (Tool Names).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-NAME-FORMAT-01", Title: "tool names are 1–128 characters of A–Z a–z 0–9 _ - .",
	Run: func(t *conform.T) conform.Verdict {
		l := defList(t)
		var f conform.Findings
		for _, d := range l.Tools {
			if d.Name == "" && toolkit.JSONKind(d.Fields.Get("name")) != "string" {
				continue // no string name: TOOLS-DEF-01
			}
			if !revision.ToolNameValid(d.Name) {
				f.Fail(fmt.Sprintf("%s: %s", d, defNameFault(d.Name)))
			}
		}
		return f.Verdict("names matching ^[A-Za-z0-9_.-]{1,128}$", "", fmt.Sprintf("%d tool name(s) match ^[A-Za-z0-9_.-]{1,128}$%s", len(l.Tools), l.partial()))
	},
})

// defNameFault says why a name breaks the rule.
func defNameFault(name string) string {
	switch n := len([]rune(name)); {
	case n == 0:
		return "empty"
	case n > revision.MaxToolNameLen:
		return fmt.Sprintf("%d characters (at most %d)", n, revision.MaxToolNameLen)
	}
	for _, r := range name {
		if r >= 0x80 || !revision.ToolNameByte(byte(r)) {
			return fmt.Sprintf("character %q is not allowed", r)
		}
	}
	return "breaks the pattern"
}

// TOOLS-NAME-CASE-01 — 2025-11-25/server/tools.mdx (Tool Names).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-NAME-CASE-01", Title: "a tool name with its case flipped does not resolve to the tool",
	Phase: conform.PhaseOddInput,
	Run:   runNameCase,
})

// defSwapCase flips the case of every letter.
func defSwapCase(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsUpper(r):
			return unicode.ToLower(r)
		case unicode.IsLower(r):
			return unicode.ToUpper(r)
		}
		return r
	}, s)
}

// defCaseTarget picks the tool whose name the probe flips. The flipped name must
// not be another listed name (it would execute that tool: the calling policy, toolkit.Allowed), so only
// tools whose name collides with no other case-insensitively qualify. Tools the suite
// may call come first (executing one by mistake is harmless); then tools with
// required properties, which a case-insensitive server would reject for the missing
// arguments rather than execute.
func defCaseTarget(t *conform.T, l *defListing) (defTool, json.RawMessage, bool) {
	// Linear: names that fold to the same key collide (strings.EqualFold's relation).
	folded := map[string]int{}
	for _, o := range l.Tools {
		if o.Name != "" {
			folded[defFoldKey(o.Name)]++
		}
	}
	var qualified []defTool
	for _, d := range l.Tools {
		if d.Name == "" || defSwapCase(d.Name) == d.Name {
			continue
		}
		if folded[defFoldKey(d.Name)] == 1 {
			qualified = append(qualified, d)
		}
	}
	for _, d := range qualified {
		if p := toolkit.Allowed(t, d); p.Allowed {
			return d, p.Args, true
		}
	}
	for _, d := range qualified {
		if defHasRequired(d.Fields.Get("inputSchema")) {
			return d, json.RawMessage(`{}`), true
		}
	}
	if len(qualified) > 0 {
		return qualified[0], json.RawMessage(`{}`), true
	}
	return defTool{}, nil, false
}

// defFoldKey maps a name to the smallest rune of each rune's simple case-folding
// orbit: two names are strings.EqualFold exactly when their keys are equal.
func defFoldKey(name string) string {
	var b strings.Builder
	for _, r := range name {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// defHasRequired reports whether a schema lists required properties.
func defHasRequired(schema json.RawMessage) bool {
	var s struct {
		Required []json.RawMessage `json:"required"`
	}
	return json.Unmarshal(schema, &s) == nil && len(s.Required) > 0
}

func runNameCase(t *conform.T) conform.Verdict {
	l := defList(t)
	if !l.Complete() {
		return conform.Skip(conform.NotExercised, "the tools/list walk stopped early (%s): an unseen tool could carry the flipped name, so the probe is not sent", l.Stop)
	}
	target, args, ok := defCaseTarget(t, l)
	if !ok {
		return conform.Skip(conform.NotExercised, "no listed tool has a name that both contains a letter and collides with no other name case-insensitively (the calling policy, README \"Calling tools safely\": the probe must not reach another tool)")
	}
	// The main session, in the phase for odd input (Scratch: true), but without the
	// silence barrier of T.Scratch: a server that resolves the flipped name runs the
	// tool, which may take its time.
	s := t.Session()
	flipped := defSwapCase(target.Name)
	got := toolkit.Call(t, s, flipped, args)
	if got.Err != nil {
		return conform.Silence("the unknown-tool error for tools/call "+toolkit.Quote(flipped), got.Err)
	}
	unknown := toolkit.Call(t, s, fmt.Sprintf("x_conformance_nonexistent_%08x", rand.Uint32()), json.RawMessage(`{}`))
	var real *toolkit.Outcome
	if !defNamesIt(got, flipped) {
		// The reply does not say which name it is about: only a working call of the
		// real name can show that the server tells names apart at all.
		if p := toolkit.Allowed(t, target); p.Allowed {
			real = toolkit.Call(t, s, target.Name, p.Args)
		}
	}
	return judgeNameCase(t, target.Name, flipped, got, unknown, real)
}

// defNamesIt reports whether a reply mentions the name it answers: evidence that it
// is about that name, not a failure every call gets.
func defNamesIt(o *toolkit.Outcome, name string) bool {
	return o != nil && o.Resp != nil && o.Resp.Msg != nil && strings.Contains(string(o.Resp.Msg.Raw), name)
}

// judgeNameCase compares the flipped name's reply with the reply to a name that
// surely does not exist: the two must look alike. A reply that is an error but
// neither names the flipped name nor differs from what a working call of the real
// name (real, nil when it was not made) gets cannot tell "not resolved" from "every
// call fails" (a server whose backend cannot start answers every call alike), so it
// proves nothing: not exercised.
func judgeNameCase(t *conform.T, name, flipped string, got, unknown, real *toolkit.Outcome) conform.Verdict {
	want := fmt.Sprintf("tools/call %s (the case-flipped name of %s) answered as an unknown tool", toolkit.Quote(flipped), toolkit.Quote(name))
	unknownIsRPC := unknown.Err == nil && unknown.Resp != nil && unknown.Resp.IsError()
	telling := defNamesIt(got, flipped) || (real != nil && real.Succeeded())
	switch {
	case got.Resp.IsError():
		if unknownIsRPC && unknown.Resp.Error.Code != got.Resp.Error.Code {
			if !defNamesIt(got, flipped) {
				// Answered unlike a nonexistent name and without naming it: resolved
				// and failed, or not resolved — the reply cannot say which.
				return conform.Skip(conform.NotExercised, "%s got %s, which does not name the tool, while a nonexistent name gets %s: the reply cannot tell whether the flipped name was resolved",
					toolkit.Quote(flipped), got.Describe(), unknown.Describe())
			}
			return conform.Note("%s: %s, while a nonexistent name gets %s", toolkit.Quote(flipped), got.Describe(), unknown.Describe())
		}
		if !telling {
			return defCaseUntold(flipped, got, unknown, real)
		}
		return conform.Pass("%s is not resolved: %s", toolkit.Quote(flipped), got.Describe())
	case got.Result == nil:
		return conform.Violation(want, got.Describe())
	case !got.IsError:
		return conform.Violation(want, "the flipped name executed the tool: "+got.Describe())
	case unknownIsRPC:
		return conform.Violation(want, fmt.Sprintf("the flipped name resolved: %s, while a nonexistent name gets %s", got.Describe(), unknown.Describe()))
	case !telling:
		return defCaseUntold(flipped, got, unknown, real)
	}
	return conform.Note("%s got %s, as a nonexistent name does (%s): not resolved as far as can be told (unknown tools as isError results are judged by TOOLS-CALL-UNKNOWN-01)", toolkit.Quote(flipped), got.Describe(), unknown.Describe())
}

// defCaseUntold is the verdict for a reply that cannot tell the two cases apart.
func defCaseUntold(flipped string, got, unknown, real *toolkit.Outcome) conform.Verdict {
	realText := "the real name was not called (the suite may not call the tool: allow it with --call)"
	if real != nil {
		realText = "the real name got " + real.Describe()
	}
	return conform.Skip(conform.NotExercised, "%s got %s, which does not name the tool, as a nonexistent name gets %s; %s: the reply cannot tell an unresolved name from a server that fails every call",
		toolkit.Quote(flipped), got.Describe(), unknown.Describe(), realText)
}

// TOOLS-TITLE-01 — 2025-06-18+/server/tools.mdx; schema BaseMetadata, Tool.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-TITLE-01", Title: "a tool's title, when present, is a string",
	Run: func(t *conform.T) conform.Verdict {
		titled := defWith(t, "title", "has a title", "the fixture contract's metadata variants include a tool with one")
		var f conform.Findings
		for _, d := range titled {
			if k := toolkit.JSONKind(d.Fields.Get("title")); k != "string" {
				f.Fail(fmt.Sprintf("%s: title is %s", d, k))
			}
		}
		return f.Verdict("title as a string", "", fmt.Sprintf("%d tool(s) with a string title", len(titled)))
	},
})

// TOOLS-ANNOT-01 — 2025-03-26+/server/tools.mdx; schema ToolAnnotations.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-ANNOT-01", Title: "tool annotations are {title?: string, readOnlyHint?, destructiveHint?, idempotentHint?, openWorldHint?: boolean}",
	Run: func(t *conform.T) conform.Verdict {
		return defMemberValid(t, defMember{
			member: "annotations", definition: "ToolAnnotations",
			noneWhat: "has annotations", noneHint: "the fixture contract's metadata variants include a tool with all four hints",
			expected: "annotations valid as ToolAnnotations under the " + t.Rev.Name + " schema", passWhat: "valid annotations",
		})
	},
})

// defMember names an optional member of Tool and the schema definition it must match.
type defMember struct {
	member, definition string
	noneWhat, noneHint string // for the skip when no tool has the member
	expected, passWhat string // for the verdict's message
}

// defMemberValid validates m.member of every listed tool that has it against
// m.definition: no tool has it → skip not-exercised; an invalid one → violation.
func defMemberValid(t *conform.T, m defMember) conform.Verdict {
	with := defWith(t, m.member, m.noneWhat, m.noneHint)
	var f conform.Findings
	for _, d := range with {
		if err := t.Rev.Validate(m.definition, d.Fields.Get(m.member)); err != nil {
			f.Fail(fmt.Sprintf("%s: %v", d.Pointer("/"+m.member), err))
		}
	}
	return f.Verdict(m.expected, "", fmt.Sprintf("%d tool(s) with %s", len(with), m.passWhat))
}

// defHints are the decoded boolean hints of ToolAnnotations (nil when absent or not
// a boolean).
type defHints struct {
	ReadOnly    *bool
	Destructive *bool
}

func defDecodeHints(raw json.RawMessage) defHints {
	obj := toolkit.Object(raw)
	var h defHints
	h.ReadOnly = defBool(obj["readOnlyHint"])
	h.Destructive = defBool(obj["destructiveHint"])
	return h
}

func defBool(raw json.RawMessage) *bool {
	var b bool
	if toolkit.JSONKind(raw) != "boolean" || json.Unmarshal(raw, &b) != nil {
		return nil
	}
	return &b
}

// TOOLS-ANNOT-CONSIST-01 — schema ToolAnnotations docs (derived).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-ANNOT-CONSIST-01", Title: "no tool claims both readOnlyHint: true and destructiveHint: true",
	Run: func(t *conform.T) conform.Verdict {
		annotated := defWith(t, "annotations", "has annotations", "the fixture contract's metadata variants include a tool with all four hints")
		var bad conform.Findings
		for _, d := range annotated {
			h := defDecodeHints(d.Fields.Get("annotations"))
			if h.ReadOnly != nil && *h.ReadOnly && h.Destructive != nil && *h.Destructive {
				bad.Fail("readOnlyHint: true with destructiveHint: true on " + d.String())
			}
		}
		if bad.Failed() {
			return bad.Violation("consistent hints (destructiveHint only means something when readOnlyHint is false)")
		}
		return conform.Pass("%d annotated tool(s), none with readOnlyHint and destructiveHint both true", len(annotated))
	},
})

// TOOLS-EXEC-R4-01 — 2025-11-25/server/tools.mdx; basic/utilities/tasks.mdx; schema
// ToolExecution.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-EXEC-R4-01", Title: "a tool's execution.taskSupport, when present, is forbidden, optional or required",
	Run: func(t *conform.T) conform.Verdict {
		return defMemberValid(t, defMember{
			member: "execution", definition: "ToolExecution",
			noneWhat: "has an execution member", noneHint: "only servers that offer tasks set it",
			expected: "execution valid as ToolExecution (taskSupport one of forbidden, optional, required)", passWhat: "a valid execution member",
		})
	},
})
