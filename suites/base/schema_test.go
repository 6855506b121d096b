package base

import (
	"encoding/json"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
)

func TestOnlyContentTypeLeaks(t *testing.T) {
	r1 := revision.MustLookup("2024-11-05")
	finding := func(result string) conform.SchemaFinding {
		err := r1.Validate("CallToolResult", json.RawMessage(result))
		if err == nil {
			t.Fatalf("%s is valid under 2024-11-05", result)
		}
		return conform.SchemaFinding{Err: err, Problem: err.Error()}
	}
	audio := finding(`{"content":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]}`)
	video := finding(`{"content":[{"type":"text","text":"x"},{"type":"video","data":"AAAA"}]}`)
	noText := finding(`{"content":[{"type":"text"}]}`)
	tests := []struct {
		name     string
		findings []conform.SchemaFinding
		want     bool
	}{
		{"an audio block in 2024-11-05 is a leak", []conform.SchemaFinding{audio}, true},
		{"an unknown type is a leak", []conform.SchemaFinding{video, audio}, true},
		{"a text block without text is not", []conform.SchemaFinding{audio, noText}, false},
		{"no findings", nil, false},
		{"a finding that is no validation error", []conform.SchemaFinding{{Problem: "x"}}, false},
	}
	for _, tc := range tests {
		if got := onlyContentTypeLeaks(tc.findings); got != tc.want {
			t.Errorf("%s: %v, want %v (%v)", tc.name, got, tc.want, tc.findings)
		}
	}
}
