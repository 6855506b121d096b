package tools

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The verdicts of CONTENT-META-01, TOOLS-CALL-CONTENT-01 and TOOLS-INSCHEMA-REF-01.
func TestContentMetaAndUnionVerdicts(t *testing.T) {
	metaText := func(key string) string { return `{"type":"text","text":"x","_meta":{"` + key + `":1}}` }
	annotated := func(blocks ...string) func() *conformtest.Server {
		return func() *conformtest.Server { return ctOne("test_annotated_content", ctContent(blocks...)) }
	}
	ctRun(t, []ctCase{
		// CONTENT-META-01
		{Name: "prefixed key passes", ID: "CONTENT-META-01", Rev: "2025-06-18", Srv: annotated(metaText("com.example/origin")), Want: reports.Pass},
		{Name: "bare name passes", ID: "CONTENT-META-01", Rev: "2025-11-25", Srv: annotated(metaText("origin")), Want: reports.Pass},
		{Name: "name starting with a hyphen fails", ID: "CONTENT-META-01", Rev: "2025-06-18", Srv: annotated(metaText("com.example/-origin")), Want: reports.Fail, Contains: "/content/0/_meta"},
		{Name: "label starting with a digit fails", ID: "CONTENT-META-01", Rev: "2025-11-25", Srv: annotated(metaText("9example.com/origin")), Want: reports.Fail, Contains: `"9example"`},
		{Name: "embedded resource's _meta is read", ID: "CONTENT-META-01", Rev: "2025-06-18", Srv: annotated(`{"type":"resource","resource":{"uri":"test://t","text":"x","_meta":{"a b":1}}}`), Want: reports.Fail, Contains: "/resource/_meta"},
		{Name: "no _meta is not exercised", ID: "CONTENT-META-01", Rev: "2025-06-18", Srv: annotated(ctText), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no tools needs the fixture", ID: "CONTENT-META-01", Rev: "2025-06-18", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},
		// TOOLS-CALL-CONTENT-01
		{Name: "valid blocks pass", ID: "TOOLS-CALL-CONTENT-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(ctText, ctImage(ctPNG, "image/png"), `{"type":"resource_link","uri":"test://r","name":"r"}`))
		}, Want: reports.Pass},
		{Name: "a _meta that is no object fails", ID: "TOOLS-CALL-CONTENT-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(`{"type":"text","text":"x","_meta":"m"}`))
		}, Want: reports.Fail, Contains: "/content/0"},
		{Name: "an image without mimeType fails", ID: "TOOLS-CALL-CONTENT-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(ctText, `{"type":"image","data":"`+ctPNG+`"}`))
		}, Want: reports.Fail, Contains: "/content/1"},
		{Name: "a type outside the union is CONTENT-UNKNOWN-TYPE-01's", ID: "TOOLS-CALL-CONTENT-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(`{"type":"audio","data":"`+ctWAV+`","mimeType":"audio/wav"}`))
		}, Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no tools needs the fixture", ID: "TOOLS-CALL-CONTENT-01", Rev: "2025-06-18", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},
	})
}

func TestInputSchemaRefVerdicts(t *testing.T) {
	listed := func(schema string) func() *conformtest.Server {
		return func() *conformtest.Server {
			return conformtest.Modern(conformtest.NewServer().Tools(`{"name":"t","inputSchema":` + schema + `}`))
		}
	}
	ctRun(t, []ctCase{
		{Name: "local refs pass", ID: "TOOLS-INSCHEMA-REF-01", Rev: "2026-07-28", Want: reports.Pass,
			Srv: listed(`{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`)},
		{Name: "an embedded $id passes", ID: "TOOLS-INSCHEMA-REF-01", Rev: "2026-07-28", Want: reports.Pass,
			Srv: listed(`{"type":"object","$defs":{"s":{"$id":"urn:example:s","type":"string"}},"properties":{"a":{"$ref":"urn:example:s"}}}`)},
		{Name: "a network $ref warns", ID: "TOOLS-INSCHEMA-REF-01", Rev: "2026-07-28", Want: reports.Warn, Contains: "https://example.com/s.json",
			Srv: listed(`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`)},
		{Name: "an unused network $ref warns too", ID: "TOOLS-INSCHEMA-REF-01", Rev: "2026-07-28", Want: reports.Warn, Contains: "https://example.com/s.json",
			Srv: listed(`{"type":"object","$defs":{"x":{"$ref":"https://example.com/s.json#/a"}}}`)},
		{Name: "a relative $ref without a base warns", ID: "TOOLS-INSCHEMA-REF-01", Rev: "2026-07-28", Want: reports.Warn, Contains: "s.json",
			Srv: listed(`{"type":"object","properties":{"a":{"$ref":"s.json"}}}`)},
		{Name: "a $ref inside an enum is data", ID: "TOOLS-INSCHEMA-REF-01", Rev: "2026-07-28", Want: reports.Pass,
			Srv: listed(`{"type":"object","properties":{"a":{"enum":[{"$ref":"https://example.com/s.json"}]}}}`)},
		{Name: "no tools is not exercised", ID: "TOOLS-INSCHEMA-REF-01", Rev: "2026-07-28", Want: reports.Skip,
			Srv: func() *conformtest.Server { return conformtest.Modern(conformtest.NewServer().Tools()) }},
	})
}
