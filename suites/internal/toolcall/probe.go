package toolcall

import (
	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Probe is one request of a multi-request check and its Reply.
type Probe struct {
	Label string
	R     Reply
}

// JudgeMethodNotFound wants JSON-RPC error -32601 for every probe: a method behind
// a capability the server did not declare (ERR-NOTDECLARED-01, RES-CAP-* rows). want
// completes "JSON-RPC error -32601 (method not found) for "; passed words the pass
// from the labels of the probes answered -32601. A probe without a reply ends the
// judging as silence.
func JudgeMethodNotFound(probes []Probe, want string, passed func(labels []string) string) conform.Verdict {
	var f conform.Findings
	var names []string
	for _, p := range probes {
		f.Judged++
		switch {
		case p.R.Kind == KindNone:
			return conform.Silence("JSON-RPC error -32601 for "+p.Label, p.R.Err)
		case p.R.Kind == KindRPCError && p.R.Code == wire.CodeMethodNotFound:
			names = append(names, p.Label)
		case p.R.Kind == KindResult:
			f.Fail(p.Label + ": served with a result " + conform.ClipBytes(p.R.Raw, 120))
		default:
			f.Fail(p.Label + ": " + p.R.Desc)
		}
	}
	return f.Verdict("JSON-RPC error -32601 (method not found) for "+want, "", passed(names))
}
