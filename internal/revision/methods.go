package revision

import (
	"slices"
	"strings"
)

// resultDefs maps a client→server request method to the definitions of its request
// and of its result. A method exists in a revision when the schema's ClientRequest
// union lists the request definition (that is how 2026-07-28 loses initialize, ping
// and logging/setLevel).
var resultDefs = map[string]struct{ request, result string }{
	"initialize":               {"InitializeRequest", "InitializeResult"},
	"ping":                     {"PingRequest", "EmptyResult"},
	"tools/list":               {"ListToolsRequest", "ListToolsResult"},
	"tools/call":               {"CallToolRequest", "CallToolResult"},
	"resources/list":           {"ListResourcesRequest", "ListResourcesResult"},
	"resources/templates/list": {"ListResourceTemplatesRequest", "ListResourceTemplatesResult"},
	"resources/read":           {"ReadResourceRequest", "ReadResourceResult"},
	"resources/subscribe":      {"SubscribeRequest", "EmptyResult"},
	"resources/unsubscribe":    {"UnsubscribeRequest", "EmptyResult"},
	"prompts/list":             {"ListPromptsRequest", "ListPromptsResult"},
	"prompts/get":              {"GetPromptRequest", "GetPromptResult"},
	"logging/setLevel":         {"SetLevelRequest", "EmptyResult"},
	"completion/complete":      {"CompleteRequest", "CompleteResult"},
	"tasks/get":                {"GetTaskRequest", "GetTaskResult"},
	"tasks/result":             {"GetTaskPayloadRequest", "GetTaskPayloadResult"},
	"tasks/cancel":             {"CancelTaskRequest", "CancelTaskResult"},
	"tasks/list":               {"ListTasksRequest", "ListTasksResult"},
	"server/discover":          {"DiscoverRequest", "DiscoverResult"},
	"subscriptions/listen":     {"SubscriptionsListenRequest", "SubscriptionsListenResult"},
}

// notificationDefs maps a server→client notification method to its definition; it
// applies where the schema's ServerNotification union lists that definition.
var notificationDefs = map[string]string{
	"notifications/cancelled":                  "CancelledNotification",
	"notifications/progress":                   "ProgressNotification",
	"notifications/message":                    "LoggingMessageNotification",
	"notifications/tools/list_changed":         "ToolListChangedNotification",
	"notifications/resources/list_changed":     "ResourceListChangedNotification",
	"notifications/resources/updated":          "ResourceUpdatedNotification",
	"notifications/prompts/list_changed":       "PromptListChangedNotification",
	"notifications/elicitation/complete":       "ElicitationCompleteNotification",
	"notifications/tasks/status":               "TaskStatusNotification",
	"notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
}

// serverRequestDefs maps a server→client request method to its definition; it applies
// where the schema's ServerRequest union lists that definition (2026-07-28 has no
// server→client requests at all).
var serverRequestDefs = map[string]string{
	"ping":                   "PingRequest",
	"sampling/createMessage": "CreateMessageRequest",
	"roots/list":             "ListRootsRequest",
	"elicitation/create":     "ElicitRequest",
	"tasks/get":              "GetTaskRequest",
	"tasks/result":           "GetTaskPayloadRequest",
	"tasks/cancel":           "CancelTaskRequest",
	"tasks/list":             "ListTasksRequest",
}

// ResultDefinition returns the definition a successful response's result to method
// must satisfy in this revision (e.g. "tools/list" → "ListToolsResult"; "ping" →
// "EmptyResult"), or ("", false) when the revision has no such client request.
func (r Revision) ResultDefinition(method string) (string, bool) {
	m, ok := resultDefs[method]
	if !ok || !r.unionHas("ClientRequest", m.request) {
		return "", false
	}
	switch {
	case r.HasDefinition(m.result):
		return m.result, true
	case m.result == "EmptyResult" && r.HasDefinition("Result"):
		return "Result", true
	}
	return "", false
}

// NotificationDefinition returns the definition of a server→client notification
// (the whole JSON-RPC notification, e.g. "notifications/tools/list_changed" →
// "ToolListChangedNotification"), or ("", false) when the revision lacks it.
func (r Revision) NotificationDefinition(method string) (string, bool) {
	def, ok := notificationDefs[method]
	if !ok || !r.unionHas("ServerNotification", def) {
		return "", false
	}
	return def, true
}

// ServerRequestDefinition returns the definition of a server→client request (the
// whole JSON-RPC request, e.g. "sampling/createMessage" → "CreateMessageRequest"), or
// ("", false) when the revision lacks it.
func (r Revision) ServerRequestDefinition(method string) (string, bool) {
	def, ok := serverRequestDefs[method]
	if !ok || !r.unionHas("ServerRequest", def) {
		return "", false
	}
	return def, true
}

// ErrorDefinition returns the definition of a whole JSON-RPC error response:
// "JSONRPCError" up to 2025-06-18, "JSONRPCErrorResponse" from 2025-11-25 on.
func (r Revision) ErrorDefinition() string {
	if r.HasDefinition("JSONRPCErrorResponse") {
		return "JSONRPCErrorResponse"
	}
	return "JSONRPCError"
}

// MessageDefinition returns the definition of any JSON-RPC message ("JSONRPCMessage"
// in every revision).
func (r Revision) MessageDefinition() string { return "JSONRPCMessage" }

// unionHas reports whether the schema's union definition (an anyOf or oneOf of
// local $refs, like ClientRequest) lists member.
func (r Revision) unionHas(union, member string) bool {
	return slices.Contains(r.unionMembers(union), member)
}

// unionMembers returns the definition names a union definition refers to.
func (r Revision) unionMembers(union string) []string {
	s, err := r.set()
	if err != nil {
		return nil
	}
	u, ok := s.defs[union].(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for _, kw := range []string{"anyOf", "oneOf"} {
		alts, _ := u[kw].([]any)
		for _, a := range alts {
			m, _ := a.(map[string]any)
			ref, _ := m["$ref"].(string)
			if name, ok := strings.CutPrefix(ref, "#/"+s.defsKeyword+"/"); ok {
				out = append(out, unescapeToken(name))
			}
		}
	}
	return out
}
