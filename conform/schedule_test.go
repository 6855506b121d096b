package conform

import "testing"

// On a shared server a check that changes a state holds that state's lock, and only
// that one: checks of the other state run meanwhile. On isolated targets nothing is
// held.
func TestPhaseGatesChange(t *testing.T) {
	tests := []struct {
		name      string
		isolated  bool
		changes   ServerState
		wantHeld  []ServerState
		wantFreed []ServerState
	}{
		{"tool list on a shared server", false, StateToolList, []ServerState{StateToolList}, []ServerState{StateLogLevel}},
		{"log level on a shared server", false, StateLogLevel, []ServerState{StateLogLevel}, []ServerState{StateToolList}},
		{"no state changed", false, "", nil, []ServerState{StateToolList, StateLogLevel}},
		{"isolated target", true, StateToolList, nil, []ServerState{StateToolList, StateLogLevel}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newPhaseGates(2, tt.isolated)
			unlock := g.change(&Check{ID: "X-01", Changes: tt.changes})
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
	if h.holders > 0 && (exclusive || h.exclusive || h.value != value) {
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
