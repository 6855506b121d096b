package rawjson

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestWordScans compares the word-at-a-time scans with a byte at a time, from every
// start, and the exported indexes with bytes.IndexAny, on random bytes drawn mostly
// from the ones they stop at and their neighbours (0x1f, 0x20, '!', '#', brackets,
// 0x7f, 0x80, 0xff).
func TestWordScans(t *testing.T) {
	alphabet := []byte{'"', '\\', 0x00, 0x1f, 0x20, '!', '#', '[', ']', '{', '}', 'a', 0x7f, 0x80, 0xdc, 0xff}
	quoteOrEscapeBytewise := func(data []byte, i int) int {
		for ; i < len(data); i++ {
			if data[i] == '"' || data[i] == '\\' {
				return i
			}
		}
		return i
	}
	stringStopBytewise := func(data []byte, i int) int {
		for ; i < len(data); i++ {
			if c := data[i]; c == '"' || c == '\\' || c < 0x20 {
				return i
			}
		}
		return i
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		data := make([]byte, rng.IntN(40))
		plainRun := rng.IntN(4) // most inputs: long runs of one plain byte, a stop now and then
		for k := range data {
			switch {
			case plainRun > 0 && rng.IntN(8) != 0:
				data[k] = 'x'
			default:
				data[k] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		for i := 0; i <= len(data); i++ {
			if got, want := quoteOrEscape(data, i), quoteOrEscapeBytewise(data, i); got != want {
				t.Fatalf("input %d %q from %d: quoteOrEscape = %d, want %d", n, data, i, got, want)
			}
			if got, want := stringStop(data, i), stringStopBytewise(data, i); got != want {
				t.Fatalf("input %d %q from %d: stringStop = %d, want %d", n, data, i, got, want)
			}
		}
		if got, want := IndexQuoteOrEscape(data), bytes.IndexAny(data, `"\`); got != want {
			t.Fatalf("input %d %q: IndexQuoteOrEscape = %d, want %d", n, data, got, want)
		}
		if got, want := IndexStructural(data), bytes.IndexAny(data, `"{}[]`); got != want {
			t.Fatalf("input %d %q: IndexStructural = %d, want %d", n, data, got, want)
		}
	}
}
