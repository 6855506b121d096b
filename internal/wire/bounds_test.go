package wire

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// TestRejectedReplyEndsTheCallAtOnce: a reply the transport rejected (too large, not
// UTF-8) fails the call it answers with what came back, long before the timeout.
func TestRejectedReplyEndsTheCallAtOnce(t *testing.T) {
	tooBig := &transport.TooLargeError{What: "a line", Size: 50 << 20, Exact: true, Max: 8 << 20}
	tests := []struct {
		name    string
		frame   func(id string) transport.Frame
		wantIs  error
		wantMsg string
	}{
		{"oversize reply with its id", func(id string) transport.Frame {
			return transport.Frame{Data: []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"x":"aaaa`), Err: tooBig}
		}, transport.ErrFrameTooLarge, "a line of 52428800 bytes exceeded the bound of 8388608 bytes"},
		{"oversize reply whose id is past the head", func(string) transport.Frame {
			return transport.Frame{Data: []byte(`{"jsonrpc":"2.0","result":{"x":"aaaa`), Err: tooBig}
		}, transport.ErrFrameTooLarge, "52428800 bytes"},
		{"reply that is not UTF-8", func(id string) transport.Frame {
			return transport.Frame{Data: []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"x":"` + "\xff" + `"}}`), Err: transport.ErrNotUTF8}
		}, transport.ErrNotUTF8, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(func(f *fakeTransport, msg []byte) {
				m, _ := Decode(msg)
				fr := tt.frame(m.ID.String())
				f.in <- fr
			})
			c := NewConn(f, Options{RequestTimeout: time.Minute})
			defer c.Close(context.Background())
			start := time.Now()
			_, err := c.Call(context.Background(), "tools/list", nil)
			if !errors.Is(err, ErrRejectedReply) || !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Call error = %v; want ErrRejectedReply and %v containing %q", err, tt.wantIs, tt.wantMsg)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("the call waited %s", d)
			}
		})
	}
}

// TestOversizeEventOnAPostStream: an oversize frame whose id is past its kept head is
// the reply of the call whose POST stream carried it, even with other calls pending;
// one on no pending call's stream fails none of them.
func TestOversizeEventOnAPostStream(t *testing.T) {
	tooBig := &transport.TooLargeError{What: "an SSE event", Size: 100 << 20, Max: 8 << 20}
	tests := []struct {
		name     string
		stream   func(id string) string // the Frame.Stream of the oversize event
		rejected bool                   // the call fails with it at once
	}{
		{"the call's own stream", func(id string) string { return id }, true},
		{"another request's stream", func(string) string { return `"gone"` }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(func(f *fakeTransport, msg []byte) {
				m, _ := Decode(msg)
				if m.Method != "tools/list" {
					return // ping stays pending: two calls are
				}
				id := m.ID.String()
				f.in <- transport.Frame{Data: []byte("aaaa"), Err: tooBig, Source: "post", Stream: tt.stream(id)}
				if !tt.rejected {
					f.push(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[]}}`)
				}
			})
			c := NewConn(f, Options{RequestTimeout: 10 * time.Second})
			defer c.Close(context.Background())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { _, _ = c.Call(ctx, "ping", nil) }()
			for deadline := time.Now().Add(10 * time.Second); len(f.sentMessages()) == 0; {
				if time.Now().After(deadline) {
					t.Fatal("ping was never sent")
				}
				time.Sleep(time.Millisecond)
			}
			_, err := c.Call(context.Background(), "tools/list", nil)
			if got := errors.Is(err, transport.ErrFrameTooLarge); got != tt.rejected {
				t.Fatalf("Call error = %v; want rejected for its size %v", err, tt.rejected)
			}
			if tt.rejected && !errors.Is(err, ErrRejectedReply) {
				t.Fatalf("Call error = %v; want ErrRejectedReply", err)
			}
		})
	}
}

// TestOversizeNotificationIsNotTakenForTheReply: a rejected frame that is a
// notification fails no call.
func TestOversizeNotificationIsNotTakenForTheReply(t *testing.T) {
	f := newFake(func(f *fakeTransport, msg []byte) {
		m, _ := Decode(msg)
		f.in <- transport.Frame{Data: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"x":"aaa`), Err: &transport.TooLargeError{What: "a line", Size: 1 << 30, Max: 10}}
		f.push(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{}}`)
	})
	c := NewConn(f, Options{RequestTimeout: 10 * time.Second})
	defer c.Close(context.Background())
	if _, err := c.Call(context.Background(), "ping", nil); err != nil {
		t.Fatalf("Call: %v", err)
	}
}

// TestTranscriptBoundedInBytes: past MaxTranscriptBytes entries are counted, not kept.
func TestTranscriptBoundedInBytes(t *testing.T) {
	f := newFake(nil)
	c := NewConn(f, Options{MaxTranscriptBytes: 1000})
	defer c.Close(context.Background())
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 60) + `"}}`
	for range 50 {
		f.push(note)
	}
	f.push(`{"jsonrpc":"2.0","method":"notifications/last"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for c.Seq() < 51 && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	entries, dropped := c.Transcript()
	kept := 0
	for _, e := range entries {
		kept += len(e.Raw)
	}
	if kept > 1000 || dropped == 0 || len(entries)+dropped != 51 {
		t.Fatalf("kept %d bytes in %d entries, dropped %d; want ≤ 1000 bytes and 51 in all", kept, len(entries), dropped)
	}
}

// TestTranscriptReserveKeepsSmallMessages: once large messages have spent what they
// may of the bound, a notification that follows is still kept (a check waiting for
// it sees it), and a large one is counted, not kept; the run-wide Budget does the same.
func TestTranscriptReserveKeepsSmallMessages(t *testing.T) {
	for _, shared := range []bool{false, true} {
		f := newFake(nil)
		opts := Options{MaxTranscriptBytes: 100 << 10}
		if shared {
			opts = Options{Budget: NewBudget(100 << 10)}
		}
		c := NewConn(f, opts)
		big := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 10<<10) + `"}}`
		for range 10 { // 100 KiB: more than the three quarters large messages may use
			f.push(big)
		}
		f.push(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
		f.push(big)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		e, err := c.WaitFor(ctx, 0, func(e Entry) bool { return e.Msg != nil && e.Msg.Method == "notifications/tools/list_changed" })
		for c.Seq() < 12 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
		if err != nil {
			t.Fatalf("shared %v: the notification after the large messages was not kept: %v", shared, err)
		}
		entries, dropped := c.Transcript()
		var kept int
		for _, en := range entries {
			kept += len(en.Raw)
		}
		if e.Seq != 11 || dropped < 3 || kept > 100<<10 || entries[len(entries)-1].Seq != 11 {
			t.Errorf("shared %v: notification #%d, %d entries (%d bytes) kept, %d dropped; want #11 kept last, the large ones past 75 KiB dropped", shared, e.Seq, len(entries), kept, dropped)
		}
		c.Close(context.Background())
	}
}

// TestServerRequestFloodIsCounted: requests arriving while MaxServerRequests answers
// are in flight are not answered (no goroutine, no memory), only counted.
func TestServerRequestFloodIsCounted(t *testing.T) {
	block := make(chan struct{})
	f := newFake(nil)
	c := NewConn(f, Options{MaxServerRequests: 2, HandleRequest: func(*Message) (any, *Error) {
		<-block
		return struct{}{}, nil
	}})
	defer c.Close(context.Background())
	for i := range 10 {
		f.push(`{"jsonrpc":"2.0","id":"s` + string(rune('0'+i)) + `","method":"ping"}`)
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.Seq() < 10 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := c.Unanswered(); got != 8 {
		t.Fatalf("Unanswered = %d, want 8 (2 in flight)", got)
	}
	close(block)
}

// TestDroppedIDlessReplies: of the dropped entries that could have been a reply, those
// that were responses with a null or no id are counted apart, by window, and of
// those the results apart again; a dropped notification or a kept reply is none.
func TestDroppedIDlessReplies(t *testing.T) {
	f := newFake(nil)
	c := NewConn(f, Options{MaxTranscriptBytes: 1000})
	defer c.Close(context.Background())
	big := strings.Repeat("x", 2000)
	frames := []string{
		`{"jsonrpc":"2.0","id":null,"result":{"data":"` + big + `"}}`,                        // 1: dropped, id null
		`{"jsonrpc":"2.0","id":"late","result":{"data":"` + big + `"}}`,                      // 2: dropped, an id
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"` + big + `"}}`,                  // 3: dropped, no id
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"}}`, // 4: not a reply
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"kept"}}`,               // 5: kept
		`not json ` + big, // 6: dropped, did not decode
	}
	pushAll(t, f, c, frames...)
	tests := []struct {
		after, end              int
		dropped, idles, results int
	}{
		{0, 0, 4, 2, 1},
		{0, 1, 1, 1, 1},
		{1, 2, 1, 0, 0},
		{1, 5, 2, 1, 0},
		{3, 0, 1, 0, 0},
	}
	for _, tc := range tests {
		n, unsure := c.DroppedRepliesIn(tc.after, tc.end)
		idless := c.DroppedIDlessRepliesIn(tc.after, tc.end)
		results := c.DroppedIDlessResultsIn(tc.after, tc.end)
		if n != tc.dropped || unsure || idless != tc.idles || results != tc.results {
			t.Errorf("(%d, %d]: %d dropped (unsure %v), %d with no id, %d of them results; want %d, %d and %d",
				tc.after, tc.end, n, unsure, idless, results, tc.dropped, tc.idles, tc.results)
		}
	}
}

// DroppedSmall counts the dropped entries of at most SmallMessage bytes only: a
// transcript that drops large pages keeps its count at zero, one whose bound is too
// small for its short messages does not.
func TestDroppedSmall(t *testing.T) {
	f := newFake(nil)
	c := NewConn(f, Options{MaxTranscriptBytes: 140})
	defer c.Close(context.Background())
	big := strings.Repeat("x", SmallMessage)
	frames := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"}}`, // large: dropped
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,                      // small: kept
		`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`,                    // small: kept
		`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`,                  // small: over the bound
	}
	pushAll(t, f, c, frames...)
	if got, small := c.Dropped(), c.DroppedSmall(); got != 2 || small != 1 {
		t.Fatalf("dropped %d, of them small %d; want 2 and 1", got, small)
	}
}

// pushAll has the fake server send each frame and waits until c has recorded them
// all, kept or dropped.
func pushAll(t *testing.T, f *fakeTransport, c *Conn, frames ...string) {
	t.Helper()
	for _, fr := range frames {
		f.push(fr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.Seq() < len(frames) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d frames recorded after 10s", c.Seq(), len(frames))
		}
		time.Sleep(time.Millisecond)
	}
}
