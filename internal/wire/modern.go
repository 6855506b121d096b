package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// Stamp returns params with the Conn's per-request metadata (Options.Meta) merged
// into params._meta; without Meta it returns params unchanged. Keys already in
// params._meta win. Params that are not a JSON object (or null) are returned as they
// are: a probe that sends params "abc" means exactly that.
func (c *Conn) Stamp(params any) any {
	meta := c.meta()
	if len(meta) == 0 {
		return params
	}
	return StampMeta(params, meta)
}

// Meta returns a copy of the metadata the Conn stamps into every request (nil when
// none), so that probes building raw bytes can stamp them too, or leave a key out.
func (c *Conn) Meta() map[string]any { return maps.Clone(c.meta()) }

// meta is the metadata in force (Options.Meta until DropMeta).
func (c *Conn) meta() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opts.Meta
}

// DropMeta stops stamping metadata into later requests: the connection of a stdio
// era probe that found a legacy server goes on with the initialize handshake,
// whose requests carry no per-request metadata (2026-07-28
// basic/transports/stdio.mdx, Backward Compatibility).
func (c *Conn) DropMeta() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opts.Meta = nil
}

// StampMeta merges meta into params._meta (see Conn.Stamp).
func StampMeta(params any, meta map[string]any) any {
	var obj map[string]json.RawMessage
	switch p := params.(type) {
	case nil:
		obj = map[string]json.RawMessage{}
	case json.RawMessage:
		if json.Unmarshal(p, &obj) != nil || obj == nil {
			return params
		}
	default:
		b, err := json.Marshal(params)
		if err != nil || json.Unmarshal(b, &obj) != nil || obj == nil {
			return params
		}
	}
	merged := maps.Clone(meta)
	if raw, ok := obj["_meta"]; ok {
		var own map[string]json.RawMessage
		if json.Unmarshal(raw, &own) != nil {
			return params // a non-object _meta is the caller's probe
		}
		for k, v := range own {
			merged[k] = v
		}
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return params
	}
	obj["_meta"] = b
	return obj
}

// Call is a request in flight whose reply may be long in coming (a
// subscriptions/listen stream): Start sends it and returns at once.
type Call struct {
	ID     ID
	Method string
	c      *Conn
	pc     *pendingCall
	done   chan struct{}
	resp   *Response
	err    error
}

// Start sends a request (stamped like CallID's) and returns without waiting for its
// reply, which no request timeout bounds: Wait bounds it with its own context, and
// Cancel ends it the way the transport cancels a request.
func (c *Conn) Start(ctx context.Context, method string, params any) (*Call, error) {
	id := c.NextID()
	raw, err := EncodeRequest(id, method, c.Stamp(params))
	if err != nil {
		return nil, err
	}
	pc := &pendingCall{id: id, method: method, ch: make(chan *Response, 1), failed: make(chan error, 1), sent: time.Now()}
	c.mu.Lock()
	c.used[id.Key()] = true
	c.pending[id.Key()] = pc
	c.mu.Unlock()
	if err := c.send(ctx, raw); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("%s (id %s): %w", method, id, err)
	}
	call := &Call{ID: id, Method: method, c: c, pc: pc, done: make(chan struct{})}
	go call.await()
	return call, nil
}

func (c *Conn) forget(id ID) {
	c.mu.Lock()
	delete(c.pending, id.Key())
	c.mu.Unlock()
}

// await records the reply, a rejected reply or the end of the connection.
func (k *Call) await() {
	defer close(k.done)
	defer k.c.forget(k.ID)
	select {
	case k.resp = <-k.pc.ch:
	case err := <-k.pc.failed:
		k.err = fmt.Errorf("%s (id %s): %w: %w", k.Method, k.ID, ErrRejectedReply, err)
	case <-k.c.readerDone:
		select {
		case k.resp = <-k.pc.ch:
		default:
			k.err = fmt.Errorf("%s (id %s): %w: %v", k.Method, k.ID, ErrClosed, k.c.endReason())
		}
	}
}

// Done is closed once the reply is in or the connection ended.
func (k *Call) Done() <-chan struct{} { return k.done }

// Wait returns the reply, bounded by ctx (an ended ctx wraps ErrTimeout when it was
// a deadline).
func (k *Call) Wait(ctx context.Context) (*Response, error) {
	select {
	case <-k.done:
		return k.resp, k.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s (id %s): %w (waited %s)", k.Method, k.ID, ErrTimeout, time.Since(k.pc.sent).Round(time.Millisecond))
		}
		return nil, fmt.Errorf("%s (id %s): %w", k.Method, k.ID, ctx.Err())
	}
}

// streamCanceller is a transport on which a request is cancelled by closing its own
// stream (Streamable HTTP in 2026-07-28).
type streamCanceller interface {
	CancelStream(rawID string) bool
}

// Cancel ends the request: by closing its stream where the transport carries one per
// request (Streamable HTTP), otherwise with notifications/cancelled naming its id.
// It does not wait for the reply; a reply that still comes is recorded.
func (k *Call) Cancel(ctx context.Context) error {
	if sc, ok := k.c.t.(streamCanceller); ok {
		if b, err := json.Marshal(k.ID); err == nil && sc.CancelStream(string(b)) {
			return nil
		}
		if _, isHTTP := k.c.t.(transport.HTTPSession); isHTTP {
			return nil // the stream already ended: nothing is left to cancel
		}
	}
	return k.c.Notify(ctx, "notifications/cancelled", map[string]any{"requestId": k.ID, "reason": "mcp-conform: done listening"})
}
