package transport

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/mcp-conform/mcp-conform/internal/redact"
)

// TestReadBody holds readBody to io.ReadAll's result whatever the declared length
// says, and to the max bound.
func TestReadBody(t *testing.T) {
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
			got, long, err := readBody(bytes.NewReader(body), tc.declared, tc.max)
			if err != nil || long != tc.long || !bytes.Equal(got, body[:tc.want]) {
				t.Fatalf("readBody = %d bytes, long %v, %v; want %d bytes, long %v", len(got), long, err, tc.want, tc.long)
			}
		})
	}
	broken := errors.New("connection reset")
	got, _, err := readBody(io.MultiReader(bytes.NewReader(body[:100]), errReader{broken}), 3000, 1<<20)
	if !errors.Is(err, broken) || len(got) != 100 {
		t.Fatalf("readBody of a broken body = %d bytes, %v; want the 100 bytes read and the error", len(got), err)
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
