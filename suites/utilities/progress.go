package utilities

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/tasks"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Progress notifications (the PROG rows). Every request the suite sends through
// the toolkit carries a unique progressToken (string and integer tokens alternate);
// these checks pair every notifications/progress received in the revision's sessions
// with the request whose token it names, after a probe that calls the fixture
// test_tool_with_progress and closes with a barrier request (ping; server/discover in
// 2026-07-28, which has no ping). Progress is optional
// (PROG-OPTIONAL-01): no progress at all is a skip, never a failure.

// ctProgressFixture is the fixture tool that sends progress.
const ctProgressFixture = "test_tool_with_progress"

// ctProgressMethod is the progress notification's method.
const ctProgressMethod = "notifications/progress"

// ctCrossStreamSlack tolerates progress that arrives on another HTTP stream (GET)
// just after the response: the two streams are not ordered with each other. Never in
// 2026-07-28: there a request's progress travels only on its own response stream (no
// GET stream exists), so progress ordered after the reply came after it.
const ctCrossStreamSlack = 100 * time.Millisecond

// ctTokenRequest is a request the suite sent with a progressToken.
type ctTokenRequest struct {
	Session *conform.Session
	Method  string
	ID      wire.ID
	Token   wire.ID // the token, kept with its JSON type
	SentSeq int
	Resp    *wire.Entry // the reply (nil when none came)
	// Task is the task the server created for the request (2025-11-25), nil for a
	// request answered as usual.
	Task *tasks.Task
	// End is when the request stopped being active: its reply, or for a task the
	// first sign of the task's terminal status (progress.mdx: the token "remains
	// valid and associated with the task until the task reaches a terminal status").
	// Nil while neither came.
	End *wire.Entry
}

// ended describes the request's end for messages.
func (r *ctTokenRequest) ended() string {
	if r.Task != nil {
		return fmt.Sprintf("the end of the task %s created for %s (#%d, %s)", r.Task.ID, r.Method, r.End.Seq, r.Task.EndHow)
	}
	return fmt.Sprintf("the reply to %s (#%d)", r.Method, r.End.Seq)
}

// ctProgress is one progress notification received.
type ctProgress struct {
	toolkit.SessionEntry
	TokenRaw json.RawMessage
	Token    wire.ID // zero when the token is absent or not a string or number
	Progress *float64
	Req      *ctTokenRequest // the request with exactly this token, or nil
	Loose    *ctTokenRequest // the request whose token has this value in another JSON type
	// RelTask is the task the notification's related-task _meta names (nil when it
	// names none the session's transcript created).
	RelTask *tasks.Task
}

// ctProgressTraffic is every request with a progressToken and every progress
// notification of the revision's sessions.
type ctProgressTraffic struct {
	Requests []*ctTokenRequest
	Progress []*ctProgress
}

// ctProgressTrafficOf is the revision's progress traffic, collected once: the
// transcript checks that judge it are judged after the column has settled, when
// its transcripts are complete, and only read it.
func ctProgressTrafficOf(t *conform.T) *ctProgressTraffic {
	return t.Once("PROG:traffic:"+t.Rev.Name, func() any { return ctCollectProgress(t) }).(*ctProgressTraffic)
}

// ctCollectProgress reads the revision's transcripts.
func ctCollectProgress(t *conform.T) *ctProgressTraffic {
	pt := &ctProgressTraffic{}
	for _, s := range toolkit.RevisionSessions(t) {
		entries, _ := s.Conn.Transcript()
		track := tasks.Track(entries)
		byID, byLoose := map[string]*ctTokenRequest{}, map[string]*ctTokenRequest{}
		var reqs []*ctTokenRequest
		first := len(pt.Progress)
		for i := range entries {
			e := &entries[i]
			if e.Msg == nil {
				continue
			}
			switch {
			case e.Dir == wire.Sent && e.Msg.Kind == wire.KindRequest:
				if r := ctTokenOf(s, e); r != nil {
					reqs = append(reqs, r)
					byID[r.ID.Key()], byLoose[r.ID.LooseKey()] = r, r
				}
			case e.Dir == wire.Received && e.Msg.IsResponse():
				r := byID[e.Msg.ID.Key()]
				if r == nil && e.LooseID {
					r = byLoose[e.Msg.ID.LooseKey()]
				}
				if r != nil && r.Resp == nil {
					r.Resp = e
				}
			case e.Dir == wire.Received && e.Msg.Method == ctProgressMethod:
				p := ctProgressOf(s, *e, reqs)
				if p.request() == nil && toolkit.TokenElsewhere(s, p.TokenRaw) {
					continue // another session's or a probe's: SHTTP-NO-BROADCAST-01
				}
				pt.Progress = append(pt.Progress, p)
			}
		}
		for _, r := range reqs {
			r.Task, r.End = track.ByRequest[r.ID.Key()], r.Resp
			if r.Task != nil {
				r.End = r.Task.End
			}
		}
		for _, p := range pt.Progress[first:] {
			p.RelTask = track.ByID[tasks.RelatedTask(p.Msg)]
		}
		pt.Requests = append(pt.Requests, reqs...)
	}
	return pt
}

// ctTokenOf returns the request's progressToken record, or nil when it has none.
func ctTokenOf(s *conform.Session, e *wire.Entry) *ctTokenRequest {
	// One member of every request the revision sent: looked up, not decoded.
	meta, ok := rawjson.Lookup(e.Msg.Params, "_meta")
	if !ok {
		return nil
	}
	raw, ok := rawjson.Lookup(meta, "progressToken")
	if !ok {
		return nil
	}
	tok, err := wire.ParseID(raw)
	if err != nil || tok.IsNull() {
		return nil
	}
	return &ctTokenRequest{Session: s, Method: e.Msg.Method, ID: e.Msg.ID, Token: tok, SentSeq: e.Seq}
}

// ctProgressOf decodes a progress notification and pairs it with the latest request
// sent before it that carried its token (exactly, or in another JSON type).
func ctProgressOf(s *conform.Session, e wire.Entry, reqs []*ctTokenRequest) *ctProgress {
	p := &ctProgress{SessionEntry: toolkit.SessionEntry{Session: s, Entry: e}}
	var params struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress json.RawMessage `json:"progress"`
	}
	_ = json.Unmarshal(e.Msg.Params, &params)
	p.TokenRaw = params.Token
	var f float64
	if toolkit.JSONKind(params.Progress) == "number" && json.Unmarshal(params.Progress, &f) == nil {
		p.Progress = &f
	}
	tok, err := wire.ParseID(params.Token)
	if err != nil || tok.IsZero() || tok.IsNull() {
		return p
	}
	p.Token = tok
	for i := len(reqs) - 1; i >= 0; i-- {
		r := reqs[i]
		switch {
		case p.Req == nil && r.Token.Key() == tok.Key():
			p.Req = r
		case p.Req == nil && p.Loose == nil && r.Token.LooseKey() == tok.LooseKey():
			p.Loose = r
		}
	}
	return p
}

// request is the request the notification refers to: the exact match, else the
// loose one.
func (p *ctProgress) request() *ctTokenRequest {
	if p.Req != nil {
		return p.Req
	}
	return p.Loose
}

// afterDone says, for a notification received after its request's end (its reply;
// for a task, the task's end), how late it was ("" when it was not, or when it came
// on another HTTP stream within the slack).
func (p *ctProgress) afterDone() string {
	r := p.request()
	if r == nil || r.End == nil || p.Seq < r.End.Seq {
		return ""
	}
	late := p.At.Sub(r.End.At)
	if !p.Session.Modern() && p.Source != r.End.Source && late < ctCrossStreamSlack {
		return ""
	}
	return fmt.Sprintf("%s (token %s) arrived after %s, %s later", p.Where(), p.TokenRaw, r.ended(), late.Round(time.Millisecond))
}

// ctProbeResult is what the progress probe did.
type ctProbeResult struct {
	called  bool   // the fixture was listed and called
	outcome string // what its call returned
	barrier string // why the barrier request failed ("" when it worked)
}

// ctProgressProbe calls test_tool_with_progress on the main session (once: the call
// is memoized) and then sends the barrier request (ping, or server/discover in
// 2026-07-28): on stdio its reply proves that nothing the server sent for the call
// before answering it is still on its way.
func ctProgressProbe(t *conform.T) ctProbeResult {
	s := t.Session()
	return t.Once("ct.progress-probe:"+s.Label, func() any {
		o := toolkit.CallIfAllowed(t, toolkit.List(t), ctProgressFixture)
		if o == nil {
			return ctProbeResult{}
		}
		res := ctProbeResult{called: true, outcome: toolkit.DescribeOutcome(o)}
		if _, err := s.Call(t.Ctx, s.Conn.BarrierMethod(), nil); err != nil {
			res.barrier = conform.Describe(nil, err)
		}
		return res
	}).(ctProbeResult)
}

// ctVerdict is a progress check's verdict on its findings: the skip of ctNoProgress
// (naming missing, what never came) when nothing was judged, else the findings'
// verdict against want, with pass as the message of a pass.
func ctVerdict(f conform.Findings, probe ctProbeResult, missing, want, pass string) conform.Verdict {
	if f.Judged == 0 {
		return ctNoProgress(probe, missing)
	}
	return f.Verdict(want, "", pass)
}

// ctProgressCheck is c judging the progress ctProgressProbe drew: the probe is made
// in the column's probe pass, and judge gets its result.
func ctProgressCheck(c conform.Check, judge func(t *conform.T, probe ctProbeResult) conform.Verdict) conform.Check {
	c.Probe = func(t *conform.T) { ctProgressProbe(t) }
	c.Run = func(t *conform.T) conform.Verdict { return judge(t, ctProgressProbe(t)) }
	return c
}

// ctNoProgress is the skip of a progress check with nothing to judge.
func ctNoProgress(p ctProbeResult, what string) conform.Verdict {
	if !p.called {
		return conform.Skip(conform.MissingFixture, "no %s was received (progress is optional: PROG-OPTIONAL-01); list the fixture tool %s (the fixture contract, refserver/doc.go) to exercise it", what, ctProgressFixture)
	}
	return conform.Skip(conform.NotExercised, "no %s was received (progress is optional: PROG-OPTIONAL-01); %s returned %s", what, ctProgressFixture, p.outcome)
}

// PROG-TOKEN-01 — {rev}/basic/utilities/progress.mdx (2026-07-28: basic/patterns/progress.mdx) (Behavior Requirements).
var _ = conform.Register(conform.Check{
	ID: "PROG-TOKEN-01", Title: "progress names only tokens of the suite's requests still in progress",
	// The second session of ctLeakProbe (2024-11-05 over HTTP).
	FreshSessions: 1,
	Probe:         func(t *conform.T) { ctProgressProbe(t); ctLeakProbe(t) },
	Run:           func(t *conform.T) conform.Verdict { return runProgressToken(t, ctProgressProbe(t)) },
})

// ctLeakRevision is the revision whose column makes ctLeakProbe: a server that
// shares one process among sessions (HTTP) can send one session's progress to
// another, and at 2024-11-05 only progress.mdx's rule judges that ("Progress
// notifications MUST only reference tokens that: Were provided in an active
// request"; the receiving session provided none). From 2025-03-26 the same leak over
// Streamable HTTP is SHTTP-NO-BROADCAST-01's (transports.mdx, Multiple
// Connections), whose probe is this one's, and the progress row leaves it there:
// one behaviour, one finding per column.
const ctLeakRevision = "2024-11-05"

// ctLeak is what ctLeakProbe did: a call on a second session, whose progress is
// counted where it went once the column has settled (judgeLeak).
type ctLeak struct {
	caller     *conform.Session
	token      json.RawMessage // the call's progressToken
	mark       int             // the main session's transcript seq before the call
	markCaller int             // the calling session's transcript seq before the call
	err        string          // why the probe could not judge ("" when it could)
}

// ctLeakProbe calls test_tool_with_progress on a second session of the column
// (once per column), so that any of the call's progress the server sends the main
// session instead is in its transcript: PROG-TOKEN-01 judges it there, a token the
// main session never provided. It waits for nothing after the call's reply: the
// probe is a transcript check's, judged once the column has settled, when both
// sessions are closed and every stream the server ended read to its end (over
// Streamable HTTP, the DELETE ends the main session's GET stream, where such a
// progress would come). Nil where the probe is not made: another revision, stdio
// (a process per session) or the fixture not listed.
func ctLeakProbe(t *conform.T) *ctLeak {
	s := t.Session()
	if s == nil || s.Conn == nil || t.Rev.Name != ctLeakRevision || s.Kind == "stdio" || s.Modern() {
		return nil
	}
	return t.Once("ct.leak-probe:"+s.Label, func() any {
		tl := toolkit.List(t).Find(ctProgressFixture)
		if tl == nil {
			return (*ctLeak)(nil)
		}
		p := toolkit.Allowed(t, *tl)
		if !p.Allowed {
			return (*ctLeak)(nil)
		}
		caller, err := t.NewSession()
		if err != nil {
			return &ctLeak{err: fmt.Sprintf("open a second session: %v", err)}
		}
		lk := &ctLeak{caller: caller, mark: s.Conn.Seq(), markCaller: caller.Conn.Seq()}
		o := toolkit.Call(t, caller, ctProgressFixture, p.Args)
		lk.token, _ = json.Marshal(o.Token)
		if o.Err != nil || o.Resp == nil {
			lk.err = fmt.Sprintf("tools/call %s on the second session: %s", ctProgressFixture, o.Describe())
		}
		return lk
	}).(*ctLeak)
}

// ctNames reports whether e is a progress notification naming the token tok (raw
// JSON, compared as a token: the same value and type).
func ctNames(e wire.Entry, tok json.RawMessage) bool {
	if e.Msg == nil || e.Msg.Method != ctProgressMethod {
		return false
	}
	var params struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(e.Msg.Params, &params) != nil {
		return false
	}
	got, err1 := wire.ParseID(params.Token)
	want, err2 := wire.ParseID(tok)
	return err1 == nil && err2 == nil && got.Key() == want.Key()
}

// judgeLeak adds to f the progress of ctLeakProbe's call that reached the main
// session s, and returns what the pass message says of the probe ("" when it made
// none).
func judgeLeak(s *conform.Session, lk *ctLeak, f *conform.Findings) (string, error) {
	if lk == nil {
		return "", nil
	}
	if lk.err != "" {
		return "", errors.New(lk.err)
	}
	own, leaked := 0, 0
	for e := range lk.caller.Conn.EachReceived(lk.markCaller) {
		if ctNames(e, lk.token) {
			own++
		}
	}
	for e := range s.Conn.EachReceived(lk.mark) {
		if ctNames(e, lk.token) {
			leaked++
			f.Judged++
			f.Fail(fmt.Sprintf("%s: progress for token %s, which a request of the session %s provided; no request of this session did", toolkit.SessionEntry{Session: s, Entry: e}.Where(), lk.token, lk.caller.Label))
		}
	}
	if own == 0 && leaked == 0 {
		return fmt.Sprintf("; %s on a second session sent no progress, so none could reach this one", ctProgressFixture), nil
	}
	return fmt.Sprintf("; none of the %d of a second session's call (token %s) reached this session", own, lk.token), nil
}

func runProgressToken(t *conform.T, probe ctProbeResult) conform.Verdict {
	pt := ctProgressTrafficOf(t)
	var f conform.Findings
	leakNote, err := judgeLeak(t.Session(), ctLeakProbe(t), &f)
	if err != nil {
		return conform.Errorf("not verified: the second-session probe: %v", err)
	}
	if len(pt.Progress) == 0 && f.Judged == 0 {
		return ctNoProgress(probe, ctProgressMethod)
	}
	for _, p := range pt.Progress {
		f.Judged++
		switch {
		case p.Token.IsZero():
			f.Fail(fmt.Sprintf("%s has progressToken %s, not a string or integer token", p.Where(), toolkit.Or(string(p.TokenRaw), "(absent)")))
		case p.request() == nil:
			f.Fail(fmt.Sprintf("%s names token %s, which no request of the session carried", p.Where(), p.TokenRaw))
		case p.afterDone() != "":
			f.Fail(p.afterDone() + ": the request was no longer active")
		case p.Req == nil:
			f.Note(fmt.Sprintf("%s echoes token %s as a %s; it was sent as a %s (PROG-TOKEN-TYPE-01)", p.Where(), p.TokenRaw, p.Token.TypeName(), p.Loose.Token.TypeName()))
		}
	}
	return f.Verdict("progress only for tokens of requests still in progress (of the session that provided them)", "",
		fmt.Sprintf("%d progress notification%s, each for an active request's token%s", f.Judged, toolkit.Plural(f.Judged), leakNote))
}

// PROG-TOKEN-TYPE-01 — progress.mdx; schema ProgressToken.
var _ = conform.Register(ctProgressCheck(conform.Check{
	ID: "PROG-TOKEN-TYPE-01", Title: "progress echoes the token with its JSON type (string or integer)",
}, func(t *conform.T, probe ctProbeResult) conform.Verdict {
	pt := ctProgressTrafficOf(t)
	var f conform.Findings
	for _, p := range pt.Progress {
		switch {
		case p.Req != nil:
			f.Judged++
		case p.Loose != nil:
			f.Judged++
			f.Fail(fmt.Sprintf("%s echoes token %s as a %s; it was sent as a %s (%s)", p.Where(), p.TokenRaw, p.Token.TypeName(), p.Loose.Token.TypeName(), p.Loose.Token))
		}
	}
	return ctVerdict(f, probe, "progress notification naming a token the suite sent", "the token echoed with the JSON type it was sent with",
		fmt.Sprintf("%d progress notification%s echo their token exactly", f.Judged, toolkit.Plural(f.Judged)))
}))

// PROG-MONOTONIC-01 — {rev}/basic/utilities/progress.mdx (2026-07-28: basic/patterns/progress.mdx) (Progress Flow).
var _ = conform.Register(ctProgressCheck(conform.Check{
	ID: "PROG-MONOTONIC-01", Title: "progress increases with every notification for a token",
}, runProgressMonotonic))

func runProgressMonotonic(t *conform.T, probe ctProbeResult) conform.Verdict {
	pt := ctProgressTrafficOf(t)
	type series struct {
		last  *ctProgress
		count int
	}
	bySeries := map[*ctTokenRequest]*series{}
	var f conform.Findings
	for _, p := range pt.Progress {
		r := p.request()
		if r == nil || p.Progress == nil {
			continue // judged by PROG-TOKEN-01 and BASE-SCHEMA-01
		}
		s := bySeries[r]
		if s == nil {
			s = &series{}
			bySeries[r] = s
		}
		s.count++
		if s.last != nil && *p.Progress <= *s.last.Progress {
			f.Fail(fmt.Sprintf("token %s: progress %v at %s after %v at #%d", r.Token, *p.Progress, p.Where(), *s.last.Progress, s.last.Seq))
		}
		s.last = p
	}
	for _, s := range bySeries {
		if s.count >= 2 {
			f.Judged++
		}
	}
	return ctVerdict(f, probe, "pair of progress notifications for one token", "progress strictly increasing for each token",
		fmt.Sprintf("progress strictly increased for each of %d token%s with several notifications", f.Judged, toolkit.Plural(f.Judged)))
}

// PROG-AFTER-DONE-01 — {rev}/basic/utilities/progress.mdx (2026-07-28: basic/patterns/progress.mdx) (Implementation Notes).
var _ = conform.Register(ctProgressCheck(conform.Check{
	ID: "PROG-AFTER-DONE-01", Title: "no progress for a token after its request's reply",
}, runProgressAfterDone))

func runProgressAfterDone(t *conform.T, probe ctProbeResult) conform.Verdict {
	if probe.barrier != "" {
		return conform.Errorf("the barrier request after %s failed (%s): nothing bounds what may still arrive", ctProgressFixture, probe.barrier)
	}
	pt := ctProgressTrafficOf(t)
	var f conform.Findings
	withProgress := map[*ctTokenRequest]bool{}
	for _, p := range pt.Progress {
		r := p.request()
		if r == nil {
			continue // an unknown token: PROG-TOKEN-01
		}
		withProgress[r] = true
		if late := p.afterDone(); late != "" {
			f.Fail(late)
		}
	}
	for r := range withProgress {
		if r.End != nil {
			f.Judged++
		}
	}
	return ctVerdict(f, probe, "progress notification for a request that completed", "no progress for a token once its request was answered",
		fmt.Sprintf("%d completed request%s with progress; none after the reply (bounded by a barrier request)", f.Judged, toolkit.Plural(f.Judged)))
}

// PROG-MESSAGE-01 — {rev}/basic/utilities/progress.mdx (2026-07-28: basic/patterns/progress.mdx) (Progress Flow).
var _ = conform.Register(ctProgressCheck(conform.Check{
	ID: "PROG-MESSAGE-01", Title: "a progress message is human-readable text",
}, func(t *conform.T, probe ctProbeResult) conform.Verdict {
	pt := ctProgressTrafficOf(t)
	var f conform.Findings
	for _, p := range pt.Progress {
		var params struct {
			Message json.RawMessage `json:"message"`
		}
		_ = json.Unmarshal(p.Msg.Params, &params)
		var msg string
		if toolkit.JSONKind(params.Message) != "string" || json.Unmarshal(params.Message, &msg) != nil {
			continue
		}
		f.Judged++
		if why := ctUnreadable(msg); why != "" {
			f.Fail(fmt.Sprintf("%s: message %s %s", p.Where(), toolkit.Quote(msg), why))
		}
	}
	return ctVerdict(f, probe, "progress notification with a message", "a human-readable message in each progress notification that has one",
		fmt.Sprintf("%d progress message%s, each readable text", f.Judged, toolkit.Plural(f.Judged)))
}))

// ctUnreadable says why a progress message is no human-readable text ("" when it is).
func ctUnreadable(msg string) string {
	if strings.TrimSpace(msg) == "" {
		return "is blank"
	}
	letters := false
	for _, r := range msg {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			letters = true
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			return fmt.Sprintf("holds the control character %U", r)
		}
	}
	if !letters {
		return "has no letter or digit"
	}
	return ""
}
