package base

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/reports"
)

// BASE-META-KEYS-01 on whatever the server sent: each case sends one message whose
// _meta keys keep or break the rule, next to the ordinary replies.
func TestMetaKeysVerdicts(t *testing.T) {
	withMeta := func(meta string) func() *conformtest.Server {
		return envelopeServer(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"_meta":{"not a key":1}},"_meta":` + meta + `}}`)
	}
	conformtest.RunCases(t, []conformtest.Case{
		{Name: "valid keys pass", ID: "BASE-META-KEYS-01", Rev: "2025-06-18", Srv: withMeta(`{"com.example/trace-id":1,"progressToken":2,"com.example/":3}`), Want: reports.Pass},
		{Name: "a label ending with a hyphen fails", ID: "BASE-META-KEYS-01", Rev: "2025-06-18", Srv: withMeta(`{"com.example-/x":1}`), Want: reports.Fail, Contains: `"example-"`},
		{Name: "an empty label fails", ID: "BASE-META-KEYS-01", Rev: "2025-11-25", Srv: withMeta(`{"com..example/x":1}`), Want: reports.Fail, Contains: "prefix label"},
		{Name: "a name with a space fails", ID: "BASE-META-KEYS-01", Rev: "2025-11-25", Srv: withMeta(`{"trace id":1}`), Want: reports.Fail, Contains: `"trace id"`},
		{Name: "an undefined key under io.modelcontextprotocol/ warns", ID: "BASE-META-KEYS-01", Rev: "2025-11-25", Srv: withMeta(`{"io.modelcontextprotocol/mine":1}`), Want: reports.Warn, Contains: "reserved"},
		{Name: "a defined key under io.modelcontextprotocol/ passes", ID: "BASE-META-KEYS-01", Rev: "2025-11-25", Srv: withMeta(`{"io.modelcontextprotocol/related-task":{"taskId":"t"}}`), Want: reports.Pass},
		{Name: "no _meta is not exercised", ID: "BASE-META-KEYS-01", Rev: "2025-06-18", Srv: envelopeServer(), Want: reports.Skip, Reason: reports.NotExercised},
	})
}

func TestJudgeMetaKeysExtensions(t *testing.T) {
	r5 := revision.MustLookup("2026-07-28")
	keys := []metaKey{{"m #1 /result/_meta", "io.modelcontextprotocol/ui"}, {"m #1 /result/_meta", "io.modelcontextprotocol/serverInfo"}}
	if got := judgeMetaKeys(r5, keys, false); got.Outcome() != conform.OutcomeWarn {
		t.Errorf("an undefined reserved key without extensions: %s (%s)", got.Outcome(), got.Message)
	}
	if got := judgeMetaKeys(r5, keys, true); got.Outcome() != conform.OutcomeNote {
		t.Errorf("an undefined reserved key with extensions advertised: %s (%s)", got.Outcome(), got.Message)
	}
}
