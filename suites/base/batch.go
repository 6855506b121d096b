package base

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The JSON-RPC batch rules: 2025-03-26 made every implementation receive batches,
// 2025-06-18 removed them.

// BASE-BATCH-R2-01 — 2025-03-26/basic/index.mdx (Batching).
var _ = conform.Register(toolkit.OnMixedBatch(conform.Check{
	ID: "BASE-BATCH-R2-01", Title: "a batch of requests and a notification is accepted and each request answered",
}, toolkit.BatchProbe.JudgeBatch))

// BASE-BATCH-R2-02 — JSON-RPC 2.0 §6; 2025-03-26/basic/transports.mdx (Sending Messages to the Server).
// A transcript-wide check: the batch goes out on the spare session while the column
// is open, and is judged after the column settles, when the spare session has ended
// and everything the server sent on it is in (no grace period for the silence).
var _ = conform.Register(conform.Check{
	ID: "BASE-BATCH-R2-02", Title: "a batch of notifications gets no reply (over HTTP, 202 with no body)",
	Spare: true, // the spare session: the Go SDK exits on a batch of notifications
	Probe: func(t *conform.T) { notificationBatchOnce(t) },
	Run: func(t *conform.T) conform.Verdict {
		p := notificationBatchOnce(t)
		if p.err != nil {
			return conform.Errorf("no spare session for the notification batch: %v", p.err)
		}
		a := p.SettledFor(t)
		const want = "nothing at all for a batch of two notifications (over HTTP: 202 Accepted, no body)"
		var bad conform.Findings
		for _, e := range p.Received() {
			if e.InBatch && e.Msg == nil {
				bad.Fail("an empty array")
			}
		}
		for _, m := range a.Replies {
			bad.Fail(toolkit.DescribeReply(m))
		}
		for _, st := range a.Accepted {
			if st != 202 {
				bad.Fail(fmt.Sprintf("HTTP %d", st))
			}
		}
		switch {
		case bad.Failed():
			return bad.Violation(want)
		case a.Err != nil && conform.Gone(a.Err):
			return conform.Violation(want+", the server still serving (it MUST support receiving batches)", "sending the batch: "+conform.Describe(nil, a.Err))
		case a.Err != nil:
			return conform.Errorf("not verified: sending the batch, %s", conform.Describe(nil, a.Err))
		case len(a.Refused) > 0:
			return conform.Violation(want, "the batch was refused: "+a.Describe())
		case p.ended != "":
			return conform.Violation(want+", the server still serving (it MUST support receiving batches)", "after the batch, the session ended before the column settled: "+p.ended)
		}
		return conform.Pass("%s for a batch of two notifications (proven when the spare session ended)", a.Describe())
	},
})

// notificationBatch is BASE-BATCH-R2-02's probe, made on the spare session.
type notificationBatch struct {
	toolkit.StrayProbe
	err error
	// ended says how the session ended before the column settled it, if it did: a
	// server that drops its connection on a batch does not support receiving batches.
	ended string
}

// notificationBatchOnce is BASE-BATCH-R2-02's probe, made once per revision.
func notificationBatchOnce(t *conform.T) notificationBatch {
	return t.Once("BASE-BATCH-R2-02:"+t.Rev.Name, func() any { return probeNotificationBatch(t) }).(notificationBatch)
}

// probeNotificationBatch sends two notifications as one array on the spare session and
// proves the session still serves with a barrier request, whose reply is no proof of
// silence (the column's settle is): a server that ends on the batch fails.
func probeNotificationBatch(t *conform.T) notificationBatch {
	s, err := t.SpareSession()
	if err != nil {
		return notificationBatch{err: err}
	}
	const raw = `[{"jsonrpc":"2.0","method":"notifications/x_conformance_probe"},{"jsonrpc":"2.0","method":"notifications/x_conformance_probe"}]`
	var p notificationBatch
	p.StrayProbe = toolkit.SendUnsettled(t, s, []byte(raw))
	if p.Answer.Err == nil {
		switch err := s.Barrier(t.Ctx); {
		case err != nil && conform.Gone(err):
			p.ended = conform.Describe(nil, err)
		case err != nil:
			p.Answer.Err = fmt.Errorf("the barrier after the batch: %w", err)
		}
	}
	return p
}

// BASE-BATCH-R3-01 — 2025-06-18/changelog.mdx.
var _ = conform.Register(toolkit.OnMixedBatch(conform.Check{
	ID: "BASE-BATCH-R3-01", Title: "a batch, removed in 2025-06-18, is refused (a WARN when processed or ignored, never a FAIL)",
}, judgeRemovedBatch))

// judgeRemovedBatch wants a batch refused as a whole: an error reply (ideally -32600)
// or an HTTP error status, and the server still serving.
func judgeRemovedBatch(p toolkit.BatchProbe) conform.Verdict {
	const want = "the batch refused (JSON-RPC error -32600 or HTTP 400): batching was removed in 2025-06-18"
	a := p.Answer
	answered, code := 0, 0
	for _, m := range a.Replies {
		switch {
		case !m.ID.IsZero() && !m.ID.IsNull() && (m.ID.Key() == p.IDs[0].Key() || m.ID.Key() == p.IDs[1].Key()):
			if m.Error == nil {
				answered++
			} else if code == 0 {
				code = m.Error.Code
			}
		case m.Error != nil && (code == 0 || m.Error.Code == wire.CodeInvalidRequest):
			code = m.Error.Code
		}
	}
	switch {
	case a.Err != nil:
		return conform.Violation(want, a.Describe()+", and then "+conform.Describe(nil, a.Err))
	case answered > 0:
		return conform.Violation(want, fmt.Sprintf("processed: %d of its requests answered with a result (%s)", answered, a.Describe()))
	case code == wire.CodeInvalidRequest:
		return conform.Pass("refused: %s", a.Describe())
	case code != 0 || len(a.Refused) > 0:
		return conform.Note("refused with %s; -32600 (Invalid Request) says why", a.Describe())
	}
	return conform.Violation(want, a.Describe())
}

// BASE-BATCH-R3-02 — {rev}/schema.ts (JSONRPCMessage).
var _ = conform.Register(toolkit.NoArraysCheck(conform.Check{
	ID: "BASE-BATCH-R3-02", Title: "the server sends no JSON array (batches were removed in 2025-06-18)",
}, false, "no message was received in this revision's sessions",
	"every message sent on its own, never inside a JSON array",
	"%d messages received, none inside a JSON array"))
