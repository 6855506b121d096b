package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// defT builds a minimal valid tool definition with extra members (JSON text without
// braces, e.g. `"title":"T"`).
func defT(name string, extra ...string) string {
	members := append([]string{fmt.Sprintf(`"name":%q`, name), `"inputSchema":{"type":"object"}`}, extra...)
	return "{" + strings.Join(members, ",") + "}"
}

// defPages makes tools/list answer page i (cursor "p<i>") with the tools given,
// linking each page to the next.
func defPages(pages ...[]string) func(s *conformtest.Server) {
	return func(s *conformtest.Server) {
		s.Handle("tools/list", func(req *wire.Message) []string {
			var p struct {
				Cursor string `json:"cursor"`
			}
			_ = json.Unmarshal(req.Params, &p)
			i := 0
			if p.Cursor != "" {
				_, _ = fmt.Sscanf(p.Cursor, "p%d", &i)
			}
			res := `{"tools":[` + strings.Join(pages[i], ",") + `]`
			if i+1 < len(pages) {
				res += fmt.Sprintf(`,"nextCursor":"p%d"`, i+1)
			}
			return []string{conformtest.Result(req, res+"}")}
		})
	}
}

// defTools lists the tools on one page.
func defTools(defs ...string) func(s *conformtest.Server) {
	return func(s *conformtest.Server) { s.Tools(defs...) }
}

func TestListingVerdicts(t *testing.T) {
	defRunCases(t, []defCase{
		{name: "valid pages pass", id: "TOOLS-LIST-01", rev: "2024-11-05", want: reports.Pass,
			setup: defPages([]string{defT("a")}, []string{defT("b")})},
		{name: "an empty list passes", id: "TOOLS-LIST-01", rev: "2025-11-25", want: reports.Pass},
		{name: "tools not an array fails", id: "TOOLS-LIST-01", rev: "2025-06-18", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Handle("tools/list", defReply(`{"tools":{}}`)) }},
		{name: "an invalid second page fails", id: "TOOLS-LIST-01", rev: "2025-03-26", want: reports.Fail, contains: "page 2",
			setup: defPages([]string{defT("a")}, []string{`{"name":"b"}`})},
		{name: "nextCursor a number fails", id: "TOOLS-LIST-01", rev: "2025-11-25", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Handle("tools/list", defReply(`{"tools":[],"nextCursor":5}`)) }},
		{name: "an error despite the capability fails", id: "TOOLS-LIST-01", rev: "2025-11-25", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Handle("tools/list", defRPCError(-32603)) }},
		{name: "silence fails", id: "TOOLS-LIST-01", rev: "2025-11-25", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Handle("tools/list", defSilent) }},
		{name: "no capability and -32601 is not applicable", id: "TOOLS-LIST-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotApplicable,
			setup: func(s *conformtest.Server) {
				s.Capabilities = `{}`
				s.Handle("tools/list", defRPCError(wire.CodeMethodNotFound))
			}},

		{name: "valid definitions pass", id: "TOOLS-DEF-01", rev: "2024-11-05", want: reports.Pass,
			setup: defTools(defT("a", `"description":"d"`), defT("b"))},
		{name: "missing name fails", id: "TOOLS-DEF-01", rev: "2025-06-18", want: reports.Fail, contains: "/tools/0/name",
			setup: defTools(`{"inputSchema":{"type":"object"}}`)},
		{name: "inputSchema a string fails", id: "TOOLS-DEF-01", rev: "2025-06-18", want: reports.Fail,
			setup: defTools(`{"name":"a","inputSchema":"{}"}`)},
		{name: "missing inputSchema fails", id: "TOOLS-DEF-01", rev: "2025-03-26", want: reports.Fail,
			setup: defTools(`{"name":"a"}`)},
		{name: "description a number fails", id: "TOOLS-DEF-01", rev: "2025-11-25", want: reports.Fail,
			setup: defTools(defT("a", `"description":5`))},
		{name: "a tool that is not an object fails", id: "TOOLS-DEF-01", rev: "2025-11-25", want: reports.Fail,
			setup: defTools(`"a"`)},
		{name: "no tools is not exercised", id: "TOOLS-DEF-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised},
		{name: "a listing error is not exercised", id: "TOOLS-DEF-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised,
			setup: func(s *conformtest.Server) { s.Handle("tools/list", defRPCError(-32603)) }},
	})
}

func TestNameVerdicts(t *testing.T) {
	defRunCases(t, []defCase{
		{name: "unique names pass", id: "TOOLS-NAME-UNIQUE-01", rev: "2025-11-25", want: reports.Pass,
			setup: defTools(defT("a"), defT("b"))},
		{name: "a duplicate across pages warns in 2024-11-05", id: "TOOLS-NAME-UNIQUE-01", rev: "2024-11-05", want: reports.Warn, contains: "high severity",
			setup: defPages([]string{defT("a"), defT("b")}, []string{defT("a")})},
		{name: "a duplicate warns in 2025-11-25", id: "TOOLS-NAME-UNIQUE-01", rev: "2025-11-25", want: reports.Warn,
			setup: defTools(defT("a"), defT("a"))},
		{name: "a duplicate fails under strict in 2025-11-25", id: "TOOLS-NAME-UNIQUE-01", rev: "2025-11-25", want: reports.Fail, opts: []func(*conform.Config){defStrict},
			setup: defTools(defT("a"), defT("a"))},
		{name: "a duplicate stays a warning under strict in 2025-06-18 (descriptive)", id: "TOOLS-NAME-UNIQUE-01", rev: "2025-06-18", want: reports.Warn, opts: []func(*conform.Config){defStrict},
			setup: defTools(defT("a"), defT("a"))},
		{name: "no tools is not exercised", id: "TOOLS-NAME-UNIQUE-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised},

		{name: "good names pass", id: "TOOLS-NAME-FORMAT-01", rev: "2025-11-25", want: reports.Pass,
			setup: defTools(defT("getUser"), defT("DATA_EXPORT_v2"), defT("admin.tools.list"), defT(strings.Repeat("x", 128)))},
		{name: "a space warns", id: "TOOLS-NAME-FORMAT-01", rev: "2025-11-25", want: reports.Warn, contains: `' '`,
			setup: defTools(defT("get user"))},
		{name: "129 characters warn", id: "TOOLS-NAME-FORMAT-01", rev: "2025-11-25", want: reports.Warn, contains: "129 characters",
			setup: defTools(defT(strings.Repeat("x", 129)))},
		{name: "an empty name warns", id: "TOOLS-NAME-FORMAT-01", rev: "2025-11-25", want: reports.Warn, contains: "empty",
			setup: defTools(defT(""))},
		{name: "no tools is not exercised", id: "TOOLS-NAME-FORMAT-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised},
	})
}

// defCallHandler answers tools/call by name: the listed (exact) name succeeds, the
// flipped name is answered by flipped, any other name by unknown.
func defCallHandler(listed string, flipped, unknown conformtest.Handler) func(s *conformtest.Server) {
	return func(s *conformtest.Server) {
		s.Tools(defT(listed), defT("other_Tool"))
		s.Handle("tools/call", func(req *wire.Message) []string {
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(req.Params, &p)
			switch {
			case p.Name == listed:
				return defReply(`{"content":[{"type":"text","text":"ran"}]}`)(req)
			case strings.EqualFold(p.Name, listed):
				return flipped(req)
			}
			return unknown(req)
		})
	}
}

func TestNameCaseVerdicts(t *testing.T) {
	ok := defReply(`{"content":[{"type":"text","text":"ran"}]}`)
	toolErr := defReply(`{"content":[{"type":"text","text":"failed"}],"isError":true}`)
	unknown := defRPCError(wire.CodeInvalidParams)
	// naming answers as most SDKs do: the message names the tool it did not find.
	naming := func(code int) conformtest.Handler {
		return func(req *wire.Message) []string {
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(req.Params, &p)
			return []string{conformtest.Error(req, code, "Unknown tool: "+p.Name)}
		}
	}
	namingIsError := func(req *wire.Message) []string {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Params, &p)
		return defReply(fmt.Sprintf(`{"content":[{"type":"text","text":"Tool %s not found"}],"isError":true}`, p.Name))(req)
	}
	// broken answers every call, known or not, with the same isError result (a
	// published server whose backend cannot start, issue 9 item 5).
	broken := func(s *conformtest.Server) {
		s.Tools(defT("get_weather"), defT("other_Tool"))
		s.Handle("tools/call", toolErr)
	}
	defRunCases(t, []defCase{
		{name: "unknown-tool error naming the name passes", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Pass,
			setup: defCallHandler("get_weather", naming(wire.CodeInvalidParams), naming(wire.CodeInvalidParams))},
		{name: "an anonymous unknown-tool error is not exercised", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised, contains: "cannot tell",
			setup: defCallHandler("get_weather", unknown, unknown)},
		{name: "an anonymous error passes when the real name works", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Pass,
			opts:  []func(*conform.Config){func(c *conform.Config) { c.Calls = []conform.CallSpec{{Name: "get_weather"}} }},
			setup: defCallHandler("get_weather", unknown, unknown)},
		// Over HTTP the same error may come in an HTTP 400 body: the same verdict.
		{name: "an unknown-tool error in an HTTP 400 body passes as on stdio", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Pass,
			setup: defCallHandler("get_weather", func(req *wire.Message) []string {
				return []string{conformtest.HTTPError(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"Unknown tool: GET_WEATHER"}}`)}
			}, naming(wire.CodeInvalidParams))},
		{name: "isError for every call, known or not, is not exercised", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised, contains: "fails every call",
			setup: broken},
		{name: "isError for every call is not exercised, even with the real name called", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised, contains: "the real name got",
			opts:  []func(*conform.Config){func(c *conform.Config) { c.Calls = []conform.CallSpec{{Name: "get_weather"}} }},
			setup: broken},
		{name: "flipped name executes warns", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Warn, contains: "executed",
			setup: defCallHandler("get_weather", ok, unknown)},
		{name: "flipped name fails under strict", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Fail, opts: []func(*conform.Config){defStrict},
			setup: defCallHandler("get_weather", ok, unknown)},
		{name: "flipped isError while unknown is -32602 warns", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Warn, contains: "resolved",
			setup: defCallHandler("get_weather", toolErr, unknown)},
		{name: "isError naming the name for both is a note", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Pass, contains: "note:",
			setup: defCallHandler("get_weather", namingIsError, namingIsError)},
		{name: "a different error code naming the name is a note", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Pass, contains: "note:",
			setup: defCallHandler("get_weather", naming(-32603), unknown)},
		{name: "a different anonymous error code is not exercised", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised, contains: "whether the flipped name was resolved",
			setup: defCallHandler("get_weather", defRPCError(-32603), unknown)},
		{name: "silence warns", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Warn,
			setup: defCallHandler("get_weather", defSilent, unknown)},
		{name: "names colliding case-insensitively are not probed", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defT("Run"), defT("run"), defT("123"))},
		{name: "an incomplete walk is not probed", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised,
			opts:  []func(*conform.Config){func(c *conform.Config) { c.MaxPages = 1 }},
			setup: defPages([]string{defT("a")}, []string{defT("b")})},
		{name: "no tools is not exercised", id: "TOOLS-NAME-CASE-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised},
	})
}

func TestNameCaseProbeRunsLateOnTheMainSession(t *testing.T) {
	srv := conformtest.NewServer()
	defCallHandler("get_weather", defRPCError(wire.CodeInvalidParams), defRPCError(wire.CodeInvalidParams))(srv)
	v := conformtest.Judge(t, "TOOLS-NAME-CASE-01", "2025-11-25", srv)
	if v.Status != reports.Skip { // the anonymous error tells nothing, but the probe ran
		t.Fatalf("status %s (%s)", v.Status, v.Message)
	}
	if srv.Sessions != 1 {
		t.Errorf("sessions opened: %d, want 1 (the main session)", srv.Sessions)
	}
	if p := conform.Lookup("TOOLS-NAME-CASE-01").RunPhase(); p != conform.PhaseOddInput {
		t.Errorf("TOOLS-NAME-CASE-01 runs in phase %d, want PhaseOddInput", p)
	}
}

func TestCaseTargetPrefersCallableTools(t *testing.T) {
	if got := defSwapCase("get_Weather.v2"); got != "GET_wEATHER.V2" {
		t.Errorf("defSwapCase = %q", got)
	}
	srv := conformtest.NewServer()
	var called []string
	srv.Tools(defT("delete_all"), `{"name":"needs_args","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`, defT("test_simple_text"))
	srv.Handle("tools/call", func(req *wire.Message) []string {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Params, &p)
		called = append(called, p.Name)
		if p.Name == "test_simple_text" {
			return defReply(`{"content":[{"type":"text","text":"ran"}]}`)(req)
		}
		return defRPCError(wire.CodeInvalidParams)(req)
	})
	v := conformtest.Judge(t, "TOOLS-NAME-CASE-01", "2025-11-25", srv)
	if v.Status != reports.Pass || len(called) == 0 || called[0] != "TEST_SIMPLE_TEXT" {
		t.Fatalf("status %s (%s); calls %v, want TEST_SIMPLE_TEXT first", v.Status, v.Message, called)
	}
	// Without a callable tool, a tool with required properties comes first.
	srv.Tools(defT("delete_all"), `{"name":"needs_args","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`)
	called = nil
	_ = conformtest.Judge(t, "TOOLS-NAME-CASE-01", "2025-11-25", srv)
	if len(called) == 0 || called[0] != "NEEDS_ARGS" {
		t.Fatalf("calls %v, want NEEDS_ARGS first", called)
	}
}

func TestMetadataVerdicts(t *testing.T) {
	defRunCases(t, []defCase{
		{name: "a string title passes", id: "TOOLS-TITLE-01", rev: "2025-06-18", want: reports.Pass,
			setup: defTools(defT("a", `"title":"A"`), defT("b"))},
		{name: "a numeric title fails", id: "TOOLS-TITLE-01", rev: "2025-11-25", want: reports.Fail,
			setup: defTools(defT("a", `"title":5`))},
		{name: "no title is not exercised", id: "TOOLS-TITLE-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defT("a"))},

		{name: "valid annotations pass", id: "TOOLS-ANNOT-01", rev: "2025-03-26", want: reports.Pass,
			setup: defTools(defT("a", `"annotations":{"title":"A","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`))},
		{name: "a string hint fails", id: "TOOLS-ANNOT-01", rev: "2025-11-25", want: reports.Fail, contains: "readOnlyHint",
			setup: defTools(defT("a", `"annotations":{"readOnlyHint":"yes"}`))},
		{name: "annotations not an object fails", id: "TOOLS-ANNOT-01", rev: "2025-06-18", want: reports.Fail,
			setup: defTools(defT("a", `"annotations":[]`))},
		{name: "no annotations is not exercised", id: "TOOLS-ANNOT-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defT("a"))},

		{name: "consistent hints pass", id: "TOOLS-ANNOT-CONSIST-01", rev: "2025-03-26", want: reports.Pass,
			setup: defTools(defT("a", `"annotations":{"readOnlyHint":true,"destructiveHint":false}`), defT("b", `"annotations":{"readOnlyHint":false,"destructiveHint":true}`))},
		{name: "readOnly and destructive warns", id: "TOOLS-ANNOT-CONSIST-01", rev: "2025-11-25", want: reports.Warn, contains: `"a"`,
			setup: defTools(defT("a", `"annotations":{"readOnlyHint":true,"destructiveHint":true}`))},
		{name: "readOnly and destructive stays a warning under strict (derived)", id: "TOOLS-ANNOT-CONSIST-01", rev: "2025-11-25", want: reports.Warn, opts: []func(*conform.Config){defStrict},
			setup: defTools(defT("a", `"annotations":{"readOnlyHint":true,"destructiveHint":true}`))},
		{name: "no annotations is not exercised", id: "TOOLS-ANNOT-CONSIST-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defT("a"))},

		{name: "a known taskSupport passes", id: "TOOLS-EXEC-R4-01", rev: "2025-11-25", want: reports.Pass,
			setup: defTools(defT("a", `"execution":{"taskSupport":"optional"}`), defT("b", `"execution":{}`))},
		{name: "an unknown taskSupport fails", id: "TOOLS-EXEC-R4-01", rev: "2025-11-25", want: reports.Fail, contains: "taskSupport",
			setup: defTools(defT("a", `"execution":{"taskSupport":"always"}`))},
		{name: "no execution is not exercised", id: "TOOLS-EXEC-R4-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defT("a"))},
	})
}

func TestRevisionsFollowTheRegistry(t *testing.T) {
	want := map[string][]string{
		"TOOLS-NAME-FORMAT-01":       {"2025-11-25", "2026-07-28"},
		"TOOLS-NAME-CASE-01":         {"2025-11-25", "2026-07-28"},
		"TOOLS-TITLE-01":             {"2025-06-18", "2025-11-25", "2026-07-28"},
		"TOOLS-ANNOT-01":             {"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"},
		"TOOLS-ANNOT-CONSIST-01":     {"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"},
		"TOOLS-EXEC-R4-01":           {"2025-11-25"},
		"TOOLS-ICONS-01":             {"2025-11-25", "2026-07-28"},
		"TOOLS-ICONS-SCHEME-01":      {"2025-11-25", "2026-07-28"},
		"TOOLS-ICONS-DATA-01":        {"2025-11-25", "2026-07-28"},
		"TOOLS-INSCHEMA-VALID-01":    {"2025-11-25", "2026-07-28"},
		"TOOLS-INSCHEMA-VALID-R1-01": {"2024-11-05", "2025-03-26", "2025-06-18"},
		"TOOLS-OUTSCHEMA-01":         {"2025-06-18", "2025-11-25", "2026-07-28"},
		"TOOLS-CAP-01":               {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"},
		"LIFE-VERSION-RESPECT-01":    {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"},
	}
	for id, revs := range want {
		c := conform.Lookup(id)
		if c == nil {
			t.Errorf("%s is not registered", id)
			continue
		}
		var got []string
		for _, r := range c.Revisions {
			got = append(got, r.Name)
		}
		if strings.Join(got, ",") != strings.Join(revs, ",") {
			t.Errorf("%s revisions %v, want %v", id, got, revs)
		}
	}
	if err := conform.RegistryErr(); err != nil {
		t.Fatal(err)
	}
}

// defFoldKey is strings.EqualFold's relation, so the collision test stays linear.
func TestFoldKeyIsEqualFold(t *testing.T) {
	names := []string{"run", "Run", "RUN", "ruN", "k", "K", "\u212a", "ß", "ẞ", "ss", "σ", "ς", "Σ", "get_Weather.v2", "GET_wEATHER.V2", "a-b", "A_B"}
	for _, a := range names {
		for _, b := range names {
			if got, want := defFoldKey(a) == defFoldKey(b), strings.EqualFold(a, b); got != want {
				t.Errorf("%q vs %q: keys equal %v, EqualFold %v", a, b, got, want)
			}
		}
	}
}
