package transport

import "testing"

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
		})
	}
}
