// Package loglevel is what the logging checks of several groups share
// (server/utilities/logging.mdx): the syslog levels, whether a session declared the
// logging capability, the log messages a transcript holds, and the one probe with
// an unknown level that LOG-SETLEVEL-INVALID-01, LOG-R5-INVALID-01 (UTIL) and
// ERR-LOGLEVEL-01 (ERR) judge from their two sides.
package loglevel

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Method is the log message notification; SetLevel the legacy request that sets
// the minimum level (2024-11-05 to 2025-11-25; 2026-07-28 removed it).
const (
	Method   = "notifications/message"
	SetLevel = "logging/setLevel"
)

// Fixture is the fixture-contract tool that sends one log message per level at or
// above the minimum the client asked for (refserver/doc.go).
const Fixture = "test_tool_with_logging"

// Invalid is the level the probes send: no syslog level name.
const Invalid = "verbose"

// Levels are the syslog severities (RFC 5424 §6.2.1) that logging.mdx (Log Levels)
// names, lowest first.
var Levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Rank returns a level's severity rank (0 for debug), or -1 for a name that is no
// level.
func Rank(level string) int { return slices.Index(Levels, level) }

// Declared reports whether the session's server declared the logging capability
// (initialize's capabilities; the DiscoverResult's in 2026-07-28).
func Declared(s *conform.Session) bool {
	_, ok := s.Capabilities()["logging"]
	return ok
}

// Message is one notifications/message received.
type Message struct {
	Session *conform.Session
	wire.Entry
	Params map[string]json.RawMessage // nil when params is not an object
	Level  string                     // "" when level is absent or not a string
}

// Where names the message for findings.
func (m Message) Where() string { return fmt.Sprintf("%s #%d", m.Session.Label, m.Seq) }

// Of returns the entry as a log message, or false when it is none: only a
// well-formed notification counts (a notifications/message with an id is a request,
// BASE-NOTIF-NOID-01's finding; a broken envelope is the BASE checks').
func Of(s *conform.Session, e wire.Entry) (Message, bool) {
	if e.Dir != wire.Received || e.Msg == nil || e.Err != "" || e.Msg.Kind != wire.KindNotification || e.Msg.Method != Method {
		return Message{}, false
	}
	m := Message{Session: s, Entry: e}
	if json.Unmarshal(e.Msg.Params, &m.Params) == nil && m.Params != nil {
		_ = json.Unmarshal(m.Params["level"], &m.Level)
	}
	return m, true
}

// In returns the log messages among entries, in order.
func In(s *conform.Session, entries []wire.Entry) []Message {
	var out []Message
	for _, e := range entries {
		if m, ok := Of(s, e); ok {
			out = append(out, m)
		}
	}
	return out
}

// Settle proves that every message the server sent before it has arrived: the
// barrier request's reply where the channel is ordered (stdio, an HTTP+SSE stream)
// or where every message travels on its own request's stream, which has ended when
// the request is answered (2026-07-28 Streamable HTTP); over legacy Streamable HTTP,
// whose GET stream is ordered with nothing, the barrier, the end of every POST
// stream, and the grace after them (wire.Conn.FlushMessages: a log message may
// travel on the GET stream).
func Settle(t *conform.T, s *conform.Session) error { return SettleUntil(t, s, nil) }

// SettleUntil is Settle for a probe that needs only some of the messages: over
// legacy Streamable HTTP the grace is skipped once enough holds after the barrier
// (wire.Conn.FlushMessages); elsewhere the barrier alone proves every message in.
func SettleUntil(t *conform.T, s *conform.Session, enough func() bool) error {
	if s.Kind == "http" && !s.Modern() {
		return s.Conn.FlushMessages(t.Ctx, enough)
	}
	return s.Barrier(t.Ctx)
}

// InvalidAnswer is the reply to the probe with an unknown level.
type InvalidAnswer struct {
	What string // the request, for verdicts
	Resp *wire.Response
	Err  error // no reply: silence, or a broken transport
}

// Undeclared is the skip of a check whose rule binds servers that declare logging;
// what says why the rule does not apply.
func Undeclared(what string) conform.Verdict {
	return conform.Skip(conform.NotApplicable, "the server does not declare the logging capability; %s", what)
}

// InvalidCheck is a check that judges the reply to the probe with the unknown level
// (LOG-SETLEVEL-INVALID-01, LOG-R5-INVALID-01, ERR-LOGLEVEL-01): the probe is odd
// input on the scratch session, so the check runs in PhaseOddInput.
func InvalidCheck(c conform.Check, judge func(t *conform.T, a InvalidAnswer) conform.Verdict) conform.Check {
	c.Phase = conform.PhaseOddInput
	c.Run = func(t *conform.T) conform.Verdict { return judge(t, invalidReply(t)) }
	return c
}

// invalidReply is invalidProbe's answer, for the checks that judge it
// (InvalidCheck). Their rule binds servers that log: the check stops not
// applicable for a server that does not declare logging, and in error when the
// probe could not be sent.
func invalidReply(t *conform.T) InvalidAnswer {
	if !Declared(t.Session()) {
		t.Stop(Undeclared("the invalid-level rule binds servers that log"))
	}
	a, err := invalidProbe(t)
	if err != nil {
		t.Stop(conform.Errorf("%v", err))
	}
	return a
}

// invalidProbe sends the probe with the unknown level Invalid on the scratch
// session, once per revision (the checks that judge it share the reply): before
// 2026-07-28 logging/setLevel {level: "verbose"}; in 2026-07-28, where the level
// travels per request, tools/list (server/discover when the server declares no
// tools) with _meta io.modelcontextprotocol/logLevel "verbose". An HTTP error status
// carrying a JSON-RPC error is that error.
func invalidProbe(t *conform.T) (InvalidAnswer, error) {
	s, err := t.Scratch()
	if err != nil {
		return InvalidAnswer{}, err
	}
	return t.Once("loglevel.invalid:"+s.Label, func() any {
		method := SetLevel
		var params any = map[string]any{"level": Invalid}
		what := fmt.Sprintf("%s {level: %q}", SetLevel, Invalid)
		if s.Modern() {
			method = "server/discover"
			if _, ok := s.Capabilities()["tools"]; ok {
				method = "tools/list"
			}
			params = map[string]any{"_meta": map[string]any{conform.MetaLogLevel: Invalid}}
			what = fmt.Sprintf("%s with _meta[%q] %q", method, conform.MetaLogLevel, Invalid)
		}
		resp, err := s.Call(t.Ctx, method, params)
		if r, ok := conform.RPCErrorReply(err, method); ok {
			resp, err = r, nil
		}
		return InvalidAnswer{What: what, Resp: resp, Err: err}
	}).(InvalidAnswer), nil
}
