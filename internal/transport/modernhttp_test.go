package transport

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestModernHeaders(t *testing.T) {
	for _, tt := range []struct {
		name, body, fallback string
		want                 map[string]string
	}{
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "x",
			map[string]string{HeaderProtocolVersion: "2026-07-28", HeaderMethod: "tools/list", HeaderName: ""}},
		{"tools/call names the tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "",
			map[string]string{HeaderMethod: "tools/call", HeaderName: "echo"}},
		{"resources/read names the uri", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a"}}`, "2026-07-28",
			map[string]string{HeaderProtocolVersion: "2026-07-28", HeaderName: "file:///a"}},
		{"non-ASCII is base64", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"héllo"}}`, "",
			map[string]string{HeaderName: "=?base64?aMOpbGxv?="}},
		{"a notification gets the fallback version", `{"jsonrpc":"2.0","method":"notifications/cancelled"}`, "2026-07-28",
			map[string]string{HeaderProtocolVersion: "2026-07-28", HeaderMethod: "notifications/cancelled"}},
		{"a tools/call without a name gets no Mcp-Name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, "2026-07-28",
			map[string]string{HeaderMethod: "tools/call", HeaderName: ""}},
		{"a non-string name gets no Mcp-Name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, "2026-07-28",
			map[string]string{HeaderMethod: "tools/call", HeaderName: ""}},
		{"non-object params get no Mcp-Name", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":"abc"}`, "2026-07-28",
			map[string]string{HeaderMethod: "prompts/get", HeaderName: ""}},
		{"an empty name is mirrored as it is", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":""}}`, "2026-07-28",
			map[string]string{HeaderName: ""}},
		{"a name that looks encoded is encoded", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"=?base64?literal?="}}`, "",
			map[string]string{HeaderName: "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}},
		{"garbage gets the version only", `{"jsonrpc":`, "2026-07-28",
			map[string]string{HeaderProtocolVersion: "2026-07-28", HeaderMethod: ""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := ModernHeaders([]byte(tt.body), tt.fallback)
			for k, v := range tt.want {
				if got := h.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			// An empty want of Mcp-Name is either an absent header or an empty
			// value: which one is the point of the name cases.
			if want, ok := tt.want[HeaderName]; ok && want == "" {
				_, present := h[HeaderName]
				if wantPresent := strings.Contains(tt.body, `"name":""`); present != wantPresent {
					t.Errorf("Mcp-Name present = %v, want %v (header %v)", present, wantPresent, h)
				}
			}
		})
	}
}

// A probe's overrides replace the derived header whatever the case its name is
// spelled in (the lower-case spelling goes on the wire as it is), and an empty value
// removes it.
func TestApplyOverrides(t *testing.T) {
	for _, tt := range []struct {
		name      string
		overrides http.Header
		wantKeys  []string // the raw keys left, sorted
		want      map[string]string
	}{
		{"lower-case name replaces the canonical one", http.Header{"mcp-method": {"tools/list"}}, []string{"Mcp-Name", "mcp-method"},
			map[string]string{"mcp-method": "tools/list"}},
		{"canonical name replaces the value", http.Header{"Mcp-Method": {"X"}}, []string{"Mcp-Method", "Mcp-Name"},
			map[string]string{"Mcp-Method": "X"}},
		{"empty removes", http.Header{"MCP-METHOD": {}}, []string{"Mcp-Name"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
			req.Header = http.Header{}
			req.Header.Set(HeaderMethod, "tools/call")
			req.Header.Set(HeaderName, "echo")
			applyOverrides(req, tt.overrides)
			keys := slices.Sorted(maps.Keys(req.Header))
			if !slices.Equal(keys, tt.wantKeys) {
				t.Errorf("keys %v, want %v", keys, tt.wantKeys)
			}
			for k, v := range tt.want {
				if got := req.Header[k]; len(got) != 1 || got[0] != v {
					t.Errorf("%s = %v, want [%s]", k, got, v)
				}
			}
		})
	}
}

// Probe sends a bare GET or DELETE, returns its status and records it.
func TestProbe(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.Header.Get("Mcp-Session-Id"))
		w.Header().Set("Allow", "POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
	}))
	defer srv.Close()
	tr, err := DialStreamableHTTP(context.Background(), HTTPConfig{URL: srv.URL + "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close(context.Background())
	tr.SetModern("2026-07-28")
	x, err := tr.Probe(context.Background(), http.MethodDelete, http.Header{"Mcp-Session-Id": {"old"}})
	if err != nil || x.Status != http.StatusMethodNotAllowed || x.Method != http.MethodDelete || x.Header.Get("Allow") != "POST" {
		t.Fatalf("Probe = %+v, %v", x, err)
	}
	if xs := tr.Exchanges(); len(xs) != 1 || xs[0].Status != http.StatusMethodNotAllowed {
		t.Errorf("exchanges %+v", xs)
	}
	if len(seen) != 1 || seen[0] != "DELETE old" {
		t.Errorf("server saw %v", seen)
	}
	if tr.SessionID() != "" {
		t.Errorf("a modern transport adopted session %q", tr.SessionID())
	}
}

// TestRequestKey: a POST stream is keyed by its request's raw id whatever the params
// hold, so that a probe's malformed params do not make its reply anonymous.
func TestRequestKey(t *testing.T) {
	for _, tt := range []struct {
		name, body, key, method string
	}{
		{"request", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, `7`, "tools/list"},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"subscriptions/listen","params":{}}`, `"a"`, "subscriptions/listen"},
		{"params not an object", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"abc"}`, `3`, "tools/list"},
		{"params of the wrong shape", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5,"_meta":[]}}`, `4`, "tools/call"},
		{"method not a string", `{"jsonrpc":"2.0","id":5,"method":5}`, `5`, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", "notifications/initialized"},
		{"not JSON", `{"jsonrpc":`, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			key, method := requestKey([]byte(tt.body))
			if key != tt.key || method != tt.method {
				t.Fatalf("requestKey = %q, %q; want %q, %q", key, method, tt.key, tt.method)
			}
		})
	}
}
