package tools

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/reports"
)

func TestVersionRespectVerdicts(t *testing.T) {
	full := defT("a", `"title":"A"`, `"annotations":{"readOnlyHint":true}`, `"outputSchema":{"type":"object"}`,
		`"_meta":{"x.y/z":1}`, `"icons":[{"src":"https://e.com/i.png"}]`, `"execution":{"taskSupport":"forbidden"}`)
	defRunCases(t, []defCase{
		{name: "plain tools pass in 2024-11-05", id: "LIFE-VERSION-RESPECT-01", rev: "2024-11-05", want: reports.Pass,
			setup: defTools(defT("a", `"description":"d"`))},
		{name: "every member passes in 2025-11-25", id: "LIFE-VERSION-RESPECT-01", rev: "2025-11-25", want: reports.Pass,
			setup: defTools(full)},
		{name: "annotations in 2024-11-05 warn", id: "LIFE-VERSION-RESPECT-01", rev: "2024-11-05", want: reports.Warn, contains: "/tools/0/annotations",
			setup: defTools(defT("a", `"annotations":{"readOnlyHint":true}`))},
		{name: "title in 2025-03-26 warns", id: "LIFE-VERSION-RESPECT-01", rev: "2025-03-26", want: reports.Warn, contains: "/tools/0/title",
			setup: defTools(defT("a", `"title":"A"`))},
		{name: "title in 2025-03-26 fails under strict", id: "LIFE-VERSION-RESPECT-01", rev: "2025-03-26", want: reports.Fail, opts: defStrictOpts,
			setup: defTools(defT("a", `"title":"A"`))},
		{name: "icons in 2025-06-18 fail", id: "LIFE-VERSION-RESPECT-01", rev: "2025-06-18", want: reports.Fail, contains: "/tools/1/icons",
			setup: defTools(defT("a", `"title":"A"`), defT("b", `"icons":[]`))},
		{name: "execution in 2025-06-18 fails", id: "LIFE-VERSION-RESPECT-01", rev: "2025-06-18", want: reports.Fail, contains: "/tools/0/execution",
			setup: defTools(defT("a", `"execution":{}`))},
		{name: "a leak on a later page is named", id: "LIFE-VERSION-RESPECT-01", rev: "2025-03-26", want: reports.Warn, contains: "outputSchema",
			setup: defPages([]string{defT("a")}, []string{defOut("b", `{"type":"object"}`)})},
		{name: "no tools/list result is not exercised", id: "LIFE-VERSION-RESPECT-01", rev: "2025-06-18", want: reports.Skip, reason: reports.NotExercised,
			setup: func(s *conformtest.Server) { s.Handle("tools/list", defRPCError(-32603)) }},
	})
}
