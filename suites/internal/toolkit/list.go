// Package toolkit is what the tools suites share: the paged tools/list walk (done once
// per session and memoized), tool calls that always carry a fresh progressToken, the
// calling policy (Allowed: no tool of the target is executed unless the operator allows it), and argument synthesis.
package toolkit

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// ToolDef is one tool definition as the server sent it. A run decodes each distinct
// definition once and every walk that meets it shares it (intern.go): read it, never
// write it.
type ToolDef struct {
	Name   string // "" when the definition has no string name
	Raw    json.RawMessage
	Fields rawjson.MemberList
}

// Tool is one listed tool definition where a walk met it. The definition is shared,
// the place is the walk's own: at 100,000 tools a walk holds 2.4 MB of places
// instead of 8 MB of copies.
type Tool struct {
	*ToolDef
	Page  int // index of the page it came on
	Index int // index in that page's tools array
}

// Has reports whether the definition has a member.
func (tl Tool) Has(member string) bool { _, ok := tl.Fields.Lookup(member); return ok }

// String names the tool for messages: its name and JSON pointer.
func (tl Tool) String() string {
	name := "(no string name)"
	if tl.Name != "" {
		name = Quote(tl.Name)
	}
	return fmt.Sprintf("%s (page %d /tools/%d)", name, tl.Page+1, tl.Index)
}

// Pointer is the JSON pointer of a member of the tool inside its page's result.
func (tl Tool) Pointer(suffix string) string {
	return fmt.Sprintf("page %d /tools/%d%s", tl.Page+1, tl.Index, suffix)
}

// Page is one tools/list reply of a walk.
type Page struct {
	Cursor *string // the cursor sent (nil for the first page)
	// Resp is the reply; when the page shares an earlier equal one's bytes (the page
	// table), its result is that page's and its message holds no Raw bytes.
	Resp       *wire.Response
	Err        error
	Result     map[string]json.RawMessage
	NextCursor *string // nil when absent (the end); set even when not a string
	NextRaw    json.RawMessage
	Tools      []Tool
}

// Stop says why a walk ended.
type Stop string

// Why a walk ended.
const (
	StopEnd            Stop = "end"             // a page without nextCursor: the whole list was seen
	StopError          Stop = "error"           // a page failed (see the page's Resp/Err)
	StopMaxPages       Stop = "max-pages"       // --max-pages reached
	StopRepeatedCursor Stop = "repeated-cursor" // a nextCursor came back that was already followed
	StopBadCursor      Stop = "bad-cursor"      // nextCursor is not a string
	StopMalformed      Stop = "malformed"       // a result that is not an object with a tools array
)

// Listing is a whole tools/list walk on one session.
type Listing struct {
	Session *conform.Session
	Pages   []Page
	Tools   []Tool // every tool of every page, in order
	Stop    Stop
	// Repeated is the cursor that came back twice (StopRepeatedCursor).
	Repeated string

	keep bool // its pages go into the page table (List's walk)

	callableOnce sync.Once
	callable     []CallableTool // Callable's answer
}

// Complete reports whether the walk saw the whole list.
func (l *Listing) Complete() bool { return l.Stop == StopEnd }

// Find returns the first listed tool with the name, or nil.
func (l *Listing) Find(name string) *Tool {
	for i := range l.Tools {
		if l.Tools[i].Name == name {
			return &l.Tools[i]
		}
	}
	return nil
}

// Last is the final page fetched (nil when none was).
func (l *Listing) Last() *Page {
	if len(l.Pages) == 0 {
		return nil
	}
	return &l.Pages[len(l.Pages)-1]
}

// List walks tools/list on the revision's main session once per run and returns the
// memoized listing.
func List(t *conform.T) *Listing {
	s := t.Session()
	return t.Once("toolkit.list:"+s.Label, func() any { return walkListing(t, s, true) }).(*Listing)
}

// Current is session s's tool list as it is now, for a check that changes it and
// compares: the session's listing (List) while nothing has changed the list since
// (no trigger fired: conform.T.StateChanged), else the walk the check before kept
// for it at the same generation, or else a fresh walk.
//
// A walk is kept only when the column's next change check reads first
// (conform.T.ReaderAhead): that check, on the same session, takes it as its listing
// before its change (BeforeChange), and the keep holds it no longer. At 2026-07-28
// NOTIF-LISTEN-LC-R5-01 follows NOTIF-LISTEN-FILTER-R5-01 on the main session, and
// the one check's listing after is the other's before: at 10,000 tools a walk of 101
// pages less on the chain of changes. Other walks after a change are not kept: at
// 10,000 tools each holds megabytes until the column ends.
func Current(t *conform.T, s *conform.Session) *Listing {
	if listedAsIs(t, s) {
		return List(t)
	}
	k := changedKeep(t, s)
	gen := t.StateGeneration(conform.StateToolList)
	if l := k.take(gen); l != nil {
		return l
	}
	l := Walk(t, s)
	if t.ReaderAhead(conform.StateToolList) {
		k.put(l, gen)
	}
	return l
}

// listingKeep holds one listing of a session and the tool-list generation it was
// made at (Current, Relist).
type listingKeep struct {
	mu  sync.Mutex
	l   *Listing
	gen int
}

// put keeps l, made at generation gen.
func (k *listingKeep) put(l *Listing, gen int) {
	k.mu.Lock()
	k.l, k.gen = l, gen
	k.mu.Unlock()
}

// peek is the kept listing when it was made at generation gen (nil otherwise); it
// stays kept.
func (k *listingKeep) peek(gen int) *Listing {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.l == nil || k.gen != gen {
		return nil
	}
	return k.l
}

// take hands the kept listing over when it was made at generation gen, and keeps
// nothing either way: a listing of another generation shows no state to come.
func (k *listingKeep) take(gen int) *Listing {
	k.mu.Lock()
	defer k.mu.Unlock()
	l := k.l
	k.l = nil
	if l == nil || k.gen != gen {
		return nil
	}
	return l
}

// changedKeep is session s's keep of a walk made after a change (Current).
func changedKeep(t *conform.T, s *conform.Session) *listingKeep {
	return t.Once("toolkit.changed:"+s.Label, func() any { return &listingKeep{} }).(*listingKeep)
}

// BeforeChange is session s's tool list just before a change of the check's own
// (Current), for a check that reads first (conform.Check.ReadsFirst): on a shared
// server it may read while the previous change check still reads after its change,
// so it then waits for that check's end (conform.T.ChangeNow) and walks again if
// any change came after its listing. The trigger fired next finds nothing to wait
// for.
func BeforeChange(t *conform.T, s *conform.Session) *Listing {
	gen := t.StateGeneration(conform.StateToolList)
	l := Current(t, s)
	t.ChangeNow()
	if t.StateGeneration(conform.StateToolList) != gen {
		l = Walk(t, s)
	}
	return l
}

// listedAsIs reports whether the session's listing (List) shows s's tool list as it
// is now: s is the revision's main session and no trigger has changed the list since.
func listedAsIs(t *conform.T, s *conform.Session) bool {
	return s == t.Session() && t.StateGeneration(conform.StateToolList) == 0
}

// Relist walks the main session's tool list again, for a check that compares a
// second listing with the session's (List) while no trigger has changed the list,
// and keeps it for the column: Relisted hands it to the next check that needs such
// a second listing, instead of a walk of its own (at 10,000 tools, about 100
// requests). MOD-STATELESS-01 makes it after its requests with other context;
// TOOLS-LIST-ORDER-01 compares it with the first listing.
func Relist(t *conform.T) *Listing {
	l := Walk(t, t.Session())
	relisted(t).put(l, t.StateGeneration(conform.StateToolList))
	return l
}

// Relisted is the second listing Relist kept when the list has not changed since
// (conform.T.StateGeneration), or else a fresh walk of the main session.
func Relisted(t *conform.T) *Listing {
	if l := relisted(t).peek(t.StateGeneration(conform.StateToolList)); l != nil {
		return l
	}
	return Walk(t, t.Session())
}

// relisted is the column's keep of its second listing (Relist).
func relisted(t *conform.T) *listingKeep {
	return t.Once("toolkit.relist:"+t.Session().Label, func() any { return &listingKeep{} }).(*listingKeep)
}

// Walk follows nextCursor from the first page until the end, an error, a repeated
// cursor or --max-pages.
func Walk(t *conform.T, s *conform.Session) *Listing { return walkListing(t, s, false) }

// walkListing walks s's tool list; keep puts its pages in the page table.
func walkListing(t *conform.T, s *conform.Session, keep bool) *Listing {
	l := &Listing{Session: s, keep: keep}
	l.walk(t)
	l.index()
	return l
}

func (l *Listing) walk(t *conform.T) {
	seen := map[string]bool{}
	var cursor *string
	for {
		if len(l.Pages) >= t.Options().MaxPages {
			l.Stop = StopMaxPages
			return
		}
		var params map[string]any
		if cursor != nil {
			params = map[string]any{"cursor": *cursor}
		}
		p := fetchPage(t, l.Session, params, l.keep)
		p.Cursor = cursor
		for i := range p.Tools {
			p.Tools[i].Page = len(l.Pages)
		}
		l.Pages = append(l.Pages, p)
		switch {
		case p.Err != nil || p.Resp.IsError():
			l.Stop = StopError
			return
		case p.Result == nil:
			l.Stop = StopMalformed
			return
		case p.NextRaw == nil:
			l.Stop = StopEnd
			return
		case p.NextCursor == nil:
			l.Stop = StopBadCursor
			return
		case seen[*p.NextCursor]:
			l.Stop = StopRepeatedCursor
			l.Repeated = *p.NextCursor
			return
		}
		seen[*p.NextCursor] = true
		cursor = p.NextCursor
	}
}

// index lists every page's tools in l.Tools, once: each page's Tools becomes its
// stretch of that one array.
func (l *Listing) index() {
	n := 0
	for _, p := range l.Pages {
		n += len(p.Tools)
	}
	if n == 0 {
		return
	}
	for i := range l.Pages {
		if len(l.Pages[i].Tools) == n {
			// One page holds them all (a listing in one reply): it is the list
			// already, and a copy would hold every tool twice at the peak.
			l.Tools = l.Pages[i].Tools
			return
		}
	}
	l.Tools = make([]Tool, 0, n)
	for i := range l.Pages {
		p := &l.Pages[i]
		if len(p.Tools) == 0 {
			continue
		}
		start := len(l.Tools)
		l.Tools = append(l.Tools, p.Tools...)
		p.Tools = l.Tools[start:len(l.Tools):len(l.Tools)]
	}
}

// CurrentFirstPage is the first tools/list page of session s as the list is now: the
// session's listing's first page (List) while no trigger has changed the list since,
// else a fresh request. At 100,000 tools in one page a fresh one is 15 MB to read
// and judge again.
func CurrentFirstPage(t *conform.T, s *conform.Session) Page {
	if listedAsIs(t, s) {
		if l := List(t); len(l.Pages) > 0 && l.Pages[0].Cursor == nil && l.Pages[0].Err == nil {
			return l.Pages[0]
		}
	}
	return FetchPage(t, s, nil)
}

// FetchPage sends one tools/list with the given params (nil: none) and decodes it.
func FetchPage(t *conform.T, s *conform.Session, params map[string]any) Page {
	return fetchPage(t, s, params, false)
}

func fetchPage(t *conform.T, s *conform.Session, params map[string]any, keep bool) Page {
	var p Page
	var ps any
	if params != nil {
		ps = params
	}
	p.Resp, p.Err = s.Call(t.Ctx, "tools/list", ps)
	if p.Err != nil || p.Resp.IsError() {
		return p
	}
	pt := pages(t)
	if pt.share(&p) {
		return p
	}
	// Only slicing: the result is part of a reply wire.Decode proved valid JSON, and
	// every tool and member below is a sub-slice of it (rawjson), so a listing holds
	// each byte once however many tools it has.
	result, err := rawjson.ObjectOfValid(p.Resp.Result)
	if err != nil || result == nil {
		return p
	}
	// The items are read at once (decode keeps none of them): a pooled slice,
	// not a new one grown for every page.
	scratch := rawItems.Get().(*[]json.RawMessage)
	defer func() {
		clear(*scratch) // no page's bytes stay reachable from the pool
		*scratch = (*scratch)[:0]
		rawItems.Put(scratch)
	}()
	rawTools, err := rawjson.AppendArrayOfValid((*scratch)[:0], result["tools"])
	*scratch = rawTools
	if err != nil {
		return p
	}
	p.Result = result
	if nc, ok := result["nextCursor"]; ok && string(nc) != "null" {
		p.NextRaw = nc
		if c, err := rawjson.StringOfValid(nc); err == nil {
			p.NextCursor = &c
		}
	}
	p.Tools = tools(t).decode(rawTools)
	if keep {
		pt.keep(&p)
	}
	return p
}

// rawItems holds fetchPage's slices of a page's tools.
var rawItems = sync.Pool{New: func() any { return new([]json.RawMessage) }}

// FirstPage returns the main session's memoized listing and its first page, ending
// the check with an error when no page was fetched at all (--max-pages): the
// checks that judge the first answer have nothing else to go on.
func FirstPage(t *conform.T) (*Listing, Page) {
	l := List(t)
	if len(l.Pages) == 0 {
		t.Stop(notListed())
	}
	return l, l.Pages[0]
}

// notListed is the verdict of a check that needs tools/list when the walk fetched
// no page.
func notListed() conform.Verdict {
	return conform.Errorf("tools/list was not called (--max-pages?)")
}

// ListVerdict is the verdict for a check that needs the tool list when the walk
// failed before yielding any page (nil when at least one page came back).
func ListVerdict(t *conform.T, l *Listing) *conform.Verdict {
	if len(l.Pages) == 0 {
		v := notListed()
		return &v
	}
	first := l.Pages[0]
	if first.Err != nil {
		v := conform.Silence("a tools/list result", first.Err)
		return &v
	}
	if first.Resp.IsError() || first.Result == nil {
		v := conform.Skip(conform.NotExercised, "tools/list gave no usable result (%s); judged by TOOLS-LIST-01", conform.Describe(first.Resp, nil))
		return &v
	}
	return nil
}

// Declared reports whether the session declared the tools capability.
func Declared(s *conform.Session) bool {
	_, ok := s.Capabilities()["tools"]
	return ok
}

// ListChangedDeclared reports whether capabilities.tools.listChanged is true.
func ListChangedDeclared(s *conform.Session) bool { return CapListChanged(s, "tools") }

// CapListChanged reports whether capabilities.<capability>.listChanged is true
// ({rev}/server/tools.mdx, prompts.mdx, Capabilities).
func CapListChanged(s *conform.Session, capability string) bool {
	var c struct {
		ListChanged *bool `json:"listChanged"`
	}
	raw, ok := s.Capabilities()[capability]
	return ok && json.Unmarshal(raw, &c) == nil && c.ListChanged != nil && *c.ListChanged
}

// Quote renders a tool name for messages.
func Quote(name string) string { return fmt.Sprintf("%q", name) }

// RequireListing ends the check with ListVerdict's verdict when the walk yielded no
// usable first page.
func RequireListing(t *conform.T, l *Listing) {
	if v := ListVerdict(t, l); v != nil {
		t.Stop(*v)
	}
}
