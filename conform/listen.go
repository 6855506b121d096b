package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// MethodListen opens a 2026-07-28 subscription stream (basic/patterns/subscriptions.mdx).
const MethodListen = "subscriptions/listen"

// MethodAcknowledged is the first message of every subscription.
const MethodAcknowledged = "notifications/subscriptions/acknowledged"

// subscriptionMethods are the notifications only a subscription delivers in
// 2026-07-28 (the notification filter of subscriptions.mdx, and its acknowledgement):
// on stdio one of them that names no subscription still belongs to one.
var subscriptionMethods = []string{
	MethodAcknowledged,
	"notifications/tools/list_changed",
	"notifications/prompts/list_changed",
	"notifications/resources/list_changed",
	"notifications/resources/updated",
}

// IsSubscriptionMethod reports whether method is a notification that 2026-07-28
// delivers only on a subscriptions/listen stream.
func IsSubscriptionMethod(method string) bool { return slices.Contains(subscriptionMethods, method) }

// Subscription is one open subscriptions/listen request of a session. Its messages
// are read from the session's transcript: over Streamable HTTP, every message of the
// listen POST's SSE reply, or its JSON reply (a refusal); on stdio, where every subscription shares the channel,
// every message tagged with its id (_meta io.modelcontextprotocol/subscriptionId, the
// listen request's id), every reply to the listen request, and every subscription
// notification (IsSubscriptionMethod) whose tag names no listen request of the
// connection, or that has none (so that it is judged, not lost).
type Subscription struct {
	// ID is the listen request's id, which is the subscription's id.
	ID wire.ID
	// Filter is the notifications filter sent.
	Filter map[string]any

	s     *Session
	call  *wire.Call
	key   string // the raw JSON id: the POST stream's key over HTTP
	after int    // the transcript position before the request was sent
	http  bool
	// barrierRTT is the round trip of the last Sync's barrier (AwaitFirst's grace).
	barrierRTT time.Duration
}

// Listen sends subscriptions/listen with the notifications filter and returns at
// once; the caller must defer Cancel.
func (s *Session) Listen(ctx context.Context, filter map[string]any) (*Subscription, error) {
	after := s.Conn.Seq()
	call, err := s.Conn.Start(ctx, MethodListen, map[string]any{"notifications": filter})
	if err != nil {
		return nil, fmt.Errorf("opening a subscription: %w", err)
	}
	key, _ := json.Marshal(call.ID)
	_, isHTTP := s.Conn.Transport().(transport.HTTPSession)
	return &Subscription{ID: call.ID, Filter: filter, s: s, call: call, key: string(key), after: after, http: isHTTP}, nil
}

// Cancel ends the subscription the way the transport cancels a request (closing
// its stream over HTTP, notifications/cancelled on stdio).
func (sub *Subscription) Cancel(ctx context.Context) error {
	if err := sub.call.Cancel(ctx); err != nil {
		return fmt.Errorf("cancelling subscription %s: %w", sub.ID, err)
	}
	return nil
}

// Messages returns the subscription's messages received so far, in order.
func (sub *Subscription) Messages() []wire.Entry {
	known := sub.listenIDs()
	var out []wire.Entry
	for e := range sub.s.Conn.EachReceived(sub.after) {
		if sub.owns(e, known) {
			out = append(out, e)
		}
	}
	return out
}

// listenIDs returns the ids of every listen request sent on the connection so far.
func (sub *Subscription) listenIDs() map[string]bool {
	known := map[string]bool{}
	all, _ := sub.s.Conn.Transcript()
	for _, e := range all {
		if e.Dir == wire.Sent && e.Msg != nil && e.Msg.Method == MethodListen {
			known[e.Msg.ID.Key()] = true
		}
	}
	return known
}

// owns reports whether a received entry is one of the subscription's messages; known
// holds the ids of every listen request sent on the connection.
func (sub *Subscription) owns(e wire.Entry, known map[string]bool) bool {
	if sub.http && e.Source == "post" && e.Stream == sub.key {
		return true
	}
	if e.Msg == nil {
		return false
	}
	// The reply to the listen request, on every transport: over HTTP also one that
	// came as the POST's JSON body (a refusal, say), which carries no stream key.
	if e.Msg.IsResponse() {
		return e.Msg.ID.Key() == sub.ID.Key() && (!sub.http || e.Source == "post")
	}
	if sub.http {
		return false
	}
	if id, tagged := SubscriptionTag(e.Msg); tagged && known[id.Key()] {
		return id.Key() == sub.ID.Key()
	}
	// Untagged, or tagged with an id no listen request had: no subscription can
	// claim it by its tag, so each open one judges it.
	return IsSubscriptionMethod(e.Msg.Method)
}

// Sync proves the channel flushed before the caller judges that something did not
// arrive: it waits until no request stream but the open subscriptions' is still
// being read (Streamable HTTP: the trigger's POST stream has ended), then makes a
// server/discover round trip. A message the server wrote before answering it has
// been read by then (stdio is one ordered channel; over HTTP the server wrote it on a
// stream before it answered a later request).
func (sub *Subscription) Sync(ctx context.Context, open int) error {
	if ps, ok := sub.s.Conn.Transport().(interface {
		OpenPostStreams() (int, <-chan struct{})
	}); ok {
		for {
			n, ended := ps.OpenPostStreams()
			if n <= open {
				break
			}
			select {
			case <-ended:
			case <-ctx.Done():
				return fmt.Errorf("waiting for the request streams to end: %w", ctx.Err())
			case <-sub.s.Conn.Done():
				return fmt.Errorf("waiting for the request streams to end: %w", wire.ErrClosed)
			}
		}
	}
	resp, err := sub.s.Conn.Call(ctx, sub.s.Conn.BarrierMethod(), nil)
	if err != nil {
		return fmt.Errorf("the %s barrier after the subscription: %w", sub.s.Conn.BarrierMethod(), err)
	}
	sub.barrierRTT = resp.Elapsed
	return nil
}

// AwaitFirst is Await, after Sync, for the subscription's first message (its
// acknowledgement, or the refusal of the listen request), bounded by the barrier's
// grace (wire.GraceAfter its round trip) instead of the request timeout. The server
// writes it when the subscription starts, before it answered the barrier: it trails
// the barrier's reply only when written out of order (a concurrent handler, or over
// HTTP a stream of its own). Awaited for the request timeout, it made a server that
// never acknowledges cost that timeout once per subscription.
func (sub *Subscription) AwaitFirst(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, wire.GraceAfter(sub.barrierRTT))
	defer cancel()
	return sub.Await(ctx, 0, func(wire.Entry) bool { return true })
}

// Await waits, bounded by the connection's request timeout and ctx, for a message of
// the subscription that match accepts, and reports whether one came. It is for a
// message the server owes (an announced change; the acknowledgement is AwaitFirst's):
// a server may write it a moment after answering a later request (go-sdk delays list
// changes by 10 ms), and over HTTP it travels on a stream of its own, so the barrier
// of Sync proves only what was written before it. A correct server costs no wait; only one
// that never sends it costs the timeout. Only messages after transcript position
// since count (0: all of the subscription's): a notification that arrived before the
// change it is awaited for is not its announcement (go-sdk delivers an earlier
// change's, debounced, to a subscription opened within those 10 ms).
func (sub *Subscription) Await(ctx context.Context, since int, match func(wire.Entry) bool) bool {
	known := sub.listenIDs()
	ctx, cancel := context.WithTimeout(ctx, sub.s.Conn.RequestTimeout())
	defer cancel()
	_, err := sub.s.Conn.WaitFor(ctx, max(sub.after, since), func(e wire.Entry) bool {
		return sub.owns(e, known) && match(e) // WaitFor offers received entries only
	})
	return err == nil
}

// SubscriptionTag returns the subscription id a message carries in _meta (params
// for a notification, result for a response) and whether it carries one.
func SubscriptionTag(m *wire.Message) (wire.ID, bool) {
	body := m.Params
	if m.IsResponse() {
		body = m.Result
	}
	// Most messages carry no tag, and are not decoded.
	if !rawjson.MayHold(body, MetaSubscriptionID) {
		return wire.ID{}, false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(body, &p) != nil {
		return wire.ID{}, false
	}
	raw, ok := p.Meta[MetaSubscriptionID]
	if !ok {
		return wire.ID{}, false
	}
	id, err := wire.ParseID(raw)
	if err != nil {
		// A tag that is no id (an object, say) is present but names nothing.
		return wire.ID{}, true
	}
	return id, true
}
