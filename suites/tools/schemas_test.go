package tools

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

// defIn is a tool with the given inputSchema.
func defIn(name, schema string) string {
	return `{"name":"` + name + `","inputSchema":` + schema + `}`
}

// defOut is a tool with the given outputSchema.
func defOut(name, schema string) string {
	return defT(name, `"outputSchema":`+schema)
}

func TestInputSchemaVerdicts(t *testing.T) {
	const (
		valid     = `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`
		badType   = `{"type":"object","properties":{"a":{"type":"strng"}}}`
		remoteRef = `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`
		lookahead = `{"type":"object","properties":{"a":{"type":"string","pattern":"^(?=a)a$"}}}`
		draft03   = `{"$schema":"http://json-schema.org/draft-03/schema#","type":"object"}`
		draft07   = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}}}`
		// Valid draft-07 only: "items" as an array is a tuple in draft-07 but must be a
		// schema in 2020-12.
		tupleItems = `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`
	)
	defRunCases(t, []defCase{
		{name: "type object passes", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2024-11-05", want: reports.Pass,
			setup: defTools(defIn("a", valid))},
		{name: "type string fails", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2025-11-25", want: reports.Fail, contains: "/inputSchema/type",
			setup: defTools(defIn("a", `{"type":"string"}`))},
		{name: "no type fails", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2025-03-26", want: reports.Fail, contains: "absent",
			setup: defTools(defIn("a", `{"properties":{}}`))},
		{name: "type as a list fails", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2025-06-18", want: reports.Fail,
			setup: defTools(defIn("a", `{"type":["object"]}`))},
		{name: "no object inputSchema is not exercised", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defIn("a", `null`))},

		{name: "a valid schema passes", id: "TOOLS-INSCHEMA-VALID-01", rev: "2025-11-25", want: reports.Pass,
			setup: defTools(defIn("a", valid), defIn("b", draft07))},
		{name: "an invalid type keyword fails", id: "TOOLS-INSCHEMA-VALID-01", rev: "2025-11-25", want: reports.Fail, contains: "/tools/0/inputSchema",
			setup: defTools(defIn("a", badType))},
		{name: "null fails", id: "TOOLS-INSCHEMA-VALID-01", rev: "2025-11-25", want: reports.Fail, contains: "null",
			setup: defTools(defIn("a", `null`))},
		{name: "draft-07 tuple items without $schema fails under the 2020-12 default", id: "TOOLS-INSCHEMA-VALID-01", rev: "2025-11-25", want: reports.Fail,
			setup: defTools(defIn("a", tupleItems))},
		{name: "a remote ref is a note", id: "TOOLS-INSCHEMA-VALID-01", rev: "2025-11-25", want: reports.Pass, contains: "not verified",
			setup: defTools(defIn("a", valid), defIn("b", remoteRef))},
		{name: "only unverifiable schemas are not exercised", id: "TOOLS-INSCHEMA-VALID-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defIn("a", lookahead), defIn("b", draft03))},

		{name: "valid schemas pass", id: "TOOLS-INSCHEMA-VALID-R1-01", rev: "2024-11-05", want: reports.Pass,
			setup: defTools(defIn("a", valid), defIn("b", tupleItems))},
		{name: "valid under neither dialect warns", id: "TOOLS-INSCHEMA-VALID-R1-01", rev: "2025-06-18", want: reports.Warn,
			setup: defTools(defIn("a", badType))},
		{name: "an unsupported dialect is not exercised", id: "TOOLS-INSCHEMA-VALID-R1-01", rev: "2025-03-26", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defIn("a", draft03))},
		{name: "a remote ref is a note", id: "TOOLS-INSCHEMA-VALID-R1-01", rev: "2025-03-26", want: reports.Pass, contains: "note:",
			setup: defTools(defIn("a", valid), defIn("b", remoteRef))},

		// 2025-11-25 "Recommended" is an ordinary word: the open form of a
		// parameterless tool is noted, never warned about (issue 9 item 2).
		{name: "additionalProperties false passes", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2025-11-25", want: reports.Pass, excludes: "note:",
			setup: defTools(defIn("a", `{"type":"object","additionalProperties":false}`), defIn("b", valid))},
		{name: "an open parameterless object is a note, not a warning", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2025-11-25", want: reports.Pass, contains: "additionalProperties\":false}",
			setup: defTools(defIn("a", `{"type":"object"}`))},
		{name: "an open parameterless object passes under strict", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2025-11-25", want: reports.Pass, contains: "note:", opts: defStrictOpts,
			setup: defTools(defIn("a", `{"type":"object","properties":{}}`))},
		{name: "before 2025-11-25 no recommendation exists to note", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2025-06-18", want: reports.Pass, excludes: "note:",
			setup: defTools(defIn("a", `{"type":"object"}`))},
	})
}

func TestOutputSchemaVerdicts(t *testing.T) {
	const weather = `{"type":"object","properties":{"t":{"type":"number"}},"required":["t"]}`
	defRunCases(t, []defCase{
		{name: "an object schema passes", id: "TOOLS-OUTSCHEMA-01", rev: "2025-06-18", want: reports.Pass,
			setup: defTools(defOut("a", weather), defT("b"))},
		{name: "an object schema passes in 2025-11-25", id: "TOOLS-OUTSCHEMA-01", rev: "2025-11-25", want: reports.Pass,
			setup: defTools(defOut("a", weather))},
		{name: "root type array fails", id: "TOOLS-OUTSCHEMA-01", rev: "2025-11-25", want: reports.Fail, contains: "/outputSchema",
			setup: defTools(defOut("a", `{"type":"array","items":{"type":"number"}}`))},
		{name: "no root type fails", id: "TOOLS-OUTSCHEMA-01", rev: "2025-06-18", want: reports.Fail,
			setup: defTools(defOut("a", `{"properties":{}}`))},
		{name: "a string fails", id: "TOOLS-OUTSCHEMA-01", rev: "2025-06-18", want: reports.Fail,
			setup: defTools(defOut("a", `"object"`))},
		{name: "an invalid keyword fails in 2025-11-25", id: "TOOLS-OUTSCHEMA-01", rev: "2025-11-25", want: reports.Fail,
			setup: defTools(defOut("a", `{"type":"object","properties":{"t":{"type":"numbr"}}}`))},
		{name: "an invalid keyword warns in 2025-06-18", id: "TOOLS-OUTSCHEMA-01", rev: "2025-06-18", want: reports.Warn,
			setup: defTools(defOut("a", `{"type":"object","properties":{"t":{"type":"numbr"}}}`))},
		{name: "a remote ref is a note", id: "TOOLS-OUTSCHEMA-01", rev: "2025-11-25", want: reports.Pass, contains: "not verified",
			setup: defTools(defOut("a", weather), defOut("b", `{"type":"object","properties":{"t":{"$ref":"https://e.com/t.json"}}}`))},
		{name: "no outputSchema is not exercised", id: "TOOLS-OUTSCHEMA-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defT("a"))},
	})
}

// TestOutputSchemaModern: 2026-07-28 lifts the root "type": "object" restriction, so
// any valid 2020-12 schema passes; an invalid one still fails.
func TestOutputSchemaModern(t *testing.T) {
	defRunCases(t, []defCase{
		{name: "an array schema passes in 2026-07-28", id: "TOOLS-OUTSCHEMA-01", rev: "2026-07-28", want: reports.Pass,
			setup: defTools(defOut("a", `{"type":"array","items":{"type":"number"}}`))},
		{name: "an array schema fails in 2025-11-25", id: "TOOLS-OUTSCHEMA-01", rev: "2025-11-25", want: reports.Fail,
			setup: defTools(defOut("a", `{"type":"array","items":{"type":"number"}}`))},
		{name: "an invalid keyword fails in 2026-07-28", id: "TOOLS-OUTSCHEMA-01", rev: "2026-07-28", want: reports.Fail,
			setup: defTools(defOut("a", `{"type":"array","items":{"type":"numbr"}}`))},
		{name: "an inputSchema without type object fails in 2026-07-28", id: "TOOLS-INSCHEMA-TYPE-01", rev: "2026-07-28", want: reports.Fail,
			setup: defTools(`{"name":"a","inputSchema":{"type":"array"}}`)},
	})
}
