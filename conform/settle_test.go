package conform_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
	_ "github.com/mcp-conform/mcp-conform/suites" // the checks judged here
)

// lateServer is a scripted Streamable HTTP server whose GET stream carries one
// message only when the session ends: when the client DELETEs the session, it writes
// strayMsg on the GET stream and then ends it. A suite that judges transcripts before
// every channel is complete never sees that message (issue 9, item 4: PROG-TOKEN-01
// flipping between fail and skip); one that settles first always does.
type lateServer struct {
	strayMsg string
	// dropListParams makes tools/list with non-object params go unanswered (the POST
	// ends with 202 and no body), as a server that drops what it cannot parse.
	dropListParams bool

	mu      sync.Mutex
	ending  chan struct{} // closed by DELETE
	written chan struct{} // closed once the GET stream wrote strayMsg
}

func newLateServer(stray string) *lateServer {
	return &lateServer{strayMsg: stray, ending: make(chan struct{}), written: make(chan struct{})}
}

func (s *lateServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-s.ending:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", s.strayMsg)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
		}
		s.mu.Lock()
		select {
		case <-s.written:
		default:
			close(s.written)
		}
		s.mu.Unlock()
	case http.MethodDelete:
		s.mu.Lock()
		select {
		case <-s.ending:
		default:
			close(s.ending)
		}
		s.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	case http.MethodPost:
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch msg.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			w.Header().Set("Mcp-Session-Id", "s-1")
			result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"late","version":"1"}}`, p.ProtocolVersion)
		case "tools/list":
			if s.dropListParams && len(msg.Params) > 0 && msg.Params[0] != '{' {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			result = `{"tools":[]}`
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
}

func judgeHTTP(t *testing.T, h http.Handler, id, rev string) conform.Verdict {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := conform.Lookup(id)
	if c == nil {
		t.Fatalf("no check %s", id)
	}
	r := revision.MustLookup(rev)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(ctx context.Context) (transport.Transport, error) {
		return transport.DialStreamableHTTP(ctx, transport.HTTPConfig{URL: srv.URL + "/mcp"})
	}
	v, err := conform.Judge(ctx, conform.Config{Timeout: 3 * time.Second, KillGrace: 10 * time.Millisecond}, c, r, dial)
	if err != nil {
		t.Fatalf("judge %s: %v", id, err)
	}
	return v
}

// A progress notification for a token no request carried, arriving on the GET stream
// only as the session ends, fails PROG-TOKEN-01 every time: the transcript-wide
// checks judge after every session of the revision has been ended and its streams
// read to their end.
func TestTranscriptChecksJudgeCompleteTraffic(t *testing.T) {
	stray := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x-stray","progress":1}}`
	for run := range 3 {
		v := judgeHTTP(t, newLateServer(stray), "PROG-TOKEN-01", "2025-06-18")
		if v.Status != reports.Fail || !strings.Contains(v.Message, "x-stray") {
			t.Fatalf("run %d: PROG-TOKEN-01 = %s (%s), want fail naming the stray token", run, v.Status, v.Message)
		}
	}
}

// A request the server drops is proven unanswered with a ping barrier, long before
// the request timeout.
func TestSilenceIsProvenByABarrier(t *testing.T) {
	srv := newLateServer(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}`)
	srv.dropListParams = true
	start := time.Now()
	v := judgeHTTP(t, srv, "BASE-INVALID-PARAMS-01", "2025-06-18")
	if v.Status != reports.Fail || !strings.Contains(v.Message, "barrier request sent after it was answered") {
		t.Fatalf("BASE-INVALID-PARAMS-01 = %s (%s), want fail proven by the barrier", v.Status, v.Message)
	}
	if d := time.Since(start); d >= 3*time.Second {
		t.Errorf("the verdict took %s: the request timeout (3s) was waited out", d)
	}
}
