package utilities

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/reports"
)

// leakServer is a scripted Streamable HTTP server with the shape issue 32 recorded
// of mcp-framework over that transport: JSON replies to POSTs, server messages on
// each session's GET stream as `event: message` SSE frames, and a tools/call's
// progress written to the GET stream of every session (broadcast) or of the calling
// session only (not broadcast). A DELETE ends the session's GET stream once what was
// queued on it is written, so that the column's settle, which reads every stream the
// server ended to its end, has every progress notification: a server that refused
// the DELETE left the count to how far the client had read when it gave up.
type leakServer struct {
	broadcast bool

	mu      sync.Mutex
	n       int
	streams map[string]chan []byte // session id → its GET stream's frames
	ended   map[string]bool        // sessions ended by a DELETE (their queue closed)
}

func (s *leakServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Method == http.MethodGet {
		s.mu.Lock()
		ch := s.stream(sid)
		s.mu.Unlock()
		serveQueue(w, r, ch)
		return
	}
	if r.Method == http.MethodDelete {
		s.mu.Lock()
		if !s.ended[sid] {
			s.ended[sid] = true
			close(s.stream(sid))
		}
		s.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
			Name            string `json:"name"`
			Meta            struct {
				Token json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(b, &m) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	result := `{}`
	switch m.Method {
	case "initialize":
		s.mu.Lock()
		s.n++
		sid = fmt.Sprintf("leak-session-%d", s.n)
		s.stream(sid) // before the GET stream opens: what is sent meanwhile waits in it
		s.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", sid)
		result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"mcp-framework-like","version":"0.2"}}`, m.Params.ProtocolVersion)
	case "tools/list":
		result = `{"tools":[{"name":"test_tool_with_progress","inputSchema":{"type":"object","properties":{}}}]}`
	case "tools/call":
		for i := 1; i <= 3; i++ {
			s.send(sid, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":3}}`, m.Params.Meta.Token, i))
		}
		result = `{"content":[{"type":"text","text":"done"}]}`
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
}

// stream is session sid's GET stream's queue, made when the session is, so that a
// message sent before the client's GET arrives is not lost (which made the test
// depend on which came first). s.mu must be held.
func (s *leakServer) stream(sid string) chan []byte {
	ch, ok := s.streams[sid]
	if !ok {
		ch = make(chan []byte, 64)
		s.streams[sid] = ch
	}
	return ch
}

// send writes a notification of session sid's call to its GET stream, or to every
// session's when the server broadcasts.
func (s *leakServer) send(sid, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ch := range s.streams {
		if (id == sid || s.broadcast) && !s.ended[id] {
			ch <- []byte(msg)
		}
	}
}

// judgeLeakServer runs PROG-TOKEN-01 at rev against a leakServer.
func judgeLeakServer(t *testing.T, rev string, broadcast bool) conform.Verdict {
	t.Helper()
	return judgeOverHTTP(t, &leakServer{broadcast: broadcast, streams: map[string]chan []byte{}, ended: map[string]bool{}}, "PROG-TOKEN-01", rev)
}

// A server that writes one session's progress to every session's GET stream breaks
// 2024-11-05's progress.mdx ("MUST only reference tokens that: Were provided in an
// active request"): PROG-TOKEN-01 reports it there. From 2025-03-26 the leak is
// SHTTP-NO-BROADCAST-01's, and the progress row judges each session's own tokens.
func TestProgressLeakedToAnotherSession(t *testing.T) {
	tests := []struct {
		name      string
		rev       string
		broadcast bool
		want      reports.Status
		says      string
	}{
		{"broadcast at 2024-11-05", "2024-11-05", true, reports.Fail, "no request of this session did"},
		{"own stream at 2024-11-05", "2024-11-05", false, reports.Pass, "none of the 3 of a second session's call"},
		{"broadcast at 2025-06-18 is the transport row's", "2025-06-18", true, reports.Pass, "each for an active request's token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := judgeLeakServer(t, tc.rev, tc.broadcast)
			if v.Status != tc.want || !strings.Contains(v.Message, tc.says) {
				t.Errorf("PROG-TOKEN-01 = %s (%s), want %s mentioning %q", v.Status, v.Message, tc.want, tc.says)
			}
		})
	}
}
