package tools

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

var (
	defPNGBytes  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	defJPEGBytes = []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F'}
	defGIFBytes  = []byte("GIF89a\x01\x00\x01\x00")
)

// defDataURI builds a base64 data: URI.
func defDataURI(mime string, b []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// defIconTool lists one tool with the given icons (JSON array text).
func defIconTool(icons string) string { return defT("iconic", `"icons":`+icons) }

// defIconSrc is an icons array with one icon.
func defIconSrc(src, mime string) string {
	if mime == "" {
		return fmt.Sprintf(`[{"src":%q}]`, src)
	}
	return fmt.Sprintf(`[{"src":%q,"mimeType":%q}]`, src, mime)
}

func TestIconVerdicts(t *testing.T) {
	good := `[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"],"theme":"light"},{"src":"` + defDataURI("image/png", defPNGBytes) + `","mimeType":"image/png"}]`
	defRunCases(t, []defCase{
		{name: "valid icons pass", id: "TOOLS-ICONS-01", rev: "2025-11-25", want: reports.Pass, setup: defTools(defIconTool(good))},
		{name: "missing src fails", id: "TOOLS-ICONS-01", rev: "2025-11-25", want: reports.Fail, contains: "/icons/0",
			setup: defTools(defIconTool(`[{"mimeType":"image/png"}]`))},
		{name: "a bad theme fails", id: "TOOLS-ICONS-01", rev: "2025-11-25", want: reports.Fail,
			setup: defTools(defIconTool(`[{"src":"https://e.com/i.png","theme":"blue"}]`))},
		{name: "sizes not strings fails", id: "TOOLS-ICONS-01", rev: "2025-11-25", want: reports.Fail,
			setup: defTools(defIconTool(`[{"src":"https://e.com/i.png","sizes":[48]}]`))},
		{name: "a relative src fails", id: "TOOLS-ICONS-01", rev: "2025-11-25", want: reports.Fail, contains: "absolute URI",
			setup: defTools(defIconTool(`[{"src":"/icon.png"}]`))},
		{name: "icons not an array fails", id: "TOOLS-ICONS-01", rev: "2025-11-25", want: reports.Fail, contains: "not an array",
			setup: defTools(defIconTool(`{"src":"https://e.com/i.png"}`))},
		{name: "no icons is not exercised", id: "TOOLS-ICONS-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defT("a"))},

		{name: "https and data pass", id: "TOOLS-ICONS-SCHEME-01", rev: "2025-11-25", want: reports.Pass, setup: defTools(defIconTool(good))},
		{name: "http warns", id: "TOOLS-ICONS-SCHEME-01", rev: "2025-11-25", want: reports.Warn, contains: "plain http",
			setup: defTools(defIconTool(defIconSrc("http://e.com/i.png", "")))},
		{name: "javascript warns", id: "TOOLS-ICONS-SCHEME-01", rev: "2025-11-25", want: reports.Warn, contains: "javascript",
			setup: defTools(defIconTool(defIconSrc("javascript:alert(1)", "")))},
		{name: "file warns", id: "TOOLS-ICONS-SCHEME-01", rev: "2025-11-25", want: reports.Warn, contains: "file",
			setup: defTools(defIconTool(defIconSrc("file:///etc/icon.png", "")))},
		{name: "no icons is not exercised", id: "TOOLS-ICONS-SCHEME-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defT("a"))},

		{name: "a PNG data icon passes", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Pass, setup: defTools(defIconTool(good))},
		{name: "a JPEG without mimeType passes", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Pass,
			setup: defTools(defIconTool(defIconSrc(defDataURI("image/jpeg", defJPEGBytes), "")))},
		{name: "an upper-case BASE64 token passes", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Pass,
			setup: defTools(defIconTool(defIconSrc("data:image/png;BASE64,"+base64.StdEncoding.EncodeToString(defPNGBytes), "")))},
		{name: "PNG declared but JPEG bytes warn", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Warn, contains: "image/jpeg",
			setup: defTools(defIconTool(defIconSrc(defDataURI("image/png", defJPEGBytes), "image/png")))},
		{name: "PNG declared but unknown bytes warn", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Warn, contains: "magic bytes",
			setup: defTools(defIconTool(defIconSrc(defDataURI("image/png", []byte("hello world")), "")))},
		{name: "mimeType differing from the URI type warns", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Warn, contains: "differs",
			setup: defTools(defIconTool(defIconSrc(defDataURI("image/jpeg", defPNGBytes), "image/png")))},
		{name: "whitespace in base64 warns", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Warn, contains: "whitespace",
			setup: defTools(defIconTool(defIconSrc("data:image/png;base64,iVBO Rw0K", "")))},
		{name: "a percent-encoded data URI warns", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Warn, contains: "not base64",
			setup: defTools(defIconTool(defIconSrc("data:image/svg+xml,%3Csvg%3E%3C/svg%3E", "")))},
		{name: "a GIF is a note", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Pass, contains: "note:",
			setup: defTools(defIconTool(defIconSrc(defDataURI("image/gif", defGIFBytes), "")))},
		{name: "an SVG is a note", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Pass, contains: "cannot verify",
			setup: defTools(defIconTool(defIconSrc(defDataURI("image/svg+xml", []byte("<svg/>")), "")))},
		{name: "only https icons is not exercised", id: "TOOLS-ICONS-DATA-01", rev: "2025-11-25", want: reports.Skip, reason: reports.NotExercised,
			setup: defTools(defIconTool(defIconSrc("https://e.com/i.png", "image/png")))},
	})
}
