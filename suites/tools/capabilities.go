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
	if raw, ok := s.Capabilities()["tools"]; ok {
		if toolkit.JSONKind(raw) != "object" {
			return conform.Violation("capabilities.tools as an object", "capabilities.tools is "+toolkit.JSONKind(raw)+": "+conform.ClipBytes(raw, 80))
		}
		return conform.Pass("capabilities.tools declared: %s", conform.ClipBytes(raw, 80))
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
	// 2026-07-28 declares capabilities in the DiscoverResult (there is no initialize).
	where := "InitializeResult"
	if s.Modern() {
		where = "DiscoverResult"
	}
	return conform.Violation("capabilities.tools declared by a server that answers tools/list",
		fmt.Sprintf("no tools capability in the %s, yet tools/list succeeded with %d tool(s): %s", where, len(first.Tools), conform.Describe(first.Resp, nil)))
}

// TOOLS-CAP-LISTCHANGED-01 — {rev}/server/tools.mdx (Capabilities); schema
// ServerCapabilities.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CAP-LISTCHANGED-01", Title: "capabilities.tools.listChanged, when set, is a boolean",
	Run: func(t *conform.T) conform.Verdict {
		raw, ok := t.Session().Capabilities()["tools"]
		if !ok {
			return conform.Skip(conform.NotApplicable, "the server declares no tools capability")
		}
		obj := toolkit.Object(raw)
		if obj == nil {
			return conform.Skip(conform.NotApplicable, "capabilities.tools is not an object (%s): judged by TOOLS-CAP-01 and LIFE-CAPS-SHAPE-01", toolkit.JSONKind(raw))
		}
		lc, ok := obj["listChanged"]
		if !ok {
			return conform.Skip(conform.NotExercised, "capabilities.tools has no listChanged flag (optional; absent means no list_changed notifications are promised)")
		}
		if toolkit.JSONKind(lc) != "boolean" {
			return conform.Violation("capabilities.tools.listChanged as a boolean", fmt.Sprintf("a %s: %s", toolkit.JSONKind(lc), conform.ClipBytes(lc, 60)))
		}
		return conform.Pass("capabilities.tools.listChanged is %s", lc)
	},
})
