package transports

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// The session rules of Streamable HTTP (2025-03-26 to 2025-11-25): the Mcp-Session-Id
// a server assigns, what it answers without one or after the session ended, and the
// MCP-Protocol-Version header. They are read from the transport's record of HTTP
// exchanges; the probes that end a session do so on a session of their own
// (probeSessionEnd), so that the revision's main session serves every other check.

// headerSessionID is the session header (names compare case-insensitively).
const headerSessionID = "Mcp-Session-Id"

// seenID is one Mcp-Session-Id value a reply carried, and which reply.
type seenID struct {
	at    int // the exchange's index
	what  string
	value string
}

// sessionIDsSeen lists every Mcp-Session-Id value the replies carried, in the order
// of the exchanges.
func sessionIDsSeen(xs []transport.Exchange) []seenID {
	var out []seenID
	for i, x := range xs {
		for _, v := range x.Header.Values(headerSessionID) {
			out = append(out, seenID{at: i, what: fmt.Sprintf("the reply to %s #%d (HTTP %d)", x.Method, i+1, x.Status), value: v})
		}
	}
	return out
}

// SHTTP-SESSION-ASSIGN-01 — {rev}/basic/transports.mdx (Session Management).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-SESSION-ASSIGN-01", Title: "a session id, if any, is assigned on the reply carrying the InitializeResult",
	Run: func(t *conform.T) conform.Verdict {
		_, hs := conform.TransportOf[*transport.StreamableHTTP](t)
		xs := hs.Exchanges()
		if len(xs) == 0 || xs[0].Method != http.MethodPost {
			return conform.Errorf("not verified: the session's first exchange is not the initialize POST")
		}
		return judgeAssign(xs)
	},
})

// judgeAssign judges the ids a session's replies carried: none, or one assigned on
// the first (initialize) reply and never another.
func judgeAssign(xs []transport.Exchange) conform.Verdict {
	seen := sessionIDsSeen(xs)
	if len(seen) == 0 {
		return conform.Note("no Mcp-Session-Id on any of %d replies: the server assigns no session, which the rule allows", len(xs))
	}
	var f conform.Findings
	assigned := ""
	if seen[0].at == 0 {
		assigned = seen[0].value
	} else {
		f.Fail(fmt.Sprintf("the initialize reply carried none, %s carried %q", seen[0].what, conform.Clip(seen[0].value, 60)))
	}
	for _, s := range seen[1:] {
		if s.value != assigned {
			f.Fail(fmt.Sprintf("%s carried %q, not the assigned %q", s.what, conform.Clip(s.value, 60), conform.Clip(assigned, 60)))
		}
	}
	if f.Failed() {
		return f.Violation("one Mcp-Session-Id, on the reply carrying the InitializeResult")
	}
	return conform.Pass("assigned on the initialize reply (%d characters); %d later replies repeat it, none names another", len(assigned), len(seen)-1)
}

// SHTTP-SESSION-CHARS-01 — {rev}/basic/transports.mdx (Session Management).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-SESSION-CHARS-01", Title: "the session id holds only visible ASCII (0x21–0x7E)",
	Run: func(t *conform.T) conform.Verdict {
		_, hs := conform.TransportOf[*transport.StreamableHTTP](t)
		return judgeChars(sessionIDsSeen(hs.Exchanges()))
	},
})

func judgeChars(seen []seenID) conform.Verdict {
	if len(seen) == 0 {
		return conform.Skip(conform.NotApplicable, "the server assigned no session id")
	}
	var f conform.Findings
	for _, s := range seen {
		f.Judged++
		if i := strings.IndexFunc(s.value, func(r rune) bool { return r < 0x21 || r > 0x7e }); i >= 0 || s.value == "" {
			f.Fail(fmt.Sprintf("%s: %q", s.what, conform.Clip(s.value, 60)))
		}
	}
	return f.Verdict("only visible ASCII (0x21–0x7E) in Mcp-Session-Id", "", fmt.Sprintf("%d session id header(s), all visible ASCII", f.Judged))
}

// sessionEnd is what the probe of a session's end found (probeSessionEnd).
type sessionEnd struct {
	err       error // the probe could not run
	noSession bool  // the fresh session got no session id
	mainID    string
	firstID   string // the id of the session the probe ended
	deleted   transport.Exchange
	deleteErr error
	oldID     *httpReply // a request with the terminated id (nil: DELETE was not 2xx)
	neverID   httpReply  // a request with an id the server never issued
	reinit    *httpReply // initialize without a session id after a 404 (nil: no 404 came)
	reinitID  string     // the id the re-initialized session got
}

// neverIssuedID is a session id no server issued: visible ASCII, long and random
// enough that a server could not have minted it.
const neverIssuedID = "mcp-conform-never-issued-3b5f0c9e7a2d4186"

// probeSessionEnd ends a session of its own and looks at what follows, once per
// revision for the four checks that judge it (SHTTP-SESSION-DELETE-01, -404-01,
// -REINIT-01, -SECURE-01): DELETE with its id; a request with the terminated id; a
// request with an id never issued; then, after a 404, a new initialize without a
// session id, as the spec tells a client to do. The session is the check's own
// (FreshSessions: 1): ending the main one would cost every other check its
// session. The re-initialized session is DELETEd at once; the probe keeps none.
func probeSessionEnd(t *conform.T, hs *transport.StreamableHTTP) *sessionEnd {
	return t.Once("shttp-session-end:"+t.Rev.Name, func() any {
		e := &sessionEnd{mainID: hs.SessionID()}
		fs, err := t.NewSession()
		if err != nil {
			e.err = fmt.Errorf("open a session to end: %w", err)
			return e
		}
		ft, ok := fs.Conn.Transport().(*transport.StreamableHTTP)
		if !ok {
			e.err = fmt.Errorf("the new session is not over Streamable HTTP")
			return e
		}
		if e.firstID = ft.SessionID(); e.firstID == "" {
			e.noSession = true
			return e
		}
		e.deleted, e.deleteErr = ft.Probe(t.Ctx, http.MethodDelete, nil)
		if e.deleteErr != nil {
			return e
		}
		if e.deleted.Status >= 200 && e.deleted.Status < 300 {
			r := httpCall(t, fs, ft, "ping", nil, nil)
			e.oldID = &r
		}
		e.neverID = httpCall(t, fs, ft, "ping", nil, hdr(headerSessionID, neverIssuedID))
		if (e.oldID == nil || e.oldID.status() != http.StatusNotFound) && e.neverID.status() != http.StatusNotFound {
			return e
		}
		raw, err := wire.EncodeRequest(fs.Conn.NextID(), "initialize", conform.InitializeParams(t.Rev.Name, "reinit"))
		if err != nil {
			e.err = fmt.Errorf("encode initialize: %w", err)
			return e
		}
		// A new InitializeRequest carries neither the old session's id nor its
		// version: it is a first request.
		r := httpCallRaw(t, fs, ft, "initialize", raw, hdr(headerSessionID, "", transport.HeaderProtocolVersion, ""))
		e.reinit = &r
		if r.x != nil {
			e.reinitID = r.x.Header.Get(headerSessionID)
		}
		if e.reinitID != "" {
			_, _ = ft.Probe(t.Ctx, http.MethodDelete, hdr(headerSessionID, e.reinitID))
		}
		return e
	}).(*sessionEnd)
}

// sessionEndFor runs the probe for a check, or ends the check in a column where it
// cannot run.
func sessionEndFor(t *conform.T) *sessionEnd {
	_, hs := conform.TransportOf[*transport.StreamableHTTP](t)
	if hs.SessionID() == "" {
		t.Stop(conform.Skip(conform.NotApplicable, "the server assigned no session id: there is no session to end"))
	}
	e := probeSessionEnd(t, hs)
	switch {
	case e.err != nil:
		t.Stop(conform.Errorf("not verified: %v", e.err))
	case e.noSession:
		t.Stop(conform.Skip(conform.NotApplicable, "a new session got no session id: there is no session to end"))
	case e.deleteErr != nil:
		t.Stop(conform.Errorf("not verified: DELETE: %v", e.deleteErr))
	}
	return e
}

// SHTTP-SESSION-DELETE-01 — {rev}/basic/transports.mdx (Session Management).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-SESSION-DELETE-01", Title: "DELETE with the session id ends the session, or is answered 405",
	Phase: conform.PhaseOddInput, FreshSessions: 1,
	// FreshSessions: the session it ends (probeSessionEnd).
	Run: sessionEndRun(judgeDelete),
})

// sessionEndRun is the body of a check of the session-end probe (probeSessionEnd,
// run once per column): judge settles its part of what the probe saw.
func sessionEndRun(judge func(e *sessionEnd) conform.Verdict) func(t *conform.T) conform.Verdict {
	return func(t *conform.T) conform.Verdict {
		return judge(sessionEndFor(t))
	}
}

// judgeDelete judges the DELETE that ended the session.
func judgeDelete(e *sessionEnd) conform.Verdict {
	status := e.deleted.Status
	switch {
	case status >= 200 && status < 300:
		return conform.Pass("DELETE → HTTP %d: the session was ended (SHTTP-SESSION-404-01 judges what follows)", status)
	case status == http.StatusMethodNotAllowed:
		return conform.Note("DELETE → HTTP 405: the server does not let clients end sessions, which the rule allows")
	}
	return conform.Violation("DELETE with the session id → 2xx (session ended) or 405 (not allowed)", fmt.Sprintf("HTTP %d", status))
}

// SHTTP-SESSION-404-01 — {rev}/basic/transports.mdx (Session Management).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-SESSION-404-01", Title: "a request naming a terminated session is answered 404",
	Phase: conform.PhaseOddInput, FreshSessions: 1,
	// FreshSessions: the session it ends (probeSessionEnd).
	Run: sessionEndRun(judge404),
})

// judge404 judges the requests after the DELETE: one naming the terminated session,
// and one naming a session id never issued.
func judge404(e *sessionEnd) conform.Verdict {
	never := "a request with a never-issued session id → " + e.neverID.describe()
	neverOK := e.neverID.status() == http.StatusNotFound
	if e.oldID == nil {
		if !neverOK {
			return conform.Warn("HTTP 404 for a session id the server never issued", never)
		}
		return conform.Note("%s; DELETE got HTTP %d, so no terminated session was probed", never, e.deleted.Status)
	}
	old := fmt.Sprintf("after DELETE → HTTP %d, a request with the terminated id → %s", e.deleted.Status, e.oldID.describe())
	switch {
	case e.oldID.status() != http.StatusNotFound:
		return conform.Violation("HTTP 404 for a request naming the terminated session", old)
	case !neverOK:
		return conform.Warn("HTTP 404 for a session id the server never issued", never+" ("+old+")")
	}
	return conform.Pass("%s; %s", old, never)
}

// SHTTP-SESSION-REINIT-01 — {rev}/basic/transports.mdx (Session Management).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-SESSION-REINIT-01", Title: "after a 404 a new initialize without a session id opens a new session",
	Phase: conform.PhaseOddInput, FreshSessions: 1,
	// FreshSessions: the session it ends (probeSessionEnd).
	Run: sessionEndRun(judgeReinit),
})

// judgeReinit judges the new initialize without a session id sent after a 404.
func judgeReinit(e *sessionEnd) conform.Verdict {
	if e.reinit == nil {
		return conform.Skip(conform.NotExercised, "the server answered no request with 404 (SHTTP-SESSION-404-01), so no client would start again")
	}
	if !e.reinit.processed() {
		return conform.Violation("an InitializeResult for a new initialize without Mcp-Session-Id after a 404", e.reinit.describe())
	}
	switch {
	case e.reinitID == "":
		return conform.Note("a new session opened after the 404 (%s), without a session id", conform.Clip(e.reinit.describe(), 120))
	case e.reinitID == e.firstID:
		return conform.Violation("a new session after the 404", fmt.Sprintf("%s, with the terminated session's id %q", e.reinit.describe(), conform.Clip(e.reinitID, 60)))
	}
	return conform.Pass("a new session opened after the 404: %s, with a new session id", conform.Clip(e.reinit.describe(), 120))
}

// SHTTP-SESSION-SECURE-01 — {rev}/basic/transports.mdx (Session Management).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-SESSION-SECURE-01", Title: "session ids are unique and look cryptographically random",
	Phase: conform.PhaseOddInput, FreshSessions: 1,
	// FreshSessions: the session SHTTP-SESSION-404-01 ends; its id and the re-initialized one's are compared with the main one.
	Run: func(t *conform.T) conform.Verdict {
		e := sessionEndFor(t)
		ids := []string{e.mainID, e.firstID}
		if e.reinitID != "" {
			ids = append(ids, e.reinitID)
		}
		return judgeSecure(ids)
	},
})

// minSecureID is the shortest id the heuristic takes for a random one: 16 hex
// digits are 64 bits; a UUID has 36 characters.
const minSecureID = 16

func judgeSecure(ids []string) conform.Verdict {
	var f conform.Findings
	for i, id := range ids {
		f.Judged++
		if len(id) < minSecureID {
			f.Fail(fmt.Sprintf("%q has %d characters (fewer than %d cannot hold a secure random value)", conform.Clip(id, 60), len(id), minSecureID))
		}
		for _, prev := range ids[:i] {
			switch {
			case prev == id:
				f.Fail(fmt.Sprintf("two sessions got the same id %q", conform.Clip(id, 60)))
			case sequential(prev, id):
				f.Fail(fmt.Sprintf("%q and %q differ only by a small count", conform.Clip(prev, 60), conform.Clip(id, 60)))
			}
		}
	}
	return f.Verdict("distinct session ids of at least 16 characters, not a counter", "",
		fmt.Sprintf("%d session ids, distinct, each of %d or more characters, none a count of another", f.Judged, minSecureID))
}

// trimZeros drops the leading zeros of a number, keeping one digit.
func trimZeros(n string) string {
	for len(n) > 1 && n[0] == '0' {
		n = n[1:]
	}
	return n
}

// sequential reports whether two ids are the same but for one number that differs by
// a small count (decimal or hex): a counter, which anyone can guess.
func sequential(a, b string) bool {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	// Widen the differing parts to the whole number they sit in.
	isDigit := func(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }
	for p > 0 && isDigit(a[p-1]) {
		p--
	}
	for s > 0 && isDigit(a[len(a)-s]) {
		s--
	}
	da, db := trimZeros(a[p:len(a)-s]), trimZeros(b[p:len(b)-s])
	if da == "" || db == "" || len(da) > 16 || len(db) > 16 {
		return false
	}
	for _, base := range []int{10, 16} {
		x, errA := strconv.ParseUint(da, base, 64)
		y, errB := strconv.ParseUint(db, base, 64)
		if errA == nil && errB == nil {
			d := int64(x - y)
			return d != 0 && d > -10000 && d < 10000
		}
	}
	return false
}

// SHTTP-SESSION-MISSING-01 — {rev}/basic/transports.mdx (Session Management).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-SESSION-MISSING-01", Title: "a server that requires a session answers a request without Mcp-Session-Id with 400",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		_, hs := conform.TransportOf[*transport.StreamableHTTP](t)
		if hs.SessionID() == "" {
			return conform.Skip(conform.NotApplicable, "the server assigned no session id, so it requires none")
		}
		// The probe names no session, so it cannot disturb the main one; it goes
		// through the main session's connection for the user's headers.
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("not verified: %v", err)
		}
		return judgeMissing(httpCall(t, s, hs, "ping", nil, hdr(headerSessionID, "")))
	},
})

func judgeMissing(r httpReply) conform.Verdict {
	const what = "ping without Mcp-Session-Id"
	switch {
	case r.x == nil:
		return conform.Silence("HTTP 400 for "+what, r.err)
	case r.status() == http.StatusBadRequest:
		return conform.Pass("%s → %s", what, r.describe())
	case r.processed():
		return conform.Skip(conform.NotApplicable, "%s was served (%s): the server does not require a session id, so the rule does not bind it", what, r.describe())
	}
	return conform.Violation("HTTP 400 for "+what, r.describe())
}

// shttpProbeMethod is a harmless request for the header probes: tools/list when the
// server has tools, else ping.
func shttpProbeMethod(s *conform.Session) string {
	if _, ok := s.Capabilities()["tools"]; ok {
		return "tools/list"
	}
	return "ping"
}

// SHTTP-PV-HEADER-BAD-01 — {rev}/basic/transports.mdx (Protocol Version Header).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-PV-HEADER-BAD-01", Title: "an invalid or unsupported MCP-Protocol-Version header is answered 400",
	Phase: conform.PhaseOddInput, Spare: true,
	// Spare: a server may end a session that sends a bad version.
	Run: func(t *conform.T) conform.Verdict {
		s, err := t.SpareSession()
		if err != nil {
			return conform.Errorf("not verified: %v", err)
		}
		hs, ok := s.Conn.Transport().(*transport.StreamableHTTP)
		if !ok {
			return conform.Errorf("not verified: the spare session is not over Streamable HTTP")
		}
		method := shttpProbeMethod(s)
		var cases []h5Case
		// A date before and one after every real version (a server that compares
		// with one bound instead of a list of versions passes one of them), and
		// one that is no version at all.
		for _, bad := range []string{"1999-01-01", "2099-01-01", "not-a-version"} {
			r := httpCall(t, s, hs, method, nil, hdr(transport.HeaderProtocolVersion, bad))
			c := h5Case{what: fmt.Sprintf("%s with MCP-Protocol-Version: %s", method, bad)}
			if r.x == nil {
				return conform.Silence("HTTP 400 for "+c.what, r.err)
			}
			if r.status() != http.StatusBadRequest {
				c.bad = r.describe()
			}
			cases = append(cases, c)
		}
		return h5Judge(t, "HTTP 400 Bad Request", cases)
	},
})

// SHTTP-PV-HEADER-MISSING-01 — {rev}/basic/transports.mdx (Protocol Version Header).
var _ = conform.Register(conform.Check{
	ID: "SHTTP-PV-HEADER-MISSING-01", Title: "a request without MCP-Protocol-Version is served (as the negotiated version or 2025-03-26)",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		s, hs, err := scratchHTTP(t)
		if err != nil {
			return conform.Errorf("not verified: %v", err)
		}
		method := shttpProbeMethod(s)
		r := httpCall(t, s, hs, method, nil, hdr(transport.HeaderProtocolVersion, ""))
		return judgeVersionMissing(r, method, hs.SessionID() != "", t.RevisionsAsked()["2025-03-26"])
	},
})

// judgeVersionMissing: a session gives the server the negotiated version, so the
// request is served; without one the server assumes 2025-03-26, and one that does
// not serve 2025-03-26 (negotiated26 names what the run's 2025-03-26 column got, ""
// when refused, absent when not asked) rightly refuses.
func judgeVersionMissing(r httpReply, method string, session bool, negotiated26 string) conform.Verdict {
	what := method + " without MCP-Protocol-Version"
	switch {
	case r.x == nil:
		return conform.Silence("a reply to "+what, r.err)
	case r.processed():
		return conform.Pass("%s was served: %s", what, conform.Clip(r.describe(), 120))
	case !session && negotiated26 != "2025-03-26":
		return conform.Skip(conform.NotApplicable, "%s → %s: the server has no session to tell the version by, and 2025-03-26, which it would assume, is not one it serves (the run's 2025-03-26 column: %q)", what, r.describe(), negotiated26)
	}
	return conform.Violation(what+" served as the negotiated version", r.describe())
}
