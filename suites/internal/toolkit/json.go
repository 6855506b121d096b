package toolkit

import (
	"bytes"
	"encoding/json"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
)

// JSONKind names the JSON type of raw JSON ("absent" when empty); the content and
// structured checks use it too.
func JSONKind(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw) // no copy: a tools/list page may be megabytes
	switch {
	case len(s) == 0:
		return "absent"
	case string(s) == "null":
		return "null"
	case string(s) == "true" || string(s) == "false":
		return "boolean"
	case s[0] == '"':
		return "string"
	case s[0] == '{':
		return "object"
	case s[0] == '[':
		return "array"
	default:
		return "number"
	}
}

// Object decodes a JSON object's members (nil when raw is not an object). raw is
// always a received message or a part of one, whose bytes wire.Decode proved valid
// JSON, so they are not validated again: the members are slices of raw (rawjson),
// and judging a page of 100 tools reads it once, not once per level.
func Object(raw json.RawMessage) map[string]json.RawMessage {
	if JSONKind(raw) != "object" {
		return nil
	}
	m, err := rawjson.ObjectOfValid(raw)
	if err != nil {
		return nil
	}
	return m
}

// Array decodes a JSON array's items (nil, false when raw is not an array), as
// slices of raw; raw is valid JSON as in Object.
func Array(raw json.RawMessage) ([]json.RawMessage, bool) {
	if JSONKind(raw) != "array" {
		return nil, false
	}
	a, err := rawjson.ArrayOfValid(raw)
	if err != nil {
		return nil, false
	}
	return a, true
}

// String decodes a JSON string (false when raw is not a string).
func String(raw json.RawMessage) (string, bool) {
	if JSONKind(raw) != "string" {
		return "", false
	}
	s, err := rawjson.StringOfValid(raw)
	if err != nil {
		return "", false
	}
	return s, true
}
