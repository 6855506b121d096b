package tools

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Helpers of the capability, listing and definition checks (capabilities.go,
// definitions.go, icons.go, schemas.go, leakage.go). Unexported names start with
// "def" so that they cannot clash with the other files of the package.

// defTool is a listed tool with where it came from: its page of the walk and its
// index in that page's tools array (toolkit.Tool's String and Pointer name both).
type defTool = toolkit.Tool

// defListing is the memoized tools/list walk of the revision's main session, with
// every tool located; v is non-nil when there is no listing to judge.
type defListing struct {
	*toolkit.Listing
	Tools []defTool
}

// defList returns the main session's listing, or the verdict of a check that has
// none to judge (tools/list failed, or listed no tool).
func defList(t *conform.T) (*defListing, *conform.Verdict) {
	l := toolkit.List(t)
	if v := toolkit.ListVerdict(t, l); v != nil {
		return nil, v
	}
	// Built once per listing and shared, read-only, by every definition check: a
	// listing of 10,000 tools is not copied per check.
	type built struct {
		dl *defListing
		v  *conform.Verdict
	}
	b := t.Once(fmt.Sprintf("tools.deflist:%p", l), func() any {
		dl, v := defListOf(l)
		return built{dl, v}
	}).(built)
	return b.dl, b.v
}

// defListOf locates every tool of a listing.
func defListOf(l *toolkit.Listing) (*defListing, *conform.Verdict) {
	dl := &defListing{Listing: l, Tools: l.Tools} // the listing's own array: no copy per revision
	if len(dl.Tools) == 0 {
		v := conform.Skip(reports.NotExercised, "tools/list listed no tool%s: no definition to judge", dl.partial())
		return nil, &v
	}
	return dl, nil
}

// partial says, for messages, that the walk did not see the whole list.
func (l *defListing) partial() string {
	if l.Complete() {
		return ""
	}
	return fmt.Sprintf(" (the tools/list walk stopped early: %s after %d pages)", l.Stop, len(l.Pages))
}

// with returns the tools that have a member.
func (l *defListing) with(member string) []defTool {
	var out []defTool
	for _, d := range l.Tools {
		if d.Has(member) {
			out = append(out, d)
		}
	}
	return out
}

// defNone is the skip of a check none of whose subjects occurred.
func defNone(l *defListing, what, unlock string) conform.Verdict {
	return conform.Skip(reports.NotExercised, "none of the %d listed tools %s%s; %s", len(l.Tools), what, l.partial(), unlock)
}

// defKind names the JSON type of raw JSON ("absent" when empty); the content and
// structured checks use it too.
func defKind(raw json.RawMessage) string {
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

// defObject decodes a JSON object's members (nil when raw is not an object). raw is
// always a received message or a part of one, whose bytes wire.Decode proved valid
// JSON, so they are not validated again: the members are slices of raw (rawjson),
// and judging a page of 100 tools reads it once, not once per level.
func defObject(raw json.RawMessage) map[string]json.RawMessage {
	if defKind(raw) != "object" {
		return nil
	}
	m, err := rawjson.ObjectOfValid(raw)
	if err != nil {
		return nil
	}
	return m
}

// defArray decodes a JSON array's items (nil, false when raw is not an array), as
// slices of raw; raw is valid JSON as in defObject.
func defArray(raw json.RawMessage) ([]json.RawMessage, bool) {
	if defKind(raw) != "array" {
		return nil, false
	}
	a, err := rawjson.ArrayOfValid(raw)
	if err != nil {
		return nil, false
	}
	return a, true
}

// defString decodes a JSON string (false when raw is not a string).
func defString(raw json.RawMessage) (string, bool) {
	if defKind(raw) != "string" {
		return "", false
	}
	s, err := rawjson.StringOfValid(raw)
	if err != nil {
		return "", false
	}
	return s, true
}
