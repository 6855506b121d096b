package base

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// msg decodes one JSON-RPC message for the verdict tables.
func msg(t *testing.T, raw string) *wire.Message {
	t.Helper()
	m, err := wire.Decode([]byte(raw))
	if err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return m
}

func answer(t *testing.T, replies ...string) toolkit.StrayAnswer {
	var a toolkit.StrayAnswer
	for _, r := range replies {
		a.Replies = append(a.Replies, msg(t, r))
	}
	return a
}

const (
	parseErr   = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`
	invalidErr = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid"}}`
	paramsErr  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"invalid params"}}`
	nullResult = `{"jsonrpc":"2.0","id":null,"result":{}}`
)

var (
	errEnded = fmt.Errorf("the barrier ping: %w", wire.ErrClosed)
	refused  = &transport.HTTPStatusError{Status: 400, ContentType: "text/plain", Body: []byte("bad request")}
	withBody = &transport.HTTPStatusError{Status: 400, ContentType: "application/json", Body: []byte(parseErr)}
)

func TestJudgeParse(t *testing.T) {
	tests := []struct {
		name string
		a    toolkit.StrayAnswer
		want conform.Outcome
	}{
		{"-32700, still serving", answer(t, parseErr), conform.OutcomePass},
		{"another code", answer(t, invalidErr), conform.OutcomeViolation},
		{"no reply (proven)", answer(t), conform.OutcomeViolation},
		{"no reply, then the server died", toolkit.StrayAnswer{Err: errEnded}, conform.OutcomeViolation},
		{"-32700, then the server died", func() toolkit.StrayAnswer { a := answer(t, parseErr); a.Err = errEnded; return a }(), conform.OutcomeViolation},
		{"HTTP 400 without a JSON-RPC body", toolkit.StrayAnswer{Refused: []*transport.HTTPStatusError{refused}}, conform.OutcomeSkip},
		{"HTTP 400 carrying -32700", func() toolkit.StrayAnswer {
			a := answer(t, parseErr)
			a.Refused = []*transport.HTTPStatusError{withBody}
			return a
		}(), conform.OutcomePass},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeParse(tc.a, nil); got.Outcome() != tc.want {
				t.Errorf("got %s (%s), want %s", got.Outcome(), got.Message, tc.want)
			}
		})
	}
	if got := judgeParse(answer(t, parseErr), context.Canceled); got.Outcome() != conform.OutcomeError {
		t.Errorf("a cancelled run: got %s, want error", got.Outcome())
	}
}

func TestJudgeInvalidRequests(t *testing.T) {
	probe := func(a toolkit.StrayAnswer) invalidProbe { return invalidProbe{what: "probe", a: a} }
	tests := []struct {
		name   string
		probes []invalidProbe
		want   conform.Outcome
	}{
		{"-32600 each", []invalidProbe{probe(answer(t, invalidErr)), probe(answer(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"x"}}`))}, conform.OutcomePass},
		{"another code warns", []invalidProbe{probe(answer(t, invalidErr)), probe(answer(t, paramsErr))}, conform.OutcomeWarn},
		{"processed fails", []invalidProbe{probe(answer(t, nullResult))}, conform.OutcomeViolation},
		{"no reply fails", []invalidProbe{probe(answer(t))}, conform.OutcomeViolation},
		{"no reply to what may be a response is a note", []invalidProbe{{what: "no method", a: answer(t), mayBeResponse: true}}, conform.OutcomeNote},
		{"the server stopped serving", []invalidProbe{probe(toolkit.StrayAnswer{Err: errEnded})}, conform.OutcomeViolation},
		{"HTTP 400 without a body warns", []invalidProbe{probe(toolkit.StrayAnswer{Refused: []*transport.HTTPStatusError{refused}})}, conform.OutcomeWarn},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeInvalidRequests(tc.probes); got.Outcome() != tc.want {
				t.Errorf("got %s (%s), want %s", got.Outcome(), got.Message, tc.want)
			}
		})
	}
}

func TestJudgeNullID(t *testing.T) {
	tests := []struct {
		name string
		a    toolkit.StrayAnswer
		want conform.Outcome
	}{
		{"-32600", answer(t, invalidErr), conform.OutcomePass},
		{"another error", answer(t, paramsErr), conform.OutcomeNote},
		{"HTTP 400", toolkit.StrayAnswer{Refused: []*transport.HTTPStatusError{refused}}, conform.OutcomeNote},
		{"processed", answer(t, nullResult), conform.OutcomeViolation},
		{"no reply", answer(t), conform.OutcomeViolation},
		{"the server died", toolkit.StrayAnswer{Err: errEnded}, conform.OutcomeViolation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeNullID("tools/list", tc.a); got.Outcome() != tc.want {
				t.Errorf("got %s (%s), want %s", got.Outcome(), got.Message, tc.want)
			}
		})
	}
}

func TestJudgeRemovedBatch(t *testing.T) {
	ids := []wire.ID{wire.NumberID(7), wire.NumberID(8)}
	probe := func(a toolkit.StrayAnswer) toolkit.BatchProbe { return toolkit.BatchProbe{IDs: ids, Answer: a} }
	tests := []struct {
		name string
		a    toolkit.StrayAnswer
		want conform.Outcome
	}{
		{"-32600 for the array", answer(t, invalidErr), conform.OutcomePass},
		{"HTTP 400", toolkit.StrayAnswer{Refused: []*transport.HTTPStatusError{refused}}, conform.OutcomeNote},
		{"processed", answer(t, `{"jsonrpc":"2.0","id":7,"result":{}}`, `{"jsonrpc":"2.0","id":8,"result":{}}`), conform.OutcomeViolation},
		{"ignored", answer(t), conform.OutcomeViolation},
		{"the server died", toolkit.StrayAnswer{Err: errEnded}, conform.OutcomeViolation},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeRemovedBatch(probe(tc.a)); got.Outcome() != tc.want {
				t.Errorf("got %s (%s), want %s", got.Outcome(), got.Message, tc.want)
			}
		})
	}
	// Batches are a 2025-03-26 MUST: both answered passes, one missing or an extra
	// reply to the notification fails.
	for _, tc := range []struct {
		name string
		a    toolkit.StrayAnswer
		want conform.Outcome
	}{
		{"both answered", answer(t, `{"jsonrpc":"2.0","id":7,"result":{}}`, `{"jsonrpc":"2.0","id":8,"result":{}}`), conform.OutcomePass},
		{"one missing", answer(t, `{"jsonrpc":"2.0","id":7,"result":{}}`), conform.OutcomeViolation},
		{"the notification answered", answer(t, `{"jsonrpc":"2.0","id":7,"result":{}}`, `{"jsonrpc":"2.0","id":8,"result":{}}`, paramsErr), conform.OutcomeViolation},
		{"refused", answer(t, invalidErr), conform.OutcomeViolation},
	} {
		t.Run("R2 "+tc.name, func(t *testing.T) {
			if got := probe(tc.a).JudgeBatch(); got.Outcome() != tc.want {
				t.Errorf("got %s (%s), want %s", got.Outcome(), got.Message, tc.want)
			}
		})
	}
}

// BASE-ERR-ID-01 holds each session to the revision it negotiated: an error with no
// id breaks the rule before 2025-11-25 and is allowed from it, whichever column the
// session belongs to.
func TestJudgeErrIDsByNegotiatedRevision(t *testing.T) {
	const noID = `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`
	const foreignID = `{"jsonrpc":"2.0","id":"zz","error":{"code":-32600,"message":"invalid"}}`
	tests := []struct {
		name  string
		rev   string
		reply string
		fail  bool
	}{
		{"no id, 2025-06-18", "2025-06-18", noID, true},
		{"no id, 2025-11-25", "2025-11-25", noID, false},
		{"id null, 2025-06-18", "2025-06-18", parseErr, false},
		{"an id nobody sent, 2025-11-25", "2025-11-25", foreignID, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			entries := []wire.Entry{
				{Seq: 1, Dir: wire.Sent, Raw: []byte(`{"jsonrpc":"2.0",`)},
				{Seq: 2, Dir: wire.Received, Msg: msg(t, tc.reply)},
			}
			var bad conform.Findings
			n := judgeErrIDs(&bad, revision.MustLookup(tc.rev), &conform.Session{Label: "s#1"}, entries)
			if n != 1 || bad.Failed() != tc.fail {
				t.Errorf("judged %d, failed %v; want 1, %v", n, bad.Failed(), tc.fail)
			}
		})
	}
}
