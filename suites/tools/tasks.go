package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/tasks"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// TOOLS-CALL-TASK-R4-01 — 2025-11-25 basic/utilities/tasks.mdx (Creating Tasks,
// Result Retrieval, Task Status Lifecycle, Related Task Metadata); server/tools.mdx
// (execution.taskSupport).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-TASK-R4-01", Title: "a tool that allows tasks, called as a task, is created working, and tasks/result answers its CallToolResult once it ended",
	Probe: func(t *conform.T) { tasks.RoundTrip(t) },
	Run: func(t *conform.T) conform.Verdict {
		return judgeTaskTrip(t.Rev, tasks.RoundTrip(t))
	},
})

// judgeTaskTrip judges the task round trip.
func judgeTaskTrip(rev revision.Revision, trip *tasks.Trip) conform.Verdict {
	if trip.Skip != nil {
		return *trip.Skip
	}
	what := fmt.Sprintf("%q (execution.taskSupport %q) called as a task", trip.Tool, trip.TaskSupport)
	created := trip.Create
	switch {
	case created.Err != nil:
		return conform.Silence("a CreateTaskResult for "+what, created.Err)
	case created.Resp.IsError():
		return conform.Violation("a CreateTaskResult for "+what+" (the server declares tasks.requests.tools.call)", created.Describe())
	}
	var f conform.Findings
	f.Judged = 1
	task, hasTask := created.Result()["task"]
	if !hasTask {
		// A server that declares the capability and the tool's support yet runs the
		// call as a normal request: no MUST names this case, the flow of Creating
		// Tasks expects a task.
		f.Warn(fmt.Sprintf("%s was answered without a task (%s): the server declares tasks.requests.tools.call, yet processed the call as a normal request", what, conform.ClipBytes(created.Resp.Result, 160)))
		return f.Verdict("", "a CreateTaskResult (Creating Tasks: \"The server accepts the request and immediately returns a CreateTaskResult\")", "")
	}
	if trip.TaskID == "" {
		f.Fail(fmt.Sprintf("the CreateTaskResult has no string task.taskId: %s", conform.ClipBytes(task, 160)))
		return f.Verdict("a CreateTaskResult whose task has a taskId", "", "")
	}
	if st := tasks.StringAt(task, "status"); st != "working" {
		f.Fail(fmt.Sprintf("the task was created in status %s, not \"working\" (Task Status Lifecycle: \"Tasks MUST begin in the working status when created.\")", orAbsent(st)))
	}
	final := judgePolls(&f, trip)
	judgeTaskResult(&f, rev, trip, final)
	return f.Verdict("the task created working, tasks/result blocking until it ended and answering a CallToolResult with the related-task _meta", "",
		fmt.Sprintf("%s: CreateTaskResult working; tasks/result a CallToolResult with the related-task _meta; tasks/get then %s", what, orAbsent(final)))
}

// judgePolls judges the tasks/get replies after tasks/result and returns the last
// status seen.
func judgePolls(f *conform.Findings, trip *tasks.Trip) string {
	var last string
	for i, p := range trip.Polls {
		r := p.Result()
		if r == nil {
			f.Fail(fmt.Sprintf("tasks/get for the task it created answered %s", p.Describe()))
			return last
		}
		if id := tasks.StringAt(p.Resp.Result, "taskId"); id != trip.TaskID {
			f.Fail(fmt.Sprintf("tasks/get for task %q answered task %s", trip.TaskID, orAbsent(id)))
		}
		last = tasks.StringAt(p.Resp.Result, "status")
		if i == 0 && trip.Result.Resp != nil && !tasks.Terminal(last) {
			f.Fail(fmt.Sprintf("tasks/result answered while the task was still %s (Result Retrieval: it \"MUST block the response until the task reaches a terminal status\")", orAbsent(last)))
		}
	}
	if !tasks.Terminal(last) && len(f.Fails()) == 0 {
		f.Fail(fmt.Sprintf("tasks/get showed no terminal status (last: %s)", orAbsent(last)))
	}
	return last
}

// judgeTaskResult judges the reply to tasks/result: the tool's CallToolResult (or the
// JSON-RPC error of a failed task) carrying the related-task _meta.
func judgeTaskResult(f *conform.Findings, rev revision.Revision, trip *tasks.Trip, final string) {
	res := trip.Result
	switch {
	case res.Err != nil:
		f.Fail("tasks/result got no reply: " + res.Describe())
		return
	case res.Resp.IsError():
		if final == "failed" || final == "cancelled" {
			f.Note(fmt.Sprintf("the task ended %q and tasks/result answered its JSON-RPC error %s", final, res.Describe()))
			return
		}
		f.Fail(fmt.Sprintf("tasks/result answered %s for a task that ended %s", res.Describe(), orAbsent(final)))
		return
	}
	if err := rev.Validate("CallToolResult", json.RawMessage(res.Resp.Result)); err != nil {
		f.Fail(fmt.Sprintf("tasks/result's result is no CallToolResult (the tool call's result type): %v", err))
	}
	if id := tasks.RelatedTask(res.Resp.Msg); id != trip.TaskID {
		f.Fail(fmt.Sprintf("tasks/result's result carries _meta[%q].taskId %s, not the task's id (Related Task Metadata: \"The tasks/result operation MUST include this metadata in its response\")", tasks.RelatedTaskKey, orAbsent(id)))
	}
	var isErr bool
	_ = json.Unmarshal(res.Result()["isError"], &isErr)
	switch {
	case isErr && final == "completed":
		f.Note("the tool's result is isError:true, yet the task ended completed (Task Execution Errors: such a task \"should reach failed status\")")
	case !isErr && final == "failed":
		f.Note("the task ended failed, yet tasks/result answered a successful CallToolResult")
	}
}

// orAbsent quotes a status or id for messages, or says it was absent.
func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return fmt.Sprintf("%q", s)
}

// TOOLS-CALL-TASK-NEG-R4-01 — 2025-11-25 basic/utilities/tasks.mdx (Tool-Level
// Negotiation, rule 2). The probes break a client MUST NOT on purpose (a task for a
// tool that does not allow one, no task for a tool that requires one), so the check
// runs with the odd input.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-TASK-NEG-R4-01", Title: "a task for a tool without task support, or no task for a tool that requires one, is -32601",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		return judgeTaskNegotiation(taskNegotiationProbes(t))
	},
})

// taskNegProbes are the two probes of TOOLS-CALL-TASK-NEG-R4-01.
type taskNegProbes struct {
	// forbidden is a task-augmented call to a tool whose taskSupport is absent or
	// "forbidden"; required a call without a task to a tool that requires one. Label
	// "" when the server lists no callable tool of the kind.
	forbidden, required toolcall.Probe
}

// taskNegFixture is the fixture tool the forbidden probe prefers: it has no
// execution member and no side effect.
const taskNegFixture = "test_simple_text"

// taskNegotiationProbes makes the two probes, or ends the check with why none was
// made.
func taskNegotiationProbes(t *conform.T) taskNegProbes {
	toolkit.RequireTools(t)
	s, err := t.Scratch()
	if err != nil {
		t.ErrorNow("%v", err)
	}
	if !tasks.Declared(s) {
		t.SkipNow(conform.NotApplicable, "the server declares no tasks.requests.tools.call capability: the tool-level rules apply only when it does (2025-11-25 basic/utilities/tasks.mdx, Tool-Level Negotiation)")
	}
	l := toolkit.List(t)
	toolkit.RequireListing(t, l)
	var forbidden, required *toolkit.CallableTool
	for _, ct := range toolkit.Callable(t, l) {
		c := ct
		switch tasks.TaskSupport(ct.Tool) {
		case "", "forbidden":
			if forbidden == nil || ct.Name == taskNegFixture {
				forbidden = &c
			}
		case "required":
			if required == nil {
				required = &c
			}
		}
	}
	var p taskNegProbes
	if forbidden != nil {
		params := map[string]any{"name": forbidden.Name, "arguments": forbidden.Args, "task": map[string]any{"ttl": tasks.RequestedTTL}}
		resp, err := s.Call(t.Ctx, "tools/call", params)
		p.forbidden = toolcall.Probe{Label: forbidden.Name, R: toolcall.Classify(resp, err)}
	}
	if required != nil {
		resp, err := s.Call(t.Ctx, "tools/call", map[string]any{"name": required.Name, "arguments": required.Args})
		p.required = toolcall.Probe{Label: required.Name, R: toolcall.Classify(resp, err)}
	}
	if forbidden == nil && required == nil {
		t.SkipNow(conform.MissingFixture, "no callable tool without task support and none requiring tasks; list the fixture tool %s (the fixture contract, refserver/doc.go) to exercise it", taskNegFixture)
	}
	return p
}

// judgeTaskNegotiation judges the two probes: -32601 is the answer to both.
func judgeTaskNegotiation(p taskNegProbes) conform.Verdict {
	var f conform.Findings
	var silent []string
	judge := func(pr toolcall.Probe, what string, must bool) {
		if pr.Label == "" {
			return
		}
		f.Judged++
		r := pr.R
		switch {
		case r.Kind == toolcall.KindRPCError && r.Code == wire.CodeMethodNotFound:
		case r.Kind == toolcall.KindNone:
			silent = append(silent, fmt.Sprintf("%s %q: %s", what, pr.Label, r.Desc))
		case must:
			f.Fail(fmt.Sprintf("%s %q was answered with %s, not -32601 (\"Servers MUST return a -32601 (Method not found) error\")", what, pr.Label, r.Desc))
		default:
			f.Warn(fmt.Sprintf("%s %q was answered with %s, not -32601 (\"Servers SHOULD return a -32601 (Method not found) error\")", what, pr.Label, r.Desc))
		}
	}
	judge(p.forbidden, "a task-augmented call to the tool without task support", false)
	judge(p.required, "a call without a task to the tool that requires one", true)
	for _, s := range silent {
		f.Fail(s + ": no reply")
	}
	return f.Verdict("-32601 for a call that breaks the tool's execution.taskSupport", "-32601 for a task-augmented call to a tool without task support",
		fmt.Sprintf("-32601 for %s", joinProbes(p)))
}

// joinProbes names the probes made, for the pass message.
func joinProbes(p taskNegProbes) string {
	var parts []string
	if p.forbidden.Label != "" {
		parts = append(parts, fmt.Sprintf("a task for %q (no task support)", p.forbidden.Label))
	}
	if p.required.Label != "" {
		parts = append(parts, fmt.Sprintf("no task for %q (taskSupport required)", p.required.Label))
	}
	return strings.Join(parts, " and ")
}
