package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/tasks/taskstest"
)

func TestTaskCallVerdicts(t *testing.T) {
	const id, rev = "TOOLS-CALL-TASK-R4-01", "2025-11-25"
	srv := taskstest.Server
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "a correct round trip passes", ID: id, Rev: rev, Srv: srv(taskstest.Script{Progress: []string{"P|=|1"}}), Want: reports.Pass, Contains: `tasks/get then "completed"`},
		{Name: "a required tool passes too", ID: id, Rev: rev, Srv: srv(taskstest.Script{Support: "required"}), Want: reports.Pass},
		{Name: "no tasks capability is not applicable", ID: id, Rev: rev, Srv: srv(taskstest.Script{NoCapability: true}), Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "no tool allowing tasks needs the fixture", ID: id, Rev: rev, Srv: srv(taskstest.Script{Support: "forbidden"}), Want: reports.Skip, Reason: reports.NeedsFixture, Contains: "test_slow"},
		{Name: "no execution member needs the fixture", ID: id, Rev: rev, Srv: srv(taskstest.Script{Support: "-"}), Want: reports.Skip, Reason: reports.NeedsFixture},
		{Name: "a task created completed fails", ID: id, Rev: rev, Srv: srv(taskstest.Script{CreateStatus: "completed"}), Want: reports.Fail, Contains: "not \"working\""},
		{Name: "a call processed normally warns", ID: id, Rev: rev, Srv: srv(taskstest.Script{NoTask: true}), Want: reports.Warn, Contains: "normal request"},
		{Name: "tasks/result without the related-task _meta fails", ID: id, Rev: rev, Srv: srv(taskstest.Script{NoMeta: true}), Want: reports.Fail, Contains: "related-task"},
		{Name: "tasks/result that is no CallToolResult fails", ID: id, Rev: rev, Srv: srv(taskstest.Script{Payload: `{"content":"done"}`}), Want: reports.Fail, Contains: "no CallToolResult"},
		{Name: "tasks/result answered while working fails", ID: id, Rev: rev, Srv: srv(taskstest.Script{Status: "working"}), Want: reports.Fail, Contains: "MUST block"},
		{Name: "the task-augmented call refused fails", ID: id, Rev: rev, Srv: func() *conformtest.Server {
			s := srv(taskstest.Script{})()
			s.Handle("tools/call", conformtest.ReplyError(-32601))
			return s
		}, Want: reports.Fail, Contains: "-32601"},
		{Name: "a failed task's error is noted", ID: id, Rev: rev, Srv: func() *conformtest.Server {
			s := srv(taskstest.Script{Status: "failed"})()
			s.Handle("tasks/result", conformtest.ReplyError(-32603))
			return s
		}, Want: reports.Pass, Contains: "note"},
		{Name: "a silent tasks/result fails", ID: id, Rev: rev, Srv: func() *conformtest.Server {
			s := srv(taskstest.Script{})()
			s.Handle("tasks/result", conformtest.Silent)
			return s
		}, Want: reports.Fail, Contains: "no reply", Opts: []func(*conform.Config){func(c *conform.Config) { c.Timeout = 200 * time.Millisecond }}},
	})
}

// The task's result is judged like any tool result: the isError checks read the
// reply to tasks/result as the tool's result, and never the CreateTaskResult.
func TestTaskResultJudgedAsToolResult(t *testing.T) {
	for _, tc := range []struct {
		name     string
		payload  string
		want     reports.Status
		contains string
	}{
		{"a good payload passes, the CreateTaskResult is not a tool result", "", reports.Pass, "1 tools/call results"},
		{"an isError that is no boolean fails", `{"content":[],"isError":"yes"}`, reports.Fail, "test_slow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := conformtest.JudgeAll(t, []string{"TOOLS-CALL-TASK-R4-01", "TOOLS-CALL-ISERROR-01"}, "2025-11-25", taskstest.Server(taskstest.Script{Payload: tc.payload})())[1]
			if v.Status != tc.want || !strings.Contains(v.Message, tc.contains) {
				t.Errorf("TOOLS-CALL-ISERROR-01: %s %q, want %s containing %q", v.Status, v.Message, tc.want, tc.contains)
			}
		})
	}
}

func TestTaskNegotiationVerdicts(t *testing.T) {
	const id, rev = "TOOLS-CALL-TASK-NEG-R4-01", "2025-11-25"
	srv := taskstest.Server
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "-32601 for a task to a forbidden tool passes", ID: id, Rev: rev, Srv: srv(taskstest.Script{Support: "forbidden"}), Want: reports.Pass, Contains: "no task support"},
		{Name: "-32601 for a tool without execution passes", ID: id, Rev: rev, Srv: srv(taskstest.Script{Support: "-"}), Want: reports.Pass},
		{Name: "-32601 for no task to a required tool passes", ID: id, Rev: rev, Srv: srv(taskstest.Script{Support: "required"}), Want: reports.Pass, Contains: "taskSupport required"},
		{Name: "a task to a tool without task support run normally warns", ID: id, Rev: rev, Srv: srv(taskstest.Script{Support: "-", Lax: true}), Want: reports.Warn, Contains: "SHOULD"},
		{Name: "a task created for a forbidden tool warns", ID: id, Rev: rev, Srv: func() *conformtest.Server {
			s := srv(taskstest.Script{Support: "forbidden"})()
			s.Handle("tools/call", conformtest.Reply(`{"task":{"taskId":"t","status":"working","createdAt":"x","lastUpdatedAt":"x","ttl":null}}`))
			return s
		}, Want: reports.Warn},
		{Name: "a required tool run without a task fails", ID: id, Rev: rev, Srv: srv(taskstest.Script{Support: "required", Lax: true}), Want: reports.Fail, Contains: "MUST"},
		{Name: "another error for a required tool fails", ID: id, Rev: rev, Srv: func() *conformtest.Server {
			s := srv(taskstest.Script{Support: "required"})()
			s.Handle("tools/call", conformtest.ReplyError(-32600))
			return s
		}, Want: reports.Fail, Contains: "-32600"},
		{Name: "no reply fails", ID: id, Rev: rev, Srv: func() *conformtest.Server {
			s := srv(taskstest.Script{Support: "required"})()
			s.Handle("tools/call", conformtest.Silent)
			return s
		}, Want: reports.Fail, Contains: "no reply"},
		{Name: "no tasks capability is not applicable", ID: id, Rev: rev, Srv: srv(taskstest.Script{NoCapability: true, Support: "forbidden"}), Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "only an optional tool needs the fixture", ID: id, Rev: rev, Srv: srv(taskstest.Script{}), Want: reports.Skip, Reason: reports.NeedsFixture, Contains: "test_simple_text"},
	})
}
