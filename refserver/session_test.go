package refserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

var legacyRevisions = revision.InEra(revision.Legacy)

func TestInitializeNegotiation(t *testing.T) {
	cases := []struct {
		name      string
		supported []string
		requested string
		want      string
	}{
		{"echo 2024-11-05", nil, "2024-11-05", "2024-11-05"},
		{"echo 2025-03-26", nil, "2025-03-26", "2025-03-26"},
		{"echo 2025-06-18", nil, "2025-06-18", "2025-06-18"},
		{"echo 2025-11-25", nil, "2025-11-25", "2025-11-25"},
		{"unknown falls back to newest", nil, "1999-01-01", "2025-11-25"},
		{"modern era falls back to newest", nil, "2026-07-28", "2025-11-25"},
		{"restricted: unsupported falls back to newest supported", []string{"2025-03-26", "2024-11-05"}, "2025-06-18", "2025-03-26"},
		{"restricted: supported is echoed", []string{"2024-11-05", "2025-03-26"}, "2024-11-05", "2024-11-05"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cl := newClient(t, dialSession(t, Options{Revisions: tc.supported}), tc.want)
			r := cl.initialize(tc.requested, nil)
			if r["protocolVersion"] != tc.want {
				t.Fatalf("protocolVersion = %v, want %s", r["protocolVersion"], tc.want)
			}
			rev := revision.MustLookup(tc.want)
			info := r["serverInfo"].(map[string]any)
			if info["name"] != ServerName || info["version"] != ServerVersion {
				t.Errorf("serverInfo = %v", info)
			}
			if _, has := info["title"]; has != rev.Has(revision.Title) {
				t.Errorf("serverInfo.title present=%v in %s", has, rev.Name)
			}
			if _, ok := r["instructions"].(string); !ok {
				t.Errorf("instructions missing: %v", r)
			}
			capMap := r["capabilities"].(map[string]any)
			if _, has := capMap["tasks"]; has != rev.Has(revision.Tasks) {
				t.Errorf("capabilities.tasks present=%v in %s", has, rev.Name)
			}
			delete(capMap, "tasks") // TestTaskNegotiation
			caps, _ := json.Marshal(capMap)
			want := `{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}`
			if rev.Before("2025-03-26") {
				want = `{"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}` // no completions capability in 2024-11-05
			}
			if string(caps) != want {
				t.Errorf("capabilities = %s", caps)
			}
		})
	}
}

func TestInitializeErrors(t *testing.T) {
	t.Run("second initialize is -32600", func(t *testing.T) {
		cl := newInitialized(t, dialSession, Options{}, "2025-06-18", nil)
		m, _ := cl.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}})
		expectError(t, m, wire.CodeInvalidRequest)
	})
	for _, tc := range []struct {
		name   string
		params any
	}{
		{"no params", nil},
		{"no protocolVersion", map[string]any{"capabilities": map[string]any{}}},
		{"protocolVersion not a string", map[string]any{"protocolVersion": 2025}},
		{"capabilities not an object", map[string]any{"protocolVersion": "2025-06-18", "capabilities": []int{1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := newClient(t, dialSession(t, Options{}), "2024-11-05")
			m, _ := cl.call("initialize", tc.params)
			expectError(t, m, wire.CodeInvalidParams)
		})
	}
}

func TestBeforeInitialize(t *testing.T) {
	cl := newClient(t, dialSession(t, Options{}), "2024-11-05")
	r, _ := cl.result("ping", nil)
	if len(r) != 0 {
		t.Errorf("ping = %v, want {}", r)
	}
	m, _ := cl.call("tools/list", nil)
	expectError(t, m, wire.CodeInvalidRequest)
	cl.notify("notifications/initialized", nil) // a stray notification: never answered
	cl.barrier()
	cl.sendRaw(`{"jsonrpc":"2.0",`)
	raw, _ := cl.recvRaw(recvTimeout)
	if string(raw) != `{"error":{"code":-32700,"message":"Parse error: the message is not valid JSON"},"id":null,"jsonrpc":"2.0"}` {
		t.Errorf("parse error before initialize = %s", raw)
	}
	cl.sendRaw(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	m = cl.recv()
	expectError(t, m, wire.CodeInvalidRequest)
}

func TestBaseProtocol(t *testing.T) {
	for _, rev := range legacyRevisions {
		t.Run(rev.Name, func(t *testing.T) {
			cl := newInitialized(t, dialSession, Options{}, rev.Name, nil)
			t.Run("ping", func(t *testing.T) {
				r, _ := cl.result("ping", nil)
				if len(r) != 0 {
					t.Errorf("ping = %v", r)
				}
			})
			t.Run("ids are echoed with their JSON type", func(t *testing.T) {
				for _, raw := range []string{`"c-1"`, `7`, `0`, `9007199254740991`, `""`} {
					id, _ := wire.ParseID(json.RawMessage(raw))
					m, _ := cl.exchange(id, "ping", nil)
					if got := string(m.ID.Raw()); got != raw {
						t.Errorf("id %s echoed as %s", raw, got)
					}
				}
			})
			t.Run("unknown method", func(t *testing.T) {
				for _, method := range []string{"x_conformance/unknown_method"} {
					m, _ := cl.call(method, nil)
					expectError(t, m, wire.CodeMethodNotFound)
				}
			})
			t.Run("notifications are never answered", func(t *testing.T) {
				cl.notify("notifications/x_conformance_probe", nil)
				cl.notify("notifications/roots/list_changed", nil)
				cl.notify("notifications/cancelled", map[string]any{"requestId": "x-unknown"})
				cl.notify("notifications/cancelled", map[string]any{})
				cl.barrier()
			})
			t.Run("invalid requests", func(t *testing.T) {
				for _, tc := range []struct {
					raw    string
					wantID string // "" = unusable id
				}{
					{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, "5"},
					{`{"jsonrpc":"2.0","id":6}`, "6"},
					{`{"jsonrpc":"2.0","id":7,"method":42}`, "7"},
					{`{"id":8,"method":"ping"}`, "8"},
					{`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, ""},
					{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, ""},
					{`5`, ""},
					{`"ping"`, ""},
				} {
					cl.sendRaw(tc.raw)
					m := cl.recv()
					expectError(t, m, wire.CodeInvalidRequest)
					if got := string(m.ID.Raw()); tc.wantID != "" && got != tc.wantID {
						t.Errorf("%s: id %s, want %s", tc.raw, got, tc.wantID)
					}
					if tc.wantID == "" && !m.ID.IsNull() && !m.ID.IsZero() {
						t.Errorf("%s: id %s, want null or absent", tc.raw, m.ID)
					}
				}
			})
			t.Run("parse error, then the session still works", func(t *testing.T) {
				cl.sendRaw(`{"jsonrpc":"2.0",`)
				m := cl.recv()
				expectError(t, m, wire.CodeParseError)
				if rev.Has(revision.ErrorIDOptional) != m.ID.IsZero() {
					t.Errorf("parse error id member = %s in %s", m.ID, rev.Name)
				}
				cl.barrier()
			})
			t.Run("invalid params", func(t *testing.T) {
				for _, tc := range []struct{ method, params string }{
					{"tools/list", `"abc"`},
					{"tools/list", `{"cursor":5}`},
					{"tools/list", `[1]`},
					{"ping", `"x"`},
					{"logging/setLevel", `{"level":"verbose"}`},
					{"logging/setLevel", `{}`},
					{"logging/setLevel", `{"level":3}`},
					{"resources/read", `{}`},
					{"resources/list", `{"cursor":"abc"}`},
				} {
					cl.nextID++
					cl.methods[wire.NumberID(cl.nextID).Key()] = tc.method
					cl.sendRaw(`{"jsonrpc":"2.0","id":` + jsonInt(cl.nextID) + `,"method":"` + tc.method + `","params":` + tc.params + `}`)
					m, _ := cl.await(wire.NumberID(cl.nextID))
					expectError(t, m, wire.CodeInvalidParams)
				}
			})
			t.Run("logging/setLevel accepts every syslog level", func(t *testing.T) {
				for _, l := range logLevels {
					r, _ := cl.result("logging/setLevel", map[string]any{"level": l})
					if len(r) != 0 {
						t.Errorf("setLevel %s = %v", l, r)
					}
				}
			})
			t.Run("resources", func(t *testing.T) {
				// Three pages of 5, 5 and 2 (resources.go), walked by cursor.
				var uris []any
				var cursor any
				for range 4 {
					var params map[string]any
					if cursor != nil {
						params = map[string]any{"cursor": cursor}
					}
					r, _ := cl.result("resources/list", params)
					for _, res := range asSlice(r["resources"]) {
						uris = append(uris, res.(map[string]any)["uri"])
					}
					if cursor = r["nextCursor"]; cursor == nil {
						break
					}
				}
				if len(uris) != 6+resourceCount || uris[0] != uriEmbeddedText || uris[3] != uriStaticText {
					t.Errorf("resources/list walk = %v", uris)
				}
				r, _ := cl.result("resources/templates/list", nil)
				if len(asSlice(r["resourceTemplates"])) != 3 {
					t.Errorf("resources/templates/list = %v", r)
				}
				// A subscription reports one update of its resource before the reply.
				if _, notes := cl.result("resources/subscribe", map[string]any{"uri": uriEmbeddedText}); len(notes) != 1 || notes[0].Method != "notifications/resources/updated" {
					t.Errorf("resources/subscribe sent %d notifications, want one notifications/resources/updated", len(notes))
				}
				cl.result("resources/unsubscribe", map[string]any{"uri": uriEmbeddedText})
				for _, uri := range []string{uriEmbeddedText, uriEmbeddedBlob, uriLinkedReadme, uriResourcePrefix + "2"} {
					r, _ = cl.result("resources/read", map[string]any{"uri": uri})
					if c := asSlice(r["contents"]); len(c) != 1 || c[0].(map[string]any)["uri"] != uri {
						t.Errorf("resources/read %s = %v", uri, r)
					}
				}
				m, _ := cl.call("resources/read", map[string]any{"uri": "test://nope"})
				expectError(t, m, CodeResourceNotFound)
			})
		})
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestBatches(t *testing.T) {
	for _, rev := range legacyRevisions {
		t.Run(rev.Name, func(t *testing.T) {
			cl := newInitialized(t, dialSession, Options{}, rev.Name, nil)
			cl.methods[wire.NumberID(101).Key()] = "ping"
			cl.methods[wire.NumberID(102).Key()] = "tools/list"
			cl.sendRaw(`[{"jsonrpc":"2.0","id":101,"method":"ping"},{"jsonrpc":"2.0","id":102,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/x_probe"}]`)
			raw, ok := cl.recvRaw(recvTimeout)
			if !ok {
				t.Fatal("no answer to a batch")
			}
			if !rev.Has(revision.Batching) {
				m, err := wire.Decode(raw)
				if err != nil {
					t.Fatalf("batch outside 2025-03-26 must get one error object, got %s", raw)
				}
				cl.check(m)
				expectError(t, m, wire.CodeInvalidRequest)
				return
			}
			mustValidate(t, rev, "JSONRPCMessage", raw)
			var replies []json.RawMessage
			if err := json.Unmarshal(raw, &replies); err != nil || len(replies) != 2 {
				t.Fatalf("want an array of 2 replies, got %s", raw)
			}
			for i, want := range []string{"101", "102"} {
				m, _ := wire.Decode(replies[i])
				cl.check(m)
				if string(m.ID.Raw()) != want || m.Error != nil {
					t.Errorf("reply %d = %s", i, replies[i])
				}
			}
			cl.sendRaw(`[{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"2.0","method":"notifications/b"}]`)
			cl.barrier()
			cl.sendRaw(`[1,{"jsonrpc":"2.0","id":103,"method":"x/unknown"}]`)
			raw, _ = cl.recvRaw(recvTimeout)
			var errs []struct {
				ID    json.RawMessage    `json:"id"`
				Error struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal(raw, &errs); err != nil || len(errs) != 2 ||
				errs[0].Error.Code != wire.CodeInvalidRequest || errs[1].Error.Code != wire.CodeMethodNotFound {
				t.Errorf("mixed batch answered %s", raw)
			}
			cl.sendRaw(`[]`)
			m := cl.recv()
			expectError(t, m, wire.CodeInvalidRequest)
		})
	}
}

func TestToolListIsPerSession(t *testing.T) {
	cfg, err := newConfig(Options{PageSize: NoPaging})
	if err != nil {
		t.Fatal(err)
	}
	a, b := newSession(t.Context(), cfg), newSession(t.Context(), cfg)
	defer a.close()
	defer b.close()
	a.toggleDynamic()
	if on, _ := a.toolList(); !on {
		t.Fatal("toggle had no effect")
	}
	if on, _ := b.toolList(); on {
		t.Fatal("another session's list changed")
	}
}

func TestErrorMessagesNameTheProblem(t *testing.T) {
	cl := newInitialized(t, dialSession, Options{}, "2025-11-25", nil)
	m, _ := cl.call("tools/call", map[string]any{"name": "no_such_tool"})
	if m.Error == nil || m.Error.Message != "Unknown tool: no_such_tool" {
		t.Fatalf("unknown tool error = %s", m.Raw)
	}
	m, _ = cl.call("nope/nope", nil)
	if m.Error == nil || !strings.Contains(m.Error.Message, "nope/nope") {
		t.Fatalf("unknown method error = %s", m.Raw)
	}
}
