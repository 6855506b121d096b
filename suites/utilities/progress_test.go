package utilities

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
		return conformtest.ServeTools(map[string]conformtest.Tool{ctProgressFixture: {Reply: func(req *wire.Message) []string {
			var out []string
			for _, step := range script {
				if step == "R" {
					out = append(out, conformtest.Result(req, conformtest.Content(conformtest.TextBlock)))
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
		srv := conformtest.ServeTools(map[string]conformtest.Tool{ctProgressFixture: {Reply: func(req *wire.Message) []string {
			tok := ctTokenIn(req)
			sawInt = !strings.HasPrefix(tok, `"`)
			n := conformtest.Notification(ctProgressMethod, fmt.Sprintf(`{"progressToken":%s,"progress":1}`, ctOtherType(tok)))
			return []string{n, conformtest.Result(req, conformtest.Content(conformtest.TextBlock))}
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
	cases := []conformtest.Case{
		// PROG-TOKEN-01
		{Name: "echoed tokens pass", ID: "PROG-TOKEN-01", Rev: "2025-06-18", Srv: good, Want: reports.Pass},
		{Name: "an unknown token fails", ID: "PROG-TOKEN-01", Rev: "2025-06-18", Srv: ctProgressServer(`P|"who-knows"|1`, "R"), Want: reports.Fail, Contains: "who-knows"},
		{Name: "progress after the reply fails", ID: "PROG-TOKEN-01", Rev: "2024-11-05", Srv: ctProgressServer("R", "P|=|1"), Want: reports.Fail, Contains: "no longer active"},
		{Name: "an object token fails", ID: "PROG-TOKEN-01", Rev: "2025-11-25", Srv: ctProgressServer(`P|{"t":1}|1`, "R"), Want: reports.Fail},
		{Name: "no progress with the fixture is not exercised", ID: "PROG-TOKEN-01", Rev: "2025-06-18", Srv: ctProgressServer("R"), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no fixture needs the fixture", ID: "PROG-TOKEN-01", Rev: "2025-06-18", Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NeedsFixture},

		// PROG-TOKEN-TYPE-01 (the mismatch: TestProgressTokenRetyped)
		{Name: "exact echo passes", ID: "PROG-TOKEN-TYPE-01", Rev: "2025-03-26", Srv: good, Want: reports.Pass},
		{Name: "no progress is not exercised", ID: "PROG-TOKEN-TYPE-01", Rev: "2025-03-26", Srv: ctProgressServer("R"), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no fixture needs the fixture", ID: "PROG-TOKEN-TYPE-01", Rev: "2025-03-26", Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NeedsFixture},

		// PROG-MONOTONIC-01
		{Name: "increasing passes", ID: "PROG-MONOTONIC-01", Rev: "2025-11-25", Srv: good, Want: reports.Pass},
		{Name: "floats increasing pass", ID: "PROG-MONOTONIC-01", Rev: "2025-11-25", Srv: ctProgressServer("P|=|0.25", "P|=|0.5", "R"), Want: reports.Pass},
		{Name: "a repeated value fails", ID: "PROG-MONOTONIC-01", Rev: "2025-11-25", Srv: ctProgressServer("P|=|1", "P|=|1", "R"), Want: reports.Fail},
		{Name: "a decrease fails", ID: "PROG-MONOTONIC-01", Rev: "2024-11-05", Srv: ctProgressServer("P|=|2", "P|=|1", "R"), Want: reports.Fail, Contains: "progress 1"},
		{Name: "one notification is not exercised", ID: "PROG-MONOTONIC-01", Rev: "2024-11-05", Srv: ctProgressServer("P|=|1", "R"), Want: reports.Skip, Reason: reports.NotExercised},

		// PROG-AFTER-DONE-01
		{Name: "progress before the reply passes", ID: "PROG-AFTER-DONE-01", Rev: "2025-06-18", Srv: good, Want: reports.Pass},
		{Name: "progress after the reply fails", ID: "PROG-AFTER-DONE-01", Rev: "2025-06-18", Srv: ctProgressServer("P|=|1", "R", "P|=|2"), Want: reports.Fail, Contains: "after the reply"},
		{Name: "a silent ping barrier is an error", ID: "PROG-AFTER-DONE-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			s := good()
			s.Handle("ping", func(*wire.Message) []string { return nil })
			return s
		}, Want: reports.Error, Contains: "barrier"},
		{Name: "no progress is not exercised", ID: "PROG-AFTER-DONE-01", Rev: "2025-06-18", Srv: ctProgressServer("R"), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no fixture needs the fixture", ID: "PROG-AFTER-DONE-01", Rev: "2025-06-18", Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NeedsFixture},
	}
	conformtest.RunCases(t, cases)
}

// In 2026-07-28 the barrier is server/discover (ping is refused by conformtest.Modern).
func TestR5ProgressVerdicts(t *testing.T) {
	ctModern := func(mk func() *conformtest.Server) func() *conformtest.Server {
		return func() *conformtest.Server { return conformtest.Modern(mk()) }
	}
	const ctR5 = "2026-07-28"
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "R5 progress before the reply passes", ID: "PROG-AFTER-DONE-01", Rev: ctR5, Srv: ctModern(ctProgressServer("P|=|1", "P|=|2", "R")), Want: reports.Pass},
		{Name: "R5 progress after the reply fails", ID: "PROG-AFTER-DONE-01", Rev: ctR5, Srv: ctModern(ctProgressServer("P|=|1", "R", "P|=|2")), Want: reports.Fail, Contains: "after the reply"},
		{Name: "R5 a silent discover barrier is an error", ID: "PROG-AFTER-DONE-01", Rev: ctR5, Srv: func() *conformtest.Server {
			s := ctModern(ctProgressServer("P|=|1", "R"))()
			n := 0
			s.Handle("server/discover", func(req *wire.Message) []string {
				if n++; n > 1 {
					return nil // the era probe is answered, the barrier is not
				}
				return []string{conformtest.Result(req, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`)}
			})
			return s
		}, Want: reports.Error, Contains: "barrier"},
		{Name: "R5 a decrease fails", ID: "PROG-MONOTONIC-01", Rev: ctR5, Srv: ctModern(ctProgressServer("P|=|2", "P|=|1", "R")), Want: reports.Fail},
		{Name: "R5 an unknown token fails", ID: "PROG-TOKEN-01", Rev: ctR5, Srv: ctModern(ctProgressServer(`P|"who-knows"|1`, "R")), Want: reports.Fail, Contains: "who-knows"},
		{Name: "R5 exact echo passes", ID: "PROG-TOKEN-TYPE-01", Rev: ctR5, Srv: ctModern(ctProgressServer("P|=|1", "R")), Want: reports.Pass},
	})
}

// ctMessageServer lists test_tool_with_progress, which sends one progress
// notification with the message member (raw JSON; "" leaves it out), then answers.
func ctMessageServer(message string) func() *conformtest.Server {
	return func() *conformtest.Server {
		return conformtest.ServeTools(map[string]conformtest.Tool{ctProgressFixture: {Reply: func(req *wire.Message) []string {
			msg := ""
			if message != "" {
				msg = `,"message":` + message
			}
			n := conformtest.Notification(ctProgressMethod, fmt.Sprintf(`{"progressToken":%s,"progress":1,"total":2%s}`, ctTokenIn(req), msg))
			return []string{n, conformtest.Result(req, conformtest.Content(conformtest.TextBlock))}
		}}})
	}
}

func TestProgressMessageVerdicts(t *testing.T) {
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "readable text passes", ID: "PROG-MESSAGE-01", Rev: "2025-06-18", Srv: ctMessageServer(`"Step 1 of 2"`), Want: reports.Pass},
		{Name: "R5 readable text passes", ID: "PROG-MESSAGE-01", Rev: "2026-07-28", Srv: func() *conformtest.Server { return conformtest.Modern(ctMessageServer(`"Copying files…"`)()) }, Want: reports.Pass},
		{Name: "a blank message warns", ID: "PROG-MESSAGE-01", Rev: "2025-03-26", Srv: ctMessageServer(`" \t "`), Want: reports.Warn, Contains: "blank"},
		{Name: "punctuation only warns", ID: "PROG-MESSAGE-01", Rev: "2025-11-25", Srv: ctMessageServer(`"..."`), Want: reports.Warn, Contains: "no letter or digit"},
		{Name: "a control character warns", ID: "PROG-MESSAGE-01", Rev: "2025-11-25", Srv: ctMessageServer(`"step\u0000 1"`), Want: reports.Warn, Contains: "U+0000"},
		{Name: "no message is not exercised", ID: "PROG-MESSAGE-01", Rev: "2025-06-18", Srv: ctMessageServer(""), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "a message of another type is the schema's", ID: "PROG-MESSAGE-01", Rev: "2025-06-18", Srv: ctMessageServer(`42`), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no fixture needs the fixture", ID: "PROG-MESSAGE-01", Rev: "2025-06-18", Srv: conformtest.NewServer, Want: reports.Skip, Reason: reports.NeedsFixture},
	})
}
