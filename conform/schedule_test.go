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
				if g.states[st].TryLock() {
					t.Errorf("%s: free while a check that changes it runs", st)
				}
			}
			for _, st := range tt.wantFreed {
				if !g.states[st].TryLock() {
					t.Errorf("%s: held, though the running check changes %q", st, tt.changes)
					continue
				}
				g.states[st].Unlock()
			}
			unlock()
			for _, st := range tt.wantHeld {
				if !g.states[st].TryLock() {
					t.Errorf("%s: still held after the check ended", st)
				}
			}
		})
	}
}
