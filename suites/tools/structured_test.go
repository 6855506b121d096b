package tools

import (
	"fmt"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

const ctWeatherSchema = `{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"]}`

// ctStructServer lists test_structured_output with an outputSchema and answers with
// result.
func ctStructServer(outputSchema, result string) func() *conformtest.Server {
	return func() *conformtest.Server {
		def := `{"name":"test_structured_output","inputSchema":{"type":"object"}`
		if outputSchema != "" {
			def += `,"outputSchema":` + outputSchema
		}
		return ctServe(map[string]ctTool{ctStructFixture: {Def: def + "}", Reply: ctReply(result)}})
	}
}

// ctStructResult is a result with structuredContent and a text block holding text.
func ctStructResult(structured, text string) string {
	return fmt.Sprintf(`{"content":[{"type":"text","text":%q}],"structuredContent":%s}`, text, structured)
}

func TestStructuredVerdicts(t *testing.T) {
	good := `{"temperature":22.5,"conditions":"Partly cloudy"}`
	goodResult := ctStructResult(good, `{"conditions": "Partly cloudy", "temperature": 22.50}`)
	cases := []ctCase{
		// STRUCT-TYPE-01
		{Name: "object passes", ID: "STRUCT-TYPE-01", Rev: "2025-06-18", Srv: ctStructServer(ctWeatherSchema, goodResult), Want: reports.Pass},
		{Name: "array fails", ID: "STRUCT-TYPE-01", Rev: "2025-11-25", Srv: ctStructServer("", ctStructResult(`[1,2]`, `[1,2]`)), Want: reports.Fail, Contains: "an array"},
		{Name: "no structuredContent needs the fixture", ID: "STRUCT-TYPE-01", Rev: "2025-11-25", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// STRUCT-CONFORM-01
		{Name: "valid structuredContent passes", ID: "STRUCT-CONFORM-01", Rev: "2025-06-18", Srv: ctStructServer(ctWeatherSchema, goodResult), Want: reports.Pass},
		{Name: "missing structuredContent fails", ID: "STRUCT-CONFORM-01", Rev: "2025-11-25", Srv: ctStructServer(ctWeatherSchema, ctContent(ctText)), Want: reports.Fail, Contains: "without structuredContent"},
		{Name: "invalid structuredContent fails with its pointer", ID: "STRUCT-CONFORM-01", Rev: "2025-11-25", Srv: ctStructServer(ctWeatherSchema, ctStructResult(`{"temperature":"hot","conditions":"x"}`, "")), Want: reports.Fail, Contains: "/structuredContent/temperature"},
		{Name: "isError is exempt", ID: "STRUCT-CONFORM-01", Rev: "2025-06-18", Srv: ctStructServer(ctWeatherSchema, `{"content":[{"type":"text","text":"failed"}],"isError":true}`), Want: reports.Skip, Reason: reports.NotExercised, Contains: "ERR-ISERROR-STRUCT-01"},
		{Name: "a draft-07 declared schema is honoured", ID: "STRUCT-CONFORM-01", Rev: "2025-11-25", Srv: ctStructServer(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, ctStructResult(`{"a":1}`, `{"a":1}`)), Want: reports.Pass},
		{Name: "an uncompilable schema is not exercised", ID: "STRUCT-CONFORM-01", Rev: "2025-06-18", Srv: ctStructServer(`{"type":"objekt"}`, goodResult), Want: reports.Skip, Reason: reports.NotExercised, Contains: "STRUCT-OUTSCHEMA-VALID-01"},
		{Name: "no tool with outputSchema needs the fixture", ID: "STRUCT-CONFORM-01", Rev: "2025-06-18", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// STRUCT-TEXT-MIRROR-01
		{Name: "equal JSON text passes", ID: "STRUCT-TEXT-MIRROR-01", Rev: "2025-06-18", Srv: ctStructServer(ctWeatherSchema, goodResult), Want: reports.Pass},
		{Name: "different text warns", ID: "STRUCT-TEXT-MIRROR-01", Rev: "2025-06-18", Srv: ctStructServer(ctWeatherSchema, ctStructResult(good, "It is 22.5 degrees")), Want: reports.Warn},
		{Name: "no text block warns", ID: "STRUCT-TEXT-MIRROR-01", Rev: "2025-11-25", Srv: ctStructServer(ctWeatherSchema, `{"content":[],"structuredContent":`+good+`}`), Want: reports.Warn, Contains: "no text block"},
		{Name: "no structuredContent needs the fixture", ID: "STRUCT-TEXT-MIRROR-01", Rev: "2025-11-25", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// STRUCT-OUTSCHEMA-ROOT-01
		{Name: "object root passes", ID: "STRUCT-OUTSCHEMA-ROOT-01", Rev: "2025-06-18", Srv: ctStructServer(ctWeatherSchema, goodResult), Want: reports.Pass},
		{Name: "array root fails", ID: "STRUCT-OUTSCHEMA-ROOT-01", Rev: "2025-11-25", Srv: ctStructServer(`{"type":"array"}`, goodResult), Want: reports.Fail, Contains: `"array"`},
		{Name: "no type fails", ID: "STRUCT-OUTSCHEMA-ROOT-01", Rev: "2025-11-25", Srv: ctStructServer(`{"properties":{}}`, goodResult), Want: reports.Fail, Contains: "absent"},
		{Name: "no outputSchema is not applicable", ID: "STRUCT-OUTSCHEMA-ROOT-01", Rev: "2025-06-18", Srv: ctStructServer("", goodResult), Want: reports.Skip, Reason: reports.NotApplicable},

		// STRUCT-OUTSCHEMA-VALID-01
		{Name: "valid schema passes", ID: "STRUCT-OUTSCHEMA-VALID-01", Rev: "2025-11-25", Srv: ctStructServer(ctWeatherSchema, goodResult), Want: reports.Pass, Contains: "2020-12"},
		{Name: "broken schema fails", ID: "STRUCT-OUTSCHEMA-VALID-01", Rev: "2025-11-25", Srv: ctStructServer(`{"type":"objekt"}`, goodResult), Want: reports.Fail},
		// What the suite cannot verify offline is not the server's fault: never a warning
		// (as for TOOLS-INSCHEMA-VALID-01).
		{Name: "a remote ref alone is not exercised", ID: "STRUCT-OUTSCHEMA-VALID-01", Rev: "2025-11-25", Srv: ctStructServer(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, goodResult), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "an unknown dialect alone is not exercised", ID: "STRUCT-OUTSCHEMA-VALID-01", Rev: "2025-11-25", Srv: ctStructServer(`{"$schema":"https://example.com/my-dialect","type":"object"}`, goodResult), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no outputSchema is not applicable", ID: "STRUCT-OUTSCHEMA-VALID-01", Rev: "2025-11-25", Srv: noTools, Want: reports.Skip, Reason: reports.NotApplicable},

		// STRUCT-NOSCHEMA-01
		{Name: "structuredContent without schema is a note", ID: "STRUCT-NOSCHEMA-01", Rev: "2025-06-18", Srv: ctStructServer("", goodResult), Want: reports.Pass, Contains: "note:"},
		{Name: "none seen is not exercised", ID: "STRUCT-NOSCHEMA-01", Rev: "2025-06-18", Srv: ctStructServer(ctWeatherSchema, goodResult), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "structuredContent without schema or mirror warns", ID: "STRUCT-NOSCHEMA-01", Rev: "2025-06-18", Srv: ctStructServer("", ctStructResult(good, "sunny")), Want: reports.Warn, Contains: "text block"},

		// STRUCT-R12-01
		{Name: "plain text passes", ID: "STRUCT-R12-01", Rev: "2025-03-26", Srv: ctStructServer("", ctContent(ctText)), Want: reports.Pass},
		{Name: "outputSchema in 2025-03-26 warns", ID: "STRUCT-R12-01", Rev: "2025-03-26", Srv: ctStructServer(ctWeatherSchema, goodResult), Want: reports.Warn, Contains: "outputSchema"},
		{Name: "no listing and no call is not exercised", ID: "STRUCT-R12-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			s := conformtest.NewServer()
			s.Handle("tools/list", func(req *wire.Message) []string { return []string{conformtest.Error(req, -32601, "no tools")} })
			return s
		}, Want: reports.Skip, Reason: reports.NotExercised},
	}
	ctRun(t, cases)
}
