package refserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Tasks, 2025-11-25 only (basic/utilities/tasks.mdx): the server declares
// tasks.requests.tools.call (no tasks/list, no tasks/cancel), and a tools/call with a
// task member calling a tool whose execution.taskSupport is "optional" or "required"
// (test_slow) is answered at once with a CreateTaskResult while the tool runs on. The
// task's messages (test_slow's progress, with the original progressToken and the
// related-task _meta) go to the channel of an open tasks/result request: on stdio
// that is stdout, over Streamable HTTP the tasks/result's SSE stream. Messages that
// come while no tasks/result is open wait for one; progress still waiting when the
// task ends is dropped (progress.mdx: progress stops at the task's terminal status).
// tasks/result blocks until the task ends and answers what tools/call would have
// answered, with the related-task _meta. Tasks live as long as their session.

// relatedTaskKey is the _meta key that ties a message to its task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// Task statuses the reference server uses.
const (
	taskWorking   = "working"
	taskCompleted = "completed"
	taskFailed    = "failed"
)

// taskPollInterval is the polling interval the server suggests, in milliseconds.
const taskPollInterval = 100

// taskDefaultTTL is the task's lifetime (ms) when the request asks for none.
const taskDefaultTTL = 60000

// taskMethods are the task methods the server answers in 2025-11-25 sessions only.
var taskMethods = map[string]bool{"tasks/get": true, "tasks/result": true}

// tasksCapability is the server's tasks capability: task-augmented tools/call only.
func tasksCapability() map[string]any {
	return map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
}

// task is one task-augmented tools/call.
type task struct {
	id      string
	created time.Time
	ttl     int64
	done    chan struct{} // closed when the task reached a terminal status
	// retrieved is closed when a tasks/result first opens for the task, after
	// the messages waiting for it went out (test_slow's untilRetrieved waits on it).
	retrieved chan struct{}

	mu      sync.Mutex
	status  string
	message string
	updated time.Time
	result  toolResult // the tool's result once done (rpcErr set for an error reply)
	target  sink       // the open tasks/result's channel, nil while none is open
	queue   [][]byte   // messages waiting for a tasks/result
}

// taskSupport is the tool's execution.taskSupport ("forbidden" when absent).
func (t *tool) taskSupport() string {
	if v, ok := t.execution["taskSupport"].(string); ok {
		return v
	}
	return "forbidden"
}

// taskGate applies the tool-level negotiation of 2025-11-25 (basic/utilities/tasks.mdx,
// Tool-Level Negotiation) to a tools/call: a task for a tool that does not allow one,
// or no task for a tool that requires one, is -32601. It returns nil when the call
// may go on (asTask says whether as a task).
func taskGate(t *tool, asTask bool) *rpcError {
	switch support := t.taskSupport(); {
	case asTask && support != "optional" && support != "required":
		return &rpcError{Code: wire.CodeMethodNotFound, Message: fmt.Sprintf("Method not found: tool %s cannot be called as a task (execution.taskSupport %q)", t.name, support)}
	case !asTask && support == "required":
		return &rpcError{Code: wire.CodeMethodNotFound, Message: fmt.Sprintf("Method not found: tool %s must be called as a task", t.name)}
	}
	return nil
}

// taskTTL reads the requested ttl (ms) of a task member; absent → the default.
func taskTTL(tp params) (int64, *rpcError) {
	raw, ok := tp["ttl"]
	if !ok {
		return taskDefaultTTL, nil
	}
	var ttl int64
	if jsonKind(raw) != "number" || json.Unmarshal(raw, &ttl) != nil || ttl < 0 {
		return 0, errInvalidParams("task.ttl must be a non-negative integer of milliseconds")
	}
	return ttl, nil
}

// startTask creates a task for a tools/call and runs the tool off the reader's
// goroutine; the reply is the CreateTaskResult.
func (s *session) startTask(t *tool, tc *toolCall, rawArgs json.RawMessage, tp params, direct sink) outcome {
	ttl, e := taskTTL(tp)
	if e != nil {
		return fail(e)
	}
	id, err := newSessionID() // 256 random bits: task ids must not be guessable
	if err != nil {
		return fail(errInternal(err))
	}
	now := time.Now().UTC()
	tk := &task{id: id, created: now, ttl: ttl, done: make(chan struct{}), retrieved: make(chan struct{}), status: taskWorking, updated: now}
	s.mu.Lock()
	if s.tasks == nil {
		s.tasks = map[string]*task{}
	}
	s.tasks[id] = tk
	s.mu.Unlock()
	tc.ctx, tc.out, tc.retrieved = s.ctx, tk, tk.retrieved
	if s.cfg.faults.on(faultTaskProgressToken) && tc.progressToken != nil {
		tc.progressToken = mustMarshal("task-" + id[:8]) // a token the request did not carry
	}
	if s.cfg.faults.on(faultTaskCreatedDone) {
		// The fault: the work is done before the task is created, which then begins
		// in a terminal status.
		tc.out, tc.retrieved = guardedSink{ctx: s.ctx, out: direct}, nil // no task yet to retrieve
		tk.finish(t.call(tc, rawArgs))
		return respond(map[string]any{"task": tk.snapshot()})
	}
	if !s.goTracked(func() { tk.finish(t.call(tc, rawArgs)) }) {
		return fail(errInternal(errSessionClosed))
	}
	return respond(map[string]any{"task": tk.snapshot()})
}

// finish records the tool's result and the task's terminal status. Messages still
// waiting for a tasks/result are dropped: they would come after the task's end.
func (tk *task) finish(r toolResult) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.result, tk.updated, tk.queue = r, time.Now().UTC(), nil
	switch {
	case r.rpcErr != nil:
		tk.status, tk.message = taskFailed, "The tool call failed: "+r.rpcErr.Message
	case r.isError:
		tk.status, tk.message = taskFailed, "The tool reported an error (isError: true)."
	default:
		tk.status = taskCompleted
	}
	close(tk.done)
}

// snapshot is the Task as tasks/get and CreateTaskResult carry it.
func (tk *task) snapshot() map[string]any {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	t := map[string]any{
		"taskId":        tk.id,
		"status":        tk.status,
		"createdAt":     tk.created.Format(time.RFC3339Nano),
		"lastUpdatedAt": tk.updated.Format(time.RFC3339Nano),
		"ttl":           tk.ttl,
		"pollInterval":  taskPollInterval,
	}
	if tk.message != "" {
		t["statusMessage"] = tk.message
	}
	return t
}

// send is the task's channel for its messages (task implements sink): each gets the
// related-task _meta and goes to the open tasks/result, or waits for one.
func (tk *task) send(msg []byte) error {
	msg = withRelatedTask(msg, tk.id)
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.status != taskWorking {
		return errors.New("the task has ended")
	}
	if tk.target == nil {
		tk.queue = append(tk.queue, msg)
		return nil
	}
	return tk.target.send(msg)
}

// attach makes out the channel of the task's messages and sends those waiting.
func (tk *task) attach(out sink) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.target = out
	for _, m := range tk.queue {
		_ = out.send(m)
	}
	tk.queue = nil
	select {
	case <-tk.retrieved:
	default:
		close(tk.retrieved)
	}
}

// detach closes the channel out, when it is still the task's.
func (tk *task) detach(out sink) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.target == out {
		tk.target = nil
	}
}

// withRelatedTask adds params._meta[relatedTaskKey] to a notification or request
// (2025-11-25 basic/utilities/tasks.mdx, Associating Task-Related Messages).
func withRelatedTask(msg []byte, id string) []byte {
	var env map[string]json.RawMessage
	if json.Unmarshal(msg, &env) != nil || env["method"] == nil {
		return msg
	}
	var p map[string]any
	if json.Unmarshal(env["params"], &p) != nil || p == nil {
		p = map[string]any{}
	}
	meta, _ := p["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[relatedTaskKey] = map[string]any{"taskId": id}
	p["_meta"] = meta
	env["params"] = mustMarshal(p)
	return mustMarshal(env)
}

// taskOf finds the task named by a tasks/* request's taskId (unknown → -32602).
func (s *session) taskOf(rq *request) (*task, *rpcError) {
	p, e := paramsObject(rq.params)
	if e != nil {
		return nil, e
	}
	id, e := p.reqString("taskId")
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	tk := s.tasks[id]
	s.mu.Unlock()
	if tk == nil {
		return nil, errInvalidParams("Failed to retrieve task: Task not found")
	}
	return tk, nil
}

// handleTasksGet answers tasks/get with the task's state.
func handleTasksGet(s *session, rq *request) outcome {
	tk, e := s.taskOf(rq)
	if e != nil {
		return fail(e)
	}
	return respond(tk.snapshot())
}

// handleTasksResult answers tasks/result once the task has ended (it blocks while the
// task works), meanwhile carrying the task's messages on its own channel.
func handleTasksResult(s *session, rq *request) outcome {
	tk, e := s.taskOf(rq)
	if e != nil {
		return fail(e)
	}
	return outcome{async: func(ctx context.Context) outcome {
		out := &guardedSink{ctx: ctx, out: rq.out} // a pointer: detach compares it
		tk.attach(out)
		defer tk.detach(out)
		select {
		case <-tk.done:
		case <-ctx.Done():
			return fail(errInternal(fmt.Errorf("tasks/result: %w", ctx.Err())))
		}
		tk.mu.Lock()
		r := tk.result
		tk.mu.Unlock()
		if r.rpcErr != nil {
			return fail(r.rpcErr) // exactly the error tools/call would have returned
		}
		if !s.cfg.faults.on(faultTaskResultNoMeta) {
			r.members = maps.Clone(r.members)
			if r.members == nil {
				r.members = map[string]any{}
			}
			r.members["_meta"] = map[string]any{relatedTaskKey: map[string]any{"taskId": tk.id}}
		}
		return respond(r)
	}}
}

// tasksServed reports whether the session's revision has tasks (2025-11-25).
func tasksServed(rev revision.Revision) bool { return rev.Has(revision.Tasks) }
