package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// fakeTransport is an in-memory server end: every message the client sends is handed
// to serve, which may push frames back.
type fakeTransport struct {
	in    chan transport.Frame
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	sent  [][]byte
	serve func(f *fakeTransport, msg []byte)
}

func newFake(serve func(f *fakeTransport, msg []byte)) *fakeTransport {
	return &fakeTransport{in: make(chan transport.Frame, 64), done: make(chan struct{}), serve: serve}
}

func (f *fakeTransport) Send(ctx context.Context, msg []byte) error {
	select {
	case <-f.done:
		return transport.ErrClosed
	default:
	}
	f.mu.Lock()
	f.sent = append(f.sent, msg)
	f.mu.Unlock()
	if f.serve != nil {
		f.serve(f, msg)
	}
	return nil
}

func (f *fakeTransport) push(s string) {
	f.in <- transport.Frame{Data: []byte(s), Source: "stdout", At: time.Now()}
}

func (f *fakeTransport) Inbound() <-chan transport.Frame { return f.in }
func (f *fakeTransport) Done() <-chan struct{}           { return f.done }
func (f *fakeTransport) Err() error                      { return nil }
func (f *fakeTransport) Kind() string                    { return "fake" }
func (f *fakeTransport) Close(context.Context) error {
	f.once.Do(func() { close(f.done); close(f.in) })
	return nil
}

func (f *fakeTransport) sentMessages() []*Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*Message
	for _, raw := range f.sent {
		m, _ := Decode(raw)
		out = append(out, m)
	}
	return out
}

// echoServer answers every request with {"ok":true}, using the id it was sent, or a
// transformed id.
func echoServer(transform func(id string) string) func(f *fakeTransport, msg []byte) {
	return func(f *fakeTransport, msg []byte) {
		m, err := Decode(msg)
		if err != nil || m.Kind != KindRequest {
			return
		}
		id := m.ID.String()
		if transform != nil {
			id = transform(id)
		}
		f.push(`{"jsonrpc":"2.0","id":` + id + `,"result":{"ok":true}}`)
	}
}

func TestCallCorrelatesExactIDs(t *testing.T) {
	tests := []struct {
		name string
		id   ID
	}{
		{"string", StringID("c-1")},
		{"zero", NumberID(0)},
		{"seven", NumberID(7)},
		{"max safe integer", NumberID(9007199254740991)},
	}
	c := NewConn(newFake(echoServer(nil)), Options{RequestTimeout: time.Second})
	defer c.Close(context.Background())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.CallID(context.Background(), tc.id, "ping", nil)
			if err != nil {
				t.Fatalf("CallID: %v", err)
			}
			if !resp.IDExact {
				t.Errorf("IDExact = false for an exact echo of %s", tc.id)
			}
			if resp.Method != "ping" || string(resp.Result) != `{"ok":true}` {
				t.Errorf("resp = %+v", resp)
			}
		})
	}
}

func TestCallAttributesWrongTypeIDLoosely(t *testing.T) {
	tests := []struct {
		name      string
		id        ID
		transform func(string) string
	}{
		{"number answered as string", NumberID(7), func(id string) string { return `"` + id + `"` }},
		{"string answered as number", StringID("42"), func(id string) string { return strings.Trim(id, `"`) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewConn(newFake(echoServer(tc.transform)), Options{RequestTimeout: time.Second})
			defer c.Close(context.Background())
			resp, err := c.CallID(context.Background(), tc.id, "ping", nil)
			if err != nil {
				t.Fatalf("CallID: %v", err)
			}
			if resp.IDExact {
				t.Fatalf("IDExact = true, want false (sent %s, got %s)", tc.id, resp.Msg.ID)
			}
			entries, _ := c.Transcript()
			last := entries[len(entries)-1]
			if !last.LooseID || last.ForMethod != "ping" {
				t.Errorf("transcript entry = %+v, want LooseID and ForMethod ping", last)
			}
		})
	}
}

func TestNumberKeysNormalise(t *testing.T) {
	a, _ := ParseID(json.RawMessage("7"))
	b, _ := ParseID(json.RawMessage("7.0"))
	s, _ := ParseID(json.RawMessage(`"7"`))
	if a.Key() != b.Key() {
		t.Errorf("7 and 7.0 have different keys: %q %q", a.Key(), b.Key())
	}
	if a.Key() == s.Key() {
		t.Errorf("7 and \"7\" share the exact key %q", a.Key())
	}
	if a.LooseKey() != s.LooseKey() {
		t.Errorf("7 and \"7\" have different loose keys")
	}
	if _, err := ParseID(json.RawMessage(`{"x":1}`)); err == nil {
		t.Error("an object id parsed")
	}
}

func TestOutOfOrderReplies(t *testing.T) {
	var mu sync.Mutex
	var held []string
	f := newFake(func(f *fakeTransport, msg []byte) {
		m, _ := Decode(msg)
		mu.Lock()
		defer mu.Unlock()
		held = append(held, m.ID.String())
		if len(held) == 3 { // answer in reverse order
			for i := len(held) - 1; i >= 0; i-- {
				f.push(`{"jsonrpc":"2.0","id":` + held[i] + `,"result":{"id":` + held[i] + `}}`)
			}
		}
	})
	c := NewConn(f, Options{RequestTimeout: 2 * time.Second})
	defer c.Close(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Call(context.Background(), "ping", nil)
			if err != nil {
				errs <- err
				return
			}
			var got struct{ ID json.RawMessage }
			_ = json.Unmarshal(resp.Result, &got)
			if string(got.ID) != resp.Msg.ID.String() {
				errs <- errors.New("reply delivered to the wrong call")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestServerRequestsAreAnswered(t *testing.T) {
	f := newFake(nil)
	c := NewConn(f, Options{RequestTimeout: time.Second})
	defer c.Close(context.Background())
	f.push(`{"jsonrpc":"2.0","id":"s1","method":"ping"}`)
	f.push(`{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{}}`)
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if len(f.sentMessages()) == 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	sent := f.sentMessages()
	if len(sent) != 2 {
		t.Fatalf("sent %d replies, want 2", len(sent))
	}
	byID := map[string]*Message{}
	for _, m := range sent {
		byID[m.ID.String()] = m
	}
	if m := byID[`"s1"`]; m == nil || m.Kind != KindResult || string(m.Result) != "{}" {
		t.Errorf("ping reply = %+v", m)
	}
	if m := byID["2"]; m == nil || m.Kind != KindError || m.Error.Code != CodeMethodNotFound {
		t.Errorf("sampling reply = %+v", m)
	}
}

func TestCallTimesOut(t *testing.T) {
	c := NewConn(newFake(nil), Options{RequestTimeout: 50 * time.Millisecond})
	defer c.Close(context.Background())
	start := time.Now()
	_, err := c.Call(context.Background(), "tools/list", nil)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("timeout took %s", time.Since(start))
	}
}

func TestCallEndsWhenTransportCloses(t *testing.T) {
	f := newFake(nil)
	c := NewConn(f, Options{RequestTimeout: 5 * time.Second})
	go func() {
		time.Sleep(20 * time.Millisecond)
		_ = f.Close(context.Background())
	}()
	_, err := c.Call(context.Background(), "ping", nil)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

func TestIDReuseIsRefused(t *testing.T) {
	c := NewConn(newFake(echoServer(nil)), Options{RequestTimeout: time.Second})
	defer c.Close(context.Background())
	if _, err := c.CallID(context.Background(), NumberID(1), "ping", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallID(context.Background(), NumberID(1), "ping", nil); err == nil {
		t.Fatal("a reused id was sent")
	}
	if id := c.NextID(); id.Key() == NumberID(1).Key() {
		t.Errorf("NextID returned the used id 1")
	}
}

// CallAnsweredID sends an answered request's id again (BASE-REQID-INFLIGHT-01), and
// nothing else: not a fresh id.
func TestCallAnsweredID(t *testing.T) {
	c := NewConn(newFake(echoServer(nil)), Options{RequestTimeout: time.Second})
	defer c.Close(context.Background())
	if _, err := c.CallAnsweredID(context.Background(), NumberID(7), "ping", nil); err == nil {
		t.Fatal("CallAnsweredID sent an id no request used")
	}
	if _, err := c.CallID(context.Background(), NumberID(1), "ping", nil); err != nil {
		t.Fatal(err)
	}
	resp, err := c.CallAnsweredID(context.Background(), NumberID(1), "ping", nil)
	if err != nil || resp.Msg.ID.Key() != NumberID(1).Key() {
		t.Fatalf("the answered id 1 again: %v, %v", resp, err)
	}
}

func TestGarbageAndBatchesAreRecorded(t *testing.T) {
	f := newFake(nil)
	c := NewConn(f, Options{RequestTimeout: time.Second})
	defer c.Close(context.Background())
	f.in <- transport.Frame{Data: []byte("hello"), Err: errors.New("not JSON"), Source: "stdout"}
	f.push(`[{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"2.0","method":"notifications/b"}]`)
	f.push(`{"jsonrpc":"1.0","method":"x"}`)
	e, err := c.WaitFor(context.Background(), 0, func(e Entry) bool { return e.Msg != nil && e.Msg.Method == "x" })
	if err != nil {
		t.Fatal(err)
	}
	if e.Err == "" {
		t.Error("jsonrpc 1.0 message carries no problem")
	}
	entries, _ := c.Transcript()
	if len(entries) != 4 {
		t.Fatalf("%d entries, want 4: %+v", len(entries), entries)
	}
	if entries[0].Err == "" || !entries[1].InBatch || entries[2].Msg.Method != "notifications/b" {
		t.Errorf("entries = %+v", entries)
	}
}

func TestTranscriptIsBounded(t *testing.T) {
	f := newFake(nil)
	c := NewConn(f, Options{RequestTimeout: time.Second, MaxTranscript: 3})
	defer c.Close(context.Background())
	for i := 0; i < 10; i++ {
		f.push(`{"jsonrpc":"2.0","method":"notifications/flood"}`)
	}
	deadline := time.Now().Add(time.Second)
	for c.Seq() < 10 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	entries, dropped := c.Transcript()
	if len(entries) != 3 || dropped != 7 {
		t.Errorf("kept %d, dropped %d; want 3 and 7", len(entries), dropped)
	}
}

func TestDecodeClassifies(t *testing.T) {
	tests := []struct {
		raw     string
		kind    Kind
		problem bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindRequest, false},
		{`{"jsonrpc":"2.0","method":"notifications/x"}`, KindNotification, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, KindResult, false},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`, KindError, false},
		{`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, KindResult, true},
		{`{"jsonrpc":"2.0","id":1}`, KindInvalid, true},
		{`{"jsonrpc":"2.0","id":{},"result":{}}`, KindInvalid, true},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, KindInvalid, true},
	}
	for _, tc := range tests {
		m, err := Decode([]byte(tc.raw))
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		if m.Kind != tc.kind || (m.Problem != "") != tc.problem {
			t.Errorf("%s: kind %v problem %q; want %v, problem=%v", tc.raw, m.Kind, m.Problem, tc.kind, tc.problem)
		}
		// A frame the transport checked skips the JSON check, and decodes the same.
		raw := []byte(" " + tc.raw + "\n")
		slow, _ := Decode(raw)
		fast, err := decodeValid(raw, bytes.TrimSpace(raw), true)
		if err != nil || !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: decodeValid = %+v, %v; want %+v as Decode gives", tc.raw, fast, err, slow)
		}
	}
	for _, bad := range []string{`{`, `[1]`, `"x"`, ``} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q) succeeded", bad)
		}
	}
}

// The fast path of normalNumber agrees with the arbitrary-precision one everywhere it
// applies, and leaves everything else to it.
func TestNormalNumberFastPath(t *testing.T) {
	slow := func(s string) string {
		f, ok := new(big.Float).SetPrec(256).SetString(s)
		if !ok {
			return s
		}
		return f.Text('g', -1)
	}
	for _, s := range []string{"0", "7", "-7", "10", "1000", "999999", "-999999", "1000000", "-0", "007", "1e3", "7.0", "9007199254740991", "x", ""} {
		if got, want := normalNumber(s), slow(s); got != want {
			t.Errorf("normalNumber(%q) = %q, want %q", s, got, want)
		}
	}
}

// countingFake is a fakeTransport whose Send puts the reply on Inbound before it
// returns, and counts the frames it delivered, as Streamable HTTP does with a JSON
// reply body (transport.FrameCounter).
type countingFake struct {
	*fakeTransport
	delivered atomic.Uint64
}

func (c *countingFake) Delivered() uint64 { return c.delivered.Load() }

// A barrier call whose reply came back with the request itself (Streamable HTTP), or
// within BarrierDelay on an ordered channel (stdio), sends no barrier request; one
// whose reply did not come still proves the silence with one, and a reply that comes
// after the barrier was sent is still taken.
func TestBarrierSkippedWhenTheReplyIsIn(t *testing.T) {
	for _, tc := range []struct {
		name      string
		counting  bool          // the transport counts frames (Streamable HTTP)
		answer    bool          // the request is answered
		late      time.Duration // after this long
		wantPings int
	}{
		{"HTTP: reply carried by the request's own answer", true, true, 0, 0},
		{"HTTP: no reply", true, false, 0, 1},
		{"stdio: reply at once", false, true, 0, 0},
		{"stdio: reply after the barrier was sent", false, true, 5 * BarrierDelay, 1},
		{"stdio: no reply", false, false, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cf *countingFake
			fake := newFake(func(f *fakeTransport, msg []byte) {
				m, err := Decode(msg)
				if err != nil || m.Kind != KindRequest || (m.Method != "ping" && !tc.answer) {
					return
				}
				reply := `{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{}}`
				if m.Method != "ping" && tc.late > 0 {
					time.AfterFunc(tc.late, func() { f.push(reply) })
					return
				}
				f.push(reply)
				if cf != nil {
					cf.delivered.Add(1)
				}
			})
			var tr transport.Transport = fake
			if tc.counting {
				cf = &countingFake{fakeTransport: fake}
				tr = cf
			}
			c := NewConn(tr, Options{RequestTimeout: 5 * time.Second})
			defer c.Close(context.Background())
			c.SetBarrier(true)
			_, err := c.Call(context.Background(), "tools/list", nil)
			if tc.answer != (err == nil) {
				t.Fatalf("Call: %v (answered: %v)", err, tc.answer)
			}
			var be *BarrierError
			if !tc.answer && !errors.As(err, &be) {
				t.Fatalf("Call: %v, want a BarrierError", err)
			}
			pings := 0
			for _, m := range fake.sentMessages() {
				if m.Method == "ping" {
					pings++
				}
			}
			if pings != tc.wantPings {
				t.Errorf("%d barrier pings sent, want %d", pings, tc.wantPings)
			}
		})
	}
}

// CallRawOwed returns as soon as the barrier's reply is in, even with the barrier off
// for other calls: a reply already in is the result, a missing one an owed
// BarrierError carrying the grace, and a reply that comes later is found by its id
// (OwedReply), with its type checked as deliver checks it.
func TestCallRawOwed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		late      time.Duration // the reply comes this long after the request (0: at once)
		answer    bool
		replyID   string // the id the reply carries ("" the request's)
		wantOwed  bool
		wantLate  bool // OwedReply finds the reply once it came
		wantExact bool
	}{
		{"reply at once", 0, true, "", false, true, true},
		{"reply after the barrier's", 50 * time.Millisecond, true, "", true, true, true},
		{"reply with the id as a string", 50 * time.Millisecond, true, `"7"`, true, true, false},
		{"no reply", 0, false, "", true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(func(f *fakeTransport, msg []byte) {
				m, err := Decode(msg)
				if err != nil || m.Kind != KindRequest || (m.Method != "ping" && !tc.answer) {
					return
				}
				id := m.ID.String()
				if m.Method != "ping" && tc.replyID != "" {
					id = tc.replyID
				}
				reply := `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`
				if m.Method != "ping" && tc.late > 0 {
					time.AfterFunc(tc.late, func() { f.push(reply) })
					return
				}
				f.push(reply)
			})
			c := NewConn(fake, Options{RequestTimeout: 5 * time.Second})
			defer c.Close(context.Background())
			id := NumberID(7)
			raw := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":"abc"}`)
			start := time.Now()
			resp, err := c.CallRawOwed(context.Background(), id, "tools/list", raw)
			var be *BarrierError
			switch {
			case tc.wantOwed && !(errors.As(err, &be) && be.Owed && be.Grace >= BarrierGrace):
				t.Fatalf("CallRawOwed: %v, want an owed BarrierError with the grace", err)
			case !tc.wantOwed && (err != nil || resp == nil):
				t.Fatalf("CallRawOwed: %v, want the reply", err)
			case time.Since(start) >= BarrierGrace:
				t.Errorf("CallRawOwed took %s: it waited out the grace", time.Since(start))
			}
			if be == nil {
				return // the reply was the call's
			}
			time.Sleep(tc.late + 50*time.Millisecond)
			late, lost := c.OwedReply(be)
			if (late != nil) != tc.wantLate || lost {
				t.Fatalf("OwedReply: %v (lost %v), want a reply: %v", late, lost, tc.wantLate)
			}
			if late != nil && late.IDExact != tc.wantExact {
				t.Errorf("OwedReply: IDExact %v, want %v", late.IDExact, tc.wantExact)
			}
		})
	}
}

// Flush takes a reply that no id claims when it comes before the barrier's, and says
// why there is no proof when the barrier goes unanswered or the connection ends.
func TestFlush(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pingReply bool // the server answers the barrier
		closeIt   bool // the connection ends instead
		wantErr   error
		wantStray bool
	}{
		{"the stray reply before the barrier's", true, false, nil, true},
		{"no reply to the barrier", false, false, ErrTimeout, false},
		{"the connection ends", false, true, ErrClosed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(func(f *fakeTransport, msg []byte) {
				m, err := Decode(msg)
				switch {
				case err != nil:
					f.push(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
				case m.Method == "ping" && tc.pingReply:
					f.push(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{}}`)
				case m.Method == "ping" && tc.closeIt:
					f.Close(context.Background())
				}
			})
			c := NewConn(fake, Options{RequestTimeout: 300 * time.Millisecond})
			defer c.Close(context.Background())
			after := c.Seq()
			if err := c.SendRaw(context.Background(), []byte(`{"jsonrpc":`)); err != nil {
				t.Fatal(err)
			}
			err := c.Flush(context.Background(), nil)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("Flush: %v, want %v", err, tc.wantErr)
			}
			stray := false
			for _, e := range c.Received(after) {
				stray = stray || (e.Msg != nil && e.Msg.IsResponse() && e.ForMethod == "")
			}
			if tc.wantStray && !stray {
				t.Errorf("the -32700 reply was not in the transcript after Flush")
			}
		})
	}
}

// openStreamFake is Streamable HTTP whose POST stream never ends: the wire layer
// cannot wait for the streams to settle.
type openStreamFake struct{ *countingFake }

func (openStreamFake) OpenPostStreams() (int, <-chan struct{}) { return 1, make(chan struct{}) }

// TestReplyWhileAPostStreamStaysOpen: with the barrier on, a reply, and a reply the
// transport rejected, end the call at once though a POST stream stays open.
func TestReplyWhileAPostStreamStaysOpen(t *testing.T) {
	tooBig := &transport.TooLargeError{What: "an SSE event", Size: 100 << 20, Max: 8 << 20}
	for _, tc := range []struct {
		name   string
		frame  func(id string) transport.Frame
		wantIs error // nil: the call succeeds
	}{
		{"reply", func(id string) transport.Frame {
			return transport.Frame{Data: []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`), Source: "post", Stream: id, JSON: true}
		}, nil},
		{"rejected reply", func(id string) transport.Frame {
			return transport.Frame{Data: []byte(`aaaa`), Err: tooBig, Source: "post", Stream: id}
		}, ErrRejectedReply},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cf *countingFake
			fake := newFake(func(f *fakeTransport, msg []byte) {
				m, err := Decode(msg)
				if err != nil || m.Kind != KindRequest || m.Method == "ping" {
					return
				}
				f.in <- tc.frame(m.ID.String())
				cf.delivered.Add(1)
			})
			cf = &countingFake{fakeTransport: fake}
			c := NewConn(openStreamFake{cf}, Options{RequestTimeout: 10 * time.Second})
			defer c.Close(context.Background())
			c.SetBarrier(true)
			start := time.Now()
			_, err := c.Call(context.Background(), "tools/list", nil)
			if (tc.wantIs == nil) != (err == nil) || (tc.wantIs != nil && !errors.Is(err, tc.wantIs)) {
				t.Fatalf("Call: %v; want %v", err, tc.wantIs)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("the call took %s: it waited for the open stream", d)
			}
		})
	}
}

// A silence is proven in no less than twice the time the barrier took to come back:
// a server still starting (or on a loaded machine) that answers the barrier late and
// the request a little later still has its reply taken, as mongodb-mcp-server's
// DiscoverResult trailed its ping by 304 ms; a server that answers the barrier at
// once and never the request is still proven silent after BarrierGrace.
func TestBarrierGraceFollowsTheRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name      string
		startup   time.Duration // every reply waits this long after the first message
		trail     time.Duration // the request's reply comes this long after the barrier's
		answer    bool
		wantReply bool
		atMost    time.Duration // the call returns within this
	}{
		{"slow start, reply trails the barrier by 300 ms", 400 * time.Millisecond, 300 * time.Millisecond, true, true, 2 * time.Second},
		{"quick server, reply trails by 50 ms", 0, 50 * time.Millisecond, true, true, time.Second},
		{"quick server, no reply", 0, 0, false, false, time.Second},
		{"slow start, no reply", 300 * time.Millisecond, 0, false, false, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var first sync.Once
			var ready time.Time
			var pending []byte
			var mu sync.Mutex
			fake := newFake(func(f *fakeTransport, msg []byte) {
				first.Do(func() { ready = time.Now().Add(tc.startup) })
				m, err := Decode(msg)
				if err != nil || m.Kind != KindRequest {
					return
				}
				reply := `{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{}}`
				wait := time.Until(ready)
				if m.Method != "ping" {
					if tc.answer {
						mu.Lock()
						pending = []byte(reply)
						mu.Unlock()
					}
					return
				}
				// A late push may find the connection closed by a failed test.
				push := func(s string) {
					defer func() { _ = recover() }()
					f.push(s)
				}
				time.AfterFunc(max(wait, 0), func() {
					push(reply)
					mu.Lock()
					p := pending
					mu.Unlock()
					if p != nil {
						time.AfterFunc(tc.trail, func() { push(string(p)) })
					}
				})
			})
			c := NewConn(fake, Options{RequestTimeout: 10 * time.Second})
			defer c.Close(context.Background())
			c.SetBarrier(true)
			start := time.Now()
			_, err := c.Call(context.Background(), "server/discover", nil)
			took := time.Since(start)
			if tc.wantReply != (err == nil) {
				t.Fatalf("Call after %s: %v, want a reply: %v", took, err, tc.wantReply)
			}
			var be *BarrierError
			if !tc.wantReply && (!errors.As(err, &be) || be.Grace < BarrierGrace) {
				t.Fatalf("Call: %v, want a BarrierError with its grace", err)
			}
			if took > tc.atMost {
				t.Errorf("the call took %s, want at most %s", took, tc.atMost)
			}
		})
	}
}

func TestGraceAfter(t *testing.T) {
	for _, tc := range []struct{ rtt, want time.Duration }{
		{0, BarrierGrace},
		{time.Millisecond, BarrierGrace},
		{BarrierGrace / 2, BarrierGrace},
		{time.Second, 2 * time.Second},
	} {
		if got := GraceAfter(tc.rtt); got != tc.want {
			t.Errorf("GraceAfter(%s) = %s, want %s", tc.rtt, got, tc.want)
		}
	}
}

// TestEachReceivedIsReceived: EachReceived (and Received, which collects it) yields
// the received entries of the transcript after any point, and none that arrived
// after it was called; breaking off ends the walk.
func TestEachReceivedIsReceived(t *testing.T) {
	fake := newFake(func(f *fakeTransport, msg []byte) {
		m, err := Decode(msg)
		if err == nil && m.Method == "ping" {
			f.push(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
			f.push(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{}}`)
		}
	})
	c := NewConn(fake, Options{RequestTimeout: time.Second})
	defer c.Close(context.Background())
	for range 3 {
		if _, err := c.Call(context.Background(), "ping", nil); err != nil {
			t.Fatal(err)
		}
	}
	seqs := func(es []Entry) (out []int) {
		for _, e := range es {
			out = append(out, e.Seq)
		}
		return out
	}
	end := c.Seq()
	for after := 0; after <= end; after++ {
		each, at := c.EachReceived(after), c.Seq()
		if _, err := c.Call(context.Background(), "ping", nil); err != nil { // after the view
			t.Fatal(err)
		}
		var got []Entry
		for e := range each {
			got = append(got, e)
		}
		all, _ := c.Transcript()
		var want []Entry
		for _, e := range all {
			if e.Dir == Received && e.Seq > after && e.Seq <= at {
				want = append(want, e)
			}
		}
		if len(want) == 0 && after < end-1 || !slices.Equal(seqs(got), seqs(want)) {
			t.Fatalf("after %d: EachReceived gave entries %v, want %v", after, seqs(got), seqs(want))
		}
	}
	n := 0
	for range c.EachReceived(0) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("the walk went on after break: %d entries", n)
	}
}

// TestStanding: a reply stands as a barrier only while it answers a ping that was the
// last message sent, no other call is pending, and nothing has come or gone since.
func TestStanding(t *testing.T) {
	// holdServer answers every request but those with a string id (held ones).
	holdServer := func(f *fakeTransport, msg []byte) {
		if m, err := Decode(msg); err == nil && m.Kind == KindRequest && !strings.HasPrefix(m.ID.String(), `"`) {
			f.push(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{}}`)
		}
	}
	ctx := context.Background()
	// hold sends a ping that is left unanswered and returns once it is sent.
	hold := func(t *testing.T, c *Conn, f *fakeTransport, id ID) <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := c.CallID(ctx, id, "ping", nil)
			done <- err
		}()
		deadline := time.Now().Add(2 * time.Second)
		for len(f.sentMessages()) == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		return done
	}
	// ping makes one answered ping call.
	ping := func(t *testing.T, c *Conn) {
		if _, err := c.Call(ctx, "ping", nil); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		steps func(t *testing.T, c *Conn, f *fakeTransport)
		want  bool
	}{
		{"nothing exchanged", func(*testing.T, *Conn, *fakeTransport) {}, false},
		{"a ping answered", func(t *testing.T, c *Conn, _ *fakeTransport) {
			ping(t, c)
		}, true},
		{"a ping answered, then the barrier request changed", func(t *testing.T, c *Conn, _ *fakeTransport) {
			ping(t, c)
			c.SetBarrierMethod("server/discover")
		}, false},
		{"another request answered", func(t *testing.T, c *Conn, _ *fakeTransport) {
			if _, err := c.Call(ctx, "tools/list", nil); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a notification sent after the reply", func(t *testing.T, c *Conn, _ *fakeTransport) {
			ping(t, c)
			if err := c.Notify(ctx, "notifications/x", nil); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a message received after the reply", func(t *testing.T, c *Conn, f *fakeTransport) {
			ping(t, c)
			after := c.Seq()
			f.push(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
			if _, err := c.WaitFor(ctx, after, func(Entry) bool { return true }); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"another call still pending", func(t *testing.T, c *Conn, f *fakeTransport) {
			hold(t, c, f, StringID("held"))
			ping(t, c)
		}, false},
		{"the reply answers a request sent before the last message", func(t *testing.T, c *Conn, f *fakeTransport) {
			done := hold(t, c, f, StringID("late"))
			if err := c.Notify(ctx, "notifications/x", nil); err != nil {
				t.Fatal(err)
			}
			f.push(`{"jsonrpc":"2.0","id":"late","result":{}}`)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(holdServer)
			c := NewConn(f, Options{RequestTimeout: 2 * time.Second})
			defer c.Close(ctx)
			tc.steps(t, c, f)
			if _, got := c.Standing(); got != tc.want {
				t.Errorf("Standing() = %v, want %v", got, tc.want)
			}
		})
	}
}

// postAnswerFake is Streamable HTTP as the wire layer sees it: each reply is put on
// Inbound before Send returns (counted), and open is how many POST streams are open.
type postAnswerFake struct {
	*countingFake
	open int
}

func (p *postAnswerFake) OpenPostStreams() (int, <-chan struct{}) {
	return p.open, make(chan struct{})
}

// newPostAnswerConn answers pings in their own POST's answer and every other
// message (a stray probe) with nothing, as a server that takes a stray response
// with 202 Accepted does.
func newPostAnswerConn(t *testing.T, open int) (*Conn, *postAnswerFake) {
	t.Helper()
	var p *postAnswerFake
	fake := newFake(func(f *fakeTransport, msg []byte) {
		if m, err := Decode(msg); err == nil && m.Method == "ping" {
			f.in <- transport.Frame{Data: []byte(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{}}`), Source: "post", JSON: true}
			p.delivered.Add(1)
		}
	})
	p = &postAnswerFake{countingFake: &countingFake{fakeTransport: fake}, open: open}
	c := NewConn(p, Options{RequestTimeout: 10 * time.Second})
	t.Cleanup(func() { c.Close(context.Background()) })
	return c, p
}

// Where each reply comes in its own POST's answer and every answer has ended, no
// reply can still be on its way: RepliesSettled holds, and on no other transport,
// nor while a POST stream is open, nor once the connection has ended.
func TestRepliesSettled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		conn   func(t *testing.T) *Conn
		settle bool
	}{
		{"Streamable HTTP, every answer ended", func(t *testing.T) *Conn { c, _ := newPostAnswerConn(t, 0); return c }, true},
		{"Streamable HTTP, a POST stream open", func(t *testing.T) *Conn { c, _ := newPostAnswerConn(t, 1); return c }, false},
		{"Streamable HTTP, the connection ended", func(t *testing.T) *Conn {
			c, _ := newPostAnswerConn(t, 0)
			c.Close(context.Background())
			return c
		}, false},
		{"an ordered channel (stdio, HTTP+SSE)", func(t *testing.T) *Conn {
			c := NewConn(newFake(echoServer(nil)), Options{RequestTimeout: 10 * time.Second})
			t.Cleanup(func() { c.Close(context.Background()) })
			return c
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.conn(t)
			if _, err := c.Call(context.Background(), "ping", nil); err != nil && tc.settle {
				t.Fatal(err)
			}
			if got := c.RepliesSettled(context.Background()); got != tc.settle {
				t.Errorf("RepliesSettled = %v, want %v", got, tc.settle)
			}
		})
	}
}

// A stray probe answered with nothing on Streamable HTTP is proven silent by its
// answer's end: Flush waits no grace, so it returns well within a deadline shorter
// than BarrierGrace. FlushMessages, whose notifications may travel on the GET
// stream, still waits the grace, and so overruns that deadline.
func TestFlushNeedsNoGraceWhereAnswersEnded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		messages bool // FlushMessages instead of Flush
		wantErr  error
	}{
		{"Flush", false, nil},
		{"FlushMessages", true, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newPostAnswerConn(t, 0)
			if err := c.SendRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":"x-1","result":{}}`)); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), BarrierGrace-20*time.Millisecond)
			defer cancel()
			flush := c.Flush
			if tc.messages {
				flush = c.FlushMessages
			}
			err := flush(ctx, nil)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("flush: %v, want %v", err, tc.wantErr)
			}
		})
	}
}
