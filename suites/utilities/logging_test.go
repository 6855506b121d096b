package utilities

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/loglevel"
)

// lgScript describes a scripted logging server: by default it declares tools and
// logging, lists test_tool_with_logging (one message per level at or above the
// minimum: logging/setLevel's, or in 2026-07-28 the request's _meta logLevel, and
// none without it), and refuses an unknown level with -32602.
type lgScript struct {
	r5           bool
	caps         string                      // the capabilities object ("" for tools and logging)
	noTool       bool                        // test_tool_with_logging is not listed
	ignoreLevel  bool                        // every level is sent whatever was asked
	withoutLevel bool                        // 2026-07-28: log also for a request that names no level
	only         []string                    // send only these levels (nil: every level that passes)
	params       func(level string) string   // the params of the message at a level
	invalidCode  int                         // the code an unknown level gets (0: -32602; -1: accepted)
	setLevel     func(level string) []string // logging/setLevel's answer, by level (nil: the default)
	before       string                      // a message sent before the initialize result
	after        bool                        // the messages come after the call's result
}

func lgServer(sc lgScript) func() *conformtest.Server {
	return func() *conformtest.Server {
		var mu sync.Mutex
		threshold := 0
		tools := map[string]conformtest.Tool{}
		if !sc.noTool {
			tools[loglevel.Fixture] = conformtest.Tool{Reply: func(req *wire.Message) []string {
				mu.Lock()
				th := threshold
				mu.Unlock()
				result := conformtest.Result(req, conformtest.Content(conformtest.TextBlock))
				if sc.r5 {
					level := lgMetaLevel(req.Params)
					if level == "" && !sc.withoutLevel {
						return []string{result}
					}
					th = max(loglevel.Rank(level), 0)
				}
				if sc.ignoreLevel {
					th = 0
				}
				var out []string
				for i, level := range loglevel.Levels {
					if i < th || sc.only != nil && !slices.Contains(sc.only, level) {
						continue
					}
					p := fmt.Sprintf(`{"level":%q,"logger":"scripted","data":"at %s"}`, level, level)
					if sc.params != nil {
						p = sc.params(level)
					}
					out = append(out, conformtest.Notification(loglevel.Method, p))
				}
				if sc.after {
					return append([]string{result}, out...)
				}
				return append(out, result)
			}}
		}
		srv := conformtest.ServeTools(tools)
		srv.Capabilities = `{"tools":{"listChanged":true},"logging":{}}`
		if sc.caps != "" {
			srv.Capabilities = sc.caps
		}
		invalid := func(req *wire.Message) []string {
			switch sc.invalidCode {
			case -1:
				return nil
			case 0:
				return []string{conformtest.Error(req, wire.CodeInvalidParams, "unknown level")}
			}
			return []string{conformtest.Error(req, sc.invalidCode, "unknown level")}
		}
		srv.Handle(loglevel.SetLevel, func(req *wire.Message) []string {
			var p struct {
				Level string `json:"level"`
			}
			_ = json.Unmarshal(req.Params, &p)
			if sc.setLevel != nil {
				if out := sc.setLevel(p.Level); out != nil {
					return lgWithID(req, out)
				}
			}
			r := loglevel.Rank(p.Level)
			if r < 0 {
				if out := invalid(req); out != nil {
					return out
				}
				return []string{conformtest.Result(req, `{}`)}
			}
			mu.Lock()
			threshold = r
			mu.Unlock()
			return []string{conformtest.Result(req, `{}`)}
		})
		if sc.before != "" {
			srv.Handle("initialize", func(req *wire.Message) []string {
				return []string{sc.before, conformtest.Result(req, `{"protocolVersion":"2025-06-18","capabilities":`+srv.Capabilities+`,"serverInfo":{"name":"scripted","version":"1"}}`)}
			})
		}
		if sc.r5 {
			conformtest.Modern(srv)
			srv.Handle("server/discover", conformtest.Reply(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":`+srv.Capabilities+`,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted","version":"1"}},"ttlMs":0,"cacheScope":"private"}`))
			srv.Handle("tools/list", func(req *wire.Message) []string {
				if level := lgMetaLevel(req.Params); level != "" && loglevel.Rank(level) < 0 {
					if out := invalid(req); out != nil {
						return out
					}
				}
				return []string{conformtest.Result(req, `{"tools":[`+lgToolDef(sc)+`],"resultType":"complete","ttlMs":0,"cacheScope":"private"}`)}
			})
		}
		return srv
	}
}

// lgToolDef is the fixture tool's definition, or nothing when it is not listed.
func lgToolDef(sc lgScript) string {
	if sc.noTool {
		return ""
	}
	return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, loglevel.Fixture)
}

// lgWithID fills the request's id into scripted replies ("ID").
func lgWithID(req *wire.Message, out []string) []string {
	var res []string
	for _, o := range out {
		res = append(res, strings.ReplaceAll(o, `"ID"`, string(req.ID.Raw())))
	}
	return res
}

func TestLogTranscriptVerdicts(t *testing.T) {
	good := lgServer(lgScript{})
	undeclared := lgServer(lgScript{caps: `{"tools":{}}`})
	silent := lgServer(lgScript{only: []string{}})
	const rev = "2025-06-18"
	conformtest.RunCases(t, []conformtest.Case{
		// LOG-CAP-01
		{Name: "declared logging passes", ID: "LOG-CAP-01", Rev: rev, Srv: good, Want: reports.Pass},
		{Name: "logging without the capability fails", ID: "LOG-CAP-01", Rev: "2025-11-25", Srv: undeclared, Want: reports.Fail, Contains: "no logging"},
		// lifecycle.mdx allows logging before initialized: a message ahead of the
		// initialize result that declares logging breaks no rule (Mastra's docs server).
		{Name: "a message before the initialize result that declares logging passes", ID: "LOG-CAP-01", Rev: rev,
			Srv:  lgServer(lgScript{before: conformtest.Notification(loglevel.Method, `{"level":"info","data":"starting"}`)}),
			Want: reports.Pass},
		{Name: "a tool that logs nothing is not exercised", ID: "LOG-CAP-01", Rev: rev, Srv: silent, Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no fixture needs the fixture", ID: "LOG-CAP-01", Rev: rev, Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NeedsFixture},
		{Name: "no logging and no messages is not exercised", ID: "LOG-CAP-01", Rev: rev, Srv: lgServer(lgScript{caps: `{"tools":{}}`, only: []string{}}), Want: reports.Skip, Reason: reports.NotExercised},

		// LOG-SHAPE-01
		{Name: "syslog levels with data pass", ID: "LOG-SHAPE-01", Rev: rev, Srv: good, Want: reports.Pass},
		{Name: "an unknown level name fails", ID: "LOG-SHAPE-01", Rev: "2024-11-05",
			Srv:  lgServer(lgScript{params: func(l string) string { return fmt.Sprintf(`{"level":%q,"data":1}`, strings.TrimSuffix(l, "ing")) }}),
			Want: reports.Fail, Contains: `level "warn" is no syslog level name`},
		{Name: "no data fails", ID: "LOG-SHAPE-01", Rev: rev, Srv: lgServer(lgScript{params: func(l string) string { return fmt.Sprintf(`{"level":%q}`, l) }}), Want: reports.Fail, Contains: "no data"},
		{Name: "a number logger fails", ID: "LOG-SHAPE-01", Rev: rev, Srv: lgServer(lgScript{params: func(l string) string { return fmt.Sprintf(`{"level":%q,"data":null,"logger":7}`, l) }}), Want: reports.Fail, Contains: "logger 7"},
		{Name: "a level that is no string fails", ID: "LOG-SHAPE-01", Rev: rev, Srv: lgServer(lgScript{params: func(string) string { return `{"level":3,"data":"x"}` }}), Want: reports.Fail, Contains: "not a string"},
		{Name: "no fixture needs the fixture", ID: "LOG-SHAPE-01", Rev: rev, Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NeedsFixture},
	})
}

func TestSetLevelVerdicts(t *testing.T) {
	good := lgServer(lgScript{})
	undeclared := lgServer(lgScript{caps: `{"tools":{}}`})
	const rev = "2025-03-26"
	conformtest.RunCases(t, []conformtest.Case{
		// LOG-SETLEVEL-01
		{Name: "every level answered {} passes", ID: "LOG-SETLEVEL-01", Rev: rev, Srv: good, Want: reports.Pass},
		{Name: "a refused valid level warns", ID: "LOG-SETLEVEL-01", Rev: rev, Srv: lgServer(lgScript{setLevel: func(l string) []string {
			if l == "notice" {
				return []string{`{"jsonrpc":"2.0","id":"ID","error":{"code":-32602,"message":"no such level"}}`}
			}
			return nil
		}}), Want: reports.Warn, Contains: `"notice"`},
		{Name: "a non-empty result warns", ID: "LOG-SETLEVEL-01", Rev: rev, Srv: lgServer(lgScript{setLevel: func(l string) []string {
			return []string{`{"jsonrpc":"2.0","id":"ID","result":{"level":"` + l + `"}}`}
		}}), Want: reports.Warn, Contains: "members level"},
		{Name: "a result with _meta only passes", ID: "LOG-SETLEVEL-01", Rev: rev, Srv: lgServer(lgScript{setLevel: func(string) []string {
			return []string{`{"jsonrpc":"2.0","id":"ID","result":{"_meta":{}}}`}
		}}), Want: reports.Pass},
		{Name: "silence warns", ID: "LOG-SETLEVEL-01", Rev: rev, Srv: lgServer(lgScript{setLevel: func(string) []string { return []string{} }}), Want: reports.Warn},
		{Name: "undeclared logging is not applicable", ID: "LOG-SETLEVEL-01", Rev: rev, Srv: undeclared, Want: reports.Skip, Reason: reports.NotApplicable},

		// LOG-SETLEVEL-INVALID-01
		{Name: "-32602 passes", ID: "LOG-SETLEVEL-INVALID-01", Rev: rev, Srv: good, Want: reports.Pass},
		{Name: "-32603 warns", ID: "LOG-SETLEVEL-INVALID-01", Rev: rev, Srv: lgServer(lgScript{invalidCode: wire.CodeInternalError}), Want: reports.Warn, Contains: "-32603"},
		{Name: "an accepted unknown level warns", ID: "LOG-SETLEVEL-INVALID-01", Rev: rev, Srv: lgServer(lgScript{invalidCode: -1}), Want: reports.Warn, Contains: "result"},
		{Name: "undeclared logging is not applicable", ID: "LOG-SETLEVEL-INVALID-01", Rev: rev, Srv: undeclared, Want: reports.Skip, Reason: reports.NotApplicable},

		// ERR-LOGLEVEL-01 (suites/errors) reads the same probe: its table is there.
	})
}

func TestLogFilterVerdicts(t *testing.T) {
	const rev = "2025-11-25"
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "filtered levels pass", ID: "LOG-FILTER-01", Rev: rev, Srv: lgServer(lgScript{}), Want: reports.Pass, Contains: "only [error, critical, alert, emergency]"},
		{Name: "levels below error after setLevel error warn", ID: "LOG-FILTER-01", Rev: rev, Srv: lgServer(lgScript{ignoreLevel: true}), Want: reports.Warn, Contains: `level "debug" after logging/setLevel error`},
		{Name: "messages after the result are still seen", ID: "LOG-FILTER-01", Rev: rev, Srv: lgServer(lgScript{ignoreLevel: true, after: true}), Want: reports.Warn},
		{Name: "a tool that never logs below error is not exercised", ID: "LOG-FILTER-01", Rev: rev, Srv: lgServer(lgScript{only: []string{"error", "alert"}}), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "a refused setLevel is not exercised", ID: "LOG-FILTER-01", Rev: rev, Srv: lgServer(lgScript{setLevel: func(string) []string {
			return []string{`{"jsonrpc":"2.0","id":"ID","error":{"code":-32601,"message":"no"}}`}
		}}), Want: reports.Skip, Reason: reports.NotExercised, Contains: "LOG-SETLEVEL-01"},
		{Name: "no fixture needs the fixture", ID: "LOG-FILTER-01", Rev: rev, Srv: lgServer(lgScript{noTool: true}), Want: reports.Skip, Reason: reports.NeedsFixture},
		{Name: "undeclared logging is not applicable", ID: "LOG-FILTER-01", Rev: rev, Srv: lgServer(lgScript{caps: `{"tools":{}}`}), Want: reports.Skip, Reason: reports.NotApplicable},
		{Name: "a silent barrier is an error", ID: "LOG-FILTER-01", Rev: rev, Srv: func() *conformtest.Server {
			s := lgServer(lgScript{})()
			s.Handle("ping", conformtest.Silent)
			return s
		}, Want: reports.Error, Contains: "barrier"},
	})
}

// TestLogOnCallStream: the filtered round waits no grace over legacy Streamable
// HTTP only when every log message came on the SSE stream of the fixture call's own
// POST, the one that carried its result.
func TestLogOnCallStream(t *testing.T) {
	entry := func(raw, source, stream, forMethod string) wire.Entry {
		m, err := wire.Decode([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return wire.Entry{Dir: wire.Received, Raw: []byte(raw), Msg: m, Source: source, Stream: stream, ForMethod: forMethod}
	}
	logAt := func(source, stream string) wire.Entry {
		return entry(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"x"}}`, source, stream, "")
	}
	result := func(stream string) wire.Entry {
		return entry(`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, "post", stream, "tools/call")
	}
	for _, c := range []struct {
		name    string
		entries []wire.Entry
		want    bool
	}{
		{"every message on the call's stream", []wire.Entry{logAt("post", "7"), logAt("post", "7"), result("7")}, true},
		{"one message on the GET stream", []wire.Entry{logAt("post", "7"), logAt("get", ""), result("7")}, false},
		{"a message on another request's stream", []wire.Entry{logAt("post", "6"), result("7")}, false},
		{"the result in a JSON body", []wire.Entry{logAt("get", ""), result("")}, false},
		{"no message at all", []wire.Entry{result("7")}, false},
		{"no result", []wire.Entry{logAt("post", "7")}, false},
	} {
		if got := lgOnCallStream(nil, c.entries); got != c.want {
			t.Errorf("%s: lgOnCallStream = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestR5LogVerdicts(t *testing.T) {
	const r5 = "2026-07-28"
	good := lgServer(lgScript{r5: true})
	conformtest.RunCases(t, []conformtest.Case{
		// LOG-R5-PERREQ-01
		{Name: "logs only when asked pass", ID: "LOG-R5-PERREQ-01", Rev: r5, Srv: good, Want: reports.Pass},
		{Name: "logs without logLevel fail", ID: "LOG-R5-PERREQ-01", Rev: r5, Srv: lgServer(lgScript{r5: true, withoutLevel: true}), Want: reports.Fail, Contains: "for no request that set _meta logLevel"},
		{Name: "logs below the requested level warn", ID: "LOG-R5-PERREQ-01", Rev: r5, Srv: lgServer(lgScript{r5: true, ignoreLevel: true}), Want: reports.Warn, Contains: `asked for "warning" and above`},
		{Name: "logs after the reply fail", ID: "LOG-R5-PERREQ-01", Rev: r5, Srv: lgServer(lgScript{r5: true, after: true}), Want: reports.Fail, Contains: "for no request that set _meta logLevel"},
		{Name: "a log tagged with a subscription fails", ID: "LOG-R5-PERREQ-01", Rev: r5, Srv: lgServer(lgScript{r5: true, params: func(l string) string {
			return fmt.Sprintf(`{"level":%q,"data":"x","_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}`, l)
		}}), Want: reports.Fail, Contains: "subscriptions/listen"},
		{Name: "a tool that never logs is not exercised", ID: "LOG-R5-PERREQ-01", Rev: r5, Srv: lgServer(lgScript{r5: true, only: []string{}}), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no fixture needs the fixture", ID: "LOG-R5-PERREQ-01", Rev: r5, Srv: lgServer(lgScript{r5: true, noTool: true}), Want: reports.Skip, Reason: reports.NeedsFixture},
		{Name: "undeclared and silent is not applicable", ID: "LOG-R5-PERREQ-01", Rev: r5, Srv: lgServer(lgScript{r5: true, caps: `{"tools":{}}`, only: []string{}}), Want: reports.Skip, Reason: reports.NotApplicable},

		// LOG-R5-INVALID-01
		{Name: "-32602 passes", ID: "LOG-R5-INVALID-01", Rev: r5, Srv: good, Want: reports.Pass},
		{Name: "an ignored unknown level warns", ID: "LOG-R5-INVALID-01", Rev: r5, Srv: lgServer(lgScript{r5: true, invalidCode: -1}), Want: reports.Warn},
		{Name: "-32603 warns", ID: "LOG-R5-INVALID-01", Rev: r5, Srv: lgServer(lgScript{r5: true, invalidCode: wire.CodeInternalError}), Want: reports.Warn, Contains: "-32603"},
		{Name: "undeclared logging is not applicable", ID: "LOG-R5-INVALID-01", Rev: r5, Srv: lgServer(lgScript{r5: true, caps: `{"tools":{}}`}), Want: reports.Skip, Reason: reports.NotApplicable},

		// The transcript checks in 2026-07-28 (the exercise asks for logLevel debug).
		{Name: "R5 declared logging passes", ID: "LOG-CAP-01", Rev: r5, Srv: good, Want: reports.Pass},
		{Name: "R5 logging without the capability fails", ID: "LOG-CAP-01", Rev: r5, Srv: lgServer(lgScript{r5: true, caps: `{"tools":{}}`}), Want: reports.Fail},
		{Name: "R5 syslog levels pass", ID: "LOG-SHAPE-01", Rev: r5, Srv: good, Want: reports.Pass},
	})
}

// Over Streamable HTTP a log message belongs to the request whose POST stream
// carried it, whatever else is in flight.
func TestPerRequestStreams(t *testing.T) {
	s := &conform.Session{Label: "h"}
	entry := func(seq int, dir wire.Direction, raw, stream string) wire.Entry {
		m, err := wire.Decode([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return wire.Entry{Seq: seq, Dir: dir, Msg: m, Raw: m.Raw, Stream: stream}
	}
	asked := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/logLevel":"info"}}}`
	plain := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`
	log := func(level string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":%q,"data":"x"}}`, level)
	}
	for _, tc := range []struct {
		name    string
		entries []wire.Entry
		asked   int
		fails   int
		warns   int
	}{
		{"on the asking request's stream", []wire.Entry{entry(1, wire.Sent, asked, ""), entry(2, wire.Sent, plain, ""), entry(3, wire.Received, log("info"), "1")}, 1, 0, 0},
		{"on the other request's stream", []wire.Entry{entry(1, wire.Sent, asked, ""), entry(2, wire.Sent, plain, ""), entry(3, wire.Received, log("info"), "2")}, 0, 1, 0},
		{"below the level on its stream", []wire.Entry{entry(1, wire.Sent, asked, ""), entry(2, wire.Received, log("debug"), "1")}, 1, 0, 1},
		{"on a stream of no request", []wire.Entry{entry(1, wire.Sent, asked, ""), entry(2, wire.Received, log("info"), `"x"`)}, 0, 1, 0},
		{"stdio, while the asking request is in flight", []wire.Entry{entry(1, wire.Sent, asked, ""), entry(2, wire.Sent, plain, ""), entry(3, wire.Received, log("info"), "")}, 1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f conform.Findings
			n := lgJudgePerRequest(s, tc.entries, &f)
			if n != tc.asked || len(f.Fails()) != tc.fails || len(f.Warns()) != tc.warns {
				t.Errorf("asked %d, fails %v, warns %v; want %d, %d, %d", n, f.Fails(), f.Warns(), tc.asked, tc.fails, tc.warns)
			}
		})
	}
}

// TestMetaLevel: the level a request's _meta names, exact member names only; a
// present level that is no non-empty string is still named (as its JSON text).
func TestMetaLevel(t *testing.T) {
	const key = `"io.modelcontextprotocol/logLevel"`
	tests := []struct{ params, want string }{
		{`{"_meta":{` + key + `:"debug"}}`, "debug"},
		{` { "name" : "x" , "_meta" : { "a" : 1 , ` + key + ` : "warning" } } `, "warning"},
		{`{"_meta":{` + key + `:"d\u0065bug"}}`, "debug"},
		{`{"_meta":{` + key + `:"info",` + key + `:"error"}}`, "error"},
		{`{"_meta":{` + key + `:5}}`, "5"},
		{`{"_meta":{` + key + `:""}}`, `""`},
		{`{"_meta":{` + key + `:null}}`, "null"},
		{`{"_meta":{}}`, ""},
		{`{"_meta":null}`, ""},
		{`{"_meta":[]}`, ""},
		{`{}`, ""},
		{`[]`, ""},
		{`{"_META":{` + key + `:"debug"}}`, ""},
	}
	for _, tt := range tests {
		if got := lgMetaLevel(json.RawMessage(tt.params)); got != tt.want {
			t.Errorf("lgMetaLevel(%s) = %q, want %q", tt.params, got, tt.want)
		}
	}
}
