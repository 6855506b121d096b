package tools

import (
	"fmt"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

func TestListCacheHintVerdicts(t *testing.T) {
	const tools = `"tools":[{"name":"a","inputSchema":{"type":"object"}}]`
	list := func(members string) func(*conformtest.Server) {
		return func(s *conformtest.Server) { s.Handle("tools/list", defReply(`{`+tools+members+`}`)) }
	}
	defRunCases(t, []defCase{
		{name: "all three members pass", id: "TOOLS-LIST-R5-01", rev: "2026-07-28", want: reports.Pass,
			setup: list(`,"resultType":"complete","ttlMs":0,"cacheScope":"private"`)},
		{name: "no ttlMs fails", id: "TOOLS-LIST-R5-01", rev: "2026-07-28", want: reports.Fail, contains: "no ttlMs",
			setup: list(`,"resultType":"complete","cacheScope":"private"`)},
		{name: "a negative ttlMs fails", id: "TOOLS-LIST-R5-01", rev: "2026-07-28", want: reports.Fail, contains: "not an integer ≥ 0",
			setup: list(`,"resultType":"complete","ttlMs":-5,"cacheScope":"public"`)},
		{name: "another cacheScope fails", id: "TOOLS-LIST-R5-01", rev: "2026-07-28", want: reports.Fail, contains: "cacheScope",
			setup: list(`,"resultType":"complete","ttlMs":5,"cacheScope":"shared"`)},
		{name: "a legacy-shaped page fails", id: "TOOLS-LIST-R5-01", rev: "2026-07-28", want: reports.Fail, contains: "no resultType",
			setup: list(``)},
		{name: "tools/list refused is not exercised", id: "TOOLS-LIST-R5-01", rev: "2026-07-28", want: reports.Skip, reason: reports.NotExercised,
			setup: func(s *conformtest.Server) { s.Handle("tools/list", defRPCError(-32603)) }},
	})
}

// listInOrders answers each tools/list with the next of the given orders, cycling.
func listInOrders(orders ...[]string) func(*conformtest.Server) {
	return func(s *conformtest.Server) {
		n := 0
		s.Handle("tools/list", func(req *wire.Message) []string {
			order := orders[n%len(orders)]
			n++
			defs := ""
			for i, name := range order {
				if i > 0 {
					defs += ","
				}
				defs += fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, name)
			}
			return []string{conformtest.Result(req, `{"tools":[`+defs+`],"resultType":"complete","ttlMs":0,"cacheScope":"public"}`)}
		})
	}
}

func TestListOrderVerdicts(t *testing.T) {
	defRunCases(t, []defCase{
		{name: "the same order passes", id: "TOOLS-LIST-ORDER-01", rev: "2026-07-28", want: reports.Pass,
			setup: listInOrders([]string{"a", "b", "c"})},
		{name: "another order warns", id: "TOOLS-LIST-ORDER-01", rev: "2026-07-28", want: reports.Warn, contains: `position 1 is "a" in the first listing and "b"`,
			setup: listInOrders([]string{"a", "b", "c"}, []string{"b", "a", "c"})},
		{name: "another set is not exercised", id: "TOOLS-LIST-ORDER-01", rev: "2026-07-28", want: reports.Skip, reason: reports.NotExercised,
			setup: listInOrders([]string{"a", "b"}, []string{"a", "b", "c"})},
		{name: "one tool is not exercised", id: "TOOLS-LIST-ORDER-01", rev: "2026-07-28", want: reports.Skip, reason: reports.NotExercised,
			setup: listInOrders([]string{"a"})},
	})
}
