package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// TOOLS-CALL-01 — {rev}/server/tools.mdx (Calling Tools); schema CallToolResult.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-01", Title: "a listed tool answers tools/call with a successful CallToolResult with a content array",
	Run: func(t *conform.T) conform.Verdict {
		toolkit.RequireTools(t)
		l := toolkit.List(t)
		toolkit.RequireListing(t, l)
		return callFirstJudged(t, callCandidates(t, l))
	},
})

// TOOLS-CALL-INVALIDARGS-R1-01 — 2024-11-05 … 2025-06-18 server/tools.mdx.
var _ = conform.Register(argCheck(conform.Check{
	ID: "TOOLS-CALL-INVALIDARGS-R1-01", Title: "arguments that break the inputSchema get -32602 or an isError:true result",
}, judgeInvalidArgsEither))

// TOOLS-CALL-INVALIDARGS-R4-01 — 2025-11-25 and 2026-07-28 server/tools.mdx; changelog SEP-1303.
var _ = conform.Register(argCheck(conform.Check{
	ID: "TOOLS-CALL-INVALIDARGS-R4-01", Title: "input validation failures are isError:true results (-32602 accepted with a note)",
}, judgeInvalidArgsR4))

// TOOLS-CALL-VALIDATE-01 — {rev}/server/tools.mdx (Security Considerations).
var _ = conform.Register(argCheck(conform.Check{
	ID: "TOOLS-CALL-VALIDATE-01", Title: "tool inputs are validated: arguments that break the inputSchema are rejected",
}, judgeValidate))

// TOOLS-CALL-ISERROR-01 — schema CallToolResult.isError.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-ISERROR-01", Title: "isError, when present in a tools/call result, is a boolean",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		return judgeIsErrorType(toolcall.SeenCalls(t))
	},
})

// TOOLS-CALL-UNKNOWN-01 — {rev}/server/tools.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-UNKNOWN-01", Title: "an unknown tool is a JSON-RPC error -32602, not a result",
	Run: func(t *conform.T) conform.Verdict {
		toolkit.RequireTools(t)
		name := unusedName(toolkit.List(t))
		o := toolkit.Call(t, t.Session(), name, json.RawMessage(`{}`))
		return judgeUnknownTool(name, toolcall.Classify(o.Resp, o.Err))
	},
})

// TOOLS-CALL-MALFORMED-01 — 2025-11-25/server/tools.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-MALFORMED-01", Title: "a tools/call that breaks the CallToolRequest schema is answered with -32602",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		toolkit.RequireTools(t)
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
	Probe: ctProbe("test_multiple_content_types"),
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
		return conform.Skip(conform.NotExercised, "no block of a type in the %s union (%s): CONTENT-UNKNOWN-TYPE-01 judges %s", rev.Name, strings.Join(union, ", "), conform.JoinAtMost(other, 3))
	}
	return f.Verdict(fmt.Sprintf("every block valid under the %s definition of its type", rev.Name), "",
		fmt.Sprintf("%d block%s, each valid under the %s definition of its type (%s)", f.Judged, toolkit.Plural(f.Judged), rev.Name, ctSummary(blocks)))
}
