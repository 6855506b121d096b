package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Kind is which channel a Reply came on.
type Kind int

// Reply channels.
const (
	KindResult   Kind = iota // a JSON-RPC result (an object or not)
	KindRPCError             // a JSON-RPC error, or an HTTP error status whose body carries one
	KindHTTP                 // an HTTP error status without a JSON-RPC error
	KindNone                 // no reply: timeout, closed connection, cancelled run
)

// Reply is one request's outcome, decoded once for the judge functions.
type Reply struct {
	Kind    Kind
	Code    int    // KindRPCError
	Message string // KindRPCError
	// result holds the result's members (nil when the result is not an object).
	Result  map[string]json.RawMessage
	IsError bool // the result says isError: true
	// inputRequired marks, in a 2026-07-28 session, an InputRequiredResult
	// (resultType "input_required"): the server asks for input before it completes
	// the call, so the result is no CallToolResult (set by inEra).
	InputRequired bool
	Raw           json.RawMessage // KindResult: the result as received
	Desc          string          // what came back, in a few words
	Err           error           // KindNone, KindHTTP
}

// Classify decodes what a request produced.
func Classify(resp *wire.Response, err error) Reply {
	r := Reply{Desc: conform.Describe(resp, err), Err: err}
	switch {
	case err != nil:
		if rpc, ok := conform.RPCErrorIn(err); ok {
			r.Kind, r.Code, r.Message = KindRPCError, rpc.Code, rpc.Message
			return r
		}
		var se *transport.HTTPStatusError
		if errors.As(err, &se) {
			r.Kind = KindHTTP
			return r
		}
		r.Kind = KindNone
	case resp == nil:
		r.Kind, r.Err = KindNone, fmt.Errorf("no Reply")
	case resp.IsError():
		r.Kind, r.Code, r.Message = KindRPCError, resp.Error.Code, resp.Error.Message
	default:
		r.Kind, r.Raw = KindResult, resp.Result
		// Slices of the Reply, not a copy: a probe may be answered with a whole
		// tools/list of megabytes.
		if m, err := rawjson.ObjectOfValid(resp.Result); err == nil {
			r.Result = m
		}
		var b bool
		if json.Unmarshal(r.Result["isError"], &b) == nil && b {
			r.IsError = true
			r.Desc = "an isError:true result " + conform.ClipBytes(resp.Result, 200)
		}
	}
	return r
}

// InEra marks r as an InputRequiredResult when the session is of the modern era
// (2026-07-28) and the result says resultType "input_required"; legacy revisions have
// no resultType, and there the member is an unknown extra.
func (r Reply) InEra(modern bool) Reply {
	var rt string
	if modern && r.Kind == KindResult && json.Unmarshal(r.Result["resultType"], &rt) == nil && rt == "input_required" {
		r.InputRequired = true
		r.Desc = `an InputRequiredResult (resultType "input_required") ` + conform.ClipBytes(r.Raw, 200)
	}
	return r
}

// SuccessText describes a successful result for messages.
func (r Reply) SuccessText() string { return "a successful result " + conform.ClipBytes(r.Raw, 160) }

// Success reports whether the Reply is a result that is not isError:true. A check
// that needs a successful tool result never accepts isError:true as one.
// An InputRequiredResult is not one either: the call has not completed.
func (r Reply) Success() bool { return r.Kind == KindResult && !r.IsError && !r.InputRequired }

// Channel names the error channel a rejection used, for messages.
func (r Reply) Channel() string {
	switch {
	case r.Kind == KindRPCError && r.Code == wire.CodeInvalidParams:
		return "JSON-RPC error -32602 (protocol error)"
	case r.Kind == KindRPCError:
		return fmt.Sprintf("JSON-RPC error %d (protocol error)", r.Code)
	case r.Kind == KindResult && r.IsError:
		return "an isError:true result (tool execution error)"
	}
	return r.Desc
}
