package refserver

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// ourGoroutines returns the stacks of running goroutines that execute code of this
// package, except the caller's own.
func ourGoroutines() []string {
	buf := make([]byte, 4<<20)
	n := runtime.Stack(buf, true)
	var ours []string
	for i, g := range strings.Split(string(buf[:n]), "\n\n") {
		if i > 0 && strings.Contains(g, "mcp-conform/fixtures.") && !strings.Contains(g, "testing.tRunner") {
			ours = append(ours, g)
		}
	}
	return ours
}

// noLeaks fails the test when, after its cleanups, goroutines running this package's
// code outlive it (polled for up to two seconds). Use it only in tests that do not
// run in parallel with others.
func noLeaks(t *testing.T) {
	t.Helper()
	before := len(ourGoroutines())
	t.Cleanup(func() {
		deadline := time.Now().Add(2 * time.Second)
		for {
			left := ourGoroutines()
			if len(left) <= before {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines leaked:\n%s", len(left)-before, strings.Join(left, "\n\n"))
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
