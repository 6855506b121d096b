// Package subscribetest scripts the servers of the list change probes' tests
// (PROMPT-LC-01, RES-LC-01).
package subscribetest

import (
	"sync"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// TriggeredList scripts s with the fixture trigger tool test_trigger_tool_change
// and capabilities tools and <capability> with listChanged; <capability>/list
// answers {key: before}, or {key: after} once the trigger changed the list
// (changes; each call toggles it). The trigger announces a change with
// notifications/<capability>/list_changed when announce is set.
func TriggeredList(s *conformtest.Server, capability, key, before, after string, announce, changes bool) {
	var mu sync.Mutex
	on := false
	s.Tools(`{"name":"test_trigger_tool_change","inputSchema":{"type":"object"}}`)
	s.Capabilities = `{"tools":{},"` + capability + `":{"listChanged":true}}`
	s.Handle("tools/call", func(req *wire.Message) []string {
		mu.Lock()
		defer mu.Unlock()
		out := []string{}
		if changes {
			on = !on
		}
		if announce {
			out = append(out, conformtest.Notification("notifications/"+capability+"/list_changed", ""))
		}
		return append(out, conformtest.Result(req, conformtest.Content(conformtest.TextBlock)))
	})
	s.Handle(capability+"/list", func(req *wire.Message) []string {
		mu.Lock()
		defer mu.Unlock()
		list := before
		if on {
			list = after
		}
		return []string{conformtest.Result(req, `{"`+key+`":`+list+`}`)}
	})
}
