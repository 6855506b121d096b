package wire

import (
	"context"
	"encoding/json"
	"testing"
	"time"
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

// After DropMeta, requests go out as the caller built them: the stamped metadata
// stops at the call, the requests before it keep theirs.
func TestDropMeta(t *testing.T) {
	f := newFake(echoServer(nil))
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
	c := NewConn(f, Options{RequestTimeout: time.Second, Meta: meta})
	defer c.Close(context.Background())
	if _, err := c.Call(context.Background(), "server/discover", nil); err != nil {
		t.Fatal(err)
	}
	c.DropMeta()
	if m := c.Meta(); m != nil {
		t.Errorf("Meta() after DropMeta = %v, want nil", m)
	}
	if _, err := c.Call(context.Background(), "initialize", map[string]any{"protocolVersion": "2025-11-25"}); err != nil {
		t.Fatal(err)
	}
	sent := f.sentMessages()
	if len(sent) != 2 {
		t.Fatalf("%d messages sent, want 2", len(sent))
	}
	for i, want := range []bool{true, false} {
		_, has := rawMeta(sent[i].Params)
		if has != want {
			t.Errorf("%s carries _meta: %v, want %v (params %s)", sent[i].Method, has, want, sent[i].Params)
		}
	}
	if meta["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" {
		t.Errorf("DropMeta changed the caller's map: %v", meta)
	}
}

// rawMeta returns params._meta, and whether it is there.
func rawMeta(params json.RawMessage) (json.RawMessage, bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return nil, false
	}
	m, ok := p["_meta"]
	return m, ok
}
