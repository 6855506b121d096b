package conform

import "testing"

func TestStrayWindows(t *testing.T) {
	s := &Session{}
	if got := s.StrayEnd(3); got != 0 {
		t.Fatalf("no probe marked: StrayEnd(3) = %d, want 0", got)
	}
	for _, seq := range []int{3, 10, 17} {
		s.MarkStray(seq)
	}
	for _, tc := range []struct{ start, want int }{{3, 10}, {10, 17}, {17, 0}} {
		if got := s.StrayEnd(tc.start); got != tc.want {
			t.Errorf("StrayEnd(%d) = %d, want %d (the next probe's start, 0 for the last)", tc.start, got, tc.want)
		}
	}
}
