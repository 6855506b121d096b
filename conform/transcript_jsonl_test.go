package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// transcriptJSONLReference is transcriptJSONL as it was written with fmt and
// json.Marshal: the test's reference for the bytes.
func transcriptJSONLReference(entries []wire.Entry, dropped int) []byte {
	quote := func(s string) string { enc, _ := json.Marshal(s); return string(enc) }
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, `{"seq":%d,"dir":%s,"at":%q,"source":%s`, e.Seq, quote(string(e.Dir)), e.At.UTC().Format(time.RFC3339Nano), quote(e.Source))
		if e.Msg != nil || json.Valid(e.Raw) {
			b.WriteString(`,"message":`)
			if bytes.ContainsAny(e.Raw, "\r\n") {
				_ = json.Compact(&b, e.Raw)
			} else {
				b.Write(bytes.TrimSpace(e.Raw))
			}
		} else {
			b.WriteString(`,"raw":` + quote(string(e.Raw)))
		}
		if e.Err != "" {
			b.WriteString(`,"problem":` + quote(e.Err))
		}
		if e.ForMethod != "" {
			b.WriteString(`,"forMethod":` + quote(e.ForMethod))
		}
		b.WriteString("}\n")
	}
	if dropped > 0 {
		fmt.Fprintf(&b, "{\"dropped\":%d}\n", dropped)
	}
	return b.Bytes()
}

// TestTranscriptJSONLAsReference: the transcript lines are byte for byte those the
// fmt and json.Marshal version wrote, for messages, raw bytes that are no JSON or
// no UTF-8, texts that need escapes (quotes, controls, <, >, &, U+2028) and times in
// other zones.
func TestTranscriptJSONLAsReference(t *testing.T) {
	at := time.Date(2026, 11, 28, 21, 43, 55, 598652616, time.UTC)
	msg := &wire.Message{}
	raws := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`),
		[]byte("  {\"jsonrpc\":\"2.0\",\n \"method\":\"x\"}\r\n"),
		[]byte(`not json`),
		[]byte("bad \xff utf-8 \"quoted\" <b>&</b>"),
		[]byte("tab\there\u2028line"),
		[]byte(``),
		[]byte(` [1, 2] `),
	}
	texts := []string{"", "stdout", "post", `say "hi"`, "<script>&", "ctrl\x01\x1f", "é ü 日本", "bad\xffbyte", "\u2028\u2029", "back\\slash"}
	var entries []wire.Entry
	for i, raw := range raws {
		for j, text := range texts {
			e := wire.Entry{Seq: i*len(texts) + j + 1, Dir: wire.Direction(texts[(i+j)%len(texts)]), Raw: raw,
				At: at.Add(time.Duration(i*j) * time.Microsecond).In(time.FixedZone("x", 3600*(j-4))), Source: text}
			if j%2 == 0 {
				e.Err = texts[(j+3)%len(texts)]
			}
			if j%3 == 0 {
				e.ForMethod = texts[(i+5)%len(texts)]
			}
			if i == 0 && j%4 == 0 {
				e.Msg = msg
			}
			entries = append(entries, e)
		}
	}
	entries = append(entries, wire.Entry{Seq: 999, Dir: wire.Sent, At: at.Truncate(time.Second), Raw: raws[0], Msg: msg})
	for _, dropped := range []int{0, 7} {
		got, want := transcriptJSONL(entries, dropped), transcriptJSONLReference(entries, dropped)
		if !bytes.Equal(got, want) {
			gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
			for i := range min(len(gl), len(wl)) {
				if !bytes.Equal(gl[i], wl[i]) {
					t.Fatalf("dropped %d, line %d:\n got %s\nwant %s", dropped, i+1, gl[i], wl[i])
				}
			}
			t.Fatalf("dropped %d: %d lines, want %d", dropped, len(gl), len(wl))
		}
	}
}
