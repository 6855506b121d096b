package prompts

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"mime"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// prompts/get (PROMPT-GET-*): the first maxGets listed prompts, each with its
// required arguments filled with argValue, and the two error cases.

// maxGets bounds the prompts/get requests of PROMPT-GET-01 (the evidence names the
// prompts got).
const maxGets = 3

// argValue is the harmless value given to every required argument.
const argValue = "example"

// got is one prompts/get of a listed prompt.
type got struct {
	Prompt prompt
	Args   map[string]string
	Resp   *wire.Response
	Err    error
}

// gets sends prompts/get for the first maxGets named prompts, once per revision.
func gets(t *conform.T) []got {
	_, ps := named(t)
	s := t.Session()
	return t.Once("prompts.get:"+s.Label, func() any {
		var out []got
		for _, p := range ps[:min(maxGets, len(ps))] {
			args := map[string]string{}
			for _, a := range p.required() {
				args[a] = argValue
			}
			g := got{Prompt: p, Args: args}
			g.Resp, g.Err = s.Call(t.Ctx, "prompts/get", map[string]any{"name": p.Name, "arguments": args})
			out = append(out, g)
			if conform.Gone(g.Err) {
				break
			}
		}
		return out
	}).([]got)
}

// label names a get for messages: the prompt and the arguments sent.
func (g got) label() string {
	if len(g.Args) == 0 {
		return fmt.Sprintf("prompts/get %q", g.Prompt.Name)
	}
	var keys []string
	for _, a := range g.Prompt.required() {
		keys = append(keys, a+"="+argValue)
	}
	return fmt.Sprintf("prompts/get %q {%s}", g.Prompt.Name, strings.Join(keys, ", "))
}

// inputRequired reports whether a 2026-07-28 result asks for input (MOD-MRTR-01
// judges those).
func inputRequired(result json.RawMessage) bool {
	var r struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(result, &r) == nil && r.ResultType == "input_required"
}

// results returns the complete GetPromptResults of gets, with a note for each get
// that gave none.
func results(t *conform.T) ([]got, []string) {
	var ok []got
	var notes []string
	for _, g := range gets(t) {
		switch {
		case g.Err != nil:
			notes = append(notes, fmt.Sprintf("%s got no result (%s)", g.label(), conform.Describe(nil, g.Err)))
		case g.Resp.IsError():
			notes = append(notes, fmt.Sprintf("%s was refused with %s (the harmless value %q may not suit it)", g.label(), conform.Describe(g.Resp, nil), argValue))
		case inputRequired(g.Resp.Result):
			notes = append(notes, fmt.Sprintf("%s asked for input (input_required, judged by MOD-MRTR-01)", g.label()))
		default:
			ok = append(ok, g)
		}
	}
	return ok, notes
}

// completed returns the complete prompts/get results and the notes on the others,
// ending the check when none was complete (PROMPT-GET-01, PROMPT-GET-MEDIA-01).
func completed(t *conform.T) ([]got, []string) {
	ok, notes := results(t)
	if len(ok) == 0 {
		t.SkipNow(conform.NotExercised, "no prompts/get gave a complete result: %s", conform.JoinAtMost(notes, 3))
	}
	return ok, notes
}

// names lists the prompts of gets, for evidence.
func names(gs []got) string {
	var out []string
	for _, g := range gs {
		out = append(out, fmt.Sprintf("%q", g.Prompt.Name))
	}
	return strings.Join(out, ", ")
}

// PROMPT-GET-01 — {rev}/server/prompts.mdx (Getting a Prompt); schema
// GetPromptResult, PromptMessage.
var _ = conform.Register(conform.Check{
	ID: "PROMPT-GET-01", Title: "prompts/get of a listed prompt, with its required arguments, is a valid GetPromptResult",
	Run: func(t *conform.T) conform.Verdict {
		ok, notes := completed(t)
		var f conform.Findings
		f.Note(notes...)
		for _, g := range ok {
			f.Judged++
			if err := t.Rev.Validate("GetPromptResult", g.Resp.Result); err != nil {
				f.Fail(toolkit.Problems(err, g.label()))
			}
		}
		return f.Verdict("every GetPromptResult valid under the "+t.Rev.Name+" schema (roles user or assistant, the revision's content types)", "",
			fmt.Sprintf("%d prompt(s) got (%s, the first %d listed at most), each a valid GetPromptResult", len(ok), names(ok), maxGets))
	},
})

// PROMPT-GET-MEDIA-01 — {rev}/server/prompts.mdx (Image Content, Audio Content,
// Embedded Resources).
var _ = conform.Register(conform.Check{
	ID: "PROMPT-GET-MEDIA-01", Title: "image and audio content of prompt messages is base64 with a valid MIME type",
	Run: func(t *conform.T) conform.Verdict {
		ok, _ := completed(t)
		var f conform.Findings
		for _, g := range ok {
			var r struct {
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			if json.Unmarshal(g.Resp.Result, &r) != nil {
				continue // judged by PROMPT-GET-01
			}
			for i, m := range r.Messages {
				judgeMedia(&f, fmt.Sprintf("%s /messages/%d/content", g.label(), i), m.Content)
			}
		}
		if f.Judged == 0 {
			return conform.Skip(conform.NotExercised, "no image or audio content in the messages of %s", names(ok))
		}
		return f.Verdict("base64 data and a valid MIME type on every image and audio block", "",
			fmt.Sprintf("%d image or audio block(s) in the messages of %s: base64 data, valid MIME types", f.Judged, names(ok)))
	},
})

// judgeMedia judges one content block: image and audio data must decode as base64
// and the mimeType must parse as a media type.
func judgeMedia(f *conform.Findings, where string, content json.RawMessage) {
	var b struct {
		Type     string  `json:"type"`
		Data     *string `json:"data"`
		MimeType *string `json:"mimeType"`
	}
	if json.Unmarshal(content, &b) != nil || (b.Type != "image" && b.Type != "audio") {
		return
	}
	f.Judged++
	if b.Data == nil {
		f.Fail(where + ": no string data") // also a schema violation
	} else if _, err := base64.StdEncoding.DecodeString(*b.Data); err != nil {
		f.Fail(fmt.Sprintf("%s: %s data is not base64 (%v): %q", where, b.Type, err, conform.Clip(*b.Data, 40)))
	}
	if b.MimeType == nil {
		f.Fail(where + ": no string mimeType")
		return
	}
	if mt, _, err := mime.ParseMediaType(*b.MimeType); err != nil || !strings.Contains(mt, "/") {
		f.Fail(fmt.Sprintf("%s: mimeType %q is not a MIME type", where, conform.Clip(*b.MimeType, 60)))
	}
}

// PROMPT-GET-UNKNOWN-01 — {rev}/server/prompts.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "PROMPT-GET-UNKNOWN-01", Title: "prompts/get of a prompt name the server does not have is answered with -32602",
	Run: func(t *conform.T) conform.Verdict {
		requirePrompts(t)
		name := fmt.Sprintf("x_conformance_nonexistent_%08x", rand.Uint32())
		resp, err := t.Session().Call(t.Ctx, "prompts/get", map[string]any{"name": name})
		return t.ExpectRPCError(resp, err, wire.CodeInvalidParams, fmt.Sprintf("prompts/get %q (no such prompt)", name))
	},
})

// PROMPT-GET-MISSINGARG-01 — {rev}/server/prompts.mdx (Error Handling).
var _ = conform.Register(conform.Check{
	ID: "PROMPT-GET-MISSINGARG-01", Title: "prompts/get without a required argument is answered with -32602",
	Run: func(t *conform.T) conform.Verdict {
		l, ps := named(t)
		for _, p := range ps {
			if req := p.required(); len(req) > 0 {
				resp, err := t.Session().Call(t.Ctx, "prompts/get", map[string]any{"name": p.Name})
				return t.ExpectRPCError(resp, err, wire.CodeInvalidParams, fmt.Sprintf("prompts/get %q without its required argument %q", p.Name, req[0]))
			}
		}
		return conform.Skip(conform.NotExercised, "none of the %d listed prompts has a required argument%s", len(ps), l.partial())
	},
})
