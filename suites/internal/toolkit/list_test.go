package toolkit

import "testing"

// TestListingKeep: a kept listing is handed over only at the generation it was made
// at; take hands it over once and keeps nothing either way, peek leaves it kept.
func TestListingKeep(t *testing.T) {
	l := &Listing{}
	cases := []struct {
		name           string
		take           bool // take, else peek
		gen            int
		want, thenKept bool
	}{
		{name: "take at its generation", take: true, gen: 3, want: true, thenKept: false},
		{name: "take at another generation", take: true, gen: 4, want: false, thenKept: false},
		{name: "peek at its generation", gen: 3, want: true, thenKept: true},
		{name: "peek at another generation", gen: 2, want: false, thenKept: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var k listingKeep
			k.put(l, 3)
			var got *Listing
			if c.take {
				got = k.take(c.gen)
			} else {
				got = k.peek(c.gen)
			}
			if (got == l) != c.want || (got != nil && got != l) {
				t.Errorf("got %p, want the kept listing: %v", got, c.want)
			}
			if kept := k.peek(3) != nil; kept != c.thenKept {
				t.Errorf("kept after: %v, want %v", kept, c.thenKept)
			}
		})
	}
}
