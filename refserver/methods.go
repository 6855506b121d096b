package refserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// request is one incoming request as a method handler sees it.
type request struct {
	id     wire.ID
	method string
	params json.RawMessage   // nil when absent
	rev    revision.Revision // the negotiated revision (zero before initialize)
	out    sink              // the channel for messages related to this request
}

// outcome is a handler's answer: a result, an error, or work that continues off the
// reader's goroutine (async) and produces the answer later.
type outcome struct {
	result any
	err    *rpcError
	async  func(ctx context.Context) outcome
	// after runs once the response was written (only faults set it).
	after func()
}

// respond and fail build the two synchronous outcomes.
func respond(result any) outcome { return outcome{result: result} }
func fail(e *rpcError) outcome   { return outcome{err: e} }

// methodFunc handles one MCP method.
type methodFunc func(s *session, rq *request) outcome

// methods maps every method the server implements to its handler. Anything else,
// including a method of a capability a fault leaves undeclared, is -32601.
var methods = withSharedMethods(map[string]methodFunc{
	"initialize":            handleInitialize,
	"ping":                  handlePing,
	"logging/setLevel":      handleSetLevel,
	"resources/read":        handleResourcesRead,
	"resources/subscribe":   handleResourcesSubscribe,   // resources.go
	"resources/unsubscribe": handleResourcesUnsubscribe, // resources.go
	"tasks/get":             handleTasksGet,             // 2025-11-25 only (taskMethods)
	"tasks/result":          handleTasksResult,          // 2025-11-25 only (taskMethods)
})

// sharedMethods are the methods both eras (methods, modernMethods) hand to the
// same handler.
var sharedMethods = map[string]methodFunc{
	"tools/list":               handleToolsList,
	"tools/call":               handleToolsCall,
	"resources/list":           handleResourcesList,
	"resources/templates/list": handleResourceTemplatesList,
	"prompts/list":             handlePromptsList, // prompts.go
	"prompts/get":              handlePromptsGet,  // prompts.go
	"completion/complete":      handleComplete,    // completion.go
}

// withSharedMethods adds sharedMethods to an era's own methods.
func withSharedMethods(own map[string]methodFunc) map[string]methodFunc {
	maps.Copy(own, sharedMethods)
	return own
}

// serverCapabilities are declared in every revision: resources because tool results
// embed resources (CONTENT-EMBED-CAP-01); prompts and completions (prompts.go).
func serverCapabilities(rev revision.Revision, fs faultSet) map[string]any {
	caps := map[string]any{
		"tools":     map[string]any{"listChanged": true},
		"logging":   map[string]any{},
		"resources": resourcesCapability(fs, false),
	}
	switch {
	case fs.on(faultToolsCapMissing):
		delete(caps, "tools")
	case fs.on(faultListChangedNotBool):
		caps["tools"] = map[string]any{"listChanged": "yes"}
	case fs.on(faultListChangedUndec):
		caps["tools"] = map[string]any{"listChanged": false}
	case fs.on(faultListChangedOnChg):
		caps["tools"] = map[string]any{}
	}
	if fs.on(faultEmbedWithoutResCap) {
		delete(caps, "resources")
	}
	if fs.on(faultLoggingCapMissing) {
		delete(caps, "logging")
	}
	promptCapabilities(caps, rev, fs)
	if fs.on(faultCapsBadShape) {
		caps["experimental"] = map[string]any{"io.github.mcp-conform/fault": true}
	}
	return caps
}

// serverInfo is the Implementation, with title from 2025-06-18 and description,
// icons and websiteUrl from 2025-11-25.
func serverInfo(rev revision.Revision, fs faultSet) map[string]any {
	info := map[string]any{"name": ServerName, "version": ServerVersion}
	if rev.Has(revision.Title) {
		info["title"] = ServerTitle
	}
	if rev.Has(revision.Icons) {
		info["description"] = ServerDescription
		info["icons"] = fixtureIcons()
		info["websiteUrl"] = ServerWebsite
		if fs.on(faultWebsiteNotURI) {
			info["websiteUrl"] = "mcp-conform reference server"
		}
	}
	return info
}

// handleInitialize negotiates the revision: the requested one when supported,
// otherwise the newest supported one. A second initialize in a session is -32600.
func handleInitialize(s *session, rq *request) outcome {
	p, e := paramsObject(rq.params)
	if e != nil {
		return fail(e)
	}
	requested, e := p.reqString("protocolVersion")
	if e != nil {
		return fail(e)
	}
	caps, _, e := p.optObject("capabilities")
	if e != nil {
		return fail(e)
	}
	if _, _, e := p.optObject("clientInfo"); e != nil {
		return fail(e)
	}
	fs := s.cfg.faults
	if fs.on(faultFallbackBareError) && !s.cfg.supports(requested) {
		// LIFE-VERSION-ERRSHAPE-01: a rejection without the example's data.
		return fail(&rpcError{Code: wire.CodeInvalidParams, Message: "Unsupported protocol version"})
	}
	if fs.on(faultInitRefused) && requested == "2024-11-05" {
		return fail(errInternal(fmt.Errorf("initialize for %s failed", requested)))
	}
	rev := s.cfg.negotiate(requested)
	if !s.setInitialized(rev, caps) {
		return fail(errInvalidRequest("initialize was already answered in this session"))
	}
	answered := rev.Name
	if fs.on(faultFallbackEcho) && !s.cfg.supports(requested) {
		answered = requested
	}
	serverCaps := serverCapabilities(rev, fs)
	if tasksServed(rev) {
		serverCaps["tasks"] = tasksCapability()
	}
	result := map[string]any{
		"protocolVersion": answered,
		"capabilities":    serverCaps,
		"serverInfo":      serverInfo(rev, fs),
		"instructions":    Instructions,
	}
	if fs.on(faultInstructionsNotStr) {
		result["instructions"] = []string{Instructions}
	}
	if fs.on(faultInitNoServerInfo) {
		delete(result, "serverInfo")
	}
	oc := respond(result)
	if fs.on(faultRequestBeforeInitd) && !s.modernChannel() {
		// LIFE-PRE-INIT-REQ-01: a request right after the result, before
		// notifications/initialized can have arrived.
		oc.after = func() { s.sendLogged(rq.out, s.serverRequest("roots/list", nil)) }
	}
	return oc
}

// modernChannel reports whether the session's channel has served 2026-07-28
// requests (a dual-era server's modern column probing initialize).
func (s *session) modernChannel() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.onModernChannel
}

// handlePing answers {}.
func handlePing(s *session, rq *request) outcome {
	if _, e := paramsObject(rq.params); e != nil {
		return fail(e)
	}
	switch fs := s.cfg.faults; {
	case fs.on(faultPingExtraKeys):
		return respond(map[string]any{"status": "ok"})
	case fs.on(faultPingError):
		return fail(errInternal(errors.New("ping failed")))
	case fs.on(faultPingBadMeta):
		return respond(map[string]any{"_meta": "pong"})
	}
	return respond(map[string]any{})
}

// handleSetLevel remembers the minimum level of notifications/message.
func handleSetLevel(s *session, rq *request) outcome {
	p, e := paramsObject(rq.params)
	if e != nil {
		return fail(e)
	}
	level, e := p.reqString("level")
	if e != nil {
		return fail(e)
	}
	i := logLevelIndex(level)
	fs := s.cfg.faults
	switch {
	case i < 0 && fs.on(faultLogLevelAccepted):
		return respond(map[string]any{}) // the level stays as it was
	case i < 0:
		return fail(errUnknownLogLevel(fs, "unknown log level %q (want one of %v)", level, logLevels))
	case fs.on(faultSetLevelPartial) && (level == "notice" || level == "alert" || level == "emergency"):
		return fail(errInvalidParams("unsupported log level %q", level))
	}
	s.setLogThreshold(i)
	return respond(map[string]any{})
}

// errUnknownLogLevel refuses a log level that is no syslog level name: -32602
// (server/utilities/logging.mdx, Error Handling), -32603 under a fault.
func errUnknownLogLevel(fs faultSet, format string, args ...any) *rpcError {
	if fs.on(faultLogLevelInternal) {
		return errInternal(fmt.Errorf(format, args...))
	}
	return errInvalidParams(format, args...)
}

// handleToolsList returns one page of the session's tools.
func handleToolsList(s *session, rq *request) outcome {
	fs := s.cfg.faults
	p, e := paramsObject(rq.params)
	if e != nil && !fs.on(faultListParamsUnchecked) {
		return fail(e)
	}
	cursor, hasCursor, e := p.optString("cursor")
	if e != nil && !fs.on(faultListParamsUnchecked) {
		return fail(e)
	}
	dynamicOn, version := s.toolList()
	all := s.cfg.tools.visible(dynamicOn, rq.rev)
	modernEmpty := rq.rev.Era == revision.Modern && !fs.on(faultEmptyNextCursor)
	switch {
	case hasCursor && cursor == "" && modernEmpty:
		cursor = secondPageCursor(s.cfg, version) // "" is a valid cursor in 2026-07-28
	case hasCursor && cursor == "" && rq.rev.Era == revision.Modern:
		// The fault: "" marks the end of the list, and following it is refused.
		return fail(errInvalidParams("invalid cursor %q", cursor))
	}
	served := 0
	if hasCursor {
		served = s.cursorServed(cursor)
	}
	if !hasCursor && s.shared != nil && fs.on(faultR5ToolOrderUnstable) && s.shared.firstPageServed() > 0 && len(all) > 1 {
		// Every listing after the first swaps its first two tools: same set, another
		// order (as a server whose order changes once a cache is warm).
		all = slices.Clone(all)
		all[0], all[1] = all[1], all[0]
	}
	start, end, next, hasNext, e := page(len(all), s.cfg.pageSize, version, cursor, hasCursor, fs, served)
	if e != nil {
		return fail(e)
	}
	// The page's definitions are encoded once per tool and revision
	// (definitionJSON); the page joins them as they are, after its other members
	// ("tools" sorts after each of them, the order json.Marshal would give).
	tools := []byte{'['}
	for i, t := range all[start:end] {
		d, err := s.cfg.tools.definitionJSON(t, rq.rev)
		if err != nil {
			return fail(errInternal(err))
		}
		if i > 0 {
			tools = append(tools, ',')
		}
		tools = append(tools, d...)
	}
	tools = append(tools, ']')
	result := map[string]any{}
	if hasNext && next == secondPageCursor(s.cfg, version) && modernEmpty {
		next = ""
	}
	if hasNext {
		result["nextCursor"] = next
	}
	if hasCursor && rq.rev.Era == revision.Modern && fs.on(faultR5CacheScopeMixed) {
		result["cacheScope"] = "private" // the first page gets the server's "public"
	}
	if fs.on(faultMetaKeyInvalid) && rq.rev.Has(revision.Meta) {
		result["_meta"] = map[string]any{"fixture.9page/listing": true} // a label must start with a letter
	}
	if fs.on(faultFollowPageInvalid) && hasCursor {
		result["_meta"] = "page " + cursor
	}
	obj, _ := newRawObject(mustMarshal(result))
	obj.set("tools", tools)
	return respond(encodedResult(obj.encode()))
}

// errUnknownTool answers a call to a tool that is not listed (names are
// case-sensitive): a protocol error, -32602, in every revision.
func errUnknownTool(name string) *rpcError {
	return &rpcError{Code: wire.CodeInvalidParams, Message: "Unknown tool: " + name}
}

// unknownTool is the outcome of a call to a tool that is not listed.
func unknownTool(fs faultSet, name string) outcome {
	switch {
	case fs.on(faultUnknownToolIsError):
		return respond(errorResult("Unknown tool: " + name))
	case fs.on(faultUnknownToolInternal):
		return fail(errInternal(errors.New("no tool named " + name)))
	case fs.on(faultUnknownToolSuccess):
		return respond(textResult("Done."))
	}
	return fail(errUnknownTool(name))
}

// logOddInput is the stdout-log-on-odd-input fault: over stdio, a malformed
// tools/call makes the server write a log line to stdout, which only a check that
// reads stdout after the last odd-input probe sees (STDIO-STDOUT-PURE-01). The line
// starts with "[" on purpose: it is a log line, not JSON cut by a newline.
func logOddInput(s *session, rq *request) {
	if !s.cfg.faults.on(faultStdoutOddInput) {
		return
	}
	if raw, ok := rq.out.(rawSink); ok {
		_ = raw.sendRaw([]byte("[WARN] reference server: ignoring a malformed tools/call\n"))
	}
}

// handleToolsCall checks the request against CallToolRequest (malformed → -32602),
// finds the tool (unknown → -32602), and runs it: at once, or off the reader's
// goroutine for blocking tools.
func handleToolsCall(s *session, rq *request) outcome {
	if k := jsonKind(rq.params); k == "" || k == "null" {
		logOddInput(s, rq)
		return fail(errInvalidParams("tools/call needs params with a tool name"))
	}
	p, e := paramsObject(rq.params)
	if e != nil {
		logOddInput(s, rq)
		return fail(e)
	}
	fs := s.cfg.faults
	name, e := p.reqString("name")
	if e == nil {
		_, _, e = p.optObject("arguments")
	}
	if e != nil {
		logOddInput(s, rq)
		if fs.on(faultMalformedInternal) {
			e = errInternal(errors.New(e.Message))
		}
		return fail(e)
	}
	token, e := progressToken(p)
	if e != nil {
		return fail(e)
	}
	dynamicOn, _ := s.toolList()
	t := s.cfg.tools.lookup(name, dynamicOn)
	if t != nil && !t.servedIn(rq.rev) {
		t = nil
	}
	if t == nil {
		return unknownTool(fs, name)
	}
	rawArgs := p["arguments"]
	if tasksServed(rq.rev) {
		tp, asTask, e := p.optObject("task")
		if e != nil {
			return fail(e)
		}
		if e := taskGate(t, asTask); e != nil {
			if !asTask || !fs.on(faultTaskForbiddenRun) {
				return fail(e)
			}
			asTask = false // the fault: the task member is ignored, the tool runs
		}
		if asTask {
			tc := &toolCall{s: s, requestID: rq.id, rev: rq.rev, progressToken: token, callParams: p}
			return s.startTask(t, tc, rawArgs, tp, rq.out)
		}
	}
	run := func(ctx context.Context) outcome {
		tc := &toolCall{ctx: ctx, s: s, requestID: rq.id, rev: rq.rev, progressToken: token, out: guardedSink{ctx: ctx, out: rq.out}, callParams: p,
			resumed: resumedOf(rq.out)}
		res := t.call(tc, rawArgs)
		if res.rpcErr != nil {
			return outcome{err: res.rpcErr, after: tc.after}
		}
		return outcome{result: res, after: tc.after}
	}
	if !t.blocksIn(rq.rev) {
		return run(s.ctx)
	}
	return outcome{async: run}
}

// progressToken reads params._meta.progressToken: a string or a number, kept as sent.
func progressToken(p params) (json.RawMessage, *rpcError) {
	meta, _, e := p.optObject("_meta")
	if e != nil || meta == nil {
		return nil, e
	}
	raw, present := meta["progressToken"]
	if !present {
		return nil, nil
	}
	if k := jsonKind(raw); k != "string" && k != "number" {
		return nil, errInvalidParams("_meta.progressToken must be a string or an integer, got %s", k)
	}
	return compactRaw(raw), nil
}

func compactRaw(raw json.RawMessage) json.RawMessage {
	c, err := compactJSON(string(raw))
	if err != nil {
		return raw
	}
	return json.RawMessage(c)
}

// listCursor reads a list request's params: an object (or none) with an optional
// string cursor (server/utilities/pagination.mdx).
func listCursor(rq *request) (cursor string, has bool, e *rpcError) {
	p, e := paramsObject(rq.params)
	if e != nil {
		return "", false, e
	}
	return p.optString("cursor")
}

// noCursor rejects a cursor on a list that is never paged (no cursor was ever issued).
func noCursor(rq *request) *rpcError {
	c, has, e := listCursor(rq)
	if e != nil {
		return e
	}
	if has {
		return errInvalidParams("invalid cursor %q", c)
	}
	return nil
}
