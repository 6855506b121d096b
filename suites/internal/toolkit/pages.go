package toolkit

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/mcp-conform/mcp-conform/conform"
)

// A run walks the same tool list many times, and most pages come back byte for byte
// as the main session's walk of the revision (List) got them: a Relist, a fresh
// session's walk, another revision's. The tool table already shares each
// definition; the page table shares the page: a page met again takes List's result
// bytes and decoded form, so the walk holds none of its reply's bytes (the
// transcript may, within its budget). Only List's pages are kept: the run holds them
// to its end anyway, so the table holds nothing more (keeping every walk's pages held
// more than sharing saved). At 10,000 tools in pages of 100: the largest live heap
// 35 MB -> 31 MB.

// pageTable holds the decoded pages of the run's List walks, by their result bytes.
type pageTable struct {
	mu    sync.Mutex
	seed  maphash.Seed
	pages map[uint64][]*sharedPage
}

// sharedPage is what fetchPage decoded from one result: every field a slice of
// result, or made from it.
type sharedPage struct {
	result     json.RawMessage
	fields     map[string]json.RawMessage
	nextRaw    json.RawMessage
	nextCursor *string
	tools      []Tool
}

// pages returns the run's table.
func pages(t *conform.T) *pageTable {
	return t.Once("toolkit.pages", func() any { return newPageTable() }).(*pageTable)
}

// newPageTable returns an empty table with its own seed.
func newPageTable() *pageTable {
	return &pageTable{seed: maphash.MakeSeed(), pages: map[uint64][]*sharedPage{}}
}

// share fills p from a kept page with the same result bytes, reporting whether there
// was one. p keeps its own reply's id, sequence and timing, and its own copy of the
// tools: a walk numbers them by page.
func (pt *pageTable) share(p *Page) bool {
	pt.mu.Lock()
	found := pt.lookup(maphash.Bytes(pt.seed, p.Resp.Result), p.Resp.Result)
	pt.mu.Unlock()
	if found == nil {
		return false
	}
	p.Resp = p.Resp.SharingResult(found.result)
	p.Result, p.NextRaw, p.NextCursor = found.fields, found.nextRaw, found.nextCursor
	p.Tools = slices.Clone(found.tools)
	return true
}

// lookup returns the kept page with hash h and these result bytes, or nil (pt.mu
// held): hashes that collide are told apart by the bytes.
func (pt *pageTable) lookup(h uint64, result json.RawMessage) *sharedPage {
	for _, sp := range pt.pages[h] {
		if bytes.Equal(sp.result, result) {
			return sp
		}
	}
	return nil
}

// keep remembers a page fetchPage decoded in full, unless an equal one is kept.
func (pt *pageTable) keep(p *Page) {
	sp := &sharedPage{result: p.Resp.Result, fields: p.Result, nextRaw: p.NextRaw, nextCursor: p.NextCursor, tools: slices.Clone(p.Tools)}
	h := maphash.Bytes(pt.seed, sp.result)
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if pt.lookup(h, sp.result) == nil { // else another List walk kept it first
		pt.pages[h] = append(pt.pages[h], sp)
	}
}
