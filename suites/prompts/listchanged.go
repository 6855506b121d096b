package prompts

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Prompt list change notifications (PROMPT-LC-*): every
// notifications/prompts/list_changed received in the revision's sessions, judged
// once the column settled. 2026-07-28 delivers it on subscription streams, which
// the suite opens for tools only: these rows stop at 2025-11-25.

// lcMethod is the notification's method.
const lcMethod = "notifications/prompts/list_changed"

// lcSeen returns every prompts list_changed received in the revision's sessions.
func lcSeen(t *conform.T) []toolkit.SessionEntry {
	var out []toolkit.SessionEntry
	for _, s := range toolkit.RevisionSessions(t) {
		for _, e := range s.Conn.Received(0) {
			if e.Msg != nil && e.Msg.Method == lcMethod {
				out = append(out, toolkit.SessionEntry{Session: s, Entry: e})
			}
		}
	}
	return out
}

// PROMPT-LC-UNDECLARED-01 — {rev}/basic/lifecycle.mdx (Operation).
var _ = conform.Register(conform.Check{
	ID: "PROMPT-LC-UNDECLARED-01", Title: "prompts list_changed only from a server that declared prompts.listChanged",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		seen := lcSeen(t)
		for _, e := range seen {
			f.Judged++
			if !listChangedDeclared(e.Session) {
				f.Fail(fmt.Sprintf("%s in a session whose capabilities.prompts is %s", e.Where(), toolkit.Or(string(e.Session.Capabilities()["prompts"]), "absent")))
			}
		}
		return f.VerdictOrNone(fmt.Sprintf("no %s was received in this revision's sessions", lcMethod),
			lcMethod+" only after declaring prompts.listChanged: true",
			fmt.Sprintf("%d %s notification(s), all in sessions that declared prompts.listChanged", len(seen), lcMethod))
	},
})

// PROMPT-LC-SHAPE-01 — schema PromptListChangedNotification.
var _ = conform.Register(conform.Check{
	ID: "PROMPT-LC-SHAPE-01", Title: "prompts list_changed is a notification (no id) valid under the schema",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, e := range lcSeen(t) {
			f.Judged++
			if e.Msg.Members["id"] {
				f.Fail(fmt.Sprintf("%s carries id %s: a request, not a notification", e.Where(), e.Msg.ID))
				continue
			}
			if def, ok := e.Session.Rev.NotificationDefinition(lcMethod); ok {
				if err := e.Session.Rev.Validate(def, e.Msg.Raw); err != nil {
					f.Fail(toolkit.Problems(err, e.Where()+" "))
				}
			}
		}
		return f.VerdictOrNone(fmt.Sprintf("no %s was received in this revision's sessions", lcMethod),
			lcMethod+" as a notification valid under the "+t.Rev.Name+" schema",
			fmt.Sprintf("%d %s notification(s) valid", f.Judged, lcMethod))
	},
})
