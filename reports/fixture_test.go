package reports

import (
	"encoding/json"
	"time"
)

// Messages a hostile or broken server might produce.
const (
	// garbageMsg holds XML/Markdown metacharacters, a NUL byte and invalid UTF-8.
	garbageMsg = "got <result> & \"quotes\" | pipe\x00 nul \xff\xfe bytes"
	// garbageXML is garbageMsg as XML can carry it: NUL gone, bad bytes U+FFFD.
	garbageXML = "got <result> & \"quotes\" | pipe nul \uFFFD\uFFFD bytes"
	// garbageJSON is garbageMsg after a JSON round trip: bad bytes U+FFFD, NUL kept.
	garbageJSON = "got <result> & \"quotes\" | pipe\x00 nul \uFFFD\uFFFD bytes"
)

// fixture is a two-column report covering every verdict: 2025-06-18 negotiated as
// asked, and 2024-11-05 unsupported (the server answered 2025-03-26). Some checks are
// in one column only.
func fixture() *Report {
	r := &Report{
		Target:     "stdio:./server --flag <x>",
		Tool:       "mcp-conform 0.1.0",
		StartedAt:  time.Date(2026, 3, 1, 12, 30, 45, 123_000_000, time.UTC),
		DurationMs: 4321,
		ExitCode:   1,
		Notes:      []string{"no --target given: using the bundled reference server"},
		Revisions: []RevisionReport{
			{
				Revision:   "2025-06-18",
				Negotiated: "2025-06-18",
				Era:        "legacy",
				Transport:  "stdio",
				ServerInfo: json.RawMessage(`{"name":"ref","version":"1.0"}`),
				Checks: []CheckResult{
					{ID: "INIT-01", Title: "initialize succeeds", Level: "MUST", Status: Pass,
						Message: "note: fine", Source: "lifecycle: the server MUST respond", Duration: 12 * time.Millisecond},
					{ID: "TOOLS-LIST-01", Title: "tools/list | paginates", Level: "SHOULD", Status: Warn,
						Message: "expected nextCursor; got none", Expected: "nextCursor", Actual: "none",
						Source: "tools: servers SHOULD paginate", Duration: 250 * time.Millisecond},
					{ID: "TOOLS-CALL-UNKNOWN-01", Title: "unknown tool is an error", Level: "MUST", Status: Fail,
						Message: garbageMsg, Expected: "error -32602", Actual: "a result <ok> & more",
						Source: "tools: \"Servers MUST return -32602 for unknown tools\"", Duration: 1500 * time.Millisecond},
					{ID: "PING-01", Title: "ping answers", Level: "MUST", Status: Error,
						Message: "timeout after 5s", Source: "utilities: ping MUST be answered", Duration: 5 * time.Second},
					{ID: "PROMPTS-GET-01", Title: "prompts/get returns messages", Level: "MUST", Status: Skip,
						Reason: NeedsFixture, Message: "no prompt fixture configured"},
				},
			},
			{
				Revision:    "2024-11-05",
				Negotiated:  "2025-03-26",
				Era:         "legacy",
				Transport:   "stdio",
				Unsupported: true,
				Checks: []CheckResult{
					{ID: "INIT-01", Title: "initialize succeeds", Level: "MUST", Status: Skip,
						Reason: RevisionUnsupported, Message: "server answered 2025-03-26"},
					{ID: "TOOLS-LIST-01", Title: "tools/list | paginates", Level: "SHOULD", Status: Skip,
						Reason: RevisionUnsupported, Message: "server answered 2025-03-26"},
					{ID: "SSE-ENDPOINT-01", Title: "HTTP+SSE sends the endpoint event", Level: "MUST", Status: Skip,
						Reason: RevisionUnsupported, Message: "server answered 2025-03-26"},
				},
			},
		},
	}
	r.Summarize()
	return r
}

// SampleReport is fixture for the external tests of this package.
var SampleReport = fixture
