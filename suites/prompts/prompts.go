package prompts

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The capability and the listing (PROMPT-CAP-*, PROMPT-LIST-*).

// PROMPT-CAP-01 — {rev}/server/prompts.mdx (Capabilities).
var _ = conform.Register(conform.Check{
	ID: "PROMPT-CAP-01", Title: "a server that answers prompts/list declares capabilities.prompts (an object)",
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		if v, declared := toolkit.JudgeDeclaredShape(s, "prompts"); declared {
			return v
		}
		l := list(t)
		if len(l.Pages) == 0 {
			return conform.Errorf("prompts/list was not called (--max-pages?)")
		}
		first := l.Pages[0]
		switch {
		case first.Err != nil:
			return conform.Skip(conform.NotExercised, "no prompts capability, and prompts/list got no answer (%s): whether the server offers prompts is unknown", conform.Describe(nil, first.Err))
		case first.Resp.IsError():
			return conform.Skip(conform.NotApplicable, "no prompts capability declared, and prompts/list is answered with %s: the server offers no prompts (ERR-NOTDECLARED-01 judges the code)", conform.Describe(first.Resp, nil))
		}
		where := "InitializeResult"
		if s.Modern() {
			where = "DiscoverResult"
		}
		return conform.Violation("capabilities.prompts declared by a server that answers prompts/list",
			fmt.Sprintf("no prompts capability in the %s, yet prompts/list succeeded with %d prompt(s): %s", where, len(l.Prompts), conform.Describe(first.Resp, nil)))
	},
})

// PROMPT-CAP-LISTCHANGED-01 — {rev}/server/prompts.mdx (Capabilities); schema
// ServerCapabilities.
var _ = conform.Register(conform.Check{
	ID: "PROMPT-CAP-LISTCHANGED-01", Title: "capabilities.prompts.listChanged, when set, is a boolean",
	Run: func(t *conform.T) conform.Verdict {
		return toolkit.JudgeListChangedFlag(t, "prompts", "PROMPT-CAP-01")
	},
})

// PROMPT-LIST-01 — {rev}/server/prompts.mdx (Listing Prompts); schema
// ListPromptsResult, Prompt, PromptArgument.
var _ = conform.Register(conform.Check{
	ID: "PROMPT-LIST-01", Title: "every prompts/list page, walked by cursor, is a valid ListPromptsResult",
	Run: runList,
})

func runList(t *conform.T) conform.Verdict {
	requirePrompts(t)
	l := list(t)
	if len(l.Pages) == 0 {
		return conform.Errorf("prompts/list was not called (--max-pages?)")
	}
	if first := l.Pages[0]; first.Err != nil {
		return conform.Silence("a ListPromptsResult for prompts/list", first.Err)
	}
	var f conform.Findings
	for i, p := range l.Pages {
		switch {
		case p.Err != nil:
			f.Note(fmt.Sprintf("page %d (cursor %s) got no answer (%s)", i+1, cursorLabel(p.Cursor), conform.Describe(nil, p.Err)))
			continue
		case p.Resp.IsError() && i == 0:
			return conform.Violation("a ListPromptsResult for prompts/list (the server declares capabilities.prompts)", conform.Describe(p.Resp, nil))
		case p.Resp.IsError():
			f.Fail(fmt.Sprintf("page %d: cursor %s, which the server issued, was answered %s", i+1, cursorLabel(p.Cursor), conform.Describe(p.Resp, nil)))
			continue
		}
		f.Judged++
		if err := t.Rev.Validate("ListPromptsResult", p.Resp.Result); err != nil {
			f.Fail(toolkit.Problems(err, fmt.Sprintf("page %d", i+1)))
		}
	}
	switch l.Stop {
	case toolkit.StopRepeatedCursor:
		f.Fail(fmt.Sprintf("page %d's nextCursor was already followed: the walk would loop", len(l.Pages)))
	case toolkit.StopMaxPages:
		f.Note(fmt.Sprintf("the walk stopped at --max-pages (%d)", len(l.Pages)))
	}
	return f.Verdict("every prompts/list page valid as ListPromptsResult under the "+t.Rev.Name+" schema", "",
		fmt.Sprintf("%d page(s), %d prompt(s), valid under the %s schema", len(l.Pages), len(l.Prompts), t.Rev.Name))
}

// cursorLabel renders a cursor sent, for messages.
func cursorLabel(c *string) string {
	if c == nil {
		return "(none)"
	}
	return fmt.Sprintf("%q", conform.Clip(*c, 60))
}

// invalidCursor is a cursor no server issued.
const invalidCursor = "x_conformance_invalid_cursor"

// PROMPT-LIST-CURSOR-01 — {rev}/server/utilities/pagination.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "PROMPT-LIST-CURSOR-01", Title: "prompts/list with an invalid cursor is answered with -32602",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		requirePrompts(t)
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no session for the invalid-cursor probe: %v", err)
		}
		resp, err := s.Call(t.Ctx, "prompts/list", map[string]any{"cursor": invalidCursor})
		return t.ExpectRPCError(resp, err, wire.CodeInvalidParams, fmt.Sprintf("prompts/list{cursor: %q}", invalidCursor))
	},
})
