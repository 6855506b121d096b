package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/sniff"
	"github.com/mcp-conform/mcp-conform/suites/internal/metakey"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Content blocks of tool results (the CONTENT rows). Every check judges every block
// of every tools/call result seen in the revision's sessions, after calling the
// content fixtures the server lists (and the tools allowed with --call) once on the
// main session. A check whose block type never appeared is skipped, never passed.

// The per-type checks: ctTypeCheck judges every block of a type the revision has,
// ctAbsentCheck that no block of a type it lacks appears.
var _ = registerChecks(
	// CONTENT-TEXT-01 — {rev}/server/tools.mdx (Text Content); schema TextContent.
	ctTypeCheck(conform.Check{ID: "CONTENT-TEXT-01", Title: "text blocks are {type:\"text\", text: string}"},
		"text", "test_simple_text", nil),
	// CONTENT-IMAGE-01 — {rev}/server/tools.mdx (Image Content); schema ImageContent.
	ctTypeCheck(conform.Check{ID: "CONTENT-IMAGE-01", Title: "image blocks carry strict base64 data whose bytes match mimeType"},
		"image", "test_image_content", ctJudgeMedia),
	// CONTENT-AUDIO-01 — R2+ tools.mdx (Audio Content); schema AudioContent.
	ctTypeCheck(conform.Check{ID: "CONTENT-AUDIO-01", Title: "audio blocks carry strict base64 data whose bytes match mimeType"},
		"audio", "test_audio_content", ctJudgeMedia),
	// CONTENT-AUDIO-R1-01 — 2024-11-05 schema CallToolResult (no AudioContent).
	ctAbsentCheck(conform.Check{ID: "CONTENT-AUDIO-R1-01", Title: "no audio block in a 2024-11-05 session (the fixture falls back)"},
		"audio", "test_audio_content", "2025-03-26"),
	// CONTENT-RESLINK-01 — R3+ tools.mdx (Resource Links); schema ResourceLink.
	ctTypeCheck(conform.Check{ID: "CONTENT-RESLINK-01", Title: "resource_link blocks are valid and their uri is a URI with a scheme"},
		"resource_link", "test_resource_link", ctJudgeLinkURI),
	// CONTENT-RESLINK-R12-01 — 2024-11-05 and 2025-03-26 schemas (no ResourceLink).
	ctAbsentCheck(conform.Check{ID: "CONTENT-RESLINK-R12-01", Title: "no resource_link block before 2025-06-18 (the fixture falls back)"},
		"resource_link", "test_resource_link", "2025-06-18"),
	// CONTENT-EMBED-01 — {rev}/server/tools.mdx (Embedded Resources); schema EmbeddedResource.
	ctTypeCheck(conform.Check{ID: "CONTENT-EMBED-01", Title: "embedded resources are valid and a blob is strict base64"},
		"resource", "test_embedded_resource", ctJudgeBlob),
)

// CONTENT-EMBED-CAP-01 — R3+ tools.mdx (Embedded Resources).
var _ = conform.Register(ctCheck(conform.Check{
	ID: "CONTENT-EMBED-CAP-01", Title: "a server that embeds resources declares the resources capability",
}, runEmbedCap, "test_embedded_resource"))

func runEmbedCap(t *conform.T, l *toolkit.Listing) conform.Verdict {
	blocks := ctOfType(ctBlocks(t), "resource")
	if len(blocks) == 0 {
		return ctUnexercised(t, l, "test_embedded_resource", "embedded resource block")
	}
	var f conform.Findings
	seen := map[string]bool{}
	for _, b := range blocks {
		f.Judged++
		if _, ok := b.Session.Capabilities()["resources"]; ok || seen[b.Session.Label] {
			continue
		}
		seen[b.Session.Label] = true
		f.Fail(fmt.Sprintf("%s is an embedded resource, but the session's capabilities have no resources member", b.at("")))
	}
	return f.Verdict("the resources capability declared by a server whose tools embed resources", "",
		fmt.Sprintf("%d embedded resource block%s, and the resources capability is declared", f.Judged, toolkit.Plural(f.Judged)))
}

// CONTENT-ANNOT-01 — schema Annotated (2024-11-05) / Annotations (2025-03-26+).
var _ = conform.Register(ctCheck(conform.Check{
	ID: "CONTENT-ANNOT-01", Title: "block annotations: audience ⊆ {user, assistant}, priority a number in [0, 1]",
}, runAnnotations, "test_annotated_content"))

func runAnnotations(t *conform.T, l *toolkit.Listing) conform.Verdict {
	f := ctEachBlock(t, l, "test_annotated_content", "content block with annotations", func(b ctBlock, f *conform.Findings) {
		raw, ok := b.Fields["annotations"]
		if !ok {
			return
		}
		f.Judged++
		if err := ctValidateAnnotations(b.Rev(), raw); err != nil {
			f.Fail(toolkit.Problems(err, b.at("/annotations")))
		}
	})
	return f.Verdict("annotations valid under the "+t.Rev.Name+" schema", "",
		fmt.Sprintf("%d annotated block%s valid under the %s schema", f.Judged, toolkit.Plural(f.Judged), t.Rev.Name))
}

// ctValidateAnnotations validates a block's annotations: against Annotations where
// the revision defines it, else (2024-11-05, whose blocks inline the Annotated base)
// as the annotations member of Annotated.
func ctValidateAnnotations(rev revision.Revision, raw json.RawMessage) error {
	if rev.HasDefinition("Annotations") {
		return rev.Validate("Annotations", raw)
	}
	wrapped := json.RawMessage(`{"annotations":` + string(raw) + `}`)
	err := rev.Validate("Annotated", wrapped)
	var ve *revision.ValidationError
	if errors.As(err, &ve) {
		for i, p := range ve.Problems {
			ve.Problems[i].Pointer = strings.TrimPrefix(p.Pointer, "/annotations")
		}
	}
	return err
}

// CONTENT-ANNOT-LASTMOD-01 — 2025-06-18+ schema Annotations.lastModified.
var _ = conform.Register(ctCheck(conform.Check{
	ID: "CONTENT-ANNOT-LASTMOD-01", Title: "annotations.lastModified is an ISO 8601 (RFC 3339) timestamp",
}, runLastModified, "test_annotated_content"))

func runLastModified(t *conform.T, l *toolkit.Listing) conform.Verdict {
	f := ctEachBlock(t, l, "test_annotated_content", "annotations.lastModified", func(b ctBlock, f *conform.Findings) {
		var a map[string]json.RawMessage
		if json.Unmarshal(b.Fields["annotations"], &a) != nil {
			return
		}
		raw, ok := a["lastModified"]
		if !ok {
			return
		}
		f.Judged++
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			f.Warn(fmt.Sprintf("%s is %s, not a string", b.at("/annotations/lastModified"), conform.ClipBytes(raw, 60)))
			return
		}
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			f.Warn(fmt.Sprintf("%s is %q, which does not parse as RFC 3339", b.at("/annotations/lastModified"), conform.Clip(s, 60)))
		}
	})
	return f.Verdict("", "an ISO 8601 timestamp such as \"2025-01-12T15:00:58Z\"",
		fmt.Sprintf("every lastModified (%d) parses as RFC 3339", f.Judged))
}

// CONTENT-UNKNOWN-TYPE-01 — schema CallToolResult.content (the revision's union).
var _ = conform.Register(ctCheck(conform.Check{
	ID: "CONTENT-UNKNOWN-TYPE-01", Title: "every block's type belongs to the negotiated revision's content union",
}, runUnknownType))

// ctUnion returns the content block types of a revision's CallToolResult.
func ctUnion(rev revision.Revision) []string {
	out := []string{"text", "image"}
	if rev.Has(revision.AudioContent) {
		out = append(out, "audio")
	}
	if rev.Has(revision.ResourceLink) {
		out = append(out, "resource_link")
	}
	return append(out, "resource")
}

func runUnknownType(t *conform.T, _ *toolkit.Listing) conform.Verdict {
	blocks := ctBlocks(t)
	if len(blocks) == 0 {
		return conform.Skip(conform.NotExercised, "no content block in any tools/call result of this revision's sessions: list the content fixture tools (the fixture contract, refserver/doc.go) or allow a tool with --call NAME[=JSON]")
	}
	union := ctUnion(t.Rev)
	var f conform.Findings
	for _, b := range blocks {
		f.Judged++
		switch {
		case b.Fields == nil:
			f.Fail(fmt.Sprintf("%s is %s, not an object", b.at(""), conform.ClipBytes(b.Raw, 60)))
		case b.TypeRaw == nil:
			f.Fail(b.at("") + " has no type")
		case b.Type == "" && string(b.TypeRaw) != `""`:
			f.Fail(fmt.Sprintf("%s is %s, not a string", b.at("/type"), conform.ClipBytes(b.TypeRaw, 60)))
		case !slices.Contains(union, b.Type):
			f.Fail(fmt.Sprintf("%s is %q", b.at("/type"), b.Type))
		}
	}
	return f.Verdict(fmt.Sprintf("block types of the %s union (%s)", t.Rev.Name, strings.Join(union, ", ")), "",
		fmt.Sprintf("%d block%s, all of types in the %s union", f.Judged, toolkit.Plural(f.Judged), t.Rev.Name))
}

// CONTENT-MIXED-01 — {rev}/server/tools.mdx (Tool Result).
var _ = conform.Register(conform.Check{
	ID: "CONTENT-MIXED-01", Title: "a result may mix several valid block types",
	Run: runMixed,
})

func runMixed(t *conform.T) conform.Verdict {
	const fixture = "test_multiple_content_types"
	l := ctExercise(t)
	o := toolkit.CallIfAllowed(t, l, fixture)
	switch {
	case o == nil:
		return conform.Skip(conform.MissingFixture, "list the fixture tool %s (the fixture contract: text, image and resource in one result)", fixture)
	case !o.Succeeded():
		return conform.Skip(conform.NotExercised, "%s gave no successful result to judge: %s", fixture, o.Describe())
	}
	types := map[string]bool{}
	var f conform.Findings
	for i, raw := range o.Content {
		typ := toolkit.ContentTypes([]json.RawMessage{raw})[0]
		types[typ] = true
		def, ok := ctDefinitions[typ]
		if !ok || !o.Session.Rev.HasDefinition(def) || !slices.Contains(ctUnion(o.Session.Rev), typ) {
			f.Fail(fmt.Sprintf("/content/%d has type %q, outside the %s union", i, typ, o.Session.Rev.Name))
			continue
		}
		if err := o.Session.Rev.Validate(def, raw); err != nil {
			f.Fail(toolkit.Problems(err, fmt.Sprintf("/content/%d", i)))
		}
	}
	names := make([]string, 0, len(types))
	for k := range types {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(f.Fails()) > 0 {
		return conform.Violation(fixture+": blocks of several types, each valid", conform.JoinAtMost(f.Fails(), 5))
	}
	if len(names) < 2 {
		return conform.Note("%s returned %d block%s of one type (%s): mixing types is optional", fixture, len(o.Content), toolkit.Plural(len(o.Content)), strings.Join(names, ", "))
	}
	return conform.Pass("%s returned %d valid blocks of %d types: %s", fixture, len(o.Content), len(names), strings.Join(names, ", "))
}

// ctDefinitions maps a block type to its schema definition.
var ctDefinitions = map[string]string{
	"text": "TextContent", "image": "ImageContent", "audio": "AudioContent",
	"resource": "EmbeddedResource", "resource_link": "ResourceLink",
}

// ctEachBlock judges every content block of the revision's sessions with judge,
// which counts in f.Judged the blocks that are its subject. When none was, the
// check ends with ctUnexercised's skip: fixture is the tool that would produce
// what it judges.
func ctEachBlock(t *conform.T, l *toolkit.Listing, fixture, what string, judge func(b ctBlock, f *conform.Findings)) conform.Findings {
	var f conform.Findings
	for _, b := range ctBlocks(t) {
		judge(b, &f)
	}
	if f.Judged == 0 {
		t.Stop(ctUnexercised(t, l, fixture, what))
	}
	return f
}

// registerChecks registers checks written as a table.
func registerChecks(cs ...conform.Check) bool {
	for _, c := range cs {
		conform.Register(c)
	}
	return true
}

// ctCheck is c, a check of the tool results in the transcript: its probe is
// ctProbe(fixtures...), and run judges after the content probes (ctExercise, which
// the probe made and which hands run the main session's listing l).
func ctCheck(c conform.Check, run func(t *conform.T, l *toolkit.Listing) conform.Verdict, fixtures ...string) conform.Check {
	c.Probe = ctProbe(fixtures...)
	c.Run = func(t *conform.T) conform.Verdict { return run(t, ctExercise(t)) }
	return c
}

// ctTypeCheck is c, a check of one block type: it calls the fixture tool that
// returns a block of the type, and judges with ctJudgeType.
func ctTypeCheck(c conform.Check, typ, fixture string, extra func(ctBlock, *conform.Findings)) conform.Check {
	return ctCheck(c, func(t *conform.T, l *toolkit.Listing) conform.Verdict {
		return ctJudgeType(t, l, typ, fixture, extra)
	}, fixture)
}

// ctJudgeType is the run of the per-type checks: every block of the type is
// validated against its definition (ctDefinitions) in the session's revision, then
// judged further by extra (which may be nil).
func ctJudgeType(t *conform.T, l *toolkit.Listing, typ, fixture string, extra func(ctBlock, *conform.Findings)) conform.Verdict {
	def := ctDefinitions[typ]
	blocks := ctOfType(ctBlocks(t), typ)
	if len(blocks) == 0 {
		return ctUnexercised(t, l, fixture, typ+" block")
	}
	var f conform.Findings
	for _, b := range blocks {
		f.Judged++
		if err := b.Rev().Validate(def, b.Raw); err != nil {
			f.Fail(toolkit.Problems(err, b.at("")))
			continue
		}
		if extra != nil {
			extra(b, &f)
		}
	}
	return f.Verdict(fmt.Sprintf("%s blocks valid under the %s schema (%s)", typ, t.Rev.Name, def),
		fmt.Sprintf("%s blocks whose bytes are what mimeType declares", typ),
		fmt.Sprintf("%d %s block%s valid (%s)", f.Judged, typ, toolkit.Plural(f.Judged), ctSummary(blocks)))
}

// ctSummary names the tools whose blocks were judged.
func ctSummary(blocks []ctBlock) string {
	seen := map[string]bool{}
	var names []string
	for _, b := range blocks {
		n := b.Tool
		if n == "" {
			n = "(unknown tool)"
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return "from " + conform.JoinAtMost(names, 4)
}

// ctSigned are the media types whose files always start with a signature Sniff
// knows: declared as one of them, bytes without any signature are not that format.
var ctSigned = map[string]bool{
	sniff.PNG: true, sniff.JPEG: true, sniff.GIF: true, sniff.WebP: true,
	sniff.WAV: true, sniff.Ogg: true, sniff.FLAC: true,
}

// ctJudgeMedia decodes an image or audio block's data strictly (a failure breaks the
// schema's "format": "byte") and sniffs the bytes against mimeType (a mismatch warns).
func ctJudgeMedia(b ctBlock, f *conform.Findings) {
	var data, mime string
	_ = json.Unmarshal(b.Fields["data"], &data)
	_ = json.Unmarshal(b.Fields["mimeType"], &mime)
	raw, err := sniff.DecodeBase64Strict(data)
	if err != nil {
		f.Fail(fmt.Sprintf("%s is not strict base64: %v", b.at("/data"), err))
		return
	}
	ok, sniffed := sniff.MatchesMIME(mime, raw)
	switch {
	case !ok:
		f.Warn(fmt.Sprintf("%s declares mimeType %q but the %d bytes of data are %s", b.at(""), mime, len(raw), sniffed))
	case sniffed == "" && ctSigned[sniff.NormalizeMIME(mime)]:
		f.Warn(fmt.Sprintf("%s declares mimeType %q but the %d bytes of data have no %s signature", b.at(""), mime, len(raw), sniff.NormalizeMIME(mime)))
	}
}

// ctJudgeBlob decodes an embedded resource's blob strictly.
func ctJudgeBlob(b ctBlock, f *conform.Findings) {
	var res map[string]json.RawMessage
	if json.Unmarshal(b.Fields["resource"], &res) != nil {
		return
	}
	raw, ok := res["blob"]
	if !ok {
		return
	}
	var blob string
	if json.Unmarshal(raw, &blob) != nil {
		return
	}
	if _, err := sniff.DecodeBase64Strict(blob); err != nil {
		f.Fail(fmt.Sprintf("%s is not strict base64: %v", b.at("/resource/blob"), err))
	}
}

// ctJudgeLinkURI parses a resource link's uri: it must be a URI, which has a scheme
// (RFC 3986 §3: "URI = scheme ":" hier-part …").
func ctJudgeLinkURI(b ctBlock, f *conform.Findings) {
	var s string
	if json.Unmarshal(b.Fields["uri"], &s) != nil {
		return
	}
	if msg := toolkit.URIProblem(s); msg != "" {
		f.Fail(fmt.Sprintf("%s is %q: %s", b.at("/uri"), conform.Clip(s, 80), msg))
	}
}

// ctAbsentCheck is c, a check that a revision lacks a block type: it calls the
// fixture tool that would return one, and judges with ctNotInRevision.
func ctAbsentCheck(c conform.Check, typ, fixture, since string) conform.Check {
	return ctCheck(c, func(t *conform.T, l *toolkit.Listing) conform.Verdict {
		return ctNotInRevision(t, l, typ, fixture, since)
	}, fixture)
}

// ctNotInRevision is the run of the rows that forbid a block type the revision lacks:
// no such block in any result of the revision's sessions, and the fixture tool that
// would produce one falls back (another type, or an error).
func ctNotInRevision(t *conform.T, l *toolkit.Listing, typ, fixture, since string) conform.Verdict {
	if blocks := ctOfType(ctBlocks(t), typ); len(blocks) > 0 {
		var f conform.Findings
		for _, b := range blocks {
			f.Fail(typ + " block at " + b.at(""))
		}
		return f.Violation(fmt.Sprintf("no %s block in a %s session (%s arrives in %s)", typ, t.Rev.Name, typ, since))
	}
	o := toolkit.CallIfAllowed(t, l, fixture)
	if o == nil {
		return conform.Skip(conform.MissingFixture, "no %s block seen, but nothing asked for one: list the fixture tool %s (the fixture contract, refserver/doc.go), which must fall back in %s", typ, fixture, t.Rev.Name)
	}
	return ctFallback(t, o, typ)
}

// ctFallback judges the fixture call that asked for a block type the revision lacks.
func ctFallback(t *conform.T, o *toolkit.Outcome, typ string) conform.Verdict {
	switch {
	case o.Err != nil:
		return conform.Silence("a result or an error for "+o.Name, o.Err)
	case o.Resp.IsError():
		return conform.Pass("%s answered with %s: no %s block", o.Name, conform.Describe(o.Resp, nil), typ)
	case o.Result == nil:
		return conform.Skip(conform.NotExercised, "%s gave no result object to judge: %s", o.Name, o.Describe())
	}
	return conform.Pass("%s fell back to %s", o.Name, toolkit.DescribeOutcome(o))
}

// CONTENT-META-01 — schema ContentBlock._meta (2025-06-18 on); {rev}/basic/index.mdx (`_meta`).
var _ = conform.Register(ctCheck(conform.Check{
	ID: "CONTENT-META-01", Title: "a content block's _meta (and its embedded resource's) is keyed by the _meta key name format",
}, func(t *conform.T, l *toolkit.Listing) conform.Verdict {
	f := ctEachBlock(t, l, "test_annotated_content", "content block with a _meta object", ctMetaKeys)
	return f.Verdict("every _meta key of a content block an optional valid prefix (dot-separated labels, then /) and a valid name", "",
		fmt.Sprintf("%d _meta keys on content blocks, each with a valid prefix and name", f.Judged))
}, "test_annotated_content"))

// ctMetaKeys judges the keys of a block's _meta and of its embedded resource's
// _meta, counting each key judged.
func ctMetaKeys(b ctBlock, f *conform.Findings) {
	if b.Fields == nil {
		return
	}
	metas := map[string]json.RawMessage{"/_meta": b.Fields["_meta"]}
	if res := toolkit.Object(b.Fields["resource"]); res != nil {
		metas["/resource/_meta"] = res["_meta"]
	}
	for _, ptr := range []string{"/_meta", "/resource/_meta"} {
		meta := toolkit.Object(metas[ptr])
		keys := make([]string, 0, len(meta))
		for k := range meta {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f.Judged++
			if p := metakey.Problem(k); p != "" {
				f.Fail(fmt.Sprintf("%s key %q: %s", b.at(ptr), k, p))
			}
		}
	}
}
