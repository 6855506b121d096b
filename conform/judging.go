package conform

import (
	"context"
	"runtime/debug"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// judge computes one check's raw verdict in one column.
func (rs *runState) judge(col *column, c *Check) Verdict {
	if v := rs.notRun(col, c); v != nil {
		return *v
	}
	return rs.invoke(col, c, c.Run)
}

// probe makes a transcript check's probes (Check.Probe) in one column, where the
// check would be judged.
func (rs *runState) probe(col *column, c *Check) {
	if c.Probe == nil || rs.notRun(col, c) != nil {
		return
	}
	w := openWindow(col)
	var read []*trafficWindow
	_, t := rs.execute(col, c, func(t *T) Verdict {
		t.call(func(t *T) Verdict { c.Probe(t); return Verdict{} })
		read = t.windows
		return Verdict{}
	})
	t.awaitDrained() // the probe's window holds its sessions' traffic whole
	read = append(read, w.close())
	col.mu.Lock()
	defer col.mu.Unlock()
	if col.probeWindows == nil {
		col.probeWindows = map[string][]*trafficWindow{}
	}
	col.probeWindows[c.ID] = read
}

// notRun is the verdict of a check the column cannot run, or nil.
func (rs *runState) notRun(col *column, c *Check) *Verdict {
	if rs.ctx.Err() != nil {
		v := Errorf("not run: %v", context.Cause(rs.ctx))
		return &v
	}
	return rs.neverRuns(col, c)
}

// neverRuns is the verdict of a check the column cannot run for a reason that
// holds all run long (its session's state, its transport), or nil.
func (rs *runState) neverRuns(col *column, c *Check) *Verdict {
	v := func(v Verdict) *Verdict { return &v }
	switch {
	case col.authRequired && !c.Auth:
		return v(Skip(reports.NeedsToken, "no session: the server answered HTTP 401 for want of a token (the run's note says how to give one)"))
	case col.authRequired:
		return nil
	case col.state == colBroken && !c.Opening:
		return v(Errorf("no session for %s: %v", col.rev.Name, col.err))
	case col.state == colRefused && !c.Handshake && !c.Opening:
		return v(Errorf("no session for %s: %v", col.rev.Name, col.err))
	case col.state == colUnsupported && (!c.Handshake || col.why != ""):
		// A handshake check judges initialize even in an unsupported column, but not
		// on a modern-only server: it owes initialize no result (MOD-LEGACY-INIT-01
		// judges the answer it gave, in the 2026-07-28 column).
		return v(Skip(reports.RevisionUnsupported, "%s", rs.unsupportedWhy(col)))
	}
	return transportSkip(c, col.rev.Name, rs.kindOf(col))
}

// runCheck is the body of one Ginkgo spec: it takes the check's verdict (judged by the
// column's worker, or here when the worker did not plan it), records it and mirrors it
// in Ginkgo's state.
func (rs *runState) runCheck(col *column, c *Check) { rs.record(col, c, rs.mirror) }

// record takes one check's verdict and records it (runCheck), mirroring it in
// Ginkgo's state only when mirror is set: a verdict recorded inside another check's
// spec (runGinkgo's never-run checks) must not end that spec.
func (rs *runState) record(col *column, c *Check, mirror bool) {
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
	if !mirror {
		return
	}
	switch res.Status {
	case reports.Fail:
		onShallowStack(func() { ginkgo.Fail(res.Message) })
	case reports.Error:
		onShallowStack(func() { ginkgo.Fail("error: " + res.Message) })
	case reports.Skip:
		onShallowStack(func() { ginkgo.Skip(res.Message) })
	}
}

// onShallowStack runs a Ginkgo Fail or Skip on a goroutine of its own: both capture
// and prune the calling goroutine's whole stack, and the spec's is deep inside
// Ginkgo's runner, which cost a run of ~120 skips about 12 ms of CPU. Ginkgo records
// the spec's state (skipped or failed, with the message) before it panics to end
// the body; the panic, Ginkgo's own, is recovered here rather than by GinkgoRecover,
// which would capture the stack a second time to report a panic it then ignores.
func onShallowStack(mirror func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		mirror()
	}()
	<-done
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
	rs.console.RevisionStart(col.rev.Name, neg, rs.kindOf(col), col.state == colUnsupported)
}

func (rs *runState) kindOf(col *column) string {
	if col.main != nil && col.main.Kind != "" {
		return col.main.Kind
	}
	return ""
}

// invoke runs the check (execute) and gives a verdict that is not a pass or a skip
// its evidence: the traffic that backs it.
func (rs *runState) invoke(col *column, c *Check, run func(*T) Verdict) Verdict {
	mark := markTranscripts(col)
	v, t := rs.execute(col, c, run)
	if v.Status == reports.Fail || v.Status == reports.Warn {
		if n := col.droppedSmall(); n > 0 {
			v = unverifiedForDrops(v, n, rs.cfg.MaxTranscriptBytes)
		}
	}
	if v.Status != reports.Pass && v.Status != reports.Skip {
		if t.drained == nil {
			v.exchange = rs.evidence(col, t, mark, v)
			return v
		}
		// The evidence holds the traffic of the check's own sessions whole, so it
		// is cut once they have settled; the column does not wait for that.
		end := markTranscripts(col)
		mark.end = &end
		d := &deferredEvidence{done: make(chan struct{})}
		v.deferred = d
		go func() {
			defer close(d.done)
			t.awaitDrained()
			d.exchange = rs.evidence(col, t, mark, v)
		}()
	}
	return v
}

// unverifiedForDrops is the verdict of a failure or warning judged while the
// transcripts' bound had dropped n small messages (wire.Conn.DroppedSmall): those
// are the notifications, short replies and requests the checks wait for and read,
// so the check may have judged a message it never saw (a list_changed that came,
// an id that was sent). It is not verified, and says what it would have said.
func unverifiedForDrops(v Verdict, n int, bound int64) Verdict {
	return Errorf("not verified: the transcripts' bound (--max-transcript-bytes %d) dropped %d message(s) of %d bytes or less in this revision's sessions, which the check may have needed; raise the bound to judge it. It found: %s %s",
		bound, n, wire.SmallMessage, v.Status, v.Message)
}

// droppedSmall is how many small messages the column's sessions' transcripts have
// dropped (wire.Conn.DroppedSmall).
func (col *column) droppedSmall() int {
	col.mu.Lock()
	defer col.mu.Unlock()
	n := 0
	for _, s := range col.sessions {
		if s != nil && s.Conn != nil {
			n += s.Conn.DroppedSmall()
		}
	}
	return n
}

// execute runs fn with panic recovery and a hard bound, so one broken check cannot
// stall the run. A probe (Check.Probe) runs so too: it gives no verdict, so no
// evidence is gathered for it.
func (rs *runState) execute(col *column, c *Check, run func(*T) Verdict) (v Verdict, t *T) {
	bound := 30 * rs.cfg.Timeout
	ctx, cancel := context.WithTimeout(rs.ctx, bound)
	defer cancel()
	t = &T{Ctx: ctx, Rev: col.rev, Check: c, run: rs, col: col, probing: col.probing}
	if !col.probing {
		col.mu.Lock()
		t.windows = slices.Clone(col.probeWindows[c.ID])
		col.mu.Unlock()
	}
	done := make(chan Verdict, 1)
	rs.runners.run(func() {
		defer func() {
			if r := recover(); r != nil {
				done <- Errorf("the check panicked: %v\n%s", r, debug.Stack())
			}
		}()
		done <- run(t)
	})
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
	return v, t
}

// evidence is the traffic behind a verdict: the check's own slice since mark, else
// the entries it cited, its probe's traffic windows, the entries its message
// names, and last the main session's opening; a check's own exchangeOf overrides
// them all.
func (rs *runState) evidence(col *column, t *T, mark transcriptMark, v Verdict) *reports.Exchange {
	if t.exchangeOf != nil {
		if ex := t.exchangeOf(); ex != nil {
			return ex
		}
	}
	ex := mark.slice(col, t)
	if len(ex.Sessions) == 0 {
		ex = citedExchange(t.cited)
	}
	if len(ex.Sessions) == 0 {
		ex = windowsExchange(t.windows)
	}
	if len(ex.Sessions) == 0 {
		ex = citedExchange(rs.namedEntries(v.Message))
	}
	if len(ex.Sessions) == 0 && col.main != nil {
		ex = openingExchange(col.main)
	}
	return ex
}
