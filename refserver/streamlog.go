package refserver

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Resumable SSE streams of the Streamable HTTP transport (2025-03-26 to 2025-11-25,
// basic/transports.mdx, Resumability and Redelivery): every event a session's stream
// carries gets an id unique across the session's streams that names its stream
// ("<stream>_<n>"), and is kept, so that a client that lost the connection can GET
// with Last-Event-ID and get what followed that event on that stream, and only that
// stream. A stream outlives its connection: a call whose POST connection dropped runs
// on and its messages wait for the client's return.

// Bounds of what a session keeps for resumption.
const (
	maxStreamLogs   = 64  // streams kept per session; the oldest finished go first
	maxLoggedEvents = 512 // events kept per stream; past it the oldest are dropped
)

// sseLog is one resumable SSE stream of a session: its events, and the connection it
// is written to now (none while the client is away).
type sseLog struct {
	hs *httpSession
	no int // the stream's number in the session, the first part of its event ids

	mu      sync.Mutex
	first   string // the id of the stream's first event
	events  []loggedEvent
	live    *sseStream // nil while no connection carries the stream
	done    bool       // the stream is terminated: nothing more will be sent
	doneCh  chan struct{}
	liveGen int // bumped at every attach: a handler detaches only its own connection
	// resumedCh is closed when a client first resumed the stream (GET with
	// Last-Event-ID): test_slow's untilResumed waits on it.
	resumedCh chan struct{}
	// beforeResume, set by fault sh-disconnect-cancels, runs when a client resumes
	// the stream, before anything waiting on resumedCh is released: a resumption
	// proves the connection dropped, so the fault's cancellation is in place
	// however late the server noticed the drop itself.
	beforeResume func()
}

type loggedEvent struct {
	id   string
	data []byte
}

// newLog opens a stream of the session (kept for resumption within the bounds).
func (hs *httpSession) newLog() *sseLog {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.nextStream++
	lg := &sseLog{hs: hs, no: hs.nextStream, doneCh: make(chan struct{}), resumedCh: make(chan struct{})}
	if hs.logs == nil {
		hs.logs = map[int]*sseLog{}
	}
	if len(hs.logs) >= maxStreamLogs {
		oldest := 0
		for no, l := range hs.logs {
			if l.finished() && (oldest == 0 || no < oldest) {
				oldest = no
			}
		}
		delete(hs.logs, oldest)
	}
	hs.logs[lg.no] = lg
	return lg
}

// logOf finds the stream a Last-Event-ID belongs to (nil when none).
func (hs *httpSession) logOf(lastID string) *sseLog {
	prefix, _, ok := strings.Cut(lastID, "_")
	if !ok {
		return nil
	}
	no, err := strconv.Atoi(prefix)
	if err != nil {
		return nil
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.logs[no]
}

// has reports whether lastID is an event the stream still keeps.
func (lg *sseLog) has(lastID string) bool {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	for _, e := range lg.events {
		if e.id == lastID {
			return true
		}
	}
	return false
}

func (lg *sseLog) finished() bool {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	return lg.done
}

// nextID returns a session-unique event id of this stream.
func (lg *sseLog) nextID() string {
	return fmt.Sprintf("%d_%d", lg.no, lg.hs.events.Add(1))
}

// attach makes st the stream's connection and returns its generation.
func (lg *sseLog) attach(st *sseStream) int {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	lg.live = st
	lg.liveGen++
	return lg.liveGen
}

// detach leaves the stream without a connection if gen is still the live one: its
// later events are kept for the client's return.
func (lg *sseLog) detach(gen int) {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if lg.liveGen == gen {
		lg.live = nil
	}
}

// event logs one event and writes it to the connection, if any; retry > 0 adds an
// SSE retry field. A failed write means the client is away: the event waits in the
// log. Only a terminated stream refuses an event.
func (lg *sseLog) event(id string, data []byte, retry int) error {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if lg.done {
		return errSessionClosed
	}
	if lg.first == "" {
		lg.first = id
	}
	if len(lg.events) >= maxLoggedEvents {
		lg.events = lg.events[1:]
	}
	lg.events = append(lg.events, loggedEvent{id: id, data: bytes.Clone(data)})
	if lg.live != nil {
		if err := lg.live.eventRetry(id, "", data, retry); err != nil {
			lg.live = nil
		}
	}
	return nil
}

// firstEventID is the id of the stream's first event ("" before one).
func (lg *sseLog) firstEventID() string {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	return lg.first
}

// send is the stream as a sink: one message, one event with a fresh id.
func (lg *sseLog) send(msg []byte) error { return lg.event(lg.nextID(), msg, 0) }

// finish terminates the stream: the handler holding its connection returns.
func (lg *sseLog) finish() {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if !lg.done {
		lg.done = true
		close(lg.doneCh)
	}
}

// resume replays onto st the events logged after lastID, then makes st the stream's
// connection, all under the stream's lock so that no event falls between the two.
// It returns the connection's generation and false when lastID is not an event of
// this stream (replayAll, the fault resume-replays-all, replays instead every
// event of the session's streams that came after lastID).
func (lg *sseLog) resume(st *sseStream, lastID string, replayAll bool) (int, bool) {
	if lg.beforeResume != nil {
		lg.beforeResume()
	}
	var others []loggedEvent
	if replayAll {
		others = lg.hs.eventsAfter(lastID, lg) // before lg's lock: one stream lock at a time
	}
	lg.mu.Lock()
	defer lg.mu.Unlock()
	at := -1
	for i, e := range lg.events {
		if e.id == lastID {
			at = i
			break
		}
	}
	if at < 0 {
		return 0, false
	}
	replay := lg.events[at+1:]
	if replayAll {
		replay = sortBySeq(append(others, replay...))
	}
	for _, e := range replay {
		if len(e.data) == 0 {
			continue // a priming event carries nothing to redeliver
		}
		if err := st.eventRetry(e.id, "", e.data, 0); err != nil {
			return 0, true
		}
	}
	lg.live = st
	lg.liveGen++
	select {
	case <-lg.resumedCh:
	default:
		close(lg.resumedCh)
	}
	return lg.liveGen, true
}

// eventSeq is the session-wide sequence number of an event id.
func eventSeq(id string) int {
	_, n, _ := strings.Cut(id, "_")
	v, _ := strconv.Atoi(n)
	return v
}

// sortBySeq orders events by their place in the session's id sequence.
func sortBySeq(out []loggedEvent) []loggedEvent {
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && eventSeq(out[j].id) < eventSeq(out[j-1].id); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// eventsAfter lists the events of the session's other streams that came after
// lastID in the session's id sequence (the fault resume-replays-all).
func (hs *httpSession) eventsAfter(lastID string, own *sseLog) []loggedEvent {
	after := eventSeq(lastID)
	hs.mu.Lock()
	logs := make([]*sseLog, 0, len(hs.logs))
	for _, l := range hs.logs {
		logs = append(logs, l)
	}
	hs.mu.Unlock()
	var out []loggedEvent
	for _, l := range logs {
		if l == own {
			continue
		}
		l.mu.Lock()
		for _, e := range l.events {
			if eventSeq(e.id) > after {
				out = append(out, e)
			}
		}
		l.mu.Unlock()
	}
	return out
}
