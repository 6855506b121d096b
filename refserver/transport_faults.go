package refserver

// The faults of the legacy HTTP transports: Streamable HTTP as 2025-03-26 to
// 2025-11-25 define it (sessions, the version header, what a POST is answered with,
// Origin) and the 2024-11-05 HTTP+SSE transport. Each bites only over its transport,
// so the self-test runs it against a fixture serving that transport (Fault.Transport).

// The transports a fault can name besides stdio (Fault.Transport).
const (
	// transportLegacyHTTP is Streamable HTTP served by a fixture of the legacy era
	// only (`--transport http --era legacy`): the session rules bind there.
	transportLegacyHTTP = "http-legacy"
	// transportSSE is the 2024-11-05 HTTP+SSE transport (`--transport sse`).
	transportSSE = "sse"
)

// The fault names.
const (
	faultSHTTPSessionIDChanges = "shttp-session-id-changes"
	faultSHTTPSessionIDSpace   = "shttp-session-id-space"
	faultSHTTPSessionIDCounter = "shttp-session-id-counter"
	faultSHTTPMissingID404     = "shttp-missing-session-404"
	faultSHTTPDeleteKeeps      = "shttp-delete-keeps-session"
	faultSHTTPDelete400        = "shttp-delete-400"
	faultSHTTPReinitRefused    = "shttp-reinit-refused"
	faultSHTTPVersionUnchecked = "shttp-version-unchecked"
	faultSHTTPVersionRequired  = "shttp-version-required"
	faultSHTTPGet404           = "shttp-get-404"
	faultSHTTPNotification200  = "shttp-notification-200"
	faultSHTTPBadNotifAccepted = "shttp-bad-notification-accepted"
	faultSHTTPBadBody200       = "shttp-bad-body-200"
	faultSHTTPReplyTextPlain   = "shttp-reply-text-plain"
	faultSHTTPOriginUnchecked  = "shttp-origin-unchecked"
	faultSHTTPOrigin400        = "shttp-origin-400"
	faultSSEOriginUnchecked    = "sse-origin-unchecked"
	faultSSEResponseEventNamed = "sse-response-event-named"
	faultSSEEndpointNotFirst   = "sse-endpoint-not-first"
	faultSSEPostRefused        = "sse-post-refused"
)

// sseRevisions are every revision an HTTP+SSE fixture serves: a fault that keeps
// every session from opening takes all their columns down.
var sseRevisions = []string{r1, r2, r3, r4}

// legacyHTTPRevisions are the revisions of the Streamable HTTP rows.
var legacyHTTPRevisions = []string{r2, r3, r4}

// transportFaultCatalogue lists the faults of the legacy HTTP transports.
var transportFaultCatalogue = []Fault{
	{Name: faultSHTTPSessionIDChanges, Targets: []string{"SHTTP-SESSION-ASSIGN-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: every reply within a session carries a fresh Mcp-Session-Id, not the one assigned at initialize"},
	{Name: faultSHTTPSessionIDSpace, Targets: []string{"SHTTP-SESSION-CHARS-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: `Streamable HTTP: session ids contain a space ("mcp session-…"), which is not visible ASCII`},
	{Name: faultSHTTPSessionIDCounter, Targets: []string{"SHTTP-SESSION-SECURE-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: session ids are a counter (mcp-session-00000000000000000001, …)"},
	{Name: faultSHTTPMissingID404, Targets: []string{"SHTTP-SESSION-MISSING-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: a request without Mcp-Session-Id is answered 404 instead of 400"},
	{Name: faultSHTTPDeleteKeeps, Targets: []string{"SHTTP-SESSION-404-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: DELETE is answered 200 and ends the session's GET streams, but the session goes on serving requests"},
	{Name: faultSHTTPDelete400, Targets: []string{"SHTTP-SESSION-DELETE-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: DELETE is answered 400 (neither ending the session nor 405)"},
	{Name: faultSHTTPReinitRefused, Targets: []string{"SHTTP-SESSION-REINIT-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: an initialize without Mcp-Session-Id on a connection that carried a session's requests is refused with 400"},
	{Name: faultSHTTPVersionUnchecked, Targets: []string{"SHTTP-PV-HEADER-BAD-01"}, Revisions: []string{r3, r4}, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: an invalid or unsupported MCP-Protocol-Version header is ignored"},
	{Name: faultSHTTPVersionRequired, Targets: []string{"SHTTP-PV-HEADER-MISSING-01"}, Revisions: []string{r3, r4}, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: a request of a 2025-06-18+ session without MCP-Protocol-Version is refused with 400"},
	// Without a GET stream the stream rows have nothing to judge, and nothing to
	// resume from (the resumption GET is answered 404 too).
	{Name: faultSHTTPGet404, Targets: []string{"SHTTP-ENDPOINT-01", "SHTTP-GET-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Masks:       []string{"SHTTP-GET-NORESP-01", "SHTTP-GET-UNRELATED-01", "SHTTP-NO-BROADCAST-01", "SHTTP-DISCONNECT-01", "SHTTP-RESUME-01"},
		Description: "Streamable HTTP: GET of the MCP endpoint is answered 404"},
	// A batch of notifications (2025-03-26) is "solely notifications" too.
	{Name: faultSHTTPNotification200, Targets: []string{"SHTTP-POST-202-01", "BASE-BATCH-R2-02"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: an accepted notification or response is answered 200 instead of 202"},
	{Name: faultSHTTPBadNotifAccepted, Targets: []string{"SHTTP-POST-REJECT-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: `Streamable HTTP: a message without an id that is no valid notification ({"jsonrpc":"2.0","method":5}) is answered 202`},
	{Name: faultSHTTPBadBody200, Targets: []string{"SHTTP-BADBODY-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: an unparseable POST body is answered 200 (with the -32700 error) instead of 400"},
	{Name: faultSHTTPReplyTextPlain, Targets: []string{"SHTTP-POST-CT-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: JSON replies to requests in a session are labelled Content-Type: text/plain"},
	{Name: faultSHTTPOriginUnchecked, Targets: []string{"SHTTP-ORIGIN-01", "SHTTP-ORIGIN-403-01"}, Revisions: legacyHTTPRevisions, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: a legacy request is served whatever its Origin"},
	{Name: faultSHTTPOrigin400, Targets: []string{"SHTTP-ORIGIN-403-01"}, Revisions: []string{r4}, Transport: transportLegacyHTTP,
		Description: "Streamable HTTP: a foreign Origin is refused with 400 instead of 403"},
	{Name: faultSSEOriginUnchecked, Targets: []string{"SSE-ORIGIN-01"}, Revisions: []string{r1}, Transport: transportSSE,
		Description: "HTTP+SSE: event streams and POSTs are served whatever their Origin"},
	{Name: faultSSEResponseEventNamed, Targets: []string{"SSE-MESSAGE-EVENT-01"}, Revisions: []string{r1}, Transport: transportSSE,
		Description: `HTTP+SSE: every response is sent a second time as an event named "response"`},
	// No session opens: every legacy column is lost, and SSE-ENDPOINT-EVENT-01 (an
	// opening check) is the one verdict the run can give about why.
	{Name: faultSSEEndpointNotFirst, Targets: []string{"SSE-ENDPOINT-EVENT-01"}, Revisions: sseRevisions, Transport: transportSSE,
		Description: "HTTP+SSE: the event stream starts with a message event (a log notification), and the endpoint event comes second"},
	{Name: faultSSEPostRefused, Targets: []string{"SSE-POST-01"}, Revisions: sseRevisions, Transport: transportSSE,
		Description: "HTTP+SSE: the endpoint the endpoint event names answers every POSTed message 405 Method Not Allowed"},
}
