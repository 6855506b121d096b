package pagination

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// ---- pure verdict tables ---------------------------------------------------------

// pg builds a page fetched with cursor (nil: none) whose result lists tools and
// carries next as its nextCursor member (raw JSON; "" leaves it out).
func pg(cursor *string, next string, tools ...string) toolkit.Page {
	defs := make([]string, len(tools))
	for i, n := range tools {
		defs[i] = fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, n)
	}
	result := `{"tools":[` + strings.Join(defs, ",") + `]`
	if next != "" {
		result += `,"nextCursor":` + next
	}
	result += `}`
	p := toolkit.Page{Cursor: cursor, Resp: &wire.Response{Result: json.RawMessage(result), Seq: 1, IDExact: true}}
	_ = json.Unmarshal(p.Resp.Result, &p.Result)
	if nc, ok := p.Result["nextCursor"]; ok && string(nc) != "null" {
		p.NextRaw = nc
		var c string
		if json.Unmarshal(nc, &c) == nil {
			p.NextCursor = &c
		}
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(p.Result["tools"], &raws)
	for _, r := range raws {
		tl := toolkit.Tool{ToolDef: &toolkit.ToolDef{Raw: r}}
		tl.Fields, _, _ = rawjson.AppendMembers(nil, r)
		_ = json.Unmarshal(tl.Fields.Get("name"), &tl.Name)
		p.Tools = append(p.Tools, tl)
	}
	return p
}

func errPage(cursor *string, code int) toolkit.Page {
	return toolkit.Page{Cursor: cursor, Resp: &wire.Response{Error: &wire.Error{Code: code, Message: "x"}, IDExact: true}}
}

func silentPage(cursor *string, err error) toolkit.Page {
	return toolkit.Page{Cursor: cursor, Err: err}
}

func str(s string) *string { return &s }

func listing(stop toolkit.Stop, repeated string, pages ...toolkit.Page) *toolkit.Listing {
	l := &toolkit.Listing{Pages: pages, Stop: stop, Repeated: repeated}
	for _, p := range pages {
		l.Tools = append(l.Tools, p.Tools...)
	}
	return l
}

var errTimeout = fmt.Errorf("tools/list (id 3): %w (waited 5s)", wire.ErrTimeout)

// threePages is a correct walk of three pages.
func threePages() *toolkit.Listing {
	return listing(toolkit.StopEnd, "",
		pg(nil, `"c1"`, "a", "b"), pg(str("c1"), `"c2"`, "c", "d"), pg(str("c2"), "", "e"))
}

func TestInterpretEmptyCursor(t *testing.T) {
	tests := []struct {
		name      string
		l         *toolkit.Listing
		empty     emptyFollow
		stop      toolkit.Stop
		pages     int
		emptyPage int
	}{
		{"no empty cursor", threePages(), emptyNone, toolkit.StopEnd, 3, -1},
		{"\"\" rejected with -32602", listing(toolkit.StopError, "",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), errPage(str(""), -32602)), emptyRejected, toolkit.StopEnd, 2, 1},
		{"\"\" not answered", listing(toolkit.StopError, "",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), silentPage(str(""), errTimeout)), emptyRejected, toolkit.StopEnd, 2, 1},
		{"\"\" restarts the list (the walk then sees c1 again)", listing(toolkit.StopRepeatedCursor, "c1",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `"c1"`, "a")), emptyRestart, toolkit.StopEnd, 2, 1},
		{"\"\" on a single page restarts it", listing(toolkit.StopRepeatedCursor, "",
			pg(nil, `""`, "a"), pg(str(""), `""`, "a")), emptyRestart, toolkit.StopEnd, 1, 0},
		{"\"\" twice after an empty page", listing(toolkit.StopRepeatedCursor, "",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `""`)), emptyTwice, toolkit.StopEnd, 3, 1},
		{"\"\" is a real cursor", listing(toolkit.StopEnd, "",
			pg(nil, `""`, "a"), pg(str(""), "", "b")), emptyContinued, toolkit.StopEnd, 2, 0},
		{"a real \"\" cursor, then a genuine repeat", listing(toolkit.StopRepeatedCursor, "c1",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `"c1"`, "c")), emptyContinued, toolkit.StopRepeatedCursor, 3, 1},
		{"\"\" not followed (max pages)", listing(toolkit.StopMaxPages, "",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b")), emptyUnfollowed, toolkit.StopMaxPages, 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := interpret(tc.l, false)
			if v.empty != tc.empty || v.stop != tc.stop || len(v.pages) != tc.pages || v.emptyAt != tc.emptyPage {
				t.Errorf("got empty=%d stop=%s pages=%d emptyAt=%d, want %d %s %d %d",
					v.empty, v.stop, len(v.pages), v.emptyAt, tc.empty, tc.stop, tc.pages, tc.emptyPage)
			}
		})
	}
}

func TestJudgeNextCursor(t *testing.T) {
	tests := []struct {
		name string
		l    *toolkit.Listing
		want conform.Outcome
		msg  string
	}{
		{"three pages pass", threePages(), conform.OutcomePass, "3 pages"},
		{"one page skips", listing(toolkit.StopEnd, "", pg(nil, "", "a")), conform.OutcomeSkip, "fits one page"},
		{"empty last page passes with a note", listing(toolkit.StopEnd, "", pg(nil, `"c1"`, "a"), pg(str("c1"), "")), conform.OutcomeNote, "last page is empty"},
		{"number cursor fails", listing(toolkit.StopBadCursor, "", pg(nil, `"c1"`, "a"), pg(str("c1"), `5`, "b")), conform.OutcomeViolation, "nextCursor 5"},
		{"null cursor fails", listing(toolkit.StopEnd, "", pg(nil, `"c1"`, "a"), pg(str("c1"), `null`, "b")), conform.OutcomeViolation, "null"},
		{"repeated cursor fails", listing(toolkit.StopRepeatedCursor, "c1", pg(nil, `"c1"`, "a"), pg(str("c1"), `"c1"`, "b")), conform.OutcomeViolation, "already been returned"},
		{"genuine repeat after a real \"\" fails", listing(toolkit.StopRepeatedCursor, "c1",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `"c1"`, "c")), conform.OutcomeViolation, "already been returned"},
		{"max pages warns naming the flag", listing(toolkit.StopMaxPages, "", pg(nil, `"c1"`, "a"), pg(str("c1"), `"c2"`, "b")), conform.OutcomeWarn, "--max-pages"},
		{"failed follow-up is a note", listing(toolkit.StopError, "", pg(nil, `"c1"`, "a"), errPage(str("c1"), -32603)), conform.OutcomeNote, "PAG-FOLLOW-01"},
		{"\"\" restart is not a failure", listing(toolkit.StopRepeatedCursor, "c1",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `"c1"`, "a")), conform.OutcomeNote, "PAG-EMPTY-CURSOR-R5-01"},
		{"\"\" twice is not a failure", listing(toolkit.StopRepeatedCursor, "",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `""`)), conform.OutcomeNote, "came back again"},
		{"\"\" on one page skips", listing(toolkit.StopRepeatedCursor, "", pg(nil, `""`, "a"), pg(str(""), `""`, "a")), conform.OutcomeSkip, "fits one page"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := judgeNextCursor(interpret(tc.l, false), 1000)
			if got.Outcome() != tc.want || !strings.Contains(got.Expected+" "+got.Message, tc.msg) {
				t.Errorf("got kind %s %q / %q, want kind %s mentioning %q", got.Outcome(), got.Expected, got.Message, tc.want, tc.msg)
			}
		})
	}
}

func TestJudgeFollow(t *testing.T) {
	valid := func(json.RawMessage) error { return nil }
	invalid := func(json.RawMessage) error { return errors.New("ListToolsResult: /tools/0: missing inputSchema") }
	tests := []struct {
		name     string
		l        *toolkit.Listing
		validate func(json.RawMessage) error
		want     conform.Outcome
	}{
		{"valid pages pass", threePages(), valid, conform.OutcomePass},
		{"one page skips", listing(toolkit.StopEnd, "", pg(nil, "", "a")), valid, conform.OutcomeSkip},
		{"schema-invalid page", threePages(), invalid, conform.OutcomeViolation},
		{"issued cursor refused", listing(toolkit.StopError, "", pg(nil, `"c1"`, "a"), errPage(str("c1"), -32602)), valid, conform.OutcomeViolation},
		{"issued cursor unanswered", listing(toolkit.StopError, "", pg(nil, `"c1"`, "a"), silentPage(str("c1"), errTimeout)), valid, conform.OutcomeSilence},
		{"malformed next page", listing(toolkit.StopMalformed, "", pg(nil, `"c1"`, "a"),
			toolkit.Page{Cursor: str("c1"), Resp: &wire.Response{Result: json.RawMessage(`{"tools":5}`)}}), valid, conform.OutcomeViolation},
		{"refused \"\" is not judged", listing(toolkit.StopError, "",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), errPage(str(""), -32602)), valid, conform.OutcomePass},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeFollow(interpret(tc.l, false), tc.validate); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s / %s), want %s", got.Outcome(), got.Expected, got.Message, tc.want)
			}
		})
	}
}

func TestJudgeStable(t *testing.T) {
	walk := pg(str("c1"), `"c2"`, "c", "d")
	same := func() stableProbe {
		return stableProbe{cursor: "c1", walk: &walk, first: pg(str("c1"), `"c2x"`, "c", "d"), second: pg(str("c1"), `"c2"`, "c", "d")}
	}
	tests := []struct {
		name   string
		probes func() []stableProbe
		want   conform.Outcome
	}{
		{"same pages pass (cursor strings may differ)", func() []stableProbe { return []stableProbe{same()} }, conform.OutcomePass},
		{"no cursor skips", func() []stableProbe { return nil }, conform.OutcomeSkip},
		{"differs from the walk", func() []stableProbe {
			p := same()
			p.first, p.second = pg(str("c1"), `"c2"`, "x"), pg(str("c1"), `"c2"`, "x")
			return []stableProbe{p}
		}, conform.OutcomeViolation},
		{"differs between requests", func() []stableProbe {
			p := same()
			p.second = pg(str("c1"), `"c2"`, "c")
			return []stableProbe{p}
		}, conform.OutcomeViolation},
		{"definition changed", func() []stableProbe {
			p := same()
			p.second = pg(str("c1"), `"c2"`, "c", "d")
			p.second.Tools[1].Raw = json.RawMessage(`{"name":"d","inputSchema":{"type":"object"},"description":"new"}`)
			return []stableProbe{p}
		}, conform.OutcomeViolation},
		{"end marker changed", func() []stableProbe {
			p := same()
			p.second = pg(str("c1"), "", "c", "d")
			return []stableProbe{p}
		}, conform.OutcomeViolation},
		{"refused on the second request", func() []stableProbe {
			p := same()
			p.second = errPage(str("c1"), -32602)
			return []stableProbe{p}
		}, conform.OutcomeViolation},
		{"silence", func() []stableProbe {
			p := same()
			p.first = silentPage(str("c1"), errTimeout)
			return []stableProbe{p}
		}, conform.OutcomeSilence},
		{"list changed during the probe skips", func() []stableProbe {
			p := same()
			p.changed = true
			return []stableProbe{p}
		}, conform.OutcomeSkip},
		{"stale cursor after a list change skips", func() []stableProbe {
			p := same()
			p.walk, p.first, p.second = nil, errPage(str("c1"), -32602), errPage(str("c1"), -32602)
			return []stableProbe{p}
		}, conform.OutcomeSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeStable(tc.probes()); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s / %s), want %s", got.Outcome(), got.Expected, got.Message, tc.want)
			}
		})
	}
}

func TestJudgeNoDup(t *testing.T) {
	tests := []struct {
		name    string
		l       *toolkit.Listing
		changed bool
		want    conform.Outcome
	}{
		{"distinct pass", threePages(), false, conform.OutcomePass},
		{"one page skips", listing(toolkit.StopEnd, "", pg(nil, "", "a", "a")), false, conform.OutcomeSkip},
		{"repeat across pages", listing(toolkit.StopEnd, "", pg(nil, `"c1"`, "a", "b"), pg(str("c1"), "", "b")), false, conform.OutcomeViolation},
		{"repeat on one page is not this row's", listing(toolkit.StopEnd, "", pg(nil, `"c1"`, "a", "a"), pg(str("c1"), "", "b")), false, conform.OutcomePass},
		{"list changed skips", listing(toolkit.StopEnd, "", pg(nil, `"c1"`, "a"), pg(str("c1"), "", "a")), true, conform.OutcomeSkip},
		{"\"\" restart is no duplicate", listing(toolkit.StopRepeatedCursor, "c1",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `"c1"`, "a")), false, conform.OutcomePass},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeNoDup(interpret(tc.l, false), tc.changed); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s / %s), want %s", got.Outcome(), got.Expected, got.Message, tc.want)
			}
		})
	}
}

func TestJudgeInvalidCursor(t *testing.T) {
	first := pg(nil, `"c1"`, "a")
	closed := fmt.Errorf("tools/list (id 3): %w: exit status 2", wire.ErrClosed)
	tests := []struct {
		name  string
		probe toolkit.Page
		alive error
		want  conform.Outcome
	}{
		{"-32602 passes", errPage(str(invalidCursor), -32602), nil, conform.OutcomePass},
		{"another code", errPage(str(invalidCursor), -32603), nil, conform.OutcomeViolation},
		{"first page again", pg(str(invalidCursor), `"c1"`, "a"), nil, conform.OutcomeViolation},
		{"another page", pg(str(invalidCursor), "", "z"), nil, conform.OutcomeViolation},
		{"silence fails", silentPage(str(invalidCursor), errTimeout), nil, conform.OutcomeFail},
		{"crash fails", silentPage(str(invalidCursor), closed), nil, conform.OutcomeFail},
		{"dies after replying fails", errPage(str(invalidCursor), -32602), closed, conform.OutcomeFail},
		// The same behaviour over HTTP: the POST hung up, or the server is gone.
		{"hang-up fails (HTTP)", silentPage(str(invalidCursor), fmt.Errorf("tools/list (id 3): POST: %w", transport.ErrNoReply)), nil, conform.OutcomeFail},
		{"crash fails (HTTP)", silentPage(str(invalidCursor), fmt.Errorf("tools/list (id 3): POST: %w", transport.ErrGone)), nil, conform.OutcomeFail},
		{"gone after replying fails (HTTP)", errPage(str(invalidCursor), -32602), fmt.Errorf("ping (id 4): POST: %w", transport.ErrGone), conform.OutcomeFail},
		{"other transport error is not verified", silentPage(str(invalidCursor), errors.New("write: broken pipe")), nil, conform.OutcomeError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeInvalidCursor(first, tc.probe, tc.alive); got.Outcome() != tc.want {
				t.Errorf("got kind %s (%s / %s), want %s", got.Outcome(), got.Expected, got.Message, tc.want)
			}
		})
	}
}

func TestJudgeEmptyCursor(t *testing.T) {
	if got := judgeEmptyCursor(interpret(threePages(), false)); got.Outcome() != conform.OutcomePass {
		t.Errorf("no \"\": kind %s", got.Outcome())
	}
	l := listing(toolkit.StopError, "", pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), errPage(str(""), -32602))
	if got := judgeEmptyCursor(interpret(l, false)); got.Outcome() != conform.OutcomeWarn || !strings.Contains(got.Message, "end of the list") {
		t.Errorf("\"\": kind %s %q", got.Outcome(), got.Message)
	}
}

// ---- end-to-end verdicts against scripted servers --------------------------------

// pages scripts tools/list: the key is the cursor received ("-" for none), the value
// the result to answer (or "silence", or "error:CODE"). An unknown cursor is -32602.
func pages(script map[string]string) conformtest.Handler {
	return func(req *wire.Message) []string {
		var p struct {
			Cursor *string `json:"cursor"`
		}
		_ = json.Unmarshal(req.Params, &p)
		key := "-"
		if p.Cursor != nil {
			key = *p.Cursor
		}
		res, ok := script[key]
		switch {
		case !ok:
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "invalid cursor")}
		case res == "silence":
			return nil
		case strings.HasPrefix(res, "error:"):
			var code int
			_, _ = fmt.Sscanf(res, "error:%d", &code)
			return []string{conformtest.Error(req, code, "x")}
		}
		return []string{conformtest.Result(req, res)}
	}
}

func tools(names ...string) string {
	defs := make([]string, len(names))
	for i, n := range names {
		defs[i] = fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, n)
	}
	return "[" + strings.Join(defs, ",") + "]"
}

// good is a correct three-page list.
var good = map[string]string{
	"-":  `{"tools":` + tools("a", "b") + `,"nextCursor":"c1"}`,
	"c1": `{"tools":` + tools("c", "d") + `,"nextCursor":"c2"}`,
	"c2": `{"tools":` + tools("e") + `}`,
}

func with(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

var single = map[string]string{"-": `{"tools":` + tools("a") + `}`}

// endless answers every cursor with a new one.
func endless(req *wire.Message) []string {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return []string{conformtest.Result(req, fmt.Sprintf(`{"tools":[],"nextCursor":"%s+"}`, p.Cursor))}
}

// drifting answers c1 with a different page after its first request.
func drifting() conformtest.Handler {
	var mu sync.Mutex
	n := 0
	base := pages(good)
	return func(req *wire.Message) []string {
		if strings.Contains(string(req.Params), `"c1"`) {
			mu.Lock()
			n++
			k := n
			mu.Unlock()
			if k > 1 {
				return []string{conformtest.Result(req, `{"tools":`+tools("x")+`,"nextCursor":"c2"}`)}
			}
		}
		return base(req)
	}
}

func TestVerdicts(t *testing.T) {
	maxPages := func(n int) func(*conform.Config) { return func(c *conform.Config) { c.MaxPages = n } }
	tests := []struct {
		name, id, rev string
		handler       conformtest.Handler
		opts          []func(*conform.Config)
		want          reports.Status
		reason        reports.SkipReason
	}{
		{"three pages", "PAG-NEXTCURSOR-01", "2025-06-18", pages(good), nil, reports.Pass, ""},
		{"one page", "PAG-NEXTCURSOR-01", "2025-06-18", pages(single), nil, reports.Skip, reports.NotExercised},
		{"repeated cursor", "PAG-NEXTCURSOR-01", "2024-11-05", pages(with(good, "c1", `{"tools":`+tools("c")+`,"nextCursor":"c1"}`)), nil, reports.Fail, ""},
		{"number cursor", "PAG-NEXTCURSOR-01", "2025-11-25", pages(with(good, "c1", `{"tools":`+tools("c")+`,"nextCursor":7}`)), nil, reports.Fail, ""},
		{"endless list", "PAG-NEXTCURSOR-01", "2025-03-26", endless, []func(*conform.Config){maxPages(4)}, reports.Warn, ""},
		{"\"\" restart", "PAG-NEXTCURSOR-01", "2025-06-18", pages(with(good, "c2", `{"tools":`+tools("e")+`,"nextCursor":""}`, "", good["-"])), nil, reports.Pass, ""},
		{"no tools capability", "PAG-NEXTCURSOR-01", "2025-06-18", pages(good), []func(*conform.Config){}, reports.Skip, reports.NotApplicable},

		{"follow ok", "PAG-FOLLOW-01", "2025-06-18", pages(good), nil, reports.Pass, ""},
		{"follow one page", "PAG-FOLLOW-01", "2025-06-18", pages(single), nil, reports.Skip, reports.NotExercised},
		{"follow refused", "PAG-FOLLOW-01", "2025-06-18", pages(with(good, "c2", "error:-32602")), nil, reports.Warn, ""},
		{"follow schema-invalid", "PAG-FOLLOW-01", "2025-11-25", pages(with(good, "c2", `{"tools":[{"name":"e"}]}`)), nil, reports.Warn, ""},
		{"follow silence", "PAG-FOLLOW-01", "2024-11-05", pages(with(good, "c2", "silence")), nil, reports.Warn, ""},

		{"stable", "PAG-STABLE-01", "2025-06-18", pages(good), nil, reports.Pass, ""},
		{"stable one page", "PAG-STABLE-01", "2025-06-18", pages(single), nil, reports.Skip, reports.NotExercised},
		{"drifting cursor", "PAG-STABLE-01", "2025-03-26", drifting(), nil, reports.Warn, ""},

		{"no duplicates", "PAG-NODUP-01", "2025-06-18", pages(good), nil, reports.Pass, ""},
		{"nodup one page", "PAG-NODUP-01", "2025-06-18", pages(single), nil, reports.Skip, reports.NotExercised},
		{"duplicate across pages", "PAG-NODUP-01", "2025-06-18", pages(with(good, "c2", `{"tools":`+tools("a")+`}`)), nil, reports.Warn, ""},

		{"invalid cursor -32602", "PAG-INVALID-01", "2025-06-18", pages(good), nil, reports.Pass, ""},
		{"invalid cursor -32603", "PAG-INVALID-01", "2025-06-18", pages(with(good, invalidCursor, "error:-32603")), nil, reports.Warn, ""},
		{"invalid cursor gives first page", "PAG-INVALID-01", "2024-11-05", pages(with(good, invalidCursor, good["-"])), nil, reports.Warn, ""},
		{"invalid cursor silence", "PAG-INVALID-01", "2025-11-25", pages(with(good, invalidCursor, "silence")), nil, reports.Fail, ""},

		{"no empty cursor", "PAG-EMPTY-CURSOR-R5-01", "2025-06-18", pages(good), nil, reports.Pass, ""},
		{"empty cursor at the end", "PAG-EMPTY-CURSOR-R5-01", "2025-11-25", pages(with(good, "c2", `{"tools":`+tools("e")+`,"nextCursor":""}`)), nil, reports.Warn, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			srv.Handle("tools/list", tc.handler)
			if tc.reason == reports.NotApplicable {
				srv.Capabilities = `{}`
			}
			v := conformtest.Judge(t, tc.id, tc.rev, srv, tc.opts...)
			if v.Status != tc.want || (tc.reason != "" && v.Reason != tc.reason) {
				t.Errorf("%s: %s/%s (%s), want %s/%s", tc.id, v.Status, v.Reason, v.Message, tc.want, tc.reason)
			}
		})
	}
}

// TestStrictMakesShouldFail: a SHOULD warn becomes a failure under --strict; a
// derived warn does not.
func TestStrictMakesShouldFail(t *testing.T) {
	strict := func(c *conform.Config) { c.Strict = true }
	srv := conformtest.NewServer().Handle("tools/list", pages(with(good, invalidCursor, "error:-32603")))
	if v := conformtest.Judge(t, "PAG-INVALID-01", "2025-06-18", srv, strict); v.Status != reports.Fail {
		t.Errorf("PAG-INVALID-01 under --strict: %s (%s)", v.Status, v.Message)
	}
	srv = conformtest.NewServer().Handle("tools/list", pages(with(good, "c2", `{"tools":`+tools("a")+`}`)))
	if v := conformtest.Judge(t, "PAG-NODUP-01", "2025-06-18", srv, strict); v.Status != reports.Warn {
		t.Errorf("PAG-NODUP-01 under --strict: %s (%s)", v.Status, v.Message)
	}
}

// TestJudgeEmptyCursorModern covers the 2026-07-28 half of PAG-EMPTY-CURSOR-R5-01:
// "" is a cursor the walk follows, and the server must continue the list from it.
func TestJudgeEmptyCursorModern(t *testing.T) {
	tests := []struct {
		name string
		l    *toolkit.Listing
		want conform.Outcome
	}{
		{"no \"\" passes", threePages(), conform.OutcomePass},
		{"\"\" continues the list", listing(toolkit.StopEnd, "",
			pg(nil, `""`, "a"), pg(str(""), "", "b")), conform.OutcomePass},
		{"\"\" rejected with -32602", listing(toolkit.StopError, "",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), errPage(str(""), -32602)), conform.OutcomeViolation},
		{"\"\" restarts the list", listing(toolkit.StopRepeatedCursor, "c1",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `"c1"`, "a")), conform.OutcomeViolation},
		{"\"\" comes back: left to PAG-NEXTCURSOR-01", listing(toolkit.StopRepeatedCursor, "",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `""`, "c")), conform.OutcomeNote},
		{"\"\" not followed (max pages)", listing(toolkit.StopMaxPages, "",
			pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b")), conform.OutcomeSkip},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeEmptyCursorModern(interpret(tc.l, true)); got.Outcome() != tc.want {
				t.Errorf("got %s (%s / %s), want %s", got.Outcome(), got.Expected, got.Message, tc.want)
			}
		})
	}
}

// TestModernRepeatedEmptyCursor: in 2026-07-28 "" coming back after it was followed
// is a repeated cursor, a loop PAG-NEXTCURSOR-01 fails (before, it ends the list).
func TestModernRepeatedEmptyCursor(t *testing.T) {
	l := listing(toolkit.StopRepeatedCursor, "", pg(nil, `"c1"`, "a"), pg(str("c1"), `""`, "b"), pg(str(""), `""`, "c"))
	if got := judgeNextCursor(interpret(l, true), 1000); got.Outcome() != conform.OutcomeViolation {
		t.Errorf("modern: got %s (%s), want a violation", got.Outcome(), got.Message)
	}
	if got := judgeNextCursor(interpret(l, false), 1000); got.Outcome() == conform.OutcomeViolation {
		t.Errorf("legacy: got a violation (%s); \"\" twice ends a legacy walk", got.Message)
	}
}

// cached adds 2026-07-28 caching members to a page's result.
func cached(p toolkit.Page, members map[string]any) toolkit.Page {
	p.Result = maps.Clone(p.Result)
	for k, v := range members {
		b, _ := json.Marshal(v)
		p.Result[k] = b
	}
	return p
}

func TestJudgePageCaching(t *testing.T) {
	pub := map[string]any{"resultType": "complete", "ttlMs": 1000, "cacheScope": "public"}
	priv := map[string]any{"resultType": "complete", "ttlMs": 0, "cacheScope": "private"}
	noTTL := map[string]any{"resultType": "complete", "cacheScope": "public"}
	tests := []struct {
		name  string
		pages []toolkit.Page
		want  conform.Outcome
		msg   string
	}{
		{"every page public passes", []toolkit.Page{cached(pg(nil, `"c1"`, "a"), pub), cached(pg(str("c1"), "", "b"), pub)}, conform.OutcomePass, "2 pages"},
		{"one page passes", []toolkit.Page{cached(pg(nil, "", "a"), priv)}, conform.OutcomePass, "one page"},
		{"mixed scopes fail", []toolkit.Page{cached(pg(nil, `"c1"`, "a"), pub), cached(pg(str("c1"), "", "b"), priv)}, conform.OutcomeViolation, `cacheScope "private", page 1 "public"`},
		{"a page without ttlMs fails", []toolkit.Page{cached(pg(nil, `"c1"`, "a"), pub), cached(pg(str("c1"), "", "b"), noTTL)}, conform.OutcomeViolation, "page 2 (cursor \"c1\"): no ttlMs"},
		{"no caching members fail", []toolkit.Page{pg(nil, "", "a")}, conform.OutcomeViolation, "no resultType"},
		{"an error page is left to PAG-FOLLOW-01", []toolkit.Page{cached(pg(nil, `"c1"`, "a"), pub), errPage(str("c1"), -32603)}, conform.OutcomePass, "1 page"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := judgePageCaching(view{pages: tc.pages})
			if got.Outcome() != tc.want || !strings.Contains(got.Expected+" "+got.Message, tc.msg) {
				t.Errorf("got %s (%s / %s), want %s with %q", got.Outcome(), got.Expected, got.Message, tc.want, tc.msg)
			}
		})
	}
}
