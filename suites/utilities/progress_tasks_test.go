package utilities

import (
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/tasks/taskstest"
)

func TestProgressTasksVerdicts(t *testing.T) {
	const id, rev = "PROG-TASKS-R4-01", "2025-11-25"
	srv := taskstest.Server
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "the original token until the end passes", ID: id, Rev: rev, Srv: srv(taskstest.Script{Progress: []string{"P|=|1", "P|=|2"}}), Want: reports.Pass, Contains: "2 after the CreateTaskResult"},
		{Name: "the original token without related-task _meta passes", ID: id, Rev: rev, Srv: srv(taskstest.Script{Progress: []string{"Q|=|1"}}), Want: reports.Pass},
		{Name: "a token of the server's own fails", ID: id, Rev: rev, Srv: srv(taskstest.Script{Progress: []string{`P|"task-own"|1`}}), Want: reports.Fail, Contains: `"task-own"`},
		{Name: "progress after the task's end fails", ID: id, Rev: rev, Srv: srv(taskstest.Script{Progress: []string{"P|=|1"}, After: []string{"P|=|2"}}), Want: reports.Fail, Contains: "terminal status"},
		{Name: "no progress is not exercised", ID: id, Rev: rev, Srv: srv(taskstest.Script{}), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no tasks capability is not applicable", ID: id, Rev: rev, Srv: srv(taskstest.Script{NoCapability: true}), Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "no tool allowing tasks needs the fixture", ID: id, Rev: rev, Srv: srv(taskstest.Script{Support: "-"}), Want: reports.Skip, Reason: reports.NeedsFixture},
	})
}

// A task's request stays active until the task ends: its progress after the
// CreateTaskResult is no progress after the reply (PROG-TOKEN-01, PROG-AFTER-DONE-01),
// and its progress after the task's end is. The task round trip is PROG-TASKS-R4-01's,
// judged in the same run.
func TestProgressTasksActiveUntilEnd(t *testing.T) {
	cases := []struct {
		name, id string
		script   taskstest.Script
		want     reports.Status
		contains string
	}{
		{"task progress after the CreateTaskResult passes", "PROG-TOKEN-01", taskstest.Script{Progress: []string{"P|=|1", "P|=|2"}}, reports.Pass, ""},
		{"task progress after the CreateTaskResult is not after done", "PROG-AFTER-DONE-01", taskstest.Script{Progress: []string{"P|=|1", "P|=|2"}}, reports.Pass, "1 completed request"},
		{"task progress after the task's end fails", "PROG-AFTER-DONE-01", taskstest.Script{Progress: []string{"P|=|1"}, After: []string{"P|=|2"}}, reports.Fail, "the end of the task"},
		{"task progress after the task's end is no active token", "PROG-TOKEN-01", taskstest.Script{Progress: []string{"P|=|1"}, After: []string{"P|=|2"}}, reports.Fail, "no longer active"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := conformtest.JudgeAll(t, []string{"PROG-TASKS-R4-01", tc.id}, "2025-11-25", taskstest.Server(tc.script)())[1]
			if v.Status != tc.want || !strings.Contains(v.Message, tc.contains) {
				t.Errorf("%s: %s %q, want %s containing %q", tc.id, v.Status, v.Message, tc.want, tc.contains)
			}
		})
	}
}
