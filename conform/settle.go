package conform

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// settleFor prepares and settles the column before its transcript-wide checks, once.
// Those checks judge every message of the revision's sessions, so they may judge
// only traffic that is provably complete on every channel. Every session of the
// column is brought to an end of traffic (Session.Settle): on stdio, the session is
// closed and the server's output read to its end (settleSessions); on HTTP+SSE, a
// ping barrier on the one ordered channel; on Streamable HTTP, the session is closed
// (DELETE) and every stream it had read to its end, within the request timeout.
// Before that, on every transport, each transcript-wide check's Probe runs, so that
// the probes they make (memoized with T.Once where checks share them: a progress
// call, a listing) all happen while the session is open and before any of them
// judges: each Run, called once, then reads complete transcripts, whatever the order
// of the checks and whatever the transport. A Probe reads no transcript (T.Sessions
// and T.Transcript read empty there). The checks that declare SilenceProbe make
// their probes after the others. Over stdio, where the spare session is the main
// one (T.SpareSession), the probes on it come last, after the odd-input checks
// that run last (runsLast), which are judged here: whatever ends the session then
// ends it after every probe that needs it.
func (rs *runState) settleFor(col *column, list []*Check) {
	if col.markSettled() {
		rs.probeFor(col, list)
		rs.settleSessions(col)
	}
}

// isSettled reports whether the column's settle has been claimed (markSettled).
func (col *column) isSettled() bool {
	col.mu.Lock()
	defer col.mu.Unlock()
	return col.settled
}

// markSettled marks the column as settled, and reports whether it was not yet:
// its probes and settle are then the caller's to make.
func (col *column) markSettled() bool {
	col.mu.Lock()
	defer col.mu.Unlock()
	done := col.settled
	col.settled = true
	return !done
}

// probeFor makes the column's transcript probes (settleFor), in their groups.
func (rs *runState) probeFor(col *column, list []*Check) {
	// The groups of probes, in order: each matches a check's SilenceProbe and,
	// over stdio, its Spare; over HTTP a check's Spare does not order its probe.
	type group struct{ silence, spare, bySpare bool }
	groups := []group{{silence: false}, {silence: true}}
	isolated := rs.tgt.isolated()
	if isolated {
		groups = []group{{false, false, true}, {true, false, true}, {false, true, true}, {true, true, true}}
	}
	for i, g := range groups {
		if isolated && i == 2 {
			rs.judgeLast(col, list)
		}
		col.probing = true
		// The silence probes last on their session: each one's grace then runs on
		// into the settle, and no other stray probe starts its window on the
		// session meanwhile (SendUnsettled waits out the one before).
		for _, c := range list {
			if c.SilenceProbe == g.silence && (!g.bySpare || c.Spare == g.spare) {
				rs.probe(col, c)
			}
		}
		col.probing = false
	}
}

// judgeLast judges the column's odd-input checks that run last (runsLast), in list
// order, keeping their verdicts for judgeInOrder.
func (rs *runState) judgeLast(col *column, list []*Check) {
	for _, c := range list {
		if !rs.runsLast(c) {
			continue
		}
		start := time.Now()
		v := rs.judge(col, c)
		col.mu.Lock()
		if col.lastOdd == nil {
			col.lastOdd = map[string]judged{}
		}
		col.lastOdd[c.ID] = judged{v: v, dur: time.Since(start)}
		col.mu.Unlock()
	}
}

// settleSessions settles every session of the column concurrently. A session whose
// server is a process the run launched (stdio) is closed, the main session too: its
// transcript is then complete to the server's last byte, and the process's end of
// input is the one the stdio shutdown checks judge (T.Stopped).
func (rs *runState) settleSessions(col *column) {
	col.mu.Lock()
	sessions := slices.Clone(col.sessions)
	draining := maps.Clone(col.draining)
	col.mu.Unlock()
	ctx, cancel := context.WithTimeout(rs.ctx, rs.cfg.Timeout+rs.cfg.KillGrace)
	defer cancel()
	var wg sync.WaitGroup
	var stopped []*Session
	for _, s := range sessions {
		if s == nil || s.Conn == nil {
			continue
		}
		if _, ok := draining[s]; ok {
			// A check's own session, still settling since the check ended
			// (T.cleanup): its settle is waited for (awaitDrains), not made
			// again, which would cut its streams short.
			continue
		}
		closeIt := s != col.main || launched(s)
		if closeIt && s.Conn.Err() == nil && (s == col.main || s == col.spare) {
			stopped = append(stopped, s)
		}
		wg.Add(1)
		go func() { defer wg.Done(); s.Settle(ctx, closeIt) }()
	}
	wg.Wait()
	col.awaitDrains()
	// The main session first: it is the column's own.
	slices.SortStableFunc(stopped, func(a, b *Session) int {
		switch {
		case a == col.main:
			return -1
		case b == col.main:
			return 1
		}
		return 0
	})
	col.mu.Lock()
	col.stopped = stopped
	col.mu.Unlock()
}

// launched reports whether the session's server is a process the run started
// (stdio), which closing the session's input stops.
func launched(s *Session) bool {
	_, ok := s.Conn.Transport().(interface{ Exit() transport.ExitInfo })
	return ok
}
