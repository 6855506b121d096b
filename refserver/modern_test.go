package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// forEachModern runs a test on every transport, against a dual-era and a modern-only
// server.
func forEachModern(t *testing.T, fn func(t *testing.T, c modernConnT)) {
	for _, tr := range modernTransports {
		for _, era := range []string{EraDual, EraModern} {
			t.Run(tr.name+"/"+era, func(t *testing.T) {
				fn(t, tr.dial(t, Options{Era: era}))
			})
		}
	}
}

func TestModernDiscover(t *testing.T) {
	forEachModern(t, func(t *testing.T, c modernConnT) {
		var ids seq
		res := c.do(t, ids.str("discover"), "server/discover", modernParams(nil, nil))
		r := resultObject(t, res.resp)
		if v := r["supportedVersions"]; !slices.Equal(toStrings(v), []string{r5}) {
			t.Errorf("supportedVersions = %v", v)
		}
		caps, _ := r["capabilities"].(map[string]any)
		tools, _ := caps["tools"].(map[string]any)
		if tools["listChanged"] != true {
			t.Errorf("capabilities.tools = %v", caps["tools"])
		}
		if r["resultType"] != "complete" || r["cacheScope"] != modernCacheScope || r["ttlMs"] != float64(modernTTLMs) {
			t.Errorf("discover: resultType %v, ttlMs %v, cacheScope %v", r["resultType"], r["ttlMs"], r["cacheScope"])
		}
		info := r["_meta"].(map[string]any)[metaServerInfo].(map[string]any)
		if info["name"] != ServerName || info["version"] != ServerVersion {
			t.Errorf("serverInfo = %v", info)
		}
		if res.status != 0 && res.status != http.StatusOK {
			t.Errorf("status %d", res.status)
		}
	})
}

func toStrings(v any) []string {
	var out []string
	for _, x := range asSlice(v) {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// Each required _meta field missing → -32602 (HTTP 400); an unsupported version →
// -32022 naming the supported versions (HTTP 400); an unknown logLevel → -32602.
func TestModernRequestMeta(t *testing.T) {
	without := func(key string) map[string]any {
		p := modernParams(nil, nil)
		delete(p["_meta"].(map[string]any), key)
		return p
	}
	forEachModern(t, func(t *testing.T, c modernConnT) {
		var ids seq
		for _, key := range []string{metaProtocolVersion, metaClientCaps} {
			p := without(key)
			h := standardHeaders("tools/list", p)
			res := doMaybeHeaders(t, c, ids.next(), "tools/list", p, h)
			expectError(t, res.resp, wire.CodeInvalidParams)
			if !strings.Contains(res.resp.Error.Message, "_meta") {
				t.Errorf("message %q does not say what is missing", res.resp.Error.Message)
			}
			wantStatus(t, res, http.StatusBadRequest)
		}
		p := modernParams(nil, nil)
		p["_meta"].(map[string]any)[metaProtocolVersion] = "1999-01-01"
		h := standardHeaders("tools/list", p)
		h.Set(headerProtocolVersion, "1999-01-01")
		res := doMaybeHeaders(t, c, ids.next(), "tools/list", p, h)
		expectError(t, res.resp, CodeUnsupportedVersion)
		d := errorData(t, res.resp)
		if d["requested"] != "1999-01-01" || !slices.Equal(toStrings(d["supported"]), []string{r5}) {
			t.Errorf("-32022 data = %v", d)
		}
		wantStatus(t, res, http.StatusBadRequest)

		p = modernParams(nil, nil)
		p["_meta"].(map[string]any)[metaLogLevel] = "verbose"
		res = c.do(t, ids.next(), "tools/list", p)
		expectError(t, res.resp, wire.CodeInvalidParams)
	})
}

// doMaybeHeaders sends with explicit headers over HTTP, plainly on stdio.
func doMaybeHeaders(t *testing.T, c modernConnT, id wire.ID, method string, p map[string]any, h http.Header) exchangeResult {
	t.Helper()
	if mh, ok := c.(*modernHTTP); ok {
		return mh.doWith(t, id, method, p, h)
	}
	return c.do(t, id, method, p)
}

func wantStatus(t *testing.T, res exchangeResult, status int) {
	t.Helper()
	if res.status != 0 && res.status != status {
		t.Errorf("HTTP status %d, want %d", res.status, status)
	}
}

// listAllModern follows tools/list to the end (an empty-string cursor is followed, as
// 2026-07-28 demands) and checks each page's caching hints.
func listAllModern(t *testing.T, c modernConnT, ids *seq) []string {
	t.Helper()
	var names []string
	var cursor *string
	sawEmpty := false
	for page := 0; page < 50; page++ {
		extra := map[string]any{}
		if cursor != nil {
			extra["cursor"] = *cursor
		}
		r := resultObject(t, c.do(t, ids.next(), "tools/list", modernParams(nil, extra)).resp)
		if r["ttlMs"] != float64(modernTTLMs) || r["cacheScope"] != modernCacheScope || r["resultType"] != "complete" {
			t.Errorf("page %d: ttlMs %v cacheScope %v resultType %v", page, r["ttlMs"], r["cacheScope"], r["resultType"])
		}
		for _, x := range asSlice(r["tools"]) {
			tl := x.(map[string]any)
			if _, has := tl["execution"]; has {
				t.Errorf("%v has execution, which 2026-07-28 removed", tl["name"])
			}
			names = append(names, tl["name"].(string))
		}
		next, has := r["nextCursor"].(string)
		if !has {
			if !sawEmpty {
				t.Error("the listing never used the empty-string cursor")
			}
			return names
		}
		sawEmpty = sawEmpty || next == ""
		cursor = &next
	}
	t.Fatal("more than 50 pages")
	return nil
}

// The tool list: complete pages with caching hints, the modern-only tools, the same
// order on every call and every connection.
func TestModernToolsList(t *testing.T) {
	for _, tr := range modernTransports {
		t.Run(tr.name, func(t *testing.T) {
			var ids seq
			a := tr.dial(t, Options{})
			first := listAllModern(t, a, &ids)
			for _, want := range []string{"test_structured_array", "test_requires_elicitation", "test_header_param", "test_simple_text", "test_filler_12"} {
				if !slices.Contains(first, want) {
					t.Errorf("%s is not listed", want)
				}
			}
			if again := listAllModern(t, a, &ids); !slices.Equal(first, again) {
				t.Errorf("second listing differs:\n%v\n%v", first, again)
			}
			b := tr.dial(t, Options{Era: EraModern})
			if other := listAllModern(t, b, &ids); !slices.Equal(first, other) {
				t.Errorf("another connection lists differently:\n%v\n%v", first, other)
			}
		})
	}
}

// Legacy sessions never see the modern-only tools.
func TestModernToolsHiddenFromLegacy(t *testing.T) {
	cl := newInitialized(t, dialSession, Options{PageSize: NoPaging}, "2025-11-25", nil)
	r, _ := cl.result("tools/list", nil)
	for _, x := range asSlice(r["tools"]) {
		name := x.(map[string]any)["name"].(string)
		if strings.HasPrefix(name, "test_structured_array") || name == "test_header_param" || name == "test_requires_elicitation" {
			t.Errorf("legacy listing has %s", name)
		}
	}
	m, _ := cl.call("tools/call", toolCallParams("test_structured_array", nil))
	expectError(t, m, wire.CodeInvalidParams)
}

// Every fixture tool, called in 2026-07-28: each reply (and each message sent for
// it) validates against the 2026-07-28 schema (validateModern, in do).
func TestModernEveryToolValidates(t *testing.T) {
	caps := map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}}
	args := map[string]map[string]any{
		"test_echo":         {"text": "hé", "count": 2},
		"test_slow":         {"ms": 250},
		"test_header_param": {"region": "us-west1"},
	}
	for _, tr := range modernTransports {
		t.Run(tr.name, func(t *testing.T) {
			var ids seq
			c := tr.dial(t, Options{})
			names := listAllModern(t, c, &ids)
			for _, name := range append(names, "test_dynamic_tool", "x_no_such_tool") {
				extra := map[string]any{"name": name}
				if a, ok := args[name]; ok {
					extra["arguments"] = a
				}
				p := modernParams(caps, extra)
				p["_meta"].(map[string]any)[metaLogLevel] = "debug"
				p["_meta"].(map[string]any)["progressToken"] = "p-" + name
				h := standardHeaders("tools/call", p)
				if name == "test_header_param" {
					h.Set("Mcp-Param-Region", "us-west1")
				}
				res := doMaybeHeaders(t, c, ids.next(), "tools/call", p, h)
				if res.resp.Error != nil && name != "x_no_such_tool" && name != "test_dynamic_tool" {
					t.Errorf("%s: error %d %s", name, res.resp.Error.Code, res.resp.Error.Message)
				}
			}
			for _, method := range []string{"server/discover", "resources/list", "resources/templates/list"} {
				c.do(t, ids.next(), method, modernParams(nil, nil))
			}
			res := c.do(t, ids.next(), "resources/read", modernParams(nil, map[string]any{"uri": "mcp-conform://nowhere"}))
			expectError(t, res.resp, wire.CodeInvalidParams)
		})
	}
}

// structuredContent of any JSON type: test_structured_array returns an array that
// fits its array outputSchema and is mirrored in text.
func TestModernStructuredArray(t *testing.T) {
	forEachModern(t, func(t *testing.T, c modernConnT) {
		var ids seq
		r := resultObject(t, c.do(t, ids.next(), "tools/call", modernParams(nil, map[string]any{"name": "test_structured_array"})).resp)
		arr, ok := r["structuredContent"].([]any)
		if !ok || len(arr) != 3 {
			t.Fatalf("structuredContent = %v", r["structuredContent"])
		}
		text := asSlice(r["content"])[0].(map[string]any)["text"].(string)
		if text != "[1.5,2.5,4]" {
			t.Errorf("text mirror %q", text)
		}
		reg, _ := newRegistry(nil)
		sch, err := compileSchema("out", reg.byName["test_structured_array"].output)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(arr); err != nil {
			t.Errorf("structuredContent does not fit the outputSchema: %v", err)
		}
	})
}

// ping, logging/setLevel, initialize-with-_meta and unknown methods are -32601 (HTTP
// 404) in 2026-07-28.
func TestModernRemovedMethods(t *testing.T) {
	forEachModern(t, func(t *testing.T, c modernConnT) {
		var ids seq
		for _, method := range []string{"ping", "logging/setLevel", "initialize", "resources/subscribe", "x_conformance/unknown"} {
			res := c.do(t, ids.next(), method, modernParams(nil, map[string]any{"level": "info"}))
			expectError(t, res.resp, wire.CodeMethodNotFound)
			wantStatus(t, res, http.StatusNotFound)
		}
	})
}

// A legacy initialize: refused by a modern-only server with an error naming the
// supported versions; served by a dual-era one.
func TestModernLegacyInitialize(t *testing.T) {
	init := map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "0"}}
	for _, tr := range modernTransports {
		t.Run(tr.name, func(t *testing.T) {
			c := tr.dial(t, Options{Era: EraModern})
			h := http.Header{}
			h.Set("Content-Type", "application/json")
			h.Set("Accept", "application/json, text/event-stream")
			res := doMaybeHeaders(t, c, wire.NumberID(1), "initialize", init, h)
			expectError(t, res.resp, CodeUnsupportedVersion)
			if !strings.Contains(res.resp.Error.Message, r5) || !slices.Equal(toStrings(errorData(t, res.resp)["supported"]), []string{r5}) {
				t.Errorf("the error does not name %s: %s", r5, res.resp.Raw)
			}
			wantStatus(t, res, http.StatusBadRequest)
		})
	}
	for _, tr := range transports[:3] {
		t.Run("dual/"+tr.name, func(t *testing.T) {
			cl := newInitialized(t, tr.dial, Options{}, "2025-11-25", nil)
			if cl.rev.Name != "2025-11-25" {
				t.Errorf("negotiated %s", cl.rev.Name)
			}
		})
	}
}

// A modern-only stdio server answers requests without _meta with -32602 and
// rejects batches; a legacy-only one treats modern requests as legacy ones.
func TestModernEraRouting(t *testing.T) {
	c := dialModernStdio(t, Options{Era: EraModern}).(*modernStdio)
	res := c.do(t, wire.NumberID(1), "tools/list", map[string]any{})
	expectError(t, res.resp, wire.CodeInvalidParams)
	c.sendRaw(t, []byte(`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`))
	m := c.recv(t)
	expectError(t, m, wire.CodeInvalidRequest)
	if m.Members["id"] {
		t.Errorf("an unusable id must be left out in 2026-07-28: %s", m.Raw)
	}

	legacy := dialModernStdio(t, Options{Era: EraLegacy}).(*modernStdio)
	expectError(t, legacy.c2(t, wire.NumberID(3), "server/discover", modernParams(nil, nil)), wire.CodeInvalidRequest) // not initialized
	if _, err := newConfig(Options{Era: "future"}); err == nil {
		t.Error("an unknown era is accepted")
	}
}

// c2 sends a request and returns its raw response without schema validation (for a
// legacy-only server's answer).
func (ms *modernStdio) c2(t testing.TB, id wire.ID, method string, params any) *wire.Message {
	t.Helper()
	b, _ := wire.EncodeRequest(id, method, params)
	ms.c.send(t, b)
	return ms.recv(t)
}

// Per-request logging: nothing without _meta logLevel, the levels at or above it
// otherwise, on the request's own stream.
func TestModernLogging(t *testing.T) {
	forEachModern(t, func(t *testing.T, c modernConnT) {
		var ids seq
		p := modernParams(nil, map[string]any{"name": "test_tool_with_logging"})
		res := c.do(t, ids.next(), "tools/call", p)
		if len(res.notes) != 0 {
			t.Errorf("log messages without a logLevel: %d", len(res.notes))
		}
		p = modernParams(nil, map[string]any{"name": "test_tool_with_logging"})
		p["_meta"].(map[string]any)[metaLogLevel] = "warning"
		res = c.do(t, ids.next(), "tools/call", p)
		var levels []string
		for _, n := range res.notes {
			var lp struct{ Level string }
			_ = json.Unmarshal(n.Params, &lp)
			levels = append(levels, lp.Level)
		}
		if want := logLevels[3:]; !slices.Equal(levels, want) {
			t.Errorf("levels %v, want %v", levels, want)
		}
	})
}

func TestParseCLIEra(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    string
		wantErr bool
	}{
		{nil, EraDual, false},
		{[]string{"--era", "modern"}, EraModern, false},
		{[]string{"--era=legacy"}, EraLegacy, false},
		{[]string{"--era", "stateless"}, "", true},
	} {
		c, err := parseCLI(tc.args, io.Discard)
		if (err != nil) != tc.wantErr || (err == nil && c.opts.Era != tc.want) {
			t.Errorf("%v: era %q, err %v", tc.args, c.opts.Era, err)
		}
	}
}

// `mcp-conform fixture --era modern` over stdio answers server/discover, and a
// legacy initialize with an error naming 2026-07-28.
func TestRunCLIModernStdio(t *testing.T) {
	discover, _ := wire.EncodeRequest(wire.NumberID(1), "server/discover", modernParams(nil, nil))
	initialize := `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	var out, errOut bytes.Buffer
	in := strings.NewReader(string(discover) + "\n" + initialize + "\n")
	if code := RunCLI(context.Background(), []string{"--era", "modern"}, in, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"supportedVersions":["2026-07-28"]`) ||
		!strings.Contains(lines[1], `"code":-32022`) || !strings.Contains(lines[1], r5) {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// A dual-era stdio server serves a legacy session and modern requests on the same
// channel, each by its own rules.
func TestModernDualEraSameChannel(t *testing.T) {
	c := dialModernStdio(t, Options{}).(*modernStdio)
	init := c.c2(t, wire.NumberID(1), "initialize", map[string]any{"protocolVersion": "2025-06-18",
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	if init.Error != nil {
		t.Fatalf("initialize: %s", init.Raw)
	}
	n, _ := wire.EncodeNotification("notifications/initialized", nil)
	c.sendRaw(t, n)
	res := c.do(t, wire.NumberID(2), "server/discover", modernParams(nil, nil))
	resultObject(t, res.resp)
	legacy := c.c2(t, wire.NumberID(3), "tools/list", map[string]any{})
	var r map[string]any
	_ = json.Unmarshal(legacy.Result, &r)
	if _, has := r["resultType"]; has || legacy.Error != nil {
		t.Errorf("the legacy session's tools/list: %s", legacy.Raw)
	}
	if pong := c.c2(t, wire.NumberID(4), "ping", nil); pong.Error != nil {
		t.Errorf("legacy ping: %s", pong.Raw)
	}
}

// rawObject replaces or adds top-level members of an encoded object and leaves the
// rest byte for byte.
func TestRawObjectSet(t *testing.T) {
	for _, tc := range []struct {
		in   string
		set  [][2]string
		want string
	}{
		{`{"tools":[{"name":"a"}]}`, nil, `{"tools":[{"name":"a"}]}`},
		{`{"tools":[{"name":"a"}]}`, [][2]string{{"resultType", `"complete"`}}, `{"tools":[{"name":"a"}],"resultType":"complete"}`},
		{`{"a":1,"ttlMs":5,"b":{"c":[1,2]}}`, [][2]string{{"ttlMs", `60000`}}, `{"a":1,"ttlMs":60000,"b":{"c":[1,2]}}`},
		{`{}`, [][2]string{{"x<y", `true`}}, `{"x\u003cy":true}`},
	} {
		o, ok := newRawObject([]byte(tc.in))
		if !ok {
			t.Fatalf("newRawObject(%s): not an object", tc.in)
		}
		for _, kv := range tc.set {
			o.set(kv[0], json.RawMessage(kv[1]))
		}
		if got := string(o.encode()); got != tc.want {
			t.Errorf("%s with %v = %s, want %s", tc.in, tc.set, got, tc.want)
		}
		if !json.Valid(o.encode()) {
			t.Errorf("%s with %v: invalid JSON", tc.in, tc.set)
		}
	}
	for _, notObject := range []string{`null`, `[1]`, `"x"`, ``} {
		if _, ok := newRawObject([]byte(notObject)); ok {
			t.Errorf("newRawObject(%q) is an object", notObject)
		}
	}
}
