package utilities

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/tasks"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// PROG-TASKS-R4-01 — 2025-11-25 basic/utilities/progress.mdx (Behavior Requirements, 3).
var _ = conform.Register(conform.Check{
	ID: "PROG-TASKS-R4-01", Title: "a task's progress keeps the token of the task-augmented request until the task ends, then stops",
	Probe: func(t *conform.T) { tasks.RoundTrip(t) },
	Run:   runProgressTasks,
})

func runProgressTasks(t *conform.T) conform.Verdict {
	trip := tasks.RoundTrip(t)
	if trip.TaskID != "" && trip.Barrier != "" {
		return conform.Errorf("the barrier request after the task round trip failed (%s): nothing bounds what may still arrive", trip.Barrier)
	}
	return judgeProgressTasks(trip, ctProgressTrafficOf(t))
}

// judgeProgressTasks judges every progress notification that belongs to a task.
func judgeProgressTasks(trip *tasks.Trip, pt *ctProgressTraffic) conform.Verdict {
	var f conform.Findings
	afterCreate := 0
	for _, p := range pt.Progress {
		r := p.request()
		var tk *tasks.Task
		switch {
		case r != nil && r.Task != nil:
			tk = r.Task
		case p.RelTask != nil:
			tk = p.RelTask
		default:
			continue // no task's: PROG-TOKEN-01 and PROG-AFTER-DONE-01
		}
		f.Judged++
		if p.RelTask != nil && (r == nil || r.Task != p.RelTask) {
			f.Fail(fmt.Sprintf("%s is task %s's (its related-task _meta) but names token %s, not the token %s of the task-augmented %s",
				p.Where(), p.RelTask.ID, toolkit.Or(string(p.TokenRaw), "(absent)"), tokenOf(p.RelTask), p.RelTask.Request.Msg.Method))
			continue
		}
		if late := p.afterDone(); late != "" {
			f.Fail(late + ": progress for a task stops at its terminal status")
			continue
		}
		if tk.Created != nil && p.Seq > tk.Created.Seq {
			afterCreate++
		}
	}
	if f.Judged == 0 {
		switch {
		case trip.Skip != nil:
			return *trip.Skip
		case trip.TaskID == "":
			return conform.Skip(conform.NotExercised, "no task was created: %s answered %s (judged by TOOLS-CALL-TASK-R4-01)", trip.Tool, trip.Create.Describe())
		}
		return conform.Skip(conform.NotExercised, "the task of %s sent no progress notification (progress is optional: PROG-OPTIONAL-01)", trip.Tool)
	}
	return f.Verdict("a task's progress with the task-augmented request's token, only until the task ends", "",
		fmt.Sprintf("%d progress notification%s for tasks, each with the task-augmented request's token, %d after the CreateTaskResult, none after the task's end",
			f.Judged, toolkit.Plural(f.Judged), afterCreate))
}

// tokenOf is the progressToken the task's creating request carried, for messages.
func tokenOf(tk *tasks.Task) string {
	if r := ctTokenOf(nil, tk.Request); r != nil {
		return string(r.Token.Raw())
	}
	return "(none)"
}
