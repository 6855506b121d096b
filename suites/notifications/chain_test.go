package notifications

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/refserver"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// chainEvent is one request of a shared server's chain of tool-list changes: a
// call of the trigger, or a tools/list without a cursor (a walk's start, or a first
// page asked for alone), with the revision it was made at.
type chainEvent struct{ rev, what string }

// On a shared server the revisions change the tool list one at a time, and their
// first changes come in revision order, oldest first, whatever order their workers
// reached the chain in: the same order of changes every run. NOTIF-LISTEN-LC-R5-01
// takes its place right after NOTIF-LISTEN-FILTER-R5-01's, so the listing the one
// keeps after its change is the other's before: no other revision's change
// (RES-LC-01's trigger changes the tool list too) comes between them to make it
// stale, and between the two changes the 2026-07-28 column walks the list once.
func TestChainOrdersRevisionsAndKeepsTheListing(t *testing.T) {
	const r5 = "2026-07-28"
	revs := []string{"2025-06-18", "2025-11-25", r5}
	ids := []string{"NOTIF-LC-01", "RES-LC-01", "NOTIF-LISTEN-FILTER-R5-01", "NOTIF-LISTEN-LC-R5-01"}
	var firstOrder []string
	for run := range 3 {
		events := runChain(t, revs, ids)
		var order, firsts []string // the revisions of the trigger calls, in order
		for _, e := range events {
			if e.what == "trigger" {
				order = append(order, e.rev)
				if !slices.Contains(firsts, e.rev) {
					firsts = append(firsts, e.rev)
				}
			}
		}
		if !slices.Equal(firsts, revs) {
			t.Errorf("run %d: first changes in the order %v, want %v", run, firsts, revs)
		}
		if run == 0 {
			firstOrder = order
		} else if !slices.Equal(order, firstOrder) {
			t.Errorf("run %d: changes in the order %v; the first run's: %v", run, order, firstOrder)
		}
		// Between the 2026-07-28 column's two changes: the first's walk after its
		// change, and the first page the second asks for before its own
		// (subscribe.FireListed); no walk before it, and no other revision's change.
		var between []chainEvent
		triggers := 0
		for _, e := range events {
			switch {
			case e.what == "trigger" && e.rev == r5:
				triggers++
			case triggers == 1:
				between = append(between, e)
			}
		}
		want := []chainEvent{{r5, "first page"}, {r5, "first page"}}
		if triggers != 2 || !slices.Equal(between, want) {
			t.Errorf("run %d: %d changes at %s, with %v between the first two; want 2, with %v", run, triggers, r5, between, want)
		}
	}
}

// runChain runs ids at revs against one reference server over Streamable HTTP,
// wants every verdict a pass, and returns the trigger calls and tools/list
// requests in the order the server got them.
func runChain(t *testing.T, revs, ids []string) []chainEvent {
	t.Helper()
	ref := refserver.NewStreamableHandler(refserver.Options{})
	var mu sync.Mutex
	var events []chainEvent
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				Method string `json:"method"`
				Params struct {
					Name   string  `json:"name"`
					Cursor *string `json:"cursor"`
				} `json:"params"`
			}
			_ = json.Unmarshal(body, &m)
			rev := r.Header.Get("Mcp-Protocol-Version")
			mu.Lock()
			switch {
			case m.Method == "tools/call" && m.Params.Name == toolkit.TriggerFixture:
				events = append(events, chainEvent{rev, "trigger"})
			case m.Method == "tools/list" && m.Params.Cursor == nil:
				events = append(events, chainEvent{rev, "first page"})
			}
			mu.Unlock()
		}
		ref.ServeHTTP(w, r)
	})
	conformtest.RunPassing(t, h, revs, ids...)
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(events)
}
