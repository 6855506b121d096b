package wire

import (
	"encoding/json"
	"testing"
)

func TestStampMeta(t *testing.T) {
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	for _, tt := range []struct {
		name   string
		params any
		want   string
	}{
		{"no params", nil, `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`},
		{"object params keep their fields", map[string]any{"cursor": "c"}, `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"cursor":"c"}`},
		{"the caller's _meta wins", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "1999-01-01"}}, `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}`},
		{"non-object params are the probe's", "abc", `"abc"`},
		{"raw object params", json.RawMessage(`{"name":"x"}`), `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}`},
		{"a non-object _meta is the probe's", map[string]any{"_meta": 5}, `{"_meta":5}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(StampMeta(tt.params, meta))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got %s\nwant %s", b, tt.want)
			}
		})
	}
}
