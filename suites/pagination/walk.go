package pagination

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// emptyFollow says what following an empty-string nextCursor gave
// (PAG-EMPTY-CURSOR-R5-01). toolkit.Walk follows "" once, like any new cursor, and stops when a
// cursor it already followed comes back; this package reads that walk with the
// policy below (see the package documentation).
type emptyFollow int

// What following nextCursor "" gave.
const (
	emptyNone       emptyFollow = iota // no page carried nextCursor ""
	emptyUnfollowed                    // the walk stopped (--max-pages) before "" was followed
	emptyRejected                      // cursor "" got an error or no reply: "" meant the end
	emptyRestart                       // cursor "" got the first page again: "" meant the end
	emptyTwice                         // "" came back a second time: the end (§2.16.5)
	emptyContinued                     // cursor "" got new tools: "" was a real cursor
)

// view is a tools/list walk read under the empty-cursor policy: the pages that make
// up the list, and why the walk ended.
type view struct {
	pages   []toolkit.Page // the pages of the list, in order
	stop    toolkit.Stop   // why the walk ended; StopEnd when the policy ends it at ""
	emptyAt int            // the index of the page whose nextCursor was "" (-1: none)
	empty   emptyFollow
	follow  *toolkit.Page // the reply to cursor "" (nil when "" was not followed)
	// repeated is the cursor that came back twice (a genuine repeat: never "").
	repeated string
}

// interpret applies the empty-cursor policy to a walk. In 2026-07-28 (modern) ""
// is a valid cursor like any other, so "" coming back after it was followed is a
// repeated cursor (PAG-NEXTCURSOR-01), not the end of the list.
func interpret(l *toolkit.Listing, modern bool) view {
	v := view{pages: l.Pages, stop: l.Stop, emptyAt: -1, repeated: l.Repeated}
	for i, p := range l.Pages {
		if p.NextCursor != nil && *p.NextCursor == "" {
			v.emptyAt = i
			break
		}
	}
	k := v.emptyAt
	switch {
	case k < 0:
		return v
	case k == len(l.Pages)-1:
		v.empty = emptyUnfollowed
		return v
	}
	f := l.Pages[k+1]
	v.follow = &f
	switch {
	case f.Err != nil || f.Resp == nil || f.Resp.IsError() || f.Result == nil:
		v.empty, v.pages, v.stop, v.repeated = emptyRejected, l.Pages[:k+1], toolkit.StopEnd, ""
	case len(f.Tools) > 0 && sameNames(f.Tools, l.Pages[0].Tools):
		v.empty, v.pages, v.stop, v.repeated = emptyRestart, l.Pages[:k+1], toolkit.StopEnd, ""
	case l.Stop == toolkit.StopRepeatedCursor && l.Repeated == "" && modern:
		v.empty = emptyTwice
	case l.Stop == toolkit.StopRepeatedCursor && l.Repeated == "":
		v.empty, v.stop, v.repeated = emptyTwice, toolkit.StopEnd, ""
	default:
		v.empty = emptyContinued
	}
	return v
}

// multiPage reports whether the list spans more than one page (paging was exercised).
func (v view) multiPage() bool { return len(v.pages) > 1 }

// describeEmpty says in a few words what the server did with "".
func (v view) describeEmpty() string {
	switch v.empty {
	case emptyUnfollowed:
		return fmt.Sprintf("page %d carried nextCursor \"\", which was not followed (--max-pages reached)", v.emptyAt+1)
	case emptyRejected:
		return fmt.Sprintf("page %d carried nextCursor \"\"; following it gave %s, so \"\" was read as the end of the list", v.emptyAt+1, describePage(*v.follow))
	case emptyRestart:
		return fmt.Sprintf("page %d carried nextCursor \"\"; following it gave the first page again, so \"\" was read as the end of the list", v.emptyAt+1)
	case emptyTwice:
		return fmt.Sprintf("page %d carried nextCursor \"\", and \"\" came back again after it was followed, so the walk stopped there (PAG-EMPTY-CURSOR-R5-01)", v.emptyAt+1)
	case emptyContinued:
		if len(v.follow.Tools) == 0 {
			return fmt.Sprintf("page %d carried nextCursor \"\"; following it gave an empty page", v.emptyAt+1)
		}
		return fmt.Sprintf("page %d carried nextCursor \"\"; following it gave %d more tools, so \"\" was a real cursor", v.emptyAt+1, len(v.follow.Tools))
	}
	return "no page carried nextCursor \"\""
}

// describePage says what one tools/list request produced.
func describePage(p toolkit.Page) string {
	if p.Err != nil || p.Resp == nil || p.Resp.IsError() {
		return conform.Describe(p.Resp, p.Err)
	}
	if p.Result == nil {
		return "a result that is not an object with a tools array: " + conform.ClipBytes(p.Resp.Result, 160)
	}
	return fmt.Sprintf("a page of %d tools", len(p.Tools))
}

// cursorLabel renders the cursor a page was fetched with.
func cursorLabel(p toolkit.Page) string {
	if p.Cursor == nil {
		return "no cursor"
	}
	return fmt.Sprintf("cursor %q", conform.Clip(*p.Cursor, 80))
}

func sameNames(a, b []toolkit.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

func names(tools []toolkit.Tool) string {
	out := make([]string, len(tools))
	for i, tl := range tools {
		out[i] = tl.Name
	}
	return "[" + conform.Clip(strings.Join(out, ", "), 200) + "]"
}

// samePage compares two replies to the same cursor: the same tools (definitions
// compared as JSON values) and the same end marker. It returns "" when they match,
// else what differs. A different nextCursor string is not a difference: cursors are
// opaque, and a server may encode a fresh token for the same position.
func samePage(a, b toolkit.Page) string {
	if a.Result == nil || b.Result == nil {
		return fmt.Sprintf("%s, then %s", describePage(a), describePage(b))
	}
	if !sameNames(a.Tools, b.Tools) {
		return fmt.Sprintf("tools %s, then %s", names(a.Tools), names(b.Tools))
	}
	for i := range a.Tools {
		// Equal bytes are the same value; only differing ones are canonicalised.
		if !bytes.Equal(a.Tools[i].Raw, b.Tools[i].Raw) && canonical(a.Tools[i].Raw) != canonical(b.Tools[i].Raw) {
			return fmt.Sprintf("the definition of %q changed: %s, then %s", a.Tools[i].Name, conform.ClipBytes(a.Tools[i].Raw, 120), conform.ClipBytes(b.Tools[i].Raw, 120))
		}
	}
	if (a.NextRaw == nil) != (b.NextRaw == nil) {
		return fmt.Sprintf("nextCursor %s, then %s", endMarker(a), endMarker(b))
	}
	return ""
}

func endMarker(p toolkit.Page) string {
	if p.NextRaw == nil {
		return "absent"
	}
	return conform.ClipBytes(p.NextRaw, 80)
}

// canonical renders a JSON value with sorted keys and no insignificant space, so that
// two encodings of the same value compare equal.
func canonical(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// duplicates lists the tool names that appear on two different pages (a repeat on
// one page is a duplicate definition, judged by the tools suite).
func duplicates(pages []toolkit.Page) *conform.Findings {
	first := map[string]int{}
	reported := map[string]bool{}
	out := &conform.Findings{}
	for i, p := range pages {
		for _, tl := range p.Tools {
			if tl.Name == "" {
				continue
			}
			j, seen := first[tl.Name]
			switch {
			case !seen:
				first[tl.Name] = i
			case j != i && !reported[tl.Name]:
				reported[tl.Name] = true
				out.Fail(fmt.Sprintf("%q on pages %d and %d", tl.Name, j+1, i+1))
			}
		}
	}
	return out
}

// listChanged reports whether the session received notifications/tools/list_changed
// after transcript entry after (and, when before > 0, not after entry before).
func listChanged(s *conform.Session, after, before int) bool {
	if s == nil || s.Conn == nil {
		return false
	}
	for e := range s.Conn.EachReceived(after) {
		if before > 0 && e.Seq > before {
			break
		}
		if e.Msg != nil && e.Msg.Method == "notifications/tools/list_changed" {
			return true
		}
	}
	return false
}
