package base

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// BASE-SCHEMA-01 — {rev}/basic/index.mdx (Schema); schema/<rev>.
var _ = conform.Register(conform.Check{
	ID: "BASE-SCHEMA-01", Title: "every message received matches the negotiated revision's schema",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var problems conform.Findings
		var findings []conform.SchemaFinding
		total := 0
		for _, s := range t.Sessions() {
			if s.Rev.Name != t.Rev.Name {
				// A negotiation probe's session (T.Once, shared by every column)
				// spoke another revision and stands in whichever column opened
				// it first: judged here, the verdict would follow the schedule.
				continue
			}
			fs, n := s.SchemaFindings()
			total += n
			findings = append(findings, fs...)
			for _, f := range fs {
				problems.Fail(fmt.Sprintf("%s #%d %s", f.Session, f.Seq, f.Problem))
			}
		}
		if problems.Failed() && t.Rev.Before("2025-06-18") && onlyContentTypeLeaks(findings) {
			return problems.FailAsWarning("every message valid under the " + t.Rev.Name + " schema (content types outside its union: SHOULD in this revision)")
		}
		if problems.Failed() {
			return problems.Violation("every message valid under the " + t.Rev.Name + " schema")
		}
		if total == 0 {
			return conform.Skip(conform.NotExercised, "no message with a schema definition was received")
		}
		return conform.Pass("%d messages valid under the %s schema", total, t.Rev.Name)
	},
})

// contentTypePointer matches the type member of a content block of a tool result.
var contentTypePointer = regexp.MustCompile(`^/content/\d+/type$`)

// onlyContentTypeLeaks reports whether every finding is a content block whose type the
// revision's union lacks (an audio block in 2024-11-05, a resource_link before
// 2025-06-18, an unknown type): revision leakage, whose level in 2024-11-05 and
// 2025-03-26 is SHOULD.
func onlyContentTypeLeaks(findings []conform.SchemaFinding) bool {
	for _, f := range findings {
		var ve *revision.ValidationError
		if !errors.As(f.Err, &ve) || len(ve.Problems) == 0 {
			return false
		}
		for _, p := range ve.Problems {
			if !contentTypePointer.MatchString(p.Pointer) || !strings.Contains(p.Message, "is not one of") {
				return false
			}
		}
	}
	return len(findings) > 0
}
