package transport

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func TestEventReader(t *testing.T) {
	type ev struct {
		Type, Data, ID string
		HasID          bool
		LastID         string
		Retry          int
		TooBig         bool
	}
	tests := []struct {
		name  string
		input string
		max   int
		want  []ev
	}{
		{"single LF", "data: {}\n\n", 0, []ev{{Data: "{}", Retry: -1}}},
		{"CRLF", "event: message\r\ndata: a\r\nid: 7\r\n\r\n", 0,
			[]ev{{Type: "message", Data: "a", ID: "7", HasID: true, LastID: "7", Retry: -1}}},
		{"CR only", "data: a\rdata: b\r\r", 0, []ev{{Data: "a\nb", Retry: -1}}},
		{"multi-line data", "data: one\ndata:two\ndata:  three\n\n", 0, []ev{{Data: "one\ntwo\n three", Retry: -1}}},
		{"comments ignored", ": keepalive\n\n:x\ndata: d\n: mid\n\n", 0, []ev{{Data: "d", Retry: -1}}},
		{"priming event dispatched empty", "id: p1\ndata:\n\ndata: {\"a\":1}\n\n", 0, []ev{
			{ID: "p1", HasID: true, LastID: "p1", Retry: -1},
			{Data: `{"a":1}`, LastID: "p1", Retry: -1},
		}},
		{"id-only event dispatched", "id: 5\n\n", 0, []ev{{ID: "5", HasID: true, LastID: "5", Retry: -1}}},
		{"retry parsed", "retry: 1500\ndata: x\n\nretry: 1x\ndata: y\n\n", 0, []ev{
			{Data: "x", Retry: 1500}, {Data: "y", Retry: -1},
		}},
		{"field without colon", "data\n\n", 0, []ev{{Retry: -1}}},
		{"unknown field", "foo: bar\ndata: z\n\n", 0, []ev{{Data: "z", Retry: -1}}},
		{"only one leading space removed", "data:   x\n\n", 0, []ev{{Data: "  x", Retry: -1}}},
		{"BOM stripped", "\xEF\xBB\xBFdata: b\n\n", 0, []ev{{Data: "b", Retry: -1}}},
		{"id with NUL ignored", "id: a\x00b\ndata: q\n\n", 0, []ev{{Data: "q", Retry: -1}}},
		{"incomplete event at EOF discarded", "data: a\n\ndata: b\n", 0, []ev{{Data: "a", Retry: -1}}},
		{"partial line at EOF discarded", "data: a\n\ndata: b", 0, []ev{{Data: "a", Retry: -1}}},
		{"blank lines alone dispatch nothing", "\n\n\r\n", 0, nil},
		{"oversize event then recovery", "data: " + strings.Repeat("x", 40) + "\n\ndata: ok\n\n", 16, []ev{
			{Data: strings.Repeat("x", 16), Retry: -1, TooBig: true},
			{Data: "ok", Retry: -1},
		}},
		{"oversize across data lines", "data: 0123456789\ndata: 0123456789\n\n", 16, []ev{
			{Data: "0123456789\n01234", Retry: -1, TooBig: true},
		}},
		{"huge comment ignored", ":" + strings.Repeat("c", 500) + "\ndata: ok\n\n", 16, []ev{{Data: "ok", Retry: -1}}},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			name := tt.name
			var r io.Reader = strings.NewReader(tt.input)
			if oneByte {
				name += "/one byte reads"
				r = iotest.OneByteReader(r)
			}
			t.Run(name, func(t *testing.T) {
				er := newEventReader(r, tt.max)
				var got []ev
				for {
					e, err := er.Next()
					if err != nil && !errors.Is(err, ErrFrameTooLarge) {
						if err != io.EOF {
							t.Fatalf("Next: %v", err)
						}
						break
					}
					got = append(got, ev{e.Type, e.Data, e.ID, e.HasID, e.LastID, e.Retry, err != nil})
					if len(got) > 10 {
						t.Fatal("too many events")
					}
				}
				if len(got) != len(tt.want) {
					t.Fatalf("got %d events %+v, want %d %+v", len(got), got, len(tt.want), tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("event %d = %+v, want %+v", i, got[i], tt.want[i])
					}
				}
			})
		}
	}
}

// endlessLine is "data: " and then n bytes of 'a' with no line end, made on the fly;
// read counts the bytes taken from it.
type endlessLine struct {
	n, read int64
	started bool
}

func (e *endlessLine) Read(p []byte) (int, error) {
	if !e.started {
		e.started = true
		return copy(p, "data: "), nil
	}
	if e.read >= e.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), e.n-e.read)
	for i := range p[:k] {
		p[i] = 'a'
	}
	e.read += k
	return int(k), nil
}

// TestEventReaderEndlessLine: a data line past the bound is returned as an oversize
// event as soon as the bound is passed, not when (if ever) the line ends, and the
// rest of it is skipped without being held.
func TestEventReaderEndlessLine(t *testing.T) {
	const max = 64 << 10
	for _, tt := range []struct {
		name string
		n    int64 // bytes after "data: "
	}{
		{"just past the bound", max + 100},
		{"64 MiB", 64 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &endlessLine{n: tt.n}
			er := newEventReader(src, max)
			ev, err := er.Next()
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Exact || !strings.Contains(err.Error(), "an SSE event of more than 65536 bytes") {
				t.Fatalf("Next = %v; want an SSE event of more than %d bytes", err, max)
			}
			if len(ev.Data) != OversizeHead {
				t.Fatalf("the event kept %d bytes, want its head of %d", len(ev.Data), OversizeHead)
			}
			// The bound, the bufio buffer and one read: not the line.
			if limit := int64(er.lineCap + 2*(64<<10)); src.read > limit {
				t.Fatalf("Next read %d bytes of the line before returning, bound %d", src.read, limit)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = er.Next() // skips the rest of the line, then meets the end
			runtime.ReadMemStats(&after)
			if err != io.EOF || src.read != tt.n {
				t.Fatalf("after the oversize event Next = %v having read %d of %d bytes; want io.EOF at the end", err, src.read, tt.n)
			}
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
				t.Fatalf("skipping the rest of the line allocated %d bytes", grown)
			}
		})
	}
}

// A released reader's buffer serves the next stream with nothing of the last one: a
// stream abandoned with events still buffered leaves none of them behind.
func TestEventReaderReleaseReuses(t *testing.T) {
	first := newEventReader(strings.NewReader("data: a\n\ndata: left behind\n\n"), 0)
	if ev, err := first.Next(); err != nil || ev.Data != "a" {
		t.Fatalf("first stream: %+v, %v", ev, err)
	}
	first.release()
	first.release() // idempotent
	for range 3 {
		er := newEventReader(strings.NewReader("data: b\n\n"), 0)
		ev, err := er.Next()
		if err != nil || ev.Data != "b" {
			t.Fatalf("next stream: %+v, %v, want only its own event b", ev, err)
		}
		if _, err := er.Next(); err != io.EOF {
			t.Fatalf("next stream: %v after its one event, want EOF", err)
		}
		er.release()
	}
}
