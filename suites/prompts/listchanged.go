package prompts

import (
	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
)

// Prompt list change notifications (PROMPT-LC-*). PROMPT-LC-01 changes the prompt
// list with the trigger and expects the notification (2026-07-28: on a listen
// stream that asked for promptsListChanged); the other two judge every
// notifications/prompts/list_changed received in the revision's sessions once the
// column settled, up to 2025-11-25 (2026-07-28 delivers it on listen streams only).

// lcMethod is the notification's method.
const lcMethod = "notifications/prompts/list_changed"

// PROMPT-LC-UNDECLARED-01 — {rev}/basic/lifecycle.mdx (Operation).
var _ = conform.Register(subscribe.UndeclaredCheck(conform.Check{
	ID: "PROMPT-LC-UNDECLARED-01", Title: "prompts list_changed only from a server that declared prompts.listChanged",
}, "prompts", lcMethod))

// PROMPT-LC-SHAPE-01 — schema PromptListChangedNotification.
var _ = conform.Register(subscribe.ShapeCheck(conform.Check{
	ID: "PROMPT-LC-SHAPE-01", Title: "prompts list_changed is a notification (no id) valid under the schema",
}, lcMethod))

// PROMPT-LC-01 — {rev}/server/prompts.mdx (List Changed Notification). The trigger
// (the fixture tool test_trigger_tool_change, --trigger-tool, --trigger-cmd) changes
// the tool list; the reference server's changes the prompt list with it.
var _ = conform.Register(subscribe.ListProbe{
	Capability: "prompts", Filter: "promptsListChanged", Method: lcMethod,
	List: "prompts/list", Key: "prompts", Params: listParams, Member: "name",
	Items: "prompt list", Noun: "prompt(s)", Judges: "PROMPT-LIST-01",
}.Check(conform.Check{
	ID: "PROMPT-LC-01", Title: "a change of the prompt list is announced with notifications/prompts/list_changed",
}, requirePrompts))
