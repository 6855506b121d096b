package utilities

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// judgeOverHTTP runs check id at rev against h, a scripted Streamable HTTP server
// served at /mcp, and returns its verdict.
func judgeOverHTTP(t *testing.T, h http.Handler, id, rev string) conform.Verdict {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dial := func(ctx context.Context) (transport.Transport, error) {
		return transport.DialStreamableHTTP(ctx, transport.HTTPConfig{URL: srv.URL + "/mcp", Timeout: 2 * time.Second})
	}
	vs, err := conform.JudgeAll(ctx, conform.Config{Timeout: 2 * time.Second, KillGrace: 10 * time.Millisecond},
		[]*conform.Check{conform.Lookup(id)}, revision.MustLookup(rev), dial)
	if err != nil {
		t.Fatalf("judge %s: %v", id, err)
	}
	return vs[0]
}

// writeEvent writes one SSE event of type message carrying data.
func writeEvent(w io.Writer, data []byte) { fmt.Fprintf(w, "event: message\ndata: %s\n\n", data) }

// serveQueue answers a GET with an SSE stream of queue's messages, each flushed, until
// queue is closed (the session was deleted: the stream ends) or the client goes.
func serveQueue(w http.ResponseWriter, r *http.Request, queue <-chan []byte) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		select {
		case b, ok := <-queue:
			if !ok {
				return
			}
			writeEvent(w, b)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}
