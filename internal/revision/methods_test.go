package revision

import (
	"slices"
	"testing"
)

// Every name in the method maps exists in each revision the map applies to, and the
// maps cover every method the schema's unions list.
func TestMethodMapsMatchSchemas(t *testing.T) {
	for _, r := range schemaRevisions(t) {
		t.Run(r.Name, func(t *testing.T) {
			s, err := r.set()
			if err != nil {
				t.Fatal(err)
			}
			methodOf := func(def string) string {
				d, _ := s.defs[def].(map[string]any)
				props, _ := d["properties"].(map[string]any)
				m, _ := props["method"].(map[string]any)
				c, _ := m["const"].(string)
				return c
			}

			for _, req := range r.unionMembers("ClientRequest") {
				method := methodOf(req)
				res, ok := r.ResultDefinition(method)
				if !ok {
					t.Errorf("ClientRequest %s (%q) has no result definition", req, method)
					continue
				}
				if !r.HasDefinition(res) {
					t.Errorf("%q → %s, not defined", method, res)
				}
				if resultDefs[method].request != req {
					t.Errorf("%q: map says request %s, schema says %s", method, resultDefs[method].request, req)
				}
			}
			for method, m := range resultDefs {
				if def, ok := r.ResultDefinition(method); ok && (!r.HasDefinition(def) || !r.HasDefinition(m.request)) {
					t.Errorf("%q → %s mapped but missing", method, def)
				}
			}

			for _, def := range r.unionMembers("ServerNotification") {
				method := methodOf(def)
				if got, ok := r.NotificationDefinition(method); !ok || got != def {
					t.Errorf("NotificationDefinition(%q) = %q, %v; want %s", method, got, ok, def)
				}
			}
			for method := range notificationDefs {
				if def, ok := r.NotificationDefinition(method); ok && methodOf(def) != method {
					t.Errorf("%q → %s whose method is %q", method, def, methodOf(def))
				}
			}

			for _, def := range r.unionMembers("ServerRequest") {
				method := methodOf(def)
				if got, ok := r.ServerRequestDefinition(method); !ok || got != def {
					t.Errorf("ServerRequestDefinition(%q) = %q, %v; want %s", method, got, ok, def)
				}
			}
			for method := range serverRequestDefs {
				if def, ok := r.ServerRequestDefinition(method); ok && methodOf(def) != method {
					t.Errorf("%q → %s whose method is %q", method, def, methodOf(def))
				}
			}

			for _, def := range []string{r.ErrorDefinition(), r.MessageDefinition()} {
				if !r.HasDefinition(def) {
					t.Errorf("%s not defined", def)
				}
			}
		})
	}
}

func TestMethodDefinitions(t *testing.T) {
	r5 := Revision{Name: "2026-07-28", DefsKeyword: "$defs", Dialect: Draft2020}
	revs := map[string]Revision{"R5": r5}
	for _, r := range All() {
		revs[r.Label] = r
	}
	type lookup func(Revision, string) (string, bool)
	result := Revision.ResultDefinition
	notif := Revision.NotificationDefinition
	sreq := Revision.ServerRequestDefinition
	tests := []struct {
		kind   string
		fn     lookup
		method string
		want   string   // the definition where present
		in     []string // labels of the revisions that have it
	}{
		{"result", result, "initialize", "InitializeResult", []string{"R1", "R2", "R3", "R4"}},
		{"result", result, "ping", "EmptyResult", []string{"R1", "R2", "R3", "R4"}},
		{"result", result, "tools/list", "ListToolsResult", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"result", result, "tools/call", "CallToolResult", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"result", result, "resources/list", "ListResourcesResult", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"result", result, "resources/templates/list", "ListResourceTemplatesResult", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"result", result, "resources/read", "ReadResourceResult", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"result", result, "prompts/list", "ListPromptsResult", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"result", result, "prompts/get", "GetPromptResult", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"result", result, "logging/setLevel", "EmptyResult", []string{"R1", "R2", "R3", "R4"}},
		{"result", result, "completion/complete", "CompleteResult", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"result", result, "tasks/get", "GetTaskResult", []string{"R4"}},
		{"result", result, "server/discover", "DiscoverResult", []string{"R5"}},
		{"result", result, "no/such", "", nil},
		{"notification", notif, "notifications/tools/list_changed", "ToolListChangedNotification", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"notification", notif, "notifications/progress", "ProgressNotification", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"notification", notif, "notifications/message", "LoggingMessageNotification", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"notification", notif, "notifications/cancelled", "CancelledNotification", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"notification", notif, "notifications/resources/list_changed", "ResourceListChangedNotification", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"notification", notif, "notifications/resources/updated", "ResourceUpdatedNotification", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"notification", notif, "notifications/prompts/list_changed", "PromptListChangedNotification", []string{"R1", "R2", "R3", "R4", "R5"}},
		{"notification", notif, "notifications/elicitation/complete", "ElicitationCompleteNotification", []string{"R4"}},
		{"notification", notif, "notifications/initialized", "", nil}, // client→server
		{"server request", sreq, "ping", "PingRequest", []string{"R1", "R2", "R3", "R4"}},
		{"server request", sreq, "sampling/createMessage", "CreateMessageRequest", []string{"R1", "R2", "R3", "R4"}},
		{"server request", sreq, "roots/list", "ListRootsRequest", []string{"R1", "R2", "R3", "R4"}},
		{"server request", sreq, "elicitation/create", "ElicitRequest", []string{"R3", "R4"}},
	}
	for _, tt := range tests {
		t.Run(tt.kind+" "+tt.method, func(t *testing.T) {
			for label, r := range revs {
				got, ok := tt.fn(r, tt.method)
				wantOK := slices.Contains(tt.in, label)
				if ok != wantOK || (ok && got != tt.want) {
					t.Errorf("%s (%s): got %q, %v; want %q, %v", label, r.Name, got, ok, tt.want, wantOK)
				}
				if !ok && got != "" {
					t.Errorf("%s: non-empty %q with false", label, got)
				}
			}
		})
	}

	wantErr := map[string]string{"R1": "JSONRPCError", "R2": "JSONRPCError", "R3": "JSONRPCError",
		"R4": "JSONRPCErrorResponse", "R5": "JSONRPCErrorResponse"}
	for label, r := range revs {
		if got := r.ErrorDefinition(); got != wantErr[label] {
			t.Errorf("%s ErrorDefinition = %s, want %s", label, got, wantErr[label])
		}
		if got := r.MessageDefinition(); got != "JSONRPCMessage" || !r.HasDefinition(got) {
			t.Errorf("%s MessageDefinition = %s", label, got)
		}
	}
}
