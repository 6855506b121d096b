package base

import (
	"net/http"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/refserver"
)

// On a shared server every revision makes its transcript probes before any settles:
// a probe's notification may reach every session, so none may come after a
// session's settle (DELETE over Streamable HTTP) has ended what its transcript
// holds. BASE-RESP-ID-01's probe posts requests on each revision's main session;
// no POST may reach the server after its first DELETE.
func TestEveryRevisionProbesBeforeAnySettles(t *testing.T) {
	ref := refserver.NewStreamableHandler(refserver.Options{})
	var mu sync.Mutex
	var order []string // "POST" or "DELETE", as the requests came
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost || r.Method == http.MethodDelete {
			mu.Lock()
			order = append(order, r.Method)
			mu.Unlock()
		}
		ref.ServeHTTP(w, r)
	})
	revs := []string{"2025-03-26", "2025-06-18", "2025-11-25"}
	conformtest.RunPassing(t, h, revs, "BASE-RESP-ID-01")
	mu.Lock()
	defer mu.Unlock()
	deletes, postsAfter := 0, 0
	for _, m := range order {
		switch {
		case m == http.MethodDelete:
			deletes++
		case deletes > 0:
			postsAfter++
		}
	}
	if deletes < len(revs) || postsAfter > 0 {
		t.Errorf("%d DELETEs, %d POSTs after the first (order %v): want one DELETE a revision, and every probe's POST before them", deletes, postsAfter, order)
	}
}
