package toolkit

import (
	"encoding/json"
	"hash/maphash"
	"reflect"
	"testing"
	"unsafe"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// pageOf decodes a tools/list reply into a page as fetchPage would, with its own
// tool table.
func pageOf(t *testing.T, tt *toolTable, reply string) Page {
	t.Helper()
	m, err := wire.Decode([]byte(reply))
	if err != nil {
		t.Fatal(err)
	}
	p := Page{Resp: &wire.Response{Msg: m, Result: m.Result, IDExact: true, Seq: 7}}
	var fields map[string]json.RawMessage
	var items []json.RawMessage
	if err := json.Unmarshal(m.Result, &fields); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(fields["tools"], &items); err != nil {
		t.Fatal(err)
	}
	p.Result = fields
	if nc, ok := fields["nextCursor"]; ok {
		p.NextRaw = nc
		var c string
		if json.Unmarshal(nc, &c) == nil {
			p.NextCursor = &c
		}
	}
	p.Tools = tt.decode(items)
	return p
}

// TestPageTableShares: a page whose result is byte for byte a kept one's takes that
// page's bytes and decoded form, keeps its own id and tools to number, and holds
// none of its reply's bytes; a page that differs by one byte is not shared.
func TestPageTableShares(t *testing.T) {
	tt := &toolTable{seed: maphash.MakeSeed(), first: map[uint64]int32{}}
	pt := newPageTable()
	const result = `{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"c2"}`
	first := pageOf(t, tt, `{"jsonrpc":"2.0","id":1,"result":`+result+`}`)
	pt.keep(&first)
	first.Tools[0].Page = 3 // a walk numbering its page must not touch the kept copy

	again := pageOf(t, tt, `{"jsonrpc":"2.0","id":"x","result":`+result+`}`)
	want := again
	if !pt.share(&again) {
		t.Fatal("an equal page was not shared")
	}
	if unsafe.SliceData(again.Resp.Result) != unsafe.SliceData(first.Resp.Result) {
		t.Error("the shared page holds its own copy of the result")
	}
	if again.Resp.Msg.Raw != nil || again.Resp.Msg.ID.String() != `"x"` || again.Resp.Seq != 7 || !again.Resp.IDExact {
		t.Errorf("the shared page's reply is %+v, want its own id and sequence and no raw bytes", again.Resp)
	}
	if string(again.Resp.Msg.Result) != result || *again.NextCursor != "c2" || string(again.NextRaw) != `"c2"` || !reflect.DeepEqual(again.Result, want.Result) {
		t.Errorf("the shared page reads %s, cursor %s", again.Resp.Msg.Result, again.NextRaw)
	}
	if len(again.Tools) != 2 || again.Tools[0].Page != 0 || again.Tools[1].Name != "b" || again.Tools[1].Index != 1 {
		t.Errorf("the shared page's tools are %+v", again.Tools)
	}
	again.Tools[1].Page = 5
	if third := pageOf(t, tt, `{"jsonrpc":"2.0","id":3,"result":`+result+`}`); !pt.share(&third) || third.Tools[1].Page != 0 {
		t.Error("a walk's numbering of shared tools reached the table")
	}

	other := pageOf(t, tt, `{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"a"},{"name":"b"}],"nextCursor":"c3"}}`)
	if pt.share(&other) {
		t.Error("a page with another cursor was shared")
	}
}

// TestPageTableCollisions: pages whose hashes collide are told apart by their bytes.
func TestPageTableCollisions(t *testing.T) {
	tt := &toolTable{seed: maphash.MakeSeed(), first: map[uint64]int32{}}
	pt := newPageTable()
	x := pageOf(t, tt, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x"}]}}`)
	pt.keep(&x)
	y := pageOf(t, tt, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"y"}]}}`)
	// Put x under y's hash, as a collision would.
	pt.pages[maphash.Bytes(pt.seed, y.Resp.Result)] = pt.pages[maphash.Bytes(pt.seed, x.Resp.Result)]
	if pt.share(&y) {
		t.Error("a page was shared with another whose hash collided")
	}
}
