package conform

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// judged is a verdict computed ahead of its Ginkgo spec, with its duration.
type judged struct {
	v   Verdict
	dur time.Duration
}

// startWorkers judges every column's selected checks in run order, ahead of Ginkgo,
// whose It bodies then only await their check's verdict. On an isolated target (a
// server per session: stdio) the revisions overlap freely, a goroutine each. On a
// shared server (HTTP) they overlap where they cannot disturb each other: every
// revision finishes a phase before any starts the next (so no revision's clean checks
// see another's list change or odd input); the phases that need a clean session or
// send odd input run concurrently; a check that changes server-wide state (the tool
// list, the fixture contract, refserver/doc.go; the log level) runs while no other
// revision changes that same state (Check.Changes); and the transcript-wide checks
// make their probes and settle one revision at a time (their probes' notifications
// may reach every session), each revision's judging overlapping the next one's
// probes once its own sessions are all closed.
func (rs *runState) startWorkers() {
	gates := newPhaseGates(len(rs.columns), rs.tgt.isolated())
	for _, col := range rs.columns {
		col.futures = map[string]chan judged{}
		list := rs.checksFor(col.rev)
		for _, c := range list {
			col.futures[c.ID] = make(chan judged, 1)
		}
		go func() {
			var held Phase // the serialised phase this worker holds, if any
			quiet := false // the column settled with every session closed
			at := PhaseClean
			for _, c := range rs.runOrder(list) {
				for at < c.RunPhase() {
					if held != 0 {
						gates.serial.Unlock()
						held = 0
					}
					gates.finish(at)
					at++
				}
				if gates.shared && at == PhaseTranscript && held == 0 && !quiet {
					gates.serial.Lock()
					held = at
				}
				if held == PhaseTranscript && rs.judgeable(col) {
					// The column's traffic ends at its settle. Once every session
					// of it is closed (Streamable HTTP ends them all), nothing
					// another column sends can reach its transcripts: its judging
					// is its own CPU, and the next column may probe meanwhile.
					rs.settleFor(col, list)
					if col.quiet() {
						gates.serial.Unlock()
						held, quiet = 0, true
					}
				}
				start := time.Now()
				unlock := gates.change(c)
				v := rs.judgeInOrder(col, c, list)
				unlock()
				col.futures[c.ID] <- judged{v: v, dur: time.Since(start)}
			}
			if held != 0 {
				gates.serial.Unlock()
			}
			for ; at <= PhaseTranscript; at++ {
				gates.finish(at)
			}
		}()
	}
}

// quiet reports whether every session of the column is closed, so that no message
// can reach its transcripts any more.
func (col *column) quiet() bool {
	col.mu.Lock()
	defer col.mu.Unlock()
	for _, s := range append(slices.Clone(col.sessions), col.spare) {
		if s != nil && s.Conn != nil && s.Conn.Err() == nil {
			return false
		}
	}
	return true
}

// phaseGates hold every revision at the end of each phase until all have finished it
// (on a shared server; on isolated ones they pass at once).
type phaseGates struct {
	shared bool
	// serial is held by one revision at a time through its transcript probes and
	// settle.
	serial sync.Mutex
	// states are held by one revision at a time through a check that changes that
	// state (Check.Changes).
	states map[ServerState]*sync.Mutex
	done   map[Phase]*sync.WaitGroup
}

func newPhaseGates(n int, isolated bool) *phaseGates {
	g := &phaseGates{shared: !isolated, done: map[Phase]*sync.WaitGroup{},
		states: map[ServerState]*sync.Mutex{StateToolList: {}, StateLogLevel: {}}}
	for p := PhaseClean; p <= PhaseTranscript; p++ {
		wg := &sync.WaitGroup{}
		wg.Add(n)
		g.done[p] = wg
	}
	return g
}

// change takes, on a shared server, the lock of the state check c changes, and
// returns its release.
func (g *phaseGates) change(c *Check) (unlock func()) {
	mu := g.states[c.Changes]
	if !g.shared || mu == nil {
		return func() {}
	}
	mu.Lock()
	return mu.Unlock
}

// finish marks one worker's end of phase p and, on a shared server, waits for every
// other worker to end it too.
func (g *phaseGates) finish(p Phase) {
	wg := g.done[p]
	wg.Done()
	if g.shared {
		wg.Wait()
	}
}

// judgeInOrder judges a check in its column's run order (runOrder): once the main
// session has ended (a server that died on a probe), the checks after it that need
// a live session are not run, and the report says where the session was lost;
// before the first transcript-wide check, the column's traffic is settled (settle),
// and the odd-input checks that run last (runsLast) are judged there.
func (rs *runState) judgeInOrder(col *column, c *Check, list []*Check) Verdict {
	if (c.RunPhase() == PhaseTranscript || rs.runsLast(c)) && rs.judgeable(col) {
		rs.settleFor(col, list)
	}
	col.mu.Lock()
	lostAt, lostErr := col.lostAt, col.lostErr
	last, ran := col.lastOdd[c.ID]
	col.mu.Unlock()
	if ran {
		return last.v
	}
	// A check on the spare session (Check.Spare) needs no main session: the spare
	// is opened again when the server ended it.
	if lostAt != "" && c.RunPhase() != PhaseTranscript && !c.Opening && !c.Spare {
		return Errorf("not run: the server's session ended during %s (%v)", lostAt, lostErr)
	}
	v := rs.judge(col, c)
	rs.noteLoss(col, c)
	return v
}

// runsLast reports whether odd-input check c runs after the transcript checks'
// probes that need the main session: over stdio, where its spare session is the
// main session (T.SpareSession), a check that declares Spare.
func (rs *runState) runsLast(c *Check) bool {
	return c.Spare && c.RunPhase() == PhaseOddInput && rs.tgt.isolated()
}

// runOrder is list in the order its checks run: the odd-input checks that run last
// (runsLast) moved to the end of their phase, where the settle that judges them
// begins.
func (rs *runState) runOrder(list []*Check) []*Check {
	out := make([]*Check, 0, len(list))
	var last []*Check
	for _, c := range list {
		switch {
		case rs.runsLast(c):
			last = append(last, c)
			continue
		case c.RunPhase() == PhaseTranscript && last != nil:
			out = append(out, last...)
			last = nil
		}
		out = append(out, c)
	}
	return append(out, last...)
}

// judgeable reports whether checks run on the column's main session at all.
func (rs *runState) judgeable(col *column) bool {
	return rs.ctx.Err() == nil && col.state == colOpen && col.main != nil && col.main.Conn != nil
}

// noteLoss records, once, that the column's main session ended during check c.
func (rs *runState) noteLoss(col *column, c *Check) {
	if col.main == nil || col.main.Conn == nil || col.state != colOpen {
		return
	}
	err := col.main.Conn.Err()
	if err == nil {
		return
	}
	col.mu.Lock()
	if col.lostAt != "" || col.settled {
		col.mu.Unlock()
		return
	}
	col.lostAt, col.lostErr = c.ID, err
	col.mu.Unlock()
	rs.note(fmt.Sprintf("%s: the server's session ended during %s (%v); the checks after it that need a live session were not run (error), the transcript-wide checks judged the traffic up to the end", col.rev.Name, c.ID, err))
}
