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
		return ctServe(map[string]ctTool{ctStructFixture: {def: def + "}", reply: ctReply(result)}})
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
		{name: "object passes", id: "STRUCT-TYPE-01", rev: "2025-06-18", srv: ctStructServer(ctWeatherSchema, goodResult), want: reports.Pass},
		{name: "array fails", id: "STRUCT-TYPE-01", rev: "2025-11-25", srv: ctStructServer("", ctStructResult(`[1,2]`, `[1,2]`)), want: reports.Fail, contains: "an array"},
		{name: "no structuredContent needs the fixture", id: "STRUCT-TYPE-01", rev: "2025-11-25", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// STRUCT-CONFORM-01
		{name: "valid structuredContent passes", id: "STRUCT-CONFORM-01", rev: "2025-06-18", srv: ctStructServer(ctWeatherSchema, goodResult), want: reports.Pass},
		{name: "missing structuredContent fails", id: "STRUCT-CONFORM-01", rev: "2025-11-25", srv: ctStructServer(ctWeatherSchema, ctContent(ctText)), want: reports.Fail, contains: "without structuredContent"},
		{name: "invalid structuredContent fails with its pointer", id: "STRUCT-CONFORM-01", rev: "2025-11-25", srv: ctStructServer(ctWeatherSchema, ctStructResult(`{"temperature":"hot","conditions":"x"}`, "")), want: reports.Fail, contains: "/structuredContent/temperature"},
		{name: "isError is exempt", id: "STRUCT-CONFORM-01", rev: "2025-06-18", srv: ctStructServer(ctWeatherSchema, `{"content":[{"type":"text","text":"failed"}],"isError":true}`), want: reports.Skip, reason: reports.NotExercised, contains: "ERR-ISERROR-STRUCT-01"},
		{name: "a draft-07 declared schema is honoured", id: "STRUCT-CONFORM-01", rev: "2025-11-25", srv: ctStructServer(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, ctStructResult(`{"a":1}`, `{"a":1}`)), want: reports.Pass},
		{name: "an uncompilable schema is not exercised", id: "STRUCT-CONFORM-01", rev: "2025-06-18", srv: ctStructServer(`{"type":"objekt"}`, goodResult), want: reports.Skip, reason: reports.NotExercised, contains: "STRUCT-OUTSCHEMA-VALID-01"},
		{name: "no tool with outputSchema needs the fixture", id: "STRUCT-CONFORM-01", rev: "2025-06-18", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// STRUCT-TEXT-MIRROR-01
		{name: "equal JSON text passes", id: "STRUCT-TEXT-MIRROR-01", rev: "2025-06-18", srv: ctStructServer(ctWeatherSchema, goodResult), want: reports.Pass},
		{name: "different text warns", id: "STRUCT-TEXT-MIRROR-01", rev: "2025-06-18", srv: ctStructServer(ctWeatherSchema, ctStructResult(good, "It is 22.5 degrees")), want: reports.Warn},
		{name: "no text block warns", id: "STRUCT-TEXT-MIRROR-01", rev: "2025-11-25", srv: ctStructServer(ctWeatherSchema, `{"content":[],"structuredContent":`+good+`}`), want: reports.Warn, contains: "no text block"},
		{name: "no structuredContent needs the fixture", id: "STRUCT-TEXT-MIRROR-01", rev: "2025-11-25", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// STRUCT-OUTSCHEMA-ROOT-01
		{name: "object root passes", id: "STRUCT-OUTSCHEMA-ROOT-01", rev: "2025-06-18", srv: ctStructServer(ctWeatherSchema, goodResult), want: reports.Pass},
		{name: "array root fails", id: "STRUCT-OUTSCHEMA-ROOT-01", rev: "2025-11-25", srv: ctStructServer(`{"type":"array"}`, goodResult), want: reports.Fail, contains: `"array"`},
		{name: "no type fails", id: "STRUCT-OUTSCHEMA-ROOT-01", rev: "2025-11-25", srv: ctStructServer(`{"properties":{}}`, goodResult), want: reports.Fail, contains: "absent"},
		{name: "no outputSchema is not applicable", id: "STRUCT-OUTSCHEMA-ROOT-01", rev: "2025-06-18", srv: ctStructServer("", goodResult), want: reports.Skip, reason: reports.NotApplicable},

		// STRUCT-OUTSCHEMA-VALID-01
		{name: "valid schema passes", id: "STRUCT-OUTSCHEMA-VALID-01", rev: "2025-11-25", srv: ctStructServer(ctWeatherSchema, goodResult), want: reports.Pass, contains: "2020-12"},
		{name: "broken schema fails", id: "STRUCT-OUTSCHEMA-VALID-01", rev: "2025-11-25", srv: ctStructServer(`{"type":"objekt"}`, goodResult), want: reports.Fail},
		// What the suite cannot verify offline is not the server's fault: never a warning
		// (as for TOOLS-INSCHEMA-VALID-01).
		{name: "a remote ref alone is not exercised", id: "STRUCT-OUTSCHEMA-VALID-01", rev: "2025-11-25", srv: ctStructServer(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, goodResult), want: reports.Skip, reason: reports.NotExercised},
		{name: "an unknown dialect alone is not exercised", id: "STRUCT-OUTSCHEMA-VALID-01", rev: "2025-11-25", srv: ctStructServer(`{"$schema":"https://example.com/my-dialect","type":"object"}`, goodResult), want: reports.Skip, reason: reports.NotExercised},
		{name: "no outputSchema is not applicable", id: "STRUCT-OUTSCHEMA-VALID-01", rev: "2025-11-25", srv: noTools, want: reports.Skip, reason: reports.NotApplicable},

		// STRUCT-NOSCHEMA-01
		{name: "structuredContent without schema is a note", id: "STRUCT-NOSCHEMA-01", rev: "2025-06-18", srv: ctStructServer("", goodResult), want: reports.Pass, contains: "note:"},
		{name: "none seen is not exercised", id: "STRUCT-NOSCHEMA-01", rev: "2025-06-18", srv: ctStructServer(ctWeatherSchema, goodResult), want: reports.Skip, reason: reports.NotExercised},
		{name: "structuredContent without schema or mirror warns", id: "STRUCT-NOSCHEMA-01", rev: "2025-06-18", srv: ctStructServer("", ctStructResult(good, "sunny")), want: reports.Warn, contains: "text block"},

		// STRUCT-R12-01
		{name: "plain text passes", id: "STRUCT-R12-01", rev: "2025-03-26", srv: ctStructServer("", ctContent(ctText)), want: reports.Pass},
		{name: "outputSchema in 2025-03-26 warns", id: "STRUCT-R12-01", rev: "2025-03-26", srv: ctStructServer(ctWeatherSchema, goodResult), want: reports.Warn, contains: "outputSchema"},
		{name: "no listing and no call is not exercised", id: "STRUCT-R12-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			s := conformtest.NewServer()
			s.Handle("tools/list", func(req *wire.Message) []string { return []string{conformtest.Error(req, -32601, "no tools")} })
			return s
		}, want: reports.Skip, reason: reports.NotExercised},
	}
	ctRun(t, cases)
}
