package conform

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcp-conform/mcp-conform/conform/baseline"
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
	results  map[string]reports.CheckResult
	futures  map[string]chan judged // set by startWorkers before Ginkgo runs
	// lostAt is the check during which the main session ended ("" while it runs):
	// the checks after it that need a live session are not run.
	lostAt  string
	lostErr error
	// settled is set once the transcript-wide checks may judge: every session of the
	// column has been brought to a provable end of traffic (settle).
	settled   bool
	announced bool
	// why, when set, says why the column is revision-unsupported (era detection).
	why string
}

type runState struct {
	cfg     Config
	ctx     context.Context
	tgt     target
	sel     *selection
	console *reports.Console
	report  *reports.Report
	started time.Time

	columns     []*column
	planned     int
	attachments map[string][]byte

	memoMu sync.Mutex
	memo   map[string]*memoEntry

	sessionSeq   int
	exitOverride int
	// only, when set, restricts the run to these checks (Judge, JudgeAll).
	only map[*Check]bool
	// transcriptBudget bounds the bytes every session's transcript keeps.
	transcriptBudget *wire.Budget

	// preOpened holds the negotiation probes' sessions (Check.PreOpen), opened
	// alongside the main sessions, by requested version, until a check claims one.
	preMu     sync.Mutex
	preOpened map[string]*preOpen
	// dials counts the transports opened (on stdio: processes started).
	dials   atomic.Int64
	notesMu sync.Mutex
	// mirror makes each check's verdict Ginkgo's too (ginkgo.Fail, ginkgo.Skip); off
	// in library mode (Test), where no Ginkgo spec is running.
	mirror bool
}

// preOpen is a session opened ahead of the check that will use it.
type preOpen struct {
	done    chan struct{}
	s       *Session
	err     error
	claimed bool
}

type memoEntry struct {
	once  sync.Once
	value any
}

func newRunState(cfg Config, tgt target, sel *selection) *runState {
	rs := &runState{
		cfg:         cfg,
		tgt:         tgt,
		sel:         sel,
		console:     &reports.Console{W: cfg.Console, Color: cfg.Color, Verbose: cfg.Verbose},
		started:     time.Now(),
		attachments: map[string][]byte{},
		memo:        map[string]*memoEntry{},
		preOpened:   map[string]*preOpen{},
		mirror:      true,
		report: &reports.Report{
			Target: tgt.describe(),
			Tool:   "mcp-conform " + cfg.ToolVersion,
		},
	}
	rs.report.StartedAt = rs.started.UTC()
	rs.transcriptBudget = wire.NewBudget(cfg.MaxTranscriptBytes)
	for _, r := range cfg.Revisions {
		col := &column{rev: r, results: map[string]reports.CheckResult{}}
		rs.columns = append(rs.columns, col)
		rs.planned += len(rs.checksFor(r))
	}
	return rs
}

// checksFor lists the selected checks that apply to a revision, in run order: by
// phase (Check.RunPhase), then in registry order.
func (rs *runState) checksFor(r revision.Revision) []*Check {
	var out []*Check
	for _, c := range Checks() {
		if rs.only != nil && !rs.only[c] {
			continue
		}
		if c.AppliesTo(r) && rs.sel.selects(r, c) {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b *Check) int { return cmp.Compare(a.RunPhase(), b.RunPhase()) })
	return out
}

// openColumns opens every revision's main session concurrently, and alongside them
// the negotiation probes' sessions that selected checks declared (Check.PreOpen).
// No other session is opened ahead of time: the session budget of a run is one per
// revision plus one per PreOpen version (over stdio, that many processes), and a
// check that needs a session of its own opens it when it asks (T.NewSession).
func (rs *runState) openColumns(ctx context.Context) {
	var wg sync.WaitGroup
	for _, col := range rs.columns {
		list := rs.checksFor(col.rev)
		if len(list) == 0 {
			continue
		}
		for _, c := range list {
			for _, v := range c.PreOpen {
				rs.preOpenSession(ctx, col, v)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := rs.openSession(ctx, col, col.rev.Name)
			col.main, col.err = s, err
			col.state = openState(col.rev, s, err)
		}()
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
	case rev.Era == revision.Modern && isNotModern(err):
		// Era detection (spec-matrix §3.4): a server that does not answer
		// server/discover the modern way is a legacy server; the column is
		// revision-unsupported, never a failure.
		return colUnsupported
	}
	rpc, isRPC := refused(err)
	switch {
	case isRPC && rpc.Code == wire.CodeInvalidParams:
		// The lifecycle page's own example rejects an unsupported version with
		// -32602 (spec-matrix §2.16.1).
		return colUnsupported
	case isRPC || (s != nil && s.Init != nil):
		// The server answered, but not with a usable InitializeResult.
		return colRefused
	}
	return colBroken
}

// reconcileEras applies the other half of era detection: once server/discover proved
// the server modern and no legacy column got an InitializeResult, a legacy column whose initialize failed (refused, or any answer
// but a failure to connect) is revision-unsupported — a modern-only server owes
// initialize no result (2026-07-28 basic/versioning.mdx), only, SHOULD, an error
// naming its versions (MOD-LEGACY-INIT-01 judges that).
func (rs *runState) reconcileEras() {
	modern, legacy := false, false
	for _, col := range rs.columns {
		switch {
		case col.rev.Era == revision.Modern && col.state == colOpen:
			modern = true
		case col.rev.Era == revision.Legacy && col.main != nil && col.main.Negotiated != "":
			// initialize answered (with this version or another): the server
			// speaks the legacy era, and a refused column is its own failure.
			legacy = true
		}
	}
	if !modern || legacy {
		return
	}
	for _, col := range rs.columns {
		if col.rev.Era != revision.Legacy || (col.state != colRefused && col.state != colBroken) {
			continue
		}
		var ie *initError
		if !errors.As(col.err, &ie) || ie.stage == "connect" {
			continue
		}
		col.state = colUnsupported
		col.why = fmt.Sprintf("the server answered server/discover as a 2026-07-28 server, and initialize for %s failed: %v", col.rev.Name, col.err)
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
		p.s, p.err = rs.dialSession(ctx, version, col.rev)
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
	select {
	case <-p.done:
	case <-ctx.Done():
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
	s, err := rs.dialSession(ctx, requested, col.rev)
	col.mu.Lock()
	col.sessions = append(col.sessions, s)
	col.mu.Unlock()
	return s, err
}

// dialSession opens a session through the revision's era driver, retrying once if
// the target fell back to another transport.
func (rs *runState) dialSession(ctx context.Context, requested string, rev revision.Revision) (*Session, error) {
	drv := drivers[rev.Era] // present: Run and Judge refuse a revision without one
	for attempt := 0; ; attempt++ {
		rs.memoMu.Lock()
		rs.sessionSeq++
		label := fmt.Sprintf("%s-%02d", rev.Name, rs.sessionSeq)
		rs.memoMu.Unlock()
		rs.dials.Add(1)
		s, err := drv.open(ctx, rs.tgt, requested, rev, sessionOptions{timeout: rs.cfg.Timeout, initTimeout: rs.cfg.StartTimeout, label: label, version: rs.cfg.ToolVersion, budget: rs.transcriptBudget})
		if err != nil && attempt == 0 && s.Conn != nil {
			if mayFallBack(err) && rs.tgt.fallback(ctx, err) {
				s.Close(ctx)
				continue
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
		// Era detection reads a modern column's silence as "a legacy server"; that
		// proves nothing when no legacy column was answered either.
		silentModern := col.rev.Era == revision.Modern && col.main != nil && col.main.Init == nil
		if col.main != nil && col.state != colBroken && !silentModern {
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
// see another's list change or odd input), the phases that need a clean session or
// send odd input run concurrently, and the state changes (a list change is global,
// spec-matrix §3.2) and the transcript-wide checks (whose probes' notifications may
// reach every session) run one revision at a time.
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
			at := PhaseClean
			for _, c := range list {
				for at < c.RunPhase() {
					if held != 0 {
						gates.serial.Unlock()
						held = 0
					}
					gates.finish(at)
					at++
				}
				if gates.shared && !concurrentPhase(at) && held == 0 {
					gates.serial.Lock()
					held = at
				}
				start := time.Now()
				v := rs.judgeInOrder(col, c, list)
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

// concurrentPhase reports whether revisions sharing one server may run the phase at
// the same time.
func concurrentPhase(p Phase) bool { return p == PhaseClean || p == PhaseOddInput }

// phaseGates hold every revision at the end of each phase until all have finished it
// (on a shared server; on isolated ones they pass at once).
type phaseGates struct {
	shared bool
	serial sync.Mutex
	done   map[Phase]*sync.WaitGroup
}

func newPhaseGates(n int, isolated bool) *phaseGates {
	g := &phaseGates{shared: !isolated, done: map[Phase]*sync.WaitGroup{}}
	for p := PhaseClean; p <= PhaseTranscript; p++ {
		wg := &sync.WaitGroup{}
		wg.Add(n)
		g.done[p] = wg
	}
	return g
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

// judgeInOrder judges a check in its column's run order: once the main session has
// ended (a server that died on a probe), the checks after it that need a live
// session are not run, and the report says where the session was lost; before the
// first transcript-wide check, the column's traffic is settled (settle).
func (rs *runState) judgeInOrder(col *column, c *Check, list []*Check) Verdict {
	if c.RunPhase() == PhaseTranscript && rs.judgeable(col) {
		rs.settleFor(col, list)
	}
	col.mu.Lock()
	lostAt, lostErr := col.lostAt, col.lostErr
	col.mu.Unlock()
	if lostAt != "" && c.RunPhase() != PhaseTranscript {
		return Errorf("not run: the server's session ended during %s (%v)", lostAt, lostErr)
	}
	v := rs.judge(col, c)
	rs.noteLoss(col, c)
	return v
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

// note adds a line to the report's notes.
func (rs *runState) note(line string) {
	rs.notesMu.Lock()
	defer rs.notesMu.Unlock()
	rs.report.Notes = append(rs.report.Notes, line)
}

// settleFor prepares and settles the column before its transcript-wide checks, once.
// Those checks judge every message of the revision's sessions, so they may judge
// only traffic that is provably complete on every channel. Every session of the
// column is brought to an end of traffic (Session.Settle): on stdio and HTTP+SSE, a
// ping barrier on the one ordered channel; on Streamable HTTP, the session is closed
// (DELETE) and every stream it had read to its end, within the request timeout.
// Where that closes the main session, each transcript-wide check first runs once with
// its verdict discarded, so that the probes they make (memoized with T.Once: a
// progress call, a listing) happen while it is open; the judging run then reads
// complete transcripts.
func (rs *runState) settleFor(col *column, list []*Check) {
	col.mu.Lock()
	done := col.settled
	col.settled = true
	col.mu.Unlock()
	if done {
		return
	}
	if rs.settleCloses(col) {
		for _, c := range list {
			if c.RunPhase() == PhaseTranscript {
				_ = rs.judge(col, c)
			}
		}
	}
	rs.settleSessions(col)
}

// settleCloses reports whether settling ends the main session (Streamable HTTP):
// then the transcript-wide checks' probes must run before it. On an ordered channel
// the main session stays open behind its barrier, and a probe made later (a progress
// call) carries its own barrier.
func (rs *runState) settleCloses(col *column) bool {
	_, ok := col.main.Conn.Transport().(interface{ Drain(context.Context) bool })
	return ok
}

// settleSessions settles every session of the column concurrently.
func (rs *runState) settleSessions(col *column) {
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

// judge computes one check's raw verdict in one column.
func (rs *runState) judge(col *column, c *Check) Verdict {
	switch {
	case rs.ctx.Err() != nil:
		return Errorf("not run: %v", context.Cause(rs.ctx))
	case col.state == colBroken:
		return Errorf("no session for %s: %v", col.rev.Name, col.err)
	case col.state == colRefused && !c.Handshake:
		return Errorf("no session for %s: %v", col.rev.Name, col.err)
	case col.state == colUnsupported && (!c.Handshake || col.why != ""):
		// A handshake check judges initialize even in an unsupported column, but not
		// on a modern-only server: it owes initialize no result (MOD-LEGACY-INIT-01
		// judges the answer it gave, in the 2026-07-28 column).
		return Skip(reports.RevisionUnsupported, "%s", rs.unsupportedWhy(col))
	default:
		return rs.invoke(col, c)
	}
}

// runCheck is the body of one Ginkgo spec: it takes the check's verdict (judged by the
// column's worker, or here when the worker did not plan it), records it and mirrors it
// in Ginkgo's state.
func (rs *runState) runCheck(col *column, c *Check) {
	rs.announce(col)
	var j judged
	if fut, ok := col.futures[c.ID]; ok {
		select {
		case j = <-fut:
		case <-rs.ctx.Done():
			// The worker's current check is bounded by the same context; give it a
			// moment to report before calling it lost.
			select {
			case j = <-fut:
			case <-time.After(rs.cfg.Timeout):
				j = judged{v: Errorf("not run: %v", context.Cause(rs.ctx))}
			}
		}
	} else {
		start := time.Now()
		j = judged{v: rs.judge(col, c)}
		j.dur = time.Since(start)
	}
	v := j.v
	v = v.final(rs.cfg.Strict)
	res := reports.CheckResult{
		ID: c.ID, Title: c.Title, Level: string(c.LevelAt(col.rev)), Status: v.Status,
		Message: v.Message, Reason: v.Reason, Source: c.Source, Expected: v.Expected,
		Actual: v.Actual, Group: string(c.Group), Duration: j.dur,
	}
	if v.Status == reports.Skip {
		res.Message = string(v.Reason) + ": " + v.Message
	}
	rs.attachRepro(col, v, &res)
	rs.cfg.Baseline.Apply(col.rev.Name, &res)
	col.mu.Lock()
	col.results[c.ID] = res
	col.mu.Unlock()
	rs.console.CheckDone(col.rev.Name, res)
	if !rs.mirror {
		return
	}
	switch res.Status {
	case reports.Fail:
		ginkgo.Fail(res.Message)
	case reports.Error:
		ginkgo.Fail("error: " + res.Message)
	case reports.Skip:
		ginkgo.Skip(res.Message)
	}
}

func (rs *runState) unsupportedWhy(col *column) string {
	if col.why != "" {
		return col.why
	}
	if col.rev.Era == revision.Modern && col.err != nil {
		return fmt.Sprintf("the server is not a 2026-07-28 server (era detection): %v", col.err)
	}
	if col.main != nil && col.main.Negotiated != "" {
		return fmt.Sprintf("asked for %s, the server answered %s", col.rev.Name, col.main.Negotiated)
	}
	return fmt.Sprintf("the server rejected %s: %v", col.rev.Name, col.err)
}

func (rs *runState) announce(col *column) {
	col.mu.Lock()
	defer col.mu.Unlock()
	if col.announced {
		return
	}
	col.announced = true
	neg := ""
	if col.main != nil {
		neg = col.main.Negotiated
	}
	rs.console.RevisionStart(col.rev.Name, neg, rs.kindOf(col))
}

func (rs *runState) kindOf(col *column) string {
	if col.main != nil && col.main.Kind != "" {
		return col.main.Kind
	}
	return ""
}

// invoke runs the check with panic recovery and a hard bound, so one broken check
// cannot stall the run.
func (rs *runState) invoke(col *column, c *Check) (v Verdict) {
	bound := 30 * rs.cfg.Timeout
	ctx, cancel := context.WithTimeout(rs.ctx, bound)
	defer cancel()
	t := &T{Ctx: ctx, Rev: col.rev, Check: c, run: rs, col: col}
	mark := markTranscripts(col)
	done := make(chan Verdict, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- Errorf("the check panicked: %v\n%s", r, debug.Stack())
			}
		}()
		done <- c.Run(t)
	}()
	select {
	case v = <-done:
	case <-ctx.Done():
		select {
		case v = <-done:
		case <-time.After(rs.cfg.Timeout):
			v = Errorf("the check did not finish within %s: %v", bound, context.Cause(ctx))
		}
	}
	t.cleanup()
	if v.Status != reports.Pass && v.Status != reports.Skip {
		v.exchange = mark.slice(col, t)
	}
	return v
}

func (rs *runState) closeSessions(ctx context.Context) {
	var wg sync.WaitGroup
	rs.preMu.Lock()
	for _, p := range rs.preOpened {
		if p.claimed {
			continue
		}
		p.claimed = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-p.done:
			case <-ctx.Done():
				return
			}
			if p.s != nil {
				rs.columns[0].mu.Lock() // kept for the transcripts
				rs.columns[0].sessions = append(rs.columns[0].sessions, p.s)
				rs.columns[0].mu.Unlock()
				p.s.Close(ctx)
			}
		}()
	}
	rs.preMu.Unlock()
	wg.Wait()
	for _, col := range rs.columns {
		col.mu.Lock()
		sessions := append([]*Session(nil), col.sessions...)
		col.mu.Unlock()
		for _, s := range sessions {
			wg.Add(1)
			go func() { defer wg.Done(); s.Close(ctx) }()
		}
	}
	wg.Wait()
}

// finish assembles the report: every selected check of every column has a verdict,
// and a selected check that never ran is an error.
func (rs *runState) finish(ctx context.Context) *Result {
	rep := rs.report
	for _, col := range rs.columns {
		rr := reports.RevisionReport{Revision: col.rev.Name, Era: string(col.rev.Era), Transport: rs.kindOf(col), Checks: []reports.CheckResult{}}
		if col.main != nil {
			rr.Negotiated = col.main.Negotiated
			rr.ServerInfo = col.main.ServerInfo()
		}
		rr.Unsupported = col.state == colUnsupported
		planned := rs.checksFor(col.rev)
		for _, c := range planned {
			col.mu.Lock()
			res, ok := col.results[c.ID]
			col.mu.Unlock()
			if !ok {
				why := "the run ended before this check ran"
				if col.state == colBroken && col.err != nil {
					why = "no session: " + col.err.Error()
				} else if err := context.Cause(ctx); err != nil {
					why = "not run: " + err.Error()
				}
				res = reports.CheckResult{ID: c.ID, Title: c.Title, Level: string(c.LevelAt(col.rev)), Status: reports.Error, Message: why, Source: c.Source, Group: string(c.Group)}
				rs.attachRepro(col, Verdict{Status: reports.Error}, &res)
			}
			rr.Checks = append(rr.Checks, res)
		}
		if len(planned) > 0 || rs.planned == 0 {
			rep.Revisions = append(rep.Revisions, rr)
		}
	}
	if ht, ok := rs.tgt.(interface{ detectionNote() string }); ok && ht.detectionNote() != "" {
		rep.Notes = append(rep.Notes, ht.detectionNote())
	}
	rep.Summarize()
	if b := rs.cfg.Baseline; b != nil {
		rep.Baseline = b.Judge(rep, catalog{})
		for _, st := range rep.Baseline.Stale {
			rep.Notes = append(rep.Notes, baseline.StaleMessage(b.Path, st))
		}
	}
	rep.DurationMs = time.Since(rs.started).Milliseconds()
	rep.ExitCode = rs.exitCode()
	for k, v := range rs.tgt.attachments() {
		rs.attachments[k] = v
	}
	// Every check has been judged: what they memoized (a listing of 10,000 tools per
	// revision) is let go before the transcripts are rendered, so the two never
	// weigh on memory together.
	rs.memoMu.Lock()
	rs.memo = map[string]*memoEntry{}
	rs.memoMu.Unlock()
	rs.addTranscripts()
	return &Result{Report: rep, Attachments: rs.attachments}
}

func (rs *runState) exitCode() int {
	if rs.exitOverride != 0 {
		return rs.exitOverride
	}
	s := rs.report.Summary
	// Every fail and error gates, but a quarantined one.
	gating := s.Fail + s.Error
	for _, rev := range rs.report.Revisions {
		for i := range rev.Checks {
			if c := &rev.Checks[i]; c.Quarantine != nil && (c.Status == reports.Fail || c.Status == reports.Error) {
				gating--
			}
		}
	}
	switch {
	case gating > 0 || (rs.report.Baseline != nil && len(rs.report.Baseline.Stale) > 0):
		return ExitFailed
	case s.Total == 0 || s.Skip == s.Total:
		return ExitIncomplete
	default:
		return ExitOK
	}
}

// addTranscripts writes every session's transcript as JSON lines: direction, time,
// source and the raw bytes as they crossed the wire.
func (rs *runState) addTranscripts() {
	for _, col := range rs.columns {
		col.mu.Lock()
		sessions := append([]*Session(nil), col.sessions...)
		col.mu.Unlock()
		for _, s := range sessions {
			if s == nil || s.Conn == nil {
				continue
			}
			entries, dropped := s.Conn.Transcript()
			// Sized once: grown by doubling, a buffer of megabytes is copied and
			// cleared several times and may end up twice its size.
			size := 64
			for _, e := range entries {
				size += len(e.Raw) + len(e.Err) + len(e.Source) + len(e.ForMethod) + 160
			}
			var b bytes.Buffer
			b.Grow(size)
			for _, e := range entries {
				// Written by hand, not with json.Marshal: a raw message is copied as it
				// is (json.Valid checked it) instead of being compacted again.
				fmt.Fprintf(&b, `{"seq":%d,"dir":%s,"at":%q,"source":%s`, e.Seq, jsonString(string(e.Dir)), e.At.UTC().Format(time.RFC3339Nano), jsonString(e.Source))
				// A decoded entry's bytes are valid JSON (wire.Decode checked them).
				if e.Msg != nil || json.Valid(e.Raw) {
					b.WriteString(`,"message":`)
					if bytes.ContainsAny(e.Raw, "\r\n") {
						_ = json.Compact(&b, e.Raw) // one message, one line
					} else {
						b.Write(bytes.TrimSpace(e.Raw))
					}
				} else {
					b.WriteString(`,"raw":` + jsonString(string(e.Raw)))
				}
				if e.Err != "" {
					b.WriteString(`,"problem":` + jsonString(e.Err))
				}
				if e.ForMethod != "" {
					b.WriteString(`,"forMethod":` + jsonString(e.ForMethod))
				}
				b.WriteString("}\n")
			}
			if dropped > 0 {
				fmt.Fprintf(&b, "{\"dropped\":%d}\n", dropped)
			}
			rs.attachments["transcripts/"+s.Label+".jsonl"] = b.Bytes()
		}
	}
}

// jsonString encodes s as a JSON string (invalid UTF-8 replaced, as json.Marshal does).
func jsonString(s string) string {
	enc, _ := json.Marshal(s)
	return string(enc)
}

// once runs fn once per run for a key and returns its value.
func (rs *runState) once(key string, fn func() any) any {
	rs.memoMu.Lock()
	e, ok := rs.memo[key]
	if !ok {
		e = &memoEntry{}
		rs.memo[key] = e
	}
	rs.memoMu.Unlock()
	e.once.Do(func() { e.value = fn() })
	return e.value
}

// catalog answers the baseline's questions from the check registry.
type catalog struct{}

func (catalog) AppliesTo(id, rev string) (exists, applies bool) {
	c := Lookup(id)
	if c == nil {
		return false, false
	}
	r, ok := revision.Lookup(rev)
	return true, ok && c.AppliesTo(r)
}
