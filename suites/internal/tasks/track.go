// Package tasks is what the checks of 2025-11-25's task-augmented tools/call share
// (TOOLS-CALL-TASK-R4-01 in suites/tools; PROG-TASKS-R4-01 and the PROG-* checks in
// suites/utilities; SeenCalls in suites/internal/toolcall): the tasks a transcript
// shows, from their creation to the first sign of their end (Track), and the one task
// round trip the suite makes on the main session (RoundTrip).
package tasks

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// RelatedTaskKey is the _meta key that ties a message to its task (2025-11-25
// basic/utilities/tasks.mdx, Related Task Metadata).
const RelatedTaskKey = "io.modelcontextprotocol/related-task"

// Terminal reports whether a task status is terminal (completed, failed, cancelled).
func Terminal(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// Task is one task the server created in answer to a request of a transcript.
type Task struct {
	ID      string
	Request *wire.Entry // the task-augmented request
	Created *wire.Entry // its reply, a CreateTaskResult
	// End is the first message received that shows the task in a terminal status:
	// the CreateTaskResult itself, a tasks/get reply, notifications/tasks/status, or
	// the reply to tasks/result (which blocks until the task ends). Nil while none
	// came. EndHow says which.
	End    *wire.Entry
	EndHow string
}

// Tracking is the tasks of one transcript.
type Tracking struct {
	Tasks []*Task
	// ByRequest finds a task by its creating request's id (wire.ID.Key).
	ByRequest map[string]*Task
	// ByID finds a task by its task id.
	ByID map[string]*Task
	// Payloads finds, by a tasks/result request's id (wire.ID.Key), the task whose
	// result it asked for.
	Payloads map[string]*Task
}

// Track reads a transcript for tasks: a request sent with params.task whose reply is
// a result with a task.taskId created one.
func Track(entries []wire.Entry) *Tracking {
	tr := &Tracking{ByRequest: map[string]*Task{}, ByID: map[string]*Task{}, Payloads: map[string]*Task{}}
	augmented := map[string]*wire.Entry{}      // task-augmented requests by id
	asking := map[string]*Task{}               // tasks/get and tasks/result requests by id
	looseAugmented := map[string]*wire.Entry{} // by wire.ID.LooseKey, for a retyped reply id
	for i := range entries {
		e := &entries[i]
		m := e.Msg
		if m == nil {
			continue
		}
		switch {
		case e.Dir == wire.Sent && m.Kind == wire.KindRequest:
			if _, ok := rawjson.Lookup(m.Params, "task"); ok {
				augmented[m.ID.Key()], looseAugmented[m.ID.LooseKey()] = e, e
			}
			if m.Method == "tasks/get" || m.Method == "tasks/result" {
				if tk := tr.ByID[StringAt(m.Params, "taskId")]; tk != nil {
					asking[m.ID.Key()] = tk
					if m.Method == "tasks/result" {
						tr.Payloads[m.ID.Key()] = tk
					}
				}
			}
		case e.Dir == wire.Received && m.IsResponse():
			if req := augmented[m.ID.Key()]; req != nil || (e.LooseID && looseAugmented[m.ID.LooseKey()] != nil) {
				if req == nil {
					req = looseAugmented[m.ID.LooseKey()]
				}
				tr.created(req, e)
				continue
			}
			tk := asking[m.ID.Key()]
			if tk == nil {
				continue
			}
			switch e.ForMethod {
			case "tasks/result":
				tk.ended(e, "the reply to tasks/result")
			case "tasks/get":
				if st := StringAt(m.Result, "status"); Terminal(st) {
					tk.ended(e, "tasks/get status "+st)
				}
			}
		case e.Dir == wire.Received && m.Method == "notifications/tasks/status":
			if tk := tr.ByID[StringAt(m.Params, "taskId")]; tk != nil {
				if st := StringAt(m.Params, "status"); Terminal(st) {
					tk.ended(e, "notifications/tasks/status "+st)
				}
			}
		}
	}
	return tr
}

// created records the task of a CreateTaskResult (a reply without task.taskId, or
// an error, created none).
func (tr *Tracking) created(req, reply *wire.Entry) {
	if reply.Msg.Kind != wire.KindResult {
		return
	}
	task, ok := rawjson.Lookup(reply.Msg.Result, "task")
	if !ok {
		return
	}
	id := StringAt(task, "taskId")
	if id == "" || tr.ByID[id] != nil {
		return
	}
	tk := &Task{ID: id, Request: req, Created: reply}
	if st := StringAt(task, "status"); Terminal(st) {
		tk.ended(reply, "the CreateTaskResult, status "+st)
	}
	tr.Tasks = append(tr.Tasks, tk)
	tr.ByRequest[req.Msg.ID.Key()] = tk
	tr.ByID[id] = tk
}

// ended records the first sign of the task's end.
func (tk *Task) ended(e *wire.Entry, how string) {
	if tk.End == nil {
		tk.End, tk.EndHow = e, how
	}
}

// Describe names the task's end for messages.
func (tk *Task) Describe() string {
	if tk.End == nil {
		return fmt.Sprintf("task %s (no end seen)", tk.ID)
	}
	return fmt.Sprintf("task %s (ended at #%d: %s)", tk.ID, tk.End.Seq, tk.EndHow)
}

// RelatedTask returns the task id a message's params._meta (or, for a result, its
// _meta) names under RelatedTaskKey, or "".
func RelatedTask(m *wire.Message) string {
	holder := m.Params
	if m.Kind == wire.KindResult {
		holder = m.Result
	}
	meta, ok := rawjson.Lookup(holder, "_meta")
	if !ok {
		return ""
	}
	rel, ok := rawjson.Lookup(meta, RelatedTaskKey)
	if !ok {
		return ""
	}
	return StringAt(rel, "taskId")
}

// StringAt returns a JSON object's string member, or "" (absent or another type).
func StringAt(obj json.RawMessage, name string) string {
	raw, ok := rawjson.Lookup(obj, name)
	if !ok {
		return ""
	}
	var v string
	_ = json.Unmarshal(raw, &v)
	return v
}
