package utilities

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/loglevel"
)

// lgHTTPServer is a scripted legacy Streamable HTTP server with the logging fixture
// tool: it answers a tools/call with an SSE stream that carries the call's log
// messages before its result (or a JSON result, its messages on the GET stream), so
// that LOG-FILTER-01's filtered round is judged where the call's own stream may
// prove every message in (lgOnCallStream).
type lgHTTPServer struct {
	lgHTTPScript

	mu        sync.Mutex
	threshold int
	get       chan []byte   // the session's GET stream
	pinged    chan struct{} // closed once the ping after a trailing call is answered
}

func (s *lgHTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		s.mu.Lock()
		get := s.get // closed by the DELETE
		s.mu.Unlock()
		serveQueue(w, r, get)
		return
	case http.MethodDelete:
		s.mu.Lock()
		if s.get != nil {
			close(s.get)
			s.get = nil
		}
		s.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodPost:
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
			Level           string `json:"level"`
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
	var logs []string
	switch m.Method {
	case "initialize":
		w.Header().Set("Mcp-Session-Id", "lg-session")
		result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"lg-http","version":"1"}}`, m.Params.ProtocolVersion)
	case "tools/list":
		result = `{"tools":[{"name":"` + loglevel.Fixture + `","inputSchema":{"type":"object","properties":{}}}]}`
	case "ping":
		s.mu.Lock()
		pinged := s.pinged
		s.pinged = nil
		s.mu.Unlock()
		if pinged != nil {
			// The trailing message goes out only after this reply has: a settle
			// that read the barrier's reply as the end would miss it.
			defer close(pinged)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
			w.(http.Flusher).Flush()
			return
		}
	case loglevel.SetLevel:
		s.mu.Lock()
		s.threshold = max(loglevel.Rank(m.Params.Level), 0)
		s.mu.Unlock()
	case "tools/call":
		s.mu.Lock()
		th := s.threshold
		s.mu.Unlock()
		if s.ignoreLevel {
			th = 0
		}
		for i, level := range loglevel.Levels {
			if i >= th {
				logs = append(logs, fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":{"level":%q,"data":"at %s"}}`, loglevel.Method, level, level))
			}
		}
		result = `{"content":[{"type":"text","text":"done"}]}`
	}
	reply := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	if m.Method != "tools/call" || s.json {
		s.mu.Lock()
		for _, l := range logs {
			if s.get != nil {
				s.get <- []byte(l)
			}
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, reply)
		return
	}
	var pinged chan struct{}
	if s.trailing {
		pinged = make(chan struct{})
		s.mu.Lock()
		s.pinged = pinged
		s.mu.Unlock()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, l := range logs {
		writeEvent(w, []byte(l))
	}
	writeEvent(w, []byte(reply))
	w.(http.Flusher).Flush()
	if pinged != nil {
		select {
		case <-pinged:
		case <-r.Context().Done():
			return
		}
		writeEvent(w, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":{"level":"debug","data":"after the result"}}`, loglevel.Method))
	}
}

// lgHTTPScript is how an lgHTTPServer sends the fixture call's messages.
type lgHTTPScript struct {
	ignoreLevel bool // every level is sent whatever the level set
	json        bool // the result in a JSON body, the messages on the GET stream
	trailing    bool // a debug message on the call's stream after its result, once the barrier is answered
}

// TestLogFilterOverStreamableHTTP: over legacy Streamable HTTP the filtered round
// reads the messages of the call's own stream, those after its result too, and the
// GET stream's.
func TestLogFilterOverStreamableHTTP(t *testing.T) {
	tests := []struct {
		name string
		srv  lgHTTPScript
		want reports.Status
		says string
	}{
		{"filtered on the call's stream passes", lgHTTPScript{}, reports.Pass, "only [error, critical, alert, emergency]"},
		{"levels below error on the call's stream warn", lgHTTPScript{ignoreLevel: true}, reports.Warn, `level "debug" after logging/setLevel error`},
		{"a message after the result on the call's stream is seen", lgHTTPScript{trailing: true}, reports.Warn, `level "debug" after logging/setLevel error`},
		{"filtered on the GET stream passes", lgHTTPScript{json: true}, reports.Pass, "only [error, critical, alert, emergency]"},
		{"levels below error on the GET stream warn", lgHTTPScript{json: true, ignoreLevel: true}, reports.Warn, `level "debug" after logging/setLevel error`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := judgeOverHTTP(t, &lgHTTPServer{lgHTTPScript: tc.srv, get: make(chan []byte, 64)}, "LOG-FILTER-01", "2025-11-25")
			if v.Status != tc.want || !strings.Contains(v.Message, tc.says) {
				t.Errorf("LOG-FILTER-01 = %s (%s), want %s mentioning %q", v.Status, v.Message, tc.want, tc.says)
			}
		})
	}
}
