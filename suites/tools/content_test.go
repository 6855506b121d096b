package tools

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Scripted servers for the content, structured, list_changed and progress tables.

// ctTool is one scripted tool: its definition (default: name and an object
// inputSchema) and how tools/call answers it.
type ctTool struct {
	def   string
	reply conformtest.Handler
}

// ctServe answers tools/list with the tools and tools/call by name (-32602 for an
// unknown name).
func ctServe(tools map[string]ctTool) *conformtest.Server {
	srv := conformtest.NewServer()
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	defs := make([]string, 0, len(names))
	for _, n := range names {
		d := tools[n].def
		if d == "" {
			d = fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, n)
		}
		defs = append(defs, d)
	}
	srv.Tools(defs...)
	srv.Handle("tools/call", func(req *wire.Message) []string {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Params, &p)
		tl, ok := tools[p.Name]
		if !ok || tl.reply == nil {
			return []string{conformtest.Error(req, wire.CodeInvalidParams, "unknown tool")}
		}
		return tl.reply(req)
	})
	return srv
}

// ctReply answers with a fixed CallToolResult.
func ctReply(result string) conformtest.Handler {
	return func(req *wire.Message) []string { return []string{conformtest.Result(req, result)} }
}

// ctContent is a CallToolResult with these blocks.
func ctContent(blocks ...string) string { return `{"content":[` + strings.Join(blocks, ",") + `]}` }

// ctOne serves one tool answering with a fixed result.
func ctOne(name, result string) *conformtest.Server {
	return ctServe(map[string]ctTool{name: {reply: ctReply(result)}})
}

func ctB64(b string) string { return base64.StdEncoding.EncodeToString([]byte(b)) }

var (
	ctPNG  = ctB64("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	ctWAV  = ctB64("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00")
	ctText = `{"type":"text","text":"hello"}`
)

// ctImage is an image block.
func ctImage(data, mime string) string {
	return fmt.Sprintf(`{"type":"image","data":%q,"mimeType":%q}`, data, mime)
}

// ctCase is one row of a verdict table.
type ctCase struct {
	name, id, rev string
	srv           func() *conformtest.Server
	want          reports.Status
	reason        reports.SkipReason
	opts          []func(*conform.Config)
	contains      string // a substring the message must contain ("" for any)
}

func ctRun(t *testing.T, cases []ctCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.id+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			v := conformtest.Judge(t, tc.id, tc.rev, tc.srv(), tc.opts...)
			t.Logf("%s %s: %s", v.Status, v.Reason, v.Message)
			if v.Status != tc.want {
				t.Fatalf("status %s, want %s (%s)", v.Status, tc.want, v.Message)
			}
			if tc.reason != "" && v.Reason != tc.reason {
				t.Errorf("skip reason %s, want %s (%s)", v.Reason, tc.reason, v.Message)
			}
			if tc.contains != "" && !strings.Contains(v.Message, tc.contains) {
				t.Errorf("message %q does not contain %q", v.Message, tc.contains)
			}
		})
	}
}

func noTools() *conformtest.Server { return conformtest.NewServer() }

func TestContentVerdicts(t *testing.T) {
	blobOK := fmt.Sprintf(`{"type":"resource","resource":{"uri":"test://b","mimeType":"image/png","blob":%q}}`, ctPNG)
	textRes := `{"type":"resource","resource":{"uri":"test://t","mimeType":"text/plain","text":"x"}}`
	link := `{"type":"resource_link","uri":"test://linked/readme.txt","name":"readme.txt"}`
	annotated := func(a string) string { return `{"type":"text","text":"x","annotations":` + a + `}` }
	cases := []ctCase{
		// CONTENT-TEXT-01
		{name: "valid text passes", id: "CONTENT-TEXT-01", rev: "2025-06-18", srv: func() *conformtest.Server { return ctOne("test_simple_text", ctContent(ctText)) }, want: reports.Pass},
		{name: "non-string text fails", id: "CONTENT-TEXT-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_simple_text", ctContent(`{"type":"text","text":5}`))
		}, want: reports.Fail, contains: "/content/0/text"},
		{name: "no tools needs the fixture", id: "CONTENT-TEXT-01", rev: "2024-11-05", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},
		{name: "fixture without text is not exercised", id: "CONTENT-TEXT-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctOne("test_simple_text", ctContent(ctImage(ctPNG, "image/png")))
		}, want: reports.Skip, reason: reports.NotExercised},
		{name: "an --call tool counts", id: "CONTENT-TEXT-01", rev: "2025-03-26", srv: func() *conformtest.Server { return ctOne("weather", ctContent(ctText)) },
			opts: []func(*conform.Config){func(c *conform.Config) { c.Calls = []conform.CallSpec{{Name: "weather"}} }}, want: reports.Pass, contains: "weather"},
		{name: "a tool not allowed is never called", id: "CONTENT-TEXT-01", rev: "2025-03-26", srv: func() *conformtest.Server { return ctOne("weather", ctContent(ctText)) }, want: reports.Skip, reason: reports.NeedsFixture},

		// CONTENT-IMAGE-01
		{name: "PNG passes", id: "CONTENT-IMAGE-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctPNG, "image/png")))
		}, want: reports.Pass},
		{name: "base64 with a line break fails", id: "CONTENT-IMAGE-01", rev: "2025-11-25", srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctPNG[:8]+"\n"+ctPNG[8:], "image/png")))
		}, want: reports.Fail, contains: "/content/0/data"},
		{name: "PNG declared as JPEG warns", id: "CONTENT-IMAGE-01", rev: "2025-11-25", srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctPNG, "image/jpeg")))
		}, want: reports.Warn, contains: "image/png"},
		{name: "PNG without signature warns", id: "CONTENT-IMAGE-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctB64("not an image at all"), "image/png")))
		}, want: reports.Warn, contains: "signature"},
		{name: "unsniffable type passes", id: "CONTENT-IMAGE-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(ctImage(ctB64("<svg/>"), "image/svg+xml")))
		}, want: reports.Pass},
		{name: "missing mimeType fails", id: "CONTENT-IMAGE-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_image_content", ctContent(fmt.Sprintf(`{"type":"image","data":%q}`, ctPNG)))
		}, want: reports.Fail, contains: "mimeType"},
		{name: "no image needs the fixture", id: "CONTENT-IMAGE-01", rev: "2025-06-18", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// CONTENT-AUDIO-01
		{name: "WAV passes", id: "CONTENT-AUDIO-01", rev: "2025-03-26", srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(fmt.Sprintf(`{"type":"audio","data":%q,"mimeType":"audio/wav"}`, ctWAV)))
		}, want: reports.Pass},
		{name: "WAV declared as MP3 warns", id: "CONTENT-AUDIO-01", rev: "2025-11-25", srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(fmt.Sprintf(`{"type":"audio","data":%q,"mimeType":"audio/mpeg"}`, ctWAV)))
		}, want: reports.Warn},
		{name: "URL-safe base64 fails", id: "CONTENT-AUDIO-01", rev: "2025-11-25", srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(`{"type":"audio","data":"ab-_","mimeType":"audio/wav"}`))
		}, want: reports.Fail},
		{name: "no audio needs the fixture", id: "CONTENT-AUDIO-01", rev: "2025-03-26", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// CONTENT-AUDIO-R1-01
		{name: "text fallback passes", id: "CONTENT-AUDIO-R1-01", rev: "2024-11-05", srv: func() *conformtest.Server { return ctOne("test_audio_content", ctContent(ctText)) }, want: reports.Pass, contains: "text"},
		{name: "an error passes", id: "CONTENT-AUDIO-R1-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctServe(map[string]ctTool{"test_audio_content": {reply: func(req *wire.Message) []string {
				return []string{conformtest.Error(req, -32603, "no audio in 2024-11-05")}
			}}})
		}, want: reports.Pass},
		{name: "audio in 2024-11-05 warns", id: "CONTENT-AUDIO-R1-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(fmt.Sprintf(`{"type":"audio","data":%q,"mimeType":"audio/wav"}`, ctWAV)))
		}, want: reports.Warn},
		{name: "silence warns", id: "CONTENT-AUDIO-R1-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctServe(map[string]ctTool{"test_audio_content": {reply: func(*wire.Message) []string { return nil }}})
		}, want: reports.Warn, contains: "no reply"},
		{name: "no fixture needs the fixture", id: "CONTENT-AUDIO-R1-01", rev: "2024-11-05", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// CONTENT-RESLINK-01
		{name: "link passes", id: "CONTENT-RESLINK-01", rev: "2025-06-18", srv: func() *conformtest.Server { return ctOne("test_resource_link", ctContent(link)) }, want: reports.Pass},
		{name: "relative uri fails", id: "CONTENT-RESLINK-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_resource_link", ctContent(`{"type":"resource_link","uri":"readme.txt","name":"r"}`))
		}, want: reports.Fail, contains: "scheme"},
		{name: "missing name fails", id: "CONTENT-RESLINK-01", rev: "2025-11-25", srv: func() *conformtest.Server {
			return ctOne("test_resource_link", ctContent(`{"type":"resource_link","uri":"test://x"}`))
		}, want: reports.Fail, contains: "name"},
		{name: "no link needs the fixture", id: "CONTENT-RESLINK-01", rev: "2025-11-25", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// CONTENT-RESLINK-R12-01
		{name: "text fallback passes", id: "CONTENT-RESLINK-R12-01", rev: "2025-03-26", srv: func() *conformtest.Server { return ctOne("test_resource_link", ctContent(ctText)) }, want: reports.Pass},
		{name: "resource_link in 2024-11-05 warns", id: "CONTENT-RESLINK-R12-01", rev: "2024-11-05", srv: func() *conformtest.Server { return ctOne("test_resource_link", ctContent(link)) }, want: reports.Warn},
		{name: "isError fallback passes", id: "CONTENT-RESLINK-R12-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctOne("test_resource_link", `{"content":[{"type":"text","text":"unavailable"}],"isError":true}`)
		}, want: reports.Pass},
		{name: "no fixture needs the fixture", id: "CONTENT-RESLINK-R12-01", rev: "2025-03-26", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// CONTENT-EMBED-01
		{name: "text and blob pass", id: "CONTENT-EMBED-01", rev: "2025-06-18", srv: func() *conformtest.Server { return ctOne("test_embedded_resource", ctContent(textRes, blobOK)) }, want: reports.Pass},
		{name: "bad blob fails", id: "CONTENT-EMBED-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctOne("test_embedded_resource", ctContent(`{"type":"resource","resource":{"uri":"test://b","blob":"abc"}}`))
		}, want: reports.Fail, contains: "/resource/blob"},
		{name: "missing uri fails", id: "CONTENT-EMBED-01", rev: "2025-11-25", srv: func() *conformtest.Server {
			return ctOne("test_embedded_resource", ctContent(`{"type":"resource","resource":{"text":"x"}}`))
		}, want: reports.Fail},
		{name: "no resource needs the fixture", id: "CONTENT-EMBED-01", rev: "2025-11-25", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// CONTENT-EMBED-CAP-01
		{name: "declared resources passes", id: "CONTENT-EMBED-CAP-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			s := ctOne("test_embedded_resource", ctContent(textRes))
			s.Capabilities = `{"tools":{"listChanged":true},"resources":{}}`
			return s
		}, want: reports.Pass},
		{name: "undeclared resources warns", id: "CONTENT-EMBED-CAP-01", rev: "2025-06-18", srv: func() *conformtest.Server { return ctOne("test_embedded_resource", ctContent(textRes)) }, want: reports.Warn, contains: "resources"},
		{name: "no resource needs the fixture", id: "CONTENT-EMBED-CAP-01", rev: "2025-11-25", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// CONTENT-ANNOT-01
		{name: "valid annotations pass", id: "CONTENT-ANNOT-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"}`)))
		}, want: reports.Pass},
		{name: "valid 2024-11-05 annotations pass", id: "CONTENT-ANNOT-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"audience":["user"],"priority":1}`)))
		}, want: reports.Pass},
		{name: "priority 2 fails", id: "CONTENT-ANNOT-01", rev: "2025-03-26", srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"priority":2}`)))
		}, want: reports.Fail, contains: "/annotations/priority"},
		{name: "audience robot fails in 2024-11-05", id: "CONTENT-ANNOT-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"audience":["robot"]}`)))
		}, want: reports.Fail, contains: "/annotations/audience/0"},
		{name: "no annotations needs the fixture", id: "CONTENT-ANNOT-01", rev: "2024-11-05", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},

		// CONTENT-ANNOT-LASTMOD-01
		{name: "RFC 3339 passes", id: "CONTENT-ANNOT-LASTMOD-01", rev: "2025-11-25", srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"lastModified":"2025-01-12T15:00:58.123+02:00"}`)))
		}, want: reports.Pass},
		{name: "free text warns", id: "CONTENT-ANNOT-LASTMOD-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"lastModified":"yesterday"}`)))
		}, want: reports.Warn, contains: "yesterday"},
		{name: "no lastModified is not exercised", id: "CONTENT-ANNOT-LASTMOD-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_annotated_content", ctContent(annotated(`{"priority":0.1}`)))
		}, want: reports.Skip, reason: reports.NotExercised},

		// CONTENT-UNKNOWN-TYPE-01
		{name: "known types pass", id: "CONTENT-UNKNOWN-TYPE-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(ctText, link, textRes))
		}, want: reports.Pass},
		{name: "video fails from 2025-06-18", id: "CONTENT-UNKNOWN-TYPE-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_simple_text", ctContent(`{"type":"video","data":"x"}`))
		}, want: reports.Fail, contains: "video"},
		{name: "audio warns in 2024-11-05", id: "CONTENT-UNKNOWN-TYPE-01", rev: "2024-11-05", srv: func() *conformtest.Server {
			return ctOne("test_audio_content", ctContent(fmt.Sprintf(`{"type":"audio","data":%q,"mimeType":"audio/wav"}`, ctWAV)))
		}, want: reports.Warn, contains: "audio"},
		{name: "block without type fails", id: "CONTENT-UNKNOWN-TYPE-01", rev: "2025-11-25", srv: func() *conformtest.Server { return ctOne("test_simple_text", ctContent(`{"text":"x"}`)) }, want: reports.Fail},
		{name: "no blocks are not exercised", id: "CONTENT-UNKNOWN-TYPE-01", rev: "2025-11-25", srv: noTools, want: reports.Skip, reason: reports.NotExercised},

		// CONTENT-MIXED-01
		{name: "three types pass", id: "CONTENT-MIXED-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(ctText, ctImage(ctPNG, "image/png"), textRes))
		}, want: reports.Pass},
		{name: "one type is a note", id: "CONTENT-MIXED-01", rev: "2025-06-18", srv: func() *conformtest.Server { return ctOne("test_multiple_content_types", ctContent(ctText, ctText)) }, want: reports.Pass, contains: "note:"},
		{name: "an invalid block warns", id: "CONTENT-MIXED-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", ctContent(ctText, `{"type":"image","data":"x"}`))
		}, want: reports.Warn},
		{name: "isError is not exercised", id: "CONTENT-MIXED-01", rev: "2025-06-18", srv: func() *conformtest.Server {
			return ctOne("test_multiple_content_types", `{"content":[],"isError":true}`)
		}, want: reports.Skip, reason: reports.NotExercised},
		{name: "no fixture needs the fixture", id: "CONTENT-MIXED-01", rev: "2024-11-05", srv: noTools, want: reports.Skip, reason: reports.NeedsFixture},
	}
	ctRun(t, cases)
}

func TestURIProblem(t *testing.T) {
	for uri, ok := range map[string]bool{
		"test://linked/readme.txt": true, "file:///a/b": true, "urn:isbn:0451450523": true, "https://x.example/a?b#c": true,
		"readme.txt": false, "/abs/path": false, "://x": false, "": false,
	} {
		if got := ctURIProblem(uri) == ""; got != ok {
			t.Errorf("ctURIProblem(%q) ok = %v, want %v", uri, got, ok)
		}
	}
}
