package toolkit

import (
	"errors"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// JudgeInvalidCursor judges the reply to a list request with a cursor no server
// issued ({rev}/server/utilities/pagination.mdx, Error Handling: -32602), for
// PAG-INVALID-01 and RES-PAG-INVALID-01. want names the expected error;
// resp and err are the probe's reply; alive is the outcome of a request sent after
// it (nil when answered or not sent); ignored reports that the reply is the first
// page again.
func JudgeInvalidCursor(want string, resp *wire.Response, err, alive error, ignored bool) conform.Verdict {
	if err != nil {
		if rpc, ok := conform.RPCErrorIn(err); ok && rpc.Code == wire.CodeInvalidParams {
			return conform.Pass("%s", "an HTTP error status carrying JSON-RPC error -32602")
		}
		var se *transport.HTTPStatusError
		switch {
		case errors.As(err, &se):
			return conform.Violation(want, conform.Describe(nil, err))
		case conform.Unanswered(err):
			return conform.Fail(want, "no reply: the invalid cursor was not handled gracefully ("+conform.Describe(nil, err)+")")
		case conform.Gone(err):
			return conform.Fail(want, "the connection ended after the invalid cursor (the server crashed or hung up): "+conform.Describe(nil, err))
		}
		return conform.Errorf("%s", "not verified: "+conform.Describe(nil, err))
	}
	if alive != nil && (conform.Unanswered(alive) || conform.Gone(alive)) {
		return conform.Fail("the server still answering after the invalid cursor", fmt.Sprintf("it replied %s, then the next request (ping; server/discover in 2026-07-28) got %s", conform.Describe(resp, nil), conform.Describe(nil, alive)))
	}
	switch {
	case resp.IsError() && resp.Error.Code == wire.CodeInvalidParams:
		return conform.Pass("%s", fmt.Sprintf("JSON-RPC error -32602 %q", conform.Clip(resp.Error.Message, 80)))
	case resp.IsError():
		return conform.Violation(want, fmt.Sprintf("JSON-RPC error %d %q (another code)", resp.Error.Code, conform.Clip(resp.Error.Message, 80)))
	case ignored:
		return conform.Violation(want, "the first page again: the invalid cursor was ignored")
	}
	return conform.Violation(want, conform.Describe(resp, nil))
}
