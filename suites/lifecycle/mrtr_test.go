package lifecycle

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Answers of the scripted MRTR server to a retry.
const (
	mrtsComplete = "complete"
	mrtsAsk      = "ask"      // input_required again
	mrtsAskEmpty = "ask-bare" // input_required with a requestState only
	mrtsError    = "error"    // -32602
	mrtsIsError  = "iserror"
)

// mrtrScript is a scripted 2026-07-28 server listing test_elicitation: the first call
// answers input_required (an elicitation under "name", requestState "s1" unless
// noState); a retry is answered by what the case sets for it.
type mrtrScript struct {
	first    string // the first round: "" (input_required) or an answer kind
	noState  bool
	retry    string // requestState s1 and a valid ElicitResult ("" = complete)
	tampered string // another requestState ("" = error)
	missing  string // s1 without the answer ("" = ask)
	invalid  string // s1 with an answer that is no ElicitResult, or no object ("" = error)
	// invalidAfter delays the answer to an invalid answer: a server that validates
	// it against a schema it compiles on first use (the reference server's cold
	// compile took 0.3 to 0.7 s on a loaded machine).
	invalidAfter time.Duration
}

func (sc mrtrScript) server() *conformtest.Server {
	srv := conformtest.Modern(conformtest.NewServer())
	srv.Tools(`{"name":"test_elicitation","inputSchema":{"type":"object"}}`)
	srv.Handle("tools/call", func(req *wire.Message) []string {
		var p struct {
			RequestState   *string         `json:"requestState"`
			InputResponses json.RawMessage `json:"inputResponses"`
		}
		_ = json.Unmarshal(req.Params, &p)
		var responses map[string]json.RawMessage
		objectResponses := json.Unmarshal(p.InputResponses, &responses) == nil
		var answer struct {
			Action string `json:"action"`
		}
		_, hasAnswer := responses["name"]
		validAnswer := hasAnswer && json.Unmarshal(responses["name"], &answer) == nil && answer.Action != ""
		kind := sc.first
		switch {
		case p.RequestState == nil && len(p.InputResponses) == 0:
		case p.RequestState == nil && sc.noState && validAnswer:
			kind = or(sc.retry, mrtsComplete)
		case p.RequestState != nil && *p.RequestState != "s1":
			kind = or(sc.tampered, mrtsError)
		case len(p.InputResponses) > 0 && (!objectResponses || (hasAnswer && !validAnswer)):
			kind = or(sc.invalid, mrtsError)
		case !hasAnswer:
			kind = or(sc.missing, mrtsAsk)
		default:
			kind = or(sc.retry, mrtsComplete)
		}
		out := mrtsAnswer(req, kind, sc.noState)
		if sc.invalidAfter > 0 && len(p.InputResponses) > 0 && (!objectResponses || (hasAnswer && !validAnswer)) {
			out = conformtest.Later(sc.invalidAfter, out)
		}
		return []string{out}
	})
	return srv
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func mrtsAnswer(req *wire.Message, kind string, noState bool) string {
	ask := `"inputRequests":{"name":{"method":"elicitation/create","params":{"mode":"form","message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}`
	state := `,"requestState":"s1"`
	if noState {
		state = ""
	}
	switch kind {
	case "", mrtsAsk:
		return conformtest.Result(req, `{"resultType":"input_required",`+ask+state+`}`)
	case mrtsAskEmpty:
		return conformtest.Result(req, `{"resultType":"input_required","requestState":"s1"}`)
	case mrtsError:
		return conformtest.Error(req, wire.CodeInvalidParams, "no")
	case mrtsIsError:
		return conformtest.Result(req, `{"resultType":"complete","content":[{"type":"text","text":"failed"}],"isError":true}`)
	}
	return conformtest.Result(req, `{"resultType":"complete","content":[{"type":"text","text":"hello x"}]}`)
}

func TestMRTRRoundTripVerdicts(t *testing.T) {
	const r5 = "2026-07-28"
	srv := func(sc mrtrScript) func() *conformtest.Server { return sc.server }
	conformtest.RunCases(t, []conformtest.Case{
		// MOD-MRTR-RETRY-01
		{Name: "completed passes", ID: "MOD-MRTR-RETRY-01", Rev: r5, Srv: srv(mrtrScript{}), Want: reports.Pass, Contains: "echoed requestState"},
		{Name: "completed without state passes", ID: "MOD-MRTR-RETRY-01", Rev: r5, Srv: srv(mrtrScript{noState: true}), Want: reports.Pass},
		{Name: "asked again is a note", ID: "MOD-MRTR-RETRY-01", Rev: r5, Srv: srv(mrtrScript{retry: mrtsAsk}), Want: reports.Pass, Contains: "MAY"},
		{Name: "refused warns", ID: "MOD-MRTR-RETRY-01", Rev: r5, Srv: srv(mrtrScript{retry: mrtsError}), Want: reports.Warn, Contains: "refused"},
		{Name: "no input asked is not exercised", ID: "MOD-MRTR-RETRY-01", Rev: r5, Srv: srv(mrtrScript{first: mrtsComplete}), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no fixture needs the fixture", ID: "MOD-MRTR-RETRY-01", Rev: r5, Srv: func() *conformtest.Server { return conformtest.Modern(conformtest.NewServer()) }, Want: reports.Skip, Reason: reports.NeedsFixture},

		// MOD-MRTR-STATE-01
		{Name: "tampered state refused passes", ID: "MOD-MRTR-STATE-01", Rev: r5, Srv: srv(mrtrScript{}), Want: reports.Pass, Contains: "rejected"},
		{Name: "tampered state asked again passes", ID: "MOD-MRTR-STATE-01", Rev: r5, Srv: srv(mrtrScript{tampered: mrtsAsk}), Want: reports.Pass, Contains: "not honoured"},
		{Name: "tampered state completed fails", ID: "MOD-MRTR-STATE-01", Rev: r5, Srv: srv(mrtrScript{tampered: mrtsComplete}), Want: reports.Fail, Contains: "tampered"},
		{Name: "no state is not exercised", ID: "MOD-MRTR-STATE-01", Rev: r5, Srv: srv(mrtrScript{noState: true}), Want: reports.Skip, Reason: reports.NotExercised},

		// MOD-MRTR-MISSING-01
		{Name: "asked again passes", ID: "MOD-MRTR-MISSING-01", Rev: r5, Srv: srv(mrtrScript{}), Want: reports.Pass},
		{Name: "an error warns", ID: "MOD-MRTR-MISSING-01", Rev: r5, Srv: srv(mrtrScript{missing: mrtsError}), Want: reports.Warn, Contains: "-32602"},
		{Name: "an isError result warns", ID: "MOD-MRTR-MISSING-01", Rev: r5, Srv: srv(mrtrScript{missing: mrtsIsError}), Want: reports.Warn},
		{Name: "asked again without inputRequests warns", ID: "MOD-MRTR-MISSING-01", Rev: r5, Srv: srv(mrtrScript{missing: mrtsAskEmpty}), Want: reports.Warn, Contains: "no inputRequests"},
		{Name: "completed without the answer is a note", ID: "MOD-MRTR-MISSING-01", Rev: r5, Srv: srv(mrtrScript{missing: mrtsComplete}), Want: reports.Pass, Contains: "did not need"},

		// MOD-MRTR-VALIDATE-01
		{Name: "invalid answers refused pass", ID: "MOD-MRTR-VALIDATE-01", Rev: r5, Srv: srv(mrtrScript{}), Want: reports.Pass},
		{Name: "invalid answers asked again pass", ID: "MOD-MRTR-VALIDATE-01", Rev: r5, Srv: srv(mrtrScript{invalid: mrtsAsk}), Want: reports.Pass, Contains: "not used"},
		{Name: "an invalid answer used warns", ID: "MOD-MRTR-VALIDATE-01", Rev: r5, Srv: srv(mrtrScript{invalid: mrtsComplete}), Want: reports.Warn, Contains: "12345"},
		{Name: "an invalid answer as isError warns", ID: "MOD-MRTR-VALIDATE-01", Rev: r5, Srv: srv(mrtrScript{invalid: mrtsIsError}), Want: reports.Warn},
		{Name: "a first round error is not exercised", ID: "MOD-MRTR-VALIDATE-01", Rev: r5, Srv: srv(mrtrScript{first: mrtsError}), Want: reports.Skip, Reason: reports.NotExercised},
	})
}

// An invalid answer is refused only after the server did the work of validating it:
// its error may trail the reply to a barrier request sent after it by more than the
// barrier's grace, and the refusal still came. MOD-MRTR-VALIDATE-01 waits for each
// retry's reply (bounded by the request timeout) instead of proving a silence with
// the barrier, whose proof holds only for requests answered at once.
func TestMRTRValidateWaitsForASlowRefusal(t *testing.T) {
	const after = 3 * wire.BarrierGrace
	srv := mrtrScript{invalidAfter: after}.server()
	v := conformtest.Judge(t, "MOD-MRTR-VALIDATE-01", "2026-07-28", srv, func(c *conform.Config) { c.Timeout = 5 * time.Second })
	if v.Status != reports.Pass {
		t.Errorf("MOD-MRTR-VALIDATE-01 = %s (%s), want pass: the refusals came, %s after each retry", v.Status, v.Message, after)
	}
}

// The guard that spares most results their decoding lets through every text that can
// hold "resultType":"input_required", escaped too.
func TestMayBeInputRequired(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"resultType":"input_required","inputRequests":{}}`: true,
		`{"resultType":"\u0069nput_required"}`:               true,
		`{"content":[{"type":"text","text":"a\nb"}]}`:        false, // \n spells no letter
		`{"content":[{"type":"text","text":"hello"}]}`:       false,
		`{"resultType":"complete"}`:                          false,
	} {
		if got := mayBeInputRequired(json.RawMessage(raw)); got != want {
			t.Errorf("mayBeInputRequired(%s) = %v, want %v", raw, got, want)
		}
	}
	if mayBeInputRequired(nil) {
		t.Error("mayBeInputRequired(nil) = true, want false")
	}
}
