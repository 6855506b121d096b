package lifecycle

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// beforeInit makes the ping sent before initialize answer with h: the first message
// of its session, id 1 (the scripted server's handlers are shared by every session,
// and every other session starts with initialize).
func beforeInit(h conformtest.Handler) func(s *conformtest.Server) {
	return func(s *conformtest.Server) {
		s.Handle("ping", func(req *wire.Message) []string {
			if string(req.ID.Raw()) == "1" {
				return h(req)
			}
			return []string{conformtest.Result(req, `{}`)}
		})
	}
}

// earlyRequest makes initialize answer, then send a server request of method.
func earlyRequest(method string) func(s *conformtest.Server) {
	return func(s *conformtest.Server) {
		s.Handle("initialize", func(req *wire.Message) []string {
			return append(initResult(req, requested(req)), `{"jsonrpc":"2.0","id":"early-1","method":"`+method+`"}`)
		})
	}
}

func TestPreInitVerdicts(t *testing.T) {
	tests := []struct {
		name, id string
		setup    func(s *conformtest.Server)
		want     reports.Status
	}{
		{"a ping before initialize answered passes", "LIFE-PRE-INIT-PING-01", nil, reports.Pass},
		{"a ping before initialize refused is noted", "LIFE-PRE-INIT-PING-01", beforeInit(rpcError(-32600)), reports.Pass},
		{"a ping before initialize refused over HTTP is noted", "LIFE-PRE-INIT-PING-01", beforeInit(func(*wire.Message) []string {
			return []string{conformtest.HTTPError(400, `Bad Request: no session`)}
		}), reports.Pass},
		{"a ping before initialize unanswered warns", "LIFE-PRE-INIT-PING-01", beforeInit(silent), reports.Warn},
		{"no request before initialized passes", "LIFE-PRE-INIT-REQ-01", nil, reports.Pass},
		{"a ping before initialized is allowed", "LIFE-PRE-INIT-REQ-01", earlyRequest("ping"), reports.Pass},
		{"roots/list before initialized warns", "LIFE-PRE-INIT-REQ-01", earlyRequest("roots/list"), reports.Warn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			if tc.setup != nil {
				tc.setup(srv)
			}
			v := conformtest.Judge(t, tc.id, "2025-06-18", srv)
			if v.Status != tc.want {
				t.Errorf("%s: status %s, want %s (%s)", tc.id, v.Status, tc.want, v.Message)
			}
			if tc.want == reports.Pass && tc.name != "a ping before initialize answered passes" && tc.id == "LIFE-PRE-INIT-PING-01" && v.Outcome() != "note" {
				t.Errorf("%s: want a note, got %q", tc.id, v.Message)
			}
		})
	}
}
