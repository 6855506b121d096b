package transport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/redact"
)

// TestReadReply holds readReply to io.ReadAll's result whatever the declared length
// says, and to the max bound, for a body that ends.
func TestReadReply(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 3000)
	for _, tc := range []struct {
		name     string
		declared int64
		max      int
		want     int
		long     bool
	}{
		{"declared", 3000, 1 << 20, 3000, false},
		{"unknown length", -1, 1 << 20, 3000, false},
		{"declared too short", 10, 1 << 20, 3000, false},
		{"declared too long", 9000, 1 << 20, 3000, false},
		{"empty body declared", 0, 1 << 20, 3000, false},
		{"over the bound", 3000, 1000, 1000, true},
		{"over the bound, unknown length", -1, 1000, 1000, true},
		{"exactly the bound", 3000, 3000, 3000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, end, err := readReply(bytes.NewReader(body), tc.declared, tc.max)
			if err != nil || (end == replyLong) != tc.long || !bytes.Equal(got, body[:tc.want]) {
				t.Fatalf("readReply = %d bytes, end %d, %v; want %d bytes, long %v", len(got), end, err, tc.want, tc.long)
			}
		})
	}
	broken := errors.New("connection reset")
	got, _, err := readReply(io.MultiReader(bytes.NewReader(body[:100]), errReader{broken}), 3000, 1<<20)
	if !errors.Is(err, broken) || len(got) != 100 {
		t.Fatalf("readReply of a broken body = %d bytes, %v; want the 100 bytes read and the error", len(got), err)
	}
}

// errStillOpen is what an openBody returns once its chunks are read: the body has
// not ended, and a real one would block here.
var errStillOpen = errors.New("the body is still open")

// openBody returns one chunk per read, then errStillOpen.
type openBody struct{ chunks []string }

func (b *openBody) Read(p []byte) (int, error) {
	if len(b.chunks) == 0 {
		return 0, errStillOpen
	}
	n := copy(p, b.chunks[0])
	if b.chunks[0] = b.chunks[0][n:]; b.chunks[0] == "" {
		b.chunks = b.chunks[1:]
	}
	return n, nil
}

// TestReadReplySettles: a body still open is settled by its first JSON value as soon
// as the value is complete (strings, escapes and nesting are followed across reads),
// and by what follows it; one whose value is not complete, or not an object or
// array, waits for its end (errStillOpen here).
func TestReadReplySettles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		end    replyEnd
		waited bool // readReply read on to errStillOpen
		body   string
	}{
		{"one value and a newline", []string{"{\"a\":1}\n"}, replyOpen, false, "{\"a\":1}\n"},
		{"value across reads", []string{`{"a":`, `[1,`, `{}]}`}, replyOpen, false, `{"a":[1,{}]}`},
		{"brackets in a string", []string{`{"a":"}]"`, `}`}, replyOpen, false, `{"a":"}]"}`},
		{"escaped quote", []string{`{"a":"\"}"}`}, replyOpen, false, `{"a":"\"}"}`},
		{"escape split across reads", []string{`{"a":"\`, `"}`, `"}`}, replyOpen, false, `{"a":"\"}"}`},
		{"batch", []string{` [{"id":1},{"id":2}] `}, replyOpen, false, ` [{"id":1},{"id":2}] `},
		{"two values at once", []string{"{\"a\":1}\n{\"b\":2}\n"}, replyMore, false, "{\"a\":1}\n{\"b\":2}\n"},
		{"a second value in the read that ends the first", []string{`{"a":`, "1}  \n{\"b\""}, replyMore, false, "{\"a\":1}  \n{\"b\""},
		{"value not complete", []string{`{"a":{"b":1}`}, replyEnded, true, `{"a":{"b":1}`},
		{"string value waits for the end", []string{`"done"`}, replyEnded, true, `"done"`},
		{"garbage waits for the end", []string{`<html>{}</html>`}, replyEnded, true, `<html>{}</html>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, end, err := readReply(&openBody{chunks: append([]string(nil), tc.chunks...)}, -1, 1<<20)
			if waited := errors.Is(err, errStillOpen); waited != tc.waited || (err != nil && !waited) {
				t.Fatalf("readReply error %v; want waiting for the end %v", err, tc.waited)
			}
			if end != tc.end || string(got) != tc.body {
				t.Fatalf("readReply = %q, end %d; want %q, end %d", got, end, tc.body, tc.end)
			}
		})
	}
}

// TestReadRest: after a delivered value, whitespace up to the end is nothing to
// report; other bytes are returned as soon as they come; an endless run of
// whitespace ends at the bound.
func TestReadRest(t *testing.T) {
	broken := errors.New("connection reset")
	for _, tc := range []struct {
		name string
		r    io.Reader
		rest string
		err  error
	}{
		{"whitespace then the end", strings.NewReader(" \r\n\t"), "", nil},
		{"nothing", strings.NewReader(""), "", nil},
		{"a second frame", &openBody{chunks: []string{"\n", `{"jsonrpc":"2.0"}`}}, `{"jsonrpc":"2.0"}`, nil},
		{"whitespace past the bound", &openBody{chunks: []string{strings.Repeat(" ", 600), strings.Repeat(" ", 600)}}, "", ErrBodyNotEnded},
		{"a broken connection", io.MultiReader(strings.NewReader("\n"), errReader{broken}), "", broken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rest, err := readRest(tc.r, 1000)
			if string(rest) != tc.rest || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("readRest = %q, %v; want %q, %v", rest, err, tc.rest, tc.err)
			}
		})
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestCheckFrame: a frame is marked JSON exactly when nothing makes it unusable, and
// a redaction that changes its bytes takes the mark away (the mask may land inside
// an escape sequence).
func TestCheckFrame(t *testing.T) {
	for _, tc := range []struct {
		data string
		json bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, true},
		{`{"jsonrpc":"2.0",`, false},
		{"{\"a\":\"\xff\"}", false},
		{``, false},
	} {
		f := Frame{Data: []byte(tc.data)}
		checkFrame(&f)
		if f.JSON != tc.json || (f.Err == nil) != tc.json {
			t.Errorf("checkFrame(%q): JSON %v, Err %v; want JSON %v", tc.data, f.JSON, f.Err, tc.json)
		}
	}
	h := &httpBase{secrets: redact.New([]string{"s3cret"})}
	for _, tc := range []struct {
		data string
		json bool
	}{
		{`{"result":"nothing secret"}`, true},
		{`{"result":"the s3cret"}`, false},
	} {
		f := Frame{Data: []byte(tc.data)}
		checkFrame(&f)
		if got := h.scrubFrame(f); got.JSON != tc.json {
			t.Errorf("scrubFrame(%q).JSON = %v, want %v", tc.data, got.JSON, tc.json)
		}
	}
}
