package base

import (
	"bytes"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Over stdio the unparseable line, the mixed batch and the invalid requests go out
// back to back with one grace for all (oddTail): each verdict is the one the probes
// one at a time give, and a reply that could be another probe's sends the probes it
// could be of again, one at a time. The scripted server answers the unparseable line
// and the batch (HandleRaw) and the invalid requests as each case says; a reply held
// back until a later probe arrives is ordered by what the server reads, not by a
// timer.
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
		// holdParse holds the parse error back until the next batch arrives.
		holdParse        bool
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
		{"a parse error that trails into the batch's window is made again alone", true, []string{parseErr}, []string{refusedWhole}, refuse,
			// One at a time the line gets no reply in its own window: the held
			// reply comes with the next batch, whose window it is in.
			[3]reports.Status{reports.Fail, reports.Pass, reports.Pass}, false},
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
					out := append(held, tc.batch...)
					held = nil
					return out
				}
				lines++
				if tc.holdParse {
					held = append(held, tc.parse...)
					return nil
				}
				return tc.parse
			})
			answerInvalidRequests(srv, tc.invalid)
			vs := conformtest.JudgeAll(t, ids, "2025-06-18", srv)
			for i, v := range vs {
				if v.Status != tc.want[i] {
					t.Errorf("%s = %s (%s), want %s", ids[i], v.Status, v.Message, tc.want[i])
				}
			}
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
		// The batch ends it while the line is still owed its reply: a late one
		// may have died with the session, so the line goes out again alone, and
		// its silence is proven by a grace of its own.
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
			vs := conformtest.JudgeAll(t, ids, "2025-06-18", srv)
			for i, v := range vs {
				if v.Status != tc.want[i] {
					t.Errorf("%s = %s (%s), want %s", ids[i], v.Status, v.Message, tc.want[i])
				}
			}
			if srv.Sessions != tc.wantSessions {
				t.Errorf("%d sessions, want %d", srv.Sessions, tc.wantSessions)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.endOn == "batch" && lines != 2 {
				t.Errorf("the unanswered line went out %d times, want twice (again alone, after the end)", lines)
			}
		})
	}
}
