package tools

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Capability checks (TOOLS-CAP-*, LIFE-CAPS-HONEST-01).

// TOOLS-CAP-01 — {rev}/server/tools.mdx (Capabilities).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CAP-01", Title: "a server that answers tools/list declares capabilities.tools (an object)",
	Run: runToolsCap,
})

// runToolsCap judges the declaration against the read-only tools/list probe (the
// memoized walk of the main session).
func runToolsCap(t *conform.T) conform.Verdict {
	s := t.Session()
	if v, declared := toolkit.JudgeDeclaredShape(s, "tools"); declared {
		return v
	}
	_, first := toolkit.FirstPage(t)
	switch {
	case first.Err != nil:
		return conform.Skip(conform.NotExercised, "no tools capability, and tools/list got no answer (%s): whether the server offers tools is unknown", conform.Describe(nil, first.Err))
	case first.Resp.IsError() && first.Resp.Error.Code == wire.CodeMethodNotFound:
		return conform.Note("no tools capability declared, and tools/list is answered -32601: the server offers no tools")
	case first.Resp.IsError():
		return conform.Note("no tools capability declared; tools/list is answered with %s (-32601 expected for a method the server does not offer)", conform.Describe(first.Resp, nil))
	}
	return conform.Violation("capabilities.tools declared by a server that answers tools/list",
		fmt.Sprintf("no tools capability in the %s, yet tools/list succeeded with %d tool(s): %s",
			toolkit.CapabilitiesResult(s), len(first.Tools), conform.Describe(first.Resp, nil)))
}

// TOOLS-CAP-LISTCHANGED-01 — {rev}/server/tools.mdx (Capabilities); schema
// ServerCapabilities.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CAP-LISTCHANGED-01", Title: "capabilities.tools.listChanged, when set, is a boolean",
	Run: func(t *conform.T) conform.Verdict {
		return toolkit.JudgeListChangedFlag(t, "tools", "TOOLS-CAP-01 and LIFE-CAPS-SHAPE-01")
	},
})
