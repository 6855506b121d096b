package refserver

import (
	"slices"
)

// Faults of the modern era (2026-07-28). They break one R5 rule each, switched on
// like every fault (Options.Faults, --fault NAME), and bite only in modern requests.
const (
	faultR5MissingResultType     = "r5-missing-result-type"
	faultR5NoServerInfo          = "r5-no-serverinfo"
	faultR5NoTTL                 = "r5-no-ttl"
	faultR5DiscoverNoTTL         = "r5-discover-no-ttl"
	faultR5MetaUnchecked         = "r5-meta-unchecked"
	faultR5VersionAccepted       = "r5-unsupported-version-accepted"
	faultR5CapAssumed            = "r5-capability-assumed"
	faultR5ServerRequest         = "r5-server-request"
	faultR5ListenUntagged        = "r5-listen-untagged"
	faultR5ListenNoAck           = "r5-listen-no-ack"
	faultR5ListChangedOnCall     = "r5-list-changed-on-call"
	faultR5ListenUnfiltered      = "r5-listen-unfiltered"
	faultR5ListChangedSilent     = "r5-list-changed-silent"
	faultR5LogOnListen           = "r5-log-on-listen"
	faultR5ServerCancels         = "r5-server-cancels-call"
	faultR5ListChangedBadTag     = "r5-list-changed-bad-tag"
	faultR5HeaderMismatchOK      = "r5-header-mismatch-accepted"
	faultR5SessionMinted         = "r5-session-minted"
	faultR5GetStreamServed       = "r5-get-not-405"
	faultR5HeadersOptional       = "r5-headers-optional"
	faultR5NameUndecoded         = "r5-name-base64-undecoded"
	faultR5UnknownMethod200      = "r5-unknown-method-200"
	faultR5VersionError200       = "r5-version-error-200"
	faultR5LastEventIDRefuse     = "r5-last-event-id-refused"
	faultR5Notification200       = "r5-notification-200"
	faultR5OriginUnchecked       = "r5-origin-unchecked"
	faultR5NoXAccel              = "r5-no-x-accel-buffering"
	faultR5CacheScopeMixed       = "r5-cache-scope-mixed"
	faultR5ToolOrderUnstable     = "r5-tool-order-unstable"
	faultR5McpHeaderInvalid      = "r5-mcp-header-on-number"
	faultR5PingServed            = "r5-ping-served"
	faultR5ExtUnprefixed         = "r5-extension-unprefixed"
	faultR5InitUnnamed           = "r5-initialize-refusal-unnamed"
	faultR5StickyCaps            = "r5-sticky-capabilities"
	faultR5CapNoData             = "r5-capability-error-no-data"
	faultR5ReservedCode          = "r5-reserved-error-code"
	faultR5StructArrayBad        = "r5-structured-array-mismatch"
	faultR5AnsweredIDRefused     = "r5-answered-id-refused"
	faultR5SchemaExternalRef     = "r5-schema-external-ref"
	faultR5LogWithoutLevel       = "r5-log-without-level"
	faultR5RetryRefused          = "r5-mrtr-retry-refused"
	faultR5StateUnchecked        = "r5-mrtr-state-unchecked"
	faultR5MissingAnswerError    = "r5-mrtr-missing-answer-error"
	faultR5InputUnvalidated      = "r5-mrtr-input-unvalidated"
	faultR5PostRefused           = "r5-post-refused"
	faultR5NameToolsOnly         = "r5-name-tools-call-only"
	faultR5NameB64ToolsOnly      = "r5-name-base64-tools-call-only"
	faultR5PromptInputUndeclared = "r5-prompt-input-undeclared"
)

// Faults of the modern era's cancellation and subscription teardown.
const (
	faultR5ProgressAfterCancel = "r5-progress-after-cancel"
	faultR5ListenEndSilent     = "r5-listen-end-silent"
)

// httpOnly marks faults that bite only over Streamable HTTP: the self-test runs
// them against an HTTP fixture.
const httpOnly = "http"

// onlyR5 is where every modern fault bites.
var onlyR5 = []string{"2026-07-28"}

// modernFaultCatalogue lists the modern-era faults with the check IDs (catalogue
// rows) each one is meant to flip. Those named in modernSelfTested are part of
// Faults() (the e2e self-test runs them, and every target must be a registered check
// that the fault flips); the others wait for their checks.
var modernFaultCatalogue = []Fault{
	// The endpoint is the one every era's POST goes to: no column opens, the legacy
	// ones (revision-unsupported on the modern-only fixture) included, and
	// H5-ENDPOINT-01 (an opening check) is the one verdict the run can give.
	{Name: faultR5PostRefused, Targets: []string{"H5-ENDPOINT-01"}, Revisions: append(slices.Clone(onlyR5), r1, r2, r3, r4), Transport: httpOnly,
		Description: "Streamable HTTP: the MCP endpoint answers every POST 405 Method Not Allowed (Allow: GET), with no JSON-RPC body"},
	{Name: faultR5MissingResultType, Targets: []string{"BASE-RESULTTYPE-01", "MOD-DISCOVER-01", "BASE-SCHEMA-01", "PAG-FOLLOW-01", "PAG-TTL-R5-01", "TOOLS-LIST-01", "TOOLS-LIST-R5-01", "PROMPT-LIST-01", "PROMPT-GET-01", "COMPL-RESULT-01", "COMPL-CONTEXT-01", "RES-LIST-01", "RES-TPL-LIST-01", "RES-PAG-FOLLOW-01", "RES-READ-01", "RES-R5-CACHE-01"}, Revisions: onlyR5,
		Description: "modern results, the DiscoverResult among them, carry no resultType"},
	{Name: faultR5NoServerInfo, Targets: []string{"MOD-SERVERINFO-01", "MOD-DISCOVER-INFO-01"}, Revisions: onlyR5, Masks: []string{"LIFE-IMPL-01"},
		Description: "modern results carry no _meta io.modelcontextprotocol/serverInfo"},
	{Name: faultR5NoTTL, Targets: []string{"TOOLS-LIST-R5-01", "PAG-TTL-R5-01", "TOOLS-LIST-01", "PAG-FOLLOW-01", "BASE-SCHEMA-01", "PROMPT-LIST-01", "RES-R5-CACHE-01", "RES-LIST-01", "RES-TPL-LIST-01", "RES-PAG-FOLLOW-01", "RES-READ-01"}, Revisions: onlyR5,
		Description: "cacheable modern list results (tools/list, prompts/list, resources/*) carry no ttlMs or cacheScope"},
	{Name: faultR5DiscoverNoTTL, Targets: []string{"MOD-DISCOVER-01", "BASE-SCHEMA-01"}, Revisions: onlyR5,
		Description: "the DiscoverResult carries no ttlMs or cacheScope"},
	{Name: faultR5MetaUnchecked, Targets: []string{"MOD-META-REQUIRED-01"}, Revisions: onlyR5,
		Description: "a modern request missing _meta protocolVersion or clientCapabilities is served as if it carried 2026-07-28 and {}"},
	{Name: faultR5VersionAccepted, Targets: []string{"MOD-VERSION-UNSUPPORTED-01"}, Revisions: onlyR5,
		Description: "a request for an unsupported protocol version is served as 2026-07-28 instead of -32022"},
	{Name: faultR5CapAssumed, Targets: []string{"MOD-CAP-MISSING-01", "MOD-MRTR-01"}, Masks: []string{"ERR-R5-CODES-01"}, Revisions: onlyR5,
		Description: "test_requires_elicitation succeeds, and test_elicitation and the prompt introduce_user ask for elicitation, when the request declared no elicitation capability"},
	{Name: faultR5PromptInputUndeclared, Targets: []string{"MOD-MRTR-01"}, Revisions: onlyR5,
		Description: "prompts/get of introduce_user asks for form elicitation (input_required) when the request declared no elicitation capability"},
	{Name: faultR5ServerRequest, Targets: []string{"MOD-NO-SERVER-REQ-01", "STDIO-NO-REQUESTS-R5-01"}, Revisions: onlyR5,
		Description: "test_elicitation, test_sampling and the prompt introduce_user also send their input request as a server-to-client JSON-RPC request"},
	// Over stdio an untagged list_changed belongs to no subscription, so it is
	// also NOTIF-LISTEN-LC-R5-01's finding (over HTTP the listen stream carries it).
	{Name: faultR5ListenUntagged, Targets: []string{"NOTIF-LISTEN-TAG-R5-01", "NOTIF-LISTEN-ACK-R5-01", "STDIO-SUBID-R5-01", "NOTIF-LISTEN-LC-R5-01"}, Revisions: onlyR5,
		Description: "the listen acknowledgement and list_changed notifications carry no _meta subscriptionId"},
	// The updates of a resourceSubscriptions filter follow the acknowledgement
	// (listener.start): without it none is sent, and RES-SUB-R5-01 sees none.
	{Name: faultR5ListenNoAck, Targets: []string{"NOTIF-LISTEN-ACK-R5-01"}, Revisions: onlyR5, Masks: []string{"RES-SUB-R5-01"},
		Description: "subscriptions/listen sends no notifications/subscriptions/acknowledged"},
	// Over stdio the untagged list_changed is on the shared channel, where it reads
	// as an untagged subscription message (TAG, SUBID) of a kind no prompts-only
	// subscription asked for (FILTER); over HTTP only LC and H5-SSE-RELATED-01 see
	// it. The self-test runs it over stdio; sh-foreign-progress proves the H5 check.
	{Name: faultR5ListChangedOnCall, Targets: []string{"NOTIF-LISTEN-LC-R5-01", "NOTIF-LISTEN-TAG-R5-01", "STDIO-SUBID-R5-01", "NOTIF-LISTEN-FILTER-R5-01"}, Revisions: onlyR5,
		Description: "test_trigger_tool_change also sends an untagged list_changed on its own request's stream"},
	{Name: faultR5ListenUnfiltered, Targets: []string{"NOTIF-LISTEN-FILTER-R5-01"}, Revisions: onlyR5,
		Description: "a tool list change is announced on every listen stream, also those that did not ask for toolsListChanged"},
	{Name: faultR5ListChangedSilent, Targets: []string{"NOTIF-LISTEN-LC-R5-01"}, Masks: []string{"NOTIF-LC-SHAPE-01"}, Revisions: onlyR5,
		Description: "test_trigger_tool_change changes the tool list but no listen stream is told"},
	// notifications/message is no type a filter can ask for, so a prompts-only
	// subscription that gets one is also NOTIF-LISTEN-FILTER-R5-01's finding; and the
	// listen request set no _meta logLevel (LOG-R5-PERREQ-01).
	{Name: faultR5LogOnListen, Targets: []string{"NOTIF-LISTEN-SCOPE-R5-01", "NOTIF-LISTEN-FILTER-R5-01", "LOG-R5-PERREQ-01"}, Revisions: onlyR5,
		Description: "every listen stream gets a notifications/message right after its acknowledgement"},
	{Name: faultR5ServerCancels, Targets: []string{"CANCEL-R5-SERVER-01"}, Revisions: onlyR5,
		Description: "test_trigger_tool_change also sends notifications/cancelled for a request that is no subscription"},
	// A tag that is no RequestId breaks the schema and names no subscription: over
	// stdio the notification then belongs to none (LC, SUBID).
	{Name: faultR5ListChangedBadTag, Targets: []string{"NOTIF-LC-SHAPE-01", "BASE-SCHEMA-01", "NOTIF-LISTEN-TAG-R5-01", "STDIO-SUBID-R5-01", "NOTIF-LISTEN-LC-R5-01"}, Revisions: onlyR5,
		Description: "list_changed on a listen stream carries _meta subscriptionId true, which is no JSON-RPC id"},
	{Name: faultR5HeaderMismatchOK, Targets: []string{"H5-HEADERS-MATCH-01", "H5-HEADER-CASE-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: Mcp-Method and Mcp-Name values that differ from the body are accepted"},
	{Name: faultR5SessionMinted, Targets: []string{"H5-SESSION-IGNORE-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: modern responses carry a freshly minted Mcp-Session-Id header"},
	{Name: faultR5GetStreamServed, Targets: []string{"H5-GET-DELETE-405-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP, modern-only: GET and DELETE get 400 instead of 405"},
	{Name: faultR5HeadersOptional, Targets: []string{"H5-HEADERS-REQUIRED-01", "H5-NOHEADER-LEGACY-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: a POST missing MCP-Protocol-Version, Mcp-Method or Mcp-Name is served as if the header matched the body"},
	{Name: faultR5NameUndecoded, Targets: []string{"H5-NAME-B64-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: a =?base64?…?= Mcp-Name is compared with the body undecoded (and rejected with -32020)"},
	{Name: faultR5NameToolsOnly, Targets: []string{"H5-HEADERS-REQUIRED-01", "H5-HEADERS-MATCH-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: Mcp-Name is required and compared for tools/call only; resources/read and prompts/get are served without it or whatever it says"},
	{Name: faultR5NameB64ToolsOnly, Targets: []string{"H5-NAME-B64-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: a =?base64?…?= Mcp-Name is decoded for tools/call only; on resources/read and prompts/get it is compared undecoded (and rejected with -32020)"},
	{Name: faultR5UnknownMethod200, Targets: []string{"H5-UNKNOWN-METHOD-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: -32601 (method not found) comes with HTTP 200 instead of 404"},
	{Name: faultR5VersionError200, Targets: []string{"H5-VERSION-400-01", "MOD-VERSION-UNSUPPORTED-01", "ERR-R5-CODES-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: -32022 (unsupported protocol version) comes with HTTP 200 instead of 400"},
	{Name: faultR5LastEventIDRefuse, Targets: []string{"H5-LASTEVENTID-IGNORE-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: a POST carrying Last-Event-ID is refused with 400 instead of served"},
	{Name: faultR5Notification200, Targets: []string{"H5-POST-CT-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: an accepted notification POST is answered 200 instead of 202"},
	{Name: faultR5OriginUnchecked, Targets: []string{"H5-ORIGIN-403-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: a modern request (one carrying Mcp-Method) is served whatever its Origin"},
	{Name: faultR5ParamHeaderUnchecked, Targets: []string{"H5-PARAM-HEADER-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: a tools/call of a tool with x-mcp-header parameters is served whatever its Mcp-Param-{Name} headers say"},
	{Name: faultR5NoXAccel, Targets: []string{"H5-XACCEL-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "Streamable HTTP: modern SSE responses carry no X-Accel-Buffering: no"},
	{Name: faultR5CacheScopeMixed, Targets: []string{"PAG-TTL-R5-01"}, Revisions: onlyR5,
		Description: `tools/list pages fetched with a cursor say cacheScope "private", the first page "public"`},
	{Name: faultR5ToolOrderUnstable, Targets: []string{"TOOLS-LIST-ORDER-01"}, Revisions: onlyR5,
		Description: "every tools/list without a cursor after the first swaps the first two tools (the set is unchanged)"},
	{Name: faultR5McpHeaderInvalid, Targets: []string{"TOOLS-XMCPHEADER-01"}, Revisions: onlyR5,
		Description: `test_header_param's inputSchema also puts x-mcp-header "Zone" on a property of type number`},
	{Name: faultR5PingServed, Targets: []string{"MOD-REMOVED-01"}, Revisions: onlyR5,
		Description: "ping with modern _meta is answered with an empty complete result (ping was removed in 2026-07-28)"},
	{Name: faultR5ExtUnprefixed, Targets: []string{"MOD-EXT-01"}, Revisions: onlyR5,
		Description: "the DiscoverResult advertises capabilities.extensions keyed by an unprefixed identifier (\"tasks\")"},
	// MOD-LEGACY-INIT-01 binds only a modern-only server: the modern-only fixture.
	{Name: faultR5InitUnnamed, Targets: []string{"MOD-LEGACY-INIT-01"}, Revisions: onlyR5, Transport: httpOnly,
		Description: "a legacy initialize is refused with an error naming no supported version (modern-only; dual-era: on a stdio process that has served modern requests)"},
	{Name: faultR5StickyCaps, Targets: []string{"MOD-STATELESS-01", "MOD-MRTR-01"}, Revisions: onlyR5,
		Description: "the server remembers the client capabilities earlier modern requests declared and serves later requests with them"},
	{Name: faultR5CapNoData, Targets: []string{"ERR-R5-CODES-01", "MOD-CAP-MISSING-01"}, Revisions: onlyR5,
		Description: "test_requires_elicitation's -32021 carries no data.requiredCapabilities"},
	{Name: faultR5ReservedCode, Targets: []string{"BASE-ERRRANGE-01", "BASE-METHOD-UNKNOWN-01"}, Revisions: onlyR5,
		Description: "a modern request for an unknown method is answered with the undefined code -32050 instead of -32601"},
	{Name: faultR5StructArrayBad, Targets: []string{"STRUCT-TYPE-R5-01", "STRUCT-CONFORM-01"}, Revisions: onlyR5,
		Description: "test_structured_array's structuredContent (and its text mirror) is an array of strings, which its outputSchema (an array of numbers) rejects"},
	{Name: faultR5AnsweredIDRefused, Targets: []string{"BASE-REQID-INFLIGHT-01"}, Revisions: onlyR5,
		Description: "over stdio, a modern request whose id an answered request used before is refused with -32600"},
	{Name: faultR5SchemaExternalRef, Targets: []string{"TOOLS-INSCHEMA-REF-01"}, Revisions: onlyR5,
		Description: "test_simple_text's listed inputSchema has a property whose schema is a network $ref (https://schemas.example.com/…)"},
	{Name: faultR5LogWithoutLevel, Targets: []string{"LOG-R5-PERREQ-01"}, Revisions: onlyR5,
		Description: "test_tool_with_logging sends a notifications/message at every level for a request whose _meta names no logLevel"},
	{Name: faultR5RetryRefused, Targets: []string{"MOD-MRTR-RETRY-01"}, Revisions: onlyR5,
		Description: "test_elicitation and test_sampling refuse their own retry (requestState echoed, a valid answer) with -32602"},
	{Name: faultR5StateUnchecked, Targets: []string{"MOD-MRTR-STATE-01"}, Revisions: onlyR5,
		Description: "test_elicitation and test_sampling accept any requestState, a tampered one too, and complete the call"},
	{Name: faultR5MissingAnswerError, Targets: []string{"MOD-MRTR-MISSING-01"}, Revisions: onlyR5,
		Description: "a retry of test_elicitation or test_sampling without the answer asked for is refused with -32602 instead of asked again"},
	{Name: faultR5InputUnvalidated, Targets: []string{"MOD-MRTR-VALIDATE-01"}, Revisions: onlyR5,
		Description: "test_elicitation and test_sampling take any JSON value as the answer to their input request (12345 for an ElicitResult) and complete"},
	// No response follows the cancellation (CANCEL-INFLIGHT-01 holds), only progress.
	{Name: faultR5ProgressAfterCancel, Targets: []string{"STDIO-CANCEL-R5-01"}, Revisions: onlyR5,
		Description: "over stdio, a tools/call cancelled in flight stops and is not answered, but one more progress notification for it follows the server's next response"},
	{Name: faultR5ListenEndSilent, Targets: []string{"NOTIF-LISTEN-CLOSE-R5-01"}, Revisions: onlyR5,
		Description: "a subscription the server ends itself (test_end_subscription, shutdown) just stops: no completion result, no notifications/cancelled"},
}

// modernSelfTested names the modern faults whose target checks exist: Faults()
// includes them, so the self-test proves every one flips its targets.
var modernSelfTested = map[string]bool{
	faultR5ListenUntagged: true, faultR5ListChangedOnCall: true,
	faultR5ListenNoAck:       true,
	faultR5ListenUnfiltered:  true,
	faultR5ListChangedSilent: true,
	faultR5LogOnListen:       true,
	faultR5ServerCancels:     true,
	faultR5ListChangedBadTag: true,
	faultR5HeaderMismatchOK:  true, faultR5SessionMinted: true, faultR5GetStreamServed: true,
	faultR5HeadersOptional: true, faultR5NameUndecoded: true, faultR5NameToolsOnly: true, faultR5NameB64ToolsOnly: true,
	faultR5PromptInputUndeclared: true, faultR5UnknownMethod200: true,
	faultR5VersionError200: true, faultR5LastEventIDRefuse: true, faultR5Notification200: true,
	faultR5OriginUnchecked: true, faultR5NoXAccel: true, faultR5ParamHeaderUnchecked: true,
	faultR5NoTTL:             true,
	faultR5CacheScopeMixed:   true,
	faultR5ToolOrderUnstable: true,
	faultR5McpHeaderInvalid:  true,
	faultR5MissingResultType: true, faultR5NoServerInfo: true, faultR5DiscoverNoTTL: true,
	faultR5MetaUnchecked: true, faultR5VersionAccepted: true, faultR5CapAssumed: true,
	faultR5ServerRequest: true, faultR5PingServed: true, faultR5ExtUnprefixed: true,
	faultR5InitUnnamed: true, faultR5StickyCaps: true, faultR5CapNoData: true, faultR5ReservedCode: true,
	faultR5StructArrayBad: true, faultR5LogWithoutLevel: true,
	faultR5RetryRefused: true, faultR5StateUnchecked: true, faultR5MissingAnswerError: true, faultR5InputUnvalidated: true,
	faultR5AnsweredIDRefused:   true,
	faultR5SchemaExternalRef:   true,
	faultR5PostRefused:         true,
	faultR5ProgressAfterCancel: true, faultR5ListenEndSilent: true,
}

// ModernFaults returns the whole modern-era fault catalogue, in a stable order; the
// slices are copies.
func ModernFaults() []Fault { return cloneFaults(modernFaultCatalogue) }

// selfTestedModernFaults returns the modern faults Faults() includes.
func selfTestedModernFaults() []Fault {
	var out []Fault
	for _, f := range modernFaultCatalogue {
		if modernSelfTested[f.Name] {
			out = append(out, f)
		}
	}
	return out
}

// isModernFault reports whether name is in the modern catalogue.
func isModernFault(name string) bool {
	return slices.ContainsFunc(modernFaultCatalogue, func(f Fault) bool { return f.Name == name })
}
