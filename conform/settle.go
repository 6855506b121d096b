package conform

import (
	"context"
	"slices"
	"sync"
)

// settleFor prepares and settles the column before its transcript-wide checks, once.
// Those checks judge every message of the revision's sessions, so they may judge
// only traffic that is provably complete on every channel. Every session of the
// column is brought to an end of traffic (Session.Settle): on stdio and HTTP+SSE, a
// ping barrier on the one ordered channel; on Streamable HTTP, the session is closed
// (DELETE) and every stream it had read to its end, within the request timeout.
// Before that, on every transport, each transcript-wide check's Probe runs, so that
// the probes they make (memoized with T.Once where checks share them: a progress
// call, a listing) all happen while the session is open and before any of them
// judges: each Run, called once, then reads complete transcripts, whatever the order
// of the checks and whatever the transport. A Probe reads no transcript (T.Sessions
// and T.Transcript read empty there). The checks that declare SilenceProbe make
// their probes after the others.
func (rs *runState) settleFor(col *column, list []*Check) {
	col.mu.Lock()
	done := col.settled
	col.settled = true
	col.mu.Unlock()
	if done {
		return
	}
	col.probing = true
	// The silence probes last: each one's grace then runs on into the settle, and no
	// other stray probe starts its window on the session meanwhile.
	for _, silence := range []bool{false, true} {
		for _, c := range list {
			if c.SilenceProbe == silence {
				rs.probe(col, c)
			}
		}
	}
	col.probing = false
	rs.settleSessions(col)
}

// settleSessions settles every session of the column concurrently.
func (rs *runState) settleSessions(col *column) {
	col.awaitEarlySpare(rs.ctx)
	col.mu.Lock()
	sessions := slices.Clone(col.sessions)
	col.mu.Unlock()
	ctx, cancel := context.WithTimeout(rs.ctx, rs.cfg.Timeout+rs.cfg.KillGrace)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range sessions {
		if s == nil || s.Conn == nil {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); s.Settle(ctx, s != col.main) }()
	}
	wg.Wait()
}
