package notifications

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports"
	"io"
	"net/http"
	"slices"
	"strings"
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

// A transcript bound too small for the run's short messages drops the very
// notifications the checks wait for: against the reference server, which sends every
// one, a check must then not fail or warn for a message it never saw, but say it is
// not verified. (With 8 KiB for the whole run, NOTIF-LC-01 warned that no
// list_changed came, and BASE-ERR-ID-01 failed on an error naming an id whose
// request the transcript had dropped.)
func TestSmallTranscriptBoundLeavesChecksUnverified(t *testing.T) {
	ref := refserver.NewStreamableHandler(refserver.Options{})
	res, err := conform.RunLibrary(context.Background(), conform.Handler(ref), conform.Revisions("2025-11-25"),
		conform.Configure(func(c *conform.Config) {
			c.Focus = []string{"NOTIF-LC-01", "BASE-ERR-ID-01"}
			c.MaxTranscriptBytes = 8 << 10
		}))
	if res == nil {
		t.Fatal(err)
	}
	unverified := 0
	for _, rev := range res.Report.Revisions {
		for _, c := range rev.Checks {
			switch {
			case c.Status == reports.Fail || c.Status == reports.Warn:
				t.Errorf("%s %s = %s (%s): judged with messages the transcript dropped", rev.Revision, c.ID, c.Status, c.Message)
			case c.Status == reports.Error && strings.Contains(c.Message, "--max-transcript-bytes"):
				unverified++
			}
		}
	}
	if unverified == 0 {
		t.Error("no check said the bound left it unverified: the run did not drop what it needed, or the test no longer shows it")
	}
}
