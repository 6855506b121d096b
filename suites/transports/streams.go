package transports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// What the stream checks (getstream.go, poststream.go, resume.go, modernstream.go)
// share: the Streamable HTTP session of a column, the sessions of a transcript
// check, the stream probes' tool calls, and how an event is read.

// probeStreamer opens a stream a check reads itself (transport.StreamableHTTP).
type probeStreamer interface {
	transport.HTTPSession
	OpenProbeStream(ctx context.Context, method string, body []byte, h http.Header) (transport.ProbeReply, error)
}

// httpSessions returns the revision's sessions that run over Streamable HTTP, with
// their transports (PhaseTranscript checks of the Streamable HTTP transport).
func httpSessions(t *conform.T) ([]*conform.Session, []transport.HTTPSession) {
	var ss []*conform.Session
	var hs []transport.HTTPSession
	for _, s := range toolkit.RevisionSessions(t) {
		if h, ok := s.Conn.Transport().(transport.HTTPSession); ok && s.Kind == "http" {
			ss, hs = append(ss, s), append(hs, h)
		}
	}
	return ss, hs
}

// httpTranscriptCheck is a transcript check of the Streamable HTTP transport
// (PhaseTranscript): run judges the revision's sessions over it, ss, and their
// transports, hss (httpSessions).
func httpTranscriptCheck(c conform.Check, run func(t *conform.T, ss []*conform.Session, hss []transport.HTTPSession) conform.Verdict) conform.Check {
	c.Phase = conform.PhaseTranscript
	c.Run = func(t *conform.T) conform.Verdict {
		ss, hss := httpSessions(t)
		return run(t, ss, hss)
	}
	return c
}

// sessionRequests is what one session sent that ties a server message to a request
// of its: each map but byToken is keyed by the request's raw id.
type sessionRequests struct {
	tokens  map[string]string // the progressToken it carried (raw JSON; "" when none)
	methods map[string]string // its method
	tasks   map[string]string // of a tasks/result request, the taskId it asks for
	byToken map[string]string // a progressToken carried → the raw id of its request
}

// sentRequests reads what a session's requests carried from its transcript.
func sentRequests(entries []wire.Entry) sessionRequests {
	sent := sessionRequests{tokens: map[string]string{}, methods: map[string]string{}, byToken: map[string]string{}}
	for _, e := range entries {
		if e.Dir != wire.Sent || e.Msg == nil || e.Msg.Kind != wire.KindRequest {
			continue
		}
		id := string(e.Msg.ID.Raw())
		sent.methods[id] = e.Msg.Method
		sent.tokens[id] = progressTokenOf(e.Msg.Params)
	}
	for id, tok := range sent.tokens {
		if tok != "" {
			sent.byToken[tok] = id
		}
	}
	sent.tasks = taskResultRequests(entries)
	return sent
}

// httpMessageCheck is a transcript check (PhaseTranscript) of every message the
// server sent over Streamable HTTP (receivedOverHTTP): judge counts in f.Judged
// the messages that are the rule's and records how they break it. Not exercised
// for the reason none when no message was the rule's; else a violation of want,
// or a pass that passed words with the count judged.
func httpMessageCheck(c conform.Check, judge func(s *conform.Session, e wire.Entry, sent sessionRequests, f *conform.Findings), none, want, passed string) conform.Check {
	c.Phase = conform.PhaseTranscript
	c.Run = func(t *conform.T) conform.Verdict {
		var f conform.Findings
		receivedOverHTTP(t, func(s *conform.Session, e wire.Entry, sent sessionRequests) { judge(s, e, sent, &f) })
		return f.VerdictOrNone(none, want, fmt.Sprintf(passed, f.Judged))
	}
	return c
}

// receivedOverHTTP calls fn for every message of the revision's Streamable HTTP
// sessions that the server sent and that decoded, with what that session sent: the
// walk of the transcript checks that tie a server message to a request.
func receivedOverHTTP(t *conform.T, fn func(s *conform.Session, e wire.Entry, sent sessionRequests)) {
	ss, _ := httpSessions(t)
	for _, s := range ss {
		entries := t.Transcript(s)
		sent := sentRequests(entries)
		for _, e := range entries {
			if e.Dir == wire.Received && e.Msg != nil {
				fn(s, e, sent)
			}
		}
	}
}

// taskResultRequests maps the raw id of each tasks/result request the suite sent to
// its params.taskId (2025-11-25 basic/utilities/tasks.mdx).
func taskResultRequests(entries []wire.Entry) map[string]string {
	out := map[string]string{}
	for _, e := range entries {
		if e.Dir != wire.Sent || e.Msg == nil || e.Msg.Kind != wire.KindRequest || e.Msg.Method != "tasks/result" {
			continue
		}
		var p struct {
			TaskID string `json:"taskId"`
		}
		if json.Unmarshal(e.Msg.Params, &p) == nil && p.TaskID != "" {
			out[string(e.Msg.ID.Raw())] = p.TaskID
		}
	}
	return out
}

// relatedTask returns a message's params._meta["io.modelcontextprotocol/related-task"].taskId
// (2025-11-25 basic/utilities/tasks.mdx, Associating Task-Related Messages), or "".
func relatedTask(m *wire.Message) string {
	var p struct {
		Meta struct {
			Related struct {
				TaskID string `json:"taskId"`
			} `json:"io.modelcontextprotocol/related-task"`
		} `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return ""
	}
	return p.Meta.Related.TaskID
}

// progressTokenOf returns params._meta.progressToken as raw JSON, or "".
func progressTokenOf(params json.RawMessage) string {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return string(p.Meta.Token)
}

// cancelledRequest returns the raw requestId a notifications/cancelled names.
func cancelledRequest(m *wire.Message) (string, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return "", false
	}
	return string(p.RequestID), true
}

// progressToken returns a notifications/progress' token as raw JSON ("" if none).
func progressToken(m *wire.Message) string {
	var p struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return ""
	}
	return string(p.Token)
}

// where names a transcript entry for a finding.
func where(s *conform.Session, e wire.Entry) string {
	return fmt.Sprintf("%s #%d", s.Label, e.Seq)
}

// fixtureTool returns a listed tool the suite may call, or why not.
func fixtureTool(t *conform.T, name string) (json.RawMessage, bool) {
	tl := toolkit.List(t).Find(name)
	if tl == nil {
		return nil, false
	}
	p := toolkit.Allowed(t, *tl)
	return p.Args, p.Allowed
}

// toolCallBody encodes a tools/call of name with args and a progress token, stamped
// with the session's _meta, under a fresh id of the session.
func toolCallBody(s *conform.Session, name string, args any, token string) (wire.ID, []byte, error) {
	id := s.Conn.NextID()
	p := map[string]any{"name": name, "arguments": args}
	if token != "" {
		p["_meta"] = map[string]any{"progressToken": token}
		toolkit.ProbeToken(token)
	}
	raw, err := wire.EncodeRequest(id, "tools/call", s.Conn.Stamp(p))
	if err != nil {
		return id, nil, fmt.Errorf("encode tools/call %s: %w", name, err)
	}
	return id, raw, nil
}

// responseTo reports whether an event's data is a response to the request whose raw
// id is id.
func responseTo(data, id string) bool {
	m, err := wire.Decode([]byte(data))
	return err == nil && m.IsResponse() && string(m.ID.Raw()) == id
}

// streamRead is what reading a probe stream up to a point saw.
type streamRead struct {
	events   []transport.Event
	response bool  // the response to the probe's request came
	ended    bool  // the server ended the stream (EOF)
	err      error // the read failed otherwise (the deadline, the connection)
}

// readUntil reads st until stop holds for an event, the stream ends, or d passes.
func readUntil(ctx context.Context, st *transport.ProbeStream, d time.Duration, id string, stop func(transport.Event) bool) streamRead {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var r streamRead
	for {
		ev, err := st.Next(ctx)
		switch {
		case errors.Is(err, io.EOF):
			r.ended = true
			return r
		case errors.Is(err, transport.ErrFrameTooLarge):
			r.events = append(r.events, ev)
			continue
		case err != nil:
			r.err = err
			return r
		}
		r.events = append(r.events, ev)
		if ev.Data != "" && responseTo(ev.Data, id) {
			r.response = true
		}
		if stop != nil && stop(ev) {
			return r
		}
	}
}

// lingerBound is how long a stream may stay open after its response before the END
// rows judge it left open (the catalogue's "≤ 5 s"), never past --timeout.
func lingerBound(t *conform.T) time.Duration {
	return min(5*time.Second, t.Timeout())
}

// endProbe calls a tool on a stream of the check's own and watches the stream end:
// test_slow (a short call, with progress) when the server lists it, else a tool the
// suite may call. It is the evidence of SHTTP-POST-SSE-END-01 and H5-SSE-END-01.
type endProbe struct {
	tool      string
	status    int    // the POST's HTTP status
	notStream string // the reply was not an SSE stream: what it was
	before    streamRead
	open      bool // still open lingerBound after the response
	after     streamRead
}

func runEndProbe(t *conform.T, s *conform.Session, ps probeStreamer) endProbe {
	var p endProbe
	var args json.RawMessage
	if _, ok := fixtureTool(t, "test_slow"); ok {
		// Its progress as it starts precedes the response in the fixture's own
		// order (in 2026-07-28 a reply becomes a stream only when something
		// precedes the response), so no work needs to last: 1 ms (not 0, whose
		// progress would read "0 of 0").
		p.tool, args = "test_slow", json.RawMessage(`{"ms":1}`)
	} else {
		ct, why := h5Tool(t, s)
		if why != "" {
			t.Stop(toolkit.NotAllowed(t.Check.ID + " (" + why + ")"))
		}
		p.tool, args = ct.Name, ct.Args
	}
	id, body, err := toolCallBody(s, p.tool, args, fmt.Sprintf("mcp-conform-end-%s", s.Label))
	if err != nil {
		t.Stop(conform.Errorf("%v", err))
	}
	rep, err := ps.OpenProbeStream(t.Ctx, http.MethodPost, body, nil)
	if err != nil {
		t.Stop(conform.Silence("a reply to tools/call "+p.tool, err))
	}
	p.status = rep.Exchange.Status
	if rep.Stream == nil {
		p.notStream = fmt.Sprintf("HTTP %d with Content-Type %q", rep.Exchange.Status, rep.Exchange.ContentType)
		return p
	}
	defer rep.Stream.Close()
	raw := string(id.Raw())
	p.before = readUntil(t.Ctx, rep.Stream, t.Timeout()+time.Second, raw, func(ev transport.Event) bool { return responseTo(ev.Data, raw) })
	if !p.before.response || p.before.ended {
		return p
	}
	p.after = readUntil(t.Ctx, rep.Stream, lingerBound(t), raw, nil)
	p.open = !p.after.ended
	return p
}
