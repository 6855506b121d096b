package lifecycle

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"

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

// deadProbe makes the pre-initialize probe's process answer nothing at all: the
// ping sent before initialize (id 1) and the initialize after it (id 2, the only
// initialize that is not its session's first message) go unanswered, as from a
// process still starting under load; initial, when set, answers that initialize.
func deadProbe(initial conformtest.Handler) func(s *conformtest.Server) {
	return func(s *conformtest.Server) {
		beforeInit(silent)(s)
		s.Handle("initialize", func(req *wire.Message) []string {
			if string(req.ID.Raw()) == "2" {
				if initial != nil {
					return initial(req)
				}
				return nil
			}
			return initResult(req, requested(req))
		})
	}
}

// Issue 32: a process that answered nothing, not even initialize, gave no evidence
// about pings; LIFE-PRE-INIT-PING-01 is not verified, like LIFE-PRE-INIT-REQ-01,
// and a verdict that shows an exchange shows the probe process's own.
func TestPreInitDeadProbe(t *testing.T) {
	startIn := func(c *conform.Config) { c.StartTimeout = 500 * time.Millisecond }
	for _, id := range []string{"LIFE-PRE-INIT-PING-01", "LIFE-PRE-INIT-REQ-01"} {
		srv := conformtest.NewServer()
		deadProbe(nil)(srv)
		v := conformtest.Judge(t, id, "2025-06-18", srv, startIn)
		if v.Status != reports.Skip || v.Reason != reports.NotExercised {
			t.Errorf("%s: %s/%s (%s), want skip/not-exercised", id, v.Status, v.Reason, v.Message)
		}
		// The probe rides on the main session's opening (a process per session):
		// a failed handshake after it has the main session opened again, once.
		if srv.Sessions != 2 {
			t.Errorf("%s: %d sessions opened, want 2 (the probe's, then the main one again)", id, srv.Sessions)
		}
	}
	// The initialize refused: the process answered, and the ping's silence is a
	// finding whose exchange is that process's (ping id 1, then initialize).
	srv := conformtest.NewServer()
	deadProbe(rpcError(-32603))(srv)
	v := conformtest.Judge(t, "LIFE-PRE-INIT-PING-01", "2025-06-18", srv, startIn)
	if v.Status != reports.Warn {
		t.Fatalf("refused initialize: %s (%s), want warn", v.Status, v.Message)
	}
	ex := v.Exchange()
	if ex == nil || len(ex.Sessions) != 1 || len(ex.Sessions[0].Messages) < 2 {
		t.Fatalf("refused initialize: exchange %+v, want the probe session's alone", ex)
	}
	first := ex.Sessions[0].Messages[0]
	if !strings.Contains(string(first.Message), `"ping"`) {
		t.Errorf("refused initialize: the exchange starts with %s, want the probe's ping", first.Message)
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
			// The probe is made on the main session's opening: no session of its own.
			if srv.Sessions != 1 {
				t.Errorf("%s: %d sessions opened, want 1", tc.id, srv.Sessions)
			}
			if tc.want == reports.Pass && tc.name != "a ping before initialize answered passes" && tc.id == "LIFE-PRE-INIT-PING-01" && v.Outcome() != "note" {
				t.Errorf("%s: want a note, got %q", tc.id, v.Message)
			}
		})
	}
}
