// Package toolcalltest builds the replies and observed calls that the verdict tables
// of suites/tools and suites/errors feed their judge functions, without a server.
package toolcalltest

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
)

// Tool results the tables share.
const (
	OKText     = `{"content":[{"type":"text","text":"hi"}]}`
	IsErrText  = `{"content":[{"type":"text","text":"boom"}],"isError":true}`
	IsErrFalse = `{"content":[],"isError":false}`
)

// The transport failures the tables share.
var (
	ErrTimeout = fmt.Errorf("tools/call (id 3): %w (waited 5s)", wire.ErrTimeout)
	ErrClosed  = fmt.Errorf("tools/call (id 3): %w: exit status 2", wire.ErrClosed)
)

// RPCError is a JSON-RPC error reply with code.
func RPCError(code int) toolcall.Reply {
	return toolcall.Classify(&wire.Response{Error: &wire.Error{Code: code, Message: "m"}, IDExact: true}, nil)
}

// Result is a result reply carrying raw.
func Result(raw string) toolcall.Reply {
	return toolcall.Classify(&wire.Response{Result: json.RawMessage(raw), IDExact: true}, nil)
}

// None is no reply, ended by err.
func None(err error) toolcall.Reply { return toolcall.Classify(nil, err) }

// HTTPError is an HTTP error status with a JSON body.
func HTTPError(status int, body string) toolcall.Reply {
	return toolcall.Classify(nil, &transport.HTTPStatusError{Status: status, ContentType: "application/json", Body: []byte(body)})
}

// Seen is a tools/call result of tool name, as a transcript-wide check observes it.
func Seen(name, raw string) toolcall.SeenCall {
	c := toolcall.SeenCall{Where: "s#1 #5", Name: name, Raw: json.RawMessage(raw)}
	_ = json.Unmarshal(c.Raw, &c.Result)
	c.IsErrorRaw = c.Result["isError"]
	return c
}
