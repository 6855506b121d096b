package tools

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/suites/internal/tasks"
)

// TOOLS-CALL-TASK-R4-01 — 2025-11-25 basic/utilities/tasks.mdx (Creating Tasks,
// Result Retrieval, Task Status Lifecycle, Related Task Metadata); server/tools.mdx
// (execution.taskSupport).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-CALL-TASK-R4-01", Title: "a tool that allows tasks, called as a task, is created working, and tasks/result answers its CallToolResult once it ended",
	Level: conform.Must, Revisions: revision.Span("R4"), Group: conform.GroupTools, Phase: conform.PhaseTranscript, Needs: conform.NeedsFixture,
	Source: `2025-11-25 basic/utilities/tasks.mdx (Result Retrieval): "Receivers that accept a task-augmented request MUST return a CreateTaskResult as the response."; (Task Status Lifecycle) "Tasks MUST begin in the working status when created."; (Result Retrieval) "When a receiver receives a tasks/result request for a task in any other non-terminal status (working or input_required), it MUST block the response until the task reaches a terminal status."; (Retrieving Task Results) "The result structure matches the original request type (e.g., CallToolResult for tools/call)."; (Related Task Metadata) "The tasks/result operation MUST include this metadata in its response". Judged on one round trip: tools/call with task (a tool whose execution.taskSupport is "optional" or "required", the fixture test_slow first), tasks/result, tasks/get until a terminal status.`,
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
		f.Warn(fmt.Sprintf("%s was answered without a task (%s): the server declares tasks.requests.tools.call, yet processed the call as a normal request", what, conform.Clip(string(created.Resp.Result), 160)))
		return f.Verdict("", "a CreateTaskResult (Creating Tasks: \"The server accepts the request and immediately returns a CreateTaskResult\")", "")
	}
	if trip.TaskID == "" {
		f.Fail(fmt.Sprintf("the CreateTaskResult has no string task.taskId: %s", conform.Clip(string(task), 160)))
		return f.Verdict("a CreateTaskResult whose task has a taskId", "", "")
	}
	if st := jsonString(task, "status"); st != "working" {
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
		if id := jsonString(p.Resp.Result, "taskId"); id != trip.TaskID {
			f.Fail(fmt.Sprintf("tasks/get for task %q answered task %s", trip.TaskID, orAbsent(id)))
		}
		last = jsonString(p.Resp.Result, "status")
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

// jsonString returns a JSON object's string member, or "" (absent or another type).
func jsonString(obj json.RawMessage, name string) string {
	raw, ok := rawjson.Lookup(obj, name)
	if !ok {
		return ""
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// orAbsent quotes a status or id for messages, or says it was absent.
func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return fmt.Sprintf("%q", s)
}
