package conform

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

func TestSubscriptionTag(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		tagged bool
		key    string // the tag's id Key ("" for none or no id)
	}{
		{"number tag on a notification", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`, true, "n:7"},
		{"string tag", `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"7"}}}`, true, `s:"7"`},
		{"tag on the final response", `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`, true, "n:7"},
		{"no params", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, false, ""},
		{"_meta without the key", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{}}}`, false, ""},
		{"a tag that is no id", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":true}}}`, true, ""},
		{"a tag in params, not _meta", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"io.modelcontextprotocol/subscriptionId":7}}`, false, ""},
		// The key spelled with escapes is the same key (the guard that spares
		// untagged bodies their decoding must let it through).
		{"an escaped key", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol\/subscription\u0049d":7}}}`, true, "n:7"},
		{"escapes but no tag", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a\nb"}]}}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := wire.Decode([]byte(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			id, tagged := SubscriptionTag(m)
			if tagged != tt.tagged || id.Key() != tt.key {
				t.Errorf("SubscriptionTag = %s (key %q), %v; want key %q, %v", id, id.Key(), tagged, tt.key, tt.tagged)
			}
		})
	}
}

func TestIsSubscriptionMethod(t *testing.T) {
	for method, want := range map[string]bool{
		MethodAcknowledged:                     true,
		"notifications/tools/list_changed":     true,
		"notifications/resources/updated":      true,
		"notifications/progress":               false,
		"notifications/message":                false,
		"notifications/cancelled":              false,
		"notifications/prompts/list_changed":   true,
		"notifications/resources/list_changed": true,
	} {
		if got := IsSubscriptionMethod(method); got != want {
			t.Errorf("IsSubscriptionMethod(%s) = %v, want %v", method, got, want)
		}
	}
}
