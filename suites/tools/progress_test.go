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

// ctTokenIn returns the request's _meta.progressToken as sent.
func ctTokenIn(req *wire.Message) string {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	return string(p.Meta.Token)
}

// ctProgressServer lists test_tool_with_progress, which answers with script: the
// messages to send, where "P|<token>|<progress>" is a progress notification ("=" as
// token echoes the request's), and "R" is the result.
func ctProgressServer(script ...string) func() *conformtest.Server {
	return func() *conformtest.Server {
		return ctServe(map[string]ctTool{ctProgressFixture: {reply: func(req *wire.Message) []string {
			var out []string
			for _, step := range script {
				if step == "R" {
					out = append(out, conformtest.Result(req, ctContent(ctText)))
					continue
				}
				parts := strings.SplitN(step, "|", 3)
				tok := parts[1]
				switch {
				case tok == "=":
					tok = ctTokenIn(req)
				case tok == "~": // the request's token in the other JSON type
					tok = ctOtherType(ctTokenIn(req))
				}
				out = append(out, conformtest.Notification(ctProgressMethod, fmt.Sprintf(`{"progressToken":%s,"progress":%s,"total":3}`, tok, parts[2])))
			}
			return out
		}}})
	}
}

// ctOtherType turns an integer token into the string of its digits (a string token
// has no integer twin: it is echoed as it is).
func ctOtherType(tok string) string {
	if strings.HasPrefix(tok, `"`) {
		return tok
	}
	return `"` + tok + `"`
}

// ctJudgeRetyped judges a check against a server whose progress echoes an integer
// token as a string. The suite alternates string and integer tokens across the run
// and only an integer token has a twin of another JSON type, so the probe is
// repeated (serially: consecutive calls get tokens of both types) until the server
// saw an integer token.
func ctJudgeRetyped(t *testing.T, id string) conform.Verdict {
	t.Helper()
	for attempt := 0; attempt < 3; attempt++ {
		sawInt := false
		srv := ctServe(map[string]ctTool{ctProgressFixture: {reply: func(req *wire.Message) []string {
			tok := ctTokenIn(req)
			sawInt = !strings.HasPrefix(tok, `"`)
			n := conformtest.Notification(ctProgressMethod, fmt.Sprintf(`{"progressToken":%s,"progress":1}`, ctOtherType(tok)))
			return []string{n, conformtest.Result(req, ctContent(ctText))}
		}}})
		v := conformtest.Judge(t, id, "2025-03-26", srv)
		if sawInt {
			return v
		}
	}
	t.Fatal("the server never saw an integer progressToken")
	return conform.Verdict{}
}

func TestProgressTokenRetyped(t *testing.T) {
	if v := ctJudgeRetyped(t, "PROG-TOKEN-TYPE-01"); v.Status != reports.Warn || !strings.Contains(v.Message, "echoes token") {
		t.Errorf("PROG-TOKEN-TYPE-01: status %s, want warn naming the echoed token (%s)", v.Status, v.Message)
	}
	if v := ctJudgeRetyped(t, "PROG-TOKEN-01"); v.Status != reports.Pass || !strings.Contains(v.Message, "PROG-TOKEN-TYPE-01") {
		t.Errorf("PROG-TOKEN-01: status %s, want a pass noting the type (%s)", v.Status, v.Message)
	}
}

func TestProgressVerdicts(t *testing.T) {
	good := ctProgressServer("P|=|1", "P|=|2", "P|=|3", "R")
	cases := []ctCase{
		// PROG-TOKEN-01
		{name: "echoed tokens pass", id: "PROG-TOKEN-01", rev: "2025-06-18", srv: good, want: reports.Pass},
		{name: "an unknown token fails", id: "PROG-TOKEN-01", rev: "2025-06-18", srv: ctProgressServer(`P|"who-knows"|1`, "R"), want: reports.Fail, contains: "who-knows"},
		{name: "progress after the reply fails", id: "PROG-TOKEN-01", rev: "2024-11-05", srv: ctProgressServer("R", "P|=|1"), want: reports.Fail, contains: "no longer active"},
		{name: "an object token fails", id: "PROG-TOKEN-01", rev: "2025-11-25", srv: ctProgressServer(`P|{"t":1}|1`, "R"), want: reports.Fail},
		{name: "no progress with the fixture is not exercised", id: "PROG-TOKEN-01", rev: "2025-06-18", srv: ctProgressServer("R"), want: reports.Skip, reason: reports.NotExercised},
		{name: "no fixture needs the fixture", id: "PROG-TOKEN-01", rev: "2025-06-18", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// PROG-TOKEN-TYPE-01 (the mismatch: TestProgressTokenRetyped)
		{name: "exact echo passes", id: "PROG-TOKEN-TYPE-01", rev: "2025-03-26", srv: good, want: reports.Pass},
		{name: "no progress is not exercised", id: "PROG-TOKEN-TYPE-01", rev: "2025-03-26", srv: ctProgressServer("R"), want: reports.Skip, reason: reports.NotExercised},
		{name: "no fixture needs the fixture", id: "PROG-TOKEN-TYPE-01", rev: "2025-03-26", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// PROG-MONOTONIC-01
		{name: "increasing passes", id: "PROG-MONOTONIC-01", rev: "2025-11-25", srv: good, want: reports.Pass},
		{name: "floats increasing pass", id: "PROG-MONOTONIC-01", rev: "2025-11-25", srv: ctProgressServer("P|=|0.25", "P|=|0.5", "R"), want: reports.Pass},
		{name: "a repeated value fails", id: "PROG-MONOTONIC-01", rev: "2025-11-25", srv: ctProgressServer("P|=|1", "P|=|1", "R"), want: reports.Fail},
		{name: "a decrease fails", id: "PROG-MONOTONIC-01", rev: "2024-11-05", srv: ctProgressServer("P|=|2", "P|=|1", "R"), want: reports.Fail, contains: "progress 1"},
		{name: "one notification is not exercised", id: "PROG-MONOTONIC-01", rev: "2024-11-05", srv: ctProgressServer("P|=|1", "R"), want: reports.Skip, reason: reports.NotExercised},

		// PROG-AFTER-DONE-01
		{name: "progress before the reply passes", id: "PROG-AFTER-DONE-01", rev: "2025-06-18", srv: good, want: reports.Pass},
		{name: "progress after the reply fails", id: "PROG-AFTER-DONE-01", rev: "2025-06-18", srv: ctProgressServer("P|=|1", "R", "P|=|2"), want: reports.Fail, contains: "after the reply"},
		{name: "a silent ping barrier is an error", id: "PROG-AFTER-DONE-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			s := good()
			s.Handle("ping", func(*wire.Message) []string { return nil })
			return s
		}, want: reports.Error, contains: "barrier"},
		{name: "no progress is not exercised", id: "PROG-AFTER-DONE-01", rev: "2025-06-18", srv: ctProgressServer("R"), want: reports.Skip, reason: reports.NotExercised},
		{name: "no fixture needs the fixture", id: "PROG-AFTER-DONE-01", rev: "2025-06-18", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},
	}
	ctRun(t, cases)
}
