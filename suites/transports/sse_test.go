package transports

import (
	"cmp"
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
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// sseServer is a scripted 2024-11-05 HTTP+SSE server: one session at a time,
// correct by default, each field breaks one rule.
type sseServer struct {
	anyOrigin  bool   // Origin is not checked
	otherEvent string // every reply is also sent as an event of this type
	before     string // raw SSE text sent before the endpoint event
	endpoint   string // the endpoint event's data ("": /messages)
	getStatus  int    // the GET's status (0: 200)
	getType    string // the GET's Content-Type ("": text/event-stream)
	postStatus int    // every POST's status (0: 202, and the message is served)
	mu         sync.Mutex
	push       chan string
}

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && !strings.HasPrefix(o, "http://127.0.0.1") && !s.anyOrigin {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	if s.push == nil {
		s.push = make(chan string, 64)
	}
	push := s.push
	s.mu.Unlock()
	switch {
	case r.Method == http.MethodGet:
		w.Header().Set("Content-Type", cmp.Or(s.getType, "text/event-stream"))
		w.WriteHeader(cmp.Or(s.getStatus, http.StatusOK))
		if s.getStatus != 0 || s.getType != "" {
			return
		}
		fmt.Fprintf(w, "%sevent: endpoint\ndata: %s\n\n", s.before, cmp.Or(s.endpoint, "/messages"))
		w.(http.Flusher).Flush()
		for {
			select {
			case m := <-push:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
				if s.otherEvent != "" {
					fmt.Fprintf(w, "event: %s\ndata: %s\n\n", s.otherEvent, m)
				}
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case r.Method == http.MethodPost:
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		_ = json.Unmarshal(b, &m)
		if s.postStatus != 0 {
			http.Error(w, "refused", s.postStatus)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		if m.ID == nil || m.Method == "" {
			return
		}
		result := `{}`
		if m.Method == "initialize" {
			result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"scripted","version":"1"}}`, m.Params.ProtocolVersion)
		}
		push <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}
}

// judgeSSE runs one check in 2024-11-05 against srv over HTTP+SSE.
func judgeSSE(t *testing.T, srv http.Handler, id string) conform.Verdict {
	t.Helper()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(ctx context.Context) (transport.Transport, error) {
		return transport.DialSSE(ctx, transport.HTTPConfig{URL: hs.URL + "/sse"})
	}
	v, err := conform.Judge(ctx, conform.Config{Timeout: 3 * time.Second, KillGrace: 10 * time.Millisecond}, conform.Lookup(id), revision.MustLookup("2024-11-05"), dial)
	if err != nil {
		t.Fatalf("judge %s: %v", id, err)
	}
	return v
}

func TestSSEVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		srv      *sseServer
		want     reports.Status
		says     string
	}{
		{"foreign Origin refused", "SSE-ORIGIN-01", &sseServer{}, reports.Pass, "HTTP 403"},
		{"foreign Origin served fails", "SSE-ORIGIN-01", &sseServer{anyOrigin: true}, reports.Fail, "GET of the SSE endpoint with Origin: http://mcp-conform.invalid: HTTP 200"},
		{"message events", "SSE-MESSAGE-EVENT-01", &sseServer{}, reports.Pass, "each in an event of type message"},
		{"another event type warns", "SSE-MESSAGE-EVENT-01", &sseServer{otherEvent: "response"}, reports.Warn, `type "response"`},
		// SSE-ENDPOINT-EVENT-01 and SSE-POST-01 are opening checks: judged from the
		// opening's record, in a column that opened or not.
		{"endpoint event first passes", "SSE-ENDPOINT-EVENT-01", &sseServer{}, reports.Pass, `first event of type "endpoint" with data "/messages": the POST URI http://127.0.0.1`},
		{"message event first fails", "SSE-ENDPOINT-EVENT-01", &sseServer{before: "event: message\ndata: {}\n\n"}, reports.Fail, `first event has type "message"`},
		{"endpoint event without data fails", "SSE-ENDPOINT-EVENT-01", &sseServer{endpoint: " "}, reports.Fail, "endpoint event has no data"},
		{"off-origin endpoint fails", "SSE-ENDPOINT-EVENT-01", &sseServer{endpoint: "http://127.0.0.2:9/messages"}, reports.Fail, "not the SSE stream's origin"},
		{"GET refused fails", "SSE-ENDPOINT-EVENT-01", &sseServer{getStatus: http.StatusNotFound}, reports.Fail, "HTTP 404"},
		{"no event stream fails", "SSE-ENDPOINT-EVENT-01", &sseServer{getType: "application/json"}, reports.Fail, "not text/event-stream"},
		{"POSTs accepted pass with the code", "SSE-POST-01", &sseServer{}, reports.Pass, "POST of a request to http://127.0.0.1"},
		{"POST refused fails", "SSE-POST-01", &sseServer{postStatus: http.StatusMethodNotAllowed}, reports.Fail, "→ HTTP 405"},
		{"no endpoint, no POST to judge", "SSE-POST-01", &sseServer{before: "event: message\ndata: {}\n\n"}, reports.Error, "no message was POSTed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judgeSSE(t, tc.srv, tc.id)
			if v.Status != tc.want || !strings.Contains(v.Message, tc.says) {
				t.Errorf("%s = %s (%s), want %s mentioning %q", tc.id, v.Status, v.Message, tc.want, tc.says)
			}
		})
	}
}

// A target that answers nothing gives the opening checks nothing to judge: an error,
// never a pass or a failure.
func TestSSEOpeningUnreachable(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL + "/sse"
	hs.Close() // nothing listens there now
	for _, id := range []string{"SSE-ENDPOINT-EVENT-01", "SSE-POST-01"} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		dial := func(ctx context.Context) (transport.Transport, error) {
			return transport.DialSSE(ctx, transport.HTTPConfig{URL: url})
		}
		v, err := conform.Judge(ctx, conform.Config{Timeout: 3 * time.Second, KillGrace: 10 * time.Millisecond}, conform.Lookup(id), revision.MustLookup("2024-11-05"), dial)
		cancel()
		if err != nil || v.Status != reports.Error || !strings.Contains(v.Message, "not verified") {
			t.Errorf("%s against a closed port = %s (%s), %v; want error, not verified", id, v.Status, v.Message, err)
		}
	}
}

// Over stdio (and Streamable HTTP) the HTTP+SSE rules do not apply.
func TestSSENotApplicableOnStdio(t *testing.T) {
	srv := conformtest.NewServer()
	for _, id := range []string{"SSE-ORIGIN-01", "SSE-MESSAGE-EVENT-01", "SSE-ENDPOINT-EVENT-01", "SSE-POST-01"} {
		v := conformtest.Judge(t, id, "2024-11-05", srv)
		if v.Status != reports.Skip || v.Reason != reports.NotApplicable {
			t.Errorf("%s over stdio = %s %s (%s), want skip not-applicable", id, v.Status, v.Reason, v.Message)
		}
	}
	v := judgeSHTTP(t, &shttpServer{}, "SSE-ORIGIN-01", "2024-11-05")
	if v.Status != reports.Skip || v.Reason != reports.NotApplicable {
		t.Errorf("SSE-ORIGIN-01 over Streamable HTTP = %s %s (%s), want skip not-applicable", v.Status, v.Reason, v.Message)
	}
}
