package toolkit

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// TranscriptCheck completes c (ID, Title) as a rule judged once the column settled
// (PhaseTranscript), one session's transcript at a time, in order: judge records in
// f what it judged (f.Judged) and what breaks the rule, for each session sessions
// picks (T.Sessions, or RevisionSessions when a session that settled on another
// version is not this column's). Not exercised for the reason none when nothing
// was judged; else a violation of want, or a pass that passed words with the count.
func TranscriptCheck(c conform.Check, sessions func(*conform.T) []*conform.Session, judge func(f *conform.Findings, label string, entries []wire.Entry), none, want, passed string) conform.Check {
	c.Phase = conform.PhaseTranscript
	c.Run = func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, s := range sessions(t) {
			judge(&f, s.Label, t.Transcript(s))
		}
		return f.VerdictOrNone(none, want, fmt.Sprintf(passed, f.Judged))
	}
	return c
}
