package transport

import (
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
