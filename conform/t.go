package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// T is what a check receives: the revision under test, its sessions, and the run's
// shared probes. A T is used by one check at a time.
type T struct {
	// Ctx bounds the check; every call the check makes must use it.
	Ctx   context.Context
	Rev   revision.Revision
	Check *Check

	run     *runState
	col     *column
	opened  []*Session
	barrier bool // Scratch turned the main session's barrier on
	fresh   int  // sessions opened with NewSession
	// probing marks the run that only makes a transcript check's probes: the
	// transcripts read empty, and the verdict is discarded.
	probing bool
	// misuse says what the check touched that its declared phase does not allow;
	// Register's wrapper turns it into an error verdict.
	misuse string
	// exchangeOf, when set, gives the exchange a non-passing verdict shows instead
	// of the transcript slice since the check started (T.PreInit: the probe's own).
	exchangeOf func() *reports.Exchange
	// windows are the traffic of the probes whose results the check read: its
	// Probe's, and each T.Once computation's, wherever it ran. They are the
	// exchange of a non-passing verdict whose own run sent nothing (a transcript
	// check judged after the settle, a check reading another's memoized probe).
	windows []*trafficWindow
	// cited are the transcript entries the check named as its evidence (Cite).
	cited     map[*Session][]int
	citations int
	// drained is closed once the HTTP sessions the check opened have settled
	// (cleanup; nil when it opened none).
	drained chan struct{}
}

// maxCitations bounds a verdict's cited entries: the first few cases of a rule
// broken everywhere show it, as a message names its first five findings.
const maxCitations = 5

// Cite names entries of a session's transcript (by Seq) as the evidence of the
// check's verdict. A check that judges traffic other checks made (a transcript
// rule over every reply, an HTTP rule read from the exchange record) cites what
// broke the rule; a verdict that is not a pass then shows each cited entry with
// the request or reply it pairs with, where its own run sent nothing.
func (t *T) Cite(s *Session, seqs ...int) {
	if s == nil || s.Conn == nil || len(seqs) == 0 {
		return
	}
	if t.cited == nil {
		t.cited = map[*Session][]int{}
	}
	for _, seq := range seqs {
		if seq > 0 && t.citations < maxCitations { // 0: a caller's "not in the transcript"
			t.cited[s] = append(t.cited[s], seq)
			t.citations++
		}
	}
}

// misused records what the check touched that it does not declare, the first time.
// A misuse in the probe pass of a transcript check (T.Once's probe, made once) is
// kept on the column, so that the judging run, which makes no probe, reports it too.
func (t *T) misused(what string) {
	if t.misuse != "" {
		return
	}
	t.misuse = what
	if t.probing && t.col != nil {
		t.col.mu.Lock()
		if t.col.probeMisuse == nil {
			t.col.probeMisuse = map[string]string{}
		}
		t.col.probeMisuse[t.Check.ID] = what
		t.col.mu.Unlock()
	}
}

// misuseFound is the check's misuse in this run, or in its probe pass.
func (t *T) misuseFound() string {
	if t.misuse != "" || t.col == nil {
		return t.misuse
	}
	t.col.mu.Lock()
	defer t.col.mu.Unlock()
	return t.col.probeMisuse[t.Check.ID]
}

// allow records a misuse unless the check declared phase p.
func (t *T) allow(p Phase, what string) {
	if t.Check.Phase != p {
		t.misused(fmt.Sprintf("%s %s, which only a check of phase %s may, and declares phase %s", t.Check.ID, what, p, t.Check.Phase))
	}
}

// Session is the revision's main session, opened before the checks ran. For
// Handshake checks it may be unsupported or refused: see InitErr and Negotiated.
func (t *T) Session() *Session { return t.col.main }

// ColumnErr is why the revision's main session could not be opened (nil if it was).
func (t *T) ColumnErr() error { return t.col.err }

// CallSpec names a tool and, optionally, its arguments (JSON object).
type CallSpec struct {
	Name string
	Args json.RawMessage // nil: build them from the tool's inputSchema
}

// Options are the run settings checks may read.
type Options struct {
	Calls       []CallSpec
	TriggerTool *CallSpec
	TriggerCmd  string
	MaxPages    int
	Reads       []string // --read: the resource URIs to read (RES-READ-*)
	Strict      bool
	Dir         string // working directory for --trigger-cmd (the launched server's --cwd)
}

// Options returns the run settings that govern what checks may do.
func (t *T) Options() Options {
	c := t.run.cfg
	return Options{Calls: c.Calls, TriggerTool: c.TriggerTool, TriggerCmd: c.TriggerCmd, MaxPages: c.MaxPages, Reads: c.Reads, Strict: c.Strict, Dir: c.Cwd}
}

// Timeout is the per-request deadline (--timeout).
func (t *T) Timeout() time.Duration { return t.run.cfg.Timeout }

// NewSession opens a session of the check's own for this revision, closed when the
// check returns. It is the exception, for probes that truly need isolation (a check
// declares how many, Check.FreshSessions): it costs a server process on stdio. It is
// opened when asked, or, the first one of a check whose Check.FreshAhead said so,
// when the column's main session opened.
func (t *T) NewSession() (*Session, error) {
	t.fresh++
	if t.fresh > t.Check.FreshSessions {
		t.misused(fmt.Sprintf("%s opens %d session(s) of its own (T.NewSession) and declares FreshSessions: %d", t.Check.ID, t.fresh, t.Check.FreshSessions))
	}
	if t.fresh == 1 {
		if s, err, ok := t.run.claimPreOpened(t.Ctx, t.col, freshKey(t.Rev, t.Check)); ok {
			return t.keep(s, err, t.Rev.Name)
		}
	}
	return t.OpenSession(t.Rev.Name)
}

// Scratch returns the session for probes that send odd or malformed input: the
// revision's main session. Checks that use it run after every check that needs a
// clean session (PhaseOddInput), so a server that falls over on such input loses only
// the checks left, and the report says where. During the check, a request that gets
// no reply is proven unanswered with a barrier (wire.Conn.SetBarrier) instead of
// waiting out the timeout.
func (t *T) Scratch() (*Session, error) {
	t.allow(PhaseOddInput, "sends odd input (T.Scratch)")
	s := t.col.main
	if s == nil || s.Conn == nil {
		return s, fmt.Errorf("no session for %s: %v", t.Rev.Name, t.col.err)
	}
	if err := s.Conn.Err(); err != nil {
		return s, fmt.Errorf("the session for %s has ended: %w", t.Rev.Name, err)
	}
	if !t.barrier {
		t.barrier = true
		s.Conn.SetBarrier(true)
	}
	return s, nil
}

// ProveSilence ends the window of a stray probe just sent on s, one owed a reply the
// server may not send, with a barrier request (Session.Barrier), and records when
// that was answered. The probe's silence is proven later, when the column settles
// (Session.Settle): a reply that trails the barrier's (some SDKs answer pipelined
// requests out of order) still has wire.GraceAfter the barrier's round trip to
// arrive, counted from here
// while the column goes on, so the grace overlaps the column's other work instead
// of each probe's waiting it out in turn. complete, when set, is asked once the
// barrier's reply is in: true (every reply the probe expects has come) leaves no
// silence to prove, and nothing is recorded, as wire.Conn.Flush ends at once then.
// Nor is anything recorded where the answers themselves prove it
// (wire.Conn.RepliesSettled: on Streamable HTTP each reply comes in its own POST's
// answer, and every answer has ended): no reply can trail there, so the next stray
// probe on s starts its window at once. Only a check that declares SilenceProbe may.
func (t *T) ProveSilence(s *Session, complete func() bool) error {
	if !t.Check.SilenceProbe {
		t.misused(fmt.Sprintf("%s proves a silence at the settle (T.ProveSilence) and does not declare SilenceProbe", t.Check.ID))
	}
	if err := s.Barrier(t.Ctx); err != nil {
		return err
	}
	if complete != nil && complete() {
		return nil
	}
	if s.Conn.RepliesSettled(t.Ctx) {
		return nil
	}
	s.barrierMu.Lock()
	s.strayProven, s.strayGrace = time.Now(), wire.GraceAfter(s.barrierRTT)
	s.barrierMu.Unlock()
	return nil
}

// OweReply records, for a request sent on s with wire.Conn.CallRawOwed whose reply
// was not in when its barrier's was (err, an owed wire.BarrierError), that the reply
// may still come within the error's grace: the session's settle waits that long
// before it ends the traffic, and the check reads the reply, if one came, by its id
// (wire.Conn.OwedReply) once the column has settled. Any other err is left alone.
// Only a transcript check's Probe may: its Run is what is judged after the settle.
// It need not be a SilenceProbe, made after the other probes: a reply that carries
// its request's id is no other probe's, so the grace overlaps the probes after it.
func (t *T) OweReply(s *Session, err error) {
	var be *wire.BarrierError
	if !errors.As(err, &be) || !be.Owed {
		return
	}
	if !t.probing {
		t.misused(fmt.Sprintf("%s leaves a reply to prove absent at the settle (T.OweReply) outside a transcript check's Probe", t.Check.ID))
	}
	until := time.Now().Add(be.Grace)
	s.barrierMu.Lock()
	if until.After(s.owedUntil) {
		s.owedUntil = until
	}
	s.barrierMu.Unlock()
}

// SpareSession is the revision's session for probes that may end it (unparseable
// input, invalid requests, batches). Over stdio it is the main session, as the
// odd-input checks that use it run last (Check.Spare): after the column's other
// checks and the transcript checks' probes that need the main session, so a server
// that ends the session over such input costs no other check its session, and one
// that survives it costs no process of its own. Over HTTP it is a session of its
// own, opened on first use. Either is opened again only when the server has ended
// it: a server that dies on bad input pays for those reopenings, and only those.
// Only odd-input checks that declare Spare may use it, and transcript-wide checks
// while they make their probes (T.Once): those are judged after the column settles,
// when everything the server sent on it is in, so a probe owed no reply is proven
// silent by the settle rather than by a grace period. Its traffic is in the
// revision's transcript.
func (t *T) SpareSession() (*Session, error) {
	if !(t.probing && t.Check.Phase == PhaseTranscript) {
		t.allow(PhaseOddInput, "uses the spare session (T.SpareSession) outside a transcript check's probe pass")
	}
	if !t.Check.Spare {
		t.misused(fmt.Sprintf("%s uses the spare session (T.SpareSession) and does not declare Spare", t.Check.ID))
	}
	t.col.mu.Lock()
	s := t.col.spare
	if s == nil && t.run.tgt.isolated() {
		s = t.col.main
		t.col.spare = s
	}
	t.col.mu.Unlock()
	// A server may end its connection a moment after it answered odd input (the Go
	// SDK writes its error, then exits): before the session takes the next probe, a
	// request round trip shows it still serving (free while the reply to a ping sent
	// last stands, wire.Conn.Standing: a wire.Conn.Flush's barrier, which
	// also waited out its grace, stands too). A probe sent to a dying process would
	// read its end as its own.
	if s != nil && s.Conn != nil && s.Conn.Err() == nil && s.Barrier(t.Ctx) == nil {
		return s, nil
	}
	s, err := t.run.openSpare(t.Ctx, t.col)
	t.col.mu.Lock()
	t.col.spare = s
	t.col.mu.Unlock()
	if err != nil {
		return s, fmt.Errorf("open the spare session: %w", err)
	}
	return s, nil
}

// SpareIsMain reports whether SpareSession gives the main session while it lasts: on
// a target of a process per session (stdio), where the odd-input probes that may end
// a session come last on the main one.
func (t *T) SpareIsMain() bool { return t.run.tgt.isolated() }

// OpenSession opens a fresh session asking for any protocolVersion (for negotiation
// probes). Its traffic counts towards this revision's transcript-wide checks. It is
// closed when the check returns.
func (t *T) OpenSession(requested string) (*Session, error) {
	s, err, ok := t.run.claimPreOpened(t.Ctx, t.col, requested)
	if !ok {
		s, err = t.run.openSession(t.Ctx, t.col, requested)
	}
	return t.keep(s, err, requested)
}

// keep records a session the check opened (closed when it returns) and says which
// version it asked for when the opening failed.
func (t *T) keep(s *Session, err error, requested string) (*Session, error) {
	if s != nil {
		t.opened = append(t.opened, s)
	}
	if err != nil {
		return s, fmt.Errorf("open a session asking for %s: %w", requested, err)
	}
	return s, nil
}

// Sessions returns every session of this revision so far (main and fresh ones), for
// the transcript-wide checks (PhaseTranscript), which read their transcripts with
// T.Transcript: only after every probe of the revision do they see all its traffic.
func (t *T) Sessions() []*Session {
	t.allow(PhaseTranscript, "reads every session of the revision (T.Sessions)")
	if t.probing {
		return nil
	}
	t.col.mu.Lock()
	defer t.col.mu.Unlock()
	var out []*Session
	for _, s := range t.col.sessions {
		if s != nil && s.Conn != nil {
			out = append(out, s)
		}
	}
	return out
}

// Stopped returns the revision's sessions that the run itself ended when the column
// settled, for the stdio shutdown checks (PhaseTranscript), which judge how each
// process met the end of its input: over stdio the main session, and the spare
// session when the server had ended the main one and it was opened again, main
// first. A session the server had ended itself is not among them, nor one still
// open over HTTP (the settle keeps the main session of an ordered channel).
func (t *T) Stopped() []*Session {
	t.allow(PhaseTranscript, "reads the sessions the settle stopped (T.Stopped)")
	if t.probing {
		return nil
	}
	t.col.mu.Lock()
	defer t.col.mu.Unlock()
	return slices.Clone(t.col.stopped)
}

// Transcript returns every entry of a session's transcript so far, for the
// transcript-wide checks (PhaseTranscript). A check of another phase reads only the
// traffic of its own probes (wire.Conn.Received since a mark).
func (t *T) Transcript(s *Session) []wire.Entry {
	t.allow(PhaseTranscript, "reads a whole transcript (T.Transcript)")
	if t.probing || s == nil || s.Conn == nil {
		return nil
	}
	entries, _ := s.Conn.Transcript()
	return entries
}

// StateChanged records that the check changed server state st (a trigger fired to
// change the tool list), so that a listing made before it is not taken for the
// state after it (StateGeneration).
func (t *T) StateChanged(st ServerState) {
	t.run.memoMu.Lock()
	defer t.run.memoMu.Unlock()
	if t.run.changes == nil {
		t.run.changes = map[string]int{}
	}
	t.run.changes[t.stateScope(st)]++
}

// StateGeneration is how many changes of server state st the check's sessions can
// have seen (T.StateChanged): a listing made at the same generation shows the state
// as it is now. On a shared server every revision's changes count; on isolated ones
// (stdio: a process per revision) only the revision's own.
func (t *T) StateGeneration(st ServerState) int {
	t.run.memoMu.Lock()
	defer t.run.memoMu.Unlock()
	return t.run.changes[t.stateScope(st)]
}

// HoldState holds the check's state (Check.Changes) at value until the returned
// release, for a check that declares HoldsByValue: on a shared server, revisions
// that hold it at another value wait, and those that set the same value run
// beside this one. The check sets the state only while it holds it at the value
// it sets. On isolated targets (stdio) it holds nothing. Release may be called
// more than once.
func (t *T) HoldState(value string) (release func()) {
	if !t.Check.HoldsByValue {
		t.misused("HoldState without HoldsByValue")
		return func() {}
	}
	if t.run.gates == nil {
		return func() {}
	}
	return t.run.gates.hold(t.Check.Changes, value, false)
}

// ChangeNow waits, on a shared server, until the check before this one in the
// chain of tool-list changes has ended, so that a change made now is seen by no
// listing of that check (Check.ReadsFirst). The trigger calls it before it changes
// the list; elsewhere it returns at once.
func (t *T) ChangeNow() {
	if tk := t.ticket(); tk != nil {
		tk.awaitPrevDone()
	}
}

// ChangeMade records that the check has made its change of the tool list: the
// next change check may start reading. The trigger calls it once it has fired.
func (t *T) ChangeMade() {
	if tk := t.ticket(); tk != nil {
		tk.markMade()
	}
}

// ReaderAhead reports whether the next check of the column that changes state st
// reads first (Check.ReadsFirst): a listing this check makes after its own change
// is then, while no other change comes in between (StateGeneration), that check's
// listing before its change, and worth keeping for it. At 10,000 tools it is a walk
// of 101 pages on the longest chain of a shared server's run.
func (t *T) ReaderAhead(st ServerState) bool {
	if t.col == nil {
		return false
	}
	t.col.mu.Lock()
	defer t.col.mu.Unlock()
	for _, c := range t.col.ahead {
		if c.Changes == st {
			return c.ReadsFirst
		}
	}
	return false
}

func (t *T) ticket() *changeTicket {
	if t.col == nil {
		return nil
	}
	t.col.mu.Lock()
	defer t.col.mu.Unlock()
	return t.col.ticket
}

// stateScope is the key of st's changes: the server's on a shared one, the
// revision's on isolated ones.
func (t *T) stateScope(st ServerState) string {
	if t.run.tgt.isolated() {
		return string(st) + "@" + t.Rev.Name
	}
	return string(st)
}

// Once runs fn once per run for key (across revisions) and returns its value: for
// probes whose answer does not depend on the revision under test.
func (t *T) Once(key string, fn func() any) any { return t.run.once(t, key, fn) }

// Made is the value of key's T.Once when a computation of it has returned, without
// making one: for a probe that another check may have made already, as part of its
// own (toolkit.SendStrayRun), and that is made on its own otherwise.
func (t *T) Made(key string) (value any, ok bool) { return t.run.made(t, key) }

// Runs reports whether this revision's run includes the check id and can run it
// (selected, for the revision, on this transport and session): a probe shared by
// several checks (T.Once) sends only what the checks that run will judge.
func (t *T) Runs(id string) bool {
	for _, c := range t.run.checksFor(t.Rev) {
		if c.ID == id {
			return t.run.neverRuns(t.col, c) == nil
		}
	}
	return false
}

// Supports reports whether the server supports a protocol version: it echoed it when
// asked, in this run. A version no column asked for is probed with a fresh session.
func (t *T) Supports(version string) (bool, error) {
	for _, col := range t.run.columns {
		if col.rev.Name == version && col.main != nil && col.main.InitErr == nil {
			return col.main.Negotiated == version, nil
		}
	}
	type answer struct {
		ok  bool
		err error
	}
	a := t.Once("supports:"+version, func() any {
		s, err := t.run.openSession(t.Ctx, t.col, version)
		if s != nil {
			defer s.Close(context.WithoutCancel(t.Ctx))
		}
		if err != nil {
			if _, isRPC := refused(err); isRPC {
				return answer{ok: false}
			}
			return answer{err: err}
		}
		return answer{ok: s.Negotiated == version}
	}).(answer)
	return a.ok, a.err
}

// RevisionsAsked lists the revisions this run asked for, with what the server answered.
func (t *T) RevisionsAsked() map[string]string {
	out := map[string]string{}
	for _, col := range t.run.columns {
		if col.main != nil {
			out[col.rev.Name] = col.main.Negotiated
		}
	}
	return out
}

// cleanup settles the sessions the check opened, as the column's are when it
// settles: over Streamable HTTP the DELETE, then the streams read to their end, so
// that what the server wrote on them is in the transcripts the check's evidence and
// the transcript checks read (Close alone cut a GET stream off mid-flight). A
// launched server's session (stdio) is settled before the check ends: its process
// exits, and is reaped, before the next one starts. The HTTP sessions settle while
// the column goes on, as that is waiting on the server's streams alone (a server
// that keeps its GET stream open after a DELETE it accepted costs
// transport.TrailGrace there); whoever reads their traffic whole waits for it
// (awaitDrained, and the column's settle).
func (t *T) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*t.run.cfg.KillGrace+time.Second)
	var background []*Session
	for _, s := range t.opened {
		if s.Conn != nil && !launched(s) {
			background = append(background, s)
			continue
		}
		s.Settle(ctx, true)
	}
	if t.barrier && t.col.main != nil && t.col.main.Conn != nil {
		t.col.main.Conn.SetBarrier(false)
	}
	if len(background) == 0 {
		cancel()
		return
	}
	t.drained = make(chan struct{})
	t.col.mu.Lock()
	if t.col.draining == nil {
		t.col.draining = map[*Session]<-chan struct{}{}
	}
	for _, s := range background {
		t.col.draining[s] = t.drained
	}
	t.col.mu.Unlock()
	go func() {
		defer close(t.drained)
		defer cancel()
		var wg sync.WaitGroup
		for _, s := range background {
			wg.Go(func() { s.Settle(ctx, true) })
		}
		wg.Wait()
	}()
}

// awaitDrained waits until the sessions the check opened have settled (cleanup).
func (t *T) awaitDrained() {
	if t.drained != nil {
		<-t.drained
	}
}
