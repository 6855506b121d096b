package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

func TestMcpHeaderProblems(t *testing.T) {
	tests := []struct {
		name, schema string
		found        int
		problem      string // a phrase of the problems ("" = none)
	}{
		{"a string property passes", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`, 1, ""},
		{"nested properties pass", `{"type":"object","properties":{"a":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}}}`, 1, ""},
		{"a token with tchar symbols passes", `{"type":"object","properties":{"b":{"type":"boolean","x-mcp-header":"X-Tenant.id~1"}}}`, 1, ""},
		{"no annotation", `{"type":"object","properties":{"a":{"type":"string"}}}`, 0, ""},
		{"empty fails", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, 1, "is empty"},
		{"a space fails", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"My Header"}}}`, 1, "not an HTTP token"},
		{"CR LF fails", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A\r\nB"}}}`, 1, "not an HTTP token"},
		{"a number fails", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":5}}}`, 1, "not a string"},
		{"a case-insensitive repeat fails", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`, 2, "repeats"},
		{"a number property fails", `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, 1, "type \"number\""},
		{"an untyped property fails", `{"type":"object","properties":{"a":{"x-mcp-header":"A"}}}`, 1, "type absent"},
		{"under items fails", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, 1, "not a property reached"},
		{"under oneOf fails", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string","x-mcp-header":"A"}]}}}`, 1, "not a property reached"},
		{"under a property of $defs fails", `{"type":"object","$defs":{"d":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}}}`, 1, "not a property reached"},
		{"on the root fails", `{"type":"object","x-mcp-header":"A"}`, 1, "not a property reached"},
		{"an escaped key is found", `{"type":"object","properties":{"a":{"type":"number","x-mcp-h\u0065ader":"A"}}}`, 1, "type \"number\""},
		{"inside a default value is data", `{"type":"object","properties":{"a":{"type":"object","default":{"x-mcp-header":""}}}}`, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			found, probs := mcpHeaderProblems(json.RawMessage(tc.schema))
			got := strings.Join(probs, "; ")
			if found != tc.found || (tc.problem == "") != (got == "") || !strings.Contains(got, tc.problem) {
				t.Errorf("got %d %q, want %d with %q", found, got, tc.found, tc.problem)
			}
		})
	}
}

func TestMcpHeaderVerdicts(t *testing.T) {
	defRunCases(t, []defCase{
		{name: "a valid header passes", id: "TOOLS-XMCPHEADER-01", rev: "2026-07-28", want: reports.Pass,
			setup: defTools(`{"name":"a","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}`)},
		{name: "a number property fails", id: "TOOLS-XMCPHEADER-01", rev: "2026-07-28", want: reports.Fail, contains: "/inputSchema/properties/r",
			setup: defTools(`{"name":"a","inputSchema":{"type":"object","properties":{"r":{"type":"number","x-mcp-header":"Region"}}}}`)},
		{name: "no header is not exercised", id: "TOOLS-XMCPHEADER-01", rev: "2026-07-28", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defT("a"))},
	})
}
