package conform

import (
	"runtime"
	"testing"
)

// On a shared server a check that changes the log level holds that state's lock, and
// only that one: a tool-list change takes its place in the chain instead
// (TestChangeChain). On isolated targets nothing is held.
func TestPhaseGatesChange(t *testing.T) {
	tests := []struct {
		name      string
		isolated  bool
		changes   ServerState
		wantHeld  []ServerState
		wantFreed []ServerState
	}{
		{"tool list on a shared server", false, StateToolList, nil, []ServerState{StateLogLevel}},
		{"log level on a shared server", false, StateLogLevel, []ServerState{StateLogLevel}, nil},
		{"no state changed", false, "", nil, []ServerState{StateLogLevel}},
		{"isolated target", true, StateLogLevel, nil, []ServerState{StateLogLevel}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newPhaseGates(2, tt.isolated)
			unlock := g.change(&Check{ID: "X-01", Changes: tt.changes}, &column{}, onChain)
			for _, st := range tt.wantHeld {
				if g.states[st].tryAcquire("", true) {
					t.Errorf("%s: free while a check that changes it runs", st)
				}
			}
			for _, st := range tt.wantFreed {
				if !g.states[st].tryAcquire("", true) {
					t.Errorf("%s: held, though the running check changes %q", st, tt.changes)
					continue
				}
				g.states[st].release()
			}
			unlock()
			for _, st := range tt.wantHeld {
				if !g.states[st].tryAcquire("", true) {
					t.Errorf("%s: still held after the check ended", st)
				}
			}
		})
	}
}

// tryAcquire takes the hold as acquire does when that needs no wait, and reports
// whether it did.
func (h *stateHold) tryAcquire(value string, exclusive bool) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.busyFor(value, exclusive) {
		return false
	}
	h.holders++
	h.value, h.exclusive = value, exclusive
	return true
}

// A state held by value is shared by holders of the same value only: another value
// waits, an exclusive hold waits, and a value held alone keeps out every other.
func TestStateHoldByValue(t *testing.T) {
	type hold struct {
		value     string
		exclusive bool
	}
	tests := []struct {
		name string
		held hold
		try  hold
		want bool
	}{
		{"same value", hold{"error", false}, hold{"error", false}, true},
		{"another value", hold{"error", false}, hold{"debug", false}, false},
		{"exclusive over a value", hold{"error", false}, hold{"", true}, false},
		{"a value over an exclusive hold", hold{"", true}, hold{"", false}, false},
		{"exclusive over exclusive", hold{"", true}, hold{"", true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newStateHold()
			h.acquire(tt.held.value, tt.held.exclusive)
			if got := h.tryAcquire(tt.try.value, tt.try.exclusive); got != tt.want {
				t.Fatalf("held %+v, then %+v: taken %v, want %v", tt.held, tt.try, got, tt.want)
			}
			if tt.want {
				h.release()
			}
			h.release()
			if !h.tryAcquire("other", false) {
				t.Fatal("still held after every holder released it")
			}
		})
	}
}

// A hold at another value waits until every holder of the first has released it,
// and is woken then.
func TestStateHoldWaitsForEveryHolder(t *testing.T) {
	g := newPhaseGates(3, false)
	h := g.states[StateLogLevel]
	a := g.hold(StateLogLevel, "error", false)
	b := g.hold(StateLogLevel, "error", false)
	a()
	a() // a second release of the same hold is a no-op
	if h.tryAcquire("debug", false) {
		t.Fatal("debug taken while a holder of error remains")
	}
	got := make(chan struct{})
	go func() {
		release := g.hold(StateLogLevel, "debug", false)
		close(got)
		release()
	}()
	b()
	<-got
}

// The chain of tool-list changes: a check starts after the one before has ended,
// or, when it reads first, once that one has made its change; the change of a check
// that reads first still waits for the end of the one before.
func TestChangeChain(t *testing.T) {
	g := newPhaseGates(3, false)
	colA, colB, colC := &column{}, &column{}, &column{}
	doneA := g.change(&Check{ID: "A-01", Changes: StateToolList}, colA, onChain)
	started := make(chan string, 2)
	go func() {
		doneB := g.change(&Check{ID: "B-01", Changes: StateToolList, ReadsFirst: true}, colB, onChain)
		started <- "B"
		tB := &T{col: colB}
		tB.ChangeNow() // waits for A's end
		started <- "B changes"
		tB.ChangeMade()
		doneB()
	}()
	// A has not made its change: B, reading first, waits for that much.
	if colB.ticket != nil {
		t.Fatal("B started before A made its change")
	}
	(&T{col: colA}).ChangeMade()
	if got := <-started; got != "B" {
		t.Fatalf("after A's change: %s, want B to start", got)
	}
	select {
	case got := <-started:
		t.Fatalf("%s before A ended", got)
	default:
	}
	doneA()
	if got := <-started; got != "B changes" {
		t.Fatalf("after A's end: %s, want B's change", got)
	}
	// C, which does not read first, starts only once B has ended.
	doneC := g.change(&Check{ID: "C-01", Changes: StateToolList}, colC, onChain)
	if tk := colC.ticket; tk == nil || tk.prev == nil {
		t.Fatal("C holds no place after B")
	} else {
		select {
		case <-tk.prev.done:
		default:
			t.Fatal("C started before B ended")
		}
	}
	doneC()
}

// onChain puts every tool-list change check on the chain, as a column that runs
// them all does.
func onChain(c *Check) bool { return c.Changes == StateToolList }

// A change check whose column's next change check reads first takes that check's
// place in the chain with its own, right after it: another column's change that
// asks for a place meanwhile comes after both, so the listing the first keeps after
// its change is still the list when the second reads it (toolkit.Current). A check
// the column never runs takes no place, and is no reason to reserve one.
func TestChangeChainReservesTheNextReader(t *testing.T) {
	g := newPhaseGates(2, false)
	colA, colB := &column{index: 0}, &column{index: 1}
	x := &Check{ID: "X-01", Phase: PhaseStateChange, Changes: StateToolList}
	skipped := &Check{ID: "S-01", Phase: PhaseStateChange, Changes: StateToolList, ReadsFirst: true}
	y := &Check{ID: "Y-01", Phase: PhaseStateChange, Changes: StateToolList, ReadsFirst: true}
	z := &Check{ID: "Z-01", Phase: PhaseStateChange, Changes: StateToolList}
	runs := func(c *Check) bool { return c.Changes == StateToolList && c != skipped }

	colA.ahead = []*Check{skipped, y}
	doneX := g.change(x, colA, runs)
	tkX := colA.ticket
	if len(colA.reserved) != 1 {
		t.Fatalf("X reserved %d places, want 1 (for Y; S-01 never runs)", len(colA.reserved))
	}
	// B asks while X still runs: it takes the place after Y's, and waits there.
	bDone := make(chan *changeTicket)
	go func() {
		unlock := g.change(z, colB, runs)
		tk := colB.ticket
		unlock()
		bDone <- tk
	}()
	for g.toolList.lastTicket() == colA.reserved[0] {
		runtime.Gosched()
	}
	doneX()
	colA.ahead = []*Check{y}
	if unlock := g.change(skipped, colA, runs); colA.ticket != nil || len(colA.reserved) != 1 {
		t.Fatal("a check that never runs took a place")
	} else {
		unlock()
	}
	colA.ahead = nil
	doneY := g.change(y, colA, runs)
	tkY := colA.ticket
	if tkY.prev != tkX {
		t.Error("Y's place is not right after X's")
	}
	doneY()
	if tkZ := <-bDone; tkZ.prev != tkY {
		t.Error("B's change is not after Y: it could come between X's listing after and Y's before")
	}
}

// lastTicket is the chain's last place.
func (ch *changeChain) lastTicket() *changeTicket {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.last
}

// The columns take their first places in the chain in revision order, whichever
// asks first; a column with no change check to run does not hold the others up.
func TestChangeChainTurns(t *testing.T) {
	g := newPhaseGates(3, false)
	cols := []*column{{index: 0}, {index: 1}, {index: 2}}
	c := &Check{ID: "X-01", Phase: PhaseStateChange, Changes: StateToolList}
	g.passTurn(1) // column 1 has none
	taken := make(chan *changeTicket)
	go func() {
		unlock := g.change(c, cols[2], onChain) // asks first
		tk := cols[2].ticket
		unlock()
		taken <- tk
	}()
	unlock := g.change(c, cols[0], onChain)
	tk0 := cols[0].ticket
	unlock()
	if tk2 := <-taken; tk2.prev != tk0 || tk0.prev != nil {
		t.Error("column 2 took its place before column 0's")
	}
}
