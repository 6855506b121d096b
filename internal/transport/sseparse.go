package transport

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
)

// Event is one server-sent event, parsed per the WHATWG HTML "Server-sent events"
// section, with one deliberate difference: a block that had any field line but no
// data is still dispatched, with empty Data, so that callers can see an R4 priming
// event (an id and empty data). Callers that want only messages skip empty Data.
type Event struct {
	// Type is the event field; "" means the default type, "message".
	Type string
	// Data is the data lines joined with "\n".
	Data string
	// ID is this event's own id field, valid when HasID is set.
	ID string
	// HasID says the event had an id field (possibly empty, which resets LastID).
	HasID bool
	// LastID is the stream's last event ID at dispatch (WHATWG lastEventId); unlike
	// ID it carries over from earlier events.
	LastID string
	// Retry is the retry field in milliseconds, or -1 when the event had none.
	Retry int
}

// eventReader parses a text/event-stream. Every event is bounded: as soon as one
// passes max bytes it is returned, cut, with an ErrFrameTooLarge error, and the rest
// of it is skipped unread into memory by the next call, after which parsing
// continues. The event is not read to its end first: a server can make that end
// never come (a data line that goes on forever), and the request it answers would
// wait out its timeout with nothing to show for it.
type eventReader struct {
	br      *bufio.Reader
	max     int
	lineCap int
	lastID  string
	skipLF  bool // the last line ended in "\r": a following "\n" belongs to it
	started bool // the BOM check is done
	midLine bool // a line was cut at lineCap: its rest is still to be skipped
	skip    bool // an oversize event was returned: its rest is still to be skipped
}

// eventBuffers recycles the read buffers of ended SSE streams (release): over
// Streamable HTTP every request answered with SSE is a stream of its own, hundreds a
// run, and a fresh 64 KiB buffer for each was the largest share of a run's garbage.
var eventBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

func newEventReader(r io.Reader, max int) *eventReader {
	if max <= 0 {
		max = Limits{}.WithDefaults().MaxFrame
	}
	br := eventBuffers.Get().(*bufio.Reader)
	br.Reset(r)
	return &eventReader{br: br, max: max, lineCap: max + 64}
}

// release gives the reader's buffer back for another stream, once the stream is read
// to its end (or abandoned) by the one goroutine that reads it; the reader is not
// used after. Next never returns bytes of the buffer itself.
func (r *eventReader) release() {
	if r.br == nil {
		return
	}
	r.br.Reset(nil)
	eventBuffers.Put(r.br)
	r.br = nil
}

// Next returns the next event. At the end of the stream it returns io.EOF (or the
// read error) and drops any incomplete event, as WHATWG requires. An oversize event
// is returned as soon as it passes max bytes, with its data cut to OversizeHead bytes
// and an error wrapping ErrFrameTooLarge (its type and id are those of the lines
// before the cut); the caller may call Next again.
func (r *eventReader) Next() (Event, error) {
	if r.skip {
		if err := r.skipEvent(); err != nil {
			return Event{}, err
		}
	}
	ev := Event{Retry: -1}
	var (
		data  []byte
		nData int  // data lines seen
		seen  bool // a non-comment line was seen since the last dispatch
	)
	for {
		line, blank, long, err := r.readLine(true)
		if err != nil {
			return Event{}, err
		}
		if blank {
			if !seen {
				continue
			}
			ev.Data = string(data)
			ev.LastID = r.lastID
			return ev, nil
		}
		if line[0] == ':' {
			continue // comment
		}
		seen = true
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		tooBig := long
		switch string(field) {
		case "event":
			ev.Type = string(value)
		case "data":
			if nData > 0 {
				data = append(data, '\n')
			}
			nData++
			if nData == 1 {
				data = value // the line is this call's own: no copy
			} else {
				data = append(data, value...)
			}
			if len(data) > r.max {
				tooBig = true
			}
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.lastID = string(value)
				ev.ID, ev.HasID = string(value), true
			}
		case "retry":
			if n, ok := parseRetry(value); ok {
				ev.Retry = n
			}
		}
		if tooBig {
			r.skip = true
			ev.Data = string(headOf(data[:min(len(data), r.max)]))
			ev.LastID = r.lastID
			return ev, tooLarge("an SSE event", r.max, int64(len(data)), false)
		}
	}
}

// skipEvent reads past the rest of an oversize event, up to the blank line that ends
// it, keeping none of it.
func (r *eventReader) skipEvent() error {
	for {
		_, blank, _, err := r.readLine(false)
		if err != nil {
			return err
		}
		if blank {
			r.skip = false
			return nil
		}
	}
}

// parseRetry accepts only ASCII digits, as WHATWG requires; huge values saturate.
func parseRetry(v []byte) (int, bool) {
	if len(v) == 0 || strings.Trim(string(v), "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return int(^uint(0) >> 1), true
	}
	return n, true
}

// readLine returns the next line without its terminator (CRLF, LF or CR); blank says
// it was empty. It keeps at most lineCap bytes: a longer line is returned at once,
// cut, with long set, and the next call first skips its rest. A comment line (one
// that starts with ':') is returned as ":" alone, and a line is not kept at all when
// keep is false: neither holds memory, however long. A partial line at EOF is dropped.
func (r *eventReader) readLine(keep bool) (line []byte, blank, long bool, err error) {
	if !r.started {
		r.started = true
		if b, err := r.br.Peek(1); err == nil && b[0] == 0xEF {
			if b, _ := r.br.Peek(3); bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
				_, _ = r.br.Discard(3)
			}
		}
	}
	if r.midLine {
		if err := r.skipLine(); err != nil {
			return nil, false, false, err
		}
	}
	n := 0 // bytes of this line seen
	for {
		if _, err := r.br.Peek(1); err != nil {
			return nil, false, false, err
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		if r.skipLF {
			r.skipLF = false
			if buf[0] == '\n' {
				_, _ = r.br.Discard(1)
				continue
			}
		}
		if n == 0 && buf[0] == ':' {
			keep, line = false, []byte{':'}
		}
		i := bytes.IndexAny(buf, "\r\n")
		k := len(buf)
		if i >= 0 {
			k = i
		}
		if keep && len(line)+k > r.lineCap {
			line = append(line, buf[:r.lineCap-len(line)]...)
			_, _ = r.br.Discard(r.lineCap - n)
			r.midLine = true
			return line, false, true, nil
		}
		if keep {
			line = append(line, buf[:k]...)
		}
		n += k
		if i >= 0 {
			r.skipLF = buf[i] == '\r'
			_, _ = r.br.Discard(i + 1)
			if line == nil {
				line = []byte{}
			}
			return line, n == 0, false, nil
		}
		_, _ = r.br.Discard(k)
	}
}

// skipLine reads past the rest of a line that was cut, keeping none of it.
func (r *eventReader) skipLine() error {
	for {
		if _, err := r.br.Peek(1); err != nil {
			return err
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		if i := bytes.IndexAny(buf, "\r\n"); i >= 0 {
			r.skipLF = buf[i] == '\r'
			_, _ = r.br.Discard(i + 1)
			r.midLine = false
			return nil
		}
		_, _ = r.br.Discard(len(buf))
	}
}
