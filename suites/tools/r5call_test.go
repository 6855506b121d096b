package tools

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The 2026-07-28 cases of the content, structured-output and progress checks: the
// same scripted servers, made modern by ctModern.

// ctR5 is the modern revision.
const ctR5 = "2026-07-28"

// ctModern makes the servers mk makes 2026-07-28 servers (conformtest.Modern).
func ctModern(mk func() *conformtest.Server) func() *conformtest.Server {
	return func() *conformtest.Server { return conformtest.Modern(mk()) }
}

// ctR5One is ctOne made modern.
func ctR5One(name, result string) func() *conformtest.Server {
	return ctModern(func() *conformtest.Server { return ctOne(name, result) })
}

// ctInputRequired is an InputRequiredResult that also carries a content member
// (which no check of tool results may judge: it is no CallToolResult).
const ctInputRequiredResult = `{"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create","params":{"mode":"form","message":"name?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"s1","content":[{"type":"text","text":5}],"structuredContent":"oops","isError":"no"}`

const ctArraySchema = `{"type":"array","items":{"type":"number"}}`

// ctArrayServer lists test_structured_array with an array outputSchema, answering with result.
func ctArrayServer(result string) func() *conformtest.Server {
	return ctModern(func() *conformtest.Server {
		def := `{"name":"test_structured_array","inputSchema":{"type":"object"},"outputSchema":` + ctArraySchema + `}`
		return ctServe(map[string]ctTool{ctStructArrayFixture: {Def: def, Reply: ctReply(result)}})
	})
}

func TestR5CallVerdicts(t *testing.T) {
	complete := func(r string) string { return `{"resultType":"complete",` + r[1:] }
	cases := []ctCase{
		// Content blocks are judged in 2026-07-28 as before.
		{Name: "R5 valid text passes", ID: "CONTENT-TEXT-01", Rev: ctR5, Srv: ctR5One("test_simple_text", complete(ctContent(ctText))), Want: reports.Pass},
		{Name: "R5 non-string text fails", ID: "CONTENT-TEXT-01", Rev: ctR5, Srv: ctR5One("test_simple_text", complete(ctContent(`{"type":"text","text":5}`))), Want: reports.Fail, Contains: "/content/0/text"},
		{Name: "R5 an InputRequiredResult is no CallToolResult", ID: "CONTENT-TEXT-01", Rev: ctR5, Srv: ctR5One("test_simple_text", ctInputRequiredResult), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "R5 an unknown block type fails", ID: "CONTENT-UNKNOWN-TYPE-01", Rev: ctR5, Srv: ctR5One("test_simple_text", complete(ctContent(ctText, `{"type":"video","url":"x"}`))), Want: reports.Fail, Contains: `"video"`},
		{Name: "R5 audio and resource_link belong to the union", ID: "CONTENT-UNKNOWN-TYPE-01", Rev: ctR5, Srv: ctR5One("test_simple_text", complete(ctContent(`{"type":"audio","data":"`+ctWAV+`","mimeType":"audio/wav"}`, `{"type":"resource_link","uri":"test://a","name":"a"}`))), Want: reports.Pass},
		{Name: "R5 a relative resource link fails", ID: "CONTENT-RESLINK-01", Rev: ctR5, Srv: ctR5One("test_resource_link", complete(ctContent(`{"type":"resource_link","uri":"readme.txt","name":"readme.txt"}`))), Want: reports.Fail, Contains: "scheme"},

		// STRUCT-TYPE-R5-01: any JSON value, fitting the outputSchema.
		{Name: "an array fitting its schema passes", ID: "STRUCT-TYPE-R5-01", Rev: ctR5, Srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"[1.5,2.5]"}],"structuredContent":[1.5,2.5]}`), Want: reports.Pass, Contains: "an array"},
		{Name: "an array breaking its schema warns (a MAY row)", ID: "STRUCT-TYPE-R5-01", Rev: ctR5, Srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"[\"a\"]"}],"structuredContent":["a"]}`), Want: reports.Warn, Contains: "/structuredContent/0"},
		{Name: "a scalar without a schema passes", ID: "STRUCT-TYPE-R5-01", Rev: ctR5, Srv: ctModern(func() *conformtest.Server {
			return ctOne("test_structured_no_schema", `{"resultType":"complete","content":[{"type":"text","text":"42"}],"structuredContent":42}`)
		}), Want: reports.Pass, Contains: "a number"},
		{Name: "only objects is not exercised", ID: "STRUCT-TYPE-R5-01", Rev: ctR5, Srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"{}"}],"structuredContent":{}}`), Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no fixture needs the fixture", ID: "STRUCT-TYPE-R5-01", Rev: ctR5, Srv: ctModern(noTools), Want: reports.Skip, Reason: reports.NeedsFixture},
		{Name: "the structuredContent of an InputRequiredResult is not judged", ID: "STRUCT-TYPE-R5-01", Rev: ctR5, Srv: ctArrayServer(ctInputRequiredResult), Want: reports.Skip, Reason: reports.NotExercised},

		// STRUCT-CONFORM-01 and STRUCT-TEXT-MIRROR-01 with an array schema (2026-07-28 allows it).
		{Name: "R5 an array schema is honoured", ID: "STRUCT-CONFORM-01", Rev: ctR5, Srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"[1]"}],"structuredContent":[1]}`), Want: reports.Pass},
		{Name: "R5 an array breaking the schema fails", ID: "STRUCT-CONFORM-01", Rev: ctR5, Srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"{}"}],"structuredContent":{}}`), Want: reports.Fail},
		{Name: "R5 an unmirrored array warns", ID: "STRUCT-TEXT-MIRROR-01", Rev: ctR5, Srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"numbers"}],"structuredContent":[1]}`), Want: reports.Warn},
	}
	ctRun(t, cases)
}
