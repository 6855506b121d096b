package conform

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// PreInit is what a legacy server did before its handshake was complete
// (LIFE-PRE-INIT-*): a check that declares Check.PreInitProbe makes a session of
// the revision open in steps instead of at once. It costs no session of its own:
// over stdio the main session opens so (openMain), over HTTP the spare session on
// its first opening (openSpare), and the probe is made once per revision.
//
// The steps (every revision's basic/lifecycle.mdx, Initialization):
//  1. the transport is dialed and a ping is sent before initialize;
//  2. initialize is sent and answered;
//  3. before notifications/initialized, a ping is the barrier that proves which
//     server requests came after the initialize result (on stdio the channel is
//     ordered; over HTTP each request's reply is its POST's);
//  4. notifications/initialized is sent; the spare's first barrier then proves a
//     missing reply to the first ping.
//
// Over Streamable HTTP the first ping carries no Mcp-Session-Id (none is issued
// before initialize): a server that requires one refuses it with an HTTP status,
// which reads as an error reply, as a JSON-RPC error does on stdio.
type PreInit struct {
	// Ping is the reply to the ping sent before initialize (nil: none came). An HTTP
	// refusal whose body carries a JSON-RPC error is that error.
	Ping *wire.Response
	// PingErr says why Ping is nil: silence proven by the barriers, an HTTP refusal
	// without a JSON-RPC body, the connection ended, or no proof.
	PingErr error
	// PingRefused is the HTTP status that refused the ping (0: none).
	PingRefused int
	// Early are the server's requests other than ping that arrived after the
	// initialize result and before notifications/initialized was sent.
	Early []wire.Entry
	// BarrierErr is set when the ping sent before notifications/initialized got no
	// reply: then Early holds what came, but proves no absence.
	BarrierErr error
	// HandshakeErr is set when the handshake failed after the ping (the server
	// ended the connection, refused initialize): the spare was opened again without
	// the probe.
	HandshakeErr error
	// Answered says the probe's process sent anything at all (a reply, a
	// notification, a request, a line that does not parse): one that answered
	// nothing, not even initialize, had not started and proves nothing about pings.
	Answered bool

	ping *wire.Call
	// session is the probe's session and upTo the last transcript seq of the probe:
	// a verdict on it shows that exchange, not what other sessions did meanwhile.
	session *Session
	upTo    int
}

// record notes the probe's session, what it received and where the probe ended.
func (p *PreInit) record(s *Session) {
	if s == nil || s.Conn == nil {
		return
	}
	p.session, p.upTo = s, s.Conn.Seq()
	for range s.Conn.EachReceived(0) {
		p.Answered = true
		break
	}
}

// exchange is the probe's own exchange: its session's transcript up to the end of
// the probe (nil when the probe made no session).
func (p *PreInit) exchange() *reports.Exchange {
	if p.session == nil {
		return nil
	}
	s := p.session
	entries, _ := s.Conn.Transcript()
	es := reports.ExchangeSession{Session: s.Label, Transport: s.Kind, Requested: s.Requested, Negotiated: s.Negotiated}
	n := 0
	for _, e := range entries {
		if e.Seq > p.upTo {
			break
		}
		if n == sliceMaxMessages {
			es.Omitted++
			continue
		}
		es.Messages = append(es.Messages, exchangeMessage(e))
		n++
	}
	return &reports.Exchange{Sessions: []reports.ExchangeSession{es}}
}

// preInitHooks are the driver's steps for a PreInit probe (nil: a plain open).
type preInitHooks struct{ p *PreInit }

// beforeInitialize sends the first ping without waiting for its reply.
func (h *preInitHooks) beforeInitialize(ctx context.Context, c *wire.Conn) {
	call, err := c.Start(ctx, "ping", nil)
	if err != nil {
		h.refused(err)
		return
	}
	h.p.ping = call
}

// refused records a ping whose send failed: over HTTP, a refusal status.
func (h *preInitHooks) refused(err error) {
	if r, ok := RPCErrorReply(err, "ping"); ok {
		h.p.Ping = r
	}
	var se *transport.HTTPStatusError
	if errors.As(err, &se) {
		h.p.PingRefused = se.Status
	}
	h.p.PingErr = err
}

// beforeInitialized sends the barrier ping and records the server requests that
// came between the initialize result and its reply.
func (h *preInitHooks) beforeInitialized(ctx context.Context, c *wire.Conn, after int) {
	if _, err := c.Call(ctx, "ping", nil); err != nil {
		h.p.BarrierErr = err
	}
	for e := range c.EachReceived(after) {
		if e.Msg != nil && e.Msg.Kind == wire.KindRequest && e.Msg.Method != "ping" {
			h.p.Early = append(h.p.Early, e)
		}
	}
}

// settle reads the first ping's outcome once the spare's first barrier has been
// answered (proven is false when it was not): a reply not in by then is not coming.
func (p *PreInit) settle(proven bool, barrierErr error) {
	if p.ping == nil || p.Ping != nil || p.PingErr != nil {
		return
	}
	select {
	case <-p.ping.Done():
		resp, err := p.ping.Wait(context.Background())
		p.Ping, p.PingErr = resp, err
		return
	default:
	}
	if proven {
		p.PingErr = fmt.Errorf("ping (id %s): %w: the replies to initialize and to two later pings came, none to it", p.ping.ID, wire.ErrTimeout)
		return
	}
	p.PingErr = fmt.Errorf("ping (id %s): no reply, and no proof that none is coming: %v", p.ping.ID, barrierErr)
}

// pingDone reports whether the first ping's outcome is in (Flush's enough).
func (p *PreInit) pingDone() bool {
	if p.ping == nil {
		return true
	}
	select {
	case <-p.ping.Done():
		return true
	default:
		return false
	}
}

// setPreInit records the column's probe.
func (col *column) setPreInit(p *PreInit) {
	col.mu.Lock()
	defer col.mu.Unlock()
	col.preInit = p
}

// wantsPreInit reports whether a selected check of the column reads T.PreInit.
func (rs *runState) wantsPreInit(col *column) bool {
	if col.rev.Era != revision.Legacy {
		return false
	}
	for _, c := range rs.checksFor(col.rev) {
		if c.PreInitProbe {
			return true
		}
	}
	return false
}

// openSpare opens the column's spare session, making the PreInit probe on its first
// opening when a selected check wants it and no opening made it yet, and gives it
// its first barrier (the probes that use it count replies no call claims: whatever
// the server wrote in answer to the handshake, a reply to notifications/initialized
// too, is read first).
func (rs *runState) openSpare(ctx context.Context, col *column) (*Session, error) {
	col.mu.Lock()
	probed := col.preInit != nil
	col.mu.Unlock()
	if !probed && rs.wantsPreInit(col) {
		if s, err, ok := rs.openProbing(ctx, col); ok {
			return s, err
		}
	}
	s, err := rs.openSession(ctx, col, col.rev.Name)
	if err != nil {
		return s, err
	}
	if err := s.Barrier(ctx); err != nil {
		return s, fmt.Errorf("the spare session's first barrier: %w", err)
	}
	return s, nil
}

// openMain opens the column's main session. On a target of a process per session
// (stdio) it makes the PreInit probe on that opening when a selected check wants
// it: the pings the probe sends before initialize and before
// notifications/initialized are ones every legacy revision allows (basic/
// lifecycle.mdx, Initialization), so the session goes on as any other, and the
// probe costs no process of its own. A server that ends the connection over the
// probe, or refuses the handshake after it, has its main session opened again
// without it: it pays for that reopening, and only it. Over HTTP the probe stays on
// the spare session, opened on first use, as before.
func (rs *runState) openMain(ctx context.Context, col *column) (*Session, error) {
	if rs.tgt.isolated() && rs.wantsPreInit(col) {
		s, err, ok := rs.openProbing(ctx, col)
		if ok && err == nil && s.Conn.Err() == nil {
			return s, nil
		}
		if ok {
			s.Close(ctx)
		}
	}
	return rs.openSession(ctx, col, col.rev.Name)
}

// openProbing opens a session of the column with the PreInit probe and records the
// probe. ok is false when the handshake failed after the probe: the session is then
// closed, and the caller opens one without the probe.
func (rs *runState) openProbing(ctx context.Context, col *column) (s *Session, err error, ok bool) {
	p := &PreInit{}
	s, err = rs.openSessionWith(ctx, col, col.rev.Name, &preInitHooks{p: p})
	if err != nil {
		p.HandshakeErr = err
		p.settle(false, err)
		p.record(s)
		col.setPreInit(p)
		if s != nil {
			s.Close(ctx)
		}
		return nil, nil, false
	}
	// Flush, not Barrier: over Streamable HTTP the first ping's reply may still be
	// on its POST's stream; Flush waits for every stream to end.
	ferr := s.Conn.Flush(ctx, p.pingDone)
	p.settle(ferr == nil, ferr)
	p.record(s)
	col.setPreInit(p)
	if ferr != nil {
		return s, fmt.Errorf("the first barrier after the pre-initialize probe: %w", ferr), true
	}
	return s, nil, true
}

// PreInit returns what the server did before its handshake was complete, seen on
// the revision's main session's opening (stdio) or on its spare session (opened
// here if no check opened it yet). Only
// odd-input checks that declare PreInitProbe (and so Spare) may use it.
func (t *T) PreInit() (*PreInit, error) {
	t.allow(PhaseOddInput, "reads the pre-initialize probe (T.PreInit)")
	if !t.Check.PreInitProbe {
		t.misused(fmt.Sprintf("%s reads T.PreInit and does not declare PreInitProbe", t.Check.ID))
	}
	t.col.mu.Lock()
	p := t.col.preInit
	t.col.mu.Unlock()
	var err error
	if p == nil {
		// Not made at the main session's opening (over HTTP): the spare
		// session's first opening makes it.
		_, err = t.SpareSession()
		t.col.mu.Lock()
		p = t.col.preInit
		t.col.mu.Unlock()
	}
	switch {
	case p != nil:
		// A verdict on the probe shows the probe's exchange: the spare session
		// opened again after a failed probe, or the other sessions' traffic
		// since the check started, are not its evidence.
		t.exchangeOf = p.exchange
		return p, nil
	case err != nil:
		return nil, err
	}
	return nil, errors.New("the spare session opened without the pre-initialize probe")
}
