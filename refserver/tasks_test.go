package refserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// taskFaults are the faults of the task round trip: a fixed script cannot reach them
// (the task id is the server's), so TestEveryTaskFaultIsObservable drives them.
var taskFaults = map[string]bool{faultTaskCreatedDone: true, faultTaskResultNoMeta: true, faultTaskProgressToken: true}

// untilRetrieved are the arguments the suite's task round trip gives test_slow
// (TOOLS-CALL-TASK-R4-01, PROG-TASKS-R4-01).
var untilRetrieved = map[string]any{"ms": 5000, "untilRetrieved": true}

// taskRoundTrip calls test_slow as a task with args, fetches its result and polls it
// once, and returns every message the server sent, with the task id and times
// replaced so that two runs compare equal. parts holds the created and final task
// and the progress notifications that came with the CreateTaskResult ("early").
func taskRoundTrip(t *testing.T, dial func(testing.TB, Options) conn, opts Options, args map[string]any) (text string, parts map[string]any) {
	t.Helper()
	cl := newInitialized(t, dial, opts, "2025-11-25", nil)
	var out []string
	record := func(m *wire.Message, notes []*wire.Message) {
		for _, n := range notes {
			out = append(out, string(n.Raw))
		}
		out = append(out, string(m.Raw))
	}
	create := wire.StringID("create")
	cl.sendRequest(create, "tools/call", map[string]any{"name": "test_slow", "arguments": args,
		"task": map[string]any{"ttl": 30000}, "_meta": map[string]any{"progressToken": "task-tok"}})
	cl.methods[create.Key()] = "" // a CreateTaskResult, validated below
	m, notes := cl.await(create)
	record(m, notes)
	early := len(notes)
	if m.Error != nil {
		t.Fatalf("task-augmented tools/call: %s", m.Raw)
	}
	mustValidate(t, cl.rev, "CreateTaskResult", m.Result)
	var created struct {
		Task map[string]any `json:"task"`
	}
	_ = json.Unmarshal(m.Result, &created)
	id, _ := created.Task["taskId"].(string)
	if id == "" {
		t.Fatalf("no taskId: %s", m.Result)
	}
	res, notes := cl.call("tasks/result", map[string]any{"taskId": id})
	record(res, notes)
	if res.Error == nil {
		mustValidate(t, cl.rev, "CallToolResult", res.Result)
	}
	for _, n := range notes {
		if n.Method == "notifications/progress" && !strings.Contains(string(n.Params), `"`+relatedTaskKey+`":{"taskId":"`+id+`"}`) {
			t.Errorf("task progress without the related-task _meta: %s", n.Raw)
		}
	}
	got, notes := cl.call("tasks/get", map[string]any{"taskId": id})
	record(got, notes)
	mustValidate(t, cl.rev, "GetTaskResult", got.Result)
	var final map[string]any
	_ = json.Unmarshal(got.Result, &final)
	cl.barrier()
	text = strings.Join(out, "\n")
	text = strings.ReplaceAll(text, id, "ID")
	text = strings.ReplaceAll(text, id[:8], "ID8")
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		for _, v := range []any{created.Task[k], final[k]} {
			if s, ok := v.(string); ok && s != "" {
				text = strings.ReplaceAll(text, s, "TIME")
			}
		}
	}
	return text, map[string]any{"created": created.Task, "final": final, "result": string(res.Raw), "early": early}
}

func TestTaskRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		want []string
	}{
		// timed: the progress test_slow sends while it works travels only on a
		// tasks/result that is open by then, which on a loaded machine may be after
		// the 450 ms: the untilRetrieved case below pins the progress.
		{"timed", map[string]any{"ms": 450}, []string{
			`"io.modelcontextprotocol/related-task":{"taskId":"ID"}`,
			`"text":"Worked for 450 ms."`, `"pollInterval":100`, `"ttl":30000`,
		}},
		// untilRetrieved: both progress notifications travel on the open
		// tasks/result, none with the CreateTaskResult, whatever the machine's speed.
		{"untilRetrieved", untilRetrieved, []string{
			`"progressToken":"task-tok","total":2`, `"progress":0,"progressToken":"task-tok"`, `"progress":1,"progressToken":"task-tok"`,
			`"io.modelcontextprotocol/related-task":{"taskId":"ID"}`,
			`"text":"Worked until the task's result was asked for."`,
		}},
	}
	for _, tc := range cases {
		for name, dial := range map[string]func(testing.TB, Options) conn{"session": dialSession, "stdio": dialStdio, "streamable": dialStreamable} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				text, parts := taskRoundTrip(t, dial, Options{}, tc.args)
				created, final := parts["created"].(map[string]any), parts["final"].(map[string]any)
				if created["status"] != "working" || final["status"] != "completed" {
					t.Errorf("status: created %v, then %v", created["status"], final["status"])
				}
				if early := parts["early"].(int); early != 0 {
					t.Errorf("%d notification(s) came before the CreateTaskResult:\n%s", early, text)
				}
				for _, want := range tc.want {
					if !strings.Contains(text, want) {
						t.Errorf("the round trip lacks %s:\n%s", want, text)
					}
				}
			})
		}
	}
}

// TestUntilRetrievedWithoutTask: test_slow's untilRetrieved called without a task
// has no result to wait for and ends at once (the fixture contract, doc.go).
func TestUntilRetrievedWithoutTask(t *testing.T) {
	cl := newInitialized(t, dialSession, Options{}, "2025-11-25", nil)
	r, _ := cl.result("tools/call", map[string]any{"name": "test_slow", "arguments": map[string]any{"ms": 10000, "untilRetrieved": true}})
	if b, _ := json.Marshal(r["content"]); !strings.Contains(string(b), "no task's result to wait for") {
		t.Errorf("test_slow untilRetrieved without a task answered %s", b)
	}
}

func TestTaskNegotiation(t *testing.T) {
	t.Run("2025-11-25 declares tasks.requests.tools.call and test_slow allows a task", func(t *testing.T) {
		cl := newClient(t, dialSession(t, Options{}), "2025-11-25")
		r := cl.initialize("2025-11-25", nil)
		caps, _ := json.Marshal(r["capabilities"].(map[string]any)["tasks"])
		if string(caps) != `{"requests":{"tools":{"call":{}}}}` {
			t.Errorf("tasks capability = %s", caps)
		}
	})
	t.Run("a task for a tool without task support is -32601", func(t *testing.T) {
		cl := newInitialized(t, dialSession, Options{}, "2025-11-25", nil)
		m, _ := cl.call("tools/call", map[string]any{"name": "test_simple_text", "task": map[string]any{}})
		expectError(t, m, wire.CodeMethodNotFound)
	})
	t.Run("an unknown task is -32602", func(t *testing.T) {
		cl := newInitialized(t, dialSession, Options{}, "2025-11-25", nil)
		for _, method := range []string{"tasks/get", "tasks/result"} {
			m, _ := cl.call(method, map[string]any{"taskId": "no-such-task"})
			expectError(t, m, wire.CodeInvalidParams)
		}
	})
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18"} {
		t.Run(v+" has no tasks", func(t *testing.T) {
			cl := newClient(t, dialSession(t, Options{}), v)
			r := cl.initialize(v, nil)
			if _, has := r["capabilities"].(map[string]any)["tasks"]; has {
				t.Errorf("%s declares tasks", v)
			}
			m, _ := cl.call("tasks/get", map[string]any{"taskId": "x"})
			expectError(t, m, wire.CodeMethodNotFound)
			// The task member is ignored: the call is processed normally.
			r2, _ := cl.result("tools/call", map[string]any{"name": "test_simple_text", "task": map[string]any{}})
			if _, ok := r2["content"]; !ok {
				t.Errorf("%s: a tools/call with task was not processed normally: %v", v, r2)
			}
		})
	}
	if !revision.MustLookup("2025-11-25").Has(revision.Tasks) {
		t.Fatal("2025-11-25 has no tasks feature")
	}
}

// TestEveryTaskFaultIsObservable: each task fault changes the round trip.
func TestEveryTaskFaultIsObservable(t *testing.T) {
	clean, _ := taskRoundTrip(t, dialSession, Options{}, untilRetrieved)
	for name := range taskFaults {
		t.Run(name, func(t *testing.T) {
			if got, _ := taskRoundTrip(t, dialSession, Options{Faults: map[string]bool{name: true}}, untilRetrieved); got == clean {
				t.Errorf("fault %s does not change the task round trip:\n%s", name, got)
			}
		})
	}
}
