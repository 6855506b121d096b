package prompts

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Prompt list change notifications (PROMPT-LC-*). PROMPT-LC-01 changes the prompt
// list with the trigger and expects the notification (2026-07-28: on a listen
// stream that asked for promptsListChanged); the other two judge every
// notifications/prompts/list_changed received in the revision's sessions once the
// column settled, up to 2025-11-25 (2026-07-28 delivers it on listen streams only).

// lcMethod is the notification's method.
const lcMethod = "notifications/prompts/list_changed"

// lcSeen returns every prompts list_changed received in the revision's sessions.
func lcSeen(t *conform.T) []toolkit.SessionEntry { return subscribe.NotificationsSeen(t, lcMethod) }

// PROMPT-LC-UNDECLARED-01 — {rev}/basic/lifecycle.mdx (Operation).
var _ = conform.Register(conform.Check{
	ID: "PROMPT-LC-UNDECLARED-01", Title: "prompts list_changed only from a server that declared prompts.listChanged",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		seen := lcSeen(t)
		for _, e := range seen {
			f.Judged++
			if !toolkit.CapListChanged(e.Session, "prompts") {
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

// PROMPT-LC-01 — {rev}/server/prompts.mdx (List Changed Notification).
var _ = conform.Register(conform.Check{
	ID: "PROMPT-LC-01", Title: "a change of the prompt list is announced with notifications/prompts/list_changed",
	// The trigger (the fixture tool test_trigger_tool_change, --trigger-tool,
	// --trigger-cmd) changes the tool list; the reference server's changes the
	// prompt list with it.
	Changes: conform.StateToolList,
	Run:     runListChanged,
})

func runListChanged(t *conform.T) conform.Verdict {
	requirePrompts(t)
	return subscribe.ListProbe{
		Capability: "prompts", Filter: "promptsListChanged", Method: lcMethod,
		List: "prompts/list", Key: "prompts", Params: listParams, Member: "name",
		Items: "prompt list", Noun: "prompt(s)", Judges: "PROMPT-LIST-01",
	}.Run(t)
}
