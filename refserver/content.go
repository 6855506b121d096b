package refserver

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// block is one content block, shaped for the negotiated revision by the builders
// below. A map keeps per-revision fields a one-line decision.
type block map[string]any

// fixedLastModified is the annotations.lastModified of the annotated content: a
// fixed RFC 3339 instant keeps results deterministic.
const fixedLastModified = "2025-01-01T00:00:00Z"

// The resources the tools embed or link, readable with resources/read.
const (
	uriEmbeddedText = "test://embedded/text"
	uriEmbeddedBlob = "test://embedded/blob"
	uriLinkedReadme = "test://linked/readme.txt"

	embeddedText = "Embedded text resource of the mcp-conform reference server."
	readmeText   = "This resource is reached through a resource_link block.\n"
)

// textBlock is a TextContent block (every revision).
func textBlock(text string) block {
	return block{"type": "text", "text": text}
}

// imageBlock is an ImageContent block holding a real 1×1 PNG (every revision).
func imageBlock() block {
	return block{"type": "image", "data": media().pngPixelBase64, "mimeType": "image/png"}
}

// audioBlock is an AudioContent block holding a real WAV file. Revisions before
// 2025-03-26 have no audio content; there it degrades to a text block.
// leak (a fault) sends audio regardless.
func audioBlock(rev revision.Revision, leak bool) block {
	if !rev.Has(revision.AudioContent) && !leak {
		return textBlock(fmt.Sprintf("Audio content is unavailable in protocol revision %s.", rev.Name))
	}
	return block{"type": "audio", "data": media().wavSampleBase64, "mimeType": "audio/wav"}
}

// embeddedTextBlock is an EmbeddedResource with text contents (every revision).
func embeddedTextBlock() block {
	return block{"type": "resource", "resource": textResourceContents()}
}

// embeddedBlobBlock is an EmbeddedResource with base64 blob contents (every revision).
func embeddedBlobBlock() block {
	return block{"type": "resource", "resource": blobResourceContents()}
}

func textResourceContents() map[string]any {
	return map[string]any{"uri": uriEmbeddedText, "mimeType": "text/plain", "text": embeddedText}
}

func blobResourceContents() map[string]any {
	return map[string]any{"uri": uriEmbeddedBlob, "mimeType": "image/png", "blob": media().pngPixelBase64}
}

// resourceLinkBlock is a ResourceLink block (2025-06-18+), with icons from 2025-11-25.
// Earlier revisions have no resource_link; there it degrades to a text block naming
// the URI. leak (a fault) sends resource_link in 2025-03-26 regardless.
func resourceLinkBlock(rev revision.Revision, leak bool) block {
	if !rev.Has(revision.ResourceLink) && !(leak && rev.Name == "2025-03-26") {
		return textBlock(fmt.Sprintf("resource_link content is unavailable in protocol revision %s; the linked resource is %s.", rev.Name, uriLinkedReadme))
	}
	b := block{
		"type":        "resource_link",
		"uri":         uriLinkedReadme,
		"name":        "readme.txt",
		"title":       "Fixture read-me",
		"description": "A small text resource of the reference server.",
		"mimeType":    "text/plain",
		"size":        len(readmeText),
		"annotations": contentAnnotations(rev),
	}
	if rev.Has(revision.Icons) {
		b["icons"] = fixtureIcons()
	}
	return b
}

// contentAnnotations are the annotations of annotated blocks: audience and priority in
// every revision (2024-11-05 calls the base type Annotated), lastModified from
// 2025-06-18.
func contentAnnotations(rev revision.Revision) map[string]any {
	a := map[string]any{"audience": []string{"user", "assistant"}, "priority": 0.5}
	if rev.Has(revision.LastModified) {
		a["lastModified"] = fixedLastModified
	}
	return a
}

// annotated returns b with annotations added.
func annotated(rev revision.Revision, b block) block {
	b["annotations"] = contentAnnotations(rev)
	return b
}

// icon is an Icon (2025-11-25+).
type icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// fixtureIcons is one https icon and one data: PNG icon. The https URL is never
// fetched by the server.
func fixtureIcons() []icon {
	return []icon{
		{Src: "https://example.com/mcp-conform/icon.png", MimeType: "image/png", Sizes: []string{"48x48"}, Theme: "light"},
		{Src: media().pngIconDataURI, MimeType: "image/png", Sizes: []string{"16x16"}},
	}
}
