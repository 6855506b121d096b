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

// The first revision's session opens alone, and the others only once it has: a
// server slow to start is not started once per revision at the same moment.
func TestOneSessionOpensFirst(t *testing.T) {
	ref := refserver.NewStreamableHandler(refserver.Options{})
	var mu sync.Mutex
	var firstDone time.Time
	var starts []time.Time
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		opening := bytes.Contains(body, []byte(`"method":"initialize"`)) || bytes.Contains(body, []byte(`"method":"server/discover"`))
		if !opening {
			ref.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		starts = append(starts, time.Now())
		n := len(starts)
		mu.Unlock()
		if n == 1 {
			time.Sleep(100 * time.Millisecond) // a slow first start
		}
		ref.ServeHTTP(w, r)
		if n == 1 {
			mu.Lock()
			firstDone = time.Now()
			mu.Unlock()
		}
	})
	res, err := conform.RunLibrary(context.Background(), conform.Handler(h), conform.Revisions("2025-03-26", "2025-06-18", "2025-11-25"),
		conform.Configure(func(c *conform.Config) { c.Focus = []string{"PING-01"} }))
	if res == nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(starts) < 3 {
		t.Fatalf("%d sessions opened, want at least 3", len(starts))
	}
	for i, at := range starts[1:] {
		if at.Before(firstDone) {
			t.Errorf("opening %d started %s before the first had answered", i+2, firstDone.Sub(at))
		}
	}
}
