package conform

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Bounds on one check's transcript slice: a long paging walk keeps its first
// messages and counts the rest; a huge reply is cut.
const (
	sliceMaxMessages = 200
	sliceMaxBytes    = 32 << 10
)

// transcriptMark is every session's transcript position when a check started, so
// that the exchange that decided it can be cut out when it ends.
type transcriptMark struct {
	seqs map[*Session]int
	// xs is each HTTP session's count of exchanges: the replies that came as the
	// body of an HTTP error status are in the exchange record, not the transcript.
	xs map[*Session]int
	// end, when set, is where the sessions stood when the check ended: the slice
	// stops there on each session but the check's own (deferredEvidence).
	end *transcriptMark
}

// markTranscripts records where each of the column's sessions stands.
func markTranscripts(col *column) transcriptMark {
	m := transcriptMark{seqs: map[*Session]int{}, xs: map[*Session]int{}}
	col.mu.Lock()
	defer col.mu.Unlock()
	for _, s := range col.sessions {
		if s != nil && s.Conn != nil {
			m.seqs[s] = s.Conn.Seq()
			if hs, ok := s.Conn.Transport().(transport.HTTPSession); ok {
				m.xs[s] = hs.ExchangeCount()
			}
		}
	}
	return m
}

// statusReplies are the bodies of the POSTs after the first n of an HTTP session's
// record that were answered with an HTTP error status, as received messages: a
// JSON-RPC error sent with HTTP 400 is the server's reply, though the transport
// hands it to the caller as an error, not to the transcript. Source says the status.
func statusReplies(s *Session, n int) []reports.ExchangeMessage {
	return statusRepliesBetween(s, n, -1)
}

// statusRepliesBetween is statusReplies of the exchanges after the first from and
// up to the first to (to < 0: all of them).
func statusRepliesBetween(s *Session, from, to int) []reports.ExchangeMessage {
	hs, ok := s.Conn.Transport().(transport.HTTPSession)
	if !ok {
		return nil
	}
	xs := hs.ExchangesFrom(from)
	if to >= from && to-from < len(xs) {
		xs = xs[:to-from]
	}
	var out []reports.ExchangeMessage
	for _, x := range xs {
		if x.Method != http.MethodPost || len(x.Body) == 0 || (x.Status >= 200 && x.Status < 300) {
			continue
		}
		m := exchangeMessage(wire.Entry{Dir: wire.Received, At: x.At, Raw: x.Body, Source: fmt.Sprintf("post (HTTP %d)", x.Status)})
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// withStatusReplies merges a window's messages and its status replies by time; a
// status reply takes the number of the message before it (the transcript never
// numbered it).
func withStatusReplies(msgs, extra []reports.ExchangeMessage) []reports.ExchangeMessage {
	return wire.MergeByTime(msgs, extra, func(m reports.ExchangeMessage) time.Time { return m.At },
		func(x *reports.ExchangeMessage, after reports.ExchangeMessage) { x.Seq = after.Seq })
}

// slice is the exchange since the mark: the traffic of every session that existed
// then, and of the sessions the check opened. A session opened meanwhile in the
// background (a prefetched spare) counts only once the check used it: it then holds
// more than its handshake.
func (m transcriptMark) slice(col *column, t *T) *reports.Exchange {
	col.mu.Lock()
	sessions := append([]*Session(nil), col.sessions...)
	col.mu.Unlock()
	ex := &reports.Exchange{}
	for _, s := range sessions {
		if s == nil || s.Conn == nil {
			continue
		}
		from, existed := m.seqs[s]
		to, bounded := 0, false
		if m.end != nil && !slices.Contains(t.opened, s) {
			to, bounded = m.end.seqs[s]
			if !bounded {
				continue // opened after the check ended, by another
			}
		}
		entries, _ := s.Conn.Transcript()
		var window []wire.Entry
		for _, e := range entries {
			if e.Seq > from && (!bounded || e.Seq <= to) {
				window = append(window, e)
			}
		}
		if len(window) == 0 || (!existed && !slices.Contains(t.opened, s) && handshakeOnly(window)) {
			continue
		}
		es := reports.ExchangeSession{Session: s.Label, Transport: s.Kind, Requested: s.Requested, Negotiated: s.Negotiated}
		for i, e := range window {
			if i == sliceMaxMessages {
				es.Omitted = len(window) - i
				break
			}
			es.Messages = append(es.Messages, exchangeMessage(e))
		}
		if es.Omitted == 0 {
			replies := statusReplies(s, m.xs[s])
			if bounded {
				replies = statusRepliesBetween(s, m.xs[s], m.end.xs[s])
			}
			es.Messages = withStatusReplies(es.Messages, replies)
		}
		ex.Sessions = append(ex.Sessions, es)
	}
	return ex
}

// handshakeOnly reports whether a window holds nothing the suite sent but the
// handshake (initialize, notifications/initialized).
func handshakeOnly(window []wire.Entry) bool {
	for _, e := range window {
		if e.Dir != wire.Sent {
			continue
		}
		if e.Msg == nil || (e.Msg.Method != "initialize" && e.Msg.Method != "notifications/initialized") {
			return false
		}
	}
	return true
}

func exchangeMessage(e wire.Entry) reports.ExchangeMessage {
	m := reports.ExchangeMessage{Seq: e.Seq, Dir: string(e.Dir), At: e.At.UTC(), Source: e.Source, Problem: e.Err}
	raw := e.Raw
	switch {
	case len(raw) > sliceMaxBytes:
		cut := raw[:sliceMaxBytes]
		for len(cut) > 0 && !utf8.Valid(cut) {
			cut = cut[:len(cut)-1]
		}
		m.Raw = string(cut)
		m.Problem = strings.TrimPrefix(m.Problem+"; cut to 32 KiB for the report (the full message is in the transcript)", "; ")
	case json.Valid(raw) && utf8.Valid(raw):
		m.Message = json.RawMessage(append([]byte(nil), raw...))
	default:
		m.Raw = strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	return m
}

// Defaults the repro command leaves out (they match the CLI's).
const (
	defaultTimeout      = 5 * time.Second
	defaultStartTimeout = 15 * time.Second
	defaultMaxPages     = 1000
)

// secretName matches environment variable names whose values the repro command
// does not spell out.
var secretName = regexp.MustCompile(`(?i)(token|secret|passw|key|auth|credential|cookie|session)`)

// ReproCommand is the command line that re-runs only check id at revision rev with
// the run's settings: target, transport, environment, tools allowed. Header values
// never appear (the name is kept, the value is a placeholder), nor do the values of
// environment variables whose names suggest a secret.
func ReproCommand(cfg Config, id, rev string) string {
	args := []string{"mcp-conform"}
	add := func(flag, value string) { args = append(args, flag, shellQuote(value)) }
	if cfg.Target != "" {
		add("--target", cfg.Target)
	}
	if cfg.URL != "" {
		add("--url", cfg.URL)
	}
	if cfg.Transport != "" {
		add("--transport", cfg.Transport)
	}
	for _, kv := range cfg.Env {
		k, v, _ := strings.Cut(kv, "=")
		if secretName.MatchString(k) {
			v = "<value of " + k + ">"
		}
		add("--env", k+"="+v)
	}
	if cfg.Cwd != "" {
		add("--cwd", cfg.Cwd)
	}
	names := make([]string, 0, len(cfg.Headers))
	for name := range cfg.Headers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for range cfg.Headers[name] {
			add("--header", name+": <value>")
		}
	}
	add("--revision", rev)
	add("--label-filter", "id:"+id)
	for _, c := range cfg.Calls {
		add("--call", callText(c))
	}
	if cfg.TriggerTool != nil {
		add("--trigger-tool", callText(*cfg.TriggerTool))
	}
	if cfg.TriggerCmd != "" {
		add("--trigger-cmd", cfg.TriggerCmd)
	}
	for _, uri := range cfg.Reads {
		add("--read", uri)
	}
	if cfg.MaxPages != 0 && cfg.MaxPages != defaultMaxPages {
		args = append(args, "--max-pages", itoa(cfg.MaxPages))
	}
	if cfg.Timeout != 0 && cfg.Timeout != defaultTimeout {
		args = append(args, "--timeout", cfg.Timeout.String())
	}
	if cfg.StartTimeout != 0 && cfg.StartTimeout != defaultStartTimeout {
		args = append(args, "--start-timeout", cfg.StartTimeout.String())
	}
	if cfg.Strict {
		args = append(args, "--strict")
	}
	// Its own report directory, so the full run's reports stay as they are.
	args = append(args, "--report-dir", "mcp-conform-repro")
	return strings.Join(args, " ")
}

func callText(c CallSpec) string {
	if c.Args == nil {
		return c.Name
	}
	return c.Name + "=" + string(c.Args)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// shellQuote quotes s for a POSIX shell, leaving plain words as they are.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// attachRepro gives a failing, warning or erroring result its repro command and
// the exchange that decided it.
func (rs *runState) attachRepro(col *column, v Verdict, res *reports.CheckResult) {
	switch v.Status {
	case reports.Fail, reports.Warn, reports.Error:
	default:
		return
	}
	res.Repro = ReproCommand(rs.cfg, res.ID, col.rev.Name)
	if ex := v.Exchange(); ex != nil {
		res.Exchange = ex
	} else {
		res.Exchange = &reports.Exchange{Sessions: []reports.ExchangeSession{}}
	}
}

// Exchange is the transcript slice that decided a failing, warning or erroring
// verdict (nil for a pass or a skip): the messages the check's sessions sent and
// received while it ran, in order, with times.
func (v Verdict) Exchange() *reports.Exchange {
	if v.deferred != nil {
		<-v.deferred.done
		return v.deferred.exchange
	}
	return v.exchange
}

// deferredEvidence is the exchange of a verdict whose check's own HTTP sessions were
// still settling when it ended (T.cleanup): cut once they have, so that it holds
// their traffic whole, while the column goes on. On every other session it stops
// where the check ended, as it would have been cut then.
type deferredEvidence struct {
	done     chan struct{}
	exchange *reports.Exchange
}

// trafficWindow is what one probe sent and received: each session's entries from
// where it stood when the probe began to where it stood when the probe ended, and
// the replies that came later to the requests sent in between (a probe whose reply
// the column's settle awaited). A check whose own run sent nothing (a transcript
// check judged after the settle, or one reading another check's memoized probe)
// shows the windows of the probes it read (T.windows).
type trafficWindow struct {
	col      *column
	from, to transcriptMark
}

// openWindow marks where a probe begins; close marks where it ended.
func openWindow(col *column) *trafficWindow {
	if col == nil {
		return nil
	}
	return &trafficWindow{col: col, from: markTranscripts(col)}
}

func (w *trafficWindow) close() *trafficWindow {
	if w == nil {
		return nil
	}
	w.to = markTranscripts(w.col)
	return w
}

// entries is the window's traffic on one session: nil when the session did not
// exist when the probe ended.
func (w *trafficWindow) entries(s *Session) []wire.Entry {
	end, ok := w.to.seqs[s]
	if !ok {
		return nil
	}
	from := w.from.seqs[s] // zero for a session the probe opened
	all, _ := s.Conn.Transcript()
	sent := map[string]bool{}
	var out []wire.Entry
	for _, e := range all {
		switch {
		case e.Seq <= from:
		case e.Seq <= end:
			out = append(out, e)
			if e.Dir == wire.Sent && e.Msg != nil && e.Msg.Method != "" && !e.Msg.ID.IsZero() {
				sent[e.Msg.ID.Key()] = true
			}
		case e.Dir == wire.Received && e.Msg != nil && e.Msg.IsResponse() && sent[e.Msg.ID.Key()]:
			out = append(out, e)
		}
	}
	return out
}

// exchangePart is one session's entries of an exchange built from pieces (probe
// windows, cited entries), by Seq, and the HTTP error bodies that answered them.
type exchangePart struct {
	s       *Session
	entries map[int]wire.Entry
	status  []reports.ExchangeMessage
}

// citedExchange is the exchange of the cited entries, each with the request or
// reply it pairs with (by id, on its session): the reply a status body carried
// over HTTP included.
func citedExchange(cited map[*Session][]int) *reports.Exchange {
	var parts []*exchangePart
	for s, seqs := range cited {
		want := map[int]bool{}
		for _, seq := range seqs {
			want[seq] = true
		}
		all, _ := s.Conn.Transcript()
		ids := map[string]bool{}
		for _, e := range all {
			if want[e.Seq] && e.Msg != nil && !e.Msg.ID.IsZero() {
				ids[e.Msg.ID.Key()] = true
			}
		}
		p := &exchangePart{s: s, entries: map[int]wire.Entry{}}
		for _, e := range all {
			if want[e.Seq] || (e.Msg != nil && !e.Msg.ID.IsZero() && ids[e.Msg.ID.Key()]) {
				p.entries[e.Seq] = e
			}
		}
		for _, m := range statusReplies(s, 0) {
			if id, err := wire.Decode(m.Message); err == nil && !id.ID.IsZero() && ids[id.ID.Key()] {
				p.status = append(p.status, m)
			}
		}
		if len(p.entries) > 0 {
			parts = append(parts, p)
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].s.Label < parts[j].s.Label })
	return partsExchange(parts)
}

// windowsExchange is the exchange of the windows' traffic, each session once.
func windowsExchange(windows []*trafficWindow) *reports.Exchange {
	type part = exchangePart
	var parts []*part
	bySession := map[*Session]*part{}
	seen := map[*trafficWindow]bool{}
	for _, w := range windows {
		if w == nil || seen[w] {
			continue
		}
		seen[w] = true
		w.col.mu.Lock()
		sessions := slices.Clone(w.col.sessions)
		w.col.mu.Unlock()
		for _, s := range sessions {
			if s == nil || s.Conn == nil {
				continue
			}
			es := w.entries(s)
			if len(es) == 0 {
				continue
			}
			p := bySession[s]
			if p == nil {
				p = &part{s: s, entries: map[int]wire.Entry{}}
				bySession[s] = p
				parts = append(parts, p)
			}
			for _, e := range es {
				p.entries[e.Seq] = e
			}
			if _, http := w.to.xs[s]; http {
				p.status = append(p.status, statusRepliesBetween(s, w.from.xs[s], w.to.xs[s])...)
			}
		}
	}
	return partsExchange(parts)
}

// partsExchange lays the parts out as an exchange, each session's entries in
// order, bounded as a check's slice is.
func partsExchange(parts []*exchangePart) *reports.Exchange {
	ex := &reports.Exchange{}
	for _, p := range parts {
		seqs := make([]int, 0, len(p.entries))
		for seq := range p.entries {
			seqs = append(seqs, seq)
		}
		sort.Ints(seqs)
		s := p.s
		es := reports.ExchangeSession{Session: s.Label, Transport: s.Kind, Requested: s.Requested, Negotiated: s.Negotiated}
		for i, seq := range seqs {
			if i == sliceMaxMessages {
				es.Omitted = len(seqs) - i
				break
			}
			es.Messages = append(es.Messages, exchangeMessage(p.entries[seq]))
		}
		if es.Omitted == 0 {
			es.Messages = withStatusReplies(es.Messages, p.status)
		}
		ex.Sessions = append(ex.Sessions, es)
	}
	return ex
}

// entryName is how a verdict names a transcript entry: "<session label> #<seq>"
// (toolkit.SessionEntry.Where and the other Where helpers of the suites).
var entryName = regexp.MustCompile(`(\S+) #(\d+)\b`)

// namedEntries are the entries a verdict's message names, by session, across the
// run's columns (a probe session shared by several columns has its revision's
// label): a transcript-wide check names what broke its rule.
func (rs *runState) namedEntries(text string) map[*Session][]int {
	matches := entryName.FindAllStringSubmatch(text, maxCitations*4)
	if len(matches) == 0 {
		return nil
	}
	byLabel := map[string]*Session{}
	for _, col := range rs.columns {
		col.mu.Lock()
		for _, s := range col.sessions {
			if s != nil && s.Conn != nil {
				byLabel[s.Label] = s
			}
		}
		col.mu.Unlock()
	}
	out := map[*Session][]int{}
	n := 0
	for _, m := range matches {
		s := byLabel[strings.Trim(m[1], "(:,;")]
		seq, err := strconv.Atoi(m[2])
		if s == nil || err != nil || n == maxCitations {
			continue
		}
		out[s] = append(out[s], seq)
		n++
	}
	return out
}

// openingExchange is a session's handshake: the evidence of a check that judged
// what the session's opening showed (its initialize or server/discover result).
func openingExchange(s *Session) *reports.Exchange {
	if s.Conn == nil {
		return sseOpeningExchange(s)
	}
	if s.openedSeq == 0 {
		return &reports.Exchange{}
	}
	entries, _ := s.Conn.Transcript()
	p := &exchangePart{s: s, entries: map[int]wire.Entry{}}
	for _, e := range entries {
		if e.Seq <= s.openedSeq {
			p.entries[e.Seq] = e
		}
	}
	if len(p.entries) == 0 {
		return &reports.Exchange{}
	}
	return partsExchange([]*exchangePart{p})
}

// sseOpeningExchange is, for an HTTP+SSE session whose event stream did not open,
// the first event its GET showed: the evidence of SSE-ENDPOINT-EVENT-01 when the
// stream does not start with its endpoint event. Empty otherwise.
func sseOpeningExchange(s *Session) *reports.Exchange {
	if s.opening == nil || s.opening.SSE == nil || s.opening.SSE.First == nil {
		return &reports.Exchange{}
	}
	op := s.opening.SSE
	ev := op.First
	m := reports.ExchangeMessage{Seq: 1, Dir: string(wire.Received), Source: "sse (event: " + cmp.Or(ev.Type, "message") + ")", Raw: ev.Data}
	if op.Exchange != nil {
		m.At = op.Exchange.At.UTC()
	}
	if op.Problem != nil {
		m.Problem = op.Problem.Error()
	}
	return &reports.Exchange{Sessions: []reports.ExchangeSession{{Session: s.Label, Transport: "sse", Requested: s.Requested, Messages: []reports.ExchangeMessage{m}}}}
}
