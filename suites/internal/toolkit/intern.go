package toolkit

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"sync"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
)

// A run walks the same tool list many times: once per revision for the memoized
// listing, twice more around a list change, once per session that needs one. The
// definitions come back byte for byte the same, so each distinct definition is
// decoded once per run and every walk that meets it again shares the decoded form:
// at 10,000 tools and four revisions that is one map of members per tool, not
// twelve, and the walks after the first decode nothing.

// maxInterned bounds the table: past it, definitions are decoded without being
// remembered, so a server that lists ever new tools cannot grow it without end.
const maxInterned = 1 << 18

// toolTable holds every distinct tool definition decoded in a run, by its bytes.
type toolTable struct {
	mu      sync.Mutex
	seed    maphash.Seed
	first   map[uint64]int32 // hash → index of the newest entry with that hash
	entries []internedTool
}

// internedTool is one decoded definition; next chains entries whose hashes collide
// (-1 ends the chain).
type internedTool struct {
	def  *ToolDef
	next int32
}

// tools returns the run's table.
func tools(t *conform.T) *toolTable {
	return t.Once("toolkit.tools", func() any {
		return &toolTable{seed: maphash.MakeSeed(), first: map[uint64]int32{}}
	}).(*toolTable)
}

// decode turns the items of a tools array (sub-slices of a valid reply) into tools,
// sharing what an earlier walk of the run already decoded.
func (tt *toolTable) decode(items []json.RawMessage) []Tool {
	if len(items) == 0 {
		return nil
	}
	out := make([]Tool, len(items))
	var arena rawjson.MemberList // the members of the definitions decoded here
	var defs []ToolDef           // the definitions decoded here, cut as arena is
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for i, rt := range items {
		h := maphash.Bytes(tt.seed, rt)
		idx, found := tt.first[h]
		for found && idx >= 0 {
			if e := &tt.entries[idx]; bytes.Equal(e.def.Raw, rt) {
				out[i] = Tool{ToolDef: e.def, Index: i}
				break
			}
			idx = tt.entries[idx].next
		}
		if out[i].ToolDef != nil {
			continue
		}
		if cap(arena)-len(arena) < arenaSpare {
			// Sized for what is left of this decode (a page of 100 tools needs a
			// few hundred members, not a chunk's thousand).
			arena = make(rawjson.MemberList, 0, min(arenaChunk, arenaSpare+arenaGuess*(len(items)-i)))
		}
		if len(defs) == cap(defs) {
			defs = make([]ToolDef, 0, min(arenaChunk, len(items)-i))
		}
		defs = append(defs, ToolDef{})
		def := &defs[len(defs)-1] // defs never grows past its capacity: def stays put
		arena = decodeToolInto(def, arena, rt)
		out[i] = Tool{ToolDef: def, Index: i}
		if len(tt.entries) < maxInterned {
			next := int32(-1)
			if found {
				next = tt.first[h]
			}
			tt.first[h] = int32(len(tt.entries))
			tt.entries = append(tt.entries, internedTool{def: def, next: next})
		}
	}
	return out
}

// Member lists are cut from arrays of at most arenaChunk members (arenaGuess for
// each definition left to decode), a new one started when fewer than arenaSpare
// are free (a definition with more members grows the array it is in): one
// allocation for hundreds of definitions instead of one each, and no spare
// capacity in each (at 100,000 definitions, 20 MB less at the peak).
const (
	arenaChunk = 1024
	arenaSpare = 16
	arenaGuess = 4 // name, description, inputSchema and one more
)

// decodeToolInto decodes one definition (valid JSON) into def: its members, as
// slices of rt in a list cut from arena's free capacity, and its name when that is a
// string. It returns arena grown by the list.
func decodeToolInto(def *ToolDef, arena rawjson.MemberList, rt json.RawMessage) rawjson.MemberList {
	def.Raw = rt
	def.Fields, arena, _ = rawjson.AppendMembers(arena, rt)
	if name, ok := def.Fields.Lookup("name"); ok {
		def.Name, _ = rawjson.StringOfValid(name)
	}
	return arena
}
