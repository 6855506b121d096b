package base

import (
	"strings"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// floodingNullID answers the "id": null tools/list with -32600 (id null), and
// floods notifications/message before or after that refusal.
func floodingNullID(before bool) *conformtest.Server {
	srv := conformtest.NewServer()
	srv.Handle("tools/list", func(req *wire.Message) []string {
		if !req.ID.IsNull() {
			return []string{conformtest.Result(req, `{"tools":[]}`)}
		}
		// Longer than a notification: what is left of the bound after the flood,
		// too little for one more notification, is too little for it.
		refusal := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"id null` + strings.Repeat(".", 200) + `"}}`
		var flood []string
		for i := 0; i < 200; i++ {
			flood = append(flood, conformtest.Notification("notifications/message", `{"level":"info","data":"x"}`))
		}
		if before {
			return append(flood, refusal)
		}
		return append([]string{refusal}, flood...)
	})
	return srv
}

// Issue 32: "A lost record is 'not verified', never a failure, and only a dropped
// message that could have been the reply counts." With a transcript bound the
// flood overruns, dropped notifications leave the probe judged; a dropped refusal
// (it came after the flood) leaves it not verified, never a failure.
func TestFloodedTranscript(t *testing.T) {
	small := func(c *conform.Config) { c.MaxTranscriptBytes = 8 << 10 }
	v := conformtest.Judge(t, "BASE-NULL-ID-01", "2025-06-18", floodingNullID(false), small)
	if v.Status != reports.Pass {
		t.Errorf("notifications dropped after the refusal: %s (%s), want pass", v.Status, v.Message)
	}
	v = conformtest.Judge(t, "BASE-NULL-ID-01", "2025-06-18", floodingNullID(true), small)
	if v.Status != reports.Error || !strings.Contains(v.Message, "not verified") {
		t.Errorf("the refusal dropped after the flood: %s (%s), want error (not verified)", v.Status, v.Message)
	}
}

// A null-id request answered with a listing larger than the transcript keeps: the
// reply came, so no silence is left to prove (toolkit's completeWith ends the wait),
// and the probe stays not verified, never judged on a reply it cannot read.
func TestDroppedNullIDReplyIsNotVerified(t *testing.T) {
	srv := conformtest.NewServer()
	srv.Handle("tools/list", func(req *wire.Message) []string {
		tools := `{"tools":[{"name":"t","inputSchema":{"type":"object"},"description":"` + strings.Repeat("x", 16<<10) + `"}]}`
		if req.ID.IsNull() {
			return []string{`{"jsonrpc":"2.0","id":null,"result":` + tools + `}`}
		}
		return []string{conformtest.Result(req, `{"tools":[]}`)}
	})
	small := func(c *conform.Config) { c.MaxTranscriptBytes = 8 << 10 }
	v := conformtest.Judge(t, "BASE-NULL-ID-01", "2025-06-18", srv, small)
	if v.Status != reports.Error || !strings.Contains(v.Message, "not verified") {
		t.Errorf("a dropped result to the null-id request: %s (%s), want error (not verified)", v.Status, v.Message)
	}
}

// BASE-INVALID-PARAMS-01's reply left for the settle (wire.Conn.CallRawOwed) is read
// from the transcript by its id: when a flood made the transcript drop it, the probe
// is not verified, never a failure; with room for it, the late -32602 passes. The
// reply trails the barrier's by order, not by a timer: the server writes it (and the
// flood before it) when the next probe comes, after the suite's call has given up on
// it, so no machine is too slow for it to land before the settle.
func TestDroppedLateInvalidParamsReplyIsNotVerified(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bound int64
		want  reports.Status
	}{
		{"room for the reply", 8 << 20, reports.Pass},
		{"the reply dropped after a flood", 8 << 10, reports.Error},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var owed []string // the first probe's flood and reply, written later
			srv := conformtest.NewServer()
			srv.Handle("tools/list", func(req *wire.Message) []string {
				mu.Lock()
				defer mu.Unlock()
				p := strings.TrimSpace(string(req.Params))
				switch {
				case p != "" && p[0] != '{':
					// params "abc": answered only once the suite's call has given up
					// on it (its barrier answered) and the next probe has come.
					for i := 0; i < 200; i++ {
						owed = append(owed, conformtest.Notification("notifications/message", `{"level":"info","data":"x"}`))
					}
					owed = append(owed, conformtest.Error(req, wire.CodeInvalidParams, "invalid params"))
					return nil
				case strings.Contains(p, `"cursor":5`):
					out := append(owed, conformtest.Error(req, wire.CodeInvalidParams, "invalid params"))
					owed = nil
					return out
				}
				return []string{conformtest.Result(req, `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)}
			})
			bound := func(c *conform.Config) { c.MaxTranscriptBytes = tc.bound }
			v := conformtest.Judge(t, "BASE-INVALID-PARAMS-01", "2025-06-18", srv, bound)
			if v.Status != tc.want || (tc.want == reports.Error && !strings.Contains(v.Message, "not verified")) {
				t.Errorf("%s (%s), want %s", v.Status, v.Message, tc.want)
			}
		})
	}
}

// In the odd tail the null-id request follows the mixed batch, which a server may
// leave unanswered: a dropped reply there could be a late refusal of the batch, but
// a dropped result of null id can only answer the null-id request. The request then
// goes out once, not again alone, and stays not verified.
func TestDroppedNullIDResultInTheTail(t *testing.T) {
	var mu sync.Mutex
	nullIDs := 0
	srv := conformtest.NewServer()
	srv.HandleRaw(func([]byte) []string { return nil }) // silent on the batch
	srv.Handle("tools/list", func(req *wire.Message) []string {
		tools := `{"tools":[{"name":"t","inputSchema":{"type":"object"},"description":"` + strings.Repeat("x", 16<<10) + `"}]}`
		if req.ID.IsNull() {
			mu.Lock()
			nullIDs++
			mu.Unlock()
			return []string{`{"jsonrpc":"2.0","id":null,"result":` + tools + `}`}
		}
		return []string{conformtest.Result(req, `{"tools":[]}`)}
	})
	small := func(c *conform.Config) { c.MaxTranscriptBytes = 8 << 10 }
	vs := conformtest.JudgeAll(t, []string{"BASE-NULL-ID-01", "BASE-BATCH-R3-01"}, "2025-06-18", srv, small)
	if vs[0].Status != reports.Error || !strings.Contains(vs[0].Message, "not verified") {
		t.Errorf("BASE-NULL-ID-01 = %s (%s), want error (not verified)", vs[0].Status, vs[0].Message)
	}
	if vs[1].Status != reports.Warn {
		t.Errorf("BASE-BATCH-R3-01 = %s (%s), want warn (no reply)", vs[1].Status, vs[1].Message)
	}
	mu.Lock()
	defer mu.Unlock()
	if nullIDs != 1 {
		t.Errorf("the null-id request went out %d times, want once", nullIDs)
	}
}
