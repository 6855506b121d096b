package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// ClientName is what the suite calls itself in clientInfo.
const ClientName = "mcp-conform"

// Session is one initialized MCP session with the server under test.
type Session struct {
	// Requested is the protocolVersion the suite asked for.
	Requested string
	// Negotiated is the protocolVersion the server answered ("" when initialize failed).
	Negotiated string
	// Rev is the revision whose rules govern this session: the negotiated one when the
	// suite knows it, otherwise the requested one.
	Rev revision.Revision
	// Init is the reply to initialize (nil when none came).
	Init *wire.Response
	// InitResult is the decoded initialize result (nil when none came).
	InitResult map[string]json.RawMessage
	Conn       *wire.Conn
	Kind       string // stdio, http or sse
	// InitErr is set when the session could not be initialized.
	InitErr error
	// Label names the session in transcripts ("2025-06-18#1").
	Label string
	// opening is what the session's opening put on the wire (T.Opening).
	opening *Opening
	// openedSeq is where the session's transcript stood once it opened: the
	// entries up to it are its handshake, the evidence of the checks that judge it.
	openedSeq int

	mu        sync.Mutex
	capsMu    sync.Mutex
	caps      map[string]json.RawMessage // Capabilities, decoded from capsRaw
	capsRaw   json.RawMessage
	findings  []SchemaFinding
	checked   int // transcript entries already schema-checked
	validated int // messages validated so far

	barrierMu   sync.Mutex
	barrierRTT  time.Duration // the last barrier's round trip
	strayStarts []int
	// strayProven is when the barrier after the last silence probe was answered
	// (T.ProveSilence): the settle waits until strayGrace after it, wire.GraceAfter
	// that barrier's round trip.
	strayProven time.Time
	strayGrace  time.Duration
	// owedUntil is when the last reply owed to a request the session's checks sent
	// with CallRawOwed may no longer come (T.OweReply): the settle waits for it. A
	// later stray probe does not, since such a reply carries its request's id.
	owedUntil time.Time
}

// MarkStray records that a probe of stray input (replies no request id claims)
// starts after transcript entry seq, and returns where the probe before it on this
// session now ends. StrayEnd(seq) reads the end of the probe that started at seq: the
// start of the next one, or 0 when none followed (the probe's window runs to the end
// of the transcript). Probes are sequential on a session, each ending with a request
// round trip, so a reply the server wrote for one arrives before the next starts.
func (s *Session) MarkStray(seq int) {
	s.barrierMu.Lock()
	defer s.barrierMu.Unlock()
	s.strayStarts = append(s.strayStarts, seq)
}

// StrayEnd is where the stray probe that started after seq ends (see MarkStray).
func (s *Session) StrayEnd(seq int) int {
	s.barrierMu.Lock()
	defer s.barrierMu.Unlock()
	for _, st := range s.strayStarts {
		if st > seq {
			return st
		}
	}
	return 0
}

// Capabilities returns the server's declared capabilities (empty when none).
func (s *Session) Capabilities() map[string]json.RawMessage {
	raw := s.InitResult["capabilities"]
	// Decoded once per opening (most checks ask), and handed out as a copy that the
	// caller may change.
	s.capsMu.Lock()
	if s.capsRaw == nil || !bytes.Equal(s.capsRaw, raw) {
		var caps map[string]json.RawMessage
		if len(raw) > 0 {
			_ = json.Unmarshal(raw, &caps)
		}
		s.caps, s.capsRaw = caps, append(json.RawMessage{}, raw...)
	}
	caps := maps.Clone(s.caps)
	s.capsMu.Unlock()
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	return caps
}

// ServerInfo returns the raw serverInfo object, or nil: initialize's serverInfo, or
// in 2026-07-28 the DiscoverResult's _meta["io.modelcontextprotocol/serverInfo"].
func (s *Session) ServerInfo() json.RawMessage { return driverOf(s.Rev).serverInfo(s) }

// Modern reports whether the session speaks the stateless era (2026-07-28).
func (s *Session) Modern() bool { return s.Rev.Era == revision.Modern }

// Call sends a request and waits for its reply (bounded by --timeout).
func (s *Session) Call(ctx context.Context, method string, params any) (*wire.Response, error) {
	return s.Conn.Call(ctx, method, params)
}

// Barrier sends the barrier request (ping; server/discover in 2026-07-28) and waits
// for its reply: on an ordered channel (stdio, HTTP+SSE) the reply proves that every
// message the server wrote before it has been read. Any reply, an error too, is a
// barrier. While the reply to an earlier barrier request still stands
// (wire.Conn.Standing: nothing came or went since, whoever sent it, a
// wire.Conn.Flush too), none is sent.
func (s *Session) Barrier(ctx context.Context) error {
	s.barrierMu.Lock()
	defer s.barrierMu.Unlock()
	if rtt, ok := s.Conn.Standing(); ok {
		s.barrierRTT = rtt
		return nil
	}
	resp, err := s.Conn.Call(ctx, s.Conn.BarrierMethod(), nil)
	if err != nil {
		return fmt.Errorf("barrier %s: %w", s.Conn.BarrierMethod(), err)
	}
	s.barrierRTT = resp.Elapsed
	return nil
}

// AwaitStrayGrace waits, bounded by ctx, until its grace has passed since
// the last silence probe's barrier on the session was answered (T.ProveSilence),
// unless the session has ended: nothing more can arrive on it. A stray probe calls
// it before it starts its window, so that a late reply to the one before is not
// read as its own.
func (s *Session) AwaitStrayGrace(ctx context.Context) {
	s.barrierMu.Lock()
	at, grace := s.strayProven, s.strayGrace
	s.barrierMu.Unlock()
	if !at.IsZero() {
		s.awaitTime(ctx, at.Add(grace))
	}
}

// awaitOwed waits, bounded by ctx, until no reply owed to a request sent with
// CallRawOwed may still come (T.OweReply), unless the session has ended.
func (s *Session) awaitOwed(ctx context.Context) {
	s.barrierMu.Lock()
	until := s.owedUntil
	s.barrierMu.Unlock()
	if !until.IsZero() {
		s.awaitTime(ctx, until)
	}
}

// awaitTime waits until t, the session's end or ctx's, whichever comes first.
func (s *Session) awaitTime(ctx context.Context, t time.Time) {
	wait := time.Until(t)
	if wait <= 0 {
		return
	}
	tm := time.NewTimer(wait)
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-s.Conn.Done():
	case <-ctx.Done():
	}
}

// Close ends the session and releases its transport.
func (s *Session) Close(ctx context.Context) {
	if s.Conn != nil {
		_ = s.Conn.Close(ctx)
	}
}

// Settle brings the session to a provable end of traffic, bounded by ctx, so that
// transcript-wide checks judge complete transcripts. A session that is not kept
// (keep false) is closed: its transport ends, and every frame it had read is
// recorded first (on stdio, the server's output to its end). A kept session gets a
// barrier: on an ordered channel (stdio, HTTP+SSE) a ping, whose reply proves that
// everything the server wrote before it is in. Where a silence probe (T.ProveSilence)
// is still owed a reply, either waits first until wire.GraceAfter the probe's
// barrier's round trip has passed since it, the proof wire.Conn.Flush gives a silence. On Streamable HTTP,
// where messages may travel on any of several streams, the session is ended from the
// server's side (DELETE) and closed once its streams have ended on their own, which
// proves a POST's reply in or absent: no grace is waited there.
func (s *Session) Settle(ctx context.Context, closeIt bool) {
	if s.Conn == nil {
		return
	}
	if d, ok := s.Conn.Transport().(interface{ Drain(context.Context) bool }); ok {
		d.Drain(ctx)
		closeIt = true
	} else {
		s.AwaitStrayGrace(ctx)
		s.awaitOwed(ctx)
	}
	if closeIt {
		s.Close(ctx)
		return
	}
	if s.Conn.Err() == nil {
		_ = s.Barrier(ctx)
	}
}

// initError classifies why a session could not be opened.
type initError struct {
	stage string // "connect", "initialize"
	rpc   *wire.Error
	err   error
}

func (e *initError) Error() string {
	if e.rpc != nil {
		what := "initialize"
		if e.stage == "discover" {
			what = "server/discover"
		}
		return fmt.Sprintf("%s was refused: %d %s", what, e.rpc.Code, e.rpc.Message)
	}
	return fmt.Sprintf("%s: %v", e.stage, e.err)
}

func (e *initError) Unwrap() error { return e.err }

// refused reports whether the server answered initialize with a JSON-RPC error (it
// was reached and spoke JSON-RPC), as opposed to a transport failure.
func refused(err error) (*wire.Error, bool) {
	var ie *initError
	if errors.As(err, &ie) && ie.rpc != nil {
		return ie.rpc, true
	}
	return nil, false
}

// mayFallBack reports whether a failed initialize may mean another transport: any
// failure but a JSON-RPC refusal, and a refusal that came as an HTTP error status
// (a legacy HTTP+SSE server may answer a Streamable HTTP POST that way).
func mayFallBack(err error) bool {
	var se *transport.HTTPStatusError
	_, isRPC := refused(err)
	return !isRPC || errors.As(err, &se)
}

type sessionOptions struct {
	timeout time.Duration
	// initTimeout bounds initialize, the first request, which on stdio also waits
	// for the server process to start.
	initTimeout time.Duration
	label       string
	version     string // the suite's version for clientInfo
	budget      *wire.Budget
	// preInit, when set, adds the pre-initialize probe's steps to a legacy
	// handshake (PreInit); other eras ignore it.
	preInit *preInitHooks
}

// legacyDriver opens an R1–R4 session: initialize → result → notifications/initialized.
type legacyDriver struct{}

// openTransport dials the target once for a session of either era and wraps the
// transport in a Conn with the era's wire options; the first request's deadline
// also covers the server's start (initTimeout).
func openTransport(ctx context.Context, tgt target, requested string, rev revision.Revision, opts sessionOptions, wo wire.Options) (*Session, transport.Transport, error) {
	s := &Session{Requested: requested, Rev: rev, Label: opts.label}
	tr, err := tgt.dial(ctx)
	if err != nil {
		s.InitErr = &initError{stage: "connect", err: err}
		return s, nil, s.InitErr
	}
	s.Kind = tr.Kind()
	wo.RequestTimeout, wo.Budget = max(opts.timeout, opts.initTimeout), opts.budget
	s.Conn = wire.NewConn(tr, wo)
	return s, tr, nil
}

// InitializeParams are the params of the suite's initialize request: the version it
// asks for, no client capabilities, and clientInfo naming the suite (clientVersion
// says which probe sent it). Every initialize the suite sends, the sessions' and the
// probes', is this one request.
func InitializeParams(protocolVersion, clientVersion string) map[string]any {
	return map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": ClientName, "version": clientVersion},
	}
}

func (legacyDriver) open(ctx context.Context, tgt target, requested string, rev revision.Revision, opts sessionOptions) (*Session, error) {
	s, tr, err := openTransport(ctx, tgt, requested, rev, opts, wire.Options{})
	if err != nil {
		return s, err
	}
	return legacyHandshake(ctx, s, tr, requested, opts)
}

// legacyHandshake is the legacy opening on a dialled transport: initialize →
// result → notifications/initialized (and over Streamable HTTP the optional GET
// stream).
func legacyHandshake(ctx context.Context, s *Session, tr transport.Transport, requested string, opts sessionOptions) (*Session, error) {
	params := InitializeParams(requested, opts.version)
	if opts.preInit != nil {
		opts.preInit.beforeInitialize(ctx, s.Conn)
	}
	resp, err := s.Conn.Call(ctx, "initialize", params)
	s.Conn.SetRequestTimeout(opts.timeout)
	if r, ok := RPCErrorReply(err, "initialize"); ok {
		// An HTTP error status carrying a JSON-RPC error refuses initialize as that
		// error does on stdio (an unsupported version rejected with -32602 is the
		// same answer on every transport). The status stays in the error, so that
		// transport detection can still fall back to HTTP+SSE on it.
		s.Init = r
		s.InitErr = &initError{stage: "initialize", rpc: r.Error, err: err}
		return s, s.InitErr
	}
	if err != nil {
		s.InitErr = &initError{stage: "initialize", err: err}
		return s, s.InitErr
	}
	s.Init = resp
	if resp.IsError() {
		s.InitErr = &initError{stage: "initialize", rpc: resp.Error}
		return s, s.InitErr
	}
	if err := json.Unmarshal(resp.Result, &s.InitResult); err != nil {
		s.InitErr = &initError{stage: "initialize", err: fmt.Errorf("the result is not an object: %w", err)}
		return s, s.InitErr
	}
	if err := json.Unmarshal(s.InitResult["protocolVersion"], &s.Negotiated); err != nil || s.Negotiated == "" {
		s.InitErr = &initError{stage: "initialize", err: fmt.Errorf("the result has no protocolVersion string")}
		return s, s.InitErr
	}
	if nr, ok := revision.Lookup(s.Negotiated); ok {
		s.Rev = nr
	}
	if hs, ok := tr.(transport.HTTPSession); ok {
		if s.Rev.Has(revision.VersionHeader) && s.Rev.Name == s.Negotiated {
			hs.SetProtocolVersion(s.Negotiated)
		}
	}
	if opts.preInit != nil {
		opts.preInit.beforeInitialized(ctx, s.Conn, resp.Seq)
	}
	if err := s.Conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		s.InitErr = &initError{stage: "initialized", err: err}
		return s, s.InitErr
	}
	if hs, ok := tr.(transport.HTTPSession); ok {
		// The GET stream is optional (405 is allowed); it carries server-initiated
		// messages such as list_changed, which the checks then see.
		_, _ = hs.OpenGetStream(ctx)
	}
	return s, nil
}

// SchemaFinding is a received message that breaks the negotiated revision's schema.
type SchemaFinding struct {
	Session    string
	Seq        int
	Definition string
	Problem    string
	// Err is the validation error (a *revision.ValidationError for schema problems).
	Err error
}

// SchemaFindings validates every received message not yet checked against the
// session revision's schema (BASE-SCHEMA-01) and returns all findings so far and
// how many messages were validated.
func (s *Session) SchemaFindings() ([]SchemaFinding, int) {
	if s.Conn == nil {
		return nil, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	probes := s.malformedModernRequests()
	tasks := s.taskRequests()
	for e := range s.Conn.EachReceived(s.checked) {
		s.checked = e.Seq
		if e.Msg == nil || e.Err != "" {
			continue // framing and shape faults are judged by BASE-* checks
		}
		if e.Msg.IsResponse() && probes[e.Msg.ID.Key()] {
			continue // the answer to a request the server should have refused
		}
		def, value := schemaTarget(s.Rev, e)
		if d, ok := tasks.resultDefinition(e); ok {
			def = d
		}
		if def == "" {
			continue
		}
		s.validated++
		if err := s.Rev.Validate(def, value); err != nil {
			s.findings = append(s.findings, SchemaFinding{Session: s.Label, Seq: e.Seq, Definition: def, Problem: err.Error(), Err: err})
		}
	}
	return append([]SchemaFinding(nil), s.findings...), s.validated
}

// schemaTarget picks the definition a received message must match, and the part of
// the message it applies to.
func schemaTarget(rev revision.Revision, e wire.Entry) (string, any) {
	m := e.Msg
	switch m.Kind {
	case wire.KindResult:
		if def, ok := rev.ResultDefinition(e.ForMethod); ok && e.ForMethod != "" {
			if MayRequireInput(e.ForMethod) && rev.HasDefinition("InputRequiredResult") && isInputRequired(m.Result) {
				// 2026-07-28 (basic/patterns/mrtr.mdx): tools/call, prompts/get and
				// resources/read may answer with an InputRequiredResult instead.
				def = "InputRequiredResult"
			}
			return def, json.RawMessage(m.Result)
		}
	case wire.KindError:
		if m.ID.IsZero() || m.ID.IsNull() {
			// An unreadable request id may be answered with null (JSON-RPC) or no id
			// (from 2025-11-25); BASE-SCHEMA-01 accepts both.
			return "", nil
		}
		return rev.ErrorDefinition(), json.RawMessage(m.Raw)
	case wire.KindNotification:
		if def, ok := rev.NotificationDefinition(m.Method); ok {
			return def, json.RawMessage(m.Raw)
		}
	case wire.KindRequest:
		if def, ok := rev.ServerRequestDefinition(m.Method); ok {
			return def, json.RawMessage(m.Raw)
		}
	}
	return "", nil
}

// MayRequireInput reports whether method is one of the requests 2026-07-28 lets a
// server answer with an InputRequiredResult (basic/patterns/mrtr.mdx). Only their
// results are decoded to look (a tools/list page of 10,000 tools is not).
func MayRequireInput(method string) bool {
	return method == "tools/call" || method == "prompts/get" || method == "resources/read"
}

// isInputRequired reports whether a result says resultType "input_required".
func isInputRequired(result json.RawMessage) bool {
	var r struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(result, &r) == nil && r.ResultType == "input_required"
}

// taskRequests are, in a session whose revision has tasks (2025-11-25), the ids of
// the task-augmented tools/call requests and of the tasks/result requests for their
// tasks (keys of wire.ID.Key).
type taskRequests struct {
	augmented map[string]bool // tools/call with params.task
	payload   map[string]bool // tasks/result for a task a tools/call created
}

// taskRequests reads the transcript for the requests whose results change schema
// under tasks (2025-11-25 basic/utilities/tasks.mdx, Creating Tasks and Retrieving
// Task Results): a task-augmented request is answered with a CreateTaskResult, and
// tasks/result returns "the result structure [that] matches the original request
// type (e.g., CallToolResult for tools/call)".
func (s *Session) taskRequests() taskRequests {
	tr := taskRequests{augmented: map[string]bool{}, payload: map[string]bool{}}
	if !s.Rev.Has(revision.Tasks) {
		return tr
	}
	callTasks := map[string]bool{} // task ids of CreateTaskResults to tools/call
	all, _ := s.Conn.Transcript()
	for _, e := range all {
		m := e.Msg
		switch {
		case m == nil:
		case e.Dir == wire.Sent && m.Kind == wire.KindRequest && m.Method == "tools/call":
			if _, ok := rawjson.Lookup(m.Params, "task"); ok {
				tr.augmented[m.ID.LooseKey()] = true
			}
		case e.Dir == wire.Sent && m.Kind == wire.KindRequest && m.Method == "tasks/result":
			if id, ok := stringMember(m.Params, "taskId"); ok && callTasks[id] {
				tr.payload[m.ID.LooseKey()] = true
			}
		case e.Dir == wire.Received && m.Kind == wire.KindResult && tr.augmented[m.ID.LooseKey()]:
			if task, ok := rawjson.Lookup(m.Result, "task"); ok {
				if id, ok := stringMember(task, "taskId"); ok {
					callTasks[id] = true
				}
			}
		}
	}
	return tr
}

// resultDefinition is the definition a result of a task request must match: a
// CreateTaskResult for a task-augmented tools/call that the server answered with a
// task (one answered without is held to CallToolResult as usual), a CallToolResult
// for tasks/result of a tools/call's task.
func (tr taskRequests) resultDefinition(e wire.Entry) (string, bool) {
	if e.Msg.Kind != wire.KindResult {
		return "", false
	}
	// Loose keys: a reply that echoes the id in another JSON type (BASE-RESP-ID-01's
	// finding) is still the reply to the task request, and held to its schema.
	key := e.Msg.ID.LooseKey()
	switch {
	case tr.augmented[key] && e.ForMethod == "tools/call":
		if _, ok := rawjson.Lookup(e.Msg.Result, "task"); ok {
			return "CreateTaskResult", true
		}
	case tr.payload[key] && e.ForMethod == "tasks/result":
		return "CallToolResult", true
	}
	return "", false
}

// stringMember returns a JSON object's string member.
func stringMember(obj json.RawMessage, name string) (string, bool) {
	raw, ok := rawjson.Lookup(obj, name)
	if !ok {
		return "", false
	}
	var v string
	return v, json.Unmarshal(raw, &v) == nil
}

// malformedModernRequests returns the ids of the requests of a 2026-07-28 session that
// lack a required _meta field on purpose (probes): what a server answers to them is
// judged by the probe's own check (MOD-META-REQUIRED-01, MOD-LEGACY-INIT-01), not
// held to the schema of a well-formed request's result.
func (s *Session) malformedModernRequests() map[string]bool {
	if !s.Modern() {
		return nil
	}
	out := map[string]bool{}
	all, _ := s.Conn.Transcript()
	for _, e := range all {
		if e.Dir == wire.Sent && e.Msg != nil && e.Msg.Kind == wire.KindRequest && !IsModernRequest(e.Msg.Params, s.Requested) {
			out[e.Msg.ID.Key()] = true
		}
	}
	return out
}
