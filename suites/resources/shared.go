package resources

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/suites/internal/listwalk"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The lists of the group and their array keys.
const (
	methodList      = "resources/list"
	keyList         = "resources"
	methodTemplates = "resources/templates/list"
	keyTemplates    = "resourceTemplates"
	methodRead      = "resources/read"
)

// readLimit bounds the resources/read calls of a run: the first readLimit listed
// resources of each revision (reading is read-only by the spec's intent, but a
// server's resources may be large or costly).
const readLimit = 3

// notFoundURI is a URI no server serves (RES-NOTFOUND-01).
const notFoundURI = "x-conformance:///no/such/resource"

// capability returns the main session's capabilities.resources as an object (nil,
// false when absent; nil, true when present but not an object).
func capability(t *conform.T) (map[string]json.RawMessage, bool) {
	raw, ok := t.Session().Capabilities()["resources"]
	if !ok {
		return nil, false
	}
	return toolkit.Object(raw), true
}

// flag reports whether capabilities.resources.<name> is true.
func flag(t *conform.T, name string) bool {
	obj, _ := capability(t)
	return obj != nil && string(obj[name]) == "true"
}

// requireResources ends the check with not-applicable when the server did not
// declare the resources capability: its rules bind only a server that did.
func requireResources(t *conform.T) {
	if _, ok := capability(t); !ok {
		t.SkipNow(conform.NotApplicable, "the server did not declare the resources capability")
	}
}

// resourceList is the main session's resources/list walk, once per run and session.
func resourceList(t *conform.T) *listwalk.Listing {
	return listwalk.Main(t, methodList, keyList, nil)
}

// templateList is the main session's resources/templates/list walk, memoized.
func templateList(t *conform.T) *listwalk.Listing {
	s := t.Session()
	return t.Once("res.templates:"+s.Label, func() any { return listwalk.Walk(t, s, methodTemplates, keyTemplates) }).(*listwalk.Listing)
}

// requireListed returns the main session's resources/list walk, ending the check
// when the server declared no resources capability or the walk has no usable first
// page (RES-LIST-01 judges it).
func requireListed(t *conform.T) *listwalk.Listing {
	requireResources(t)
	l := resourceList(t)
	requireFirstPage(t, l, "RES-LIST-01")
	return l
}

// requireTemplates returns the main session's resources/templates/list walk,
// ending the check when the server declared no resources capability, or as not
// applicable when the method is answered -32601 (no templates offered).
func requireTemplates(t *conform.T) *listwalk.Listing {
	requireResources(t)
	l := templateList(t)
	if methodNotFound(l.First()) {
		t.SkipNow(conform.NotApplicable, "resources/templates/list is answered -32601: the server offers no resource templates")
	}
	return l
}

// requireFirstPage ends the check when the walk has no usable first page: no page
// (--max-pages), no reply, or an error or malformed result (judged by listRow).
func requireFirstPage(t *conform.T, l *listwalk.Listing, listRow string) {
	first := l.First()
	switch {
	case first == nil:
		t.ErrorNow("%s was not called (--max-pages?)", l.Method)
	case first.Err != nil:
		t.Stop(conform.Silence("a "+l.Method+" result", first.Err))
	case first.Resp.IsError() || first.Result == nil:
		t.SkipNow(conform.NotExercised, "%s gave no usable result (%s); judged by %s", l.Method, listwalk.Describe(*first, l.Key), listRow)
	}
}

// read is one resources/read of a listed resource.
type read struct {
	uri      string
	listed   listwalk.Item
	named    bool // by --read
	resp     *conformResp
	contents []json.RawMessage // nil unless the result is an object with a contents array
	result   map[string]json.RawMessage
}

// conformResp is a reply or the error that replaced it.
type conformResp struct {
	raw  json.RawMessage // the result, when one came
	desc string          // the reply in a few words
	err  error
	rpc  bool // an error reply
}

// target is a resource to read and its listed definition (Fields nil when the URI
// came from --read and is not listed).
type target struct {
	uri    string
	listed listwalk.Item
	named  bool // by --read
}

// targets are the resources to read: the --read URIs when given, else the first
// readLimit listed resources with a string uri.
func targets(t *conform.T) []target {
	listed := resourceList(t).Items
	if want := t.Options().Reads; len(want) > 0 {
		out := make([]target, 0, len(want))
		for _, uri := range want {
			tg := target{uri: uri, named: true}
			for _, it := range listed {
				if u, ok := it.String("uri"); ok && u == uri {
					tg.listed = it
					break
				}
			}
			out = append(out, tg)
		}
		return out
	}
	var out []target
	for _, it := range listed {
		if len(out) == readLimit {
			break
		}
		if uri, ok := it.String("uri"); ok {
			out = append(out, target{uri: uri, listed: it})
		}
	}
	return out
}

// reads reads the targets on the main session, once per run and session.
func reads(t *conform.T) []read {
	s := t.Session()
	return t.Once("res.reads:"+s.Label, func() any {
		var out []read
		for _, tg := range targets(t) {
			uri, it := tg.uri, tg.listed
			resp, err := s.Call(t.Ctx, methodRead, map[string]any{"uri": uri})
			r := read{uri: uri, listed: it, named: tg.named, resp: &conformResp{desc: conform.Describe(resp, err), err: err}}
			if err == nil && resp.IsError() {
				r.resp.rpc = true
			}
			if err == nil && !resp.IsError() {
				r.resp.raw = resp.Result
				if res, e := rawjson.ObjectOfValid(resp.Result); e == nil && res != nil {
					r.result = res
					r.contents, _ = toolkit.Array(res["contents"])
				}
			}
			out = append(out, r)
		}
		return out
	}).([]read)
}

// requireReads ends the check when no listed resource was read.
func requireReads(t *conform.T) []read {
	requireListed(t)
	rs := reads(t)
	if len(rs) == 0 {
		t.SkipNow(conform.NotExercised, "resources/list lists no resource with a string uri, and no --read URI was given: nothing to read")
	}
	return rs
}

// onReads is the Run of a check that judges the reads of requireReads.
func onReads(judge func([]read) conform.Verdict) func(*conform.T) conform.Verdict {
	return func(t *conform.T) conform.Verdict { return judge(requireReads(t)) }
}

// readURIs names the resources read, for the evidence.
func readURIs(rs []read) string {
	uris := make([]string, len(rs))
	for i, r := range rs {
		uris[i] = fmt.Sprintf("%q", conform.Clip(r.uri, 80))
	}
	if len(rs) > 0 && rs[0].named {
		return fmt.Sprintf("read %d resource%s named by --read: %s", len(rs), toolkit.Plural(len(rs)), strings.Join(uris, ", "))
	}
	return fmt.Sprintf("read %d of the listed resources (the first %d at most; --read names others): %s", len(rs), readLimit, strings.Join(uris, ", "))
}
