package transport

import (
	"github.com/mcp-conform/mcp-conform/internal/rawjson"

	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"
)

// Errors carried by Frame.Err. Test them with errors.Is.
var (
	// ErrFrameTooLarge marks a frame longer than Limits.MaxFrame; its Data holds only
	// the first MaxFrame bytes.
	ErrFrameTooLarge = errors.New("frame too large")
	// ErrNotJSON marks a frame whose bytes are not exactly one JSON value.
	ErrNotJSON = errors.New("not JSON")
	// ErrNotUTF8 marks a frame whose bytes are not valid UTF-8.
	ErrNotUTF8 = errors.New("not valid UTF-8")
	// ErrNoNewline marks the last stdout line of a process when it ended without a
	// newline. The Data may still be a complete message.
	ErrNoNewline = errors.New("last line not terminated by a newline")
)

// inboundBuffer is the capacity of every Inbound channel. Together with
// Limits.MaxFrame it bounds the memory a flooding server can make us hold.
const inboundBuffer = 256

// checkFrame sets f.Err to what, if anything, makes f.Data unusable as a JSON-RPC
// frame, and f.JSON when nothing does.
func checkFrame(f *Frame) {
	f.Err = validateFrame(f.Data)
	f.JSON = f.Err == nil
}

// validateFrame says what, if anything, makes data unusable as a JSON-RPC frame.
func validateFrame(data []byte) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("%w (%d bytes)", ErrNotUTF8, len(data))
	}
	// rawjson's verdict is encoding/json's (fuzzed against it), at a quarter of the
	// cost; a reply of a thousand tools is checked on every page of every walk.
	if !rawjson.Valid(data) {
		// Unmarshal into a RawMessage only runs the syntax checker, which names the
		// offending character and its offset.
		err := json.Unmarshal(data, new(json.RawMessage))
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	return nil
}

// TooLargeError is the Err of a frame longer than Limits.MaxFrame. It wraps
// ErrFrameTooLarge and says how big the frame was.
type TooLargeError struct {
	What  string // the unit, with its article: "a line", "a reply body", "an SSE event"
	Size  int64  // bytes seen (all of them when Exact, else at least this many)
	Exact bool   // Size is the frame's whole length
	Max   int    // the bound in force
}

// Error says what came back: "a line of 104857600 bytes exceeded the bound of …".
func (e *TooLargeError) Error() string {
	size := fmt.Sprintf("%d bytes", e.Size)
	if !e.Exact {
		size = fmt.Sprintf("more than %d bytes", e.Max)
	}
	return fmt.Sprintf("%s: %s of %s exceeded the bound of %d bytes (--max-message-bytes)", ErrFrameTooLarge, e.What, size, e.Max)
}

// Unwrap makes errors.Is(err, ErrFrameTooLarge) hold.
func (e *TooLargeError) Unwrap() error { return ErrFrameTooLarge }

// OversizeHead is how much of an oversize frame is kept as evidence: the rest is
// counted, never held, so a 100 MB line costs no more memory than a small one.
const OversizeHead = 1 << 10

// tooLarge is the Err of a frame cut at max bytes; what names the unit (line, body,
// event) and size its length (exact says the whole length is known).
func tooLarge(what string, max int, size int64, exact bool) error {
	return &TooLargeError{What: what, Size: size, Exact: exact, Max: max}
}

// headOf returns the evidence kept of an oversize frame.
func headOf(data []byte) []byte {
	if len(data) > OversizeHead {
		return append([]byte(nil), data[:OversizeHead]...)
	}
	return data
}

// tailKeep is how much of the most recent output a capBuffer remembers besides its head.
const tailKeep = 4 << 10

// capBuffer is an io.Writer that keeps the first max bytes written to it, counts the
// rest, and also remembers the last tailKeep bytes of everything written. It never
// fails, so a copy into it never stalls the process writing.
type capBuffer struct {
	mu      sync.Mutex
	max     int
	head    []byte
	dropped int64
	tail    []byte
}

func newCapBuffer(max int) *capBuffer { return &capBuffer{max: max} }

// Write implements io.Writer.
func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := b.max - len(b.head); room > 0 {
		take := min(room, len(p))
		b.head = append(b.head, p[:take]...)
		p = p[take:]
	}
	b.dropped += int64(len(p))
	// The tail sees every byte, kept and dropped alike.
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*tailKeep {
		b.tail = append(b.tail[:0:0], b.tail[len(b.tail)-tailKeep:]...)
	}
	return n, nil
}

// Bytes returns a copy of the kept head.
func (b *capBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.head...)
}

// Dropped returns how many bytes were counted but not kept.
func (b *capBuffer) Dropped() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped
}

// Tail returns up to n of the most recently written bytes.
func (b *capBuffer) Tail(n int) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	// The most recent bytes are the head followed by the tail of what was dropped.
	all := b.head
	if len(b.tail) > 0 {
		all = append(append([]byte(nil), b.head...), b.tail...)
	}
	if len(all) > n {
		all = all[len(all)-n:]
	}
	return append([]byte(nil), all...)
}
