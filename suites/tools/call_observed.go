package tools

import (
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
)

// judgeIsErrorType checks the type of every isError seen.
func judgeIsErrorType(calls []toolcall.SeenCall) conform.Verdict {
	if len(calls) == 0 {
		return conform.Skip(conform.NotExercised, "%s", "no tools/call result was seen in this revision's sessions (a tool the suite may call — a fixture-contract tool or --call NAME — exercises this)")
	}
	var problems conform.Findings
	present := 0
	for _, c := range calls {
		if c.IsErrorRaw == nil {
			continue
		}
		present++
		if v := strings.TrimSpace(string(c.IsErrorRaw)); v != "true" && v != "false" {
			problems.Fail(fmt.Sprintf("%s: isError is %s", c.Label(), conform.ClipBytes(c.IsErrorRaw, 40)))
		}
	}
	if problems.Failed() {
		return problems.Violation("isError absent or a boolean in every tools/call result")
	}
	return conform.Pass("%s", fmt.Sprintf("%d tools/call results: isError a boolean in %d, absent in the rest", len(calls), present))
}
