package resources

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe/subscribetest"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// resCase is one verdict-table row: a scripted server and the verdict wanted.
type resCase struct {
	name, id, rev string
	setup         func(s *conformtest.Server)
	want          reports.Status
	reason        reports.SkipReason // checked when want is Skip
	contains      string             // a substring the message must hold
	opts          []func(*conform.Config)
}

func runCases(t *testing.T, cases []resCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.id+"/"+tc.rev+"/"+tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			srv.Capabilities = `{"tools":{},"resources":{"subscribe":true}}`
			handle(srv, goodServer())
			if tc.setup != nil {
				tc.setup(srv)
			}
			v := conformtest.Judge(t, tc.id, tc.rev, srv, tc.opts...)
			if v.Status != tc.want {
				t.Fatalf("%s: status %s, want %s (%s)", tc.id, v.Status, tc.want, v.Message)
			}
			if tc.want == reports.Skip && tc.reason != "" && v.Reason != tc.reason {
				t.Errorf("%s: skip reason %s, want %s (%s)", tc.id, v.Reason, tc.reason, v.Message)
			}
			if tc.contains != "" && !strings.Contains(v.Message, tc.contains) {
				t.Errorf("%s: message %q lacks %q", tc.id, v.Message, tc.contains)
			}
		})
	}
}

// scripted is a resources server as method → handler.
type scripted map[string]conformtest.Handler

func handle(srv *conformtest.Server, s scripted) {
	for m, h := range s {
		srv.Handle(m, h)
	}
}

func reply(result string) conformtest.Handler {
	return func(req *wire.Message) []string { return []string{conformtest.Result(req, result)} }
}

func rpcError(code int) conformtest.Handler {
	return func(req *wire.Message) []string { return []string{conformtest.Error(req, code, "nope")} }
}

const (
	resText = `{"uri":"test://a","name":"a","mimeType":"text/plain","annotations":{"audience":["user"],"priority":0.5}}`
	resBlob = `{"uri":"test://b","name":"b","mimeType":"image/png"}`
	resC    = `{"uri":"test://c","name":"c"}`
)

// cursorOf reads the cursor of a request ("" when none).
func cursorOf(req *wire.Message) string {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return p.Cursor
}

func uriOf(req *wire.Message) string {
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return p.URI
}

// pages serves resources/list as the given pages, cursors "p2", "p3", … ; an
// unknown cursor is -32602.
func pages(ps ...string) conformtest.Handler {
	return func(req *wire.Message) []string {
		i := 0
		if c := cursorOf(req); c != "" {
			if _, err := fmt.Sscanf(c, "p%d", &i); err != nil || i < 2 || i > len(ps) {
				return []string{conformtest.Error(req, wire.CodeInvalidParams, "bad cursor")}
			}
			i--
		}
		next := ""
		if i < len(ps)-1 {
			next = fmt.Sprintf(`,"nextCursor":"p%d"`, i+2)
		}
		return []string{conformtest.Result(req, `{"resources":[`+ps[i]+`]`+next+`}`)}
	}
}

// goodServer serves two pages of resources, one template, reads and subscriptions.
func goodServer() scripted {
	return scripted{
		"resources/list":           pages(resText+","+resBlob, resC),
		"resources/templates/list": reply(`{"resourceTemplates":[{"uriTemplate":"test://x/{id}","name":"x"}]}`),
		"resources/read": func(req *wire.Message) []string {
			switch uri := uriOf(req); uri {
			case "test://a", "test://c":
				return []string{conformtest.Result(req, `{"contents":[{"uri":"`+uri+`","mimeType":"text/plain","text":"hi"}]}`)}
			case "test://b":
				return []string{conformtest.Result(req, `{"contents":[{"uri":"test://b","mimeType":"image/png","blob":"aGk="}]}`)}
			}
			return []string{conformtest.Error(req, -32002, "Resource not found")}
		},
		"resources/subscribe":   reply(`{}`),
		"resources/unsubscribe": reply(`{}`),
	}
}

func TestCapabilityAndLists(t *testing.T) {
	runCases(t, []resCase{
		{name: "declared", id: "RES-CAP-01", rev: "2025-06-18", want: reports.Pass},
		{name: "undeclared, resources served", id: "RES-CAP-01", rev: "2025-06-18", want: reports.Fail, contains: "lists 2 resource",
			setup: func(s *conformtest.Server) { s.Capabilities = `{"tools":{}}` }},
		{name: "undeclared, -32601", id: "RES-CAP-01", rev: "2025-06-18", want: reports.Pass, contains: "offers no resources",
			setup: func(s *conformtest.Server) {
				s.Capabilities = `{"tools":{}}`
				s.Handle("resources/list", rpcError(wire.CodeMethodNotFound))
			}},
		{name: "flags booleans", id: "RES-CAP-FLAGS-01", rev: "2025-03-26", want: reports.Pass},
		{name: "flag a string", id: "RES-CAP-FLAGS-01", rev: "2025-03-26", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"resources":{"listChanged":"yes"}}` }},
		{name: "no flags", id: "RES-CAP-FLAGS-01", rev: "2025-03-26", want: reports.Skip, reason: reports.NotExercised,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"resources":{}}` }},
		{name: "declared", id: "RES-UNDECLARED-01", rev: "2024-11-05", want: reports.Skip, reason: reports.NotApplicable},
		{name: "undeclared, -32601", id: "RES-UNDECLARED-01", rev: "2024-11-05", want: reports.Pass,
			setup: func(s *conformtest.Server) {
				s.Capabilities = `{"tools":{}}`
				for _, m := range []string{"resources/list", "resources/templates/list", "resources/read"} {
					s.Handle(m, rpcError(wire.CodeMethodNotFound))
				}
			}},
		{name: "undeclared, served", id: "RES-UNDECLARED-01", rev: "2024-11-05", want: reports.Warn,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"tools":{}}` }},
		{name: "valid pages", id: "RES-LIST-01", rev: "2025-11-25", want: reports.Pass, contains: "2 pages, 3 resources"},
		{name: "a resource without name", id: "RES-LIST-01", rev: "2025-11-25", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Handle("resources/list", pages(`{"uri":"test://a"}`)) }},
		{name: "refused though declared", id: "RES-LIST-01", rev: "2025-11-25", want: reports.Fail,
			setup: func(s *conformtest.Server) { s.Handle("resources/list", rpcError(wire.CodeMethodNotFound)) }},
		{name: "no capability", id: "RES-LIST-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotApplicable,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"tools":{}}` }},
		{name: "valid", id: "RES-TPL-LIST-01", rev: "2025-06-18", want: reports.Pass},
		{name: "-32601", id: "RES-TPL-LIST-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotApplicable,
			setup: func(s *conformtest.Server) { s.Handle("resources/templates/list", rpcError(wire.CodeMethodNotFound)) }},
		{name: "no uriTemplate", id: "RES-TPL-LIST-01", rev: "2025-06-18", want: reports.Fail,
			setup: func(s *conformtest.Server) {
				s.Handle("resources/templates/list", reply(`{"resourceTemplates":[{"name":"x"}]}`))
			}},
		{name: "valid", id: "RES-TPL-01", rev: "2025-06-18", want: reports.Pass},
		{name: "unclosed", id: "RES-TPL-01", rev: "2025-06-18", want: reports.Fail, contains: "not closed",
			setup: func(s *conformtest.Server) {
				s.Handle("resources/templates/list", reply(`{"resourceTemplates":[{"uriTemplate":"test://x/{id","name":"x"}]}`))
			}},
	})
}

func TestPagination(t *testing.T) {
	runCases(t, []resCase{
		{name: "two pages", id: "RES-PAG-NEXTCURSOR-01", rev: "2025-06-18", want: reports.Pass},
		{name: "one page", id: "RES-PAG-NEXTCURSOR-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised,
			setup: func(s *conformtest.Server) { s.Handle("resources/list", pages(resText)) }},
		{name: "loop", id: "RES-PAG-NEXTCURSOR-01", rev: "2025-06-18", want: reports.Fail, contains: "loop",
			setup: func(s *conformtest.Server) {
				s.Handle("resources/list", func(req *wire.Message) []string {
					return []string{conformtest.Result(req, `{"resources":[`+resC+`],"nextCursor":"again"}`)}
				})
			}},
		{name: "null", id: "RES-PAG-NEXTCURSOR-01", rev: "2025-06-18", want: reports.Fail, contains: "null",
			setup: func(s *conformtest.Server) {
				s.Handle("resources/list", reply(`{"resources":[`+resC+`],"nextCursor":null}`))
			}},
		{name: "followed", id: "RES-PAG-FOLLOW-01", rev: "2025-03-26", want: reports.Pass},
		{name: "issued cursor refused", id: "RES-PAG-FOLLOW-01", rev: "2025-03-26", want: reports.Warn,
			setup: func(s *conformtest.Server) {
				s.Handle("resources/list", func(req *wire.Message) []string {
					if cursorOf(req) != "" {
						return []string{conformtest.Error(req, wire.CodeInvalidParams, "no")}
					}
					return []string{conformtest.Result(req, `{"resources":[`+resC+`],"nextCursor":"p2"}`)}
				})
			}},
		{name: "-32602", id: "RES-PAG-INVALID-01", rev: "2025-11-25", want: reports.Pass},
		{name: "first page again", id: "RES-PAG-INVALID-01", rev: "2025-11-25", want: reports.Warn, contains: "ignored",
			setup: func(s *conformtest.Server) { s.Handle("resources/list", reply(`{"resources":[`+resC+`]}`)) }},
		{name: "-32603", id: "RES-PAG-INVALID-01", rev: "2025-11-25", want: reports.Warn,
			setup: func(s *conformtest.Server) {
				s.Handle("resources/list", func(req *wire.Message) []string {
					if cursorOf(req) != "" {
						return []string{conformtest.Error(req, -32603, "boom")}
					}
					return []string{conformtest.Result(req, `{"resources":[`+resC+`]}`)}
				})
			}},
	})
}

func TestDefinitionsAndReads(t *testing.T) {
	runCases(t, []resCase{
		{name: "absolute", id: "RES-DEF-URI-01", rev: "2025-06-18", want: reports.Pass},
		{name: "relative", id: "RES-DEF-URI-01", rev: "2025-06-18", want: reports.Fail, contains: "relative",
			setup: func(s *conformtest.Server) { s.Handle("resources/list", pages(`{"uri":"a/b","name":"a"}`)) }},
		{name: "valid", id: "RES-DEF-ANNOT-01", rev: "2025-06-18", want: reports.Pass},
		{name: "priority 2", id: "RES-DEF-ANNOT-01", rev: "2024-11-05", want: reports.Fail,
			setup: func(s *conformtest.Server) {
				s.Handle("resources/list", pages(`{"uri":"test://a","name":"a","annotations":{"priority":2}}`))
			}},
		{name: "lastModified yesterday", id: "RES-DEF-ANNOT-01", rev: "2025-06-18", want: reports.Fail, contains: "ISO 8601",
			setup: func(s *conformtest.Server) {
				s.Handle("resources/list", pages(`{"uri":"test://a","name":"a","annotations":{"lastModified":"yesterday"}}`))
			}},
		{name: "none", id: "RES-DEF-ANNOT-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised,
			setup: func(s *conformtest.Server) { s.Handle("resources/list", pages(resC)) }},
		{name: "valid", id: "RES-READ-01", rev: "2025-11-25", want: reports.Pass, contains: `"test://a", "test://b", "test://c"`},
		{name: "--read", id: "RES-READ-01", rev: "2025-11-25", want: reports.Pass, contains: `named by --read: "test://c"`,
			opts: []func(*conform.Config){func(c *conform.Config) { c.Reads = []string{"test://c"} }}},
		{name: "--read unknown", id: "RES-READ-01", rev: "2025-11-25", want: reports.Warn, contains: "named by --read",
			opts: []func(*conform.Config){func(c *conform.Config) { c.Reads = []string{"test://none"} }}},
		{name: "text a number", id: "RES-READ-01", rev: "2025-11-25", want: reports.Fail,
			setup: func(s *conformtest.Server) {
				s.Handle("resources/read", reply(`{"contents":[{"uri":"test://a","text":42}]}`))
			}},
		{name: "listed, unreadable", id: "RES-READ-01", rev: "2025-11-25", want: reports.Warn,
			setup: func(s *conformtest.Server) { s.Handle("resources/read", rpcError(-32603)) }},
		{name: "strict base64", id: "RES-READ-BLOB-01", rev: "2025-03-26", want: reports.Pass},
		{name: "not base64", id: "RES-READ-BLOB-01", rev: "2025-03-26", want: reports.Fail,
			setup: func(s *conformtest.Server) {
				s.Handle("resources/read", reply(`{"contents":[{"uri":"test://b","blob":"not base64!"}]}`))
			}},
		{name: "no blob", id: "RES-READ-BLOB-01", rev: "2025-03-26", want: reports.Skip, reason: reports.NotExercised,
			setup: func(s *conformtest.Server) { s.Handle("resources/list", pages(resText)) }},
		{name: "match", id: "RES-READ-MATCH-01", rev: "2025-06-18", want: reports.Pass},
		{name: "mime differs", id: "RES-READ-MATCH-01", rev: "2025-06-18", want: reports.Warn, contains: "text/markdown",
			setup: func(s *conformtest.Server) {
				s.Handle("resources/read", reply(`{"contents":[{"uri":"test://a","mimeType":"text/markdown","text":"x"}]}`))
			}},
		{name: "another uri", id: "RES-READ-MATCH-01", rev: "2025-06-18", want: reports.Warn, contains: "none of its",
			setup: func(s *conformtest.Server) {
				s.Handle("resources/read", reply(`{"contents":[{"uri":"test://zzz","text":"x"}]}`))
			}},
	})
}

func TestNotFoundAndSubscriptions(t *testing.T) {
	runCases(t, []resCase{
		{name: "-32002", id: "RES-NOTFOUND-01", rev: "2025-06-18", want: reports.Pass},
		{name: "-32602 before 2026-07-28", id: "RES-NOTFOUND-01", rev: "2025-06-18", want: reports.Warn,
			setup: func(s *conformtest.Server) { s.Handle("resources/read", rpcError(wire.CodeInvalidParams)) }},
		{name: "empty contents", id: "RES-NOTFOUND-01", rev: "2024-11-05", want: reports.Warn,
			setup: func(s *conformtest.Server) { s.Handle("resources/read", reply(`{"contents":[]}`)) }},
		{name: "subscribe and unsubscribe", id: "RES-SUB-01", rev: "2025-06-18", want: reports.Pass},
		{name: "subscribe refused", id: "RES-SUB-01", rev: "2025-06-18", want: reports.Warn,
			setup: func(s *conformtest.Server) { s.Handle("resources/subscribe", rpcError(-32603)) }},
		{name: "not declared", id: "RES-SUB-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotApplicable,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"resources":{}}` }},
		{name: "declared", id: "RES-SUB-UNDECLARED-01", rev: "2025-03-26", want: reports.Skip, reason: reports.NotApplicable},
		{name: "undeclared, -32601", id: "RES-SUB-UNDECLARED-01", rev: "2025-03-26", want: reports.Pass,
			setup: func(s *conformtest.Server) {
				s.Capabilities = `{"resources":{}}`
				s.Handle("resources/subscribe", rpcError(wire.CodeMethodNotFound))
			}},
		{name: "undeclared, served", id: "RES-SUB-UNDECLARED-01", rev: "2025-03-26", want: reports.Warn,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"resources":{}}` }},
	})
}

func TestTranscriptChecks(t *testing.T) {
	updated := func(uri string) string {
		return `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"` + uri + `"}}`
	}
	listed := func(notes ...string) conformtest.Handler {
		inner := pages(resText)
		return func(req *wire.Message) []string { return append(notes, inner(req)...) }
	}
	ids := []string{"RES-SUB-01", "RES-SUB-UPDATED-01", "RES-LC-UNDECLARED-01"}
	for _, tc := range []struct {
		name  string
		setup func(s *conformtest.Server)
		want  []reports.Status
	}{
		{"no notification", nil, []reports.Status{reports.Pass, reports.Skip, reports.Skip}},
		{"update after subscribe", func(s *conformtest.Server) {
			s.Handle("resources/subscribe", func(req *wire.Message) []string {
				return []string{updated(uriOf(req) + "/part"), conformtest.Result(req, `{}`)}
			})
		}, []reports.Status{reports.Pass, reports.Pass, reports.Skip}},
		{"update unsubscribed", func(s *conformtest.Server) { s.Handle("resources/list", listed(updated("test://zzz"))) },
			[]reports.Status{reports.Pass, reports.Warn, reports.Skip}},
		{"list_changed undeclared", func(s *conformtest.Server) {
			s.Handle("resources/list", listed(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`))
		}, []reports.Status{reports.Pass, reports.Skip, reports.Fail}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			srv.Capabilities = `{"tools":{},"resources":{"subscribe":true}}`
			handle(srv, goodServer())
			if tc.setup != nil {
				tc.setup(srv)
			}
			vs := conformtest.JudgeAll(t, ids, "2025-06-18", srv)
			for i, v := range vs {
				if v.Status != tc.want[i] {
					t.Errorf("%s: status %s, want %s (%s)", ids[i], v.Status, tc.want[i], v.Message)
				}
			}
		})
	}
}

func TestParseURITemplate(t *testing.T) {
	for _, tc := range []struct {
		tpl string
		ok  bool
	}{
		{"file:///{path}", true}, {"test://files{/path*}", true}, {"http://x/{+base}{?q,lang}", true},
		{"x://{var:30}", true}, {"x://{a.b}", true}, {"x://%20{x}", true},
		{"x://{id", false}, {"x://id}", false}, {"x://{}", false}, {"x://{=x}", false},
		{"x://{a b}", false}, {"x://{x:0}", false}, {"x://{x:10000}", false}, {"x:// {x}", false}, {"x://%zz", false},
	} {
		if err := ParseURITemplate(tc.tpl); (err == nil) != tc.ok {
			t.Errorf("ParseURITemplate(%q) = %v, want ok=%v", tc.tpl, err, tc.ok)
		}
	}
}

func TestJudgeSameSet(t *testing.T) {
	walk := func(stop toolkit.Stop, uris ...string) *listwalk.Listing {
		l := &listwalk.Listing{Method: methodList, Key: keyList, Stop: stop, Pages: []listwalk.Page{{}}}
		for i, u := range uris {
			l.Items = append(l.Items, listwalk.Item{Fields: map[string]json.RawMessage{"uri": json.RawMessage(`"` + u + `"`)}, Index: i, Key: keyList})
		}
		return l
	}
	for _, tc := range []struct {
		name string
		a, b *listwalk.Listing
		want conform.Outcome
	}{
		{"same set, other order", walk(toolkit.StopEnd, "x://a", "x://b"), walk(toolkit.StopEnd, "x://b", "x://a"), conform.OutcomePass},
		{"one more", walk(toolkit.StopEnd, "x://a"), walk(toolkit.StopEnd, "x://a", "x://b"), conform.OutcomeViolation},
		{"incomplete walk", walk(toolkit.StopMaxPages, "x://a"), walk(toolkit.StopEnd, "x://b"), conform.OutcomeSkip},
	} {
		if got := judgeSameSet(tc.a, tc.b).Outcome(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// triggeredResources is a server whose trigger tool adds a resource (changes) and
// announces it (announce): RES-LC-01's verdicts.
func triggeredResources(announce, changes bool) func(s *conformtest.Server) {
	return func(s *conformtest.Server) {
		subscribetest.TriggeredList(s, "resources", "resources", "["+resText+"]", "["+resText+","+resC+"]", announce, changes)
	}
}

func TestResourceListChanged(t *testing.T) {
	runCases(t, []resCase{
		{name: "an announced change passes", id: "RES-LC-01", rev: "2025-11-25", want: reports.Pass, contains: `added "test://c"`, setup: triggeredResources(true, true)},
		{name: "an unannounced change warns", id: "RES-LC-01", rev: "2025-11-25", want: reports.Warn, contains: "no notification", setup: triggeredResources(false, true)},
		{name: "no change is not exercised", id: "RES-LC-01", rev: "2025-03-26", want: reports.Skip, reason: reports.NotExercised, setup: triggeredResources(false, false)},
		{name: "no trigger needs the fixture", id: "RES-LC-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NeedsFixture,
			setup: func(s *conformtest.Server) { s.Capabilities = `{"tools":{},"resources":{"listChanged":true}}` }},
		{name: "listChanged not declared is not applicable", id: "RES-LC-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotApplicable},
	})
}

// TestJudgeListenUpdates covers RES-SUB-R5-01's judgement of a subscription's
// messages.
func TestJudgeListenUpdates(t *testing.T) {
	sub := &conform.Subscription{ID: wire.NumberID(4)}
	const (
		ack     = `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4},"notifications":{"resourceSubscriptions":["test://a"]}}}`
		ackNone = `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4},"notifications":{}}}`
		upd     = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4},"uri":"test://a"}}`
		updSub  = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4},"uri":"test://a/part"}}`
		updB    = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4},"uri":"test://b"}}`
		updBare = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}`
	)
	for _, tc := range []struct {
		name     string
		msgs     []string
		want     reports.Status
		contains string
	}{
		{"tagged update of the URI", []string{ack, upd}, reports.Pass, "1 notifications/resources/updated"},
		{"a sub-resource", []string{ack, updSub}, reports.Pass, ""},
		{"another URI", []string{ack, upd, updB}, "", `for "test://b"`}, // a violation: "" until the level settles it
		{"untagged", []string{ack, updBare}, "", "carries no _meta"},
		{"no update", []string{ack}, reports.Skip, "did not change"},
		{"not acknowledged", []string{ackNone}, reports.Skip, "did not agree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var entries []wire.Entry
			for i, raw := range tc.msgs {
				m, err := wire.Decode([]byte(raw))
				if err != nil {
					t.Fatal(err)
				}
				entries = append(entries, wire.Entry{Seq: i + 1, Dir: wire.Received, Raw: []byte(raw), Msg: m})
			}
			v := judgeListenUpdates(sub, "test://a", entries)
			if v.Status != tc.want || !strings.Contains(v.Message, tc.contains) {
				t.Errorf("verdict = %s %q, want %s containing %q", v.Status, v.Message, tc.want, tc.contains)
			}
		})
	}
}
