// Package listwalk walks any paginated MCP list (server/utilities/pagination.mdx) by
// cursor: the method and the result's array key are parameters, so the resource
// lists (RES-*) are walked as tools/list is by toolkit.Walk, whose tools-specific
// walk (interned definitions, PAG-*) it leaves as it is. A walk stops, as
// toolkit.Walk does, at the end, an error, a repeated or non-string cursor, a
// malformed result or --max-pages.
package listwalk

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Page is one reply of a walk.
type Page struct {
	Cursor     *string // the cursor sent (nil for the first page)
	Resp       *wire.Response
	Err        error
	Result     map[string]json.RawMessage // nil unless an object with the array key
	NextCursor *string                    // nil when absent or not a string
	NextRaw    json.RawMessage            // nil when absent (or null)
	Items      []json.RawMessage          // the array's items, as sent
}

// Item is one listed item and where it came.
type Item struct {
	Raw    json.RawMessage
	Fields map[string]json.RawMessage // nil when the item is not an object
	Page   int                        // index of its page
	Index  int                        // index in its page's array
	Key    string                     // the result's array key
}

// Where is the item's JSON pointer inside its page.
func (it Item) Where(suffix string) string {
	return fmt.Sprintf("page %d /%s/%d%s", it.Page+1, it.Key, it.Index, suffix)
}

// String reads a string member of the item ("", false when absent or not a string).
func (it Item) String(member string) (string, bool) {
	return toolkit.String(it.Fields[member])
}

// Listing is a whole walk of one list on one session.
type Listing struct {
	Method, Key string
	Pages       []Page
	Items       []Item
	Stop        toolkit.Stop
	Repeated    string // the cursor that came back twice (StopRepeatedCursor)
}

// First is the first page (nil when none was fetched: --max-pages 0).
func (l *Listing) First() *Page {
	if len(l.Pages) == 0 {
		return nil
	}
	return &l.Pages[0]
}

// MultiPage reports whether the list spanned more than one page.
func (l *Listing) MultiPage() bool { return len(l.Pages) > 1 }

// Walk follows nextCursor from the first page of method on s until the end, an
// error, a repeated cursor or --max-pages; key names the result's array. The first
// request carries no params.
func Walk(t *conform.T, s *conform.Session, method, key string) *Listing {
	return WalkParams(t, s, method, key, nil)
}

// Main is the walk of method on the main session, once per run and session, so
// that the checks of every group that read one list share its requests; base is
// WalkParams's (each method is walked with one base).
func Main(t *conform.T, method, key string, base map[string]any) *Listing {
	s := t.Session()
	return t.Once("listwalk:"+method+":"+s.Label, func() any { return WalkParams(t, s, method, key, base) }).(*Listing)
}

// WalkParams is Walk whose every request sends base's members (plus the cursor after
// the first page); base non-nil makes the first request's params an empty object,
// never absent, as the prompts/list walk of PROMPT-LIST-01 sends them.
func WalkParams(t *conform.T, s *conform.Session, method, key string, base map[string]any) *Listing {
	l := &Listing{Method: method, Key: key}
	seen := map[string]bool{}
	var cursor *string
	for {
		if len(l.Pages) >= t.Options().MaxPages {
			l.Stop = toolkit.StopMaxPages
			return l
		}
		var params map[string]any
		if base != nil || cursor != nil {
			params = maps.Clone(base)
			if params == nil {
				params = map[string]any{}
			}
			if cursor != nil {
				params["cursor"] = *cursor
			}
		}
		p := Fetch(t, s, method, key, params)
		p.Cursor = cursor
		for i, raw := range p.Items {
			l.Items = append(l.Items, Item{Raw: raw, Fields: toolkit.Object(raw), Page: len(l.Pages), Index: i, Key: key})
		}
		l.Pages = append(l.Pages, p)
		switch {
		case p.Err != nil || p.Resp.IsError():
			l.Stop = toolkit.StopError
			return l
		case p.Result == nil:
			l.Stop = toolkit.StopMalformed
			return l
		case p.NextRaw == nil:
			l.Stop = toolkit.StopEnd
			return l
		case p.NextCursor == nil:
			l.Stop = toolkit.StopBadCursor
			return l
		case seen[*p.NextCursor]:
			l.Stop = toolkit.StopRepeatedCursor
			l.Repeated = *p.NextCursor
			return l
		}
		seen[*p.NextCursor] = true
		cursor = p.NextCursor
	}
}

// Fetch sends one request of a list (params nil: none) and decodes its page.
func Fetch(t *conform.T, s *conform.Session, method, key string, params map[string]any) Page {
	var p Page
	var ps any
	if params != nil {
		ps = params
	}
	p.Resp, p.Err = s.Call(t.Ctx, method, ps)
	if p.Err != nil || p.Resp.IsError() {
		return p
	}
	result, err := rawjson.ObjectOfValid(p.Resp.Result)
	if err != nil || result == nil {
		return p
	}
	items, ok := toolkit.Array(result[key])
	if !ok {
		return p
	}
	p.Result, p.Items = result, items
	if nc, ok := result["nextCursor"]; ok && string(nc) != "null" {
		p.NextRaw = nc
		if c, ok := toolkit.String(nc); ok {
			p.NextCursor = &c
		}
	}
	return p
}

// Describe says what one request of a walk produced.
func Describe(p Page, key string) string {
	if p.Err != nil || p.Resp == nil || p.Resp.IsError() {
		return conform.Describe(p.Resp, p.Err)
	}
	if p.Result == nil {
		return "a result that is not an object with a " + key + " array: " + conform.ClipBytes(p.Resp.Result, 160)
	}
	return fmt.Sprintf("a page of %d %s", len(p.Items), key)
}

// CursorLabel renders the cursor a page was fetched with.
func CursorLabel(p Page) string {
	if p.Cursor == nil {
		return "no cursor"
	}
	return fmt.Sprintf("cursor %q", conform.Clip(*p.Cursor, 80))
}
