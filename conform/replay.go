package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// replayBarrier is the id of the ping that ends each replayed session: whatever the
// server sent before answering it has been seen, without waiting out a timeout.
const replayBarrier = "mcp-conform-replay-barrier"

// ErrUnreachable wraps a replay's failure to reach the target (exit code 4).
var ErrUnreachable = errors.New("the target could not be reached")

// Replay re-sends the client messages of a transcript slice to the target of cfg,
// session by session, and writes what crossed the wire to out, in the format of
// reports.WriteExchangeText. A session whose slice starts after its handshake is first
// initialized as the slice's was (same protocolVersion); one whose slice holds its
// initialize is replayed from its first byte. Each request waits for its reply
// (bounded by cfg.Timeout); the suite's own answers to server requests are not
// re-sent (the replaying client answers anew). It returns the replayed exchange.
func Replay(ctx context.Context, cfg Config, ex *reports.Exchange, out io.Writer) (*reports.Exchange, error) {
	cfg = cfg.withDefaults()
	if ex.Empty() {
		return nil, configErr("the slice holds no message to replay")
	}
	tgt, _, err := newTarget(cfg)
	if err != nil {
		return nil, err
	}
	defer func() {
		stopCtx, stop := context.WithTimeout(context.Background(), 3*cfg.KillGrace+2*time.Second)
		defer stop()
		tgt.close(stopCtx)
		transport.StopAll(stopCtx)
	}()
	startCtx, stop := context.WithTimeout(ctx, cfg.StartTimeout)
	err = tgt.start(startCtx)
	stop()
	if err != nil {
		return nil, fmt.Errorf("%w: target did not start: %v", ErrUnreachable, err)
	}
	got := &reports.Exchange{}
	for i, es := range ex.Sessions {
		var sends []reports.ExchangeMessage
		for _, m := range es.Messages {
			if m.Sent() && !m.IsResponse() {
				sends = append(sends, m)
			}
		}
		if len(sends) == 0 {
			continue
		}
		sess, err := replaySession(ctx, cfg, tgt, es, sends, fmt.Sprintf("replay-%02d", i+1))
		if sess != nil {
			got.Sessions = append(got.Sessions, *sess)
		}
		if err != nil {
			_ = reports.WriteExchangeText(out, got)
			return got, err
		}
	}
	return got, reports.WriteExchangeText(out, got)
}

// replaySession replays one session's client messages on a new connection.
func replaySession(ctx context.Context, cfg Config, tgt target, es reports.ExchangeSession, sends []reports.ExchangeMessage, label string) (*reports.ExchangeSession, error) {
	var conn *wire.Conn
	var kind string
	if sends[0].Method() == "initialize" {
		tr, err := tgt.dial(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		kind = tr.Kind()
		conn = wire.NewConn(tr, wire.Options{RequestTimeout: max(cfg.Timeout, cfg.StartTimeout)})
	} else {
		rev, ok := revision.Lookup(es.Requested)
		if !ok {
			rev, ok = revision.Lookup(es.Negotiated)
		}
		if !ok {
			return nil, configErr("session %s asked for %q, a revision this suite does not know", es.Session, es.Requested)
		}
		opts := sessionOptions{timeout: cfg.Timeout, initTimeout: cfg.StartTimeout, label: label, version: cfg.ToolVersion}
		s, err := drivers[rev.Era].open(ctx, tgt, es.Requested, rev, opts)
		if err != nil && s.Conn != nil {
			if _, isRPC := refused(err); !isRPC && tgt.fallback(ctx, err) {
				s.Close(ctx)
				s, err = drivers[rev.Era].open(ctx, tgt, es.Requested, rev, opts)
			}
		}
		if err != nil {
			if s.Conn != nil {
				defer s.Close(context.WithoutCancel(ctx))
				return replayed(s.Conn, label, s.Kind, es), fmt.Errorf("initialize as the slice's session did (protocolVersion %s): %w", es.Requested, err)
			}
			return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		conn, kind = s.Conn, s.Kind
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*cfg.KillGrace+time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	for _, m := range sends {
		raw := []byte(m.Text())
		id, isRequest := requestID(m)
		if !isRequest {
			if err := conn.SendRaw(ctx, raw); err != nil {
				break // the transcript shows how the connection ended
			}
			continue
		}
		resp, err := conn.CallRaw(ctx, id, m.Method(), raw)
		if m.Method() == "initialize" && err == nil && !resp.IsError() {
			setVersionHeader(conn, resp)
		}
		if err != nil && conn.Err() != nil {
			break
		}
	}
	if conn.Err() == nil {
		// The barrier: every message the server sent before its answer to this
		// ping has arrived.
		_, _ = conn.CallID(ctx, wire.StringID(replayBarrier), "ping", nil)
	}
	return replayed(conn, label, kind, es), nil
}

// requestID returns the id of a request (a message with a method and an id).
func requestID(m reports.ExchangeMessage) (wire.ID, bool) {
	var probe struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if len(m.Message) == 0 || json.Unmarshal(m.Message, &probe) != nil || probe.Method == "" || len(probe.ID) == 0 {
		return wire.ID{}, false
	}
	id, err := wire.ParseID(probe.ID)
	if err != nil || id.IsNull() {
		return wire.ID{}, false
	}
	return id, true
}

// setVersionHeader makes later HTTP requests carry MCP-Protocol-Version when the
// replayed initialize negotiated a revision that requires it.
func setVersionHeader(conn *wire.Conn, resp *wire.Response) {
	hs, ok := conn.Transport().(transport.HTTPSession)
	if !ok {
		return
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &res) != nil {
		return
	}
	if rev, ok := revision.Lookup(res.ProtocolVersion); ok && rev.Has(revision.VersionHeader) {
		hs.SetProtocolVersion(res.ProtocolVersion)
	}
}

// replayed is the connection's transcript as an exchange session, without the
// barrier ping and its answer.
func replayed(conn *wire.Conn, label, kind string, from reports.ExchangeSession) *reports.ExchangeSession {
	entries, dropped := conn.Transcript()
	out := &reports.ExchangeSession{Session: label, Transport: kind, Requested: from.Requested, Omitted: dropped}
	barrier := wire.StringID(replayBarrier).Key()
	for _, e := range entries {
		if e.Msg != nil && !e.Msg.ID.IsZero() && e.Msg.ID.Key() == barrier {
			continue
		}
		out.Messages = append(out.Messages, exchangeMessage(e))
	}
	return out
}
