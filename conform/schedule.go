package conform

import (
	"fmt"
	"runtime"
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
// make their probes side by side, and every revision settles only once all have
// made them (a probe's notifications may reach every session).
func (rs *runState) startWorkers() {
	gates := newPhaseGates(len(rs.columns), rs.tgt.isolated())
	rs.gates = gates
	for _, col := range rs.columns {
		if !slices.ContainsFunc(rs.checksFor(col.rev), func(c *Check) bool { return rs.onChain(col, c) }) {
			gates.passTurn(col.index) // nothing to order: no column waits for it
		}
	}
	for _, col := range rs.columns {
		col.futures = map[string]chan judged{}
		list := rs.checksFor(col.rev)
		for _, c := range list {
			col.futures[c.ID] = make(chan judged, 1)
		}
		go func() {
			probed := false  // the column has passed the transcript probes' gate
			settled := false // the column's settle has been made, and has ended
			var judging sync.WaitGroup
			judges := make(chan struct{}, transcriptJudges)
			judge := func(c *Check) {
				start := time.Now()
				unlock := gates.change(c, col, func(x *Check) bool { return rs.onChain(col, x) })
				v := rs.judgeInOrder(col, c, list)
				unlock()
				col.futures[c.ID] <- judged{v: v, dur: time.Since(start)}
			}
			at := PhaseClean
			order := rs.runOrder(list)
			for i, c := range order {
				if settled && c.RunPhase() == PhaseTranscript {
					// Once the column has settled, its transcripts change no
					// more, and the transcript checks left only judge them:
					// they are judged side by side (transcriptJudges).
					judges <- struct{}{}
					judging.Go(func() {
						defer func() { <-judges }()
						judge(c)
					})
					continue
				}
				col.setAhead(order[i+1:])
				for at < c.RunPhase() {
					gates.finish(at)
					at++
				}
				if gates.shared && at == PhaseTranscript && !probed {
					// Every column makes its transcript probes, then waits for
					// every other's, and only then settles: no probe's traffic
					// (a notification may reach every session) comes after any
					// column's settle, so each column's transcripts hold all of
					// it, whichever column probed first.
					probed = true
					if rs.judgeable(col) && col.markSettled() {
						rs.probeFor(col, list)
						gates.probed()
						rs.settleSessions(col)
						settled = true
					} else {
						gates.probed()
					}
				}
				judge(c)
				// Over stdio the first transcript check (or an odd-input check that
				// runs last) makes the settle, in judgeInOrder.
				if (c.RunPhase() == PhaseTranscript || rs.runsLast(c)) && col.isSettled() {
					settled = true
				}
			}
			judging.Wait()
			for ; at < PhaseTranscript; at++ {
				gates.finish(at)
			}
			if !probed {
				gates.probes.Done() // none to make: nothing to wait for either
			}
			gates.finish(PhaseTranscript)
		}()
	}
}

// transcriptJudges is how many of a settled column's transcript checks are judged at
// once: they read transcripts that no longer change, and at a column's end (the
// 2026-07-28 column's, against the reference server over stdio) the other columns
// are done and a core would idle.
var transcriptJudges = min(runtime.GOMAXPROCS(0), 4)

// phaseGates hold every revision at the end of each phase until all have finished it
// (on a shared server; on isolated ones they pass at once).
type phaseGates struct {
	shared bool
	// probes counts the columns that have made their transcript probes (or have
	// none to make): a column settles once all have (probed).
	probes sync.WaitGroup
	// states are held through a check that changes that state (Check.Changes): by
	// one revision at a time, or, for a check that holds it by value
	// (Check.HoldsByValue, T.HoldState), by every revision that sets it to the same
	// value. The tool list has its chain instead (toolList).
	states map[ServerState]*stateHold
	// toolList orders the checks that change the tool list (StateToolList), one
	// change at a time (changeChain).
	toolList changeChain
	// turns order the columns' first places in that chain by revision, oldest
	// first (awaitTurn): each is closed once its column has taken its first place,
	// or at once for a column with no change check.
	turns []chan struct{}
	done  map[Phase]*sync.WaitGroup
}

func newPhaseGates(n int, isolated bool) *phaseGates {
	g := &phaseGates{shared: !isolated, done: map[Phase]*sync.WaitGroup{},
		states: map[ServerState]*stateHold{StateLogLevel: newStateHold()}}
	g.probes.Add(n)
	g.turns = make([]chan struct{}, n)
	for i := range g.turns {
		g.turns[i] = make(chan struct{})
	}
	for p := PhaseClean; p <= PhaseTranscript; p++ {
		wg := &sync.WaitGroup{}
		wg.Add(n)
		g.done[p] = wg
	}
	return g
}

// change takes, on a shared server, the state check c changes for the whole check,
// alone, and returns its release. A check that holds its state by value
// (Check.HoldsByValue) takes it itself (hold), and change takes nothing. A check
// that changes the tool list takes its place in the chain of changes (changeChain)
// and waits for the check before it there: for its end, or, for a check that reads
// first (Check.ReadsFirst), only until that check has made its change: its trigger
// then waits for the rest (T.ChangeNow).
func (g *phaseGates) change(c *Check, col *column, onChain func(*Check) bool) (unlock func()) {
	switch {
	case c.HoldsByValue:
		return func() {}
	case c.Changes == StateToolList && g.shared && !onChain(c):
		return func() {} // it will not run: it changes nothing
	case c.Changes == StateToolList && g.shared:
		first := !col.chained
		if first {
			g.awaitTurn(col.index)
		}
		col.mu.Lock()
		var tk *changeTicket
		if len(col.reserved) > 0 {
			tk, col.reserved = col.reserved[0], col.reserved[1:]
		} else {
			tk, col.reserved = g.toolList.take(keptFor(c, col.ahead, onChain))
		}
		col.chained = true
		col.mu.Unlock()
		if first {
			g.passTurn(col.index)
		}
		if c.ReadsFirst {
			tk.awaitPrevMade()
		} else {
			tk.awaitPrevDone()
		}
		col.mu.Lock()
		col.ticket = tk
		col.mu.Unlock()
		return func() {
			col.mu.Lock()
			col.ticket = nil
			col.mu.Unlock()
			tk.markDone()
		}
	}
	return g.hold(c.Changes, "", true)
}

// onChain reports whether check c of col takes a place in the chain of tool-list
// changes: it changes the tool list, and the column can run it. A check the column
// never runs (over another transport, in an unsupported revision) changes nothing,
// and its place would only hold the chain up. A run broken off still takes its
// places: none reserved for a later check is left untaken.
func (rs *runState) onChain(col *column, c *Check) bool {
	return c.Changes == StateToolList && rs.neverRuns(col, c) == nil
}

// awaitTurn waits until every column of an older revision than column i has taken
// its first place in the chain of tool-list changes (or has none to take). The
// columns reach the chain together, as the state-change phase opens; in the order
// they happened to arrive, which revision changed the shared server's tool list
// first varied from run to run, and so did the traffic every later check saw. In
// revision order it is the same every run, and the columns that go on to change
// the log level (LOG-FILTER-01, whose rounds wait out a grace) change the tool list
// first, so that those waits overlap the 2026-07-28 column's changes instead of
// following the chain's end.
func (g *phaseGates) awaitTurn(i int) {
	for j := 0; j < i && j < len(g.turns); j++ {
		<-g.turns[j]
	}
}

// passTurn records that column i has taken its first place in the chain, or has
// none to take; once only.
func (g *phaseGates) passTurn(i int) {
	if i < 0 || i >= len(g.turns) {
		return
	}
	select {
	case <-g.turns[i]:
	default:
		close(g.turns[i])
	}
}

// changeChain orders the tool-list changes of a shared server's revisions: each
// change check takes a ticket, and changes the list only once the check before it
// has ended, so that no check's listings after its change see another's. A check
// that reads first (Check.ReadsFirst) starts as soon as the one before has made its
// change: its listing before its own change is then walked while that check still
// reads its listing after. At 10,000 tools each is a walk of 101 pages; one at a
// time they were the longest stretch of the run.
type changeChain struct {
	mu   sync.Mutex
	last *changeTicket
}

// changeTicket is one check's place in the chain.
type changeTicket struct {
	prev       *changeTicket
	made, done chan struct{}
	madeOnce   sync.Once
	doneOnce   sync.Once
}

// take gives the next place in the chain and the n places right after it (next),
// for the same column's next change checks (keptFor).
func (ch *changeChain) take(n int) (tk *changeTicket, next []*changeTicket) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	tk = &changeTicket{prev: ch.last, made: make(chan struct{}), done: make(chan struct{})}
	ch.last = tk
	for range n {
		ch.last = &changeTicket{prev: ch.last, made: make(chan struct{}), done: make(chan struct{})}
		next = append(next, ch.last)
	}
	return tk, next
}

// keptFor counts the change checks that follow tool-list change check c in its
// column's run order (ahead), each reading first in c's phase: each may take the
// listing the one before keeps after its change (T.ReaderAhead, toolkit.Current).
// Their places in the chain are taken with c's, right after it: another revision's
// change in between (RES-LC-01's trigger changes the tool list too) would make a
// kept listing stale, and the next check would walk the list again, on the chain.
// The checks between them are of the same phase and change no tool list, so the
// column reaches each reserved place without waiting for any place after them.
func keptFor(c *Check, ahead []*Check, onChain func(*Check) bool) int {
	n := 0
	for _, next := range ahead {
		if !onChain(next) {
			continue
		}
		if !next.ReadsFirst || next.RunPhase() != c.RunPhase() {
			break
		}
		n++
	}
	return n
}

// awaitPrevMade waits until the check before has made its change (or ended).
func (tk *changeTicket) awaitPrevMade() {
	if tk.prev != nil {
		<-tk.prev.made
	}
}

// awaitPrevDone waits until the check before has ended.
func (tk *changeTicket) awaitPrevDone() {
	if tk.prev != nil {
		<-tk.prev.done
	}
}

// markMade records that the check has made its change.
func (tk *changeTicket) markMade() { tk.madeOnce.Do(func() { close(tk.made) }) }

// markDone records the check's end (its change made, if it made none).
func (tk *changeTicket) markDone() {
	tk.markMade()
	tk.doneOnce.Do(func() { close(tk.done) })
}

// hold takes, on a shared server, state st at value (alone when exclusive), and
// returns its release.
func (g *phaseGates) hold(st ServerState, value string, exclusive bool) (release func()) {
	h := g.states[st]
	if !g.shared || h == nil {
		return func() {}
	}
	h.acquire(value, exclusive)
	var once sync.Once
	return func() { once.Do(h.release) }
}

// stateHold is one server-wide state's lock: held alone (exclusive), or shared by
// every holder that sets the state to the same value. Revisions that set the same
// value cannot disturb each other, so their waits overlap (LOG-FILTER-01's rounds:
// every revision's at level error side by side, then at debug).
type stateHold struct {
	mu        sync.Mutex
	free      *sync.Cond
	holders   int
	value     string
	exclusive bool
}

func newStateHold() *stateHold {
	h := &stateHold{}
	h.free = sync.NewCond(&h.mu)
	return h
}

// busyFor reports whether a hold at value (alone when exclusive) must wait. h.mu
// must be held.
func (h *stateHold) busyFor(value string, exclusive bool) bool {
	return h.holders > 0 && (exclusive || h.exclusive || h.value != value)
}

func (h *stateHold) acquire(value string, exclusive bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.busyFor(value, exclusive) {
		h.free.Wait()
	}
	h.holders++
	h.value, h.exclusive = value, exclusive
}

func (h *stateHold) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.holders--
	if h.holders == 0 {
		h.free.Broadcast()
	}
}

// probed records that a column has made its transcript probes and waits, on a
// shared server, until every column has. Each column counts once: here, or, with
// no transcript check, at its worker's end.
func (g *phaseGates) probed() {
	g.probes.Done()
	if g.shared {
		g.probes.Wait()
	}
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
