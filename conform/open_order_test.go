package conform_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/refserver"
)

// The first revision's session opens first, beside it only the era probe (the
// modern column's), and the others once the first has answered: a server slow to
// start is not started once per revision at the same moment.
func TestOneSessionOpensFirst(t *testing.T) {
	tests := []struct {
		name      string
		revisions []string
		eraProbe  bool // the modern column's server/discover opens beside the first
	}{
		{"legacy revisions", []string{"2025-03-26", "2025-06-18", "2025-11-25"}, false},
		{"with the era probe", []string{"2025-03-26", "2025-06-18", "2026-07-28"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref := refserver.NewStreamableHandler(refserver.Options{})
			var mu sync.Mutex
			var firstDone time.Time
			var initStarts []time.Time
			discoverSeen := make(chan struct{})
			var seenOnce sync.Once
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if bytes.Contains(body, []byte(`"method":"server/discover"`)) {
					seenOnce.Do(func() { close(discoverSeen) })
				}
				if !bytes.Contains(body, []byte(`"method":"initialize"`)) {
					ref.ServeHTTP(w, r)
					return
				}
				mu.Lock()
				initStarts = append(initStarts, time.Now())
				n := len(initStarts)
				mu.Unlock()
				if n == 1 {
					if tc.eraProbe {
						// The first answers only once the era probe has asked: a
						// barrier, which a run that opened it after the first
						// would never pass.
						select {
						case <-discoverSeen:
						case <-time.After(10 * time.Second):
							t.Error("the era probe did not open beside the first session")
						}
					} else {
						time.Sleep(100 * time.Millisecond) // a slow first start
					}
				}
				ref.ServeHTTP(w, r)
				if n == 1 {
					mu.Lock()
					firstDone = time.Now()
					mu.Unlock()
				}
			})
			res, err := conform.RunLibrary(context.Background(), conform.Handler(h), conform.Revisions(tc.revisions...),
				conform.Configure(func(c *conform.Config) { c.Focus = []string{"PING-01", "MOD-DISCOVER-01"} }))
			if res == nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(initStarts) < 2 {
				t.Fatalf("%d legacy sessions opened, want at least 2", len(initStarts))
			}
			for i, at := range initStarts[1:] {
				if at.Before(firstDone) {
					t.Errorf("opening %d started %s before the first had answered", i+2, firstDone.Sub(at))
				}
			}
		})
	}
}
