package conform

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// columnState is how far a revision's session got.
type columnState int

const (
	colOpen        columnState = iota // initialized, the server echoed the revision
	colUnsupported                    // the server answered another version, or rejected this one with -32602
	colRefused                        // initialize got another JSON-RPC error
	colBroken                         // the transport failed: no reply, crash, unreachable
)

// column is one revision's slice of the run.
type column struct {
	rev   revision.Revision
	main  *Session
	state columnState
	err   error

	mu       sync.Mutex
	sessions []*Session
	// draining holds, for each HTTP session a check opened whose settle goes on
	// after the check returned (T.cleanup), a channel closed once it has settled:
	// the column's settle waits for those (awaitDrains) instead of settling them
	// again.
	draining map[*Session]<-chan struct{}
	// spare is the session of the probes that may end it (T.SpareSession): over
	// stdio the main session until the server ends it.
	spare *Session
	// preInit is what the probing opening of the main (stdio) or spare (HTTP)
	// session saw before its handshake was complete (T.PreInit; nil until then,
	// or when no check asks).
	preInit *PreInit
	// stopped are the main and spare sessions the settle closed while they were
	// still serving, main first (T.Stopped).
	stopped []*Session
	// lastOdd are the verdicts of the odd-input checks run last (runsLast), made
	// when the column settles.
	lastOdd map[string]judged
	results map[string]reports.CheckResult
	futures map[string]chan judged // set by startWorkers before Ginkgo runs
	// lostAt is the check during which the main session ended ("" while it runs):
	// the checks after it that need a live session are not run.
	lostAt  string
	lostErr error
	// settled is set once the transcript-wide checks may judge: every session of the
	// column has been brought to a provable end of traffic (settle).
	settled bool
	// probing is set while the transcript checks run once to make their probes
	// (settleFor, on the column's worker): they read no transcript then.
	probing bool
	// probeMisuse is what each transcript check touched in the probe pass that it
	// does not declare (T.misused), for its judging run to report.
	probeMisuse map[string]string
	// probeWindows are the traffic windows each transcript check's Probe made or
	// read (T.windows), for the evidence of its judging run.
	probeWindows map[string][]*trafficWindow
	announced    bool
	// ahead are the checks the column's worker has still to run after the one it
	// runs now, in order (T.ReaderAhead).
	ahead []*Check
	// why, when set, says why the column is revision-unsupported (era detection).
	why string
	// ticket is the running check's place in the chain of tool-list changes on a
	// shared server (changeChain), nil when it has none.
	ticket *changeTicket
	// index is the column's place in the run's columns (revision order).
	index int
	// chained is set once the column has taken its first place in the chain of
	// tool-list changes (phaseGates.awaitTurn).
	chained bool
	// reserved are the places in that chain taken for the column's next change
	// checks with the running one's (phaseGates.change, keptFor), in order, until
	// those checks take them.
	reserved []*changeTicket
	// authRequired is set when the main session could not open because the server
	// answered HTTP 401: it wants a token (AUTH-401-01). Only the AUTH checks
	// (Check.Auth) run then.
	authRequired bool
	// opened is closed once the column's main session has opened or failed to
	// (openColumns; at once for a column with no check).
	opened chan struct{}
	// handedOver is set once the modern column's era probe session went on as a
	// negotiation probe's (eraProbeFor).
	handedOver bool
}

// preOpen is a session opened ahead of the check that will use it.
type preOpen struct {
	done    chan struct{}
	s       *Session
	err     error
	claimed bool
	// col is the column of a fresh session opened ahead (Check.FreshAhead), whose
	// transcripts keep it if its check never claims it.
	col *column
}

// wait waits until the session has opened (or failed to) and reports whether it
// has; false when ctx ended first (the opener finishes alone).
func (p *preOpen) wait(ctx context.Context) bool {
	select {
	case <-p.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// openColumns opens the first revision's main session and, beside it, the modern
// column's (the era probe), then every other revision's concurrently, and alongside
// them the negotiation probes' sessions that selected checks declared
// (Check.PreOpen).
// The session budget of a run is one per revision plus one per PreOpen version
// (over stdio, that many processes; less one when the era probe's process is handed
// to a negotiation probe, eraProbeFor); a check that needs a session of its own
// opens it when it asks (T.NewSession), or, when its Check.FreshAhead says it will,
// once its column's main session has opened.
func (rs *runState) openColumns(ctx context.Context) {
	var wg sync.WaitGroup
	var toOpen []*column
	for _, col := range rs.columns {
		col.opened = make(chan struct{})
		if len(rs.checksFor(col.rev)) == 0 {
			close(col.opened)
			continue
		}
		toOpen = append(toOpen, col)
	}
	open := func(col *column) {
		defer close(col.opened)
		list := rs.checksFor(col.rev)
		s, err := rs.openMain(ctx, col)
		col.main, col.err = s, err
		col.state = openState(col.rev, s, err)
		col.authRequired = isAuthRequired(err)
		if col.state == colOpen {
			for _, c := range list {
				if c.FreshAhead != nil && c.FreshAhead(s) {
					rs.preOpenFresh(ctx, col, c)
				}
			}
		}
	}
	// Two sessions first, the rest once the first has answered: a server slow to
	// start (a Node process takes seconds on a busy runner) is not started once per
	// revision at the same moment, each copy against its own start deadline while
	// the others compete for the same cores. The second is the era probe: the
	// longest column on a modern server, and on a legacy one the process that a
	// negotiation probe goes on with (eraProbeFor).
	var era *column
	for _, col := range toOpen[min(1, len(toOpen)):] {
		if col.rev.Era == revision.Modern {
			era = col
			break
		}
	}
	if era != nil {
		wg.Add(1)
		go func() { defer wg.Done(); open(era) }()
	}
	for i, col := range toOpen {
		switch {
		case col == era:
		case i == 0:
			open(col)
		default:
			wg.Add(1)
			go func() { defer wg.Done(); open(col) }()
		}
		for _, c := range rs.checksFor(col.rev) {
			for _, v := range c.PreOpen {
				rs.preOpenSession(ctx, col, v)
			}
		}
	}
	wg.Wait()
	rs.reconcileEras()
}

// openState classifies how a column's main session opened.
func openState(rev revision.Revision, s *Session, err error) columnState {
	switch {
	case err == nil && s.Negotiated == rev.Name:
		return colOpen
	case err == nil:
		return colUnsupported
	case driverOf(rev).notThisEra(err):
		return colUnsupported
	}
	rpc, isRPC := refused(err)
	switch {
	case isRPC && rpc.Code == wire.CodeInvalidParams:
		// The lifecycle page's own example rejects an unsupported version with
		// -32602 (LIFE-VERSION-FALLBACK-01).
		return colUnsupported
	case isRPC || (s != nil && s.Init != nil):
		// The server answered, but not with a usable InitializeResult.
		return colRefused
	}
	return colBroken
}

// reconcileEras lets each era's driver adjust the columns once all have opened (era
// detection: a modern-only server's legacy columns are revision-unsupported).
func (rs *runState) reconcileEras() {
	seen := map[revision.Era]bool{}
	for _, col := range rs.columns {
		if !seen[col.rev.Era] {
			seen[col.rev.Era] = true
			driverOf(col.rev).reconcile(rs.columns)
		}
	}
}

// preOpenSession starts opening a session asking for version, once per run, in the
// background; the first check of col's revision that asks for it claims it.
func (rs *runState) preOpenSession(ctx context.Context, col *column, version string) {
	rs.preMu.Lock()
	defer rs.preMu.Unlock()
	if _, ok := rs.preOpened[version]; ok {
		return
	}
	p := &preOpen{done: make(chan struct{})}
	rs.preOpened[version] = p
	go func() {
		defer close(p.done)
		if s := rs.eraProbeFor(ctx); s != nil {
			p.s, p.err = rs.handOver(ctx, s, version, col.rev)
			return
		}
		p.s, p.err = rs.dialSession(ctx, version, col.rev, nil)
	}()
}

// eraProbeFor waits for the modern column's opening, on a target where every
// session is a process of its own (stdio), and returns its session when the era
// probe found a legacy server that is still serving; the column gives it up (nil
// otherwise). A dual-era client probes with server/discover and, on any error that
// is not a recognized modern one, falls back to the initialize handshake on the
// same connection (2026-07-28 basic/transports/stdio.mdx, Backward Compatibility:
// "Fall back to the `initialize` handshake"), so the process that refused the probe
// serves a negotiation probe's initialize as it would serve any dual-era client's,
// and the run starts one process fewer. The server must have answered the probe
// (an error, or the ping after it): a process that answered nothing is no process
// to go on with.
func (rs *runState) eraProbeFor(ctx context.Context) *Session {
	if !rs.tgt.isolated() {
		return nil
	}
	var era *column
	for _, col := range rs.columns {
		if col.rev.Era == revision.Modern && col.opened != nil {
			era = col
			break
		}
	}
	if era == nil {
		return nil
	}
	select {
	case <-era.opened:
	case <-ctx.Done():
		return nil
	}
	s := era.main
	if era.state != colUnsupported || !driverOf(era.rev).notThisEra(era.err) || s == nil || s.Conn == nil || s.Conn.Err() != nil || !answeredProbe(s) {
		return nil
	}
	era.mu.Lock()
	defer era.mu.Unlock()
	if era.handedOver {
		return nil
	}
	era.handedOver = true
	era.sessions = slices.DeleteFunc(era.sessions, func(x *Session) bool { return x == s })
	return s
}

// answeredProbe reports whether the server answered anything on the era probe's
// session: the probe's error reply, or the barrier ping sent after it.
func answeredProbe(s *Session) bool {
	for range s.Conn.EachReceived(0) {
		return true
	}
	return false
}

// handOver opens a legacy session asking for version on the era probe's
// connection (eraProbeFor): the same transcript goes on, under a label of the
// negotiation probe's revision, with initialize as the first request of its
// handshake and no per-request metadata.
func (rs *runState) handOver(ctx context.Context, probe *Session, version string, rev revision.Revision) (*Session, error) {
	rs.memoMu.Lock()
	rs.sessionSeq++
	label := fmt.Sprintf("%s-%02d", rev.Name, rs.sessionSeq)
	rs.memoMu.Unlock()
	probe.Conn.DropMeta()
	probe.Conn.SetBarrierMethod("ping")
	s := &Session{Requested: version, Rev: rev, Label: label, Kind: probe.Kind, Conn: probe.Conn}
	s, err := legacyHandshake(ctx, s, probe.Conn.Transport(), version, sessionOptions{timeout: rs.cfg.Timeout, label: label, version: rs.cfg.ToolVersion, budget: rs.transcriptBudget})
	s.opening = openingOf(s, err)
	s.openedSeq = s.Conn.Seq()
	return s, err
}

// freshKey names the fresh session opened ahead for check c in revision rev (in
// runState.preOpened, beside the negotiation probes' versions).
func freshKey(rev revision.Revision, c *Check) string { return "fresh " + rev.Name + " " + c.ID }

// preOpenFresh starts opening, in the background, check c's first fresh session in
// col (Check.FreshAhead); the check's T.NewSession claims it.
func (rs *runState) preOpenFresh(ctx context.Context, col *column, c *Check) {
	p := &preOpen{done: make(chan struct{}), col: col}
	rs.preMu.Lock()
	rs.preOpened[freshKey(col.rev, c)] = p
	rs.preMu.Unlock()
	go func() {
		defer close(p.done)
		p.s, p.err = rs.dialSession(ctx, col.rev.Name, col.rev, nil)
	}()
}

// claimPreOpened returns the pre-opened session for version (waiting for it to
// open), counted in col's sessions; ok is false when none was pre-opened or it was
// already claimed.
func (rs *runState) claimPreOpened(ctx context.Context, col *column, version string) (*Session, error, bool) {
	rs.preMu.Lock()
	p, found := rs.preOpened[version]
	if !found || p.claimed {
		rs.preMu.Unlock()
		return nil, nil, false
	}
	p.claimed = true
	rs.preMu.Unlock()
	if !p.wait(ctx) {
		return nil, nil, false // the opener finishes alone; shutdown closes it
	}
	if p.s != nil {
		col.mu.Lock()
		col.sessions = append(col.sessions, p.s)
		col.mu.Unlock()
	}
	return p.s, p.err, true
}

// openSession opens a session for a column (counted in its sessions, so that
// transcript-wide checks see its traffic).
func (rs *runState) openSession(ctx context.Context, col *column, requested string) (*Session, error) {
	return rs.openSessionWith(ctx, col, requested, nil)
}

// openSessionWith is openSession with the pre-initialize probe's steps (nil: none).
func (rs *runState) openSessionWith(ctx context.Context, col *column, requested string, pre *preInitHooks) (*Session, error) {
	s, err := rs.dialSession(ctx, requested, col.rev, pre)
	col.mu.Lock()
	col.sessions = append(col.sessions, s)
	col.mu.Unlock()
	return s, err
}

// dialSession opens a session through the revision's era driver, retrying once if
// the target fell back to another transport.
func (rs *runState) dialSession(ctx context.Context, requested string, rev revision.Revision, pre *preInitHooks) (*Session, error) {
	drv := driverOf(rev)
	for attempt := 0; ; attempt++ {
		rs.memoMu.Lock()
		rs.sessionSeq++
		label := fmt.Sprintf("%s-%02d", rev.Name, rs.sessionSeq)
		rs.memoMu.Unlock()
		rs.dials.Add(1)
		s, err := drv.open(ctx, rs.tgt, requested, rev, sessionOptions{timeout: rs.cfg.Timeout, initTimeout: rs.cfg.StartTimeout, label: label, version: rs.cfg.ToolVersion, budget: rs.transcriptBudget, preInit: pre})
		if err != nil && attempt == 0 && s.Conn != nil {
			if mayFallBack(err) && rs.tgt.fallback(ctx, err) {
				s.Close(ctx)
				continue
			}
		}
		if s != nil {
			s.opening = openingOf(s, err)
			if s.Conn != nil {
				s.openedSeq = s.Conn.Seq()
			}
		}
		return s, err
	}
}

// checkDrivers is the start-up check that every selected revision's era has a
// driver: a revision without one is a configuration error, never a crash.
func checkDrivers(revs []revision.Revision) error {
	for _, r := range revs {
		if drivers[r.Era] == nil {
			return configErr("revision %s belongs to the %s era, which this build has no session driver for", r.Name, r.Era)
		}
	}
	return nil
}

func (rs *runState) allBroken() bool {
	for _, col := range rs.columns {
		if driverOf(col.rev).reached(col) {
			return false
		}
	}
	return true
}

// unreachable records that no check could run: every selected check is an error and
// the exit code is 4.
func (rs *runState) unreachable(err error) {
	rs.exitOverride = ExitUnreachable
	rs.report.Notes = append(rs.report.Notes, "the target could not be reached: "+err.Error())
	for _, col := range rs.columns {
		if col.err == nil {
			col.err = err
		}
		col.state = colBroken
	}
}

func (rs *runState) unsupportedWhy(col *column) string {
	if col.why != "" {
		return col.why
	}
	if col.err != nil && driverOf(col.rev).notThisEra(col.err) {
		return fmt.Sprintf("the server does not speak the %s era of %s (era detection): %v", col.rev.Era, col.rev.Name, col.err)
	}
	if col.main != nil && col.main.Negotiated != "" {
		return fmt.Sprintf("asked for %s, the server answered %s", col.rev.Name, col.main.Negotiated)
	}
	return fmt.Sprintf("the server rejected %s: %v", col.rev.Name, col.err)
}

// setAhead records the checks the worker runs after the current one.
// awaitDrains waits until every check's session settling in the background
// (T.cleanup) has settled.
func (col *column) awaitDrains() {
	col.mu.Lock()
	draining := maps.Clone(col.draining)
	col.mu.Unlock()
	for _, done := range draining {
		<-done
	}
}

func (col *column) setAhead(ahead []*Check) {
	col.mu.Lock()
	col.ahead = ahead
	col.mu.Unlock()
}
