package tools

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// unusedName is x_conformance_nonexistent_<random hex>, never a listed name. Calling
// it executes nothing (tier 0).
func unusedName(l *toolkit.Listing) string {
	for {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		name := "x_conformance_nonexistent_" + hex.EncodeToString(b)
		if l.Find(name) == nil {
			return name
		}
	}
}

// judgeUnknownTool judges the reply to a call of an unknown tool (TOOLS-CALL-UNKNOWN-01):
// -32602 passes; another protocol error warns (the pages show -32602 as an example);
// a result, isError or not, breaks the row's SHOULD and is judged at its level.
func judgeUnknownTool(name string, r toolcall.Reply) conform.Verdict {
	want := fmt.Sprintf("JSON-RPC error -32602 for tools/call{name: %q}, a tool that does not exist", name)
	switch {
	case r.Kind == toolcall.KindNone:
		return conform.Silence(want, r.Err)
	case r.Kind == toolcall.KindRPCError && r.Code == wire.CodeInvalidParams:
		return conform.Pass("%s", fmt.Sprintf("JSON-RPC error -32602 %q", conform.Clip(r.Message, 80)))
	case r.Kind == toolcall.KindRPCError:
		return conform.Warn(want, fmt.Sprintf("JSON-RPC error %d %q: a protocol error, but not the code every revision's example uses", r.Code, conform.Clip(r.Message, 80)))
	case r.Kind == toolcall.KindHTTP:
		return conform.Warn(want, r.Desc+": an error, but not a JSON-RPC error")
	case r.IsError:
		return conform.Violation(want, r.Desc+": an unknown tool is a protocol error, not a tool execution error")
	}
	return conform.Violation(want, r.SuccessText()+": the server claims to have run a tool that does not exist")
}

type malformedCall struct {
	label    string
	params   any
	nameless bool // no string name: no Mcp-Name header can carry it
}

// malformedCalls are params that break the CallToolRequest schema. The one with array
// arguments names a real tool (preferring one the suite may call), so that only the
// arguments are wrong; a correct server rejects it before dispatch.
func malformedCalls(l *toolkit.Listing) []malformedCall {
	out := []malformedCall{
		{`params {} (no name)`, map[string]any{}, true},
		{`params {"name":5}`, map[string]any{"name": 5}, true},
	}
	if name := realName(l); name != "" {
		out = append(out, malformedCall{fmt.Sprintf(`params {"name":%q,"arguments":[1]}`, name), map[string]any{"name": name, "arguments": []any{1}}, false})
	}
	return out
}

// realName picks a listed tool name for the array-arguments probe.
func realName(l *toolkit.Listing) string {
	if l.Find("test_simple_text") != nil {
		return "test_simple_text"
	}
	for _, tl := range l.Tools {
		if toolkit.FixtureTools[tl.Name] && !unsuitable[tl.Name] {
			return tl.Name
		}
	}
	for _, tl := range l.Tools {
		if tl.Name != "" {
			return tl.Name
		}
	}
	return ""
}

// judgeMalformed wants -32602 for every malformed call; headerOK names the probes
// for which the 2026-07-28 HTTP header error -32020 is an answer too.
func judgeMalformed(probes []toolcall.Probe, headerOK map[string]bool) conform.Verdict {
	var problems conform.Findings
	var labels, notes []string
	for _, p := range probes {
		switch {
		case p.R.Kind == toolcall.KindNone:
			return conform.Silence("JSON-RPC error -32602 for tools/call with "+p.Label, p.R.Err)
		case p.R.Kind == toolcall.KindRPCError && p.R.Code == wire.CodeInvalidParams:
			labels = append(labels, p.Label)
		case p.R.Kind == toolcall.KindRPCError && p.R.Code == conform.CodeHeaderMismatch && headerOK[p.Label]:
			notes = append(notes, p.Label+" got -32020 (no Mcp-Name header can carry a missing or non-string name)")
		case p.R.Success():
			problems.Fail(p.Label + ": " + p.R.SuccessText() + " (the malformed call was dispatched)")
		default:
			problems.Fail(p.Label + ": " + p.R.Desc)
		}
	}
	if problems.Failed() {
		return problems.Violation("JSON-RPC error -32602 for each tools/call that breaks the CallToolRequest schema")
	}
	msg := "-32602 for " + strings.Join(labels, ", ")
	if len(probes) < 3 {
		msg += " (no tool is listed, so arguments [1] were not sent)"
	}
	if len(notes) > 0 {
		if len(labels) == 0 {
			msg = "no -32602"
		}
		return conform.Note("%s; %s", msg, strings.Join(notes, "; "))
	}
	return conform.Pass("%s", msg)
}
