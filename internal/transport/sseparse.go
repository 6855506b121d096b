package transport

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
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

// eventReader parses a text/event-stream. Every event is bounded: data beyond max
// bytes is dropped and the event is returned with an ErrFrameTooLarge error, after
// which parsing continues.
type eventReader struct {
	br      *bufio.Reader
	max     int
	lineCap int
	lastID  string
	skipLF  bool // the last line ended in "\r": a following "\n" belongs to it
	started bool // the BOM check is done
}

func newEventReader(r io.Reader, max int) *eventReader {
	if max <= 0 {
		max = Limits{}.WithDefaults().MaxFrame
	}
	return &eventReader{br: bufio.NewReaderSize(r, 64<<10), max: max, lineCap: max + 64}
}

// Next returns the next event. At the end of the stream it returns io.EOF (or the
// read error) and drops any incomplete event, as WHATWG requires. An oversize event
// is returned with its data cut at max bytes and an error wrapping ErrFrameTooLarge;
// the caller may call Next again.
func (r *eventReader) Next() (Event, error) {
	ev := Event{Retry: -1}
	var (
		data   []byte
		size   int64 // every data byte, kept or not
		nData  int   // data lines seen
		seen   bool  // a non-comment line was seen since the last dispatch
		tooBig bool
	)
	for {
		line, long, dropped, err := r.readLine()
		size += dropped
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if !seen {
				continue
			}
			ev.Data = string(data)
			ev.LastID = r.lastID
			if tooBig {
				ev.Data = string(headOf(data))
				return ev, tooLarge("an SSE event", r.max, size, true)
			}
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
		if long {
			tooBig = true
		}
		switch string(field) {
		case "event":
			ev.Type = string(value)
		case "data":
			if nData > 0 {
				value = append([]byte{'\n'}, value...)
			}
			nData++
			size += int64(len(value))
			if room := r.max - len(data); room < len(value) {
				tooBig = true
				value = value[:max(room, 0)]
			}
			data = append(data, value...)
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

// readLine returns the next line without its terminator (CRLF, LF or CR), keeping at
// most lineCap bytes; long says more were discarded, and dropped counts them. A
// partial line at EOF is dropped.
func (r *eventReader) readLine() (line []byte, long bool, dropped int64, err error) {
	if !r.started {
		r.started = true
		if b, err := r.br.Peek(1); err == nil && b[0] == 0xEF {
			if b, _ := r.br.Peek(3); bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
				_, _ = r.br.Discard(3)
			}
		}
	}
	for {
		if _, err := r.br.Peek(1); err != nil {
			return nil, false, 0, err
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		if r.skipLF {
			r.skipLF = false
			if buf[0] == '\n' {
				_, _ = r.br.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(buf, "\r\n")
		n := len(buf)
		if i >= 0 {
			n = i
		}
		if room := r.lineCap - len(line); room >= n {
			line = append(line, buf[:n]...)
		} else {
			line = append(line, buf[:max(room, 0)]...)
			dropped += int64(n - max(room, 0))
			long = true
		}
		if i >= 0 {
			r.skipLF = buf[i] == '\r'
			_, _ = r.br.Discard(i + 1)
			if line == nil {
				line = []byte{}
			}
			return line, long, dropped, nil
		}
		_, _ = r.br.Discard(n)
	}
}
