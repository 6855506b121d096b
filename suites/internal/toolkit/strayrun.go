package toolkit

import (
	"fmt"
	"slices"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// RunProbe is one probe of a stray run (SendStrayRun): bytes sent as they are.
type RunProbe struct {
	// Part names the check's share of the run (StrayRun.Part): the probes of one
	// part are consecutive.
	Part string
	Raw  []byte
	// IDs are the ids of the requests inside Raw, none for input whose id cannot be
	// read: a reply that carries one is this probe's wherever it arrives.
	IDs []wire.ID
	// Batch marks an array: a reply inside an array, in its window, is its.
	Batch bool
	// Joins puts the probe in the stray window of the probe before it
	// (conform.Session.MarkStray), as SendStrayEach's probes share one: the window
	// a later reader of the transcript sees. Replies are placed probe by probe all
	// the same.
	Joins bool
	// Complete reports whether the replies, this probe's so far, are all it is
	// owed: once every probe's are, no silence is left to prove.
	Complete func(replies []wire.Entry) bool
	// Window marks a part of one probe that is judged from its window after the
	// settle (StrayRun.Window), as ProbeBeforeSettle's are: a reply the transcript
	// lost there, with every earlier probe of its stage answered, is its (its
	// window reads it as not verified), and leaves the other parts theirs.
	Window bool
	// NullID marks a request with "id": null: a lost reply of null id that carried
	// a result (wire.Conn.DroppedIDlessResultsIn) is its, whatever is still owed
	// before it, since every other stray input is refused with an error.
	NullID bool
	// Settles ends a stage of the run: before the next probe goes out, every
	// probe so far has the replies it is owed or its silence is proven by the
	// grace, as one at a time proves it. A probe after it that ends the session
	// then leaves their parts theirs (no late reply of theirs can have died with
	// it), and a reply after it is read as no earlier probe's, as one at a time
	// reads a reply that comes after its probe's grace.
	Settles bool
}

// StrayRun is what SendStrayRun's probes got, part by part.
type StrayRun struct {
	probes  []RunProbe
	answers []StrayAnswer
	windows []StrayProbe // each sent probe's window, for a part judged after the settle
	ok      []bool       // the probe's answer can be read as its own (Part)
	sent    int          // how many of the probes the run sent
}

// Part is the answers of the part's probes, in their order, and whether they are
// theirs: false when the part was not sent, or when its replies could not be told
// from another probe's; the check then makes its probes on its own, one at a time.
// A part whose first probe ended the session has that one answer, with the end as
// Err (the answer one at a time gives it), and ok.
func (r *StrayRun) Part(name string) (answers []StrayAnswer, ok bool) {
	if r == nil {
		return nil, false
	}
	for i, p := range r.probes {
		if p.Part != name || i >= len(r.ok) || !r.ok[i] {
			continue
		}
		answers = append(answers, r.answers[i])
	}
	return answers, len(answers) > 0
}

// Sent reports whether the run sent the part's probes: a part sent and not ok had
// a reply that could not be placed, which the same probes sharing a window again
// would not place either.
func (r *StrayRun) Sent(name string) bool {
	if r == nil {
		return false
	}
	i := slices.IndexFunc(r.probes, func(p RunProbe) bool { return p.Part == name })
	return i >= 0 && (i < r.sent || i < len(r.ok) && r.ok[i])
}

// window is the part's first probe and its StrayProbe, for a part judged after the
// column settles (its window runs on until the next stray probe's).
func (r *StrayRun) window(name string) (RunProbe, StrayProbe, bool) {
	if r == nil {
		return RunProbe{}, StrayProbe{}, false
	}
	for i, p := range r.probes {
		if p.Part == name && i < len(r.ok) && r.ok[i] && i < len(r.windows) {
			return p, r.windows[i], true
		}
	}
	return RunProbe{}, StrayProbe{}, false
}

// Window is the window of a part of one probe (RunProbe.Window) that the run gave
// its answer: judge it after the column settles with StrayProbe.SettledFor, as a
// probe made alone with ProbeBeforeSettle.
func (r *StrayRun) Window(name string) (StrayProbe, bool) {
	_, w, ok := r.window(name)
	return w, ok
}

// SendStrayRun sends probes back to back on s, a barrier after each showing the
// server still serving, and proves every silence with one grace after the last,
// where the probes one at a time wait out a grace each (server-everything, silent
// on all of them, paid four 200 ms graces a revision). A reply is placed by what
// can only be one probe's: the id of a request inside it; an array, in a batch's
// window; otherwise the probe sent last before it arrived, as long as no probe sent
// earlier still lacks a reply it is owed (a late reply of that one could be this):
// the window one at a time would have put it in. A reply that could be one of
// several probes' leaves their parts to be made again one at a time (after the
// grace, so that nothing late of this run lands in their new windows), and the
// others keep their answers; a reply with the id of none of them, an array outside
// the batch's window, or a transcript that dropped a possible reply leaves every
// part to be made again. A session that ends over a probe (its barrier goes
// unanswered) leaves the parts before it theirs when each of their probes has its
// replies (a silence there had no grace), and the part it opens the one answer one
// at a time gives it, with the end as Err; a part it ended part-way, and a batch,
// are made again.
// A duplicate reply to a probe that had its reply is read as the window's it came
// in, as one at a time reads a reply that comes after its probe's grace. Over HTTP
// each POST answers for itself and no grace is waited: nothing is sent.
func SendStrayRun(t *conform.T, s *conform.Session, probes []RunProbe) *StrayRun {
	r := &StrayRun{probes: probes}
	if s == nil || s.Conn == nil || len(probes) == 0 {
		return r
	}
	if _, isHTTP := s.Conn.Transport().(transport.HTTPSession); isHTTP {
		return r
	}
	barrierOnly := func() bool { return true }
	seqs := make([]int, 0, len(probes))     // the transcript's seq before each send
	win := make([]int, 0, len(probes))      // the window each probe is in (its first probe's index)
	closedAt := make([]int, 0, len(probes)) // how many probes had their silence proven (Settles) before each send
	closed := 0
	failed := -1           // the probe whose send or barrier failed
	var ended *StrayAnswer // its answer, when it opens its part
	placed := func(n int) replyPlaces { return placeReplies(s, probes[:n], seqs[:n], win[:n], closedAt[:n]) }
	// windowEnd is where probe i's window ends: the next probe's send (0: not yet).
	windowEnd := func(i int) int {
		if i+1 < len(seqs) {
			return seqs[i+1]
		}
		return 0
	}
	// allIn reports whether each of the first n probes whose silence no stage has
	// proven yet has the replies it is owed, every reply placed.
	allIn := func(n int) func() bool {
		return func() bool {
			pl := placed(n)
			if pl.dirty || len(pl.tainted) > 0 {
				return false
			}
			for i := closed; i < n; i++ {
				if !probes[i].Complete(pl.per[i]) && !(probes[i].Window && s.Conn.DroppedIDlessRepliesIn(seqs[i], windowEnd(i)) > 0) {
					return false
				}
			}
			return true
		}
	}
	// silentSince reports whether probes from up to n drew no reply at all, none
	// lost either, their windows' own answers included: a stage that a server left
	// wholly unanswered (server-everything, the Go SDK on 2025-03-26's batch) proves
	// nothing by ending before the next one, whose probes then share its grace. If a
	// later probe ends the session the stage's parts are made again (OddTail), on the
	// process a server that ends every session over those probes needs next anyway.
	silentSince := func(from, n int) bool {
		pl := placed(n)
		if pl.dirty || len(pl.tainted) > 0 {
			return false
		}
		for j := from; j < n; j++ {
			if len(pl.per[j]) > 0 || len(r.windows[j].Answer.Replies) > 0 {
				return false
			}
			if d, unsure := s.Conn.DroppedRepliesIn(seqs[j], windowEnd(j)); d > 0 || unsure {
				return false
			}
		}
		return true
	}
	for i, p := range probes {
		closedAt = append(closedAt, closed)
		w := StrayProbe{s: s, after: s.Conn.Seq()}
		opens := i == 0 || probes[i-1].Part != p.Part
		if i > 0 && p.Joins {
			win = append(win, win[i-1])
			if err := s.Conn.SendRaw(t.Ctx, p.Raw); err != nil {
				seqs, failed = append(seqs, w.after), i
				break
			}
		} else {
			w = SendUnsettled(t, s, p.Raw)
			win = append(win, i)
			if w.Answer.Err != nil {
				seqs, failed = append(seqs, w.after), i
				if opens && !p.Batch {
					ended = &w.Answer
				}
				break
			}
		}
		seqs = append(seqs, w.after)
		r.windows = append(r.windows, w)
		enough := barrierOnly
		unstaged := false // the stage drew no reply at all: its silences go on to the last grace
		if p.Settles && i < len(probes)-1 {
			stageIn := allIn(i + 1)
			enough = func() bool {
				if silentSince(closed, i+1) {
					unstaged = true
					return true
				}
				return stageIn() // the stage's grace, unless every reply is in
			}
		}
		if err := s.Conn.Flush(t.Ctx, enough); err != nil {
			failed = i
			switch {
			case opens && p.Window && conform.Gone(err):
				// Judged from its window after the settle: the end is its
				// outcome there, as ProbeBeforeSettle records it.
				r.windows[i].ended = fmt.Errorf("the request after the probe: %w", err)
				ended = &r.windows[i].Answer
			case opens && !p.Batch && !p.Window:
				// The session ended over the part's first probe: its answer, as
				// one at a time gives it.
				a := w.Answer
				a.Err = err
				ended = &a
			}
			break
		}
		if p.Settles && !unstaged {
			closed = i + 1
		}
	}
	r.sent = len(r.windows)
	if failed == 0 && ended != nil {
		r.answers, r.ok = []StrayAnswer{*ended}, []bool{true}
		return r
	}
	sent := r.sent
	if sent == 0 {
		return r
	}
	if failed < 0 {
		// One grace for every probe of the last stage, unless every reply is in
		// and placed: a part made again needs the grace too, so that nothing late
		// of this run lands in its new window.
		if err := s.Conn.Flush(t.Ctx, allIn(sent)); err != nil {
			return r
		}
	}
	pl := placed(sent)
	if pl.dirty {
		return r
	}
	// A reply the transcript did not keep could be any probe's, and every part
	// is made again; but in the window of a part judged from its window, with
	// every earlier probe of its stage answered, it can only be its own, and that
	// window reads it as not verified.
	for i := range sent {
		n, unsure := s.Conn.DroppedRepliesIn(seqs[i], windowEnd(i))
		if n == 0 && !unsure {
			continue
		}
		if !probes[i].Window {
			return r
		}
		if probes[i].NullID && n == s.Conn.DroppedIDlessResultsIn(seqs[i], windowEnd(i)) {
			continue // results of null id: its own
		}
		for j := closedAt[i]; j < i; j++ {
			if !probes[j].Complete(pl.per[j]) {
				return r
			}
		}
	}
	// After a failed probe the parts whose windows closed before its window opened
	// are theirs, each whole, when each of their probes has the replies it is owed:
	// a silence had no grace, and a server that ended the session over a later
	// probe may have dropped a late reply with it, so a part still owed one is
	// made again. The failed probe's part has its answer when the probe opened it
	// (ended).
	keep := sent
	if failed >= 0 {
		keep = slices.Index(win, win[failed])
		for keep > 0 && probes[keep].Part == probes[keep-1].Part {
			keep--
		}
		for i := closedAt[failed]; i < keep; i++ {
			if !probes[i].Complete(pl.per[i]) {
				pl.tainted[probes[i].Part] = true
			}
		}
	}
	r.answers, r.ok = make([]StrayAnswer, len(probes)), make([]bool, len(probes))
	for i := range keep {
		if pl.tainted[probes[i].Part] {
			continue
		}
		var a StrayAnswer
		if win[i] == i {
			a = r.windows[i].Answer
			a.Replies = slices.Clone(a.Replies)
		}
		for _, e := range pl.per[i] {
			a.Replies = append(a.Replies, e.Msg)
			if e.InBatch {
				a.Arrays++
			}
		}
		r.answers[i], r.ok[i] = a, true
	}
	if ended != nil && keep == failed && !pl.tainted[probes[failed].Part] {
		r.answers[failed], r.ok[failed] = *ended, true
	}
	return r
}

// replyPlaces are the stray replies of a run placed probe by probe (placeReplies).
type replyPlaces struct {
	per [][]wire.Entry // per[i] are probe i's, in arrival order
	// tainted are the parts a reply may be of that could not be placed: each is
	// made again, and the others keep their answers.
	tainted map[string]bool
	// dirty is set when a reply could be any probe's (an id of none of them, an
	// array outside a batch's window): every part is made again.
	dirty bool
}

// placeReplies places the stray replies that arrived since the first probe's send
// (SendStrayRun).
func placeReplies(s *conform.Session, probes []RunProbe, seqs, win, closedAt []int) replyPlaces {
	pl := replyPlaces{per: make([][]wire.Entry, len(probes)), tainted: map[string]bool{}}
	owner := map[string]int{}
	for i, p := range probes {
		for _, id := range p.IDs {
			owner[id.Key()] = i
		}
	}
	for e := range eachStray(s, seqs[0]) {
		hasID := !e.Msg.ID.IsZero() && !e.Msg.ID.IsNull()
		// k is the probe whose window the reply arrived in: the last one sent
		// before it.
		k := 0
		for i := range seqs {
			if seqs[i] < e.Seq {
				k = i
			}
		}
		switch {
		case hasID:
			j, known := owner[e.Msg.ID.Key()]
			if !known {
				pl.dirty = true
				return pl
			}
			pl.per[j] = append(pl.per[j], e)
			if win[j] != win[k] {
				// Its probe's window is read on its own (a batch's, after the
				// settle), and so is this one.
				pl.tainted[probes[j].Part], pl.tainted[probes[k].Part] = true, true
			}
		case e.InBatch:
			if !probes[k].Batch {
				pl.dirty = true
				return pl
			}
			pl.per[k] = append(pl.per[k], e)
		default:
			mine := true
			for j := closedAt[k]; j < k; j++ {
				if !probes[j].Complete(pl.per[j]) {
					pl.tainted[probes[j].Part], mine = true, false // a late reply of probe j's could be this
				}
			}
			if !mine {
				pl.tainted[probes[k].Part] = true
			}
			pl.per[k] = append(pl.per[k], e)
		}
	}
	return pl
}

// oddTailKey is the T.Once key of a revision's odd tail (OddTail).
func oddTailKey(rev string) string { return "odd-tail:" + rev }

// OddTail makes a revision's last odd-input probes as one stray run (SendStrayRun),
// once, on the spare session while it is the main one (over stdio, where those checks
// run last, T.SpareSession). The probes a server may leave unanswered and go on
// serving (quiet) take the two ends: MixedBatch's batch first, when a check that
// judges it runs (it is judged after the settle, from its window), then the others
// (loud: the unparseable line, the invalid requests), and the rest of the quiet ones
// last (the null-id request). The batch goes first because a server that does not
// read arrays answers it at once with one error of id null (mcp-go), which after a
// probe still owed its reply could be that probe's, and both would be made again;
// the null-id request goes last because the loud probes draw errors of id null
// (mcp-go answers the line and `"method": 42` so) that its late reply could be. The
// batch's stage ends with a grace when it was answered in part; one it drew no reply
// to at all shares the last grace (server-everything, silent on every probe, waits
// one grace a revision). A server that ends the session over a loud probe (the Go
// SDK does over the unparseable line) leaves the quiet parts not yet proven to be
// made again together, on the session it needs next anyway. probes gives the probes
// of the odd-input checks that run, each check passing the same function. Elsewhere,
// or when the spare session is another, nothing is sent and every part reads not ok.
func OddTail(t *conform.T, probes func(s *conform.Session) (quiet, loud []RunProbe)) *StrayRun {
	return t.Once(oddTailKey(t.Rev.Name), func() any {
		s, err := t.SpareSession()
		if err != nil || s != t.Session() {
			return (*StrayRun)(nil)
		}
		last, loud := probes(s)
		var first []RunProbe
		if slices.ContainsFunc(mixedBatchChecks, t.Runs) {
			if bp, err := batchProbe(t, s); err == nil {
				first = []RunProbe{bp}
			}
		}
		if len(first) > 0 && len(loud)+len(last) > 0 {
			first[len(first)-1].Settles = true
		}
		quiet := append(slices.Clone(first), last...)
		r := SendStrayRun(t, s, slices.Concat(first, loud, last))
		// The quiet parts the run could not give their answers (a later probe
		// ended the session while their silence was owed a grace, or a reply could
		// not be placed) are made again now, together, on the spare session (a new
		// one when the server ended this): before the loud parts, which their checks
		// make again one at a time, so that a server that ends every session over
		// those (the Go SDK) pays no process more for them.
		var missing []string
		for _, q := range quiet {
			if _, ok := r.Part(q.Part); !ok {
				missing = append(missing, q.Part)
			}
		}
		if len(missing) == 0 || t.Ctx.Err() != nil {
			return r
		}
		// In their order, with one grace for their silences, as in the tail.
		s2, err := t.SpareSession()
		if err != nil {
			return r
		}
		var again []RunProbe // the checks' probes on s2, built once a part needs them
		built := false
		var remade []RunProbe
		for _, name := range missing {
			if name == "batch" {
				if bp, err := batchProbe(t, s2); err == nil {
					remade = append(remade, bp)
				}
				continue
			}
			if !built {
				again, _ = probes(s2)
				built = true
			}
			if i := slices.IndexFunc(again, func(p RunProbe) bool { return p.Part == name }); i >= 0 {
				remade = append(remade, again[i])
			}
		}
		if len(remade) == 0 {
			return r
		}
		run := SendStrayRun(t, s2, remade)
		for _, name := range missing {
			r.adopt(name, run)
		}
		return r
	}).(*StrayRun)
}

// adopt takes the answer of a run that made part name again (OddTail) as
// the part's: its probe (a batch's ids are new), its answer, its window, and whether
// it is the part's own.
func (r *StrayRun) adopt(name string, again *StrayRun) {
	i := slices.IndexFunc(r.probes, func(p RunProbe) bool { return p.Part == name })
	j := slices.IndexFunc(again.probes, func(p RunProbe) bool { return p.Part == name })
	if i < 0 || j < 0 || j >= len(again.ok) || !again.ok[j] || j >= len(again.windows) {
		return
	}
	n := len(r.probes)
	if len(r.answers) < n {
		r.answers = append(r.answers, make([]StrayAnswer, n-len(r.answers))...)
	}
	if len(r.ok) < n {
		r.ok = append(r.ok, make([]bool, n-len(r.ok))...)
	}
	if len(r.windows) < n {
		r.windows = append(r.windows, make([]StrayProbe, n-len(r.windows))...)
	}
	r.probes = slices.Clone(r.probes) // the caller's list is not changed
	r.probes[i] = again.probes[j]
	r.answers[i], r.ok[i], r.windows[i] = again.answers[j], true, again.windows[j]
}

// tailBatch is MixedBatch's probe when the revision's odd tail made it (OddTail).
func tailBatch(t *conform.T) (BatchProbe, bool) {
	v, made := t.Made(oddTailKey(t.Rev.Name))
	r, _ := v.(*StrayRun)
	if !made || r == nil {
		return BatchProbe{}, false
	}
	p, w, ok := r.window("batch")
	if !ok {
		return BatchProbe{}, false
	}
	return BatchProbe{IDs: p.IDs, Answer: w.Answer, sent: w}, true
}
