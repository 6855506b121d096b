package lifecycle

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

var (
	reply    = conformtest.Reply
	rpcError = conformtest.ReplyError
	silent   = conformtest.Silent
)

func initResult(req *wire.Message, version string) []string {
	return []string{conformtest.Result(req, `{"protocolVersion":"`+version+`","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)}
}

func requested(req *wire.Message) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return p.ProtocolVersion
}

func shiftedVersion(req *wire.Message) []string {
	next := map[string]string{"2024-11-05": "2025-03-26", "2025-03-26": "2025-06-18", "2025-06-18": "2025-11-25", "2025-11-25": "2024-11-05"}
	v, ok := next[requested(req)]
	if !ok {
		v = "2025-11-25"
	}
	return initResult(req, v)
}

func blindEcho(req *wire.Message) []string { return initResult(req, requested(req)) }

func TestVerdicts(t *testing.T) {
	tests := []struct {
		name, id, rev string
		setup         func(s *conformtest.Server)
		want          reports.Status
	}{
		{"ping {} passes", "PING-01", "2025-06-18", nil, reports.Pass},
		{"ping with extra keys warns", "PING-01", "2025-06-18", func(s *conformtest.Server) { s.Handle("ping", reply(`{"pong":true}`)) }, reports.Warn},
		{"ping error fails", "PING-01", "2024-11-05", func(s *conformtest.Server) { s.Handle("ping", rpcError(-32603)) }, reports.Fail},
		{"ping silence fails", "PING-01", "2024-11-05", func(s *conformtest.Server) { s.Handle("ping", silent) }, reports.Fail},
		// 2026-07-28: the column opens with server/discover, which also carries the
		// id probes (there is no ping).
		{"unknown method -32601 passes in 2026-07-28", "BASE-METHOD-UNKNOWN-01", "2026-07-28", nil, reports.Pass},
		{"unknown method -32603 fails in 2026-07-28", "BASE-METHOD-UNKNOWN-01", "2026-07-28", func(s *conformtest.Server) { s.Handle("x_conformance/unknown_method", rpcError(-32603)) }, reports.Fail},
		{"exact ids pass in 2026-07-28", "BASE-RESP-ID-01", "2026-07-28", nil, reports.Pass},
		{"id 0 answered as \"0\" fails in 2026-07-28", "BASE-RESP-ID-01", "2026-07-28", func(s *conformtest.Server) {
			s.Handle("server/discover", func(req *wire.Message) []string {
				out := []string{conformtest.Result(req, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"public"}`)}
				if string(req.ID.Raw()) == "0" {
					out[0] = strings.Replace(out[0], `"id":0`, `"id":"0"`, 1)
				}
				return out
			})
		}, reports.Fail},
		{"unknown method -32601 passes", "BASE-METHOD-UNKNOWN-01", "2025-11-25", nil, reports.Pass},
		{"unknown method -32603 fails", "BASE-METHOD-UNKNOWN-01", "2025-11-25", func(s *conformtest.Server) { s.Handle("x_conformance/unknown_method", rpcError(-32603)) }, reports.Fail},
		{"unknown method result fails", "BASE-METHOD-UNKNOWN-01", "2025-11-25", func(s *conformtest.Server) { s.Handle("x_conformance/unknown_method", reply(`{}`)) }, reports.Fail},
		{"exact ids pass", "BASE-RESP-ID-01", "2025-03-26", nil, reports.Pass},
		{"ids echoed as strings fail", "BASE-RESP-ID-01", "2025-03-26", func(s *conformtest.Server) {
			s.Handle("ping", func(req *wire.Message) []string {
				id := strings.Trim(req.ID.String(), `"`)
				return []string{`{"jsonrpc":"2.0","id":"` + id + `","result":{}}`}
			})
		}, reports.Fail},
		{"echoed version passes", "LIFE-VERSION-ECHO-01", "2025-06-18", nil, reports.Pass},
		// Asked for X, the server answers the revision after X: it answers versions it
		// will not echo when asked for them, so they are not versions it supports.
		{"counter-offer it does not support fails", "LIFE-VERSION-ECHO-01", "2025-06-18", func(s *conformtest.Server) { s.Handle("initialize", shiftedVersion) }, reports.Fail},
		{"blind echo of a bogus version fails the fallback", "LIFE-VERSION-FALLBACK-01", "2025-06-18", func(s *conformtest.Server) { s.Handle("initialize", blindEcho) }, reports.Fail},
		{"missing serverInfo fails", "LIFE-INIT-RESULT-01", "2025-06-18", func(s *conformtest.Server) {
			s.Handle("initialize", reply(`{"protocolVersion":"2025-06-18","capabilities":{}}`))
		}, reports.Fail},
		{"initialize error fails LIFE-INIT-01", "LIFE-INIT-01", "2025-06-18", func(s *conformtest.Server) { s.Handle("initialize", rpcError(-32603)) }, reports.Fail},
		{"fallback to newest passes", "LIFE-VERSION-FALLBACK-01", "2025-11-25", nil, reports.Pass},
		{"fallback error warns", "LIFE-VERSION-FALLBACK-01", "2025-11-25", func(s *conformtest.Server) {
			s.Handle("initialize", func(req *wire.Message) []string {
				if strings.Contains(string(req.Params), "1999-01-01") {
					return []string{conformtest.Error(req, -32602, "Unsupported protocol version")}
				}
				return []string{conformtest.Result(req, `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`)}
			})
		}, reports.Warn},
		// The same rejections over Streamable HTTP, as an HTTP 400 whose body carries
		// the JSON-RPC error: the same verdicts as on stdio, never error.
		{"fallback error in an HTTP 400 body warns", "LIFE-VERSION-FALLBACK-01", "2025-11-25", func(s *conformtest.Server) {
			s.Handle("initialize", func(req *wire.Message) []string {
				if strings.Contains(string(req.Params), "1999-01-01") {
					return []string{conformtest.HTTPError(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Unsupported protocol version"}}`)}
				}
				return initResult(req, "2025-11-25")
			})
		}, reports.Warn},
		{"a revision rejected in an HTTP 400 body is unsupported", "LIFE-INIT-01", "2024-11-05", func(s *conformtest.Server) {
			s.Handle("initialize", func(req *wire.Message) []string {
				return []string{conformtest.HTTPError(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Unsupported protocol version"}}`)}
			})
		}, reports.Skip},
		{"other checks of a revision rejected in an HTTP 400 body skip", "PING-01", "2024-11-05", func(s *conformtest.Server) {
			s.Handle("initialize", func(req *wire.Message) []string {
				return []string{conformtest.HTTPError(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Unsupported protocol version"}}`)}
			})
		}, reports.Skip},
		// LIFE-VERSION-ERRSHAPE-01 judges the fallback probe's error, when it is one.
		{"a supported version answered: no error shape to judge", "LIFE-VERSION-ERRSHAPE-01", "2025-11-25", nil, reports.Skip},
		{"the example's error shape passes", "LIFE-VERSION-ERRSHAPE-01", "2025-11-25", rejectBogus(`{"supported":["2025-11-25"],"requested":"1999-01-01"}`), reports.Pass},
		{"a rejection without data warns", "LIFE-VERSION-ERRSHAPE-01", "2025-11-25", rejectBogus(``), reports.Warn},
		{"data.requested not the version asked warns", "LIFE-VERSION-ERRSHAPE-01", "2025-11-25", rejectBogus(`{"supported":["2025-11-25"],"requested":"2025-11-25"}`), reports.Warn},
		{"data.supported not an array warns", "LIFE-VERSION-ERRSHAPE-01", "2024-11-05", rejectBogus(`{"supported":"2024-11-05","requested":"1999-01-01"}`), reports.Warn},
		{"silence on the bogus version: not exercised", "LIFE-VERSION-ERRSHAPE-01", "2025-06-18", func(s *conformtest.Server) {
			s.Handle("initialize", func(req *wire.Message) []string {
				if requested(req) == "1999-01-01" {
					return nil
				}
				return initResult(req, requested(req))
			})
		}, reports.Skip},
		{"notifications/initialized taken silently passes", "LIFE-INITIALIZED-01", "2025-06-18", nil, reports.Pass},
		{"notifications/initialized answered with an error fails", "LIFE-INITIALIZED-01", "2025-06-18", func(s *conformtest.Server) {
			s.Handle("notifications/initialized", func(*wire.Message) []string {
				return []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`}
			})
		}, reports.Fail},
		{"notifications/initialized answered with a result fails", "LIFE-INITIALIZED-01", "2024-11-05", func(s *conformtest.Server) {
			s.Handle("notifications/initialized", func(*wire.Message) []string { return []string{`{"jsonrpc":"2.0","result":{}}`} })
		}, reports.Fail},
		// A server that answers a request twice: the second reply carries the
		// request's id and answers it again, not the notification (issue 32).
		{"a duplicate reply to initialize is not blamed on the notification", "LIFE-INITIALIZED-01", "2025-06-18", func(s *conformtest.Server) {
			var initID string
			s.Handle("initialize", func(req *wire.Message) []string {
				initID = string(req.ID.Raw())
				return initResult(req, requested(req))
			})
			s.Handle("notifications/initialized", func(*wire.Message) []string {
				return []string{`{"jsonrpc":"2.0","id":` + initID + `,"result":{}}`}
			})
		}, reports.Pass},
		{"capability not an object fails", "LIFE-CAPS-SHAPE-01", "2025-06-18", func(s *conformtest.Server) { s.Capabilities = `{"tools":true}` }, reports.Fail},
		{"listChanged not boolean fails", "LIFE-CAPS-SHAPE-01", "2024-11-05", func(s *conformtest.Server) { s.Capabilities = `{"tools":{"listChanged":"yes"}}` }, reports.Fail},
		{"schema-valid traffic passes", "BASE-SCHEMA-01", "2025-06-18", nil, reports.Pass},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			if tc.setup != nil {
				tc.setup(srv)
			}
			v := conformtest.Judge(t, tc.id, tc.rev, srv)
			if v.Status != tc.want {
				t.Errorf("%s: status %s, want %s (%s)", tc.id, v.Status, tc.want, v.Message)
			}
		})
	}
}

// rejectBogus makes initialize reject the fallback probe's unknown version with
// -32602 carrying data (none when data is empty), and echo every other version.
func rejectBogus(data string) func(s *conformtest.Server) {
	return func(s *conformtest.Server) {
		s.Handle("initialize", func(req *wire.Message) []string {
			if requested(req) != "1999-01-01" {
				return initResult(req, requested(req))
			}
			body := `{"code":-32602,"message":"Unsupported protocol version"`
			if data != "" {
				body += `,"data":` + data
			}
			return []string{`{"jsonrpc":"2.0","id":` + string(req.ID.Raw()) + `,"error":` + body + `}}`}
		})
	}
}
