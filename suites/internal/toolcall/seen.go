package toolcall

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/tasks"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// SeenCall is one tools/call result received in a session, with the tool name the
// request carried.
type SeenCall struct {
	Where  string // "<session label> #<seq>"
	Name   string // the name sent ("" when it was not a string)
	Raw    json.RawMessage
	Result map[string]json.RawMessage // nil when the result is not an object
	// isErrorRaw is the isError member as sent (nil when absent).
	IsErrorRaw json.RawMessage
}

// IsError reports whether the result says isError: true.
func (c SeenCall) IsError() bool {
	var b bool
	return json.Unmarshal(c.IsErrorRaw, &b) == nil && b
}

// Label names the call for messages.
func (c SeenCall) Label() string { return fmt.Sprintf("%s (%s)", toolkit.Quote(c.Name), c.Where) }

// SeenCalls collects the tools/call results of every session of the revision (a
// transcript-phase reading: T.Sessions, T.Transcript). Its callers are transcript
// checks, judged once the column has settled, when the transcripts are complete:
// the calls are collected once per revision for the three that read them. Callers
// must not modify them.
func SeenCalls(t *conform.T) []SeenCall {
	return t.Once("toolcall.seen:"+t.Rev.Name, func() any {
		var out []SeenCall
		for _, s := range t.Sessions() {
			out = append(out, CallsIn(s.Label, s.Modern(), t.Transcript(s))...)
		}
		return out
	}).([]SeenCall)
}

// CallsIn pairs the tools/call requests of one transcript with their results. In a
// 2026-07-28 session (modern) an InputRequiredResult (resultType "input_required") is
// left out: it asks for input and is no CallToolResult (the MRTR checks judge it).
// Under 2025-11-25's tasks a task-augmented call's CreateTaskResult is left out too,
// and the tool's result is the reply to tasks/result for its task (tasks.mdx,
// Retrieving Task Results: "The result structure matches the original request type
// (e.g., CallToolResult for tools/call)").
func CallsIn(label string, modern bool, entries []wire.Entry) []SeenCall {
	track := tasks.Track(entries)
	exact, loose := map[string]string{}, map[string]string{}
	var out []SeenCall
	for _, e := range entries {
		if e.Msg == nil {
			continue
		}
		switch {
		case e.Dir == wire.Sent && e.Msg.Kind == wire.KindRequest && e.Msg.Method == "tools/call":
			var p struct {
				Name json.RawMessage `json:"name"`
			}
			_ = json.Unmarshal(e.Msg.Params, &p)
			var name string
			_ = json.Unmarshal(p.Name, &name)
			exact[e.Msg.ID.Key()], loose[e.Msg.ID.LooseKey()] = name, name
		case e.Dir == wire.Received && e.Msg.Kind == wire.KindResult && e.ForMethod == "tools/call":
			if tk := track.ByRequest[e.Msg.ID.Key()]; tk != nil && tk.Created != nil && tk.Created.Seq == e.Seq {
				continue // a CreateTaskResult: TOOLS-CALL-TASK-R4-01
			}
			name, ok := exact[e.Msg.ID.Key()]
			if !ok {
				name = loose[e.Msg.ID.LooseKey()]
			}
			c := seenCall(label, name, e)
			var rt string
			if modern && json.Unmarshal(c.Result["resultType"], &rt) == nil && rt == "input_required" {
				continue
			}
			out = append(out, c)
		case e.Dir == wire.Received && e.Msg.Kind == wire.KindResult && e.ForMethod == "tasks/result":
			tk := track.Payloads[e.Msg.ID.Key()]
			if tk == nil || tk.Request.Msg.Method != "tools/call" {
				continue
			}
			out = append(out, seenCall(label, exact[tk.Request.Msg.ID.Key()], e))
		}
	}
	return out
}

// seenCall decodes one tools/call result (or a tools/call task's tasks/result).
func seenCall(label, name string, e wire.Entry) SeenCall {
	c := SeenCall{Where: fmt.Sprintf("%s #%d", label, e.Seq), Name: name, Raw: e.Msg.Result}
	if json.Unmarshal(e.Msg.Result, &c.Result) != nil {
		c.Result = nil
	}
	c.IsErrorRaw = c.Result["isError"]
	return c
}
