package refserver

// The faults of the Streamable HTTP streams of 2025-03-26 to 2026-07-28 (where a
// message goes, when a stream ends, event ids and resumption: basic/transports.mdx,
// and 2026-07-28 basic/transports/streamable-http.mdx). They bite only over
// Streamable HTTP, and most only in a legacy session, so the self-test runs them
// against a fixture that serves both eras (httpDual).
const (
	faultStreamBroadcast   = "sh-stream-broadcast"
	faultResponseOnGet     = "sh-response-on-get-stream"
	faultProgressOnGet     = "sh-progress-on-get-stream"
	faultForeignProgress   = "sh-foreign-progress"
	faultStreamLingers     = "sh-stream-lingers"
	faultDisconnectCancels = "sh-disconnect-cancels"
	faultNoPriming         = "sh-no-priming"
	faultPollNoRetry       = "sh-poll-without-retry"
	faultEventIDReused     = "sh-event-id-reused"
	faultResumeReplaysAll  = "sh-resume-replays-all"
	faultR5CloseNotCancel  = "r5-close-not-cancel"
	// faultR5ParamHeaderUnchecked is in the modern catalogue (modern_faults.go).
	faultR5ParamHeaderUnchecked = "r5-param-header-unchecked"
)

// httpDual marks faults the self-test runs over Streamable HTTP against the fixture
// serving both eras (--era dual): their rules are those of legacy sessions.
const httpDual = "http-dual"

// streamFaultCatalogue is the stream faults, in the order --list-faults prints them.
var streamFaultCatalogue = []Fault{
	// At 2024-11-05, which has no Multiple Connections rule, the leak breaks
	// progress.mdx instead: PROG-TOKEN-01 (its second-session probe).
	{Name: faultStreamBroadcast, Targets: []string{"SHTTP-NO-BROADCAST-01", "PROG-TOKEN-01"}, Transport: httpDual,
		Description: "Streamable HTTP: every progress notification of a call (test_slow's aside) also goes to the GET streams of every other session"},
	{Name: faultResponseOnGet, Targets: []string{"SHTTP-GET-NORESP-01", "SHTTP-POST-SSE-RESP-01"}, Transport: httpDual,
		Description: "Streamable HTTP: a tools/call response (test_slow's aside) goes on the session's GET stream, and its POST stream ends without it"},
	{Name: faultProgressOnGet, Targets: []string{"SHTTP-GET-UNRELATED-01"}, Transport: httpDual, Masks: []string{"SHTTP-POST-SSE-RELATED-01"},
		Description: "Streamable HTTP: the progress notifications of a call (test_slow's aside) go on the session's GET stream instead of the call's stream"},
	{Name: faultForeignProgress, Targets: []string{"SHTTP-POST-SSE-RELATED-01", "H5-SSE-RELATED-01", "PROG-TOKEN-01"}, Transport: httpDual,
		Description: "Streamable HTTP: test_tool_with_progress's stream starts with a progress notification for a token no request carried"},
	{Name: faultStreamLingers, Targets: []string{"SHTTP-POST-SSE-END-01", "H5-SSE-END-01"}, Transport: httpDual,
		Description: "Streamable HTTP: a test_slow call's SSE stream stays open after its response, until the client closes it"},
	// A cancelled call sends nothing more: the resumed stream has nothing to replay.
	{Name: faultDisconnectCancels, Targets: []string{"SHTTP-DISCONNECT-01"}, Transport: httpDual, Masks: []string{"SHTTP-RESUME-01"},
		Description: "Streamable HTTP: a client that drops a call's POST stream cancels the call (recorded for test_last_cancellation)"},
	// Without an event id a stream cannot be polled: test_slow keeps its connection.
	{Name: faultNoPriming, Targets: []string{"SHTTP-PRIME-01"}, Transport: httpDual, Revisions: []string{r4}, Masks: []string{"SHTTP-RETRY-01", "SHTTP-DISCONNECT-01", "SHTTP-RESUME-01"},
		Description: "Streamable HTTP, 2025-11-25: SSE streams start without a priming event (an id and empty data)"},
	{Name: faultPollNoRetry, Targets: []string{"SHTTP-RETRY-01"}, Transport: httpDual, Revisions: []string{r4},
		Description: "Streamable HTTP, 2025-11-25: a test_slow stream's connection is closed before its response with no retry field sent"},
	{Name: faultEventIDReused, Targets: []string{"SHTTP-EVENTID-01"}, Transport: httpDual,
		Description: "Streamable HTTP: the response event of a tools/call stream reuses the id of the stream's first event"},
	{Name: faultResumeReplaysAll, Targets: []string{"SHTTP-RESUME-01"}, Transport: httpDual,
		Description: "Streamable HTTP: a GET with Last-Event-ID replays every event of the session after that id, from every stream"},
	{Name: faultR5CloseNotCancel, Targets: []string{"H5-CANCEL-CLOSE-01"}, Transport: httpDual, Revisions: []string{"2026-07-28"},
		Description: "Streamable HTTP, 2026-07-28: a request whose SSE stream the client closed is not cancelled; its work runs on"},
}
