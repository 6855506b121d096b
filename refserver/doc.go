// Package refserver is the mcp-conform reference server, shipped inside the binary
// (`mcp-conform fixture`, and the target of a run with no --target): a correct MCP server for the
// legacy protocol revisions 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25,
// implementing the fixture contract of this package (tool names in toolimpl.go) over stdio, Streamable
// HTTP and the 2024-11-05 HTTP+SSE transport, and for the stateless ("modern")
// revision 2026-07-28 over stdio and Streamable HTTP. By default it is dual-era:
// initialize opens a legacy session, and a request carrying modern _meta is served
// statelessly; Options.Era (`--era modern|legacy`) serves one era only.
//
// It is written on the suite's own wire code (internal/wire), not on an MCP SDK, so
// that it can misbehave on purpose: Options.Faults (`mcp-conform fixture --fault
// NAME`, repeatable; --list-faults prints them) switches on one broken rule per
// fault, from the catalogue in faults.go. Each fault is a small branch at the one
// place that owns the behaviour it breaks, and the correct path is unchanged when no
// fault is on. The e2e self-test runs the suite against every fault and demands that
// exactly the fault's target checks change their verdict. Each behaviour lives in
// one small function:
//
//   - rpc.go: JSON-RPC framing rules (parse errors, invalid requests, error ids)
//   - session.go: one logical session's state and the dispatcher (batches,
//     pre-initialize gating, cancellation, server→client requests)
//   - methods.go: one function per MCP method
//   - tools.go, toolimpl.go: the tool registry and one function per fixture tool
//   - content.go, media.go: content blocks, shaped per negotiated revision
//   - paging.go: tools/list cursors
//   - tasks.go: 2025-11-25 task-augmented tools/call, tasks/get, tasks/result
//   - stdio.go, streamable.go, ssetransport.go: the three transports
//   - cli.go: the `mcp-conform fixture` command
//   - faults.go: the fault catalogue (Faults), and the tool a definition fault lists
//   - modern.go, modern_tools.go, modern_stdio.go, modern_http.go: the 2026-07-28
//     era (per-request _meta, server/discover, decorated results, MRTR,
//     subscriptions/listen, the R5 Streamable HTTP header rules); modern_faults.go:
//     its faults (ModernFaults, kept out of Faults until the suite checks R5)
//
// # Decisions where the specification leaves room
//
//   - A request other than ping before initialize is answered -32600 (the session is
//     not initialized); the specification leaves it undefined. A second initialize
//     in a session is -32600 too.
//   - An error whose request id could not be read (parse error, invalid id, id null)
//     carries "id": null in 2024-11-05 … 2025-06-18 sessions and before
//     initialize (JSON-RPC's rule; those schemas require an id) and no id in
//     2025-11-25 sessions (its schema makes id optional and forbids null).
//   - Arrays are batches only in a 2025-03-26 session; elsewhere they get one -32600.
//   - Invalid tool arguments are an isError result in every revision (required
//     behaviour from 2025-11-25, allowed before); unknown tools, case-flipped names
//     and malformed tools/call params are -32602.
//   - Cursors: base64url("page:<offset>:<listVersion>"). A cursor is invalid (-32602)
//     unless this session could have issued it; a cursor from before a list change
//     is served from its offset on the current list. resources/list pages the same
//     way (its cursors carry version 0, so one from before the trigger is served on
//     the current list); resources/templates/list fits one page and rejects every
//     cursor.
//   - Resources (resources.go): 15 resources (the three the tools embed or link,
//     the three the official conformance suite reads (official.go:
//     test://static-text, test://static-binary, test://watched-resource), then
//     test://resources/1…9, odd ones text, even ones binary), three templates (one
//     the official suite reads, test://template/{id}/data),
//     and, before 2026-07-28, resources/subscribe: a subscription reports one
//     notifications/resources/updated for its URI before the reply (as if the
//     resource changed at once), so it is observable without a trigger.
//     resources.listChanged is declared: test_trigger_tool_change, which adds or
//     removes test_dynamic_tool and dynamic_prompt, adds or removes
//     test://dynamic/resource (listed last) with them, and announces it with
//     notifications/resources/list_changed on the trigger call's channel
//     (2026-07-28: on listen streams that asked for resourcesListChanged).
//   - test_last_cancellation returns the raw JSON of the id (e.g. "slow-1" with its
//     quotes, or 77), so the id's type is visible.
//   - test_elicitation and test_sampling send nothing unless the client declared the
//     capability (elicitation from 2025-06-18; a 2025-11-25 declaration naming only
//     "url" is not form mode) and already sent notifications/initialized. They wait
//     at most Options.ClientRequestTimeout, then cancel their request.
//   - Logging: until logging/setLevel, test_tool_with_logging sends every level
//     (debug and above); a level that is no syslog name is -32602, in
//     logging/setLevel and in a 2026-07-28 request's _meta logLevel.
//   - Tools that block (test_slow, test_elicitation, test_sampling) run off the
//     reader's goroutine; every other request is answered in input order.
//   - Tasks (2025-11-25 only): tasks.requests.tools.call is declared (no tasks/list,
//     no tasks/cancel); test_slow's execution.taskSupport is "optional", every other
//     tool has none, and a task for it is -32601. A task's messages travel on an
//     open tasks/result (its SSE stream over Streamable HTTP) and wait for one;
//     progress still waiting when the task ends is dropped. Tasks live as long as
//     their session (the ttl is reported, not enforced); pollInterval is 100 ms.
//     test_slow's argument untilRetrieved (the suite's task round trip sends it)
//     orders the task by events, not by a duration: called as a task it sends
//     progress as it starts, works until a tasks/result asks for its result (at
//     most ms), sends progress again and ends, so it is working when created and
//     its progress travels on the open tasks/result; called without a task it
//     ends at once.
//   - Streamable HTTP: a request without Accept is taken as accepting anything (RFC
//     9110); a lone message with no usable id (not a request) is 400, an invalid
//     request with a readable id is answered 200 with -32600; a client disconnect is
//     not a cancellation (2025-03-26 … 2025-11-25 say SHOULD NOT); the GET stream
//     carries nothing, since every server message relates to a request. A POST's
//     SSE stream can be resumed (Last-Event-ID, streamlog.go); in 2025-11-25 a
//     test_slow call of at least 400 ms has its connection closed 150 ms after its
//     stream opened (polling, retry 10 ms). test_slow's untilResumed orders that
//     probe by events: answered on a resumable stream, the call works until the
//     client resumed it (at most ms), and in 2025-11-25 the connection closes
//     right after the priming event, so the response can come only on the
//     resumed stream; answered elsewhere it ends at once.
//   - HTTP+SSE: a POST body that is not JSON gets 400 and -32700 on the stream;
//     everything else is 202.
//   - stdin EOF lets blocking calls finish for up to one second, then cancels them.
//
// In 2026-07-28 (modern era):
//
//   - The modern era's state is server-wide, never per connection: the tool list
//     (test_trigger_tool_change makes a global change, announced only on listen
//     streams that asked for toolsListChanged), the last cancellation. Each request
//     is served from its own _meta: a missing protocolVersion or clientCapabilities
//     is -32602, an unserved version -32022 (data.supported lists 2026-07-28 only:
//     legacy versions are reachable through initialize, not per request).
//   - A dual-era server treats a request as modern when params._meta carries either
//     per-request protocol field (stdio and HTTP) or, over HTTP, when its
//     MCP-Protocol-Version header names 2026-07-28; everything else is legacy.
//     initialize on a modern-only server is -32022 naming the supported versions
//     (HTTP 400).
//   - The second tools/list page's cursor is "" (2026-07-28 makes the empty string
//     a valid cursor), so that clients are seen to follow it.
//   - test_elicitation and test_sampling answer input_required (MRTR) with one input
//     request and a requestState bound to the tool and its arguments; the retry
//     completes with the answer as text, a foreign requestState is -32602, an answer
//     that is no ElicitResult (CreateMessageResult) or inputResponses that are no
//     object are -32602, a retry without the answer is asked again, and an
//     undeclared capability is -32021. test_requires_elicitation, test_header_param
//     (x-mcp-header "Region"), test_structured_array and test_end_subscription exist
//     only in 2026-07-28. So does the prompt introduce_user (after the fixed ones), whose
//     prompts/get is the same exchange: input_required asking for a name by form
//     elicitation (-32021 without it declared), the retry's answer giving the
//     messages.
//   - resources.subscribe is declared: a listen filter's resourceSubscriptions is
//     acknowledged with the listed URIs among them, each of which gets one tagged
//     notifications/resources/updated right after the acknowledgement (as if it
//     changed at once: observable without a trigger); resourcesListChanged is
//     honoured while resources.listChanged is declared.
//   - Log messages only when the request's _meta names a logLevel.
//   - Streamable HTTP: header checks come first (-32020), then _meta (-32602,
//     -32022), then the method (404, -32601); a request's answer is
//     application/json unless it sends a notification first (then SSE); closing the
//     stream cancels the request. Notifications are 202 and ignored. A listen stream
//     ends with its result at shutdown (graceful closure), also on stdio at EOF.
//   - A subscription the server ends itself (at shutdown, or when
//     test_end_subscription names its listen request's id) gets a completion result
//     and no notifications/cancelled: subscriptions.mdx says SHOULD send the one,
//     cancellation.mdx MUST send the other, and one message cannot be both.
//     test_end_subscription sends it before its own reply.
package refserver
