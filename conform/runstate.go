package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"

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
	spare    []*Session             // pre-opened sessions for T.NewSession
	scratch  *Session               // the shared session for odd-input probes
	// prefetched is closed when the background opening of spare and scratch
	// sessions is over (nil when none was started).
	prefetched chan struct{}
	announced  bool
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
	// only, when set, restricts the run to one check (Judge).
	only *Check
	// opening bounds how many prefetched sessions open at once.
	opening chan struct{}
	// transcriptBudget bounds the bytes every session's transcript keeps.
	transcriptBudget *wire.Budget
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
		opening:     make(chan struct{}, 4),
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

// checksFor lists the selected checks that apply to a revision, in run order.
func (rs *runState) checksFor(r revision.Revision) []*Check {
	var out []*Check
	for _, c := range Checks() {
		if rs.only != nil && c != rs.only {
			continue
		}
		if c.AppliesTo(r) && rs.sel.selects(r, c) {
			out = append(out, c)
		}
	}
	return out
}

// openColumns opens every revision's main session concurrently.
func (rs *runState) openColumns(ctx context.Context) {
	var wg sync.WaitGroup
	for _, col := range rs.columns {
		if len(rs.checksFor(col.rev)) == 0 {
			continue
		}
		col.prefetched = make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := rs.openSession(ctx, col, col.rev.Name)
			col.main, col.err = s, err
			switch {
			case err == nil && s.Negotiated == col.rev.Name:
				col.state = colOpen
			case err == nil:
				col.state = colUnsupported
			default:
				rpc, isRPC := refused(err)
				switch {
				case isRPC && rpc.Code == wire.CodeInvalidParams:
					// The lifecycle page's own example rejects an unsupported
					// version with -32602 (spec-matrix §2.16.1).
					col.state = colUnsupported
				case isRPC || (s != nil && s.Init != nil):
					// The server answered, but not with a usable InitializeResult.
					col.state = colRefused
				default:
					col.state = colBroken
				}
			}
		}()
	}
	wg.Wait()
	// Fresh and scratch sessions open in the background once the main sessions are
	// up (they gate the first checks; starting more servers alongside only slows
	// them): a check waits for its column's only when it asks for one (takeSpare,
	// T.Scratch).
	for _, col := range rs.columns {
		if col.prefetched == nil {
			continue
		}
		go func() {
			defer close(col.prefetched)
			rs.prefetch(ctx, col)
		}()
	}
}

// prefetch opens, concurrently, the sessions the column's selected checks declared
// they will need: fresh ones for T.NewSession and the shared scratch session.
func (rs *runState) prefetch(ctx context.Context, col *column) {
	fresh, scratch := 0, false
	for _, c := range rs.checksFor(col.rev) {
		fresh += c.FreshSessions
		scratch = scratch || c.Scratch
	}
	if scratch {
		fresh++
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var opened []*Session
	for i := 0; i < fresh; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Bounded: starting many servers at once only slows each one's start
			// past its first request's deadline.
			rs.opening <- struct{}{}
			defer func() { <-rs.opening }()
			s, err := rs.openSession(ctx, col, col.rev.Name)
			if err == nil && s.Negotiated == col.rev.Name {
				mu.Lock()
				opened = append(opened, s)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	col.mu.Lock()
	defer col.mu.Unlock()
	if scratch && len(opened) > 0 {
		col.scratch, opened = opened[0], opened[1:]
	}
	col.spare = opened
}

// awaitPrefetch waits for the column's background session opening, bounded by ctx.
func (col *column) awaitPrefetch(ctx context.Context) {
	if col.prefetched == nil {
		return
	}
	select {
	case <-col.prefetched:
	case <-ctx.Done():
	}
}

// takeSpare pops a pre-opened session that is still alive, or returns nil.
func (col *column) takeSpare(ctx context.Context) *Session {
	col.awaitPrefetch(ctx)
	col.mu.Lock()
	defer col.mu.Unlock()
	for len(col.spare) > 0 {
		s := col.spare[0]
		col.spare = col.spare[1:]
		if s.Conn.Err() == nil {
			return s
		}
	}
	return nil
}

// openSession opens a session for a column (counted in its sessions, so that
// transcript-wide checks see its traffic), retrying once if the target fell back to
// another transport.
func (rs *runState) openSession(ctx context.Context, col *column, requested string) (*Session, error) {
	drv := drivers[col.rev.Era]
	for attempt := 0; ; attempt++ {
		rs.memoMu.Lock()
		rs.sessionSeq++
		label := fmt.Sprintf("%s-%02d", col.rev.Name, rs.sessionSeq)
		rs.memoMu.Unlock()
		s, err := drv.open(ctx, rs.tgt, requested, col.rev, sessionOptions{timeout: rs.cfg.Timeout, initTimeout: rs.cfg.StartTimeout, label: label, version: rs.cfg.ToolVersion, budget: rs.transcriptBudget})
		col.mu.Lock()
		col.sessions = append(col.sessions, s)
		col.mu.Unlock()
		if err != nil && attempt == 0 && s.Conn != nil {
			if _, isRPC := refused(err); !isRPC && rs.tgt.fallback(ctx, err) {
				s.Close(ctx)
				continue
			}
		}
		return s, err
	}
}

func (rs *runState) allBroken() bool {
	for _, col := range rs.columns {
		if col.main != nil && col.state != colBroken {
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
// server per session) the revisions overlap, a goroutine each; on a shared server
// they run one after another, so that one revision's state changes cannot show in
// another's observations.
func (rs *runState) startWorkers() {
	prev := make(chan struct{})
	close(prev)
	for _, col := range rs.columns {
		col.futures = map[string]chan judged{}
		list := rs.checksFor(col.rev)
		for _, c := range list {
			col.futures[c.ID] = make(chan judged, 1)
		}
		wait, done := prev, make(chan struct{})
		if rs.tgt.isolated() {
			wait = closedChan
		}
		prev = done
		go func() {
			defer close(done)
			<-wait
			for _, c := range list {
				start := time.Now()
				v := rs.judge(col, c)
				col.futures[c.ID] <- judged{v: v, dur: time.Since(start)}
			}
		}()
	}
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// judge computes one check's raw verdict in one column.
func (rs *runState) judge(col *column, c *Check) Verdict {
	switch {
	case rs.ctx.Err() != nil:
		return Errorf("not run: %v", context.Cause(rs.ctx))
	case col.state == colBroken:
		return Errorf("no session for %s: %v", col.rev.Name, col.err)
	case col.state == colRefused && !c.Handshake:
		return Errorf("no session for %s: %v", col.rev.Name, col.err)
	case col.state == colUnsupported && !c.Handshake:
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
		Actual: v.Actual, Area: c.Area, Duration: j.dur,
	}
	if v.Status == reports.Skip {
		res.Message = string(v.Reason) + ": " + v.Message
	}
	col.mu.Lock()
	col.results[c.ID] = res
	col.mu.Unlock()
	rs.console.CheckDone(col.rev.Name, res)
	switch v.Status {
	case reports.Fail:
		ginkgo.Fail(res.Message)
	case reports.Error:
		ginkgo.Fail("error: " + res.Message)
	case reports.Skip:
		ginkgo.Skip(res.Message)
	}
}

func (rs *runState) unsupportedWhy(col *column) string {
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
	return v
}

func (rs *runState) closeSessions(ctx context.Context) {
	var wg sync.WaitGroup
	for _, col := range rs.columns {
		col.awaitPrefetch(ctx) // a session still opening would escape the close
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
		rr := reports.RevisionReport{Revision: col.rev.Name, Transport: rs.kindOf(col), Checks: []reports.CheckResult{}}
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
				res = reports.CheckResult{ID: c.ID, Title: c.Title, Level: string(c.LevelAt(col.rev)), Status: reports.Error, Message: why, Source: c.Source, Area: c.Area}
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
	rep.DurationMs = time.Since(rs.started).Milliseconds()
	rep.ExitCode = rs.exitCode()
	for k, v := range rs.tgt.attachments() {
		rs.attachments[k] = v
	}
	rs.addTranscripts()
	return &Result{Report: rep, Attachments: rs.attachments}
}

func (rs *runState) exitCode() int {
	if rs.exitOverride != 0 {
		return rs.exitOverride
	}
	s := rs.report.Summary
	switch {
	case s.Fail > 0 || s.Error > 0:
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
			var b strings.Builder
			for _, e := range entries {
				line := map[string]any{"seq": e.Seq, "dir": e.Dir, "at": e.At.UTC().Format(time.RFC3339Nano), "source": e.Source}
				if json.Valid(e.Raw) {
					line["message"] = json.RawMessage(e.Raw)
				} else {
					line["raw"] = string(e.Raw)
				}
				if e.Err != "" {
					line["problem"] = e.Err
				}
				if e.ForMethod != "" {
					line["forMethod"] = e.ForMethod
				}
				enc, _ := json.Marshal(line)
				b.Write(enc)
				b.WriteByte('\n')
			}
			if dropped > 0 {
				fmt.Fprintf(&b, "{\"dropped\":%d}\n", dropped)
			}
			rs.attachments["transcripts/"+s.Label+".jsonl"] = []byte(b.String())
		}
	}
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
