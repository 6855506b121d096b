package tools

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Scripted servers for the content and structured tables (conformtest).
type (
	ctTool = conformtest.Tool
	ctCase = conformtest.Case
)

var (
	ctServe   = conformtest.ServeTools
	ctReply   = conformtest.Reply
	ctContent = conformtest.Content
	ctRun     = conformtest.RunCases
)

// ctOne serves one tool answering with a fixed result.
func ctOne(name, result string) *conformtest.Server {
	return ctServe(map[string]ctTool{name: {Reply: ctReply(result)}})
}

func ctB64(b string) string { return base64.StdEncoding.EncodeToString([]byte(b)) }

var (
	ctPNG  = ctB64("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	ctWAV  = ctB64("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00")
	ctText = conformtest.TextBlock
)

// ctImage is an image block.
func ctImage(data, mime string) string {
	return fmt.Sprintf(`{"type":"image","data":%q,"mimeType":%q}`, data, mime)
}

func noTools() *conformtest.Server { return conformtest.NewServer() }

func TestContentVerdicts(t *testing.T) {
	blobOK := fmt.Sprintf(`{"type":"resource","resource":{"uri":"test://b","mimeType":"image/png","blob":%q}}`, ctPNG)
	textRes := `{"type":"resource","resource":{"uri":"test://t","mimeType":"text/plain","text":"x"}}`
	link := `{"type":"resource_link","uri":"test://linked/readme.txt","name":"readme.txt"}`
	annotated := func(a string) string { return `{"type":"text","text":"x","annotations":` + a + `}` }
	cases := []ctCase{
		// CONTENT-TEXT-01
		{Name: "valid text passes", ID: "CONTENT-TEXT-01", Rev: "2025-06-18", Srv: func() *conformtest.Server { return ctOne("test_simple_text", ctContent(ctText)) }, Want: reports.Pass},
		{Name: "non-string text fails", ID: "CONTENT-TEXT-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_simple_text", ctContent(`{"type":"text","text":5}`))
		}, Want: reports.Fail, Contains: "/content/0/text"},
		{Name: "no tools needs the fixture", ID: "CONTENT-TEXT-01", Rev: "2024-11-05", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},
		{Name: "fixture without text is not exercised", ID: "CONTENT-TEXT-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_simple_text", ctContent(ctImage(ctPNG, "image/png")))
		}, Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "an --call tool counts", ID: "CONTENT-TEXT-01", Rev: "2025-03-26", Srv: func() *conformtest.Server { return ctOne("weather", ctContent(ctText)) },
			Opts: []func(*conform.Config){func(c *conform.Config) { c.Calls = []conform.CallSpec{{Name: "weather"}} }}, Want: reports.Pass, Contains: "weather"},
		{Name: "a tool not allowed is never called", ID: "CONTENT-TEXT-01", Rev: "2025-03-26", Srv: func() *conformtest.Server { return ctOne("weather", ctContent(ctText)) }, Want: reports.Skip, Reason: reports.NeedsFixture},

		// CONTENT-IMAGE-01
		{Name: "PNG passes", ID: "CONTENT-IMAGE-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctPNG, "image/png")))
		}, Want: reports.Pass},
		{Name: "base64 with a line break fails", ID: "CONTENT-IMAGE-01", Rev: "2025-11-25", Srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctPNG[:8]+"\n"+ctPNG[8:], "image/png")))
		}, Want: reports.Fail, Contains: "/content/0/data"},
		{Name: "PNG declared as JPEG warns", ID: "CONTENT-IMAGE-01", Rev: "2025-11-25", Srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctPNG, "image/jpeg")))
		}, Want: reports.Warn, Contains: "image/png"},
		{Name: "PNG without signature warns", ID: "CONTENT-IMAGE-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctB64("not an image at all"), "image/png")))
		}, Want: reports.Warn, Contains: "signature"},
		{Name: "unsniffable type passes", ID: "CONTENT-IMAGE-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctB64("<svg/>"), "image/svg+xml")))
		}, Want: reports.Pass},
		{Name: "missing mimeType fails", ID: "CONTENT-IMAGE-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(fmt.Sprintf(`{"type":"image","data":%q}`, ctPNG)))
		}, Want: reports.Fail, Contains: "mimeType"},
		{Name: "no image needs the fixture", ID: "CONTENT-IMAGE-01", Rev: "2025-06-18", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// CONTENT-AUDIO-01
		{Name: "WAV passes", ID: "CONTENT-AUDIO-01", Rev: "2025-03-26", Srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(fmt.Sprintf(`{"type":"audio","data":%q,"mimeType":"audio/wav"}`, ctWAV)))
		}, Want: reports.Pass},
		{Name: "WAV declared as MP3 warns", ID: "CONTENT-AUDIO-01", Rev: "2025-11-25", Srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(fmt.Sprintf(`{"type":"audio","data":%q,"mimeType":"audio/mpeg"}`, ctWAV)))
		}, Want: reports.Warn},
		{Name: "URL-safe base64 fails", ID: "CONTENT-AUDIO-01", Rev: "2025-11-25", Srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(`{"type":"audio","data":"ab-_","mimeType":"audio/wav"}`))
		}, Want: reports.Fail},
		{Name: "no audio needs the fixture", ID: "CONTENT-AUDIO-01", Rev: "2025-03-26", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// CONTENT-AUDIO-R1-01
		{Name: "text fallback passes", ID: "CONTENT-AUDIO-R1-01", Rev: "2024-11-05", Srv: func() *conformtest.Server { return ctOne("test_audio_content", ctContent(ctText)) }, Want: reports.Pass, Contains: "text"},
		{Name: "an error passes", ID: "CONTENT-AUDIO-R1-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctServe(map[string]ctTool{"test_audio_content": {Reply: func(req *wire.Message) []string {
				return []string{conformtest.Error(req, -32603, "no audio in 2024-11-05")}
			}}})
		}, Want: reports.Pass},
		{Name: "audio in 2024-11-05 warns", ID: "CONTENT-AUDIO-R1-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(fmt.Sprintf(`{"type":"audio","data":%q,"mimeType":"audio/wav"}`, ctWAV)))
		}, Want: reports.Warn},
		{Name: "silence warns", ID: "CONTENT-AUDIO-R1-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctServe(map[string]ctTool{"test_audio_content": {Reply: func(*wire.Message) []string { return nil }}})
		}, Want: reports.Warn, Contains: "no reply"},
		{Name: "no fixture needs the fixture", ID: "CONTENT-AUDIO-R1-01", Rev: "2024-11-05", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// CONTENT-RESLINK-01
		{Name: "link passes", ID: "CONTENT-RESLINK-01", Rev: "2025-06-18", Srv: func() *conformtest.Server { return ctOne("test_resource_link", ctContent(link)) }, Want: reports.Pass},
		{Name: "relative uri fails", ID: "CONTENT-RESLINK-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_resource_link", ctContent(`{"type":"resource_link","uri":"readme.txt","name":"r"}`))
		}, Want: reports.Fail, Contains: "scheme"},
		{Name: "missing name fails", ID: "CONTENT-RESLINK-01", Rev: "2025-11-25", Srv: func() *conformtest.Server {
			return ctOne("test_resource_link", ctContent(`{"type":"resource_link","uri":"test://x"}`))
		}, Want: reports.Fail, Contains: "name"},
		{Name: "no link needs the fixture", ID: "CONTENT-RESLINK-01", Rev: "2025-11-25", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// CONTENT-RESLINK-R12-01
		{Name: "text fallback passes", ID: "CONTENT-RESLINK-R12-01", Rev: "2025-03-26", Srv: func() *conformtest.Server { return ctOne("test_resource_link", ctContent(ctText)) }, Want: reports.Pass},
		{Name: "resource_link in 2024-11-05 warns", ID: "CONTENT-RESLINK-R12-01", Rev: "2024-11-05", Srv: func() *conformtest.Server { return ctOne("test_resource_link", ctContent(link)) }, Want: reports.Warn},
		{Name: "isError fallback passes", ID: "CONTENT-RESLINK-R12-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_resource_link", `{"content":[{"type":"text","text":"unavailable"}],"isError":true}`)
		}, Want: reports.Pass},
		{Name: "no fixture needs the fixture", ID: "CONTENT-RESLINK-R12-01", Rev: "2025-03-26", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// CONTENT-EMBED-01
		{Name: "text and blob pass", ID: "CONTENT-EMBED-01", Rev: "2025-06-18", Srv: func() *conformtest.Server { return ctOne("test_embedded_resource", ctContent(textRes, blobOK)) }, Want: reports.Pass},
		{Name: "bad blob fails", ID: "CONTENT-EMBED-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_embedded_resource", ctContent(`{"type":"resource","resource":{"uri":"test://b","blob":"abc"}}`))
		}, Want: reports.Fail, Contains: "/resource/blob"},
		{Name: "missing uri fails", ID: "CONTENT-EMBED-01", Rev: "2025-11-25", Srv: func() *conformtest.Server {
			return ctOne("test_embedded_resource", ctContent(`{"type":"resource","resource":{"text":"x"}}`))
		}, Want: reports.Fail},
		{Name: "no resource needs the fixture", ID: "CONTENT-EMBED-01", Rev: "2025-11-25", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// CONTENT-EMBED-CAP-01
		{Name: "declared resources passes", ID: "CONTENT-EMBED-CAP-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			s := ctOne("test_embedded_resource", ctContent(textRes))
			s.Capabilities = `{"tools":{"listChanged":true},"resources":{}}`
			return s
		}, Want: reports.Pass},
		{Name: "undeclared resources warns", ID: "CONTENT-EMBED-CAP-01", Rev: "2025-06-18", Srv: func() *conformtest.Server { return ctOne("test_embedded_resource", ctContent(textRes)) }, Want: reports.Warn, Contains: "resources"},
		{Name: "no resource needs the fixture", ID: "CONTENT-EMBED-CAP-01", Rev: "2025-11-25", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// CONTENT-ANNOT-01
		{Name: "valid annotations pass", ID: "CONTENT-ANNOT-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"}`)))
		}, Want: reports.Pass},
		{Name: "valid 2024-11-05 annotations pass", ID: "CONTENT-ANNOT-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"audience":["user"],"priority":1}`)))
		}, Want: reports.Pass},
		{Name: "priority 2 fails", ID: "CONTENT-ANNOT-01", Rev: "2025-03-26", Srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"priority":2}`)))
		}, Want: reports.Fail, Contains: "/annotations/priority"},
		{Name: "audience robot fails in 2024-11-05", ID: "CONTENT-ANNOT-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"audience":["robot"]}`)))
		}, Want: reports.Fail, Contains: "/annotations/audience/0"},
		{Name: "no annotations needs the fixture", ID: "CONTENT-ANNOT-01", Rev: "2024-11-05", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},

		// CONTENT-ANNOT-LASTMOD-01
		{Name: "RFC 3339 passes", ID: "CONTENT-ANNOT-LASTMOD-01", Rev: "2025-11-25", Srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"lastModified":"2025-01-12T15:00:58.123+02:00"}`)))
		}, Want: reports.Pass},
		{Name: "free text warns", ID: "CONTENT-ANNOT-LASTMOD-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"lastModified":"yesterday"}`)))
		}, Want: reports.Warn, Contains: "yesterday"},
		{Name: "no lastModified is not exercised", ID: "CONTENT-ANNOT-LASTMOD-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"priority":0.1}`)))
		}, Want: reports.Skip, Reason: reports.NotExercised},

		// CONTENT-UNKNOWN-TYPE-01
		{Name: "known types pass", ID: "CONTENT-UNKNOWN-TYPE-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(ctText, link, textRes))
		}, Want: reports.Pass},
		{Name: "video fails from 2025-06-18", ID: "CONTENT-UNKNOWN-TYPE-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_simple_text", ctContent(`{"type":"video","data":"x"}`))
		}, Want: reports.Fail, Contains: "video"},
		{Name: "audio warns in 2024-11-05", ID: "CONTENT-UNKNOWN-TYPE-01", Rev: "2024-11-05", Srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(fmt.Sprintf(`{"type":"audio","data":%q,"mimeType":"audio/wav"}`, ctWAV)))
		}, Want: reports.Warn, Contains: "audio"},
		{Name: "block without type fails", ID: "CONTENT-UNKNOWN-TYPE-01", Rev: "2025-11-25", Srv: func() *conformtest.Server { return ctOne("test_simple_text", ctContent(`{"text":"x"}`)) }, Want: reports.Fail},
		{Name: "no blocks are not exercised", ID: "CONTENT-UNKNOWN-TYPE-01", Rev: "2025-11-25", Srv: noTools, Want: reports.Skip, Reason: reports.NotExercised},

		// CONTENT-MIXED-01
		{Name: "three types pass", ID: "CONTENT-MIXED-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(ctText, ctImage(ctPNG, "image/png"), textRes))
		}, Want: reports.Pass},
		{Name: "one type is a note", ID: "CONTENT-MIXED-01", Rev: "2025-06-18", Srv: func() *conformtest.Server { return ctOne("test_multiple_content_types", ctContent(ctText, ctText)) }, Want: reports.Pass, Contains: "note:"},
		{Name: "an invalid block warns", ID: "CONTENT-MIXED-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(ctText, `{"type":"image","data":"x"}`))
		}, Want: reports.Warn},
		{Name: "isError is not exercised", ID: "CONTENT-MIXED-01", Rev: "2025-06-18", Srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", `{"content":[],"isError":true}`)
		}, Want: reports.Skip, Reason: reports.NotExercised},
		{Name: "no fixture needs the fixture", ID: "CONTENT-MIXED-01", Rev: "2024-11-05", Srv: noTools, Want: reports.Skip, Reason: reports.NeedsFixture},
	}
	ctRun(t, cases)
}

func TestURIProblem(t *testing.T) {
	for uri, ok := range map[string]bool{
		"test://linked/readme.txt": true, "file:///a/b": true, "urn:isbn:0451450523": true, "https://x.example/a?b#c": true,
		"readme.txt": false, "/abs/path": false, "://x": false, "": false,
	} {
		if got := toolkit.URIProblem(uri) == ""; got != ok {
			t.Errorf("toolkit.URIProblem(%q) ok = %v, want %v", uri, got, ok)
		}
	}
}
