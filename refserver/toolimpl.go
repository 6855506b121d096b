package refserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// Input schemas. Each is valid draft-07 and 2020-12 JSON Schema with "type":"object"
// at the root.
const (
	schemaNoParams = `{"type":"object","additionalProperties":false}`
	schemaEcho     = `{
		"type": "object",
		"properties": {
			"text": {"type": "string", "description": "Text to echo."},
			"count": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many times to repeat it (default 1)."}
		},
		"required": ["text"],
		"additionalProperties": false
	}`
	schemaSlow = `{
		"type": "object",
		"properties": {
			"ms": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 1000, "description": "How long to work, in milliseconds."},
			"untilRetrieved": {"type": "boolean", "default": false, "description": "Called as a task: work until a tasks/result asks for the task's result (at most ms), then send progress and end. Called otherwise: end at once."},
			"untilResumed": {"type": "boolean", "default": false, "description": "Answered on a resumable SSE stream (Streamable HTTP): work until the client resumes that stream with Last-Event-ID (at most ms), then end. Answered otherwise: end at once."}
		},
		"additionalProperties": false
	}`
	schemaElicitation = `{
		"type": "object",
		"properties": {"message": {"type": "string", "description": "What to ask the user."}},
		"additionalProperties": false
	}`
	schemaSampling = `{
		"type": "object",
		"properties": {"prompt": {"type": "string", "description": "The prompt to sample."}},
		"additionalProperties": false
	}`
	schemaWeather = `{
		"type": "object",
		"properties": {
			"temperature": {"type": "number"},
			"conditions": {"type": "string"}
		},
		"required": ["temperature", "conditions"],
		"additionalProperties": false
	}`
)

// logLevels are the syslog severities of notifications/message, lowest first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// logLevelIndex returns a level's rank, or -1 for an unknown level.
func logLevelIndex(level string) int {
	for i, l := range logLevels {
		if l == level {
			return i
		}
	}
	return -1
}

// fixtureTools returns the fixture contract tools (the fixture contract, refserver/doc.go) in listing
// order, then the fillers that force several tools/list pages.
func fixtureTools() []*tool {
	tools := []*tool{
		{name: "test_simple_text", title: "Simple text", description: "Returns one text block.",
			input: schemaNoParams, annotations: readOnlyHints("Simple text"),
			meta: map[string]any{"io.github.mcp-conform/fixture": "simple-text"},
			run:  runSimpleText},
		{name: "test_image_content", title: "Image content", description: "Returns a 1×1 PNG image block.",
			input: schemaNoParams, annotations: readOnlyHints("Image content"), icons: fixtureIcons(),
			run: runImage},
		readOnlyTool("test_audio_content", "Audio content",
			"Returns a WAV audio block (a text block in 2024-11-05, which has no audio content).", runAudio),
		readOnlyTool("test_embedded_resource", "Embedded resource",
			"Returns an embedded text resource and an embedded blob resource.", runEmbedded),
		readOnlyTool("test_multiple_content_types", "Multiple content types",
			"Returns text, image and embedded resource blocks in one result.", runMixed),
		readOnlyTool("test_tool_with_logging", "Logging",
			"Sends notifications/message at every level that passes logging/setLevel, then returns.", runLogging),
		readOnlyTool("test_tool_with_progress", "Progress",
			"Sends three increasing progress notifications when given a progressToken, then returns.", runProgress),
		readOnlyTool("test_error_handling", "Error handling",
			"Always fails with a tool execution error (isError).", runError),
		{name: "test_trigger_tool_change", title: "Trigger tool change",
			description: "Adds or removes test_dynamic_tool in this session and sends notifications/tools/list_changed.",
			input:       schemaNoParams,
			annotations: &toolAnnotations{Title: "Trigger tool change", ReadOnlyHint: ptr(false),
				DestructiveHint: ptr(false), IdempotentHint: ptr(false), OpenWorldHint: ptr(false)},
			run: runTriggerToolChange},
		readOnlyTool("test_resource_link", "Resource link",
			"Returns a resource_link block (a text block before 2025-06-18).", runResourceLink),
		readOnlyTool("test_annotated_content", "Annotated content",
			"Returns text, image and resource blocks carrying annotations; from 2025-06-18 the text block carries a _meta too.", runAnnotated),
		{name: "test_structured_output", title: "Structured output",
			description: "Returns structuredContent matching its outputSchema, mirrored in a text block (text only before 2025-06-18).",
			input:       schemaNoParams, output: schemaWeather, annotations: readOnlyHints("Structured output"),
			run: runStructured},
		// Additions to the fixture contract (this project's, not the official suite's):
		// they make the reference server exercise STRUCT-NOSCHEMA-01 and
		// ERR-ISERROR-STRUCT-01.
		readOnlyTool("test_structured_no_schema", "Structured content without a schema",
			"Returns structuredContent without declaring an outputSchema, mirrored in a text block (text only before 2025-06-18).", runStructuredNoSchema),
		{name: "test_structured_error", title: "Structured tool error",
			description: "Declares an outputSchema and always fails with a tool execution error (isError) explained in a text block.",
			input:       schemaNoParams, output: schemaWeather, annotations: readOnlyHints("Structured tool error"), run: runStructuredError},
		{name: "test_echo", title: "Echo", description: "Echoes text, count times (default 1), as one text block.",
			input: schemaEcho, annotations: readOnlyHints("Echo"), run: runEcho},
		{name: "test_slow", title: "Slow", description: "Works for ms milliseconds (default 1000), with progress as it starts and every 200 ms; honours cancellation. With untilRetrieved, called as a task, it works until its result is asked for; with untilResumed, until its SSE stream is resumed.",
			input: schemaSlow, annotations: readOnlyHints("Slow"), run: runSlow, blocking: true,
			// 2025-11-25's tasks (tasks.go): it may be called as a task
			// (TOOLS-CALL-TASK-R4-01, PROG-TASKS-R4-01), and TOOLS-EXEC-R4-01 has an
			// execution member to judge.
			execution: map[string]any{"taskSupport": "optional"}},
		readOnlyTool("test_last_cancellation", "Last cancellation",
			"Returns the id of the last request this session cancelled while in flight, or \"none\".", runLastCancellation),
		{name: "test_elicitation", title: "Elicitation",
			description: "Asks the client for input with elicitation/create when it declared elicitation.",
			input:       schemaElicitation, run: runElicitation, blocking: true, asksClient: true},
		{name: "test_sampling", title: "Sampling",
			description: "Asks the client for a completion with sampling/createMessage when it declared sampling.",
			input:       schemaSampling, run: runSampling, blocking: true, asksClient: true},
	}
	for i := 1; i <= 12; i++ {
		n := i
		tools = append(tools, &tool{
			name:        fmt.Sprintf("test_filler_%02d", n),
			description: fmt.Sprintf("Filler tool %d: returns one text block. Fillers make tools/list span several pages.", n),
			input:       schemaNoParams,
			run:         func(*toolCall) toolResult { return textResult(fmt.Sprintf("filler %02d", n)) },
		})
	}
	return tools
}

// readOnlyTool is a fixture tool that takes no arguments and declares itself
// read-only, its annotations titled as the tool.
func readOnlyTool(name, title, description string, run func(*toolCall) toolResult) *tool {
	return &tool{name: name, title: title, description: description,
		input: schemaNoParams, annotations: readOnlyHints(title), run: run}
}

// dynamicTool is listed only while test_trigger_tool_change has it switched on.
func dynamicTool() *tool {
	return readOnlyTool(dynamicToolName, "Dynamic tool",
		"Present only while test_trigger_tool_change has added it.",
		func(*toolCall) toolResult { return textResult("test_dynamic_tool was called.") })
}

func runSimpleText(tc *toolCall) toolResult {
	r := textResult("This is a simple text response for testing.")
	switch {
	case tc.fault(faultSimpleTextRPCError):
		r.rpcErr = errInternal(errors.New("test_simple_text failed"))
	case tc.fault(faultIsErrorNotBoolean):
		r.members = map[string]any{"isError": "false"}
	case tc.fault(faultTextNotString):
		r.content[0]["text"] = 42
	case tc.fault(faultUnknownContentType):
		r.content = append(r.content, block{"type": "video", "uri": "https://example.com/mcp-conform/clip.mp4"})
	case tc.fault(faultStructNoSchema) && tc.rev.Has(revision.StructuredContent):
		r.structured = mustMarshal(map[string]any{"length": 43})
	}
	return r
}

func runImage(tc *toolCall) toolResult {
	b := imageBlock()
	switch {
	case tc.fault(faultImageNotBase64):
		b["data"] = "this is not base64!"
	case tc.fault(faultImageJPEGAsPNG):
		b["data"] = media().jpegPixelBase64
	}
	return toolResult{content: []block{b}}
}

func runAudio(tc *toolCall) toolResult {
	return tc.newBlockResult(audioBlock(tc.rev, tc.fault(faultAudioInR1)), "audio",
		faultAudioMislabelled, "mimeType", "audio/mpeg")
}

// newBlockResult is a result of the one block b, of a type later revisions added
// (typ) or the text block older ones fall back to. With the fault broken on, a
// block of type typ has its member key set to bad.
func (tc *toolCall) newBlockResult(b block, typ, broken, key string, bad any) toolResult {
	if tc.fault(broken) && b["type"] == typ {
		b[key] = bad
	}
	return toolResult{content: []block{b}}
}

func runEmbedded(tc *toolCall) toolResult {
	blob := embeddedBlobBlock()
	if tc.fault(faultBlobNotBase64) {
		res := blobResourceContents()
		res["blob"] = "@@ not base64 @@"
		blob["resource"] = res
	}
	return toolResult{content: []block{embeddedTextBlock(), blob}}
}

func runMixed(tc *toolCall) toolResult {
	text := textBlock("Text, an image and an embedded resource.")
	if tc.fault(faultMixedInvalidBlock) {
		text["text"] = 42
	}
	return toolResult{content: []block{text, imageBlock(), embeddedTextBlock()}}
}

// runLogging sends one log message per level at or above the session's threshold:
// logging/setLevel's (debug until it is sent), or in 2026-07-28 the request's _meta
// logLevel, without which it sends none.
func runLogging(tc *toolCall) toolResult {
	threshold := tc.s.logThreshold()
	switch {
	case tc.s.logOff && tc.fault(faultR5LogWithoutLevel):
		threshold = 0
	case tc.s.logOff: // 2026-07-28: no logLevel in the request's _meta, no log messages
		return textResult("Sent 0 log messages (the request's _meta names no logLevel).")
	case tc.fault(faultLogUnfiltered) && tc.rev.Era == revision.Legacy:
		threshold = 0
	}
	sent := 0
	for i, level := range logLevels {
		if i < threshold {
			continue
		}
		wireLevel := level
		if level == "warning" && tc.fault(faultLogBadLevel) {
			wireLevel = "warn"
		}
		err := tc.notify("notifications/message", map[string]any{
			"level": wireLevel, "logger": ServerName, "data": "Log message at level " + level + ".",
		})
		if err != nil {
			tc.s.cfg.log.Printf("log: %v", err)
			continue
		}
		sent++
	}
	return textResult(fmt.Sprintf("Sent %d log messages (levels %s and above).", sent, logLevels[threshold]))
}

// runProgress sends three progress notifications (1, 2, 3 of 3), all before the result.
func runProgress(tc *toolCall) toolResult {
	const steps = 3
	order := []float64{1, 2, 3}
	if tc.fault(faultProgressDecreasing) {
		order = []float64{2, 1, 3}
	}
	if tc.rev.Era == revision.Legacy && tc.fault(faultCancelClientRequest) {
		// The wrong direction: the server cancels the client's own request.
		if err := tc.notify("notifications/cancelled", map[string]any{"requestId": tc.requestID, "reason": "the fixture cancels the client's request"}); err != nil {
			tc.s.cfg.log.Printf("cancel: %v", err)
		}
	}
	message := func(p float64) string { return fmt.Sprintf("Step %v of %d", p, steps) }
	if tc.fault(faultProgressMsgBlank) {
		message = func(float64) string { return " \t " }
	}
	for i, p := range order {
		token := tc.progressToken
		switch {
		case i == 1 && tc.fault(faultProgressUnknownTok) && token != nil:
			token = mustMarshal(strings.Trim(string(token), `"`) + "-unknown")
		case i == 2 && tc.fault(faultProgressAfterDone):
			tc.after = func() { tc.progress(p, steps, message(p)) }
			continue
		}
		tc.progressFor(token, p, steps, message(p))
	}
	return textResult("Progress complete.")
}

func runError(tc *toolCall) toolResult {
	r := errorResult("This tool always fails: it reports a tool execution error on purpose (isError: true).")
	switch {
	case tc.fault(faultFailureAsRPCError):
		r.rpcErr = errInternal(errors.New("test_error_handling failed on purpose"))
	case tc.fault(faultIsErrorNoContent):
		r.noContent = true
	case tc.fault(faultIsErrorStructNoText):
		r.content = []block{}
	}
	return r
}

// runTriggerToolChange toggles test_dynamic_tool and announces the change before the
// result, so that a client sees list_changed before the call completes.
func runTriggerToolChange(tc *toolCall) toolResult {
	on := tc.s.toggleDynamic()
	var err error
	if tc.rev.Era == revision.Modern && tc.fault(faultR5ServerCancels) {
		err = tc.notify("notifications/cancelled", map[string]any{"requestId": "fixture-work", "reason": "the fixture cancels work that is no subscription"})
	}
	switch {
	case tc.rev.Era == revision.Modern && !tc.fault(faultR5ListChangedOnCall):
		// 2026-07-28: only listen streams carry list_changed (toggleDynamic told them).
	case tc.fault(faultListChangedNever):
	case tc.fault(faultListChangedWithI):
		err = tc.out.send(tc.s.serverRequest("notifications/tools/list_changed", nil))
	default:
		err = tc.notify("notifications/tools/list_changed", nil)
	}
	if err != nil {
		tc.s.cfg.log.Printf("list_changed: %v", err)
	}
	promptsChangedOnCall(tc)   // the trigger also switches dynamic_prompt (prompts.go)
	resourcesChangedOnCall(tc) // and dynamic-resource (resources.go)
	if on {
		return textResult(dynamicToolName + " added.")
	}
	return textResult(dynamicToolName + " removed.")
}

func runResourceLink(tc *toolCall) toolResult {
	return tc.newBlockResult(resourceLinkBlock(tc.rev, tc.fault(faultResLinkInR2)), "resource_link",
		faultResLinkRelativeURI, "uri", "linked/readme.txt")
}

func runAnnotated(tc *toolCall) toolResult {
	first := annotated(tc.rev, textBlock("Annotated text."))
	a := first["annotations"].(map[string]any)
	if tc.fault(faultAnnotPriorityRange) {
		a["priority"] = 2
	}
	if _, ok := a["lastModified"]; ok && tc.fault(faultLastModifiedNotTime) {
		a["lastModified"] = "yesterday"
	}
	if tc.rev.Has(revision.Meta) { // a content block's _meta, for CONTENT-META-01
		key := "io.github.mcp-conform/annotated"
		if tc.fault(faultContentMetaKey) {
			key = "io.github.mcp-conform/-annotated" // a name must begin with an alphanumeric
		}
		first["_meta"] = map[string]any{key: true}
	}
	return toolResult{content: []block{
		first,
		annotated(tc.rev, imageBlock()),
		annotated(tc.rev, embeddedTextBlock()),
	}}
}

// weather is test_structured_output's structured result.
type weather struct {
	Temperature float64 `json:"temperature"`
	Conditions  string  `json:"conditions"`
}

// runStructured returns structuredContent from 2025-06-18, always with a text block
// holding exactly its JSON serialisation.
func runStructured(tc *toolCall) toolResult {
	data := mustMarshal(weather{Temperature: 22.5, Conditions: "Partly cloudy"})
	switch {
	case tc.fault(faultStructNotObject):
		data = mustMarshal([]any{22.5, "Partly cloudy"})
	case tc.fault(faultStructViolates):
		data = mustMarshal(map[string]any{"temperature": "warm", "conditions": "Partly cloudy"})
	}
	r := toolResult{content: []block{textBlock(string(data))}}
	if (tc.rev.Has(revision.StructuredContent) || tc.fault(faultStructInOldRevs)) && !tc.fault(faultStructMissing) {
		r.structured = data
	}
	if tc.fault(faultStructNoMirror) {
		r.content = []block{textBlock("It is 22.5 degrees and partly cloudy.")}
	}
	return r
}

// runStructuredNoSchema returns structuredContent, from 2025-06-18, with no
// outputSchema declared, and the text block that mirrors it.
func runStructuredNoSchema(tc *toolCall) toolResult {
	data := mustMarshal(map[string]any{"items": 3, "unit": "parcels"})
	r := toolResult{content: []block{textBlock(string(data))}}
	if tc.rev.Has(revision.StructuredContent) {
		r.structured = data
	}
	return r
}

// runStructuredError fails as a tool: an isError result with a text explanation,
// which the outputSchema does not govern.
func runStructuredError(*toolCall) toolResult {
	return errorResult("The weather service could not be reached: no structured result (a tool execution error on purpose).")
}

func runEcho(tc *toolCall) toolResult {
	return textResult(strings.Repeat(tc.stringArg("text", ""), int(tc.intArg("count", 1))))
}

// slowTick is test_slow's progress interval.
const slowTick = 200 * time.Millisecond

// runSlow works for ms milliseconds, sending progress as it starts and every 200 ms
// when asked (the first says it is at work: a client cancelling it mid-call need not
// wait a tick). When the request is cancelled it stops at once; its response is then
// suppressed.
func runSlow(tc *toolCall) toolResult {
	switch {
	case tc.boolArg("untilRetrieved"):
		return runSlowUntilRetrieved(tc)
	case tc.boolArg("untilResumed"):
		return runSlowUntilResumed(tc)
	}
	ms := tc.intArg("ms", 1000)
	total := time.Duration(ms) * time.Millisecond
	done := time.NewTimer(total)
	defer done.Stop()
	tick := time.NewTicker(slowTick)
	defer tick.Stop()
	tc.progress(0, float64(ms), fmt.Sprintf("0 of %d ms", ms))
	for step := int64(1); ; step++ {
		select {
		case <-tc.ctx.Done():
			return errorResult("Cancelled.")
		case <-done.C:
			return textResult(fmt.Sprintf("Worked for %d ms.", ms))
		case <-tick.C:
			if at := step * slowTick.Milliseconds(); at < ms {
				tc.progress(float64(at), float64(ms), fmt.Sprintf("%d of %d ms", at, ms))
			}
		}
	}
}

// runSlowUntilRetrieved is test_slow with untilRetrieved: as a task it sends
// progress as it starts, works until a tasks/result asks for its result (or ms
// passed), sends progress again and ends. Its order comes from events, not from a
// duration: the task is still working when its CreateTaskResult is written, and both
// progress notifications travel on the open tasks/result after the client read that
// result (TOOLS-CALL-TASK-R4-01, PROG-TASKS-R4-01). Called without a task it has
// nothing to wait for and ends at once.
func runSlowUntilRetrieved(tc *toolCall) toolResult {
	tc.progress(0, 2, "working until the task's result is asked for")
	return tc.workUntil(tc.retrieved, slowWait{
		nothing:  "Worked until now: no task's result to wait for.",
		timedOut: "Worked for the whole ms: no tasks/result asked for the result.",
		happened: "Worked until the task's result was asked for.",
		before:   func() { tc.progress(1, 2, "the task's result was asked for: ending") },
	})
}

// runSlowUntilResumed is test_slow with untilResumed: it sends progress as it
// starts, then works until the client resumed the call's SSE stream (or ms passed)
// and ends, so that its response can only come on the resumed stream: the client
// dropped the stream (or the server closed its connection to poll) while the call
// was provably at work, whatever the machine's speed (SHTTP-RESUME-01,
// SHTTP-DISCONNECT-01, SHTTP-RETRY-01). Answered on no resumable stream it ends at
// once.
func runSlowUntilResumed(tc *toolCall) toolResult {
	tc.progress(0, 1, "working until the stream is resumed")
	return tc.workUntil(tc.resumed, slowWait{
		nothing:  "Worked until now: no stream to resume.",
		timedOut: "Worked for the whole ms: the stream was not resumed.",
		happened: "Worked until the stream was resumed.",
	})
}

// slowWait words the ends of test_slow's wait for an event: the text result when
// there is nothing to wait for, when ms passed first, and when the event came
// (after before, if set, ran).
type slowWait struct {
	nothing, timedOut, happened string
	before                      func()
}

// workUntil waits for event to close, for at most the call's ms argument, and ends
// as w words it; a nil event ends at once, a cancelled call with an error.
func (tc *toolCall) workUntil(event <-chan struct{}, w slowWait) toolResult {
	if event == nil {
		return textResult(w.nothing)
	}
	bound := time.NewTimer(time.Duration(tc.intArg("ms", 1000)) * time.Millisecond)
	defer bound.Stop()
	select {
	case <-tc.ctx.Done():
		return errorResult("Cancelled.")
	case <-bound.C:
		return textResult(w.timedOut)
	case <-event:
		if w.before != nil {
			w.before()
		}
		return textResult(w.happened)
	}
}

func runLastCancellation(tc *toolCall) toolResult {
	if id := tc.s.lastCancellation(); id != "" {
		return textResult(id)
	}
	return textResult("none")
}

// elicitationFormDeclared reports whether the client can take a form-mode
// elicitation/create: it declared elicitation (2025-06-18+) as an object that is
// empty (form implied) or names "form" (2025-11-25 split form and url modes).
func elicitationFormDeclared(tc *toolCall) bool {
	if !tc.rev.Has(revision.Elicitation) {
		return false
	}
	raw, ok := tc.s.clientCapability("elicitation")
	if !ok || jsonKind(raw) != "object" {
		return false
	}
	var modes map[string]json.RawMessage
	if err := json.Unmarshal(raw, &modes); err != nil {
		return false
	}
	_, form := modes["form"]
	_, url := modes["url"]
	return form || !url
}

// runElicitation asks the client for input and returns its answer, only when the
// client declared the capability: the server never sends undeclared requests.
func runElicitation(tc *toolCall) toolResult {
	if tc.rev.Era == revision.Modern {
		return mrtrElicitation(tc)
	}
	if !elicitationFormDeclared(tc) {
		return errorResult("The client did not declare the elicitation capability (form mode), so the server cannot ask it for input.")
	}
	// Form mode, without the optional 2025-11-25 "mode" member so that one request
	// shape fits both 2025-06-18 and 2025-11-25.
	p := map[string]any{
		"message": tc.stringArg("message", "Please tell the mcp-conform fixture your name."),
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name": map[string]any{"type": "string", "description": "Your name."},
			},
			"required": []string{"name"},
		},
	}
	return tc.askClient("elicitation/create", p)
}

// runSampling asks the client for a completion and returns its answer, only when the
// client declared sampling.
func runSampling(tc *toolCall) toolResult {
	if tc.rev.Era == revision.Modern {
		return mrtrSampling(tc)
	}
	if raw, ok := tc.s.clientCapability("sampling"); !ok || jsonKind(raw) != "object" {
		return errorResult("The client did not declare the sampling capability, so the server cannot ask it for a completion.")
	}
	return tc.askClient("sampling/createMessage", map[string]any{
		"messages": []any{map[string]any{
			"role":    "user",
			"content": textBlock(tc.stringArg("prompt", "Say hello to the mcp-conform fixture.")),
		}},
		"maxTokens": 64,
	})
}

// askClient sends a server→client request on this call's channel and turns the answer
// into a result: the client's result JSON as text, or isError on an error or timeout.
func (tc *toolCall) askClient(method string, p any) toolResult {
	if !tc.s.clientInitialized() { // LIFE-PRE-INIT-REQ-01: no requests before initialized
		return errorResult(fmt.Sprintf("The client has not sent notifications/initialized yet, so the server does not send %s.", method))
	}
	m, err := tc.s.clientRequest(tc.ctx, tc.out, method, p)
	switch {
	case err != nil:
		return errorResult(fmt.Sprintf("No answer to %s: %v", method, err))
	case m.Error != nil:
		return errorResult(fmt.Sprintf("The client answered %s with error %d: %s", method, m.Error.Code, m.Error.Message))
	default:
		text, cerr := compactJSON(string(m.Result))
		if cerr != nil {
			return errorResult(fmt.Sprintf("The client's answer to %s is not JSON: %v", method, cerr))
		}
		return textResult(text)
	}
}
