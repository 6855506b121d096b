package errors

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/loglevel"
)

// elLogServer declares logging (unless caps says otherwise) and answers the probe
// with an unknown level with reply: logging/setLevel before 2026-07-28, tools/list
// (its _meta logLevel) in 2026-07-28.
func elLogServer(r5 bool, caps string, reply conformtest.Handler) func() *conformtest.Server {
	return func() *conformtest.Server {
		srv := conformtest.NewServer()
		srv.Capabilities = caps
		if !r5 {
			return srv.Handle(loglevel.SetLevel, reply)
		}
		conformtest.Modern(srv)
		srv.Handle("server/discover", conformtest.Reply(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+caps+`,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted","version":"1"}},"ttlMs":0,"cacheScope":"private"}`))
		return srv.Handle("tools/list", reply)
	}
}

func TestLogLevelCodeVerdicts(t *testing.T) {
	const logging = `{"tools":{},"logging":{}}`
	accepted := conformtest.Reply(`{"tools":[],"resultType":"complete","ttlMs":0,"cacheScope":"private"}`)
	cases := []conformtest.Case{
		{Name: "-32602 passes", ID: "ERR-LOGLEVEL-01", Rev: "2025-06-18", Srv: elLogServer(false, logging, conformtest.ReplyError(wire.CodeInvalidParams)), Want: reports.Pass},
		{Name: "-32603 warns", ID: "ERR-LOGLEVEL-01", Rev: "2025-06-18", Srv: elLogServer(false, logging, conformtest.ReplyError(wire.CodeInternalError)), Want: reports.Warn, Contains: "-32603 is for configuration"},
		{Name: "-32601 warns", ID: "ERR-LOGLEVEL-01", Rev: "2024-11-05", Srv: elLogServer(false, logging, conformtest.ReplyError(wire.CodeMethodNotFound)), Want: reports.Warn, Contains: "-32601"},
		{Name: "an accepted level leaves no code to judge", ID: "ERR-LOGLEVEL-01", Rev: "2025-11-25", Srv: elLogServer(false, logging, conformtest.Reply(`{}`)), Want: reports.Skip, Reason: reports.NotExercised, Contains: "LOG-SETLEVEL-INVALID-01"},
		{Name: "silence warns", ID: "ERR-LOGLEVEL-01", Rev: "2025-03-26", Srv: elLogServer(false, logging, conformtest.Silent), Want: reports.Warn},
		{Name: "undeclared logging is not applicable", ID: "ERR-LOGLEVEL-01", Rev: "2025-06-18", Srv: elLogServer(false, `{"tools":{}}`, conformtest.ReplyError(wire.CodeInternalError)), Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "R5 -32602 passes", ID: "ERR-LOGLEVEL-01", Rev: "2026-07-28", Srv: elLogServer(true, logging, conformtest.ReplyError(wire.CodeInvalidParams)), Want: reports.Pass},
		{Name: "R5 -32603 warns", ID: "ERR-LOGLEVEL-01", Rev: "2026-07-28", Srv: elLogServer(true, logging, conformtest.ReplyError(wire.CodeInternalError)), Want: reports.Warn},
		{Name: "R5 -32602 as HTTP 400 passes", ID: "ERR-LOGLEVEL-01", Rev: "2026-07-28", Srv: elLogServer(true, logging, func(*wire.Message) []string {
			return []string{conformtest.HTTPError(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"unknown level"}}`)}
		}), Want: reports.Pass},
		{Name: "R5 an ignored level leaves no code to judge", ID: "ERR-LOGLEVEL-01", Rev: "2026-07-28", Srv: elLogServer(true, logging, accepted), Want: reports.Skip, Reason: reports.NotExercised},
	}
	conformtest.RunCases(t, cases)
}
