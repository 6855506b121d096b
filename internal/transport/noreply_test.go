package transport

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestStreamableNoReply: a POST the server ends without a reply is ErrNoReply (the
// HTTP form of silence, judged like a stdio server's), while a server that is gone
// is not.
func TestStreamableNoReply(t *testing.T) {
	hangUp := func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	truncated := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0",`))
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"connection closed before a status line", hangUp},
		{"reply body cut short", truncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			tr := dialStreamable(t, srv.URL, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"abc"}`))
			if !errors.Is(err, ErrNoReply) {
				t.Fatalf("Send = %v, want ErrNoReply", err)
			}
		})
	}
	t.Run("a server that is gone is not a missing reply", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(hangUp))
		url := srv.URL
		srv.Close()
		tr := dialStreamable(t, url, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := tr.Send(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if !errors.Is(err, ErrGone) || errors.Is(err, ErrNoReply) {
			t.Fatalf("Send = %v, want ErrGone, not ErrNoReply", err)
		}
	})
}
