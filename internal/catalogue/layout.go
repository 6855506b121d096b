package catalogue

import (
	"path"
	"slices"
	"strings"
)

// Group is a catalogue group: the one key that says, from a requirement ID, which
// suite package holds its check (Home) and how --list and --coverage order it.
type Group string

// The groups, in the matrix's order (Title says what each covers).
const (
	Base      Group = "BASE"
	Lifecycle Group = "LIFE"
	Modern    Group = "MOD"
	Stdio     Group = "STDIO"
	SSE       Group = "SSE"
	SHTTP     Group = "SHTTP"
	H5        Group = "H5"
	Tools     Group = "TOOLS"
	Pag       Group = "PAG"
	Err       Group = "ERR"
	Content   Group = "CONTENT"
	Struct    Group = "STRUCT"
	Notif     Group = "NOTIF"
	Util      Group = "UTIL"
	Res       Group = "RES"
	Prompt    Group = "PROMPT"
	Compl     Group = "COMPL"
	// Auth is the authorization rules of a protected server over HTTP.
	Auth Group = "AUTH"
)

// Groups is every group in the matrix's order.
var Groups = []Group{Base, Lifecycle, Modern, Stdio, SSE, SHTTP, H5, Tools, Pag, Err, Content, Struct, Notif, Util, Res, Prompt, Compl, Auth}

// Known reports whether g is one of Groups.
func (g Group) Known() bool { return slices.Contains(Groups, g) }

var groupTitles = map[Group]string{
	Base:      "JSON-RPC 2.0 base rules",
	Lifecycle: "lifecycle: initialize, version negotiation, shutdown",
	Modern:    "the 2026-07-28 stateless era: server/discover, per-request _meta, multi round-trip",
	Stdio:     "the stdio transport",
	SSE:       "the 2024-11-05 HTTP+SSE transport",
	SHTTP:     "Streamable HTTP (2025-03-26 to 2025-11-25)",
	H5:        "the 2026-07-28 HTTP transport",
	Tools:     "tools: capability, listing, definitions, calls",
	Pag:       "pagination",
	Err:       "the two error channels of a tool call",
	Content:   "content blocks of tool results",
	Struct:    "outputSchema and structuredContent",
	Notif:     "list_changed and 2026-07-28 subscriptions",
	Util:      "utilities: ping, progress, cancellation, logging",
	Res:       "resources: capability, lists, templates, reading, subscriptions",
	Prompt:    "prompts: capability, listing, prompts/get, list_changed",
	Compl:     "completion/complete for prompt arguments and resource templates",
	Auth:      "authorization of a protected server over HTTP: 401, challenge, resource metadata",
}

// Title says what the group covers, in a few words.
func (g Group) Title() string { return groupTitles[g] }

// Home is where the checks of the requirement IDs that start with Prefix are
// registered: one file of one suite package. Homes is the whole map; HomeOf takes
// the longest matching prefix, so a section of a group (TOOLS-CALL-) can have a file
// of its own beside the group's default file (TOOLS-).
type Home struct {
	Prefix string
	Group  Group
	// Dir is the package directory relative to the module root; File the file in it.
	Dir, File string
	// Section is the spec page (docs/specification/{rev}/…) the file reads like.
	Section string
}

// Path is the file's path relative to the module root.
func (h Home) Path() string { return path.Join(h.Dir, h.File) }

// Homes maps every ID prefix of the catalogue to its file. A test ties each
// registered check to HomeOf(its ID) and each row's group to its home's group.
var Homes = []Home{
	{"BASE-", Base, "suites/base", "messages.go", "basic/index.mdx (Messages)"},
	{"BASE-BATCH-", Base, "suites/base", "batch.go", "basic/index.mdx and basic/transports.mdx (batching, 2025-03-26)"},
	{"BASE-META-", Base, "suites/base", "meta.go", "basic/index.mdx (_meta)"},
	{"BASE-SCHEMA-", Base, "suites/base", "schema.go", "basic/index.mdx (Schema)"},
	{"LIFE-", Lifecycle, "suites/lifecycle", "lifecycle.go", "basic/lifecycle.mdx"},
	{"LIFE-PRE-INIT-", Lifecycle, "suites/lifecycle", "preinit.go", "basic/lifecycle.mdx (Initialization: before the handshake is complete)"},
	{"MOD-", Modern, "suites/lifecycle", "modern.go", "2026-07-28 basic/index.mdx, basic/versioning.mdx, server/discover"},
	{"MOD-MRTR-", Modern, "suites/lifecycle", "mrtr.go", "2026-07-28 basic/patterns/multi-round-trip.mdx"},
	{"STDIO-", Stdio, "suites/transports", "stdio.go", "basic/transports.mdx (stdio); 2026-07-28 basic/transports/stdio.mdx"},
	// Judged from CANCEL-INFLIGHT-01's probe, beside it.
	{"STDIO-CANCEL-", Stdio, "suites/utilities", "cancellation.go", "2026-07-28 basic/transports/stdio.mdx (Cancellation)"},
	{"SSE-", SSE, "suites/transports", "sse.go", "2024-11-05 basic/transports.mdx (HTTP with SSE)"},
	{"SHTTP-", SHTTP, "suites/transports", "endpoint.go", "basic/transports.mdx (Streamable HTTP)"},
	{"SHTTP-SESSION-", SHTTP, "suites/transports", "sessions.go", "basic/transports.mdx (Streamable HTTP: Session Management)"},
	{"SHTTP-PV-", SHTTP, "suites/transports", "sessions.go", "basic/transports.mdx (Streamable HTTP: Protocol Version Header)"},
	{"SHTTP-ENDPOINT-", SHTTP, "suites/transports", "endpoint.go", "basic/transports.mdx (Streamable HTTP: the MCP endpoint)"},
	{"SHTTP-POST-202-", SHTTP, "suites/transports", "endpoint.go", "basic/transports.mdx (Sending Messages to the Server)"},
	{"SHTTP-POST-REJECT-", SHTTP, "suites/transports", "endpoint.go", "basic/transports.mdx (Sending Messages to the Server)"},
	{"SHTTP-POST-CT-", SHTTP, "suites/transports", "endpoint.go", "basic/transports.mdx (Sending Messages to the Server)"},
	{"SHTTP-BADBODY-", SHTTP, "suites/transports", "endpoint.go", "basic/transports.mdx (Sending Messages to the Server)"},
	{"SHTTP-ORIGIN-", SHTTP, "suites/transports", "endpoint.go", "basic/transports.mdx (Security Warning)"},
	{"SHTTP-POST-SSE-", SHTTP, "suites/transports", "poststream.go", "basic/transports.mdx (Streamable HTTP: Sending Messages)"},
	{"SHTTP-GET-", SHTTP, "suites/transports", "getstream.go", "basic/transports.mdx (Streamable HTTP: Listening for Messages)"},
	{"SHTTP-NO-BROADCAST-", SHTTP, "suites/transports", "getstream.go", "basic/transports.mdx (Streamable HTTP: Multiple Connections)"},
	{"SHTTP-EVENTID-", SHTTP, "suites/transports", "resume.go", "basic/transports.mdx (Streamable HTTP: Resumability and Redelivery)"},
	{"SHTTP-RESUME-", SHTTP, "suites/transports", "resume.go", "basic/transports.mdx (Streamable HTTP: Resumability and Redelivery)"},
	{"SHTTP-DISCONNECT-", SHTTP, "suites/transports", "resume.go", "basic/transports.mdx (Streamable HTTP: Sending Messages, disconnection)"},
	{"SHTTP-PRIME-", SHTTP, "suites/transports", "resume.go", "2025-11-25 basic/transports.mdx (Sending Messages: priming events)"},
	{"SHTTP-RETRY-", SHTTP, "suites/transports", "resume.go", "2025-11-25 basic/transports.mdx (Sending Messages: polling, retry)"},
	{"H5-", H5, "suites/transports", "modernhttp.go", "2026-07-28 basic/transports/streamable-http.mdx"},
	{"H5-SSE-", H5, "suites/transports", "modernstream.go", "2026-07-28 basic/transports/streamable-http.mdx (Receiving Messages)"},
	{"H5-CANCEL-", H5, "suites/transports", "modernstream.go", "2026-07-28 basic/transports/streamable-http.mdx (Cancellation)"},
	{"H5-PARAM-", H5, "suites/transports", "modernstream.go", "2026-07-28 basic/transports/streamable-http.mdx (Custom Headers from Tool Parameters)"},
	{"TOOLS-", Tools, "suites/tools", "definitions.go", "server/tools.mdx (Tool, Tool Names)"},
	{"TOOLS-CAP-", Tools, "suites/tools", "capabilities.go", "server/tools.mdx (Capabilities)"},
	{"TOOLS-LIST-", Tools, "suites/tools", "list.go", "server/tools.mdx (Listing Tools)"},
	{"TOOLS-CALL-", Tools, "suites/tools", "call.go", "server/tools.mdx (Calling Tools, Error Handling)"},
	{"TOOLS-CALL-TASK-", Tools, "suites/tools", "tasks.go", "2025-11-25 basic/utilities/tasks.mdx (task-augmented tools/call)"},
	{"TOOLS-ICONS-", Tools, "suites/tools", "icons.go", "basic/index.mdx (Icons); server/tools.mdx"},
	{"TOOLS-INSCHEMA-", Tools, "suites/tools", "schemas.go", "server/tools.mdx (Tool: inputSchema)"},
	{"TOOLS-OUTSCHEMA-", Tools, "suites/tools", "schemas.go", "server/tools.mdx (Output Schema)"},
	{"TOOLS-XMCPHEADER-", Tools, "suites/tools", "mcpheader.go", "2026-07-28 server/tools.mdx (x-mcp-header)"},
	{"PAG-", Pag, "suites/pagination", "pagination.go", "server/utilities/pagination.mdx"},
	{"ERR-", Err, "suites/errors", "errors.go", "server/tools.mdx (Error Handling); basic/index.mdx (Error Codes)"},
	{"CONTENT-", Content, "suites/tools", "content.go", "server/tools.mdx (Tool Result: content)"},
	{"STRUCT-", Struct, "suites/tools", "structured.go", "server/tools.mdx (Structured Content, Output Schema)"},
	{"NOTIF-", Notif, "suites/notifications", "notifications.go", "basic/index.mdx (Notifications)"},
	{"NOTIF-LC-", Notif, "suites/notifications", "listchanged.go", "server/tools.mdx (List Changed Notification)"},
	{"NOTIF-LISTEN-", Notif, "suites/notifications", "listen.go", "2026-07-28 basic/patterns/subscriptions.mdx"},
	{"PING-", Util, "suites/utilities", "ping.go", "basic/utilities/ping.mdx"},
	{"PROG-", Util, "suites/utilities", "progress.go", "basic/utilities/progress.mdx"},
	{"PROG-TASKS-", Util, "suites/utilities", "progress_tasks.go", "2025-11-25 basic/utilities/progress.mdx (task-augmented requests)"},
	{"CANCEL-", Util, "suites/utilities", "cancellation.go", "basic/utilities/cancellation.mdx"},
	{"LOG-", Util, "suites/utilities", "logging.go", "server/utilities/logging.mdx"},
	{"RES-", Res, "suites/resources", "capabilities.go", "server/resources.mdx (Capabilities)"},
	{"RES-LIST-", Res, "suites/resources", "list.go", "server/resources.mdx (Listing Resources)"},
	{"RES-TPL-", Res, "suites/resources", "templates.go", "server/resources.mdx (Resource Templates)"},
	{"RES-PAG-", Res, "suites/resources", "pagination.go", "server/utilities/pagination.mdx (resource lists)"},
	{"RES-DEF-", Res, "suites/resources", "definitions.go", "server/resources.mdx (Resource, Annotations, Custom URI Schemes)"},
	{"RES-READ-", Res, "suites/resources", "read.go", "server/resources.mdx (Reading Resources, Resource Contents)"},
	{"RES-NOTFOUND-", Res, "suites/resources", "read.go", "server/resources.mdx (Error Handling)"},
	{"RES-SUB-", Res, "suites/resources", "subscribe.go", "server/resources.mdx (Subscriptions)"},
	{"RES-LC-", Res, "suites/resources", "subscribe.go", "server/resources.mdx (List Changed Notification)"},
	{"RES-R5-", Res, "suites/resources", "list.go", "2026-07-28 server/utilities/caching.mdx (resources)"},
	{"PROMPT-", Prompt, "suites/prompts", "prompts.go", "server/prompts.mdx"},
	{"PROMPT-GET-", Prompt, "suites/prompts", "get.go", "server/prompts.mdx (Getting a Prompt, Error Handling)"},
	{"PROMPT-LC-", Prompt, "suites/prompts", "listchanged.go", "server/prompts.mdx (List Changed Notification)"},
	{"COMPL-", Compl, "suites/prompts", "completion.go", "server/utilities/completion.mdx"},
	{"AUTH-", Auth, "suites/auth", "auth.go", "basic/authorization.mdx (2026-07-28: basic/authorization/)"},
}

// HomeOf returns the home of a requirement ID: the entry of Homes with the longest
// prefix of id.
func HomeOf(id string) (Home, bool) {
	best, found := Home{}, false
	for _, h := range Homes {
		if strings.HasPrefix(id, h.Prefix) && len(h.Prefix) > len(best.Prefix) {
			best, found = h, true
		}
	}
	return best, found
}

// Packages lists the suite package directories of Homes, in the groups' order.
func Packages() []string {
	var out []string
	for _, g := range Groups {
		for _, h := range Homes {
			if h.Group == g && !slices.Contains(out, h.Dir) {
				out = append(out, h.Dir)
			}
		}
	}
	return out
}
