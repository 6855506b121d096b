package refserver

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// The 2026-07-28 Streamable HTTP header rules: required, equal to the body
// (-32020, 400), base64 values decoded, names case-insensitive, values
// case-sensitive; x-mcp-header parameters; unknown methods 404.
func TestModernHTTPHeaders(t *testing.T) {
	callParams := modernParams(nil, map[string]any{"name": "test_simple_text"})
	regionParams := modernParams(nil, map[string]any{"name": "test_header_param", "arguments": map[string]any{"region": "eu-west 1"}})
	cases := []struct {
		name   string
		method string
		params map[string]any
		edit   func(h http.Header)
		code   int // 0: success
	}{
		{"all headers", "tools/call", callParams, func(http.Header) {}, 0},
		{"no version header", "tools/list", modernParams(nil, nil), func(h http.Header) { h.Del(headerProtocolVersion) }, CodeHeaderMismatch},
		{"no Mcp-Method", "tools/list", modernParams(nil, nil), func(h http.Header) { h.Del(headerMcpMethod) }, CodeHeaderMismatch},
		{"no Mcp-Name", "tools/call", callParams, func(h http.Header) { h.Del(headerMcpName) }, CodeHeaderMismatch},
		{"method mismatch", "tools/call", callParams, func(h http.Header) { h.Set(headerMcpMethod, "tools/list") }, CodeHeaderMismatch},
		{"method value case", "tools/list", modernParams(nil, nil), func(h http.Header) { h.Set(headerMcpMethod, "TOOLS/LIST") }, CodeHeaderMismatch},
		{"name mismatch", "tools/call", callParams, func(h http.Header) { h.Set(headerMcpName, "test_echo") }, CodeHeaderMismatch},
		{"name value case", "tools/call", callParams, func(h http.Header) { h.Set(headerMcpName, "TEST_SIMPLE_TEXT") }, CodeHeaderMismatch},
		{"version mismatch", "tools/list", modernParams(nil, nil), func(h http.Header) { h.Set(headerProtocolVersion, "2025-11-25") }, CodeHeaderMismatch},
		{"base64 name", "tools/call", callParams, func(h http.Header) { h.Set(headerMcpName, b64("test_simple_text")) }, 0},
		{"bad base64 name", "tools/call", callParams, func(h http.Header) { h.Set(headerMcpName, "=?base64?@@?=") }, CodeHeaderMismatch},
		{"lower-case names", "tools/call", callParams, func(h http.Header) {
			for k, v := range h {
				delete(h, k)
				h[strings.ToLower(k)] = v
			}
		}, 0},
		{"session id ignored", "tools/list", modernParams(nil, nil), func(h http.Header) { h.Set(headerSessionID, "bogus-session") }, 0},
		{"Last-Event-ID ignored", "tools/list", modernParams(nil, nil), func(h http.Header) { h.Set("Last-Event-ID", "17") }, 0},
		{"param header", "tools/call", regionParams, func(h http.Header) { h.Set("Mcp-Param-Region", b64("eu-west 1")) }, 0},
		{"param header lower-case name", "tools/call", regionParams, func(h http.Header) { h["mcp-param-region"] = []string{b64("eu-west 1")} }, 0},
		{"param header missing", "tools/call", regionParams, func(http.Header) {}, CodeHeaderMismatch},
		{"param header mismatch", "tools/call", regionParams, func(h http.Header) { h.Set("Mcp-Param-Region", "us-west1") }, CodeHeaderMismatch},
		{"unknown method", "x_conformance/unknown", modernParams(nil, nil), func(http.Header) {}, wire.CodeMethodNotFound},
	}
	for _, era := range []string{EraDual, EraModern} {
		c := dialModernHTTP(t, Options{Era: era}).(*modernHTTP)
		for i, tc := range cases {
			t.Run(era+"/"+tc.name, func(t *testing.T) {
				h := standardHeaders(tc.method, tc.params)
				tc.edit(h)
				res := c.doWith(t, wire.NumberID(int64(i+1)), tc.method, tc.params, h)
				if res.header.Get(headerSessionID) != "" {
					t.Errorf("a session id was minted: %q", res.header.Get(headerSessionID))
				}
				if tc.code == 0 {
					if res.resp.Error != nil || res.status != http.StatusOK {
						t.Fatalf("status %d: %s", res.status, res.resp.Raw)
					}
					return
				}
				expectError(t, res.resp, tc.code)
				want := http.StatusBadRequest
				if tc.code == wire.CodeMethodNotFound {
					want = http.StatusNotFound
				}
				wantStatus(t, res, want)
			})
		}
	}
}

// POST answers: application/json for a plain request, 202 with no body for a
// notification; GET and DELETE are 405 on a modern-only server and keep their
// legacy meaning on a dual-era one.
func TestModernHTTPMethods(t *testing.T) {
	c := dialModernHTTP(t, Options{Era: EraModern}).(*modernHTTP)
	res := c.do(t, wire.NumberID(1), "tools/list", modernParams(nil, nil))
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	n, _ := wire.EncodeNotification("notifications/cancelled", map[string]any{"requestId": 99})
	c.sendRaw(t, n)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		for _, srv := range []struct {
			url  string
			want int
		}{{c.url, http.StatusMethodNotAllowed}, {dialModernHTTP(t, Options{}).(*modernHTTP).url, http.StatusBadRequest}} {
			req, _ := http.NewRequestWithContext(context.Background(), method, srv.url, nil)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != srv.want {
				t.Errorf("%s %s: %d, want %d", method, srv.url, resp.StatusCode, srv.want)
			}
			if srv.want == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != http.MethodPost {
				t.Errorf("Allow %q", resp.Header.Get("Allow"))
			}
		}
	}
}

func TestHeaderValue(t *testing.T) {
	args, _ := decodeArgs([]byte(`{"a":"x","n":42,"b":true,"z":null,"o":{"in":"deep"}}`))
	for _, tc := range []struct {
		path       []string
		want       string
		num, found bool
	}{
		{[]string{"a"}, "x", false, true},
		{[]string{"n"}, "42", true, true},
		{[]string{"b"}, "true", false, true},
		{[]string{"z"}, "", false, false},
		{[]string{"missing"}, "", false, false},
		{[]string{"o", "in"}, "deep", false, true},
		{[]string{"a", "in"}, "", false, false},
	} {
		v, num, ok := headerValue(args, tc.path)
		if v != tc.want || num != tc.num || ok != tc.found {
			t.Errorf("%v: %q %v %v", tc.path, v, num, ok)
		}
	}
	if !numericallyEqual("42.0", "42") || numericallyEqual("42", "43") {
		t.Error("numericallyEqual")
	}
	if got, err := decodeHeaderValue(b64("Hello, 世界")); err != nil || got != "Hello, 世界" {
		t.Errorf("decode: %q %v", got, err)
	}
	if got, _ := decodeHeaderValue("plain"); got != "plain" {
		t.Errorf("plain: %q", got)
	}
	hp := headerParams(schemaHeaderParam)
	if len(hp) != 1 || hp[0].header != "Region" || hp[0].path[0] != "region" {
		t.Errorf("headerParams = %v", hp)
	}
}
