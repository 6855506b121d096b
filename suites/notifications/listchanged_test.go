package notifications

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
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
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
		return append(out, conformtest.Result(req, conformtest.Content(conformtest.TextBlock)))
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
			return (&ctToggler{notify: notify, change: change}).server(toolkit.TriggerFixture)
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
	cases := []conformtest.Case{
		// NOTIF-LC-01
		{Name: "notification and change pass", ID: "NOTIF-LC-01", Rev: "2025-06-18", Srv: toggler(true, true), Want: reports.Pass, Contains: "added test_dynamic_tool"},
		{Name: "change without notification warns", ID: "NOTIF-LC-01", Rev: "2024-11-05", Srv: toggler(false, true), Want: reports.Warn, Contains: "no notification after"},
		{Name: "notification without change warns", ID: "NOTIF-LC-01", Rev: "2025-11-25", Srv: toggler(true, false), Want: reports.Warn, Contains: "the same"},
		{Name: "no change and no notification is not exercised", ID: "NOTIF-LC-01", Rev: "2025-11-25", Srv: toggler(false, false), Want: reports.Skip, Reason: reports.NotExercised},
		// Undeclared: not applicable, but the trigger still fires so that
		// NOTIF-LC-UNDECLARED-01 sees what it provokes (issue 9 item 1).
		{Name: "listChanged not declared is not applicable, the change is provoked all the same", ID: "NOTIF-LC-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			s := toggler(true, true)()
			s.Capabilities = `{"tools":{}}`
			return s
		}, Want: reports.Skip, Reason: reports.NotApplicable, Contains: "changed anyway with the fixture tool test_trigger_tool_change (added test_dynamic_tool)"},
		{Name: "listChanged not declared and no trigger is not applicable", ID: "NOTIF-LC-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			s := conformtest.NewServer()
			s.Capabilities = `{"tools":{}}`
			return s
		}, Want: reports.Skip, Reason: reports.NotApplicable, Contains: "nothing can change"},
		{Name: "no tools capability is not applicable and not provoked", ID: "NOTIF-LC-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			s := toggler(true, true)()
			s.Capabilities = `{}`
			s.Handle("tools/call", func(req *wire.Message) []string { panic("the trigger was called without a tools capability") })
			return s
		}, Want: reports.Skip, Reason: reports.NotApplicable, Contains: "no tools capability"},
		{Name: "no trigger needs the fixture", ID: "NOTIF-LC-01", Rev: "2025-06-18", Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NeedsFixture, Contains: "--trigger-cmd"},
		{Name: "a failing trigger is an error", ID: "NOTIF-LC-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			s := toggler(true, true)()
			s.Handle("tools/call", func(req *wire.Message) []string { return []string{conformtest.Error(req, -32603, "boom")} })
			return s
		}, Want: reports.Error},
		{Name: "an isError trigger warns", ID: "NOTIF-LC-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			s := toggler(true, true)()
			s.Handle("tools/call", conformtest.Reply(`{"content":[],"isError":true}`))
			return s
		}, Want: reports.Warn},
		{Name: "--trigger-tool passes", ID: "NOTIF-LC-01", Rev: "2025-03-26", Srv: func() *conformtest.Server {
			return (&ctToggler{notify: true, change: true}).server("reload_plugins")
		}, Opts: []func(*conform.Config){func(c *conform.Config) { c.TriggerTool = &conform.CallSpec{Name: "reload_plugins"} }}, Want: reports.Pass, Contains: "--trigger-tool reload_plugins"},
		{Name: "--trigger-cmd failure is an error", ID: "NOTIF-LC-01", Rev: "2025-06-18", Srv: conformtest.NewServer,
			Opts: []func(*conform.Config){func(c *conform.Config) { c.TriggerCmd = "echo nope >&2; exit 3" }}, Want: reports.Error, Contains: "nope"},
		{Name: "--trigger-cmd change without notification warns", ID: "NOTIF-LC-01", Rev: "2025-06-18", Srv: cmdServer,
			Opts: []func(*conform.Config){func(c *conform.Config) { c.TriggerCmd = "touch " + flagFile }}, Want: reports.Warn, Contains: "added b"},

		// NOTIF-LC-UNDECLARED-01
		{Name: "declared passes", ID: "NOTIF-LC-UNDECLARED-01", Rev: "2025-06-18", Srv: ctInitNotify(`{"tools":{"listChanged":true}}`, lc), Want: reports.Pass},
		{Name: "undeclared fails from 2025-06-18", ID: "NOTIF-LC-UNDECLARED-01", Rev: "2025-06-18", Srv: ctInitNotify(`{"tools":{}}`, lc), Want: reports.Fail},
		{Name: "undeclared warns in 2025-03-26", ID: "NOTIF-LC-UNDECLARED-01", Rev: "2025-03-26", Srv: ctInitNotify(`{}`, lc), Want: reports.Warn, Contains: "absent"},
		{Name: "none seen is not exercised", ID: "NOTIF-LC-UNDECLARED-01", Rev: "2025-03-26", Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NotExercised},

		// NOTIF-LC-SHAPE-01
		{Name: "plain notification passes", ID: "NOTIF-LC-SHAPE-01", Rev: "2025-11-25", Srv: ctInitNotify(`{"tools":{"listChanged":true}}`, lc), Want: reports.Pass},
		{Name: "an id fails", ID: "NOTIF-LC-SHAPE-01", Rev: "2025-11-25", Srv: ctInitNotify(`{"tools":{"listChanged":true}}`, `{"jsonrpc":"2.0","id":99,"method":"notifications/tools/list_changed"}`), Want: reports.Fail, Contains: "id 99"},
		{Name: "params not an object fails", ID: "NOTIF-LC-SHAPE-01", Rev: "2024-11-05", Srv: ctInitNotify(`{"tools":{"listChanged":true}}`, conformtest.Notification(ctListChanged, `5`)), Want: reports.Fail},
		{Name: "extra params are a note", ID: "NOTIF-LC-SHAPE-01", Rev: "2025-06-18", Srv: ctInitNotify(`{"tools":{"listChanged":true}}`, conformtest.Notification(ctListChanged, `{"_meta":{},"why":"x"}`)), Want: reports.Pass, Contains: "why"},
		{Name: "none seen is not exercised", ID: "NOTIF-LC-SHAPE-01", Rev: "2025-06-18", Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NotExercised},
	}
	conformtest.RunCases(t, cases)
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
