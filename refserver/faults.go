package refserver

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Fault is one rule the reference server can break on purpose (`mcp-conform fixture
// --fault NAME`). The self-test runs the suite against the server with each fault
// switched on and checks that exactly the targeted checks change their verdict: this
// proves the suite detects each violation and does not pass everything.
type Fault struct {
	// Name is what --fault takes: lower-case words joined by hyphens.
	Name string
	// Targets are the check IDs whose verdict the fault turns to fail (or to warn,
	// where the check's verdict policy is a warning). A fault that unavoidably breaks
	// several rules lists every check it flips; BASE-SCHEMA-01 is among them whenever
	// the fault also breaks the revision's schema.
	Targets []string
	// Revisions, when set, are the protocol revisions where the fault bites: every
	// target flips in each of them. Empty means the fault bites wherever its targets
	// apply. A fault that takes a revision's whole column down (initialize refused,
	// or answered with another version) lists that revision here.
	Revisions []string
	// Masks are checks the fault deprives of what they judge (the traffic or the
	// precondition they need disappears): they may turn to skip, never to fail, warn
	// or error. Empty for a surgical fault.
	Masks []string
	// Exercises are checks the fault gives the traffic they judge, which the clean
	// server never sends (a server request of its own): they may turn from skip to
	// pass, never to fail, warn or error.
	Exercises []string
	// Description says in one line what the server does wrong.
	Description string
	// Transport, when set, is the one transport the fault bites on: "http" (over
	// Streamable HTTP, against a fixture serving 2026-07-28 only), "http-legacy"
	// (over Streamable HTTP, against a fixture serving the legacy era only),
	// "http-dual" (over Streamable HTTP, against a fixture serving both eras: the
	// stream rules, legacy and 2026-07-28 at once) or "sse" (over the 2024-11-05
	// HTTP+SSE transport); the self-test runs the fault against a fixture serving
	// it. Empty means stdio.
	Transport string
}

// The fault names. Each is switched on by --fault and tested by one small branch at
// the one place of the server that owns the behaviour it breaks.
const (
	// Lifecycle and base protocol.
	faultInitRefused         = "init-refused"
	faultVersionSwap         = "version-swap"
	faultFallbackEcho        = "fallback-echo"
	faultFallbackOldest      = "fallback-oldest"
	faultFallbackBareError   = "fallback-bare-error"
	faultInitNoServerInfo    = "init-no-serverinfo"
	faultCapsBadShape        = "caps-bad-shape"
	faultUnknownMethodIntern = "unknown-method-internal"
	faultIDAsString          = "id-as-string"
	faultPingExtraKeys       = "ping-extra-keys"
	faultPingError           = "ping-error"
	faultPingBadMeta         = "ping-bad-meta"
	faultSamplingUndeclared  = "sampling-undeclared"
	faultStdoutLogLine       = "stdout-log-line"
	faultStdoutTwoPerLine    = "stdout-two-per-line"
	faultStdoutOddInput      = "stdout-log-on-odd-input"
	faultStdinEOFIgnored     = "stdin-eof-ignored"
	faultInvalidUTF8         = "invalid-utf8"
	faultJSONRPC10           = "jsonrpc-version-one"
	faultNotificationWithID  = "notification-with-id"
	faultServerRequestNullID = "server-request-null-id"
	faultErrorAndResult      = "error-and-result"
	faultErrorNoMessage      = "error-without-message"
	faultParseSilent         = "parse-error-silent"
	faultParseErrorID        = "parse-error-with-id"
	faultInvalidReqCode      = "invalid-request-wrong-code"
	faultNullIDProcessed     = "null-id-processed"
	faultNotificationAnswer  = "notification-answered"
	faultRootsNotifAnswered  = "roots-notification-answered"
	faultInitializedAnswered = "initialized-answered"
	faultPingBeforeInitDrop  = "ping-before-init-unanswered"
	faultRequestBeforeInitd  = "request-before-initialized"
	faultBatchRefused        = "batch-refused"
	faultBatchAfterRemoval   = "batch-after-removal"
	faultReplyInArray        = "ping-reply-in-array"
	faultInstructionsNotStr  = "instructions-not-string"
	faultWebsiteNotURI       = "website-not-uri"
	faultMetaKeyInvalid      = "meta-key-invalid"
	faultNullIDReservedCode  = "null-id-reserved-code"
	faultPromptsUndeclared   = "prompts-served-undeclared"

	// Capabilities and tool definitions.
	faultToolsCapMissing     = "tools-cap-missing"
	faultListChangedNotBool  = "listchanged-not-bool"
	faultAnnotBadType        = "annot-bad-type"
	faultAnnotContradiction  = "annot-contradiction"
	faultDescriptionNotStr   = "description-not-string"
	faultTitleNotString      = "title-not-string"
	faultTitleInOldRevisions = "title-before-2025-06-18"
	faultNameWithSpace       = "name-with-space"
	faultDuplicateName       = "duplicate-tool-name"
	faultNamesCaseInsens     = "names-case-insensitive"
	faultInSchemaNoType      = "inschema-no-type"
	faultInSchemaInvalid     = "inschema-invalid"
	faultOutSchemaNotObject  = "outschema-not-object"
	faultOutSchemaInvalid    = "outschema-invalid"
	faultIconBadTheme        = "icon-bad-theme"
	faultIconUnsafeScheme    = "icon-unsafe-scheme"
	faultIconDataMismatch    = "icon-data-mismatch"
	faultExecBadTaskSupport  = "exec-bad-task-support"

	// Pagination.
	faultInvalidCursorFirst  = "invalid-cursor-first-page"
	faultInvalidCursorIntern = "invalid-cursor-internal"
	faultCursorLoop          = "cursor-loop"
	faultToolAcrossPages     = "tool-repeated-across-pages"
	faultEmptyNextCursor     = "empty-next-cursor"
	faultUnstableCursor      = "unstable-cursor"
	faultFollowPageInvalid   = "follow-page-invalid"
	faultListParamsUnchecked = "list-params-unchecked"
	faultListParamsNoReply   = "list-params-unanswered"

	// Tool calls and errors.
	faultUnknownToolIsError  = "unknown-tool-iserror"
	faultUnknownToolInternal = "unknown-tool-internal"
	faultUnknownToolSuccess  = "unknown-tool-success"
	faultMalformedInternal   = "malformed-call-internal"
	faultSimpleTextRPCError  = "simple-text-rpc-error"
	faultFailureAsRPCError   = "tool-failure-as-rpc-error"
	faultIsErrorNoContent    = "iserror-no-content"
	faultIsErrorNotBoolean   = "iserror-not-boolean"
	faultIsErrorStructNoText = "iserror-structured-no-text"
	faultArgsUnvalidated     = "arguments-unvalidated"
	faultArgsInternal        = "invalid-arguments-internal"

	// Content blocks.
	faultTextNotString       = "text-not-string"
	faultUnknownContentType  = "unknown-content-type"
	faultImageNotBase64      = "image-not-base64"
	faultImageJPEGAsPNG      = "image-jpeg-as-png"
	faultAudioMislabelled    = "audio-mislabelled"
	faultAudioInR1           = "audio-in-2024-11-05"
	faultResLinkInR2         = "resource-link-in-2025-03-26"
	faultResLinkRelativeURI  = "resource-link-relative-uri"
	faultBlobNotBase64       = "blob-not-base64"
	faultEmbedWithoutResCap  = "embed-without-resources-cap"
	faultAnnotPriorityRange  = "annotation-priority-range"
	faultLastModifiedNotTime = "last-modified-not-timestamp"
	faultMixedInvalidBlock   = "mixed-invalid-block"
	faultContentMetaKey      = "content-meta-key-invalid"

	// Structured output.
	faultStructNotObject  = "structured-not-object"
	faultStructViolates   = "structured-violates-schema"
	faultStructMissing    = "structured-missing"
	faultStructNoMirror   = "structured-no-text-mirror"
	faultStructInOldRevs  = "structured-before-2025-06-18"
	faultStructNoSchema   = "structured-without-schema-unmirrored"
	faultListChangedNever = "listchanged-never-after-change"
	faultListChangedUndec = "listchanged-undeclared"
	faultListChangedOnChg = "listchanged-undeclared-on-change"
	faultListChangedWithI = "listchanged-with-id"

	// Progress.
	faultProgressAfterDone  = "progress-after-response"
	faultProgressDecreasing = "progress-decreasing"
	faultProgressUnknownTok = "progress-unknown-token"
	faultProgressRetyped    = "progress-token-retyped"
	faultProgressMsgBlank   = "progress-message-blank"

	// Tasks (2025-11-25, tasks.go).
	faultTaskCreatedDone   = "task-created-completed"
	faultTaskResultNoMeta  = "task-result-no-related-task"
	faultTaskProgressToken = "task-progress-foreign-token"
	faultTaskForbiddenRun  = "task-forbidden-run"

	// Cancellation.
	faultCancelIgnored         = "cancel-ignored"
	faultCancelUnknownAnswered = "cancel-unknown-answered"
	faultCancelClientRequest   = "cancel-client-request"

	// Logging.
	faultLoggingCapMissing = "logging-cap-missing"
	faultLogBadLevel       = "log-level-not-syslog"
	faultLogUnfiltered     = "log-level-ignored"
	faultSetLevelPartial   = "setlevel-partial-levels"
	faultLogLevelAccepted  = "log-level-invalid-accepted"
	faultLogLevelInternal  = "log-level-invalid-internal"
)

// Prompts and completion (prompts.go, completion.go; the PROMPT and COMPL rows).
// prompts-served-undeclared (faultPromptsUndeclared, above) drops the prompts
// capability while prompts/* stay served.
const (
	faultPromptsLCNotBool         = "prompts-listchanged-not-bool"
	faultPromptsLCUndeclared      = "prompts-listchanged-undeclared"
	faultPromptsLCBadShape        = "prompts-listchanged-bad-params"
	faultPromptArgInvalid         = "prompt-argument-required-not-bool"
	faultPromptsCursorFirst       = "prompts-invalid-cursor-first-page"
	faultPromptBadRole            = "prompt-message-role-system"
	faultPromptImageBase64        = "prompt-image-not-base64"
	faultPromptUnknownInternal    = "prompt-unknown-internal"
	faultPromptMissingArgOK       = "prompt-missing-argument-accepted"
	faultCompletionsUndeclared    = "completions-served-undeclared"
	faultCompletionTooMany        = "completion-over-100-values"
	faultCompletionTotalWrong     = "completion-total-below-values"
	faultCompletionUnknownEmpty   = "completion-unknown-ref-empty"
	faultCompletionContextRefused = "completion-context-refused"
	faultPromptsLCNever           = "prompts-listchanged-never"
)

// promptChecks are the PROMPT checks that need the prompts capability declared;
// completionChecks the COMPL checks that need completions declared.
var (
	promptChecks = []string{"PROMPT-CAP-LISTCHANGED-01", "PROMPT-LIST-01", "PROMPT-LIST-CURSOR-01", "PROMPT-GET-01", "PROMPT-GET-MEDIA-01",
		"PROMPT-GET-UNKNOWN-01", "PROMPT-GET-MISSINGARG-01", "PROMPT-LC-01", "PROMPT-LC-UNDECLARED-01", "PROMPT-LC-SHAPE-01"}
	// lcChecks are the PROMPT-LC checks, which a server that sends no prompts
	// list_changed leaves nothing to judge.
	lcChecks         = []string{"PROMPT-LC-01", "PROMPT-LC-UNDECLARED-01", "PROMPT-LC-SHAPE-01"}
	completionChecks = []string{"COMPL-RESULT-01", "COMPL-TOTAL-01", "COMPL-UNKNOWN-REF-01", "COMPL-CONTEXT-01"}
)

// promptFaultCatalogue are the faults of the prompts and completion rules.
var promptFaultCatalogue = []Fault{
	// Without the prompts capability no prompt argument is completed (the reference
	// server lists no resource template): the COMPL results are not exercised.
	{Name: faultPromptsUndeclared, Targets: []string{"PROMPT-CAP-01", "ERR-NOTDECLARED-01"},
		Masks:       append(slices.Clone(promptChecks), "COMPL-RESULT-01", "COMPL-TOTAL-01", "COMPL-CONTEXT-01"),
		Description: "the prompts capability is not declared, yet prompts/list and prompts/get are served"},
	{Name: faultPromptsLCNotBool, Targets: []string{"PROMPT-CAP-LISTCHANGED-01", "LIFE-CAPS-SHAPE-01", "LIFE-INIT-RESULT-01", "BASE-SCHEMA-01", "MOD-DISCOVER-01"},
		Masks:       lcChecks,
		Description: `capabilities.prompts.listChanged is the string "yes"`},
	{Name: faultPromptsLCUndeclared, Targets: []string{"PROMPT-LC-UNDECLARED-01"}, Revisions: []string{r1, r2, r3, r4},
		Masks: []string{"PROMPT-CAP-LISTCHANGED-01", "PROMPT-LC-01"}, Exercises: []string{"PROMPT-LC-SHAPE-01"},
		Description: "capabilities.prompts is {} (no listChanged), yet notifications/prompts/list_changed follows every prompts/list (2024-11-05 to 2025-11-25)"},
	{Name: faultPromptsLCNever, Targets: []string{"PROMPT-LC-01"}, Masks: []string{"PROMPT-LC-UNDECLARED-01", "PROMPT-LC-SHAPE-01"},
		Description: "test_trigger_tool_change changes the prompt list too, but notifications/prompts/list_changed is never sent"},
	{Name: faultPromptsLCBadShape, Targets: []string{"PROMPT-LC-SHAPE-01", "BASE-SCHEMA-01"}, Revisions: []string{r1, r2, r3, r4},
		Exercises:   []string{"PROMPT-LC-UNDECLARED-01"},
		Description: `notifications/prompts/list_changed, after every prompts/list, has params ["changed"], not an object (2024-11-05 to 2025-11-25)`},
	{Name: faultPromptArgInvalid, Targets: []string{"PROMPT-LIST-01", "BASE-SCHEMA-01"}, Masks: []string{"PROMPT-GET-MISSINGARG-01"},
		Description: `every required prompt argument is listed with "required": "yes", not a boolean`},
	{Name: faultPromptsCursorFirst, Targets: []string{"PROMPT-LIST-CURSOR-01"},
		Description: "prompts/list with a cursor the server never issued returns the first page"},
	{Name: faultPromptBadRole, Targets: []string{"PROMPT-GET-01", "BASE-SCHEMA-01"},
		Description: `the message of prompt code_review has role "system"`},
	{Name: faultPromptImageBase64, Targets: []string{"PROMPT-GET-MEDIA-01"},
		Description: "the image of prompt media_showcase carries data that is not base64"},
	{Name: faultPromptUnknownInternal, Targets: []string{"PROMPT-GET-UNKNOWN-01"},
		Description: "prompts/get of an unknown prompt is answered with -32603 instead of -32602"},
	{Name: faultPromptMissingArgOK, Targets: []string{"PROMPT-GET-MISSINGARG-01"},
		Description: "prompts/get without a required argument is answered with a result"},
	{Name: faultCompletionsUndeclared, Targets: []string{"COMPL-CAP-01", "ERR-NOTDECLARED-01"}, Revisions: []string{r2, r3, r4, "2026-07-28"},
		Masks:       completionChecks,
		Description: "the completions capability is not declared (2025-03-26 on), yet completion/complete is served"},
	// 2026-07-28's schema gives values maxItems 100: there the schema and the
	// context probe's result check see it too.
	{Name: faultCompletionTooMany, Targets: []string{"COMPL-RESULT-01", "BASE-SCHEMA-01", "COMPL-CONTEXT-01"},
		Description: "completion/complete answers 101 values"},
	{Name: faultCompletionTotalWrong, Targets: []string{"COMPL-TOTAL-01"},
		Description: "completion/complete gives a total one below the number of values it sends, with hasMore false"},
	{Name: faultCompletionUnknownEmpty, Targets: []string{"COMPL-UNKNOWN-REF-01"},
		Description: "completion/complete of an unknown prompt is answered with an empty completion instead of -32602"},
	{Name: faultCompletionContextRefused, Targets: []string{"COMPL-CONTEXT-01"}, Revisions: []string{r3, r4, "2026-07-28"},
		Description: "completion/complete with a context member is refused with -32602 (2025-06-18 on)"},
}

// r1, r2, r3, r4 name the legacy revisions for the catalogue.
const (
	r1 = "2024-11-05"
	r2 = "2025-03-26"
	r3 = "2025-06-18"
	r4 = "2025-11-25"
)

// faultCatalogue is every fault, in the order --list-faults prints them.
var faultCatalogue = []Fault{
	// Lifecycle and base protocol.
	{Name: faultInitRefused, Targets: []string{"LIFE-INIT-01"}, Revisions: []string{r1},
		Description: "initialize asking for 2024-11-05 is answered with JSON-RPC error -32603 (the 2024-11-05 column is lost)"},
	{Name: faultVersionSwap, Targets: []string{"LIFE-VERSION-ECHO-01"}, Revisions: []string{r1, r2},
		Description: "initialize asking for 2024-11-05 answers 2025-03-26 and vice versa: neither answer is a version the server echoes"},
	{Name: faultFallbackEcho, Targets: []string{"LIFE-VERSION-FALLBACK-01"},
		Description: "initialize asking for an unknown version echoes it instead of answering a supported one"},
	{Name: faultFallbackOldest, Targets: []string{"LIFE-VERSION-FALLBACK-01"},
		Description: "initialize asking for an unknown version answers the oldest supported version, not the newest (SHOULD)"},
	{Name: faultFallbackBareError, Targets: []string{"LIFE-VERSION-FALLBACK-01", "LIFE-VERSION-ERRSHAPE-01"},
		Description: "initialize asking for an unknown version is rejected with -32602 and no data (neither a supported version nor the example's data.supported and data.requested)"},
	{Name: faultInitNoServerInfo, Targets: []string{"LIFE-INIT-RESULT-01", "BASE-SCHEMA-01"}, Masks: []string{"LIFE-IMPL-01"},
		Description: "the InitializeResult has no serverInfo"},
	{Name: faultCapsBadShape, Targets: []string{"LIFE-CAPS-SHAPE-01", "LIFE-INIT-RESULT-01", "BASE-SCHEMA-01", "MOD-DISCOVER-01"},
		Description: "capabilities.experimental holds a member that is not an object"},
	{Name: faultUnknownMethodIntern, Targets: []string{"BASE-METHOD-UNKNOWN-01"},
		Description: "an unknown method is answered with -32603 instead of -32601"},
	{Name: faultIDAsString, Targets: []string{"BASE-RESP-ID-01", "BASE-BATCH-R2-01", "STDIO-BATCH-R2-01"}, Masks: []string{"MOD-MRTR-01", "BASE-ERRRANGE-01", "ERR-R5-CODES-01", "STDIO-CANCEL-R5-01"},
		Description: "a reply to a request whose id is a number carries the id as a string"},
	{Name: faultPingExtraKeys, Targets: []string{"PING-01"},
		Description: "ping is answered with a non-empty result"},
	{Name: faultPingError, Targets: []string{"PING-01"},
		Description: "ping is answered with JSON-RPC error -32603"},
	{Name: faultPingBadMeta, Targets: []string{"BASE-SCHEMA-01"}, Revisions: []string{r1, r2, r3, r4}, // no ping in 2026-07-28
		Description: "ping is answered with a result whose _meta is a string (only the schema says no)"},
	{Name: faultSamplingUndeclared, Targets: []string{"LIFE-CAPS-HONEST-01"}, Exercises: []string{"BASE-SRVREQ-ID-01"},
		Description: "after notifications/initialized the server sends sampling/createMessage to a client that did not declare sampling"},
	{Name: faultStdinEOFIgnored, Targets: []string{"LIFE-SHUTDOWN-STDIO-01", "STDIO-EOF-EXIT-01"},
		Description: "over stdio the server keeps running after stdin reaches EOF, until SIGTERM (every revision)"},
	{Name: faultStdoutLogLine, Targets: []string{"STDIO-STDOUT-PURE-01"},
		Description: "over stdio, after notifications/initialized the server writes a log line (not JSON) to stdout"},
	{Name: faultStdoutOddInput, Targets: []string{"STDIO-STDOUT-PURE-01"},
		Description: `over stdio, a malformed tools/call makes the server write the log line "[WARN] …" to stdout: only what is read after the odd-input probes shows it`},
	{Name: faultStdoutTwoPerLine, Targets: []string{"STDIO-FRAMING-01"},
		Description: "over stdio, after notifications/initialized the server writes two notifications on one stdout line"},
	{Name: faultJSONRPC10, Targets: []string{"BASE-JSONRPC-VERSION-01"},
		Description: `once the client is ready the server sends a notifications/message whose jsonrpc member is "1.0"`},
	{Name: faultNotificationWithID, Targets: []string{"BASE-NOTIF-NOID-01", "MOD-NO-SERVER-REQ-01", "STDIO-NO-REQUESTS-R5-01"},
		Description: "once the client is ready the server sends notifications/message with an id (a request, then, which 2026-07-28 forbids the server too)"},
	{Name: faultServerRequestNullID, Targets: []string{"BASE-SRVREQ-ID-01", "BASE-SCHEMA-01", "MOD-NO-SERVER-REQ-01", "STDIO-NO-REQUESTS-R5-01"},
		Description: "once the client is ready the server sends a ping request whose id is null (in 2026-07-28, a server request at all)"},
	{Name: faultErrorAndResult, Targets: []string{"BASE-RESP-EXCL-01", "BASE-METHOD-UNKNOWN-01", "MOD-REMOVED-01", "BASE-RESULTTYPE-01", "MOD-SERVERINFO-01"},
		Description: "the error answering an unknown method also carries a result member, so the checks that read it as the result it claims to be fail too"},
	{Name: faultErrorNoMessage, Targets: []string{"BASE-ERR-SHAPE-01", "BASE-SCHEMA-01"},
		Description: "the error answering an unknown method has a code but no message"},
	{Name: faultParseSilent, Targets: []string{"BASE-PARSE-01"},
		Description: "unparseable JSON is dropped without a reply"},
	{Name: faultParseErrorID, Targets: []string{"BASE-ERR-ID-01"},
		Description: `the -32700 reply to unparseable JSON carries the id "parse-error", which no request had`},
	{Name: faultInvalidReqCode, Targets: []string{"BASE-INVALID-REQ-01"},
		Description: "a JSON object that is not a valid request is refused with -32602 instead of -32600 (a WARN)"},
	{Name: faultNullIDProcessed, Targets: []string{"BASE-NULL-ID-01"},
		Description: `a request with "id": null is processed and answered with a result (a WARN)`},
	{Name: faultNullIDReservedCode, Targets: []string{"BASE-ERR-CODES-01"},
		Description: `a request with "id": null is refused with -32650, a code JSON-RPC reserves for future use, instead of -32600`},
	{Name: faultMetaKeyInvalid, Targets: []string{"BASE-META-KEYS-01"}, Revisions: []string{r3, r4, "2026-07-28"},
		Description: "the tools/list result carries a _meta key whose prefix label starts with a digit (fixture.9page/listing; 2025-06-18+)"},
	{Name: faultNotificationAnswer, Targets: []string{"BASE-NOTIF-NORESP-01", "BASE-BATCH-R2-01", "BASE-BATCH-R2-02", "STDIO-BATCH-R2-01"},
		Description: "a notification of a method the server does not know is answered with -32601 (no id), alone or inside a batch"},
	{Name: faultRootsNotifAnswered, Targets: []string{"NOTIF-CLIENTNOTIF-01"},
		Description: "notifications/roots/list_changed from a client without the roots capability is answered with -32600 (no id)"},
	{Name: faultInitializedAnswered, Targets: []string{"LIFE-INITIALIZED-01"},
		Description: "notifications/initialized is answered with -32601 and id null"},
	{Name: faultPingBeforeInitDrop, Targets: []string{"LIFE-PRE-INIT-PING-01"},
		Description: "a ping sent before initialize is left unanswered (it is answered once initialized)"},
	{Name: faultRequestBeforeInitd, Targets: []string{"LIFE-PRE-INIT-REQ-01", "LIFE-CAPS-HONEST-01"}, Exercises: []string{"BASE-SRVREQ-ID-01"},
		Description: "right after the initialize result, before notifications/initialized, the server sends roots/list (to a client that declared no roots capability; not on a channel that already served 2026-07-28 requests)"},
	{Name: faultBatchRefused, Targets: []string{"BASE-BATCH-R2-01", "BASE-BATCH-R2-02", "STDIO-BATCH-R2-01"}, Revisions: []string{r2},
		Description: "a 2025-03-26 session refuses JSON-RPC batches, as later revisions may"},
	{Name: faultBatchAfterRemoval, Targets: []string{"BASE-BATCH-R3-01"}, Revisions: []string{r3, r4},
		Description: "2025-06-18 and 2025-11-25 sessions still process JSON-RPC batches (a WARN)"},
	{Name: faultReplyInArray, Targets: []string{"BASE-BATCH-R3-02", "STDIO-SINGLE-R3-01"}, Revisions: []string{r3, r4},
		Description: "over stdio, in 2025-06-18 and 2025-11-25 the reply to ping comes inside a JSON array"},
	{Name: faultInstructionsNotStr, Targets: []string{"LIFE-INSTRUCTIONS-01", "LIFE-INIT-RESULT-01", "BASE-SCHEMA-01"},
		Description: "the InitializeResult's instructions are an array of strings"},
	{Name: faultWebsiteNotURI, Targets: []string{"LIFE-IMPL-01"}, Revisions: []string{r4, "2026-07-28"},
		Description: "serverInfo.websiteUrl is plain text, not a URI"},
	{Name: faultInvalidUTF8, Targets: []string{"BASE-UTF8-01"},
		Description: "after notifications/initialized the server sends a notification whose bytes are not valid UTF-8"},

	// Capabilities and tool definitions.
	{Name: faultToolsCapMissing, Targets: []string{"TOOLS-CAP-01", "ERR-NOTDECLARED-01"},
		Masks: []string{"MOD-STATELESS-01", "TOOLS-CAP-LISTCHANGED-01", "NOTIF-LC-01", "NOTIF-LC-SHAPE-01", "NOTIF-LC-UNDECLARED-01", "NOTIF-LISTEN-LC-R5-01",
			"PAG-NEXTCURSOR-01", "PAG-FOLLOW-01", "PAG-STABLE-01", "PAG-NODUP-01", "PAG-INVALID-01", "PAG-EMPTY-CURSOR-R5-01", "PAG-TTL-R5-01",
			"TOOLS-CALL-01", "TOOLS-CALL-UNKNOWN-01", "TOOLS-CALL-MALFORMED-01", "BASE-INVALID-PARAMS-01",
			"TOOLS-CALL-INVALIDARGS-R1-01", "TOOLS-CALL-INVALIDARGS-R4-01", "TOOLS-CALL-VALIDATE-01",
			"ERR-EXEC-IN-RESULT-01", "ERR-ISERROR-CONTENT-01", "ERR-ISERROR-STRUCT-01",
			"TOOLS-CALL-TASK-R4-01", "TOOLS-CALL-TASK-NEG-R4-01", "PROG-TASKS-R4-01",
			"PROMPT-LC-01", "PROMPT-LC-UNDECLARED-01", "PROMPT-LC-SHAPE-01", // no trigger is called: the prompt list does not change
			"RES-LC-01", "RES-LC-UNDECLARED-01"}, // nor the resource list
		Description: "the InitializeResult declares no tools capability, yet tools/list and tools/call are served"},
	{Name: faultListChangedNotBool, Targets: []string{"TOOLS-CAP-LISTCHANGED-01", "LIFE-CAPS-SHAPE-01", "LIFE-INIT-RESULT-01", "BASE-SCHEMA-01", "NOTIF-LC-UNDECLARED-01", "MOD-DISCOVER-01", "NOTIF-LISTEN-LC-R5-01"},
		Masks:       []string{"NOTIF-LC-01", "NOTIF-LC-SHAPE-01"},
		Description: `capabilities.tools.listChanged is the string "yes" (not true, so the list_changed it sends on a change is undeclared)`},
	{Name: faultAnnotBadType, Targets: []string{"TOOLS-ANNOT-01", "TOOLS-LIST-01", "BASE-SCHEMA-01"},
		Description: `a listed tool's annotations.readOnlyHint is the string "yes"`},
	{Name: faultAnnotContradiction, Targets: []string{"TOOLS-ANNOT-CONSIST-01"},
		Description: "a listed tool claims readOnlyHint: true and destructiveHint: true"},
	{Name: faultDescriptionNotStr, Targets: []string{"TOOLS-DEF-01", "TOOLS-LIST-01", "BASE-SCHEMA-01"},
		Description: "a listed tool's description is a number"},
	{Name: faultTitleNotString, Targets: []string{"TOOLS-TITLE-01", "TOOLS-LIST-01", "BASE-SCHEMA-01"},
		Description: "a listed tool's title is a number (2025-06-18+)"},
	{Name: faultTitleInOldRevisions, Targets: []string{"LIFE-VERSION-RESPECT-01"}, Revisions: []string{r1, r2},
		Description: "tool titles are listed in 2024-11-05 and 2025-03-26 sessions, whose Tool has no title"},
	{Name: faultNameWithSpace, Targets: []string{"TOOLS-NAME-FORMAT-01"},
		Description: "a listed tool's name contains spaces"},
	{Name: faultDuplicateName, Targets: []string{"TOOLS-NAME-UNIQUE-01"},
		Description: "test_simple_text is listed twice on the first page"},
	{Name: faultNamesCaseInsens, Targets: []string{"TOOLS-NAME-CASE-01"},
		Description: "tools/call resolves tool names case-insensitively"},
	{Name: faultInSchemaNoType, Targets: []string{"TOOLS-INSCHEMA-TYPE-01", "TOOLS-LIST-01", "BASE-SCHEMA-01"},
		Description: `a listed tool's inputSchema has no "type": "object"`},
	{Name: faultInSchemaInvalid, Targets: []string{"TOOLS-INSCHEMA-VALID-01", "TOOLS-INSCHEMA-VALID-R1-01"},
		Description: `a listed tool's inputSchema is not a valid JSON Schema (a property of type "nonsense")`},
	{Name: faultOutSchemaNotObject, Targets: []string{"STRUCT-OUTSCHEMA-ROOT-01", "TOOLS-OUTSCHEMA-01", "TOOLS-LIST-01", "BASE-SCHEMA-01"},
		Revisions:   []string{r3, r4}, // 2026-07-28 allows any schema, e.g. an array one
		Description: `a listed tool's outputSchema has root type "array" (2025-06-18, 2025-11-25; allowed from 2026-07-28)`},
	{Name: faultOutSchemaInvalid, Targets: []string{"STRUCT-OUTSCHEMA-VALID-01", "TOOLS-OUTSCHEMA-01"},
		Description: `a listed tool's outputSchema is not a valid JSON Schema (a property of type "nonsense"; 2025-06-18+)`},
	{Name: faultIconBadTheme, Targets: []string{"TOOLS-ICONS-01", "TOOLS-LIST-01", "BASE-SCHEMA-01"},
		Description: `a listed tool's icon has theme "purple" (2025-11-25)`},
	{Name: faultIconUnsafeScheme, Targets: []string{"TOOLS-ICONS-SCHEME-01"},
		Description: "a listed tool's icon src is a plain http: URL (2025-11-25)"},
	{Name: faultIconDataMismatch, Targets: []string{"TOOLS-ICONS-DATA-01"},
		Description: "a listed tool's data: icon declares image/png but holds a JPEG (2025-11-25)"},
	{Name: faultExecBadTaskSupport, Targets: []string{"TOOLS-EXEC-R4-01", "TOOLS-LIST-01", "BASE-SCHEMA-01"},
		Description: `a listed tool's execution.taskSupport is "sometimes" (2025-11-25)`},

	// Pagination.
	{Name: faultInvalidCursorFirst, Targets: []string{"PAG-INVALID-01"},
		Description: "tools/list ignores an invalid cursor and returns the first page"},
	{Name: faultInvalidCursorIntern, Targets: []string{"PAG-INVALID-01"},
		Description: "tools/list answers an invalid cursor with -32603 instead of -32602"},
	{Name: faultCursorLoop, Targets: []string{"PAG-NEXTCURSOR-01"}, Masks: []string{"TOOLS-NAME-CASE-01", "TOOLS-LIST-ORDER-01", "MOD-STATELESS-01"},
		Description: "the last tools/list page carries the second page's cursor again, so the walk loops"},
	{Name: faultToolAcrossPages, Targets: []string{"PAG-NODUP-01", "TOOLS-NAME-UNIQUE-01"},
		Description: "each tools/list page starts with the last tool of the page before"},
	{Name: faultListParamsNoReply, Targets: []string{"BASE-INVALID-PARAMS-01"},
		Description: `tools/list with params that are not an object ("abc") gets no reply: silence on stdio, over HTTP the connection closed without a response`},
	{Name: faultEmptyNextCursor, Targets: []string{"PAG-EMPTY-CURSOR-R5-01"}, Masks: []string{"TOOLS-NAME-CASE-01", "TOOLS-LIST-ORDER-01", "MOD-STATELESS-01"},
		Description: `the last tools/list page carries nextCursor "" as its end marker (cursor "" answers an empty page; in 2026-07-28, -32602)`},
	{Name: faultUnstableCursor, Targets: []string{"PAG-STABLE-01"}, Masks: []string{"TOOLS-LIST-ORDER-01", "MOD-STATELESS-01"},
		Description: "a cursor requested again in a session starts one tool later each time"},
	{Name: faultFollowPageInvalid, Targets: []string{"PAG-FOLLOW-01", "TOOLS-LIST-01", "BASE-SCHEMA-01", "MOD-SERVERINFO-01"},
		Description: "every tools/list page after the first carries a _meta that is a string"},
	{Name: faultListParamsUnchecked, Targets: []string{"BASE-INVALID-PARAMS-01"},
		Description: "tools/list ignores params that are not an object and a cursor that is not a string"},

	// Tool calls and errors.
	{Name: faultUnknownToolIsError, Targets: []string{"TOOLS-CALL-UNKNOWN-01"},
		Description: "a call to an unknown tool is answered with an isError:true result"},
	{Name: faultUnknownToolInternal, Targets: []string{"TOOLS-CALL-UNKNOWN-01"},
		Description: "a call to an unknown tool is answered with -32603 instead of -32602"},
	{Name: faultUnknownToolSuccess, Targets: []string{"TOOLS-CALL-UNKNOWN-01", "TOOLS-NAME-CASE-01"},
		Description: "a call to an unknown tool is answered with a successful result"},
	{Name: faultMalformedInternal, Targets: []string{"TOOLS-CALL-MALFORMED-01"},
		Description: "a tools/call whose params break CallToolRequest is answered with -32603 instead of -32602"},
	{Name: faultSimpleTextRPCError, Targets: []string{"TOOLS-CALL-01"},
		Description: "test_simple_text answers with JSON-RPC error -32603 instead of a result"},
	{Name: faultFailureAsRPCError, Targets: []string{"ERR-EXEC-IN-RESULT-01"}, Masks: []string{"ERR-ISERROR-CONTENT-01"},
		Description: "test_error_handling reports its failure as JSON-RPC error -32603 instead of an isError:true result"},
	{Name: faultIsErrorNoContent, Targets: []string{"ERR-ISERROR-CONTENT-01", "BASE-SCHEMA-01"},
		Description: "test_error_handling answers an isError:true result without content"},
	{Name: faultArgsUnvalidated, Targets: []string{"TOOLS-CALL-VALIDATE-01", "TOOLS-CALL-INVALIDARGS-R1-01", "TOOLS-CALL-INVALIDARGS-R4-01"},
		Description: "tools/call runs test_echo with arguments that break its inputSchema, without validating them"},
	{Name: faultArgsInternal, Targets: []string{"TOOLS-CALL-INVALIDARGS-R1-01", "TOOLS-CALL-INVALIDARGS-R4-01"},
		Description: "arguments that break a tool's inputSchema are answered with JSON-RPC error -32603 (neither -32602 nor isError)"},
	{Name: faultIsErrorStructNoText, Targets: []string{"ERR-ISERROR-STRUCT-01", "ERR-ISERROR-CONTENT-01"},
		Description: "test_error_handling declares an outputSchema (2025-06-18+) and answers an isError:true result with no content block"},
	{Name: faultIsErrorNotBoolean, Targets: []string{"TOOLS-CALL-ISERROR-01", "BASE-SCHEMA-01"},
		Description: `test_simple_text's result carries isError: "false", a string`},

	// Content blocks.
	{Name: faultTextNotString, Targets: []string{"CONTENT-TEXT-01", "BASE-SCHEMA-01", "TOOLS-CALL-CONTENT-01"},
		Description: "test_simple_text's text block has a number as its text"},
	{Name: faultUnknownContentType, Targets: []string{"CONTENT-UNKNOWN-TYPE-01", "BASE-SCHEMA-01"},
		Description: `test_simple_text adds a block of type "video", which no revision defines`},
	{Name: faultImageNotBase64, Targets: []string{"CONTENT-IMAGE-01"},
		Description: "test_image_content's data is not base64"},
	{Name: faultImageJPEGAsPNG, Targets: []string{"CONTENT-IMAGE-01"},
		Description: "test_image_content's bytes are a JPEG labelled image/png"},
	{Name: faultAudioMislabelled, Targets: []string{"CONTENT-AUDIO-01"},
		Description: "test_audio_content's bytes are a WAV file labelled audio/mpeg"},
	{Name: faultAudioInR1, Targets: []string{"CONTENT-AUDIO-R1-01", "CONTENT-UNKNOWN-TYPE-01", "LIFE-VERSION-RESPECT-01", "BASE-SCHEMA-01"}, Revisions: []string{r1},
		Description: "test_audio_content returns an audio block in a 2024-11-05 session, which has no audio content"},
	{Name: faultResLinkInR2, Targets: []string{"CONTENT-RESLINK-R12-01", "CONTENT-UNKNOWN-TYPE-01", "LIFE-VERSION-RESPECT-01", "BASE-SCHEMA-01"}, Revisions: []string{r2},
		Description: "test_resource_link returns a resource_link block in a 2025-03-26 session, which has no resource_link content"},
	{Name: faultResLinkRelativeURI, Targets: []string{"CONTENT-RESLINK-01"},
		Description: "test_resource_link's uri is a relative reference without a scheme (2025-06-18+)"},
	{Name: faultBlobNotBase64, Targets: []string{"CONTENT-EMBED-01"},
		Description: "test_embedded_resource's blob is not base64"},
	{Name: faultEmbedWithoutResCap, Targets: []string{"CONTENT-EMBED-CAP-01", "ERR-NOTDECLARED-01", "RES-CAP-01", "RES-UNDECLARED-01"},
		Masks:       resourceChecksMasked, // no capability: the RES rows do not bind
		Description: "the server embeds resources but does not declare the resources capability"},
	{Name: faultAnnotPriorityRange, Targets: []string{"CONTENT-ANNOT-01", "CONTENT-TEXT-01", "BASE-SCHEMA-01", "TOOLS-CALL-CONTENT-01"},
		Description: "test_annotated_content's text block has annotations.priority 2, outside [0, 1] (so it is no valid TextContent either)"},
	{Name: faultLastModifiedNotTime, Targets: []string{"CONTENT-ANNOT-LASTMOD-01"},
		Description: `test_annotated_content's annotations.lastModified is "yesterday" (2025-06-18+)`},
	{Name: faultMixedInvalidBlock, Targets: []string{"CONTENT-MIXED-01", "CONTENT-TEXT-01", "BASE-SCHEMA-01", "TOOLS-CALL-CONTENT-01"},
		Description: "test_multiple_content_types returns a text block whose text is a number"},
	{Name: faultContentMetaKey, Targets: []string{"CONTENT-META-01", "BASE-META-KEYS-01"}, Revisions: []string{r3, r4, "2026-07-28"},
		Description: "test_annotated_content's text block carries a _meta key whose name starts with a hyphen (2025-06-18+)"},

	// Structured output.
	{Name: faultStructNotObject, Targets: []string{"STRUCT-TYPE-01", "STRUCT-TYPE-R5-01", "STRUCT-CONFORM-01", "BASE-SCHEMA-01"},
		Description: "test_structured_output's structuredContent (and its text mirror) is an array (2025-06-18+; in 2026-07-28 an array is allowed, but not by its object outputSchema)"},
	{Name: faultStructViolates, Targets: []string{"STRUCT-CONFORM-01"},
		Description: "test_structured_output's structuredContent (and its text mirror) violates its outputSchema (2025-06-18+)"},
	{Name: faultStructMissing, Targets: []string{"STRUCT-CONFORM-01"}, Masks: []string{"STRUCT-TYPE-01", "STRUCT-TEXT-MIRROR-01"},
		Description: "test_structured_output, which declares an outputSchema, returns no structuredContent (2025-06-18+)"},
	{Name: faultStructNoMirror, Targets: []string{"STRUCT-TEXT-MIRROR-01"},
		Description: "test_structured_output's text block is prose, not the serialized structuredContent (2025-06-18+)"},
	{Name: faultStructInOldRevs, Targets: []string{"STRUCT-R12-01", "LIFE-VERSION-RESPECT-01"}, Revisions: []string{r1, r2},
		Description: "test_structured_output returns structuredContent in 2024-11-05 and 2025-03-26 sessions, which have no structured output"},
	{Name: faultStructNoSchema, Targets: []string{"STRUCT-NOSCHEMA-01", "STRUCT-TEXT-MIRROR-01"},
		Description: "test_simple_text, which has no outputSchema, returns structuredContent that no text block mirrors (2025-06-18+)"},

	// Tool list change notifications.
	{Name: faultListChangedNever, Targets: []string{"NOTIF-LC-01"},
		Description: "notifications/tools/list_changed is sent once at connect, never after the list really changes"},
	// In 2026-07-28 the undeclared change reaches the listen stream all the same.
	{Name: faultListChangedUndec, Targets: []string{"NOTIF-LC-UNDECLARED-01", "NOTIF-LISTEN-LC-R5-01"}, Masks: []string{"NOTIF-LC-01"},
		Description: "capabilities.tools.listChanged is false, yet notifications/tools/list_changed is sent (at connect and on a change)"},
	{Name: faultListChangedOnChg, Targets: []string{"NOTIF-LC-UNDECLARED-01", "NOTIF-LISTEN-LC-R5-01"}, Masks: []string{"NOTIF-LC-01", "TOOLS-CAP-LISTCHANGED-01"},
		Description: "capabilities.tools is {} (no listChanged), yet notifications/tools/list_changed is sent when the tool list changes (only then)"},
	{Name: faultListChangedWithI, Targets: []string{"NOTIF-LC-SHAPE-01", "BASE-NOTIF-NOID-01"},
		Description: "notifications/tools/list_changed carries an id"},

	// Progress.
	{Name: faultProgressAfterDone, Targets: []string{"PROG-AFTER-DONE-01", "PROG-TOKEN-01"},
		Description: "test_tool_with_progress sends its last progress notification after its response"},
	{Name: faultProgressDecreasing, Targets: []string{"PROG-MONOTONIC-01"},
		Description: "test_tool_with_progress sends progress 2, 1, 3"},
	{Name: faultProgressUnknownTok, Targets: []string{"PROG-TOKEN-01"},
		Description: "test_tool_with_progress sends one progress notification for a token no request carried"},
	{Name: faultProgressRetyped, Targets: []string{"PROG-TOKEN-TYPE-01"},
		Description: "every tools/call with an integer progressToken gets a progress notification echoing the token as a string"},
	{Name: faultProgressMsgBlank, Targets: []string{"PROG-MESSAGE-01"},
		Description: "test_tool_with_progress's progress notifications carry a message of blanks (2025-03-26+)"},

	// Tasks.
	{Name: faultTaskCreatedDone, Targets: []string{"TOOLS-CALL-TASK-R4-01"}, Revisions: []string{r4},
		Description: "a task-augmented tools/call runs the tool first and answers a CreateTaskResult whose task begins completed, not working"},
	{Name: faultTaskResultNoMeta, Targets: []string{"TOOLS-CALL-TASK-R4-01"}, Revisions: []string{r4},
		Description: "tasks/result answers the tool's result without the io.modelcontextprotocol/related-task _meta"},
	{Name: faultTaskForbiddenRun, Targets: []string{"TOOLS-CALL-TASK-NEG-R4-01"}, Revisions: []string{r4},
		Description: "a task-augmented tools/call to a tool without task support is run as a normal call instead of answered -32601"},
	{Name: faultTaskProgressToken, Targets: []string{"PROG-TASKS-R4-01", "PROG-TOKEN-01"}, Revisions: []string{r4},
		Description: "a task's progress notifications carry a token of the server's own (\"task-…\"), not the progressToken of the task-augmented tools/call"},

	// Cancellation.
	// In 2026-07-28 over stdio the answer and the progress that follow the
	// cancellation also break that transport's MUST NOT (STDIO-CANCEL-R5-01).
	{Name: faultCancelIgnored, Targets: []string{"CANCEL-INFLIGHT-01", "STDIO-CANCEL-R5-01"},
		Description: "notifications/cancelled for a tools/call in flight is ignored: test_slow works on and answers"},
	{Name: faultCancelUnknownAnswered, Targets: []string{"CANCEL-IGNORE-01"},
		Description: "notifications/cancelled naming no request in flight (unknown, finished, malformed) is answered with a -32602 error"},
	{Name: faultCancelClientRequest, Targets: []string{"CANCEL-DIRECTION-01"}, Revisions: []string{r1, r2, r3, r4},
		Description: "test_tool_with_progress sends notifications/cancelled naming the client's own tools/call (2024-11-05 … 2025-11-25)"},

	// Logging. Without the capability the rows that depend on it have nothing to
	// judge (not declared); LOG-R5-PERREQ-01 still judges the messages it sees.
	// logging/setLevel is still served without the capability: ERR-NOTDECLARED-01's
	// rule (2024-11-05 … 2025-11-25, where the method exists).
	{Name: faultLoggingCapMissing, Targets: []string{"LOG-CAP-01", "ERR-NOTDECLARED-01"},
		Masks:       []string{"LOG-SETLEVEL-01", "LOG-SETLEVEL-INVALID-01", "LOG-FILTER-01", "LOG-R5-INVALID-01", "ERR-LOGLEVEL-01"},
		Description: "capabilities carry no logging, yet test_tool_with_logging sends notifications/message"},
	{Name: faultLogBadLevel, Targets: []string{"LOG-SHAPE-01", "BASE-SCHEMA-01"},
		Description: `test_tool_with_logging sends its warning-level message with level "warn", which is no syslog level name`},
	{Name: faultLogUnfiltered, Targets: []string{"LOG-FILTER-01"}, Revisions: []string{r1, r2, r3, r4},
		Description: "test_tool_with_logging sends every level whatever logging/setLevel asked for (2024-11-05 to 2025-11-25)"},
	{Name: faultSetLevelPartial, Targets: []string{"LOG-SETLEVEL-01"},
		Description: "logging/setLevel refuses the valid levels notice, alert and emergency with -32602"},
	// An accepted level leaves no error code to judge (ERR-LOGLEVEL-01).
	{Name: faultLogLevelAccepted, Targets: []string{"LOG-SETLEVEL-INVALID-01", "LOG-R5-INVALID-01"}, Masks: []string{"ERR-LOGLEVEL-01"},
		Description: `an unknown log level ("verbose") is accepted: logging/setLevel answers {}, a 2026-07-28 request's _meta logLevel is ignored`},
	{Name: faultLogLevelInternal, Targets: []string{"LOG-SETLEVEL-INVALID-01", "LOG-R5-INVALID-01", "ERR-LOGLEVEL-01"},
		Description: "an unknown log level, in logging/setLevel or a 2026-07-28 request's _meta, is refused with -32603 instead of -32602"},
}

// Faults returns the catalogue of faults the reference server can be switched to,
// in a stable order. The slices are copies: callers may keep and change them.
func Faults() []Fault {
	return cloneFaults(slices.Concat(faultCatalogue, promptFaultCatalogue, transportFaultCatalogue, selfTestedModernFaults(), streamFaultCatalogue, resourceFaultCatalogue, authFaultCatalogue))
}

// cloneFaults copies a catalogue deeply enough that callers may change what they get.
func cloneFaults(catalogue []Fault) []Fault {
	out := make([]Fault, len(catalogue))
	for i, f := range catalogue {
		f.Targets = slices.Clone(f.Targets)
		f.Revisions = slices.Clone(f.Revisions)
		f.Masks = slices.Clone(f.Masks)
		out[i] = f
	}
	return out
}

// faultSet is the faults switched on in one server; the zero value is a correct
// server.
type faultSet map[string]bool

// on reports whether the named fault is switched on.
func (fs faultSet) on(name string) bool { return fs[name] }

// unanswered reports whether m is a request the server leaves without any reply
// (list-params-unanswered): on stdio it is dropped, over Streamable HTTP its POST's
// connection is closed without a response — the same behaviour on both transports.
func (fs faultSet) unanswered(m *wire.Message) bool {
	if !fs.on(faultListParamsNoReply) || m.Kind != wire.KindRequest || m.Method != "tools/list" {
		return false
	}
	p := bytes.TrimSpace(m.Params)
	return len(p) > 0 && p[0] != '{'
}

// newFaultSet checks fault names against the catalogue.
func newFaultSet(names map[string]bool) (faultSet, error) {
	fs := faultSet{}
	var unknown []string
	for name, on := range names {
		if !on {
			continue
		}
		known := func(f Fault) bool { return f.Name == name }
		if !slices.ContainsFunc(slices.Concat(faultCatalogue, promptFaultCatalogue, transportFaultCatalogue, streamFaultCatalogue, resourceFaultCatalogue, authFaultCatalogue), known) && !isModernFault(name) {
			unknown = append(unknown, fmt.Sprintf("%q", name))
			continue
		}
		fs[name] = true
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("unknown fault %s (mcp-conform fixture --list-faults lists them)", strings.Join(unknown, ", "))
	}
	return fs, nil
}

// writeFaults prints the catalogue for --list-faults: name, targets, revisions
// where it bites, description; one fault per line.
func writeFaults(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tTARGETS\tREVISIONS\tDESCRIPTION")
	for _, f := range Faults() {
		revs := "all"
		if len(f.Revisions) > 0 {
			revs = strings.Join(f.Revisions, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, strings.Join(f.Targets, ","), revs, f.Description)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("list faults: %w", err)
	}
	return nil
}

// faultProbeName is the tool listed first while a tool-definition fault is on. It
// carries the broken definition; no check ever calls it (it is not a fixture-contract
// tool), so only the definition checks see it.
const faultProbeName = "x_fault_probe"

// definitionFaults are the faults that break the probe tool's definition.
var definitionFaults = []string{
	faultAnnotBadType, faultAnnotContradiction, faultDescriptionNotStr, faultTitleNotString,
	faultNameWithSpace, faultInSchemaNoType, faultInSchemaInvalid, faultOutSchemaNotObject,
	faultOutSchemaInvalid, faultIconBadTheme, faultIconUnsafeScheme, faultIconDataMismatch,
	faultExecBadTaskSupport,
}

// probeListed reports whether the fault probe tool is listed.
func (fs faultSet) probeListed() bool {
	return slices.ContainsFunc(definitionFaults, fs.on)
}

// probeDefinition renders the probe tool for a revision with every definition fault
// that is on; each member appears only in revisions whose Tool has it, so that the
// fault breaks one rule and not the revision's vocabulary as well.
func (fs faultSet) probeDefinition(rev revision.Revision) map[string]any {
	d := map[string]any{
		"name":        faultProbeName,
		"description": "Listed only while a tool-definition fault of the reference server is switched on.",
		"inputSchema": map[string]any{"type": "object", "additionalProperties": false},
	}
	if fs.on(faultNameWithSpace) {
		d["name"] = "x fault probe"
	}
	if fs.on(faultDescriptionNotStr) {
		d["description"] = 42
	}
	if fs.on(faultInSchemaNoType) {
		d["inputSchema"] = map[string]any{"properties": map[string]any{"text": map[string]any{"type": "string"}}}
	}
	if fs.on(faultInSchemaInvalid) {
		d["inputSchema"] = map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "nonsense"}}}
	}
	if rev.Has(revision.ToolAnnotations) {
		switch {
		case fs.on(faultAnnotBadType):
			d["annotations"] = map[string]any{"readOnlyHint": "yes"}
		case fs.on(faultAnnotContradiction):
			d["annotations"] = map[string]any{"readOnlyHint": true, "destructiveHint": true}
		}
	}
	if rev.Has(revision.Title) && fs.on(faultTitleNotString) {
		d["title"] = 42
	}
	if rev.Has(revision.OutputSchema) {
		switch {
		case fs.on(faultOutSchemaNotObject):
			d["outputSchema"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		case fs.on(faultOutSchemaInvalid):
			d["outputSchema"] = map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "nonsense"}}}
		}
	}
	if rev.Has(revision.Icons) {
		var icons []icon
		if fs.on(faultIconBadTheme) {
			icons = append(icons, icon{Src: "https://example.com/mcp-conform/icon.png", MimeType: "image/png", Theme: "purple"})
		}
		if fs.on(faultIconUnsafeScheme) {
			icons = append(icons, icon{Src: "http://example.com/mcp-conform/icon.png", MimeType: "image/png"})
		}
		if fs.on(faultIconDataMismatch) {
			icons = append(icons, icon{Src: "data:image/png;base64," + media().jpegPixelBase64, MimeType: "image/png"})
		}
		if len(icons) > 0 {
			d["icons"] = icons
		}
	}
	if rev.Has(revision.Tasks) && fs.on(faultExecBadTaskSupport) {
		d["execution"] = map[string]any{"taskSupport": "sometimes"}
	}
	return d
}

// mustJPEG encodes a 1×1 JPEG of one colour.
func mustJPEG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 0x30, G: 0xd0, B: 0x30, A: 0xff})
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		panic(fmt.Sprintf("fixtures: encode JPEG: %v", err))
	}
	return buf.Bytes()
}
