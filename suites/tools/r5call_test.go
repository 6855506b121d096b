package tools

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The 2026-07-28 cases of the content, structured-output and progress checks: the
// same scripted servers, made modern by ctModern.

// ctR5 is the modern revision.
const ctR5 = "2026-07-28"

// ctModern makes a scripted server answer the 2026-07-28 era probe (server/discover)
// and refuse ping, which 2026-07-28 does not have: a check that still pinged for its
// barrier would find no reply to bound anything with.
func ctModern(mk func() *conformtest.Server) func() *conformtest.Server {
	return func() *conformtest.Server {
		srv := mk()
		srv.Handle("server/discover", func(req *wire.Message) []string {
			return []string{conformtest.Result(req, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"scripted","version":"1"}},"ttlMs":0,"cacheScope":"private"}`)}
		})
		srv.Handle("ping", func(req *wire.Message) []string {
			return []string{conformtest.Error(req, wire.CodeMethodNotFound, "no ping in 2026-07-28")}
		})
		return srv
	}
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
		return ctServe(map[string]ctTool{ctStructArrayFixture: {def: def, reply: ctReply(result)}})
	})
}

func TestR5CallVerdicts(t *testing.T) {
	complete := func(r string) string { return `{"resultType":"complete",` + r[1:] }
	cases := []ctCase{
		// Content blocks are judged in 2026-07-28 as before.
		{name: "R5 valid text passes", id: "CONTENT-TEXT-01", rev: ctR5, srv: ctR5One("test_simple_text", complete(ctContent(ctText))), want: reports.Pass},
		{name: "R5 non-string text fails", id: "CONTENT-TEXT-01", rev: ctR5, srv: ctR5One("test_simple_text", complete(ctContent(`{"type":"text","text":5}`))), want: reports.Fail, contains: "/content/0/text"},
		{name: "R5 an InputRequiredResult is no CallToolResult", id: "CONTENT-TEXT-01", rev: ctR5, srv: ctR5One("test_simple_text", ctInputRequiredResult), want: reports.Skip, reason: reports.NotExercised},
		{name: "R5 an unknown block type fails", id: "CONTENT-UNKNOWN-TYPE-01", rev: ctR5, srv: ctR5One("test_simple_text", complete(ctContent(ctText, `{"type":"video","url":"x"}`))), want: reports.Fail, contains: `"video"`},
		{name: "R5 audio and resource_link belong to the union", id: "CONTENT-UNKNOWN-TYPE-01", rev: ctR5, srv: ctR5One("test_simple_text", complete(ctContent(`{"type":"audio","data":"`+ctWAV+`","mimeType":"audio/wav"}`, `{"type":"resource_link","uri":"test://a","name":"a"}`))), want: reports.Pass},
		{name: "R5 a relative resource link fails", id: "CONTENT-RESLINK-01", rev: ctR5, srv: ctR5One("test_resource_link", complete(ctContent(`{"type":"resource_link","uri":"readme.txt","name":"readme.txt"}`))), want: reports.Fail, contains: "scheme"},

		// STRUCT-TYPE-R5-01: any JSON value, fitting the outputSchema.
		{name: "an array fitting its schema passes", id: "STRUCT-TYPE-R5-01", rev: ctR5, srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"[1.5,2.5]"}],"structuredContent":[1.5,2.5]}`), want: reports.Pass, contains: "an array"},
		{name: "an array breaking its schema warns (a MAY row)", id: "STRUCT-TYPE-R5-01", rev: ctR5, srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"[\"a\"]"}],"structuredContent":["a"]}`), want: reports.Warn, contains: "/structuredContent/0"},
		{name: "a scalar without a schema passes", id: "STRUCT-TYPE-R5-01", rev: ctR5, srv: ctModern(func() *conformtest.Server {
			return ctOne("test_structured_no_schema", `{"resultType":"complete","content":[{"type":"text","text":"42"}],"structuredContent":42}`)
		}), want: reports.Pass, contains: "a number"},
		{name: "only objects is not exercised", id: "STRUCT-TYPE-R5-01", rev: ctR5, srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"{}"}],"structuredContent":{}}`), want: reports.Skip, reason: reports.NotExercised},
		{name: "no fixture needs the fixture", id: "STRUCT-TYPE-R5-01", rev: ctR5, srv: ctModern(noTools), want: reports.Skip, reason: reports.NeedsFixture},
		{name: "the structuredContent of an InputRequiredResult is not judged", id: "STRUCT-TYPE-R5-01", rev: ctR5, srv: ctArrayServer(ctInputRequiredResult), want: reports.Skip, reason: reports.NotExercised},

		// STRUCT-CONFORM-01 and STRUCT-TEXT-MIRROR-01 with an array schema (2026-07-28 allows it).
		{name: "R5 an array schema is honoured", id: "STRUCT-CONFORM-01", rev: ctR5, srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"[1]"}],"structuredContent":[1]}`), want: reports.Pass},
		{name: "R5 an array breaking the schema fails", id: "STRUCT-CONFORM-01", rev: ctR5, srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"{}"}],"structuredContent":{}}`), want: reports.Fail},
		{name: "R5 an unmirrored array warns", id: "STRUCT-TEXT-MIRROR-01", rev: ctR5, srv: ctArrayServer(`{"resultType":"complete","content":[{"type":"text","text":"numbers"}],"structuredContent":[1]}`), want: reports.Warn},

		// Progress: the barrier is server/discover (ping is refused above).
		{name: "R5 progress before the reply passes", id: "PROG-AFTER-DONE-01", rev: ctR5, srv: ctModern(ctProgressServer("P|=|1", "P|=|2", "R")), want: reports.Pass},
		{name: "R5 progress after the reply fails", id: "PROG-AFTER-DONE-01", rev: ctR5, srv: ctModern(ctProgressServer("P|=|1", "R", "P|=|2")), want: reports.Fail, contains: "after the reply"},
		{name: "R5 a silent discover barrier is an error", id: "PROG-AFTER-DONE-01", rev: ctR5, srv: func() *conformtest.Server {
			s := ctModern(ctProgressServer("P|=|1", "R"))()
			n := 0
			s.Handle("server/discover", func(req *wire.Message) []string {
				if n++; n > 1 {
					return nil // the era probe is answered, the barrier is not
				}
				return []string{conformtest.Result(req, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`)}
			})
			return s
		}, want: reports.Error, contains: "barrier"},
		{name: "R5 a decrease fails", id: "PROG-MONOTONIC-01", rev: ctR5, srv: ctModern(ctProgressServer("P|=|2", "P|=|1", "R")), want: reports.Fail},
		{name: "R5 an unknown token fails", id: "PROG-TOKEN-01", rev: ctR5, srv: ctModern(ctProgressServer(`P|"who-knows"|1`, "R")), want: reports.Fail, contains: "who-knows"},
		{name: "R5 exact echo passes", id: "PROG-TOKEN-TYPE-01", rev: ctR5, srv: ctModern(ctProgressServer("P|=|1", "R")), want: reports.Pass},
	}
	ctRun(t, cases)
}
