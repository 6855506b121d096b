package tools

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/sniff"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Icon checks (TOOLS-ICONS-*): the shape of Tool.icons, the schemes
// of their src, and the bytes of data: icons.

// defIcon is one icon of a listed tool.
type defIcon struct {
	tool  defTool
	index int
	raw   json.RawMessage
	src   string // "" when src is not a string
}

// String names the icon by its tool and JSON pointer.
func (i defIcon) String() string {
	return fmt.Sprintf("%s icon %s", defToolName(i.tool), i.tool.Pointer(fmt.Sprintf("/icons/%d", i.index)))
}

// defToolName quotes a tool's name for messages.
func defToolName(d defTool) string {
	if d.Name == "" {
		return "(unnamed tool)"
	}
	return fmt.Sprintf("%q", d.Name)
}

// defIcons returns every icon of every tool whose icons member is an array.
func defIcons(l *defListing) []defIcon {
	var out []defIcon
	for _, d := range l.with("icons") {
		items, ok := toolkit.Array(d.Fields.Get("icons"))
		if !ok {
			continue
		}
		for i, raw := range items {
			ic := defIcon{tool: d, index: i, raw: raw}
			if obj := toolkit.Object(raw); obj != nil {
				ic.src, _ = toolkit.String(obj["src"])
			}
			out = append(out, ic)
		}
	}
	return out
}

// TOOLS-ICONS-01 — 2025-11-25/basic/index.mdx (`icons`); schema Icon.
var _ = conform.Register(conform.Check{
	ID: "TOOLS-ICONS-01", Title: "tool icons are Icon{src (URI), mimeType?, sizes?: string[], theme?: light|dark}",
	Run: func(t *conform.T) conform.Verdict {
		withIcons := defWith(t, "icons", "has icons", "the fixture contract's metadata variants include a tool with https and data: icons")
		var f conform.Findings
		n := 0
		for _, d := range withIcons {
			if _, ok := toolkit.Array(d.Fields.Get("icons")); !ok {
				f.Fail(fmt.Sprintf("%s: icons is %s, not an array", d.Pointer("/icons"), toolkit.JSONKind(d.Fields.Get("icons"))))
			}
		}
		for _, ic := range defIcons(defList(t)) {
			n++
			if p := defIconProblem(t.Rev, ic); p != "" {
				f.Fail(p)
			}
		}
		return f.Verdict("icons valid as Icon[] under the "+t.Rev.Name+" schema, each src a URI", "", fmt.Sprintf("%d icon(s) on %d tool(s) are valid Icons", n, len(withIcons)))
	},
})

// defIconProblem says what is wrong with one icon ("" when nothing is).
func defIconProblem(rev revision.Revision, ic defIcon) string {
	if err := rev.Validate("Icon", ic.raw); err != nil {
		return fmt.Sprintf("%s: %v", ic, err)
	}
	u, err := url.Parse(ic.src)
	switch {
	case err != nil:
		return fmt.Sprintf("%s: src %q is not a URI: %v", ic, defShort(ic.src), err)
	case u.Scheme == "":
		return fmt.Sprintf("%s: src %q is not an absolute URI (no scheme)", ic, defShort(ic.src))
	}
	return ""
}

// defShort clips a string for messages (data: URIs are long).
func defShort(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:80] + "…"
}

// TOOLS-ICONS-SCHEME-01 — 2025-11-25/basic/index.mdx (`icons`, Security
// considerations).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-ICONS-SCHEME-01", Title: "tool icon src uses https: or data: only",
	Run: func(t *conform.T) conform.Verdict {
		l := defList(t)
		icons := defIcons(l)
		var f conform.Findings
		n := 0
		for _, ic := range icons {
			if ic.src == "" {
				continue // no string src: TOOLS-ICONS-01
			}
			n++
			if p := defSchemeProblem(ic.src); p != "" {
				f.Fail(fmt.Sprintf("%s: %s", ic, p))
			}
		}
		if n == 0 {
			return defNone(l, "has an icon with a string src", "the fixture contract's metadata variants include a tool with https and data: icons")
		}
		return f.Verdict("icon src with scheme https: or data: (clients must reject other schemes)", "", fmt.Sprintf("%d icon src(s), all https: or data:", n))
	},
})

// defSchemeProblem says why an icon src's scheme is unsafe ("" when it is https or
// data).
func defSchemeProblem(src string) string {
	u, err := url.Parse(src)
	if err != nil || u.Scheme == "" {
		return fmt.Sprintf("src %q has no readable scheme", defShort(src))
	}
	switch s := strings.ToLower(u.Scheme); s {
	case "https", "data":
		return ""
	case "http":
		return fmt.Sprintf("src %q is plain http: (https: expected)", defShort(src))
	default:
		return fmt.Sprintf("src %q uses the %s: scheme, which clients must reject", defShort(src), s)
	}
}

// TOOLS-ICONS-DATA-01 — 2025-11-25/basic/index.mdx (`icons`).
var _ = conform.Register(conform.Check{
	ID: "TOOLS-ICONS-DATA-01", Title: "data: icons hold strict base64 whose bytes match their declared image type",
	Run: func(t *conform.T) conform.Verdict {
		l := defList(t)
		var bad conform.Findings
		var notes []string
		n := 0
		for _, ic := range defIcons(l) {
			if !strings.HasPrefix(strings.ToLower(ic.src), "data:") {
				continue
			}
			n++
			problem, note := defDataIcon(ic)
			if problem != "" {
				bad.Fail(fmt.Sprintf("%s: %s", ic, problem))
			}
			if note != "" {
				notes = append(notes, fmt.Sprintf("%s: %s", ic, note))
			}
		}
		switch {
		case n == 0:
			return defNone(l, "has a data: icon", "the fixture contract's metadata variants include a data: PNG icon")
		case bad.Failed():
			return bad.Violation("data: icons of strict base64 whose magic bytes match the declared image type")
		case len(notes) > 0:
			return conform.Note("%d data: icon(s) decode and match their type; %s", n, conform.JoinAtMost(notes, 3))
		}
		return conform.Pass("%d data: icon(s) decode strictly and match their declared type", n)
	},
})

// defImageTypes are the image types sniff recognises by their magic bytes.
var defImageTypes = []string{sniff.PNG, sniff.JPEG, sniff.GIF, sniff.WebP, sniff.BMP}

// defDataIcon judges one data: icon: problem breaks the rule, note is information.
func defDataIcon(ic defIcon) (problem, note string) {
	meta, payload, ok := strings.Cut(ic.src[len("data:"):], ",")
	if !ok {
		return "the data: URI has no comma before its data", ""
	}
	isBase64 := strings.HasSuffix(strings.ToLower(meta), ";base64") // RFC 2397 tokens ignore case
	uriType := meta
	if isBase64 {
		uriType = meta[:len(meta)-len(";base64")]
	}
	if !isBase64 {
		return fmt.Sprintf("the data: URI is not base64-encoded (%q)", "data:"+meta+","), ""
	}
	b, err := sniff.DecodeBase64Strict(payload)
	if err != nil {
		return err.Error(), ""
	}
	if len(b) == 0 {
		return "the data: URI holds no bytes", ""
	}
	declared := sniff.NormalizeMIME(uriType)
	if mt, ok := toolkit.String(toolkit.Object(ic.raw)["mimeType"]); ok && mt != "" {
		if uriType != "" && sniff.NormalizeMIME(mt) != declared {
			return fmt.Sprintf("mimeType %q differs from the data: URI's type %q", mt, uriType), ""
		}
		declared = sniff.NormalizeMIME(mt)
	}
	return defCompareImage(declared, sniff.Sniff(b))
}

// defCompareImage compares a declared type with the type the bytes sniffed as.
func defCompareImage(declared, sniffed string) (problem, note string) {
	switch {
	case declared == "" && sniffed == "":
		return "no declared media type, and the bytes are no image the suite recognises", ""
	case declared == "":
		return "", fmt.Sprintf("no declared media type; the bytes are %s", sniffed)
	case sniffed == "" && slices.Contains(defImageTypes, declared):
		return fmt.Sprintf("declared %s, but the bytes do not start with its magic bytes", declared), ""
	case sniffed == "":
		return "", fmt.Sprintf("declared %s, which the suite cannot verify by magic bytes (clients must only support image/png and image/jpeg)", declared)
	case sniffed != declared:
		return fmt.Sprintf("declared %s, but the bytes are %s", declared, sniffed), ""
	case declared != sniff.PNG && declared != sniff.JPEG:
		return "", fmt.Sprintf("%s matches, but clients must only support image/png and image/jpeg", declared)
	}
	return "", ""
}
