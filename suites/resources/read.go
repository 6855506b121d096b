package resources

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/sniff"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// codeResourceNotFound is the not-found code of 2024-11-05 … 2025-11-25
// (server/resources.mdx, Error Handling).
const codeResourceNotFound = -32002

// RES-READ-01 — {rev}/server/resources.mdx (Reading Resources); schema
// ReadResourceResult.
var _ = conform.Register(conform.Check{
	ID: "RES-READ-01", Title: "resources/read of a listed resource answers a valid ReadResourceResult",
	Run: func(t *conform.T) conform.Verdict {
		rs := requireReads(t)
		return judgeReads(rs, func(raw json.RawMessage) error { return t.Rev.Validate("ReadResourceResult", raw) })
	},
})

// judgeReads validates each read's result; an error reply for a listed resource is
// a warning (a server may fail to read one), no reply a silence.
func judgeReads(rs []read, validate func(json.RawMessage) error) conform.Verdict {
	var f conform.Findings
	for _, r := range rs {
		where := fmt.Sprintf("resources/read %q", conform.Clip(r.uri, 80))
		switch {
		case r.resp.err != nil:
			return conform.Silence("a ReadResourceResult for "+where, r.resp.err)
		case r.resp.rpc:
			what := " (a listed resource): "
			if r.named {
				what = " (named by --read): "
			}
			f.Warn(where + what + r.resp.desc)
			continue
		}
		f.Judged++
		if err := validate(r.resp.raw); err != nil {
			f.Fail(toolkit.Problems(err, where+": "))
			continue
		}
		if len(r.contents) == 0 {
			f.Note(where + " has no contents")
		}
	}
	return f.Verdict("a valid ReadResourceResult for every listed resource read", "every listed resource readable",
		fmt.Sprintf("%s; each a valid ReadResourceResult", readURIs(rs)))
}

// RES-READ-BLOB-01 — {rev}/server/resources.mdx (Security Considerations).
var _ = conform.Register(conform.Check{
	ID: "RES-READ-BLOB-01", Title: "every blob a resources/read returns is strict base64",
	Run: onReads(judgeBlobs),
})

// judgeBlobs decodes every string blob of the contents read.
func judgeBlobs(rs []read) conform.Verdict {
	var f conform.Findings
	for _, r := range rs {
		for i, c := range r.contents {
			blob, ok := toolkit.String(toolkit.Object(c)["blob"])
			if !ok {
				continue
			}
			f.Judged++
			if _, err := sniff.DecodeBase64Strict(blob); err != nil {
				f.Fail(fmt.Sprintf("resources/read %q /contents/%d/blob is not strict base64: %v", conform.Clip(r.uri, 80), i, err))
			}
		}
	}
	if f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "no blob among the contents read (%s)", readURIs(rs))
	}
	return f.Verdict("binary contents properly encoded: blob as strict base64", "", fmt.Sprintf("%d blob%s, each strict base64 (%s)", f.Judged, toolkit.Plural(f.Judged), readURIs(rs)))
}

// RES-READ-MATCH-01 — {rev}/server/resources.mdx (Reading Resources); schema
// Resource.mimeType, ResourceContents.uri (derived).
var _ = conform.Register(conform.Check{
	ID: "RES-READ-MATCH-01", Title: "a read's contents name the URI read, with the mimeType the listing gave",
	Run: onReads(judgeMatch),
})

// judgeMatch looks, in each result, for a content with the URI read and compares
// its mimeType with the listed one (when both are given).
func judgeMatch(rs []read) conform.Verdict {
	var f conform.Findings
	for _, r := range rs {
		if r.result == nil || len(r.contents) == 0 {
			continue // an error, a malformed or an empty result: RES-READ-01
		}
		f.Judged++
		where := fmt.Sprintf("resources/read %q", conform.Clip(r.uri, 80))
		var match map[string]json.RawMessage
		for _, c := range r.contents {
			obj := toolkit.Object(c)
			if u, ok := toolkit.String(obj["uri"]); ok && u == r.uri {
				match = obj
				break
			}
		}
		if match == nil {
			f.Fail(fmt.Sprintf("%s: none of its %d content%s has uri %q", where, len(r.contents), toolkit.Plural(len(r.contents)), conform.Clip(r.uri, 80)))
			continue
		}
		listed, lok := r.listed.String("mimeType")
		got, gok := toolkit.String(match["mimeType"])
		if lok && gok && listed != got {
			f.Fail(fmt.Sprintf("%s: listed with mimeType %q, read with mimeType %q", where, conform.Clip(listed, 60), conform.Clip(got, 60)))
		}
	}
	if f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "no read gave contents to compare (%s)", readURIs(rs))
	}
	return f.Verdict("contents for the URI read, with the listed mimeType", "", fmt.Sprintf("%s; each answered with a content of its uri and the listed mimeType", readURIs(rs)))
}

// notFound is the reply to resources/read{uri: notFoundURI}, once per run and
// session.
type notFound struct {
	resp *wire.Response
	err  error
}

func readNotFound(t *conform.T) notFound {
	requireResources(t)
	s := t.Session()
	return t.Once("res.notfound:"+s.Label, func() any {
		resp, err := s.Call(t.Ctx, methodRead, map[string]any{"uri": notFoundURI})
		return notFound{resp, err}
	}).(notFound)
}

// RES-NOTFOUND-01 — {rev}/server/resources.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "RES-NOTFOUND-01", Title: "resources/read of an unknown URI is answered with -32002 (-32602 from 2026-07-28)",
	Run: func(t *conform.T) conform.Verdict {
		nf := readNotFound(t)
		return judgeNotFound(nf, t.Session().Modern())
	},
})

// judgeNotFound wants the revision's not-found code.
func judgeNotFound(nf notFound, modern bool) conform.Verdict {
	code, name := codeResourceNotFound, "-32002 (Resource not found)"
	if modern {
		code, name = wire.CodeInvalidParams, "-32602 (Invalid Params)"
	}
	want := fmt.Sprintf("JSON-RPC error %s for resources/read{uri: %q}", name, notFoundURI)
	switch {
	case nf.err != nil:
		rpc, ok := conform.RPCErrorIn(nf.err)
		switch {
		case ok && rpc.Code == code:
			return conform.Pass("an HTTP error status carrying JSON-RPC error %d", code)
		case ok:
			return conform.Violation(want, fmt.Sprintf("an HTTP error status carrying JSON-RPC error %d", rpc.Code))
		}
		return conform.Silence(want, nf.err)
	case !nf.resp.IsError():
		return conform.Violation(want, "a result: "+conform.ClipBytes(nf.resp.Result, 160))
	case nf.resp.Error.Code != code:
		return conform.Violation(want, fmt.Sprintf("JSON-RPC error %d %q", nf.resp.Error.Code, conform.Clip(nf.resp.Error.Message, 80)))
	}
	msg := fmt.Sprintf("JSON-RPC error %d %q", code, conform.Clip(nf.resp.Error.Message, 80))
	var data struct {
		URI *string `json:"uri"`
	}
	if modern && (json.Unmarshal(nf.resp.Error.Data, &data) != nil || data.URI == nil) {
		return conform.Note("%s, without data.uri (the page's example carries it; no key word requires it)", msg)
	}
	return conform.Pass("%s", msg)
}

// RES-NOTFOUND-EMPTY-R5-01 — 2026-07-28/server/resources.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "RES-NOTFOUND-EMPTY-R5-01", Title: "resources/read of a non-existent resource is never an empty contents array",
	Run: func(t *conform.T) conform.Verdict {
		return judgeNotFoundEmpty(readNotFound(t))
	},
})

// judgeNotFoundEmpty fails a result whose contents is an empty array.
func judgeNotFoundEmpty(nf notFound) conform.Verdict {
	switch {
	case nf.err != nil:
		if _, ok := conform.RPCErrorIn(nf.err); ok {
			return conform.Pass("an HTTP error status carrying a JSON-RPC error")
		}
		return conform.Silence(fmt.Sprintf("an error for resources/read{uri: %q}", notFoundURI), nf.err)
	case nf.resp.IsError():
		return conform.Pass("JSON-RPC error %d, not an empty contents array", nf.resp.Error.Code)
	}
	c, ok := toolkit.Array(toolkit.Object(nf.resp.Result)["contents"])
	if ok && len(c) == 0 {
		return conform.Violation(fmt.Sprintf("an error for resources/read{uri: %q}, never an empty contents array", notFoundURI), "a result with contents: []")
	}
	return conform.Note("resources/read{uri: %q} answered contents (%s): the server serves that URI, so it is not a non-existent resource here (RES-NOTFOUND-01 judges the code)", notFoundURI, conform.ClipBytes(nf.resp.Result, 120))
}
