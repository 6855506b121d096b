package conform

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

type runState struct {
	// runners run the checks (execute), each on a goroutine kept between checks.
	runners runnerPool
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
	// changes counts the changes made to each server state (T.StateChanged), by
	// stateScope.
	changes map[string]int
	// gates order the columns' checks (startWorkers); T.HoldState takes their
	// state holds.
	gates *phaseGates

	sessionSeq   int
	exitOverride int
	// only, when set, restricts the run to these checks (Judge, JudgeAll).
	only map[*Check]bool
	// checkLists holds checksFor's lists by revision: the selection is fixed for
	// the run, and each column asks for its list at every step (filtering the
	// registry each time was 3 % of a run's CPU).
	checkListsMu sync.Mutex
	checkLists   map[string][]*Check
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

type memoEntry struct {
	once  sync.Once
	value any
	// done is set once the computation has returned (T.Made).
	done atomic.Bool
	// window is the traffic the computation made (T.Once), the evidence of every
	// check that reads the value.
	window *trafficWindow
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
		col := &column{rev: r, index: len(rs.columns), results: map[string]reports.CheckResult{}}
		rs.columns = append(rs.columns, col)
		rs.planned += len(rs.checksFor(r))
	}
	return rs
}

// checksFor lists the selected checks that apply to a revision, in run order: by
// phase (Check.RunPhase), then in registry order. The list is shared: callers read it.
func (rs *runState) checksFor(r revision.Revision) []*Check {
	rs.checkListsMu.Lock()
	defer rs.checkListsMu.Unlock()
	if list, ok := rs.checkLists[r.Name]; ok {
		return list
	}
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
	if rs.checkLists == nil {
		rs.checkLists = map[string][]*Check{}
	}
	// Clipped: a caller that appends to the shared list gets a copy.
	rs.checkLists[r.Name] = slices.Clip(out)
	return rs.checkLists[r.Name]
}

// restrict limits the run to only's checks (Judge, JudgeAll), before any column
// asks for its list.
func (rs *runState) restrict(only map[*Check]bool) {
	rs.checkListsMu.Lock()
	defer rs.checkListsMu.Unlock()
	rs.only, rs.checkLists = only, nil
}

// note adds a line to the report's notes.
func (rs *runState) note(line string) {
	rs.notesMu.Lock()
	defer rs.notesMu.Unlock()
	rs.report.Notes = append(rs.report.Notes, line)
}

// once runs fn once per run for a key and returns its value.
func (rs *runState) once(t *T, key string, fn func() any) any {
	rs.memoMu.Lock()
	e, ok := rs.memo[key]
	if !ok {
		e = &memoEntry{}
		rs.memo[key] = e
	}
	rs.memoMu.Unlock()
	e.once.Do(func() {
		w := openWindow(t.col)
		defer func() { e.window = w.close() }()
		e.value = fn()
		e.done.Store(true)
	})
	t.windows = append(t.windows, e.window)
	return e.value
}

// made is key's value when a computation of it (T.Once) has returned, with its
// window added to t's evidence; ok is false while none has.
func (rs *runState) made(t *T, key string) (value any, ok bool) {
	rs.memoMu.Lock()
	e := rs.memo[key]
	rs.memoMu.Unlock()
	if e == nil || !e.done.Load() {
		return nil, false
	}
	t.windows = append(t.windows, e.window)
	return e.value, true
}
