package prompts

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe/subscribetest"
)

// The verdicts of the PROMPT and COMPL checks on scripted servers. served is a
// well-behaved server: three prompts on two pages, prompts/get with argument
// checks, and completion; each variant breaks one rule.

// sp are the knobs of a scripted prompts server.
type sp struct {
	caps         string
	page2        string // the second page's prompts (raw JSON array)
	role         string
	image        string // the image block's data
	unknownCode  int    // the code for an unknown prompt (0: a result)
	missingOK    bool   // a missing required argument gets a result
	cursorResult bool   // an invalid cursor gets the first page
	values       int    // completion values sent
	total        int    // completion total sent (-1: none)
	complUnknown bool   // an unknown completion ref gets an empty result
	ctxRefused   bool   // completion with a context is refused
	notify       string // a notification sent after notifications/initialized ("" none)
	page1        string // the first page's prompts (raw JSON array)
}

func good() sp {
	return sp{caps: `{"tools":{},"prompts":{"listChanged":true},"completions":{}}`,
		page1: `[{"name":"hello","arguments":[{"name":"who","required":true}]},{"name":"media"}]`,
		page2: `[{"name":"review","arguments":[{"name":"language","required":true},{"name":"style"}]}]`,
		role:  "user", image: "iVBORw0KGgo=", unknownCode: wire.CodeInvalidParams, values: 3, total: 3}
}

func (c sp) server() *conformtest.Server {
	srv := conformtest.NewServer()
	srv.Capabilities = c.caps
	srv.Handle("prompts/list", func(req *wire.Message) []string {
		var p struct {
			Cursor *string `json:"cursor"`
		}
		_ = json.Unmarshal(req.Params, &p)
		first := conformtest.Result(req, `{"prompts":`+c.page1+`,"nextCursor":"p2"}`)
		switch {
		case p.Cursor == nil:
			return []string{first}
		case *p.Cursor == "p2":
			return []string{conformtest.Result(req, `{"prompts":`+c.page2+`}`)}
		case c.cursorResult:
			return []string{first}
		}
		return []string{conformtest.Error(req, wire.CodeInvalidParams, "invalid cursor")}
	})
	if c.notify != "" {
		srv.Handle("notifications/initialized", func(*wire.Message) []string { return []string{c.notify} })
	}
	srv.Handle("prompts/get", func(req *wire.Message) []string {
		var p struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &p)
		text := `{"type":"text","text":"hi"}`
		switch {
		case p.Name == "hello" && p.Arguments["who"] == "" && !c.missingOK:
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "missing who")}
		case p.Name == "review" && p.Arguments["language"] == "":
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "missing language")}
		case p.Name == "media":
			text = `{"type":"image","data":"` + c.image + `","mimeType":"image/png"}`
		case p.Name != "hello" && p.Name != "review":
			if c.unknownCode == 0 {
				break
			}
			return []string{conformtest.Error(req, c.unknownCode, "unknown prompt")}
		}
		return []string{conformtest.Result(req, `{"messages":[{"role":"`+c.role+`","content":`+text+`}]}`)}
	})
	srv.Handle("completion/complete", func(req *wire.Message) []string {
		var p struct {
			Ref struct {
				Name string `json:"name"`
			} `json:"ref"`
			Context json.RawMessage `json:"context"`
		}
		_ = json.Unmarshal(req.Params, &p)
		switch {
		case p.Ref.Name != "hello" && p.Ref.Name != "review" && !c.complUnknown:
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "unknown prompt")}
		case p.Context != nil && c.ctxRefused:
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "no context")}
		}
		vals := make([]string, c.values)
		for i := range vals {
			vals[i] = fmt.Sprintf("%q", fmt.Sprint("v", i))
		}
		total := ""
		if c.total >= 0 {
			total = fmt.Sprintf(`,"total":%d`, c.total)
		}
		return []string{conformtest.Result(req, `{"completion":{"values":[`+strings.Join(vals, ",")+`]`+total+`,"hasMore":false}}`)}
	})
	return srv
}

func with(f func(*sp)) func() *conformtest.Server {
	return func() *conformtest.Server {
		c := good()
		f(&c)
		return c.server()
	}
}

var served = with(func(*sp) {})

func TestVerdicts(t *testing.T) {
	const r3 = "2025-06-18"
	noPrompts := with(func(c *sp) { c.caps = `{"tools":{}}` })
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "declared passes", ID: "PROMPT-CAP-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "served undeclared fails", ID: "PROMPT-CAP-01", Rev: r3, Srv: noPrompts, Want: reports.Fail, Contains: "prompts/list succeeded"},
		{Name: "neither declared nor served is not applicable", ID: "PROMPT-CAP-01", Rev: r3, Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "listChanged boolean passes", ID: "PROMPT-CAP-LISTCHANGED-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "listChanged string fails", ID: "PROMPT-CAP-LISTCHANGED-01", Rev: r3, Srv: with(func(c *sp) { c.caps = `{"prompts":{"listChanged":"yes"}}` }), Want: reports.Fail},
		{Name: "two valid pages pass", ID: "PROMPT-LIST-01", Rev: r3, Srv: served, Want: reports.Pass, Contains: "2 page(s), 3 prompt(s)"},
		{Name: "an invalid second page fails", ID: "PROMPT-LIST-01", Rev: r3, Srv: with(func(c *sp) { c.page2 = `[{"name":"review","arguments":[{"name":"language","required":"yes"}]}]` }), Want: reports.Fail, Contains: "page 2"},
		{Name: "undeclared is not applicable", ID: "PROMPT-LIST-01", Rev: r3, Srv: noPrompts, Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "invalid cursor -32602 passes", ID: "PROMPT-LIST-CURSOR-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "invalid cursor served warns", ID: "PROMPT-LIST-CURSOR-01", Rev: r3, Srv: with(func(c *sp) { c.cursorResult = true }), Want: reports.Warn},
		{Name: "valid results pass", ID: "PROMPT-GET-01", Rev: r3, Srv: served, Want: reports.Pass, Contains: `"hello", "media", "review"`},
		{Name: "role system fails", ID: "PROMPT-GET-01", Rev: r3, Srv: with(func(c *sp) { c.role = "system" }), Want: reports.Fail},
		{Name: "base64 image passes", ID: "PROMPT-GET-MEDIA-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "non-base64 image fails", ID: "PROMPT-GET-MEDIA-01", Rev: r3, Srv: with(func(c *sp) { c.image = "not base64!" }), Want: reports.Fail, Contains: "not base64"},
		{Name: "unknown prompt -32602 passes", ID: "PROMPT-GET-UNKNOWN-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "unknown prompt -32603 warns", ID: "PROMPT-GET-UNKNOWN-01", Rev: r3, Srv: with(func(c *sp) { c.unknownCode = wire.CodeInternalError }), Want: reports.Warn},
		{Name: "unknown prompt result warns", ID: "PROMPT-GET-UNKNOWN-01", Rev: r3, Srv: with(func(c *sp) { c.unknownCode = 0 }), Want: reports.Warn},
		{Name: "missing argument -32602 passes", ID: "PROMPT-GET-MISSINGARG-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "missing argument accepted warns", ID: "PROMPT-GET-MISSINGARG-01", Rev: r3, Srv: with(func(c *sp) { c.missingOK = true }), Want: reports.Warn},
		{Name: "no required argument is not exercised", ID: "PROMPT-GET-MISSINGARG-01", Rev: r3, Srv: with(func(c *sp) { c.page1, c.page2 = `[{"name":"media"}]`, `[]` }), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "undeclared list_changed fails in 2025-06-18", ID: "PROMPT-LC-UNDECLARED-01", Rev: r3, Srv: with(func(c *sp) {
			c.caps = `{"prompts":{}}`
			c.notify = conformtest.Notification("notifications/prompts/list_changed", "")
		}), Want: reports.Fail},
		{Name: "undeclared list_changed warns in 2025-03-26", ID: "PROMPT-LC-UNDECLARED-01", Rev: "2025-03-26", Srv: with(func(c *sp) {
			c.caps = `{"prompts":{}}`
			c.notify = conformtest.Notification("notifications/prompts/list_changed", "")
		}), Want: reports.Warn},
		{Name: "declared list_changed passes", ID: "PROMPT-LC-UNDECLARED-01", Rev: r3, Srv: with(func(c *sp) { c.notify = conformtest.Notification("notifications/prompts/list_changed", "") }), Want: reports.Pass},
		{Name: "none is not exercised", ID: "PROMPT-LC-UNDECLARED-01", Rev: r3, Srv: served, Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "valid list_changed passes", ID: "PROMPT-LC-SHAPE-01", Rev: r3, Srv: with(func(c *sp) { c.notify = conformtest.Notification("notifications/prompts/list_changed", "") }), Want: reports.Pass},
		{Name: "array params fail", ID: "PROMPT-LC-SHAPE-01", Rev: r3, Srv: with(func(c *sp) { c.notify = conformtest.Notification("notifications/prompts/list_changed", `["changed"]`) }), Want: reports.Fail},
	})
}

func TestCompletionVerdicts(t *testing.T) {
	const r3 = "2025-06-18"
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "declared passes", ID: "COMPL-CAP-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "served undeclared fails", ID: "COMPL-CAP-01", Rev: r3, Srv: with(func(c *sp) { c.caps = `{"prompts":{}}` }), Want: reports.Fail, Contains: "succeeded"},
		{Name: "refused undeclared is not applicable", ID: "COMPL-CAP-01", Rev: r3, Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "valid result passes", ID: "COMPL-RESULT-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "101 values fail", ID: "COMPL-RESULT-01", Rev: r3, Srv: with(func(c *sp) { c.values, c.total = 101, 101 }), Want: reports.Fail, Contains: "101 values"},
		{Name: "undeclared is not applicable", ID: "COMPL-RESULT-01", Rev: r3, Srv: with(func(c *sp) { c.caps = `{"prompts":{}}` }), Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "2024-11-05 without completion is not applicable", ID: "COMPL-RESULT-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			s := good().server()
			s.Capabilities = `{"prompts":{}}`
			return s.Handle("completion/complete", conformtest.ReplyError(wire.CodeMethodNotFound))
		}, Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "consistent total passes", ID: "COMPL-TOTAL-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "total below values warns", ID: "COMPL-TOTAL-01", Rev: r3, Srv: with(func(c *sp) { c.total = 1 }), Want: reports.Warn},
		{Name: "total above values without hasMore warns", ID: "COMPL-TOTAL-01", Rev: r3, Srv: with(func(c *sp) { c.total = 9 }), Want: reports.Warn},
		{Name: "no total is not exercised", ID: "COMPL-TOTAL-01", Rev: r3, Srv: with(func(c *sp) { c.total = -1 }), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "unknown ref -32602 passes", ID: "COMPL-UNKNOWN-REF-01", Rev: r3, Srv: served, Want: reports.Pass},
		{Name: "unknown ref result warns", ID: "COMPL-UNKNOWN-REF-01", Rev: r3, Srv: with(func(c *sp) { c.complUnknown = true }), Want: reports.Warn},
		{Name: "context accepted passes", ID: "COMPL-CONTEXT-01", Rev: r3, Srv: served, Want: reports.Pass, Contains: `"review" argument "style"`},
		{Name: "context refused warns", ID: "COMPL-CONTEXT-01", Rev: r3, Srv: with(func(c *sp) { c.ctxRefused = true }), Want: reports.Warn},
		{Name: "no two-argument prompt is not exercised", ID: "COMPL-CONTEXT-01", Rev: r3, Srv: with(func(c *sp) { c.page2 = `[]` }), Want: reports.Skip, Reason: reports.NotExercised},
	})
}

// triggered is a server whose fixture trigger (test_trigger_tool_change) adds a
// prompt, announcing it when announce is set.
func triggered(announce, changes bool) func() *conformtest.Server {
	return func() *conformtest.Server {
		srv := conformtest.NewServer()
		subscribetest.TriggeredList(srv, "prompts", "prompts", `[{"name":"a"}]`, `[{"name":"a"},{"name":"b"}]`, announce, changes)
		return srv
	}
}

func TestListChangedVerdicts(t *testing.T) {
	const r4 = "2025-11-25"
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "an announced change passes", ID: "PROMPT-LC-01", Rev: r4, Srv: triggered(true, true), Want: reports.Pass, Contains: "added b"},
		{Name: "an unannounced change warns", ID: "PROMPT-LC-01", Rev: r4, Srv: triggered(false, true), Want: reports.Warn, Contains: "no notification"},
		{Name: "no change is not exercised", ID: "PROMPT-LC-01", Rev: r4, Srv: triggered(false, false), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no trigger needs the fixture", ID: "PROMPT-LC-01", Rev: r4, Srv: served, Want: reports.Skip, Reason: reports.NeedsFixture},
		{Name: "listChanged not declared is not applicable", ID: "PROMPT-LC-01", Rev: r4, Srv: with(func(c *sp) { c.caps = `{"prompts":{}}` }), Want: reports.Skip, Reason: reports.NotApplicable},
	})
}
