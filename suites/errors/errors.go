package errorhandling

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/modern"
)

// ERR-R5-CODES-01 — 2026-07-28/basic/index.mdx (Error Codes); schema.
var _ = conform.Register(conform.Check{
	ID: "ERR-R5-CODES-01", Title: "-32020, -32021 and -32022 are used only with their meanings: their data, and HTTP 400",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupErr, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `2026-07-28/basic/index.mdx (Error Codes): implementations "MUST use defined codes only with their specified meanings"; schema MissingRequiredClientCapabilityError: data.requiredCapabilities required; UnsupportedProtocolVersionError: data.supported and data.requested required; each "For HTTP, the response status code MUST be 400 Bad Request."`,
	Run: func(t *conform.T) conform.Verdict {
		var bad []string
		n := 0
		for _, e := range modern.Errors(t) {
			if e.Code > conform.CodeHeaderMismatch || e.Code < conform.CodeUnsupportedVersion {
				continue
			}
			n++
			if rule, p := modern.CodeProblem(e.Code, e.Data); rule == "meaning" {
				bad = append(bad, e.Where+": "+p)
			}
			switch {
			case e.HTTP:
				bad = append(bad, fmt.Sprintf("%s: %d came in a 2xx reply or stream, not with HTTP 400", e.Where, e.Code))
			case e.Status != 0 && e.Status != 400:
				bad = append(bad, fmt.Sprintf("%s: %d came with HTTP %d, not 400", e.Where, e.Code, e.Status))
			}
		}
		switch {
		case len(bad) > 0:
			return t.Violation("-32020/-32021/-32022 with their data, over HTTP with status 400", conform.JoinAtMost(bad, 3))
		case n == 0:
			return conform.Skip(reports.NotExercised, "no -32020, -32021 or -32022 error was received in this revision's sessions")
		}
		return conform.Pass("%d errors -32020…-32022, each with its data", n)
	},
})
