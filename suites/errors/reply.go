package errorhandling

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// replyKind is which channel a reply came on.
type replyKind int

// Reply channels.
const (
	rResult   replyKind = iota // a JSON-RPC result (an object or not)
	rRPCError                  // a JSON-RPC error, or an HTTP error status whose body carries one
	rHTTP                      // an HTTP error status without a JSON-RPC error
	rNone                      // no reply: timeout, closed connection, cancelled run
)

// reply is one request's outcome, decoded once for the judge functions.
type reply struct {
	kind    replyKind
	code    int    // rRPCError
	message string // rRPCError
	// result holds the result's members (nil when the result is not an object).
	result  map[string]json.RawMessage
	isError bool // the result says isError: true
	// inputRequired marks, in a 2026-07-28 session, an InputRequiredResult
	// (resultType "input_required"): the server asks for input before it completes
	// the call, so the result is no CallToolResult (set by inEra).
	inputRequired bool
	raw           json.RawMessage // rResult: the result as received
	desc          string          // what came back, in a few words
	err           error           // rNone, rHTTP
}

// classify decodes what a request produced.
func classify(resp *wire.Response, err error) reply {
	r := reply{desc: conform.Describe(resp, err), err: err}
	switch {
	case err != nil:
		if rpc, ok := conform.RPCErrorIn(err); ok {
			r.kind, r.code, r.message = rRPCError, rpc.Code, rpc.Message
			return r
		}
		var se *transport.HTTPStatusError
		if errors.As(err, &se) {
			r.kind = rHTTP
			return r
		}
		r.kind = rNone
	case resp == nil:
		r.kind, r.err = rNone, fmt.Errorf("no reply")
	case resp.IsError():
		r.kind, r.code, r.message = rRPCError, resp.Error.Code, resp.Error.Message
	default:
		r.kind, r.raw = rResult, resp.Result
		// Slices of the reply, not a copy: a probe may be answered with a whole
		// tools/list of megabytes.
		if m, err := rawjson.ObjectOfValid(resp.Result); err == nil {
			r.result = m
		}
		var b bool
		if json.Unmarshal(r.result["isError"], &b) == nil && b {
			r.isError = true
			r.desc = "an isError:true result " + conform.Clip(string(resp.Result), 200)
		}
	}
	return r
}

// inEra marks r as an InputRequiredResult when the session is of the modern era
// (2026-07-28) and the result says resultType "input_required"; legacy revisions have
// no resultType, and there the member is an unknown extra.
func (r reply) inEra(modern bool) reply {
	var rt string
	if modern && r.kind == rResult && json.Unmarshal(r.result["resultType"], &rt) == nil && rt == "input_required" {
		r.inputRequired = true
		r.desc = `an InputRequiredResult (resultType "input_required") ` + conform.Clip(string(r.raw), 200)
	}
	return r
}

// successText describes a successful result for messages.
func (r reply) successText() string { return "a successful result " + conform.Clip(string(r.raw), 160) }

// success reports whether the reply is a result that is not isError:true. A check
// that needs a successful tool result never accepts isError:true as one.
// An InputRequiredResult is not one either: the call has not completed.
func (r reply) success() bool { return r.kind == rResult && !r.isError && !r.inputRequired }

// channel names the error channel a rejection used, for messages.
func (r reply) channel() string {
	switch {
	case r.kind == rRPCError && r.code == wire.CodeInvalidParams:
		return "JSON-RPC error -32602 (protocol error)"
	case r.kind == rRPCError:
		return fmt.Sprintf("JSON-RPC error %d (protocol error)", r.code)
	case r.kind == rResult && r.isError:
		return "an isError:true result (tool execution error)"
	}
	return r.desc
}
