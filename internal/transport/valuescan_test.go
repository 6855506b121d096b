package transport

import "testing"

// TestValueScan feeds bodies to valueScan in every split of two reads and checks
// what it sees after each: the first value complete, followed by something else, or
// not complete yet, with strings, escapes and brackets inside strings.
func TestValueScan(t *testing.T) {
	cases := []struct {
		body string
		want int
		end  int // just past the first value when complete
	}{
		{`{"a":1}`, valueComplete, 7},
		{`{"a":1}` + " \r\n\t", valueComplete, 7},
		{`  [1,[2,{"b":[]}]]`, valueComplete, 18},
		{`{"a":"}]\"{["}`, valueComplete, 14},
		{`{"a":"\\"}`, valueComplete, 10},
		{`{"a":"x\\\"}"}`, valueComplete, 14},
		{`{"a":1}{"b":2}`, valueFollowed, 7},
		{`{"a":1} x`, valueFollowed, 7},
		{`{"a":[1,2}`, valuePartial, 0},
		{`{"a":"}`, valuePartial, 0},
		{`{"a":"\"}`, valuePartial, 0},
		{`"text"`, valuePartial, 0}, // not an object or array: settled by the body's end
	}
	for _, c := range cases {
		for split := 0; split <= len(c.body); split++ {
			var v valueScan
			v.scan([]byte(c.body[:split]))
			got := v.scan([]byte(c.body))
			if got != c.want || (got != valuePartial && v.end != c.end) {
				t.Errorf("%q split at %d: scan = %d, end %d; want %d, end %d", c.body, split, got, v.end, c.want, c.end)
			}
		}
	}
}
