package base

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/modern"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// BASE-UTF8-01 — {rev}/basic/transports.mdx.
var _ = conform.Register(conform.Check{
	ID: "BASE-UTF8-01", Title: "messages are UTF-8",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var bad conform.Findings
		for _, s := range t.Sessions() {
			if s == nil || s.Conn == nil {
				continue
			}
			entries, _ := s.Conn.Transcript()
			for _, e := range entries {
				if e.Dir == wire.Received && strings.Contains(e.Err, "not valid UTF-8") {
					bad.Fail(fmt.Sprintf("%s #%d (%s): %s", s.Label, e.Seq, e.Source, e.Err))
				}
			}
		}
		if bad.Failed() {
			return bad.Violation("every message valid UTF-8")
		}
		return conform.Pass("every message received in this revision's sessions was valid UTF-8")
	},
})

// BASE-RESP-ID-01 — {rev}/basic/index.mdx (Responses).
var _ = conform.Register(conform.Check{
	ID: "BASE-RESP-ID-01", Title: "replies carry the request's id: same value, same JSON type",
	Probe: func(t *conform.T) { respIDsOnce(t) },
	Run: func(t *conform.T) conform.Verdict {
		// The probe was made once per revision while the session was open (Probe);
		// every reply of the revision's sessions is judged after it settled.
		p := respIDsOnce(t)
		if p.silent != nil {
			return *p.silent
		}
		bad := p.bad
		// Every other reply of this revision's sessions must have matched exactly too.
		for _, sess := range t.Sessions() {
			for _, e := range t.Transcript(sess) {
				if e.Dir == wire.Received && e.LooseID {
					bad.Fail(fmt.Sprintf("%s #%d: the reply to %s came back with id %s of the wrong JSON type", sess.Label, e.Seq, e.ForMethod, e.Msg.ID))
				}
			}
		}
		if bad.Failed() {
			return bad.Violation("every reply's id equal to its request's id, with the same JSON type")
		}
		return conform.Pass("ids \"c-1\", %s, 0 and 9007199254740991 echoed exactly", p.fresh)
	},
})

// respIDProbe is what BASE-RESP-ID-01's probe saw: ids that came back altered, or
// the silence that ended it.
type respIDProbe struct {
	fresh  wire.ID // the ordinary integer id the probe used
	bad    conform.Findings
	silent *conform.Verdict
}

// respIDsOnce is BASE-RESP-ID-01's probe, made once per revision.
func respIDsOnce(t *conform.T) respIDProbe {
	return t.Once("BASE-RESP-ID-01:"+t.Rev.Name, func() any { return probeResponseIDs(t) }).(respIDProbe)
}

// probeResponseIDs sends the barrier method with ids of each JSON type on the main
// session and records every reply whose id is not the request's exactly. Ids are
// never reused in a session, so the ordinary integer is a fresh one, and 0 and
// 2^53-1 are ids the suite's counter (from 1, upwards) has not reached.
func probeResponseIDs(t *conform.T) respIDProbe {
	s := t.Session()
	ids := []wire.ID{wire.StringID("c-1"), s.Conn.NextID(), wire.NumberID(0), wire.NumberID(9007199254740991)}
	// ping has no place in 2026-07-28: there the probe is server/discover, the
	// request every modern server answers at any time.
	method := s.Conn.BarrierMethod()
	p := respIDProbe{fresh: ids[1]}
	for _, id := range ids {
		after := s.Conn.Seq()
		resp, err := s.Conn.CallID(t.Ctx, id, method, nil)
		switch {
		case err == nil && !resp.IDExact:
			p.bad.Fail(fmt.Sprintf("sent id %s (%s), the reply's id is %s (%s)", id, id.TypeName(), resp.Msg.ID, resp.Msg.ID.TypeName()))
		case errors.Is(err, wire.ErrTimeout):
			if stray := strayReplies(s, after); stray != "" {
				p.bad.Fail(fmt.Sprintf("sent id %s, no reply carried it; replies seen: %s", id, stray))
				continue
			}
			v := conform.Silence("a reply to "+method+" with id "+id.String(), err)
			p.silent = &v
			return p
		case err != nil:
			v := conform.Silence("a reply to "+method+" with id "+id.String(), err)
			p.silent = &v
			return p
		}
	}
	return p
}

// strayReplies describes responses received after seq that matched no request.
func strayReplies(s *conform.Session, after int) string {
	var out []string
	for e := range s.Conn.EachReceived(after) {
		if e.Msg != nil && e.Msg.IsResponse() && e.ForMethod == "" {
			out = append(out, "id "+e.Msg.ID.String())
		}
	}
	return strings.Join(out, ", ")
}

// BASE-METHOD-UNKNOWN-01 — JSON-RPC 2.0 §5.1.
var _ = conform.Register(conform.Check{
	ID: "BASE-METHOD-UNKNOWN-01", Title: "an unknown method is answered with -32601",
	Run: func(t *conform.T) conform.Verdict {
		resp, err := t.Session().Call(t.Ctx, "x_conformance/unknown_method", map[string]any{})
		return t.ExpectRPCError(resp, err, wire.CodeMethodNotFound, "the method x_conformance/unknown_method")
	},
})

// coreResultTypes are the resultType values 2026-07-28 defines.
var coreResultTypes = []string{"complete", "input_required"}

// BASE-RESULTTYPE-01 — 2026-07-28/basic/index.mdx (Responses, Result Types).
var _ = conform.Register(conform.Check{
	ID: "BASE-RESULTTYPE-01", Title: "every 2026-07-28 result carries resultType: complete, input_required, or an advertised extension's value",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		_, extensions := t.Session().Capabilities()["extensions"]
		var bad conform.Findings
		n, ext := 0, 0
		for _, r := range modern.Replies(t) {
			if r.Msg.Kind != wire.KindResult {
				continue
			}
			n++
			obj := modern.ResultObject(r.Msg.Result)
			raw, ok := obj["resultType"]
			var rt string
			switch {
			case obj == nil:
				bad.Fail(fmt.Sprintf("%s (%s): the result is not an object", r.Where, r.Method))
			case !ok:
				bad.Fail(fmt.Sprintf("%s (%s): no resultType", r.Where, r.Method))
			case json.Unmarshal(raw, &rt) != nil:
				bad.Fail(fmt.Sprintf("%s (%s): resultType %s is not a string", r.Where, r.Method, conform.ClipBytes(raw, 40)))
			case contains(coreResultTypes, rt):
			case extensions:
				ext++ // a value an advertised extension may define
			default:
				bad.Fail(fmt.Sprintf("%s (%s): resultType %q is not a core value and the server advertises no extension", r.Where, r.Method, rt))
			}
		}
		switch {
		case n == 0:
			return conform.Skip(conform.NotExercised, "no result was received in this revision's sessions")
		case bad.Failed():
			return bad.Violation(fmt.Sprintf(`resultType "complete", "input_required" or an advertised extension's value in every result (%d of %d break it)`, bad.Count(), n))
		case ext > 0:
			return conform.Pass("%d results with a resultType; %d with a non-core value, the server advertises capabilities.extensions", n, ext)
		}
		return conform.Pass("%d results, each with resultType complete or input_required", n)
	},
})

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// BASE-ERRRANGE-01 — 2026-07-28/basic/index.mdx (Error Codes).
var _ = conform.Register(conform.Check{
	ID: "BASE-ERRRANGE-01", Title: "no error code outside the 2026-07-28 allocation: nothing undefined in -32020…-32099, no -32002 or -32042, no legacy -32000…-32019",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		errs := modern.Errors(t)
		var bad conform.Findings
		var legacy conform.Findings
		for _, e := range errs {
			if rule, p := modern.CodeProblem(e.Code, e.Data); rule == "range" {
				bad.Fail(e.Where + ": " + p)
			} else if e.Code <= -32000 && e.Code >= -32019 {
				legacy.Warn(fmt.Sprintf("%s: %d", e.Where, e.Code))
			}
		}
		switch {
		case bad.Failed():
			return bad.Violation("only error codes 2026-07-28 allocates")
		case legacy.Warned():
			return legacy.Warning("no code of the legacy sub-range -32000…-32019 (SHOULD NOT for new implementations)")
		case len(errs) == 0:
			return conform.Skip(conform.NotExercised, "no JSON-RPC error message was received in this revision's sessions")
		}
		return conform.Pass("%d error replies, every code allowed in 2026-07-28", len(errs))
	},
})

// BASE-INVALID-PARAMS-01 — JSON-RPC 2.0 §5.1.
// The probe goes out on the main session with the transcript checks' first probes,
// and is judged once the column has settled: each reply carries its request's id,
// so a reply that does not come is proven absent by the settle (T.OweReply), its
// grace overlapping the probes after it, and no other probe waits for it; a reply
// that comes meanwhile is read by its id (wire.Conn.OwedReply).
var _ = conform.Register(conform.Check{
	ID: "BASE-INVALID-PARAMS-01", Title: "structurally wrong params for tools/list are answered with -32602",
	Probe: func(t *conform.T) { invalidParamsOnce(t) },
	Run: func(t *conform.T) conform.Verdict {
		toolkit.RequireTools(t)
		p := invalidParamsOnce(t)
		if p.err != nil {
			return conform.Errorf("no session for the invalid-params probes: %v", p.err)
		}
		return judgeInvalidParams(p.settled())
	},
})

// invalidParamsProbe is BASE-INVALID-PARAMS-01's two tools/list requests with
// structurally wrong params, and what each got before its barrier's reply.
type invalidParamsProbe struct {
	s     *conform.Session
	calls []owedCall
	err   error // no session to probe on
}

// owedCall is one request sent with wire.Conn.CallRawOwed and its outcome so far.
type owedCall struct {
	label string
	id    wire.ID
	raw   []byte
	resp  *wire.Response
	err   error
}

// invalidParamsOnce is BASE-INVALID-PARAMS-01's probe, made once per revision.
func invalidParamsOnce(t *conform.T) invalidParamsProbe {
	return t.Once("BASE-INVALID-PARAMS-01:"+t.Rev.Name, func() any { return probeInvalidParams(t) }).(invalidParamsProbe)
}

// probeInvalidParams sends tools/list with params "abc" (not a structured value)
// and with {"cursor":5} (a cursor is a string), when tools are declared.
func probeInvalidParams(t *conform.T) invalidParamsProbe {
	s := t.Session()
	switch {
	case s == nil || s.Conn == nil:
		return invalidParamsProbe{err: fmt.Errorf("no session for %s", t.Rev.Name)}
	case !toolkit.Declared(s):
		return invalidParamsProbe{} // Run skips: RequireTools
	}
	if err := s.Conn.Err(); err != nil {
		return invalidParamsProbe{err: fmt.Errorf("the session for %s has ended: %w", t.Rev.Name, err)}
	}
	p := invalidParamsProbe{s: s}
	id := s.Conn.NextID()
	p.calls = append(p.calls, owedCall{label: `tools/list with params "abc"`, id: id,
		raw: []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/list","params":"abc"}`, id.Raw()))})
	id = s.Conn.NextID()
	raw, err := wire.EncodeRequest(id, "tools/list", s.Conn.Stamp(map[string]any{"cursor": 5}))
	if err != nil {
		return invalidParamsProbe{err: fmt.Errorf("encode the probe: %w", err)}
	}
	p.calls = append(p.calls, owedCall{label: `tools/list with params {"cursor":5}`, id: id, raw: raw})
	for i := range p.calls {
		c := &p.calls[i]
		c.resp, c.err = s.Conn.CallRawOwed(t.Ctx, c.id, "tools/list", c.raw)
		t.OweReply(s, c.err)
	}
	return p
}

// settled is the probe's outcome once the column has settled: a reply that came
// after its call returned, by its id, in place of the silence that call reported. A
// silence is not verified when the transcript's bounds dropped a message that could
// have been the reply: a lost record is no evidence of silence.
func (p invalidParamsProbe) settled() []toolcall.Probe {
	var out []toolcall.Probe
	for _, c := range p.calls {
		resp, err := c.resp, c.err
		var be *wire.BarrierError
		if errors.As(err, &be) && be.Owed {
			switch late, lost := p.s.Conn.OwedReply(be); {
			case late != nil:
				resp, err = late, nil
			case lost:
				err = fmt.Errorf("%w: the transcript's bounds dropped a message after the request that could have been its reply", toolkit.ErrLostReply)
			}
		}
		out = append(out, toolcall.Probe{Label: c.label, R: toolcall.Classify(resp, err)})
	}
	return out
}

// judgeInvalidParams wants -32602 for each probe; the first (params "abc", not a
// structured value) may also get -32600.
func judgeInvalidParams(probes []toolcall.Probe) conform.Verdict {
	var problems conform.Findings
	var notes []string
	for i, p := range probes {
		switch {
		case p.R.Kind == toolcall.KindNone:
			return conform.Silence("JSON-RPC error -32602 for "+p.Label, p.R.Err)
		case p.R.Kind == toolcall.KindRPCError && p.R.Code == wire.CodeInvalidParams:
		case i == 0 && p.R.Kind == toolcall.KindRPCError && p.R.Code == wire.CodeInvalidRequest:
			notes = append(notes, p.Label+" got -32600, which JSON-RPC §4.2 allows (params must be a structured value)")
		case p.R.Kind == toolcall.KindResult:
			problems.Fail(p.Label + ": a result " + conform.ClipBytes(p.R.Raw, 160) + " (the params were not checked)")
		default:
			problems.Fail(p.Label + ": " + p.R.Desc)
		}
	}
	if problems.Failed() {
		return problems.Violation("JSON-RPC error -32602 for structurally wrong params")
	}
	if len(notes) > 0 {
		return conform.Note("%s", strings.Join(notes, "; ")+"; the others got -32602")
	}
	return conform.Pass("%s", "-32602 for params \"abc\" and {\"cursor\":5}")
}

// received calls fn for every message of the revision's sessions that the server
// sent and that decoded as a JSON object (a frame that did not is the framing and
// UTF-8 rows' evidence), including those that came as the body of an HTTP error
// status (modern.Entries): a message is held to every rule it can break, whatever
// status carried it.
func received(t *conform.T, fn func(s *conform.Session, e wire.Entry)) {
	for _, s := range t.Sessions() {
		for _, e := range modern.Entries(t, s) {
			if e.Dir == wire.Received && e.Msg != nil {
				fn(s, e)
			}
		}
	}
}

// perMessage is the Run of a transcript rule judged one received message at a
// time: judge says whether a message is the rule's and, when it breaks the rule,
// how. Not exercised for the reason none when no message was the rule's; else a
// violation of want, or a pass that passed words with the count judged.
func perMessage(judge func(m *wire.Message) (judged bool, problem string), none, want, passed string) func(*conform.T) conform.Verdict {
	return func(t *conform.T) conform.Verdict {
		var f conform.Findings
		received(t, func(s *conform.Session, e wire.Entry) {
			judged, problem := judge(e.Msg)
			if !judged {
				return
			}
			f.Judged++
			if problem != "" {
				f.Fail(where(s, e) + ": " + problem)
			}
		})
		return f.VerdictOrNone(none, want, fmt.Sprintf(passed, f.Judged))
	}
}

// where names an entry for messages (modern.Where: the body of an HTTP error
// status is named after the transcript entry before it).
func where(s *conform.Session, e wire.Entry) string { return modern.Where(s, e) }

// BASE-JSONRPC-VERSION-01 — {rev}/basic/index.mdx (Messages).
var _ = conform.Register(conform.Check{
	ID: "BASE-JSONRPC-VERSION-01", Title: `every message the server sends is JSON-RPC 2.0: "jsonrpc": "2.0"`,
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		received(t, func(s *conform.Session, e wire.Entry) {
			f.Judged++
			if e.Msg.JSONRPC != "2.0" {
				got := "no jsonrpc member"
				if e.Msg.Members["jsonrpc"] {
					got = fmt.Sprintf("jsonrpc %q", e.Msg.JSONRPC)
				}
				f.Fail(fmt.Sprintf("%s: %s", where(s, e), got))
			}
		})
		return f.Verdict(`"jsonrpc": "2.0" on every message`, "",
			fmt.Sprintf("%d messages, each with \"jsonrpc\": \"2.0\"", f.Judged))
	},
})

// BASE-RESP-EXCL-01 — {rev}/basic/index.mdx (Responses).
var _ = conform.Register(conform.Check{
	ID: "BASE-RESP-EXCL-01", Title: "every response carries exactly one of result and error",
	Phase: conform.PhaseTranscript,
	Run: perMessage(func(m *wire.Message) (judged bool, problem string) {
		switch {
		case m.Members["method"]:
			return false, "" // a request or a notification, not a response
		case m.Members["result"] && m.Members["error"]:
			return true, "both result and error"
		case !m.Members["result"] && !m.Members["error"] && m.Members["id"]:
			return true, "a response with neither result nor error"
		}
		return true, ""
	}, "no response was received",
		"exactly one of result and error in each response",
		"%d responses, each with exactly one of result and error"),
})

// BASE-ERR-SHAPE-01 — {rev}/basic/index.mdx (Error responses); schema.
var _ = conform.Register(conform.Check{
	ID: "BASE-ERR-SHAPE-01", Title: "every error has an integer code and a string message",
	Phase: conform.PhaseTranscript,
	Run: perMessage(func(m *wire.Message) (judged bool, problem string) {
		if !m.Members["error"] || m.Members["method"] {
			return false, ""
		}
		return true, errorShapeProblem(m.Raw)
	}, "no error response was received",
		"an integer code and a string message in every error",
		"%d errors, each with an integer code and a string message"),
})

// errorShapeProblem says what is wrong with a response's error member ("" when it
// has an integer code and a string message).
func errorShapeProblem(raw json.RawMessage) string {
	var env struct {
		Error map[string]json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &env) != nil || env.Error == nil {
		return "the error member is not an object"
	}
	var problems []string
	code, ok := env.Error["code"]
	switch {
	case !ok:
		problems = append(problems, "no code")
	case toolkit.JSONKind(code) != "number" || strings.ContainsAny(string(code), ".eE"):
		problems = append(problems, "code "+conform.ClipBytes(code, 40)+" is not an integer")
	}
	msg, ok := env.Error["message"]
	switch {
	case !ok:
		problems = append(problems, "no message")
	case toolkit.JSONKind(msg) != "string":
		problems = append(problems, "message "+conform.ClipBytes(msg, 40)+" is not a string")
	}
	return strings.Join(problems, ", ")
}

// BASE-NOTIF-NOID-01 — {rev}/basic/index.mdx (Notifications).
var _ = conform.Register(conform.Check{
	ID: "BASE-NOTIF-NOID-01", Title: "the server's notifications carry no id",
	Phase: conform.PhaseTranscript,
	Run: perMessage(func(m *wire.Message) (judged bool, problem string) {
		if !strings.HasPrefix(m.Method, "notifications/") {
			return false, ""
		}
		if m.Members["id"] {
			return true, fmt.Sprintf("%s with id %s", m.Method, conform.Clip(string(m.ID.Raw()), 40))
		}
		return true, ""
	}, "the server sent no notification",
		"no id on a notification",
		"%d notifications, none with an id"),
})

// BASE-SRVREQ-ID-01 — {rev}/basic/index.mdx (Requests).
var _ = conform.Register(conform.Check{
	ID: "BASE-SRVREQ-ID-01", Title: "the server's own requests carry a string or integer id, never null, never reused in the session",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		seen := map[*conform.Session]map[string]bool{}
		received(t, func(s *conform.Session, e wire.Entry) {
			m := e.Msg
			if !m.Members["method"] || !m.Members["id"] || strings.HasPrefix(m.Method, "notifications/") {
				return // not a request (a notification with an id is BASE-NOTIF-NOID-01's)
			}
			f.Judged++
			switch {
			case m.ID.IsNull():
				f.Fail(fmt.Sprintf("%s: %s with id null", where(s, e), m.Method))
			case seen[s][m.ID.Key()]:
				f.Fail(fmt.Sprintf("%s: %s reuses id %s", where(s, e), m.Method, m.ID))
			}
			if seen[s] == nil {
				seen[s] = map[string]bool{}
			}
			seen[s][m.ID.Key()] = true
		})
		return f.VerdictOrNone("the server sent no request",
			"a string or integer id, unique in its session, on every server request",
			fmt.Sprintf("%d server requests, each with a fresh string or integer id", f.Judged))
	},
})

// BASE-PARSE-01 — JSON-RPC 2.0 §5 and §5.1.
var _ = conform.Register(conform.Check{
	ID: "BASE-PARSE-01", Title: "unparseable JSON is answered with -32700, and the server keeps serving",
	Phase: conform.PhaseOddInput,
	// The spare session: a server that ends its connection on unparseable input
	// (go-sdk does) would otherwise cost the other odd-input checks theirs.
	Spare: true,
	Run: func(t *conform.T) conform.Verdict {
		// With the revision's other last odd-input probes, one grace for all
		// (oddTail); otherwise, or when its reply cannot be told from theirs, alone.
		if answers, ok := oddTail(t).Part("parse"); ok {
			return judgeParse(answers[0], t.Ctx.Err())
		}
		s, err := t.SpareSession()
		if err != nil {
			return conform.Errorf("no spare session for the parse-error probe: %v", err)
		}
		a := toolkit.SendStray(t, s, 1, []byte(unparseableLine))
		return judgeParse(a, t.Ctx.Err())
	},
})

// unparseableLine is BASE-PARSE-01's probe: JSON cut off where a value must be.
const unparseableLine = `{"jsonrpc":"2.0","id":]`

// oddTail makes the revision's last odd-input probes, over stdio, as one stray run
// on the main session (toolkit.OddTail), each of the checks that run: the mixed
// batch, the unparseable line and the invalid requests, and the null-id request
// last. A server silent on all of them (server-everything) has their silences
// proven by one grace, not one a probe; one that ends the session over the line
// (the Go SDK) has the quiet probes made on the session that replaces it; a reply
// is its probe's by its id or by the window it arrived in (toolkit.SendStrayRun).
func oddTail(t *conform.T) *toolkit.StrayRun {
	return toolkit.OddTail(t, func(s *conform.Session) (quiet, loud []toolkit.RunProbe) {
		if t.Runs("BASE-NULL-ID-01") {
			if _, raw, err := nullIDRequest(s); err == nil {
				quiet = append(quiet, toolkit.RunProbe{Part: "null-id", Raw: raw, Window: true, NullID: true, Complete: answeredOnce})
			}
		}
		if t.Runs("BASE-PARSE-01") {
			loud = append(loud, toolkit.RunProbe{Part: "parse", Raw: []byte(unparseableLine), Complete: answeredOnce})
		}
		if t.Runs("BASE-INVALID-REQ-01") {
			raws, ids := invalidRequestProbes(t, s)
			for i := range raws {
				loud = append(loud, toolkit.RunProbe{Part: "invalid", Raw: raws[i], IDs: ids[i : i+1], Joins: i > 0, Complete: answeredOnce})
			}
		}
		return quiet, loud
	})
}

// answeredOnce is the odd tail's test of a probe owed one reply.
func answeredOnce(replies []wire.Entry) bool { return len(replies) > 0 }

// judgeParse wants one -32700 reply and the server still answering the barrier.
func judgeParse(a toolkit.StrayAnswer, cancelled error) conform.Verdict {
	const want = `a JSON-RPC error -32700 for the line {"jsonrpc":"2.0","id":], and the server still serving`
	codes := map[int]bool{}
	for _, m := range a.Replies {
		if m.Error != nil {
			codes[m.Error.Code] = true
		}
	}
	switch {
	case cancelled != nil:
		return conform.Errorf("not verified: %v", cancelled)
	case a.Err != nil && len(a.Replies) == 0:
		return conform.Violation(want, "no reply, and then "+conform.Describe(nil, a.Err))
	case a.Err != nil:
		return conform.Violation(want, a.Describe()+", and then "+conform.Describe(nil, a.Err))
	case codes[wire.CodeParseError]:
		return conform.Pass("%s; the server went on answering", a.Describe())
	case len(a.Replies) == 0 && len(a.Refused) > 0:
		return conform.Skip(conform.NotApplicable, "over HTTP the server refused the body with %s and no JSON-RPC error: the transport's answer, judged by SHTTP-BADBODY-01", a.Describe())
	}
	return conform.Violation(want, a.Describe())
}

// invalidRequests are BASE-INVALID-REQ-01's probes: JSON objects that are not valid
// requests, each with a fresh id (%s) the server can read.
// A message with an id and nothing else may be taken for a malformed response,
// which no one answers: silence is a note for it, not a violation.
var invalidRequests = []struct {
	what, format  string
	mayBeResponse bool
}{
	{`"jsonrpc":"1.0"`, `{"jsonrpc":"1.0","id":%s,"method":"%s"%s}`, false},
	{"no method", `{"jsonrpc":"2.0","id":%s}`, true},
	{"method 42", `{"jsonrpc":"2.0","id":%s,"method":42}`, false},
}

// BASE-INVALID-REQ-01 — JSON-RPC 2.0 §5 and §5.1.
var _ = conform.Register(conform.Check{
	ID: "BASE-INVALID-REQ-01", Title: "a JSON object that is not a valid request is answered with -32600",
	Phase: conform.PhaseOddInput,
	// The spare session: a server that ends its connection on an invalid request
	// (go-sdk does) would otherwise cost the other odd-input checks theirs.
	Spare: true,
	Run: func(t *conform.T) conform.Verdict {
		// Over stdio with the revision's other last odd-input probes, one grace for
		// all (oddTail). Otherwise: at once while the spare session is still the
		// main one (one grace for the three, by id); when their replies cannot be
		// told apart that way, one at a time, each with its own window (over HTTP
		// no grace is waited anyway). A server that ends the session over the first
		// probe gets the same answer every way, and no process more.
		tail := oddTail(t)
		answers, ok := tail.Part("invalid")
		var s *conform.Session
		if !ok {
			var err error
			if s, err = t.SpareSession(); err != nil {
				return conform.Errorf("no spare session for the invalid-request probes: %v", err)
			}
			if s == t.Session() && !tail.Sent("invalid") {
				raws, ids := invalidRequestProbes(t, s)
				answers, ok = toolkit.SendStrayEach(t, s, ids, raws...)
				if !ok && t.Ctx.Err() == nil {
					if s, err = t.SpareSession(); err != nil {
						return conform.Errorf("no spare session for the invalid-request probes: %v", err)
					}
				}
			}
		}
		var probes []invalidProbe
		// Fewer answers than probes: the session ended over the first.
		for i, a := range answers {
			probes = append(probes, newInvalidProbe(i, a))
		}
		if probes == nil && t.Ctx.Err() == nil {
			raws, _ := invalidRequestProbes(t, s)
			for i, raw := range raws {
				a := toolkit.SendStray(t, s, 1, raw)
				probes = append(probes, newInvalidProbe(i, a))
				if a.Err != nil {
					break
				}
			}
		}
		if t.Ctx.Err() != nil {
			return conform.Errorf("not verified: %v", t.Ctx.Err())
		}
		return judgeInvalidRequests(probes)
	},
})

// newInvalidProbe is the i-th of invalidRequests with its answer.
func newInvalidProbe(i int, a toolkit.StrayAnswer) invalidProbe {
	return invalidProbe{what: invalidRequests[i].what, a: a, mayBeResponse: invalidRequests[i].mayBeResponse}
}

// invalidRequestProbes are BASE-INVALID-REQ-01's probes on s, each with a fresh id.
func invalidRequestProbes(t *conform.T, s *conform.Session) (raws [][]byte, ids []wire.ID) {
	for _, p := range invalidRequests {
		id := s.Conn.NextID()
		raw := p.format
		if strings.Count(raw, "%s") == 3 {
			raw = fmt.Sprintf(raw, id.Raw(), toolkit.AlwaysMethod(t.Rev), versionOnlyParams(s))
		} else {
			raw = fmt.Sprintf(raw, id.Raw())
		}
		raws, ids = append(raws, []byte(raw)), append(ids, id)
	}
	return raws, ids
}

// versionOnlyParams is the params member of the "jsonrpc":"1.0" probe: none, or,
// where every request carries _meta (2026-07-28, basic/index.mdx), the session's, so
// that the version is the only thing wrong with the request.
func versionOnlyParams(s *conform.Session) string {
	meta := s.Conn.Meta()
	if len(meta) == 0 {
		return ""
	}
	b, err := json.Marshal(wire.StampMeta(nil, meta))
	if err != nil {
		return ""
	}
	return `,"params":` + string(b)
}

// invalidProbe is one invalid request and what came back.
type invalidProbe struct {
	what          string
	a             toolkit.StrayAnswer
	mayBeResponse bool // no reply is a note: it may read as a malformed response
}

// refusal reads the replies to input the server should refuse: the error code
// (-32600 when any reply has it, otherwise the first error's) and how many replies
// were results instead.
func refusal(a toolkit.StrayAnswer) (code, results int) {
	for _, m := range a.Replies {
		switch {
		case m.Error == nil:
			results++
		case code == 0 || m.Error.Code == wire.CodeInvalidRequest:
			code = m.Error.Code
		}
	}
	return code, results
}

// judgeInvalidRequests wants -32600 for every probe: a result or no reply fails,
// another error code warns, and a server that stopped serving fails on the probe that
// stopped it.
func judgeInvalidRequests(probes []invalidProbe) conform.Verdict {
	var f conform.Findings
	var passed []string
	for _, p := range probes {
		code, results := refusal(p.a)
		switch {
		case results > 0:
			f.Fail(fmt.Sprintf("%s: processed: %s", p.what, p.a.Describe()))
		case code == wire.CodeInvalidRequest:
			passed = append(passed, p.what)
		case code != 0:
			f.Warn(fmt.Sprintf("%s: refused with %s, not -32600", p.what, p.a.Describe()))
		case len(p.a.Refused) > 0:
			f.Warn(fmt.Sprintf("%s: refused with %s and no JSON-RPC error", p.what, p.a.Describe()))
		case p.mayBeResponse:
			f.Note(p.what + ": no reply (it may be taken for a malformed response, which is not answered)")
		default:
			f.Fail(p.what + ": no reply")
		}
		if p.a.Err != nil {
			f.Fail(fmt.Sprintf("%s: then the server stopped serving: %s", p.what, conform.Describe(nil, p.a.Err)))
		}
	}
	const want = "JSON-RPC error -32600 for each request object that is not valid"
	return f.Verdict(want, want, "-32600 for each of: "+strings.Join(passed, ", "))
}

// BASE-NULL-ID-01 — {rev}/basic/index.mdx (Requests).
// A transcript-wide check: the request goes out while the column is open, and is
// judged after the column settles, which proves a reply that did not come absent
// (toolkit.ProbeBeforeSettle), its grace overlapping the column's other work. The
// null-id error it may draw cannot be told from another stray probe's by its id, so
// it has its own window on the session (conform.Session.MarkStray). Over stdio it is
// the last probe of the odd tail (oddTail), after the probes that may end the session
// and draw errors of id null, its silence proven with theirs; when the tail could not
// give it its answer, it is made again on the spare session (the main one while it
// lasts, the one that replaces it otherwise). Elsewhere it goes out on the main
// session.
var _ = conform.Register(conform.Check{
	ID: "BASE-NULL-ID-01", Title: `a request with "id": null is refused, not processed`,
	SilenceProbe: true,
	// The spare session: over stdio the probe comes with the odd tail, after the
	// main session's other probes; a server may end its session over it.
	Spare: true,
	Probe: func(t *conform.T) { nullIDOnce(t) },
	Run: func(t *conform.T) conform.Verdict {
		p := nullIDOnce(t)
		if p.err != nil {
			return conform.Errorf("no session for the null-id probe: %v", p.err)
		}
		if t.Ctx.Err() != nil {
			return conform.Errorf("not verified: %v", t.Ctx.Err())
		}
		return judgeNullID(p.method, p.SettledFor(t))
	},
})

// nullIDProbe is BASE-NULL-ID-01's probe: the request it sent (its window, in the odd
// tail or alone), and its method.
type nullIDProbe struct {
	toolkit.StrayProbe
	method string
	err    error
}

// nullIDOnce is BASE-NULL-ID-01's probe, made once per revision.
func nullIDOnce(t *conform.T) nullIDProbe {
	return t.Once("BASE-NULL-ID-01:"+t.Rev.Name, func() any { return probeNullID(t) }).(nullIDProbe)
}

// probeNullID sends a request with "id": null: over stdio in the odd tail, or alone
// on the spare session when the tail did not give it its answer; elsewhere on the
// main session.
func probeNullID(t *conform.T) nullIDProbe {
	s := t.Session()
	if t.SpareIsMain() {
		if w, ok := oddTail(t).Window("null-id"); ok {
			method, _, err := nullIDRequest(s)
			if err != nil {
				return nullIDProbe{err: err}
			}
			return nullIDProbe{StrayProbe: w, method: method}
		}
		var err error
		if s, err = t.SpareSession(); err != nil {
			return nullIDProbe{err: fmt.Errorf("no spare session for %s: %w", t.Rev.Name, err)}
		}
	}
	if s == nil || s.Conn == nil {
		return nullIDProbe{err: fmt.Errorf("no session for %s", t.Rev.Name)}
	}
	if err := s.Conn.Err(); err != nil {
		return nullIDProbe{err: fmt.Errorf("the session for %s has ended: %w", t.Rev.Name, err)}
	}
	method, raw, err := nullIDRequest(s)
	if err != nil {
		return nullIDProbe{err: err}
	}
	p := nullIDProbe{method: method}
	p.StrayProbe = toolkit.ProbeBeforeSettle(t, s, func(replies []wire.Entry, fromRefusals int) bool {
		return fromRefusals+len(replies) > 0 // one answer is all it owes
	}, raw)
	return p
}

// nullIDRequest is BASE-NULL-ID-01's request on s, and its method: tools/list when
// tools are declared (processing it would answer with a listing), else the request
// every server of the revision's era answers.
func nullIDRequest(s *conform.Session) (method string, raw []byte, err error) {
	method = toolkit.AlwaysMethod(s.Rev)
	if toolkit.Declared(s) {
		method = "tools/list"
	}
	params, err := json.Marshal(s.Conn.Stamp(map[string]any{}))
	if err != nil {
		return "", nil, fmt.Errorf("encode the probe's params: %w", err)
	}
	return method, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":null,"method":%q,"params":%s}`, method, params), nil
}

// judgeNullID wants the null-id request refused: an error (ideally -32600) or an HTTP
// error status.
func judgeNullID(method string, a toolkit.StrayAnswer) conform.Verdict {
	want := fmt.Sprintf(`%s with "id": null refused with an error (ideally -32600)`, method)
	code, results := refusal(a)
	switch {
	case results > 0:
		return conform.Violation(want, "processed: "+a.Describe())
	case code == wire.CodeInvalidRequest:
		return conform.Pass("refused: %s", a.Describe())
	case code != 0 || len(a.Refused) > 0:
		return conform.Note("refused with %s; -32600 (Invalid Request) says why", a.Describe())
	case a.Err != nil:
		return conform.Violation(want, "no reply, and then "+conform.Describe(nil, a.Err))
	}
	return conform.Violation(want, a.Describe())
}

// BASE-NOTIF-NORESP-01 — {rev}/basic/index.mdx (Notifications); JSON-RPC 2.0 §4.1.
// A transcript-wide check: the notification goes out on the main session while the
// column is open, and is judged after the column settles, whose barrier proves every
// reply in; a conformant server, which sends nothing, costs no grace period.
var _ = conform.Register(conform.Check{
	ID: "BASE-NOTIF-NORESP-01", Title: "a notification is never answered",
	Probe: func(t *conform.T) { notificationOnce(t) },
	Run: func(t *conform.T) conform.Verdict {
		p := notificationOnce(t)
		if p.Answer.Err != nil {
			return conform.Errorf("not verified: %s", conform.Describe(nil, p.Answer.Err))
		}
		a := p.SettledFor(t)
		switch {
		case len(a.Replies) > a.FromRefusals:
			return conform.Violation("no response to the notification notifications/x_conformance_probe", a.Describe())
		case len(a.Refused) > 0:
			return conform.Note("no JSON-RPC response on any stream; the POST was refused with %s, which the transport allows (SHTTP-POST-202-01 judges the status)", a.Describe())
		}
		return conform.Pass("no response to notifications/x_conformance_probe (proven when the session settled)")
	},
})

// notificationOnce is BASE-NOTIF-NORESP-01's probe, made once per revision.
func notificationOnce(t *conform.T) toolkit.StrayProbe {
	return t.Once("BASE-NOTIF-NORESP-01:"+t.Rev.Name, func() any { return probeNotification(t) }).(toolkit.StrayProbe)
}

// probeNotification sends a notification no revision defines on the main session.
func probeNotification(t *conform.T) toolkit.StrayProbe {
	s := t.Session()
	if s == nil || s.Conn == nil {
		return toolkit.StrayProbe{Answer: toolkit.StrayAnswer{Err: fmt.Errorf("no session for %s", t.Rev.Name)}}
	}
	raw, err := wire.EncodeNotification("notifications/x_conformance_probe", s.Conn.Stamp(map[string]any{}))
	if err != nil {
		return toolkit.StrayProbe{Answer: toolkit.StrayAnswer{Err: fmt.Errorf("encode the notification: %w", err)}}
	}
	return toolkit.SendBeforeSettle(t, s, raw)
}

// BASE-ERR-ID-01 — {rev}/basic/index.mdx (Error Responses); JSON-RPC 2.0 §5.
var _ = conform.Register(conform.Check{
	ID: "BASE-ERR-ID-01", Title: "an error reply to a request whose id could not be read has id null (absent allowed from 2025-11-25)",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var bad conform.Findings
		for _, s := range t.Sessions() {
			bad.Judged += judgeErrIDs(&bad, s.Rev, s, modern.Entries(t, s))
		}
		want := "id null for an error whose request's id could not be read"
		if t.Rev.Has(revision.ErrorIDOptional) {
			want = "id null or no id for an error whose request's id could not be read"
		}
		return bad.VerdictOrNone("no error reply answering no request of the suite's was received in this revision's sessions", want,
			fmt.Sprintf("%d error replies to unreadable or invalid requests, each with null, no id (allowed here) or the id the suite sent", bad.Judged))
	},
})

// judgeErrIDs judges the error replies of one session's transcript that answer no
// request of the suite's, adding what breaks the rule to bad, and returns how many it
// judged. A session is held to the revision it negotiated (rev), not its column's:
// the column that holds a version-probe session varies from run to run.
func judgeErrIDs(bad *conform.Findings, rev revision.Revision, s *conform.Session, entries []wire.Entry) int {
	optional := rev.Has(revision.ErrorIDOptional)
	// The ids the suite sent: true for a message that was not a valid request (its
	// error echoes the id when the server could read it); false for a valid one,
	// whose late reply to an abandoned call is BASE-RESP-ID-01's.
	sent := map[string]bool{}
	n := 0
	for _, e := range entries {
		switch {
		case e.Dir == wire.Sent && e.Msg != nil && !e.Msg.ID.IsZero():
			sent[e.Msg.ID.LooseKey()] = e.Msg.Problem != "" || e.Msg.Kind != wire.KindRequest
		case e.Dir == wire.Sent:
			for _, id := range toolkit.ArrayIDs(e.Raw) {
				sent[id] = false // inside a batch: the batch rules judge its replies
			}
		case e.Dir != wire.Received || e.Msg == nil || e.Msg.Kind != wire.KindError || e.ForMethod != "":
		case e.Msg.ID.IsNull():
			n++
		case e.Msg.ID.IsZero() && (optional || modern.StatusOf(e) != 0):
			// The body of an HTTP error status may have no id at every revision:
			// "The HTTP response body MAY comprise a JSON-RPC error response that
			// has no id" ({rev}/basic/transports.mdx, Sending Messages to the
			// Server; Security Warning for 403).
			n++
		case e.Msg.ID.IsZero():
			n++
			bad.Fail(fmt.Sprintf("%s: error %d with no id (before 2025-11-25 the id member is required, null when unreadable)", where(s, e), e.Msg.Error.Code))
		case sent[e.Msg.ID.LooseKey()]:
			n++ // the id of an invalid request the server could read, echoed
		case hasKey(sent, e.Msg.ID.LooseKey()):
			// A late reply to a valid request whose call was abandoned, or an id of
			// the wrong JSON type (BASE-RESP-ID-01's finding).
		default:
			n++
			bad.Fail(fmt.Sprintf("%s: error %d with id %s, which no message the suite sent carried", where(s, e), e.Msg.Error.Code, e.Msg.ID))
		}
	}
	return n
}

func hasKey(m map[string]bool, k string) bool {
	_, ok := m[k]
	return ok
}

// BASE-ERR-CODES-01 — JSON-RPC 2.0 §5.1; schema/<rev>/schema.ts error constants.
var _ = conform.Register(conform.Check{
	ID: "BASE-ERR-CODES-01", Title: "the standard error codes keep their meanings, and no code JSON-RPC reserves without a meaning is sent",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var seen []seenCode
		for _, s := range t.Sessions() {
			seen = append(seen, sessionCodes(s, modern.Entries(t, s))...)
		}
		return judgeErrCodes(seen)
	},
})

// seenCode is one error the server sent and what it answered.
type seenCode struct {
	where  string
	code   int
	method string // the method of the request it answers ("" when it answers none)
	// wellFormed: it carries the id of a request the suite sent as valid JSON.
	wellFormed bool
	// served: the same session got a result for method.
	served bool
}

// sessionCodes pairs every error a session received with the request it answers.
func sessionCodes(s *conform.Session, entries []wire.Entry) []seenCode {
	parsed := map[string]bool{}  // ids of the messages the suite sent that were JSON objects
	results := map[string]bool{} // methods that got a result
	for _, e := range entries {
		switch {
		case e.Dir == wire.Sent && e.Msg != nil && !e.Msg.ID.IsZero() && !e.Msg.ID.IsNull():
			parsed[e.Msg.ID.Key()] = json.Valid(e.Raw)
		case e.Dir == wire.Received && e.Msg != nil && e.Msg.Kind == wire.KindResult && e.ForMethod != "":
			results[e.ForMethod] = true
		}
	}
	var out []seenCode
	for _, e := range entries {
		if e.Dir != wire.Received || e.Msg == nil || e.Msg.Kind != wire.KindError || e.Msg.Error == nil {
			continue
		}
		out = append(out, seenCode{
			where: where(s, e), code: e.Msg.Error.Code, method: e.ForMethod,
			wellFormed: e.ForMethod != "" && parsed[e.Msg.ID.Key()],
			served:     e.ForMethod != "" && results[e.ForMethod],
		})
	}
	return out
}

// standardCode reports whether JSON-RPC 2.0 §5.1 defines code: the five pre-defined
// errors and the implementation-defined server errors -32000 to -32099 (whose use in
// 2026-07-28 is BASE-ERRRANGE-01's).
func standardCode(code int) bool {
	switch code {
	case wire.CodeParseError, wire.CodeInvalidRequest, wire.CodeMethodNotFound, wire.CodeInvalidParams, wire.CodeInternalError:
		return true
	}
	return code >= -32099 && code <= -32000
}

// judgeErrCodes holds each error's code to its meaning where the request it answers
// shows the meaning is wrong.
func judgeErrCodes(seen []seenCode) conform.Verdict {
	var f conform.Findings
	for _, c := range seen {
		f.Judged++
		switch {
		case c.code >= -32768 && c.code <= -32000 && !standardCode(c.code):
			f.Fail(fmt.Sprintf("%s: code %d, which JSON-RPC reserves for future use (no meaning is defined for it)", c.where, c.code))
		case c.code == wire.CodeParseError && c.wellFormed:
			f.Fail(fmt.Sprintf("%s: -32700 (parse error) answering the well-formed %s request whose id it echoes", c.where, c.method))
		case c.code == wire.CodeMethodNotFound && c.served && c.method != "tools/call":
			f.Fail(fmt.Sprintf("%s: -32601 (method not found) for %s, which the same session answered with a result", c.where, c.method))
		}
	}
	return f.VerdictOrNone("no JSON-RPC error was received in this revision's sessions",
		"each standard code with its meaning (-32700 parse, -32600 invalid request, -32601 method not found, -32602 invalid params, -32603 internal), no code reserved for future use",
		fmt.Sprintf("%d error replies, none with a code against its meaning or reserved for future use", f.Judged))
}

// BASE-REQID-INFLIGHT-01 — 2026-07-28/basic/index.mdx (Requests).
var _ = conform.Register(conform.Check{
	ID: "BASE-REQID-INFLIGHT-01", Title: "a request whose id an answered request used before is served like any other",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		s, err := t.Scratch()
		if err != nil {
			return conform.Errorf("no session for the id-reuse probe: %v", err)
		}
		method := s.Conn.BarrierMethod()
		id := s.Conn.NextID()
		first, err := s.Conn.CallID(t.Ctx, id, method, nil)
		if err != nil || first.IsError() {
			return conform.Errorf("not verified: %s with a fresh id %s got %s", method, id, conform.Describe(first, err))
		}
		again, err := s.Conn.CallAnsweredID(t.Ctx, id, method, nil)
		return judgeReusedID(method, id, toolcall.Classify(again, err))
	},
})

// judgeReusedID wants the request that reuses an answered request's id served: a
// result, as the first one got.
func judgeReusedID(method string, id wire.ID, r toolcall.Reply) conform.Verdict {
	want := fmt.Sprintf("%s with id %s, which an answered request used, served with a result like the first", method, id)
	switch r.Kind {
	case toolcall.KindResult:
		return conform.Pass("%s with id %s served twice, the second after the first was answered", method, id)
	case toolcall.KindNone:
		return conform.Silence(want, r.Err)
	}
	return conform.Violation(want, r.Desc)
}
