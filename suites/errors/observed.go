package errorhandling

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// seenCall is one tools/call result received in a session, with the tool name the
// request carried.
type seenCall struct {
	where  string // "<session label> #<seq>"
	name   string // the name sent ("" when it was not a string)
	raw    json.RawMessage
	result map[string]json.RawMessage // nil when the result is not an object
	// isErrorRaw is the isError member as sent (nil when absent).
	isErrorRaw json.RawMessage
}

// isError reports whether the result says isError: true.
func (c seenCall) isError() bool {
	var b bool
	return json.Unmarshal(c.isErrorRaw, &b) == nil && b
}

// label names the call for messages.
func (c seenCall) label() string { return fmt.Sprintf("%s (%s)", toolkit.Quote(c.name), c.where) }

// seenCalls collects the tools/call results of every session of the revision.
func seenCalls(sessions []*conform.Session) []seenCall {
	var out []seenCall
	for _, s := range sessions {
		entries, _ := s.Conn.Transcript()
		out = append(out, callsIn(s.Label, s.Modern(), entries)...)
	}
	return out
}

// callsIn pairs the tools/call requests of one transcript with their results. In a
// 2026-07-28 session (modern) an InputRequiredResult (resultType "input_required") is
// left out: it asks for input and is no CallToolResult (the MRTR checks judge it).
func callsIn(label string, modern bool, entries []wire.Entry) []seenCall {
	exact, loose := map[string]string{}, map[string]string{}
	var out []seenCall
	for _, e := range entries {
		if e.Msg == nil {
			continue
		}
		switch {
		case e.Dir == wire.Sent && e.Msg.Kind == wire.KindRequest && e.Msg.Method == "tools/call":
			var p struct {
				Name json.RawMessage `json:"name"`
			}
			_ = json.Unmarshal(e.Msg.Params, &p)
			var name string
			_ = json.Unmarshal(p.Name, &name)
			exact[e.Msg.ID.Key()], loose[e.Msg.ID.LooseKey()] = name, name
		case e.Dir == wire.Received && e.Msg.Kind == wire.KindResult && e.ForMethod == "tools/call":
			name, ok := exact[e.Msg.ID.Key()]
			if !ok {
				name = loose[e.Msg.ID.LooseKey()]
			}
			c := seenCall{where: fmt.Sprintf("%s #%d", label, e.Seq), name: name, raw: e.Msg.Result}
			if json.Unmarshal(e.Msg.Result, &c.result) != nil {
				c.result = nil
			}
			c.isErrorRaw = c.result["isError"]
			var rt string
			if modern && json.Unmarshal(c.result["resultType"], &rt) == nil && rt == "input_required" {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// TOOLS-CALL-ISERROR-01 — schema CallToolResult.isError.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-ISERROR-01", Title: "isError, when present in a tools/call result, is a boolean",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `schema CallToolResult.isError: {"type":"boolean"}, "Whether the tool call ended in an error. If not set, this is assumed to be false (the call was successful)." Leaving it out is allowed (MAY); its type is a schema rule (MUST).`,
	Run: func(t *conform.T) conform.Verdict {
		return judgeIsErrorType(seenCalls(t.Sessions()))
	},
})

// judgeIsErrorType checks the type of every isError seen.
func judgeIsErrorType(calls []seenCall) conform.Verdict {
	if len(calls) == 0 {
		return conform.Skip(reports.NotExercised, "%s", "no tools/call result was seen in this revision's sessions (a tool the suite may call — a fixture-contract tool or --call NAME — exercises this)")
	}
	var problems []string
	present := 0
	for _, c := range calls {
		if c.isErrorRaw == nil {
			continue
		}
		present++
		if v := strings.TrimSpace(string(c.isErrorRaw)); v != "true" && v != "false" {
			problems = append(problems, fmt.Sprintf("%s: isError is %s", c.label(), conform.Clip(string(c.isErrorRaw), 40)))
		}
	}
	if len(problems) > 0 {
		return conform.Violation("isError absent or a boolean in every tools/call result", strings.Join(problems, "; "))
	}
	return conform.Pass("%s", fmt.Sprintf("%d tools/call results: isError a boolean in %d, absent in the rest", len(calls), present))
}

// ERR-ISERROR-CONTENT-01 — schema CallToolResult; {rev}/server/tools.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "ERR-ISERROR-CONTENT-01", Title: "an isError:true result keeps a content array with a text block describing the failure",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupErr, Phase: conform.PhaseTranscript, Needs: conform.NeedsFixture,
	Source: `schema CallToolResult: "required": ["content"] (a missing or non-array content fails); {rev}/server/tools.mdx (Error Handling): the tool execution error example carries "content": [{"type": "text", "text": "Failed to fetch weather data: API rate limit exceeded"}] (2025-11-25 on: "Invalid departure date: …"), "isError": true (no text block → WARN, derived). Exercised by the fixture tool test_error_handling and by every isError:true result seen in the revision's sessions.`,
	Run: func(t *conform.T) conform.Verdict {
		o, v := callErrorFixture(t)
		fixture := ""
		switch {
		case o != nil:
			fixture = "test_error_handling answered " + o.Describe()
		case v != nil:
			fixture = v.Actual
		}
		return judgeIsErrorContent(seenCalls(t.Sessions()), o != nil, fixture)
	},
})

// judgeIsErrorContent checks the content of every isError:true result seen;
// called says whether the fixture was called, fixture what became of it.
func judgeIsErrorContent(calls []seenCall, called bool, fixture string) conform.Verdict {
	var problems, textless, seen []string
	for _, c := range calls {
		if !c.isError() {
			continue
		}
		seen = append(seen, c.label())
		raw, ok := c.result["content"]
		var blocks []struct {
			Type string `json:"type"`
		}
		switch {
		case !ok:
			problems = append(problems, c.label()+": no content member")
		case json.Unmarshal(raw, &blocks) != nil || string(raw) == "null":
			problems = append(problems, fmt.Sprintf("%s: content is %s, not an array", c.label(), conform.Clip(string(raw), 60)))
		case !hasText(blocks):
			textless = append(textless, fmt.Sprintf("%s: %d content blocks, none of type text", c.label(), len(blocks)))
		}
	}
	switch {
	case len(seen) == 0 && !called:
		return conform.Skip(reports.NeedsFixture, "%s", "no isError:true result was seen; "+fixture)
	case len(seen) == 0:
		return conform.Skip(reports.NotExercised, "%s", "no isError:true result was seen: "+fixture)
	case len(problems) > 0:
		return conform.Violation("a content array in every isError:true result", strings.Join(problems, "; "))
	case len(textless) > 0:
		return conform.Warn("a text block describing the failure in every isError:true result (derived from the spec's example)", strings.Join(textless, "; "))
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
	Level: conform.Derived, Revisions: revision.Span("R3+"), Group: conform.GroupErr, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `{rev}/server/tools.mdx (Output Schema): "If an output schema is provided: Servers MUST provide structured results that conform to this schema." Derived: an isError:true result reports a failure and is not a structured result, so the MUST does not cover it (STRUCT-CONFORM-01 must not fail it). Derived in turn: exempt from the schema, such a result carries its explanation in content; one with no text block leaves a client nothing to read (WARN, never FAIL).`,
	Run: func(t *conform.T) conform.Verdict {
		if v := noTools(t); v != nil {
			return *v
		}
		schemas := map[string]json.RawMessage{}
		for _, tl := range toolkit.List(t).Tools {
			if tl.Has("outputSchema") && tl.Name != "" {
				schemas[tl.Name] = tl.Fields["outputSchema"]
			}
		}
		dialect := revision.Draft07
		if t.Rev.Has(revision.DefaultDialect2020) {
			dialect = revision.Draft2020
		}
		return judgeIsErrorStruct(seenCalls(t.Sessions()), schemas, dialect)
	},
})

// judgeIsErrorStruct notes how isError:true results of tools with an outputSchema
// relate to the schema; it never fails.
func judgeIsErrorStruct(calls []seenCall, schemas map[string]json.RawMessage, dialect string) conform.Verdict {
	var seen, textless []string
	for _, c := range calls {
		schema, ok := schemas[c.name]
		if !ok || !c.isError() {
			continue
		}
		seen = append(seen, c.label()+": "+structState(c, schema, dialect))
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(c.result["content"], &blocks) != nil || !hasText(blocks) {
			textless = append(textless, c.label())
		}
	}
	if len(seen) == 0 {
		return conform.Skip(reports.NotExercised, "%s", "no isError:true result of a tool with an outputSchema was seen in this revision's sessions")
	}
	if len(textless) > 0 {
		return conform.Warn("the failure explained in a text block of every isError:true result (such a result is exempt from the outputSchema)", "no text block in "+strings.Join(textless, "; "))
	}
	return conform.Note("%s", fmt.Sprintf("%d isError:true results of tools with an outputSchema, not held to it (the MUST covers structured results only): %s", len(seen), strings.Join(seen, "; ")))
}

// structState says how a result's structuredContent relates to the outputSchema.
func structState(c seenCall, schema json.RawMessage, dialect string) string {
	sc, ok := c.result["structuredContent"]
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
