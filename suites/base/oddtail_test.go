package base

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Over stdio the mixed batch, then the unparseable line and the invalid requests go
// out back to back, with a grace a stage (oddTail): each verdict is the one the
// probes one at a time give, and a reply that could be another probe's sends the
// probes it could be of again, one at a time. The scripted server answers the
// unparseable line and the batch (HandleRaw) and the invalid requests as each case
// says; a reply held back until a later probe arrives is ordered by what the server
// reads, not by a timer.
func TestOddTailVerdictsAsOneAtATime(t *testing.T) {
	const (
		parseErr     = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
		refusedWhole = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batching was removed"}}`
		nullRefusal  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`
	)
	refuse := func(req *wire.Message) []string {
		return []string{conformtest.Error(req, wire.CodeInvalidRequest, "invalid request")}
	}
	ids := []string{"BASE-PARSE-01", "BASE-INVALID-REQ-01", "BASE-BATCH-R3-01"}
	for _, tc := range []struct {
		name string
		// holdBatch holds the batch's reply back until the next line arrives.
		holdBatch        bool
		parse, batch     []string // the replies to the unparseable line and to the batch
		invalid          func(req *wire.Message) []string
		want             [3]reports.Status // of ids
		wantLineSentOnce bool              // every reply placed: no probe made again
	}{
		{"silent on all of them: one grace proves every silence", false, nil, nil, conformtest.Silent,
			[3]reports.Status{reports.Fail, reports.Fail, reports.Warn}, true},
		{"each answered at once", false, []string{parseErr}, []string{refusedWhole}, refuse,
			[3]reports.Status{reports.Pass, reports.Pass, reports.Pass}, true},
		{"invalid requests refused with a null id, at once, are placed by their window", false, []string{parseErr}, []string{refusedWhole},
			func(*wire.Message) []string { return []string{nullRefusal} },
			[3]reports.Status{reports.Pass, reports.Pass, reports.Pass}, true},
		{"a refusal of the batch that trails past its grace is the line's, as one at a time reads it", true, []string{parseErr}, []string{refusedWhole}, refuse,
			// One at a time the batch gets no reply within its grace: the held
			// refusal comes with the next line, whose window it is in, beside the
			// line's own parse error. The batch's stage drew no reply, so the line
			// followed without its grace, and the refusal, which could then be the
			// batch's, sends both again one at a time.
			[3]reports.Status{reports.Pass, reports.Pass, reports.Warn}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			lines := 0
			var held []string
			srv := conformtest.NewServer()
			srv.HandleRaw(func(raw []byte) []string {
				mu.Lock()
				defer mu.Unlock()
				if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
					if tc.holdBatch {
						held = append(held, tc.batch...)
						return nil
					}
					return tc.batch
				}
				lines++
				out := append(held, tc.parse...)
				held = nil
				return out
			})
			answerInvalidRequests(srv, tc.invalid)
			judgeOddTail(t, ids, srv, tc.want[:])
			mu.Lock()
			defer mu.Unlock()
			if once := lines == 1; once != tc.wantLineSentOnce {
				t.Errorf("the unparseable line went out %d times, want once: %v", lines, tc.wantLineSentOnce)
			}
			if srv.Sessions != 1 {
				t.Errorf("%d sessions, want 1", srv.Sessions)
			}
		})
	}
}

// A server that ends the session over one of the last odd-input probes gets the
// answer one at a time gives that probe, the probes before it keep theirs, and the
// ones after it are made on a session of their own: no process more than one at a
// time costs.
func TestOddTailSessionEnd(t *testing.T) {
	const parseErr = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
	ids := []string{"BASE-PARSE-01", "BASE-INVALID-REQ-01", "BASE-BATCH-R3-01"}
	for _, tc := range []struct {
		name         string
		endOn        string // "line", or "invalid" for the first invalid request
		want         [3]reports.Status
		wantSessions int
	}{
		// The line ends the main session: the batch and the invalid requests go
		// out on the spare session that replaces it.
		{"over the unparseable line", "line", [3]reports.Status{reports.Fail, reports.Pass, reports.Pass}, 2},
		// The first invalid request ends it: the line and the batch keep their
		// answers, the invalid requests get the one the first of them gives.
		{"over the first invalid request", "invalid", [3]reports.Status{reports.Pass, reports.Fail, reports.Pass}, 1},
		// The batch, a quiet probe, goes out first and ends it: the line and the
		// invalid requests go out on the spare session, the line once, its
		// silence proven by a grace of its own.
		{"over the batch, the line unanswered", "batch", [3]reports.Status{reports.Fail, reports.Pass, reports.Warn}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			lines := 0
			srv := conformtest.NewServer()
			srv.HandleRaw(func(raw []byte) []string {
				switch {
				case bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) && tc.endOn == "batch":
					return []string{conformtest.EndSession}
				case bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")):
					return []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batching was removed"}}`}
				case tc.endOn == "line":
					return []string{conformtest.EndSession}
				}
				mu.Lock()
				lines++
				mu.Unlock()
				if tc.endOn == "batch" {
					return nil
				}
				return []string{parseErr}
			})
			invalid := func(req *wire.Message) []string {
				if tc.endOn == "invalid" {
					return []string{conformtest.EndSession}
				}
				return []string{conformtest.Error(req, wire.CodeInvalidRequest, "invalid request")}
			}
			answerInvalidRequests(srv, invalid)
			judgeOddTail(t, ids, srv, tc.want[:])
			if srv.Sessions != tc.wantSessions {
				t.Errorf("%d sessions, want %d", srv.Sessions, tc.wantSessions)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.endOn == "batch" && lines != 1 {
				t.Errorf("the unanswered line went out %d times, want once (alone, after the end)", lines)
			}
		})
	}
}

// The mixed batch and the null-id request are the odd tail's quiet probes, the batch
// first and the null-id request last: a server silent on the batch shares its grace
// with the other probes', and when it ends the session over the unparseable line
// (the Go SDK) the batch goes out again together with the null-id request, not sent
// yet, on the session that replaces it, before the loud probes that need it anyway:
// no session more, one grace; when the batch ends the session, the batch keeps that
// end as its answer, and the null-id request goes out on the session that replaces
// it, before the loud probes; a server that refuses the batch at once with an error
// of id null (mcp-go) has it placed as the batch's, with no probe before it still
// owed a reply.
func TestOddTailQuietStage(t *testing.T) {
	const batchRefused = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Failed to parse message"}}`
	ids := []string{"BASE-NULL-ID-01", "BASE-BATCH-R3-01", "BASE-PARSE-01", "BASE-INVALID-REQ-01"}
	for _, tc := range []struct {
		name         string
		endOn        string // "line" or "batch", or "" to end no session
		batchReply   []string
		want         [4]reports.Status
		wantNullIDs  int // null-id requests sent
		wantBatches  int // batches sent
		wantSessions int
	}{
		{"silent on the quiet ones, ended over the line", "line", nil,
			[4]reports.Status{reports.Warn, reports.Warn, reports.Fail, reports.Pass}, 1, 2, 2},
		{"ended over the batch", "batch", nil,
			[4]reports.Status{reports.Warn, reports.Warn, reports.Fail, reports.Pass}, 1, 1, 2},
		{"the batch refused at once with an error of id null", "", []string{batchRefused},
			[4]reports.Status{reports.Warn, reports.Pass, reports.Fail, reports.Pass}, 1, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			nullIDs, batches, lines := 0, 0, 0
			lineFirst := false // a line went out before the first batch
			srv := conformtest.NewServer()
			srv.HandleRaw(func(raw []byte) []string {
				batch := bytes.HasPrefix(bytes.TrimSpace(raw), []byte("["))
				mu.Lock()
				if batch {
					batches++
					lineFirst = lineFirst || (batches == 1 && lines > 0)
				} else {
					lines++
				}
				mu.Unlock()
				switch {
				case tc.endOn != "" && batch == (tc.endOn == "batch"):
					return []string{conformtest.EndSession}
				case batch:
					return tc.batchReply
				}
				return nil
			})
			srv.Handle("tools/list", func(req *wire.Message) []string {
				if req.ID.IsNull() {
					mu.Lock()
					nullIDs++
					mu.Unlock()
					return nil
				}
				return []string{conformtest.Result(req, `{"tools":[]}`)}
			})
			answerInvalidRequests(srv, func(req *wire.Message) []string {
				return []string{conformtest.Error(req, wire.CodeInvalidRequest, "invalid request")}
			})
			judgeOddTail(t, ids, srv, tc.want[:])
			mu.Lock()
			defer mu.Unlock()
			if lineFirst {
				t.Error("the unparseable line went out before the batch: the quiet probes go first")
			}
			if nullIDs != tc.wantNullIDs || batches != tc.wantBatches {
				t.Errorf("the null-id request went out %d times and the batch %d, want %d and %d", nullIDs, batches, tc.wantNullIDs, tc.wantBatches)
			}
			if srv.Sessions != tc.wantSessions {
				t.Errorf("%d sessions, want %d", srv.Sessions, tc.wantSessions)
			}
		})
	}
}

// A reply that carries an id no probe had leaves every part of the odd tail to be
// made again: the quiet ones at once, alone, and a batch made again is judged by
// the ids it was sent with then.
func TestOddTailRemadeBatchKeepsItsIDs(t *testing.T) {
	ids := []string{"BASE-BATCH-R2-01", "BASE-PARSE-01"}
	var mu sync.Mutex
	batches := 0
	srv := conformtest.NewServer()
	srv.HandleRaw(func(raw []byte) []string {
		var items []map[string]json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			// The line, answered with an id none of the probes had.
			return []string{`{"jsonrpc":"2.0","id":999999,"error":{"code":-32700,"message":"Parse error"}}`}
		}
		mu.Lock()
		batches++
		mu.Unlock()
		var replies []string
		for _, it := range items {
			if id, ok := it["id"]; ok {
				replies = append(replies, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{}}`)
			}
		}
		return []string{"[" + strings.Join(replies, ",") + "]"}
	})
	vs := conformtest.JudgeAll(t, ids, "2025-03-26", srv)
	if vs[0].Status != reports.Pass {
		t.Errorf("%s = %s (%s), want pass", ids[0], vs[0].Status, vs[0].Message)
	}
	mu.Lock()
	defer mu.Unlock()
	if batches != 2 {
		t.Errorf("the batch went out %d times, want twice (in the tail, then again alone)", batches)
	}
}

// judgeOddTail runs the checks with ids in one run at 2025-06-18 against srv and
// wants each verdict's status as listed.
func judgeOddTail(t *testing.T, ids []string, srv *conformtest.Server, want []reports.Status) {
	t.Helper()
	for i, v := range conformtest.JudgeAll(t, ids, "2025-06-18", srv) {
		if v.Status != want[i] {
			t.Errorf("%s = %s (%s), want %s", ids[i], v.Status, v.Message, want[i])
		}
	}
}
