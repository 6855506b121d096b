package tasks

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Fixture is the fixture-contract tool the round trip prefers: test_slow, which
// allows task execution (execution.taskSupport "optional") and sends progress.
const Fixture = "test_slow"

// RequestedTTL is the task lifetime (ms) the suite asks for: long enough to outlive
// the round trip.
const RequestedTTL = 60000

// defaultPoll is the pause between two tasks/get when the server suggests none.
const defaultPoll = 250 * time.Millisecond

// Call is one request of the round trip and what came back.
type Call struct {
	Resp *wire.Response
	Err  error
}

// Describe says what came back.
func (c Call) Describe() string { return conform.Describe(c.Resp, c.Err) }

// Result returns the result's members, or nil for an error or silence.
func (c Call) Result() map[string]json.RawMessage {
	if c.Err != nil || c.Resp == nil || c.Resp.IsError() {
		return nil
	}
	m, err := rawjson.ObjectOfValid(c.Resp.Result)
	if err != nil {
		return nil
	}
	return m
}

// Trip is the task round trip on the main session: a task-augmented tools/call,
// tasks/result (which blocks until the task ends), tasks/get until it shows a
// terminal status, then a barrier request.
type Trip struct {
	// Skip, when set, says why no task was asked for (and nothing else is set).
	Skip *conform.Verdict
	// Tool is the tool called, TaskSupport its execution.taskSupport, Token the
	// progressToken sent with the call.
	Tool, TaskSupport string
	Token             any
	Create            Call
	// TaskID is the CreateTaskResult's task.taskId ("" when the reply had none: then
	// neither tasks/result nor tasks/get was sent).
	TaskID string
	Result Call   // tasks/result
	Polls  []Call // tasks/get, in order
	// Barrier is why the barrier request failed ("" when it was answered).
	Barrier string
}

// Declared reports whether the session's server declares tasks.requests.tools.call.
func Declared(s *conform.Session) bool {
	raw, ok := s.Capabilities()["tasks"]
	if !ok {
		return false
	}
	for _, key := range []string{"requests", "tools", "call"} {
		if raw, ok = rawjson.Lookup(raw, key); !ok {
			return false
		}
	}
	return toolkit.JSONKind(raw) == "object"
}

// TaskSupport is a listed tool's execution.taskSupport ("" when absent or not a
// string).
func TaskSupport(tl toolkit.Tool) string {
	raw, ok := tl.Fields.Lookup("execution")
	if !ok {
		return ""
	}
	return StringAt(raw, "taskSupport")
}

// RoundTrip makes the task round trip on the revision's main session once per run
// (memoized) and returns it.
func RoundTrip(t *conform.T) *Trip {
	s := t.Session()
	return t.Once("tasks.round-trip:"+s.Label, func() any { return roundTrip(t, s) }).(*Trip)
}

func roundTrip(t *conform.T, s *conform.Session) *Trip {
	if v := toolkit.SkipUndeclared(t); v != nil {
		return &Trip{Skip: v}
	}
	if !Declared(s) {
		v := conform.Skip(conform.NotApplicable, "the server declares no tasks.requests.tools.call capability: no tool may be called as a task (2025-11-25 basic/utilities/tasks.mdx, Tool-Level Negotiation)")
		return &Trip{Skip: &v}
	}
	ct, skip := pick(t)
	if skip != nil {
		return &Trip{Skip: skip}
	}
	trip := &Trip{Tool: ct.Name, TaskSupport: TaskSupport(ct.Tool), Token: toolkit.NewToken(s)}
	params := map[string]any{"name": ct.Name, "task": map[string]any{"ttl": RequestedTTL},
		"_meta": map[string]any{"progressToken": trip.Token}}
	if ct.Args != nil {
		params["arguments"] = ct.Args
	}
	trip.Create = call(t, s, "tools/call", params)
	if task, ok := trip.Create.Result()["task"]; ok {
		trip.TaskID = StringAt(task, "taskId")
	}
	if trip.TaskID != "" {
		// tasks/result blocks until the task ends (Result Retrieval): while it is
		// open the server has a channel for the task's messages on every transport.
		trip.Result = call(t, s, "tasks/result", map[string]any{"taskId": trip.TaskID})
		// Once tasks/result has answered, the task has ended: one tasks/get shows
		// it. Without an answer the task is polled until it ends.
		trip.Polls = poll(t, s, trip.TaskID, trip.Result.Resp != nil)
	}
	if err := s.Barrier(t.Ctx); err != nil {
		trip.Barrier = err.Error()
	}
	return trip
}

// pick chooses the tool to call as a task: the fixture when listed with task support,
// else the first callable tool whose execution.taskSupport is optional or required.
func pick(t *conform.T) (toolkit.CallableTool, *conform.Verdict) {
	l := toolkit.List(t)
	if v := toolkit.ListVerdict(t, l); v != nil {
		return toolkit.CallableTool{}, v
	}
	var listed []string
	var chosen *toolkit.CallableTool
	for _, ct := range toolkit.Callable(t, l) {
		if ts := TaskSupport(ct.Tool); ts == "optional" || ts == "required" {
			if chosen == nil || ct.Name == Fixture {
				c := ct
				chosen = &c
			}
		}
	}
	if chosen != nil {
		if chosen.Name == Fixture && (len(chosen.Args) == 0 || string(chosen.Args) == "{}") {
			// The fixture's untilRetrieved (refserver/doc.go): the task works
			// until tasks/result asks for its result, so it is working when
			// created and its progress travels on the open tasks/result, in an
			// order made by the requests themselves, not by a duration. ms only
			// bounds a task whose result is never asked for.
			chosen.Args = json.RawMessage(`{"ms":5000,"untilRetrieved":true}`)
		}
		return *chosen, nil
	}
	for _, tl := range l.Tools {
		if ts := TaskSupport(tl); ts == "optional" || ts == "required" {
			listed = append(listed, tl.Name)
		}
	}
	if len(listed) > 0 {
		v := toolkit.NotAllowed(fmt.Sprintf("calling one of the tools that allow task execution (%q)", listed))
		return toolkit.CallableTool{}, &v
	}
	v := conform.Skip(conform.MissingFixture, "the server declares tasks.requests.tools.call but lists no tool whose execution.taskSupport allows a task; list the fixture tool %s with execution.taskSupport \"optional\" (the fixture contract, refserver/doc.go) to exercise it", Fixture)
	if !l.Complete() {
		v = conform.Skip(conform.NotExercised, "no tool allowing task execution on the tools/list pages read (the walk ended: %s)", l.Stop)
	}
	return toolkit.CallableTool{}, &v
}

// call sends one request; an HTTP error status carrying a JSON-RPC error is that
// error, as on stdio.
func call(t *conform.T, s *conform.Session, method string, params any) Call {
	resp, err := s.Call(t.Ctx, method, params)
	if r, ok := conform.RPCErrorReply(err, method); ok {
		resp, err = r, nil
	}
	return Call{Resp: resp, Err: err}
}

// maxPolls bounds the tasks/get requests of one round trip.
const maxPolls = 20

// poll sends tasks/get until the task shows a terminal status, a tasks/get fails,
// maxPolls were sent or --timeout has passed (once: after the first); between two
// polls it waits the server's pollInterval (capped by what is left of the timeout).
func poll(t *conform.T, s *conform.Session, id string, once bool) []Call {
	deadline := time.Now().Add(t.Timeout())
	var polls []Call
	for {
		c := call(t, s, "tasks/get", map[string]any{"taskId": id})
		polls = append(polls, c)
		r := c.Result()
		if r == nil || once || len(polls) >= maxPolls || Terminal(StringAt(c.Resp.Result, "status")) {
			return polls
		}
		wait := defaultPoll
		var ms int64
		if json.Unmarshal(r["pollInterval"], &ms) == nil && ms > 0 {
			wait = time.Duration(ms) * time.Millisecond
		}
		left := time.Until(deadline)
		if left <= 0 {
			return polls
		}
		timer := time.NewTimer(min(wait, left))
		select {
		case <-t.Ctx.Done():
			timer.Stop()
			return polls
		case <-timer.C:
		}
	}
}
