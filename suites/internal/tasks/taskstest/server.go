// Package taskstest is a scripted 2025-11-25 server with tasks, for the verdict
// tables of the checks that judge the task round trip (TOOLS-CALL-TASK-R4-01,
// PROG-TASKS-R4-01).
package taskstest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// TaskID is the id of the scripted server's task.
const TaskID = "task-1"

// Script says how the scripted server deviates from a correct one. Its zero value
// is a correct server: tasks.requests.tools.call declared, test_slow with
// execution.taskSupport "optional", a CreateTaskResult in status working, tasks/result
// sending the Progress steps and then the CallToolResult with the related-task _meta,
// tasks/get then "completed".
type Script struct {
	NoCapability bool   // declare no tasks capability
	Support      string // test_slow's execution.taskSupport ("optional" when empty; "-" for none)
	NoTask       bool   // answer the task-augmented call with a CallToolResult
	CreateStatus string // the task's status in the CreateTaskResult ("working" when empty)
	// Progress are the messages tasks/result sends before its reply: "P|<token>|<n>"
	// is a progress notification with the related-task _meta ("=" as token is the
	// task-augmented call's), "Q|<token>|<n>" the same without the _meta.
	Progress []string
	After    []string // the same, sent after tasks/result's reply
	Payload  string   // tasks/result's result ("" for a text CallToolResult)
	NoMeta   bool     // leave the related-task _meta out of tasks/result's result
	Status   string   // the status tasks/get answers ("completed" when empty)
	// Lax runs a call that breaks test_slow's taskSupport (a task when it allows
	// none, none when it requires one) instead of answering -32601.
	Lax bool
}

// Server returns the scripted server.
func Server(sc Script) func() *conformtest.Server {
	return func() *conformtest.Server { return sc.server() }
}

func (sc Script) server() *conformtest.Server {
	support := `,"execution":{"taskSupport":"optional"}`
	switch sc.Support {
	case "":
	case "-":
		support = ""
	default:
		support = fmt.Sprintf(`,"execution":{"taskSupport":%q}`, sc.Support)
	}
	var token string // the task-augmented call's progressToken, raw
	srv := conformtest.ServeTools(map[string]conformtest.Tool{"test_slow": {
		Def: `{"name":"test_slow","inputSchema":{"type":"object"}` + support + `}`,
		Reply: func(req *wire.Message) []string {
			token = tokenIn(req)
			asTask := strings.Contains(string(req.Params), `"task"`)
			allows := sc.Support == "" || sc.Support == "optional" || sc.Support == "required"
			if !sc.Lax && ((asTask && !allows) || (!asTask && sc.Support == "required")) {
				return []string{conformtest.Error(req, wire.CodeMethodNotFound, "Method not found")}
			}
			if sc.NoTask || !asTask || !allows {
				return []string{conformtest.Result(req, conformtest.Content(conformtest.TextBlock))}
			}
			return []string{conformtest.Result(req, `{"task":`+task(or(sc.CreateStatus, "working"))+`}`)}
		},
	}})
	if !sc.NoCapability {
		srv.Capabilities = `{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}}`
	}
	srv.Handle("tasks/result", func(req *wire.Message) []string {
		out := progress(sc.Progress, token)
		payload := or(sc.Payload, conformtest.Content(conformtest.TextBlock))
		if !sc.NoMeta {
			payload = strings.TrimSuffix(payload, "}") + `,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + TaskID + `"}}}`
		}
		out = append(out, conformtest.Result(req, payload))
		return append(out, progress(sc.After, token)...)
	})
	srv.Handle("tasks/get", func(req *wire.Message) []string {
		return []string{conformtest.Result(req, task(or(sc.Status, "completed")))}
	})
	return srv
}

// task is a Task in a status.
func task(status string) string {
	return fmt.Sprintf(`{"taskId":%q,"status":%q,"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:01Z","ttl":60000,"pollInterval":10}`, TaskID, status)
}

// progress renders the Progress steps.
func progress(steps []string, token string) []string {
	var out []string
	for _, step := range steps {
		parts := strings.SplitN(step, "|", 3)
		tok := parts[1]
		if tok == "=" {
			tok = token
		}
		meta := `,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + TaskID + `"}}`
		if parts[0] == "Q" {
			meta = ""
		}
		out = append(out, conformtest.Notification("notifications/progress", fmt.Sprintf(`{"progressToken":%s,"progress":%s%s}`, tok, parts[2], meta)))
	}
	return out
}

// tokenIn returns the request's _meta.progressToken as sent.
func tokenIn(req *wire.Message) string {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return string(p.Meta.Token)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
