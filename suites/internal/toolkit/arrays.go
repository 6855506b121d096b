package toolkit

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// NoArraysCheck is c judging, once the column settled (PhaseTranscript), the rule
// that the server sends no JSON array, on stdio only when stdioOnly
// (BASE-BATCH-R3-02, STDIO-SINGLE-R3-01): not exercised for the reason none when
// nothing was received, a violation of want for Arrays' findings, else a pass that
// passed words with the count of messages.
func NoArraysCheck(c conform.Check, stdioOnly bool, none, want, passed string) conform.Check {
	c.Phase = conform.PhaseTranscript
	c.Run = func(t *conform.T) conform.Verdict {
		bad := Arrays(t, stdioOnly)
		return bad.VerdictOrNone(none, want, fmt.Sprintf(passed, bad.Judged))
	}
	return c
}

// Arrays finds the JSON arrays the server sent in this revision's sessions (on stdio
// only, when stdioOnly): every message that came inside one, and every empty array.
// A response inside an array that answers an array the suite sent is left out: how a
// server treats a batch sent to it after batching was removed is another rule's
// (BASE-BATCH-R3-01). bad.Judged counts the messages received.
func Arrays(t *conform.T, stdioOnly bool) (bad conform.Findings) {
	for _, s := range t.Sessions() {
		if stdioOnly && s.Kind != "stdio" {
			continue
		}
		batched := map[string]bool{} // ids the suite sent inside an array (loose keys)
		for _, e := range t.Transcript(s) {
			if e.Dir == wire.Sent {
				for _, id := range ArrayIDs(e.Raw) {
					batched[id] = true
				}
				continue
			}
			bad.Judged++
			switch {
			case !e.InBatch:
			case e.Msg == nil:
				bad.Fail(fmt.Sprintf("%s #%d: %s", s.Label, e.Seq, conform.ClipBytes(e.Raw, 60)))
			case e.Msg.IsResponse() && batched[e.Msg.ID.LooseKey()]:
			default:
				what := e.Msg.Method
				if what == "" {
					what = "a response to id " + e.Msg.ID.String()
				}
				bad.Fail(fmt.Sprintf("%s #%d: %s inside an array", s.Label, e.Seq, what))
			}
		}
	}
	return bad
}

// ArrayIDs lists the loose keys (wire.ID.LooseKey) of the ids in raw when it is a
// JSON array.
func ArrayIDs(raw []byte) []string {
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		if m, err := wire.Decode(it); err == nil && !m.ID.IsZero() {
			out = append(out, m.ID.LooseKey())
		}
	}
	return out
}

// BatchProbe is a batch of two requests and a notification sent as one array, and
// what came back.
type BatchProbe struct {
	IDs    []wire.ID // the requests' ids
	Answer StrayAnswer
	sent   StrayProbe // the send, whose replies Settled reads
}

// Settled is the probe with its answer read after the column settled: every reply
// that came, or the session's end (ProbeBeforeSettle). Judge that.
func (p BatchProbe) Settled() BatchProbe {
	if p.Answer.Err == nil {
		p.Answer = p.sent.Settled()
	}
	return p
}

// SettledFor is Settled for a check's judging run: a probe whose possible reply the
// transcript lost ends the check with an error (StrayProbe.SettledFor).
func (p BatchProbe) SettledFor(t *conform.T) BatchProbe {
	if p.Answer.Err == nil {
		p.Answer = p.sent.SettledFor(t)
	}
	return p
}

// AlwaysMethod is the request every server of the revision's era answers: ping, or
// server/discover in 2026-07-28 (which has no ping).
func AlwaysMethod(rev revision.Revision) string {
	if rev.Era == revision.Modern {
		return "server/discover"
	}
	return "ping"
}

// SendBatch sends [request, request, notification] as one JSON array on s:
// AlwaysMethod twice, each with a fresh id, and a notification no revision defines,
// before the column settles (ProbeBeforeSettle: judge BatchProbe.Settled).
// Both requests have small replies: a listing page of a server with many tools could
// outgrow what the transcript keeps, and a reply not kept reads as none.
func SendBatch(t *conform.T, s *conform.Session) BatchProbe {
	p := BatchProbe{}
	bp, err := batchProbe(t, s)
	if err != nil {
		p.Answer.Err = err
		return p
	}
	p.IDs = bp.IDs
	p.sent = ProbeBeforeSettle(t, s, batchAnswered, bp.Raw)
	p.Answer = p.sent.Answer
	return p
}

// batchProbe is SendBatch's array as a probe of a stray run (SendStrayRun), part
// "batch".
func batchProbe(t *conform.T, s *conform.Session) (RunProbe, error) {
	method := AlwaysMethod(t.Rev)
	p := RunProbe{Part: "batch", Batch: true, Window: true, IDs: []wire.ID{s.Conn.NextID(), s.Conn.NextID()}}
	var items []json.RawMessage
	for _, id := range p.IDs {
		raw, err := wire.EncodeRequest(id, method, s.Conn.Stamp(map[string]any{}))
		if err != nil {
			return p, fmt.Errorf("encode %s: %w", method, err)
		}
		items = append(items, raw)
	}
	items = append(items, json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/x_conformance_probe"}`))
	raw, err := json.Marshal(items)
	if err != nil {
		return p, fmt.Errorf("encode the batch: %w", err)
	}
	p.Raw = raw
	p.Complete = func(replies []wire.Entry) bool { return batchAnswered(replies, 0) }
	return p, nil
}

// batchAnswered reports whether the replies are all the batch is owed: one to each
// of its two requests, or one refusing it whole.
func batchAnswered(replies []wire.Entry, fromRefusals int) bool {
	return fromRefusals+len(replies) >= 2 || refusedWhole(replies, fromRefusals)
}

// refusedWhole reports whether the replies so far are one error with no readable id,
// outside any array, or a refused POST's body: the batch refused as one invalid
// request, a complete answer that leaves no silence to prove.
func refusedWhole(replies []wire.Entry, fromRefusals int) bool {
	if fromRefusals > 0 {
		return true
	}
	if len(replies) != 1 {
		return false
	}
	m := replies[0]
	return !m.InBatch && m.Msg.Error != nil && (m.Msg.ID.IsNull() || m.Msg.ID.IsZero())
}

// MixedBatch makes SendBatch's probe once per revision, on the spare session
// (T.SpareSession), in the transcript-wide checks' probe pass: a server that ends its
// connection on a batch (the Go SDK does on some) then costs no other check its
// session, and the silence of one that does not answer is proven when the column
// settles. BASE-BATCH-R2-01, STDIO-BATCH-R2-01 and BASE-BATCH-R3-01 judge the one
// probe (Settled).
func MixedBatch(t *conform.T) BatchProbe {
	return t.Once("batch-mixed:"+t.Rev.Name, func() any {
		if p, ok := tailBatch(t); ok {
			return p
		}
		s, err := t.SpareSession()
		if err != nil {
			return BatchProbe{Answer: StrayAnswer{Err: fmt.Errorf("no spare session for the batch probe: %w", err)}}
		}
		return SendBatch(t, s)
	}).(BatchProbe)
}

// mixedBatchChecks are the checks that judge MixedBatch's probe (OnMixedBatch).
var mixedBatchChecks []string

// OnMixedBatch is c judging MixedBatch's probe with judge once the column has
// settled: it runs the probe on the spare session, as a batch may end a server's
// connection, and as a silence probe, so that a reply that does not come is proven
// absent when the column settles, its grace overlapping the column's other work.
func OnMixedBatch(c conform.Check, judge func(BatchProbe) conform.Verdict) conform.Check {
	mixedBatchChecks = append(mixedBatchChecks, c.ID)
	c.Spare = true
	c.SilenceProbe = true
	c.Probe = func(t *conform.T) { MixedBatch(t) }
	c.Run = func(t *conform.T) conform.Verdict {
		p := MixedBatch(t).SettledFor(t)
		if t.Ctx.Err() != nil {
			return conform.Errorf("not verified: %v", t.Ctx.Err())
		}
		return judge(p)
	}
	return c
}

// JudgeBatch is the verdict of the 2025-03-26 batch rules (BASE-BATCH-R2-01,
// STDIO-BATCH-R2-01): a reply to each request of the batch, and nothing else.
func (p BatchProbe) JudgeBatch() conform.Verdict {
	const want = "a reply to each of the batch's two requests (as one array, or one by one), none to its notification"
	a := p.Answer
	got := map[string]bool{}
	var bad, extra conform.Findings
	for _, m := range a.Replies {
		switch {
		case !m.ID.IsZero() && !m.ID.IsNull() && (m.ID.Key() == p.IDs[0].Key() || m.ID.Key() == p.IDs[1].Key()):
			got[m.ID.Key()] = true
		default:
			extra.Fail("also " + DescribeReply(m))
		}
	}
	for _, id := range p.IDs {
		if !got[id.Key()] {
			bad.Fail(fmt.Sprintf("no reply to id %s", id))
		}
	}
	bad.Fail(extra.Fails()...)
	switch {
	case a.Err != nil && len(a.Replies) == 0:
		return conform.Violation(want, "no reply, and then "+conform.Describe(nil, a.Err))
	case bad.Failed():
		return bad.Violation(want)
	case a.Err != nil:
		return conform.Violation(want, "the replies came, and then "+conform.Describe(nil, a.Err))
	}
	how := "one by one"
	if a.Arrays > 0 {
		how = "in an array"
	}
	return conform.Pass("both requests of the batch answered %s; no reply to its notification", how)
}
