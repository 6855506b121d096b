package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// TOOLS-CALL-01 — {rev}/server/tools.mdx (Calling Tools); schema CallToolResult.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-01", Title: "a listed tool answers tools/call with a successful CallToolResult with a content array",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseClean, Needs: conform.NeedsCalls,
	Source: `{rev}/server/tools.mdx (Calling Tools): "To invoke a tool, clients send a tools/call request"; schema CallToolResult: "required": ["content"], content {"type":"array"}; isError: "If not set, this is assumed to be false (the call was successful)" (an isError:true result is not a successful call)`,
	Run: func(t *conform.T) conform.Verdict {
		if v := toolkit.SkipUndeclared(t); v != nil {
			return *v
		}
		l := toolkit.List(t)
		if v := toolkit.ListVerdict(t, l); v != nil {
			return *v
		}
		ct, skipV := pickCallable(t, l)
		if skipV != nil {
			return *skipV
		}
		o := toolkit.CallTool(t, ct)
		return judgeCall(ct.Name, toolcall.Classify(o.Resp, o.Err).InEra(t.Session().Modern()))
	},
})

// TOOLS-CALL-INVALIDARGS-R1-01 — 2024-11-05 … 2025-06-18 server/tools.mdx.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-INVALIDARGS-R1-01", Title: "arguments that break the inputSchema get -32602 or an isError:true result",
	Level: conform.Descriptive, Revisions: revision.Span("R1–R3"), Group: conform.GroupTools, Phase: conform.PhaseOddInput, Needs: conform.NeedsCalls,
	Source: `{rev}/server/tools.mdx (Error Handling), 2024-11-05 … 2025-06-18: "Protocol Errors: Standard JSON-RPC errors for issues like: … Invalid arguments" and "Tool Execution Errors: Reported in tool results with isError: true: … Invalid input data". Both channels are listed: either passes (catalogue row TOOLS-CALL-INVALIDARGS-R4-01); a successful result → WARN.`,
	Run:    argCheck(judgeInvalidArgsEither),
})

// TOOLS-CALL-INVALIDARGS-R4-01 — 2025-11-25 and 2026-07-28 server/tools.mdx; changelog SEP-1303.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-INVALIDARGS-R4-01", Title: "input validation failures are isError:true results (-32602 accepted with a note)",
	Level: conform.Descriptive, Revisions: revision.Span("R4+"), Group: conform.GroupTools, Phase: conform.PhaseOddInput, Needs: conform.NeedsCalls,
	Source: `{rev}/server/tools.mdx (Error Handling), 2025-11-25 on: "Tool Execution Errors: Reported in tool results with isError: true: … Input validation errors (e.g., date in wrong format, value out of range)"; "Tool Execution Errors contain actionable feedback that language models can use to self-correct". The classification carries no BCP 14 key word for servers (the page's SHOULD binds clients), so the row is descriptive: a successful result warns, never fails, also under --strict. -32602 passes with a note: the 2026-07-28 schema still shows -32602 "Invalid arguments for tool" (catalogue row TOOLS-CALL-INVALIDARGS-R4-01).`,
	Run:    argCheck(judgeInvalidArgsR4),
})

// TOOLS-CALL-VALIDATE-01 — {rev}/server/tools.mdx (Security Considerations).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-VALIDATE-01", Title: "tool inputs are validated: arguments that break the inputSchema are rejected",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseOddInput, Needs: conform.NeedsCalls,
	// The three invalid-argument checks share one probe (memoized), in the phase
	// for odd input (PhaseOddInput), after the clean checks.
	Source: `{rev}/server/tools.mdx (Security Considerations): "Servers MUST: Validate all tool inputs". Invalid input accepted with a successful result → WARN, not FAIL: coercion cannot be told apart from a missing validation (TOOLS-CALL-VALIDATE-01). Either error channel counts as validation (§2.16.2).`,
	Run:    argCheck(judgeValidate),
})

// TOOLS-CALL-ISERROR-01 — schema CallToolResult.isError.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-ISERROR-01", Title: "isError, when present in a tools/call result, is a boolean",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `schema CallToolResult.isError: {"type":"boolean"}, "Whether the tool call ended in an error. If not set, this is assumed to be false (the call was successful)." Leaving it out is allowed (MAY); its type is a schema rule (MUST).`,
	Run: func(t *conform.T) conform.Verdict {
		return judgeIsErrorType(toolcall.SeenCalls(t))
	},
})

// TOOLS-CALL-UNKNOWN-01 — {rev}/server/tools.mdx (Error Handling); the verdict policy (README, Verdicts).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-UNKNOWN-01", Title: "an unknown tool is a JSON-RPC error -32602, not a result",
	Level: conform.Should, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `{rev}/server/tools.mdx (Error Handling): "Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools", with the example {"code": -32602, "message": "Unknown tool: invalid_tool_name"}; schema CallToolResult: "any errors in finding the tool … should be reported as an MCP error response". Verdict policy fixed by the verdict policy (README, Verdicts; it overrides the catalogue row's isError → WARN): -32602 pass, another code warn, an isError:true or successful result fail.`,
	Run: func(t *conform.T) conform.Verdict {
		if v := toolkit.SkipUndeclared(t); v != nil {
			return *v
		}
		name := unusedName(toolkit.List(t))
		o := toolkit.Call(t, t.Session(), name, json.RawMessage(`{}`))
		return judgeUnknownTool(name, toolcall.Classify(o.Resp, o.Err))
	},
})

// TOOLS-CALL-MALFORMED-01 — 2025-11-25/server/tools.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-MALFORMED-01", Title: "a tools/call that breaks the CallToolRequest schema is answered with -32602",
	Level: conform.Descriptive, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseOddInput, Needs: conform.NeedsAny,
	Source: `2025-11-25/server/tools.mdx (Error Handling): "Protocol Errors: Standard JSON-RPC errors for issues like: … Malformed requests (requests that fail to satisfy CallToolRequest schema)"; schema CallToolRequest: params {name: string, arguments?: object}; JSON-RPC 2.0 §5.1: "-32602 Invalid params". Explicit from 2025-11-25, the same protocol-error class in every revision. No BCP 14 key word: descriptive, so another answer warns and never fails, also under --strict.`,
	Run: func(t *conform.T) conform.Verdict {
		if v := toolkit.SkipUndeclared(t); v != nil {
			return *v
		}
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no fresh session for the malformed tools/call probes: %v", err)
		}
		// Over Streamable HTTP in 2026-07-28 a tools/call whose name is missing or
		// not a string has no Mcp-Name header to send, and the transport rule
		// (basic/transports/streamable-http.mdx: -32020 when "A required standard
		// header … is missing") may reject it before the params are read.
		headerFirst := s.Modern() && s.Kind != "stdio"
		var probes []toolcall.Probe
		headerOK := map[string]bool{}
		for _, m := range malformedCalls(toolkit.List(t)) {
			resp, err := s.Call(t.Ctx, "tools/call", m.params)
			probes = append(probes, toolcall.Probe{Label: m.label, R: toolcall.Classify(resp, err)})
			if headerFirst && m.nameless {
				headerOK[m.label] = true
			}
		}
		return judgeMalformed(probes, headerOK)
	},
})

// ctBlockDefs names the schema definition of each content block type.
var ctBlockDefs = map[string]string{
	"text": "TextContent", "image": "ImageContent", "audio": "AudioContent",
	"resource": "EmbeddedResource", "resource_link": "ResourceLink",
}

// TOOLS-CALL-CONTENT-01 — schema CallToolResult.content (the revision's union).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-CONTENT-01", Title: "every content block of every tools/call result is valid under the revision's definition of its type",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupTools, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `schema CallToolResult.content: 2024-11-05 "items": {"anyOf": [TextContent, ImageContent, EmbeddedResource]}; 2025-03-26 adds AudioContent; 2025-06-18 on "items": {"$ref": "#/definitions/ContentBlock"} (TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource). Every block of every tools/call result seen in the revision's sessions is validated against the definition its type names, with every member (annotations, _meta, resource contents); a type outside the union, a block that is no object or has no type, is CONTENT-UNKNOWN-TYPE-01's.`,
	Run: func(t *conform.T) conform.Verdict {
		l := ctExercise(t)
		blocks := ctBlocks(t)
		if len(blocks) == 0 {
			return ctUnexercised(t, l, "test_multiple_content_types", "content block")
		}
		return judgeCallContent(t.Rev, blocks)
	},
})

// judgeCallContent validates each block of a type in rev's union against its
// definition.
func judgeCallContent(rev revision.Revision, blocks []ctBlock) conform.Verdict {
	union := ctUnion(rev)
	var f conform.Findings
	var other []string
	for _, b := range blocks {
		if !slices.Contains(union, b.Type) {
			other = append(other, b.at(""))
			continue
		}
		f.Judged++
		if err := b.Rev().Validate(ctBlockDefs[b.Type], b.Raw); err != nil {
			f.Fail(toolkit.Problems(err, b.at("")))
		}
	}
	if f.Judged == 0 {
		return conform.Skip(reports.NotExercised, "no block of a type in the %s union (%s): CONTENT-UNKNOWN-TYPE-01 judges %s", rev.Name, strings.Join(union, ", "), conform.JoinAtMost(other, 3))
	}
	return f.Verdict(fmt.Sprintf("every block valid under the %s definition of its type", rev.Name), "",
		fmt.Sprintf("%d block%s, each valid under the %s definition of its type (%s)", f.Judged, toolkit.Plural(f.Judged), rev.Name, ctSummary(blocks)))
}
