package utilities

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/loglevel"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Logging (the LOG rows, {rev}/server/utilities/logging.mdx). The fixture tool
// test_tool_with_logging sends one notifications/message per level at or above the
// minimum the client asked for: with logging/setLevel before 2026-07-28, with the
// request's _meta io.modelcontextprotocol/logLevel in 2026-07-28. The transcript
// checks (capability, shape, per-request scope) judge every log message of the
// revision's sessions after a probe that calls the tool; the level filter is probed
// on the main session, its silences proven by a barrier (loglevel.Settle).
//
// A server that does not declare the logging capability leaves the rows that
// depend on it nothing to judge (not applicable); LOG-CAP-01 holds it to sending no
// log message at all.

// lgLevelFilter is the level LOG-FILTER-01 sets (the row's `setLevel error`).
const lgLevelFilter = "error"

// lgLevelR5 is the per-request level LOG-R5-PERREQ-01 asks for (the row's
// `logLevel:"warning"`).
const lgLevelR5 = "warning"

// lgExercise is what the exercise probe did.
type lgExercise struct {
	called  bool   // the fixture was listed, allowed and called
	outcome string // what its call returned
}

// lgFixtureTool returns the listed fixture tool the suite may call, or nil.
func lgFixtureTool(t *conform.T) *toolkit.CallableTool {
	l := toolkit.List(t)
	tl := l.Find(loglevel.Fixture)
	if tl == nil {
		return nil
	}
	p := toolkit.Allowed(t, *tl)
	if !p.Allowed {
		return nil
	}
	return &toolkit.CallableTool{Tool: *tl, Permission: p}
}

// lgCall calls the fixture tool on s; level, when set, goes in the request's _meta
// as io.modelcontextprotocol/logLevel (2026-07-28). It returns what came back.
func lgCall(t *conform.T, s *conform.Session, ct *toolkit.CallableTool, level string) string {
	params := map[string]any{"name": ct.Name, "arguments": ct.Args}
	if level != "" {
		params["_meta"] = map[string]any{conform.MetaLogLevel: level}
	}
	resp, err := s.Call(t.Ctx, "tools/call", params)
	if r, ok := conform.RPCErrorReply(err, "tools/call"); ok {
		resp, err = r, nil
	}
	return conform.Describe(resp, err)
}

// lgExerciseProbe calls test_tool_with_logging on the main session once per
// revision, so that the transcript checks have log messages to judge (in
// 2026-07-28 with _meta logLevel "debug": without it a server sends none). It
// waits for no barrier of its own: its users are transcript checks, whose probes
// all run before the column settles (conform's settle), and that settle proves
// every message of the call in, over Streamable HTTP without the grace a barrier
// needs there. It runs whether or not the server declares logging: a log message
// from a server that does not is LOG-CAP-01's finding.
func lgExerciseProbe(t *conform.T) lgExercise {
	s := t.Session()
	return t.Once("lg.exercise:"+s.Label, func() any {
		ct := lgFixtureTool(t)
		if ct == nil {
			return lgExercise{}
		}
		level := ""
		if s.Modern() {
			level = loglevel.Levels[0]
		}
		return lgExercise{called: true, outcome: lgCall(t, s, ct, level)}
	}).(lgExercise)
}

// lgMessages returns every log message of the revision's sessions.
func lgMessages(t *conform.T) []loglevel.Message {
	var out []loglevel.Message
	for _, s := range toolkit.RevisionSessions(t) {
		out = append(out, loglevel.In(s, t.Transcript(s))...)
	}
	return out
}

// lgExercisedMessages returns the log messages of the revision's sessions after the
// exercise probe, ending the check with lgUnexercised's skip when there are none:
// a transcript check of log messages has nothing to judge without one.
func lgExercisedMessages(t *conform.T) []loglevel.Message {
	ex := lgExerciseProbe(t)
	msgs := lgMessages(t)
	if len(msgs) == 0 {
		t.Stop(lgUnexercised(ex))
	}
	return msgs
}

// lgUnexercised is the skip of a transcript check that saw no log message.
func lgUnexercised(ex lgExercise) conform.Verdict {
	if !ex.called {
		return conform.Skip(conform.MissingFixture, "no %s was received; list the fixture tool %s (the fixture contract, refserver/doc.go) to exercise logging", loglevel.Method, loglevel.Fixture)
	}
	return conform.Skip(conform.NotExercised, "no %s was received; %s returned %s", loglevel.Method, loglevel.Fixture, ex.outcome)
}

// lgSetLevelCheck is a check that sends logging/setLevel on the main session s,
// so it changes the session's log level (StateLogLevel). It ends with
// loglevel.Undeclared's skip when the server does not declare logging: the method
// belongs to servers that do.
func lgSetLevelCheck(c conform.Check, run func(t *conform.T, s *conform.Session) conform.Verdict) conform.Check {
	c.Changes = conform.StateLogLevel
	c.Run = func(t *conform.T) conform.Verdict {
		s := t.Session()
		if !loglevel.Declared(s) {
			return loglevel.Undeclared("logging/setLevel belongs to servers that do")
		}
		return run(t, s)
	}
	return c
}

// LOG-CAP-01 — {rev}/server/utilities/logging.mdx (Capabilities).
var _ = conform.Register(lgMessageCheck(conform.Check{
	ID: "LOG-CAP-01", Title: "log messages come only from a server that declared the logging capability",
}, lgCapProblem, "notifications/message only from a server that declared the logging capability",
	"from a server that declared logging"))

// lgCapProblem judges a log message by what its session's server declared, whenever
// the message came: logging.mdx asks that a server that emits log messages declare
// the capability, and lifecycle.mdx lets a server log before the client's
// initialized, so a message that precedes the initialize result declaring logging
// breaks no rule (Mastra's docs server sends one 31 ms before).
func lgCapProblem(m loglevel.Message) string {
	if loglevel.Declared(m.Session) {
		return ""
	}
	return loglevel.Method + " from a server whose capabilities have no logging"
}

// lgMessageCheck is a check of every log message the exercise draws (its probe,
// lgExercisedMessages): problem says how a message breaks the rule ("" when it
// does not), want words the rule, and each what every message showed when none
// broke it.
func lgMessageCheck(c conform.Check, problem func(m loglevel.Message) string, want, each string) conform.Check {
	c.Probe = func(t *conform.T) { lgExerciseProbe(t) }
	c.Run = func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, m := range lgExercisedMessages(t) {
			f.Judged++
			if p := problem(m); p != "" {
				f.Fail(m.Where() + ": " + p)
			}
		}
		return f.Verdict(want, "", fmt.Sprintf("%d %s, each %s", f.Judged, loglevel.Method, each))
	}
	return c
}

// LOG-SHAPE-01 — schema LoggingMessageNotification; {rev}/server/utilities/logging.mdx.
var _ = conform.Register(lgMessageCheck(conform.Check{
	ID: "LOG-SHAPE-01", Title: "log messages carry a syslog level, data, and a string logger when they name one",
}, func(m loglevel.Message) string { return lgShapeProblem(m.Params) },
	"params {level: one of "+strings.Join(loglevel.Levels, ", ")+", data: any JSON, logger?: string}",
	"with a syslog level and data"))

// lgShapeProblem says what is wrong with a log message's params ("" when nothing).
func lgShapeProblem(params map[string]json.RawMessage) string {
	if params == nil {
		return "params is not an object"
	}
	var problems []string
	raw, ok := params["level"]
	var level string
	switch {
	case !ok:
		problems = append(problems, "no level")
	case json.Unmarshal(raw, &level) != nil:
		problems = append(problems, fmt.Sprintf("level %s is not a string", conform.ClipBytes(raw, 40)))
	case loglevel.Rank(level) < 0:
		problems = append(problems, fmt.Sprintf("level %q is no syslog level name", conform.Clip(level, 40)))
	}
	if _, ok := params["data"]; !ok {
		problems = append(problems, "no data")
	}
	if raw, ok := params["logger"]; ok && toolkit.JSONKind(raw) != "string" {
		problems = append(problems, fmt.Sprintf("logger %s is not a string", conform.ClipBytes(raw, 40)))
	}
	return strings.Join(problems, ", ")
}

// LOG-SETLEVEL-01 — {rev}/server/utilities/logging.mdx (Setting Log Level, Message Flow).
var _ = conform.Register(lgSetLevelCheck(conform.Check{
	ID: "LOG-SETLEVEL-01", Title: "logging/setLevel with each of the eight levels gets an empty result",
}, runSetLevel))

func runSetLevel(t *conform.T, s *conform.Session) conform.Verdict {
	var f conform.Findings
	// Every level but debug at once, then debug alone, so that the level is left at
	// debug, where every message passes, for the checks after this one. The replies
	// are judged in the levels' order, from emergency down.
	levels := slices.Clone(loglevel.Levels)
	slices.Reverse(levels)
	type reply struct {
		resp *wire.Response
		err  error
	}
	replies := make([]reply, len(levels))
	var wg sync.WaitGroup
	for i, level := range levels[:len(levels)-1] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i].resp, replies[i].err = lgSetLevel(t, s, level)
		}()
	}
	wg.Wait()
	last := len(levels) - 1
	replies[last].resp, replies[last].err = lgSetLevel(t, s, levels[last])
	for i, level := range levels {
		resp, err := replies[i].resp, replies[i].err
		switch {
		case err != nil:
			return conform.Silence(fmt.Sprintf("an empty result for %s {level: %q}", loglevel.SetLevel, level), err)
		case resp.IsError():
			f.Fail(fmt.Sprintf("%q: %s", level, conform.Describe(resp, nil)))
		default:
			if extra := lgNonEmpty(resp.Result); extra != "" {
				f.Fail(fmt.Sprintf("%q: %s", level, extra))
			}
		}
		f.Judged++
	}
	return f.Verdict("an empty result for logging/setLevel with each of the eight syslog levels", "",
		fmt.Sprintf("all %d levels answered with an empty result (debug last: the level is left at debug)", f.Judged))
}

// lgSetLevel sends logging/setLevel; an HTTP error status carrying a JSON-RPC error
// is that error.
func lgSetLevel(t *conform.T, s *conform.Session, level string) (*wire.Response, error) {
	resp, err := s.Call(t.Ctx, loglevel.SetLevel, map[string]any{"level": level})
	if r, ok := conform.RPCErrorReply(err, loglevel.SetLevel); ok {
		return r, nil
	}
	return resp, err
}

// lgNonEmpty says how a result is not the empty result ("" when it is: an object
// with nothing but _meta, which every Result may carry).
func lgNonEmpty(result json.RawMessage) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(result, &obj) != nil || obj == nil {
		return "the result " + conform.ClipBytes(result, 80) + " is not an object"
	}
	var extra []string
	for k := range obj {
		if k != "_meta" {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return ""
	}
	slices.Sort(extra)
	return "the result has members " + strings.Join(extra, ", ")
}

// LOG-SETLEVEL-INVALID-01 — {rev}/server/utilities/logging.mdx (Error Handling).
var _ = conform.Register(loglevel.InvalidCheck(conform.Check{
	ID: "LOG-SETLEVEL-INVALID-01", Title: "logging/setLevel with an unknown level is refused with -32602",
}, judgeInvalidLevel))

// LOG-R5-INVALID-01 — 2026-07-28/server/utilities/logging.mdx (Error Handling).
var _ = conform.Register(loglevel.InvalidCheck(conform.Check{
	ID: "LOG-R5-INVALID-01", Title: "a request whose _meta logLevel is no level is refused with -32602",
}, judgeInvalidLevel))

// judgeInvalidLevel judges the reply to the unknown level "verbose" (setLevel
// before 2026-07-28, _meta logLevel in it): -32602, or the SHOULD is broken.
func judgeInvalidLevel(t *conform.T, a loglevel.InvalidAnswer) conform.Verdict {
	return t.ExpectRPCError(a.Resp, a.Err, wire.CodeInvalidParams, a.What)
}

// LOG-FILTER-01 — {rev}/server/utilities/logging.mdx (Message Flow).
var _ = conform.Register(lgSetLevelCheck(conform.Check{
	ID: "LOG-FILTER-01", Title: "after logging/setLevel error, no log message below error",
	// Each round holds the log level at the level it sets: on a shared server every
	// revision's filtered round runs beside the others' (all at error), and the
	// silences they prove overlap instead of following one another.
	HoldsByValue: true,
}, runLogFilter))

func runLogFilter(t *conform.T, s *conform.Session) conform.Verdict {
	ct := lgFixtureTool(t)
	if ct == nil {
		return conform.Skip(conform.MissingFixture, "the level filter needs the fixture tool %s (the fixture contract, refserver/doc.go), which the server does not list", loglevel.Fixture)
	}
	// Whatever happens, leave the level at debug, where every message passes (the
	// control round, last, sets it there when it runs), holding it at debug: a
	// revision still in its filtered round holds it at error.
	release := t.HoldState(lgLevelFilter)
	reset := true
	defer func() {
		release()
		if reset {
			debug := t.HoldState(loglevel.Levels[0])
			defer debug()
			_, _ = lgSetLevel(t, s, loglevel.Levels[0])
		}
	}()
	threshold := loglevel.Rank(lgLevelFilter)
	below := func(m loglevel.Message) bool { r := loglevel.Rank(m.Level); return r >= 0 && r < threshold }
	// The filtered round first: it proves a silence (no message below error), which
	// over legacy Streamable HTTP costs the barrier's grace unless the call's own
	// stream carried its messages (lgOnCallStream). The control round after it
	// needs only one message below error, so its wait ends at the barrier once one
	// is in. In this order no message of the control round can fall into the
	// filtered round's window, as one trailing its barrier could the other way.
	filtered := lgFilterRound(t, s, ct, lgLevelFilter, nil)
	release()
	release = t.HoldState(loglevel.Levels[0])
	control := lgFilterRound(t, s, ct, loglevel.Levels[0], func(msgs []loglevel.Message) bool { return slices.ContainsFunc(msgs, below) })
	reset = false
	if !slices.ContainsFunc(control, below) {
		return conform.Skip(conform.NotExercised, "after logging/setLevel debug, %s sent no message below %s (levels %s), so holding those back cannot be seen",
			loglevel.Fixture, lgLevelFilter, lgLevelList(control))
	}
	var f conform.Findings
	for _, m := range filtered {
		f.Judged++
		if below(m) {
			f.Fail(fmt.Sprintf("%s: level %q after logging/setLevel %s", m.Where(), m.Level, lgLevelFilter))
		}
	}
	return f.Verdict("after logging/setLevel error only error, critical, alert and emergency messages", "",
		fmt.Sprintf("%s sent levels %s after setLevel debug, and only %s after setLevel %s", loglevel.Fixture, lgLevelList(control), lgLevelList(filtered), lgLevelFilter))
}

// lgFilterRound sets the level, calls the fixture tool and settles the channel
// (until enough holds of the messages so far, when enough is set; without it, until
// the call's own stream is shown to have carried them: lgOnCallStream); it returns
// the log messages that arrived from the call on, or ends the check (a refused level
// is LOG-SETLEVEL-01's to judge).
func lgFilterRound(t *conform.T, s *conform.Session, ct *toolkit.CallableTool, level string, enough func([]loglevel.Message) bool) []loglevel.Message {
	resp, err := lgSetLevel(t, s, level)
	if err != nil || resp.IsError() {
		t.SkipNow(conform.NotExercised, "logging/setLevel %s got %s (LOG-SETLEVEL-01 judges it), so the filter could not be set", level, conform.Describe(resp, err))
	}
	mark := s.Conn.Seq()
	lgCall(t, s, ct, "")
	// Over legacy Streamable HTTP, once the POST streams have ended and their frames
	// are read (wire.Conn.RepliesSettled), the call's own stream may prove the rest.
	until := func() bool { return s.Conn.RepliesSettled(t.Ctx) && lgOnCallStream(s, s.Conn.Received(mark)) }
	if enough != nil {
		until = func() bool { return enough(loglevel.In(s, s.Conn.Received(mark))) }
	}
	if err := loglevel.SettleUntil(t, s, until); err != nil {
		t.ErrorNow("the barrier after %s failed (%v): nothing bounds the log messages still to come", loglevel.Fixture, err)
	}
	return loglevel.In(s, s.Conn.Received(mark))
}

// lgOnCallStream reports whether the log messages among entries (those from the
// fixture call on) all came on the SSE stream of the call's own POST, which carried
// its result too, and there was at least one. A server that sends the call's
// messages where SHTTP-POST-SSE-RELATED-01 says they go ("These messages SHOULD
// relate to the originating client request") has sent every one of them once that
// stream ends with the result, so the settle needs no grace for one still on its way
// over the GET stream, which is ordered with nothing. A message on the GET stream,
// or a result in a JSON body, leaves the grace. Not guarded: a server that sends
// some levels on the call's stream and the rest on the GET stream.
func lgOnCallStream(s *conform.Session, entries []wire.Entry) bool {
	stream := ""
	for _, e := range entries {
		if e.Msg != nil && e.Msg.IsResponse() && e.ForMethod == "tools/call" {
			stream = e.Stream
		}
	}
	msgs := loglevel.In(s, entries)
	if stream == "" || len(msgs) == 0 {
		return false
	}
	for _, m := range msgs {
		if m.Entry.Source != "post" || m.Entry.Stream != stream {
			return false
		}
	}
	return true
}

// lgLevelList names the levels of messages, in arrival order, once each.
func lgLevelList(msgs []loglevel.Message) string {
	var levels []string
	for _, m := range msgs {
		if l := toolkit.Or(m.Level, "(none)"); !slices.Contains(levels, l) {
			levels = append(levels, l)
		}
	}
	if len(levels) == 0 {
		return "(none)"
	}
	return "[" + strings.Join(levels, ", ") + "]"
}

// LOG-R5-PERREQ-01 — 2026-07-28/server/utilities/logging.mdx (Per-request log level).
var _ = conform.Register(conform.Check{
	ID: "LOG-R5-PERREQ-01", Title: "log messages only for a request whose _meta sets logLevel, on its own stream",
	Probe: func(t *conform.T) { lgPerRequestProbe(t) },
	Run:   runPerRequest,
})

// lgPerRequestProbe calls the fixture tool without, then with, _meta logLevel
// "warning" on the main session (once), and settles the channel.
func lgPerRequestProbe(t *conform.T) lgExercise {
	s := t.Session()
	return t.Once("lg.perreq:"+s.Label, func() any {
		ct := lgFixtureTool(t)
		if ct == nil {
			return lgExercise{}
		}
		lgCall(t, s, ct, "")
		ex := lgExercise{called: true, outcome: lgCall(t, s, ct, lgLevelR5)}
		_ = loglevel.Settle(t, s)
		return ex
	}).(lgExercise)
}

// lgRequest is a request the suite sent, with the log level its _meta set.
type lgRequest struct {
	method   string
	id       wire.ID
	level    string // "" when _meta names no logLevel
	answered int    // the seq of its reply (0 while in flight)
}

func (r *lgRequest) String() string { return fmt.Sprintf("%s (id %s)", r.method, r.id) }

func runPerRequest(t *conform.T) conform.Verdict {
	ex := lgPerRequestProbe(t)
	var f conform.Findings
	asked := 0 // log messages attributed to a request that set logLevel
	for _, s := range toolkit.RevisionSessions(t) {
		asked += lgJudgePerRequest(s, t.Transcript(s), &f)
	}
	if f.Count() > 0 {
		return f.Verdict("no notifications/message for a request without _meta io.modelcontextprotocol/logLevel, and none on another request's or a listen stream",
			"log messages at or above the requested level, before the request's reply", "")
	}
	if asked == 0 {
		if ex.called && !loglevel.Declared(t.Session()) {
			return loglevel.Undeclared(fmt.Sprintf("%s sent no log message, asked or not", loglevel.Fixture))
		}
		if !ex.called {
			return conform.Skip(conform.MissingFixture, "no %s was received; the per-request level needs the fixture tool %s (the fixture contract, refserver/doc.go), which the server does not list", loglevel.Method, loglevel.Fixture)
		}
		return conform.Skip(conform.NotExercised, "%s sent no %s even with _meta logLevel %q (it returned %s): a call without the field that gets none proves nothing", loglevel.Fixture, loglevel.Method, lgLevelR5, ex.outcome)
	}
	return conform.Pass("%d %s, each on the stream of a request whose _meta set logLevel, at or above it; none for a request without it", asked, loglevel.Method)
}

// lgJudgePerRequest walks one session's transcript: each log message belongs to the
// request whose POST stream carried it (Streamable HTTP), else to the requests in
// flight when it arrived (stdio); a message tagged with a subscription id came on a
// listen stream. It records findings and returns how many messages belonged to a
// request that set logLevel.
func lgJudgePerRequest(s *conform.Session, entries []wire.Entry, f *conform.Findings) int {
	var sent []*lgRequest
	byKey, byRaw := map[string]*lgRequest{}, map[string]*lgRequest{}
	asked := 0
	for _, e := range entries {
		if e.Msg == nil {
			continue
		}
		switch {
		case e.Dir == wire.Sent && e.Msg.Kind == wire.KindRequest:
			r := &lgRequest{method: e.Msg.Method, id: e.Msg.ID, level: lgMetaLevel(e.Msg.Params)}
			sent = append(sent, r)
			byKey[r.id.Key()], byRaw[string(r.id.Raw())] = r, r
			continue
		case e.Dir == wire.Received && e.Msg.IsResponse():
			if r := byKey[e.Msg.ID.Key()]; r != nil && r.answered == 0 {
				r.answered = e.Seq
			}
			continue
		}
		m, ok := loglevel.Of(s, e)
		if !ok {
			continue
		}
		if _, tagged := conform.SubscriptionTag(e.Msg); tagged {
			f.Fail(fmt.Sprintf("%s: tagged with a subscription id: delivered on a subscriptions/listen stream", m.Where()))
			continue
		}
		owners := lgOwners(e, sent, byRaw)
		var withLevel []*lgRequest
		for _, r := range owners {
			if r.level != "" {
				withLevel = append(withLevel, r)
			}
		}
		if len(withLevel) == 0 {
			lgStray(m, owners, f)
			continue
		}
		asked++
		lowest := slices.MinFunc(withLevel, func(a, b *lgRequest) int { return loglevel.Rank(a.level) - loglevel.Rank(b.level) })
		if r := loglevel.Rank(m.Level); r >= 0 && loglevel.Rank(lowest.level) >= 0 && r < loglevel.Rank(lowest.level) {
			f.Warn(fmt.Sprintf("%s: level %q for %s, which asked for %q and above", m.Where(), m.Level, lowest, lowest.level))
		}
	}
	return asked
}

// lgOwners are the requests a log message can belong to: the one whose POST stream
// carried it, or those in flight when it arrived.
func lgOwners(e wire.Entry, sent []*lgRequest, byRaw map[string]*lgRequest) []*lgRequest {
	if e.Stream != "" {
		if r := byRaw[e.Stream]; r != nil {
			return []*lgRequest{r}
		}
		return nil
	}
	var out []*lgRequest
	for _, r := range sent {
		if r.answered == 0 {
			out = append(out, r)
		}
	}
	return out
}

// lgStray records a log message that belongs to no request that set logLevel: it
// came on the stream of a request that did not, or while only such requests (or
// none) were in progress — after the reply of one that did, too: its response stream
// had carried the final response.
func lgStray(m loglevel.Message, owners []*lgRequest, f *conform.Findings) {
	var names []string
	for _, r := range owners {
		names = append(names, r.String())
	}
	where := "no request was in progress"
	switch {
	case m.Stream != "":
		where = "it came on the stream of " + toolkit.Or(strings.Join(names, ""), "no request of the suite's ("+m.Stream+")")
	case len(names) > 0:
		where = "only " + strings.Join(names, ", ") + " in progress"
	}
	f.Fail(fmt.Sprintf("%s: level %q for no request that set _meta logLevel (%s)", m.Where(), m.Level, where))
}

// lgMetaLevel is the log level a request's _meta names ("" when none).
//
// params are those of a request the suite sent (valid JSON): the members are read
// where they lie, with exact names, not decoded (every 2026-07-28 request passes).
func lgMetaLevel(params json.RawMessage) string {
	if rawjson.KindOf(params) != rawjson.KindObject {
		return ""
	}
	meta, ok := rawjson.Lookup(params, "_meta")
	if !ok || rawjson.KindOf(meta) != rawjson.KindObject {
		return ""
	}
	raw, ok := rawjson.Lookup(meta, conform.MetaLogLevel)
	if !ok {
		return ""
	}
	level, err := rawjson.StringOfValid(raw)
	if err != nil || level == "" {
		return string(raw) // present but no string: still "set" (LOG-R5-INVALID-01 judges its refusal)
	}
	return level
}
