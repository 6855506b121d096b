package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// ctToggler is a scripted server whose trigger tool toggles a dynamic tool.
type ctToggler struct {
	mu sync.Mutex
	on bool
	// notify sends list_changed before the trigger's result; change toggles the tool.
	notify, change bool
	// extra is sent in the notification's place when set (a malformed variant).
	extra string
}

func (c *ctToggler) server(trigger string) *conformtest.Server {
	srv := conformtest.NewServer()
	srv.Handle("tools/list", func(req *wire.Message) []string {
		c.mu.Lock()
		defer c.mu.Unlock()
		tools := fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, trigger)
		if c.on {
			tools += `,{"name":"test_dynamic_tool","inputSchema":{"type":"object"}}`
		}
		return []string{conformtest.Result(req, `{"tools":[`+tools+`]}`)}
	})
	srv.Handle("tools/call", func(req *wire.Message) []string {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.change {
			c.on = !c.on
		}
		var out []string
		switch {
		case c.extra != "":
			out = append(out, c.extra)
		case c.notify:
			out = append(out, conformtest.Notification(ctListChanged, ""))
		}
		return append(out, conformtest.Result(req, ctContent(ctText)))
	})
	return srv
}

// ctInitNotify makes the server send msg right after notifications/initialized.
func ctInitNotify(caps, msg string) func() *conformtest.Server {
	return func() *conformtest.Server {
		srv := conformtest.NewServer()
		srv.Capabilities = caps
		srv.Handle("notifications/initialized", func(*wire.Message) []string { return []string{msg} })
		return srv
	}
}

func TestListChangedVerdicts(t *testing.T) {
	toggler := func(notify, change bool) func() *conformtest.Server {
		return func() *conformtest.Server {
			return (&ctToggler{notify: notify, change: change}).server(ctTriggerFixture)
		}
	}
	flagFile := filepath.Join(t.TempDir(), "changed")
	cmdServer := func() *conformtest.Server {
		srv := conformtest.NewServer()
		srv.Handle("tools/list", func(req *wire.Message) []string {
			tools := `{"name":"a","inputSchema":{"type":"object"}}`
			if _, err := os.Stat(flagFile); err == nil {
				tools += `,{"name":"b","inputSchema":{"type":"object"}}`
			}
			return []string{conformtest.Result(req, `{"tools":[`+tools+`]}`)}
		})
		return srv
	}
	lc := conformtest.Notification(ctListChanged, "")
	cases := []ctCase{
		// NOTIF-LC-01
		{name: "notification and change pass", id: "NOTIF-LC-01", rev: "2025-06-18", srv: toggler(true, true), want: reports.Pass, contains: "added test_dynamic_tool"},
		{name: "change without notification warns", id: "NOTIF-LC-01", rev: "2024-11-05", srv: toggler(false, true), want: reports.Warn, contains: "no notification after"},
		{name: "notification without change warns", id: "NOTIF-LC-01", rev: "2025-11-25", srv: toggler(true, false), want: reports.Warn, contains: "the same"},
		{name: "no change and no notification is not exercised", id: "NOTIF-LC-01", rev: "2025-11-25", srv: toggler(false, false), want: reports.Skip, reason: reports.NotExercised},
		// Undeclared: not applicable, but the trigger still fires so that
		// NOTIF-LC-UNDECLARED-01 sees what it provokes (issue 9 item 1).
		{name: "listChanged not declared is not applicable, the change is provoked all the same", id: "NOTIF-LC-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			s := toggler(true, true)()
			s.Capabilities = `{"tools":{}}`
			return s
		}, want: reports.Skip, reason: reports.NotApplicable, contains: "changed anyway with the fixture tool test_trigger_tool_change (added test_dynamic_tool)"},
		{name: "listChanged not declared and no trigger is not applicable", id: "NOTIF-LC-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			s := noTools()
			s.Capabilities = `{"tools":{}}`
			return s
		}, want: reports.Skip, reason: reports.NotApplicable, contains: "nothing can change"},
		{name: "no tools capability is not applicable and not provoked", id: "NOTIF-LC-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			s := toggler(true, true)()
			s.Capabilities = `{}`
			s.Handle("tools/call", func(req *wire.Message) []string { panic("the trigger was called without a tools capability") })
			return s
		}, want: reports.Skip, reason: reports.NotApplicable, contains: "no tools capability"},
		{name: "no trigger needs the fixture", id: "NOTIF-LC-01", rev: "2025-06-18", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture, contains: "--trigger-cmd"},
		{name: "a failing trigger is an error", id: "NOTIF-LC-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			s := toggler(true, true)()
			s.Handle("tools/call", func(req *wire.Message) []string { return []string{conformtest.Error(req, -32603, "boom")} })
			return s
		}, want: reports.Error},
		{name: "an isError trigger warns", id: "NOTIF-LC-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			s := toggler(true, true)()
			s.Handle("tools/call", ctReply(`{"content":[],"isError":true}`))
			return s
		}, want: reports.Warn},
		{name: "--trigger-tool passes", id: "NOTIF-LC-01", rev: "2025-03-26", srv: func() *conformtest.Server {
			return (&ctToggler{notify: true, change: true}).server("reload_plugins")
		}, opts: []func(*conform.Config){func(c *conform.Config) { c.TriggerTool = &conform.CallSpec{Name: "reload_plugins"} }}, want: reports.Pass, contains: "--trigger-tool reload_plugins"},
		{name: "--trigger-cmd failure is an error", id: "NOTIF-LC-01", rev: "2025-06-18", srv: noTools,
			opts: []func(*conform.Config){func(c *conform.Config) { c.TriggerCmd = "echo nope >&2; exit 3" }}, want: reports.Error, contains: "nope"},
		{name: "--trigger-cmd change without notification warns", id: "NOTIF-LC-01", rev: "2025-06-18", srv: cmdServer,
			opts: []func(*conform.Config){func(c *conform.Config) { c.TriggerCmd = "touch " + flagFile }}, want: reports.Warn, contains: "added b"},

		// NOTIF-LC-UNDECLARED-01
		{name: "declared passes", id: "NOTIF-LC-UNDECLARED-01", rev: "2025-06-18", srv: ctInitNotify(`{"tools":{"listChanged":true}}`, lc), want: reports.Pass},
		{name: "undeclared fails from 2025-06-18", id: "NOTIF-LC-UNDECLARED-01", rev: "2025-06-18", srv: ctInitNotify(`{"tools":{}}`, lc), want: reports.Fail},
		{name: "undeclared warns in 2025-03-26", id: "NOTIF-LC-UNDECLARED-01", rev: "2025-03-26", srv: ctInitNotify(`{}`, lc), want: reports.Warn, contains: "absent"},
		{name: "none seen is not exercised", id: "NOTIF-LC-UNDECLARED-01", rev: "2025-03-26", srv: noTools, want: reports.Skip, reason: reports.NotExercised},

		// NOTIF-LC-SHAPE-01
		{name: "plain notification passes", id: "NOTIF-LC-SHAPE-01", rev: "2025-11-25", srv: ctInitNotify(`{"tools":{"listChanged":true}}`, lc), want: reports.Pass},
		{name: "an id fails", id: "NOTIF-LC-SHAPE-01", rev: "2025-11-25", srv: ctInitNotify(`{"tools":{"listChanged":true}}`, `{"jsonrpc":"2.0","id":99,"method":"notifications/tools/list_changed"}`), want: reports.Fail, contains: "id 99"},
		{name: "params not an object fails", id: "NOTIF-LC-SHAPE-01", rev: "2024-11-05", srv: ctInitNotify(`{"tools":{"listChanged":true}}`, conformtest.Notification(ctListChanged, `5`)), want: reports.Fail},
		{name: "extra params are a note", id: "NOTIF-LC-SHAPE-01", rev: "2025-06-18", srv: ctInitNotify(`{"tools":{"listChanged":true}}`, conformtest.Notification(ctListChanged, `{"_meta":{},"why":"x"}`)), want: reports.Pass, contains: "why"},
		{name: "none seen is not exercised", id: "NOTIF-LC-SHAPE-01", rev: "2025-06-18", srv: noTools, want: reports.Skip, reason: reports.NotExercised},
	}
	ctRun(t, cases)
}

// The transcript-wide checks settle the session with a barrier, but one still
// standing (nothing sent or received since it was answered) is not sent again: the
// run's settle and the two list_changed checks cost one ping, not three.
func TestSettledBarrierIsNotSentAgain(t *testing.T) {
	var mu sync.Mutex
	pings := 0
	srv := conformtest.NewServer()
	srv.Handle("ping", func(req *wire.Message) []string {
		mu.Lock()
		pings++
		mu.Unlock()
		return []string{conformtest.Result(req, `{}`)}
	})
	vs := conformtest.JudgeAll(t, []string{"NOTIF-LC-SHAPE-01", "NOTIF-LC-UNDECLARED-01"}, "2025-06-18", srv)
	for _, v := range vs {
		if v.Status != reports.Skip {
			t.Errorf("verdict %s (%s), want a skip: nothing was announced", v.Status, v.Message)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if pings != 1 {
		t.Errorf("%d pings were sent, want 1", pings)
	}
}
