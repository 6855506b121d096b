package rawjson

import (
	"encoding/binary"
	"math/bits"
)

// Eight bytes at a time: the scans of string contents (validString, containerEnd)
// skip a word at once while none of its bytes ends the run. Strings are most of a
// listing's bytes (names, descriptions), and a byte at a time they were the larger
// part of the scans' CPU (at 10,000 tools about a seventh of the run's).

const (
	eachByte = 0x0101010101010101 // 1 in every byte
	highBits = 0x8080808080808080 // the high bit of every byte
)

// zeroBytes marks (high bit set) the zero bytes of v. The lowest byte marked is the
// first zero byte; bytes above it may be marked falsely (a borrow), which no caller
// reads.
func zeroBytes(v uint64) uint64 { return (v - eachByte) & ^v & highBits }

// lowBytes marks the bytes of v below 0x20 (a control character), with zeroBytes's
// guarantee.
func lowBytes(v uint64) uint64 { return (v - 0x20*eachByte) & ^v & highBits }

// quoteOrEscape returns the index of the first '"' or '\' in data at or after i, or
// len(data).
func quoteOrEscape(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		if m := zeroBytes(w^('"'*eachByte)) | zeroBytes(w^('\\'*eachByte)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// stringStop returns the index of the first byte at or after i that a string may
// not hold as it is (a quote, a backslash, a control character), or len(data).
func stringStop(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		if m := zeroBytes(w^('"'*eachByte)) | zeroBytes(w^('\\'*eachByte)) | lowBytes(w); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(data) && plainStringByte[data[i]] {
		i++
	}
	return i
}

// IndexQuoteOrEscape is the index of the first '"' or '\' in data, or -1: where a
// string that data is the inside of ends or escapes (transport's valueScan, which
// follows a reply body's JSON as it arrives).
func IndexQuoteOrEscape(data []byte) int {
	if i := quoteOrEscape(data, 0); i < len(data) {
		return i
	}
	return -1
}

// IndexStructural is the index of the first quote or bracket in data, or -1: outside
// strings, where a string starts or a container opens or closes.
func IndexStructural(data []byte) int {
	for i, c := range data {
		if structural[c] {
			return i
		}
	}
	return -1
}
