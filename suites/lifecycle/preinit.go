package lifecycle

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
)

// The pre-initialize rules (LIFE-PRE-INIT-*) are judged from one probe per revision
// (conform.PreInit): the revision's spare session, on its first opening, sends a ping
// before initialize and a ping before notifications/initialized. It opens no session
// of its own; a server that ends the connection over the probe costs the spare one
// more opening, without the probe.

// preInitCheck is a LIFE-PRE-INIT check: judge reads the revision's
// pre-initialize probe, which every such check shares and none can judge without.
// The spare session makes the probe on its first opening (PhaseOddInput,
// PreInitProbe): a server that ends the connection on a request before initialize
// costs no other check its session.
func preInitCheck(c conform.Check, judge func(*conform.PreInit) conform.Verdict) conform.Check {
	c.Phase = conform.PhaseOddInput
	c.PreInitProbe = true
	c.Run = func(t *conform.T) conform.Verdict {
		p, err := t.PreInit()
		if err != nil {
			return conform.Errorf("no pre-initialize probe: %v", err)
		}
		return judge(p)
	}
	return c
}

// LIFE-PRE-INIT-PING-01 — {rev}/basic/lifecycle.mdx (Initialization); {rev}/basic/utilities/ping.mdx.
var _ = conform.Register(preInitCheck(conform.Check{
	ID: "LIFE-PRE-INIT-PING-01", Title: "a ping sent before initialize is answered",
}, judgePreInitPing))

// judgePreInitPing judges the reply to the ping sent before initialize.
func judgePreInitPing(p *conform.PreInit) conform.Verdict {
	const want = "a reply to a ping sent before initialize"
	switch {
	case p.Ping != nil && !p.Ping.IsError():
		return conform.Pass("answered %s before initialize", conform.ClipBytes(p.Ping.Result, 60))
	case p.Ping != nil:
		return conform.Note("a ping before initialize was refused with %s (the specification does not say a server must answer it)", conform.Describe(p.Ping, nil))
	case p.PingRefused != 0:
		return conform.Note("a ping before initialize was refused with HTTP %d (no session id exists before initialize)", p.PingRefused)
	case p.HandshakeErr != nil && !p.Answered:
		// The process answered nothing, not even initialize: it had not started,
		// and its silence says nothing about pings (LIFE-PRE-INIT-REQ-01 likewise).
		return conform.Skip(conform.NotExercised, "the pre-initialize probe's process answered nothing at all, not even the initialize after the ping, so nothing shows how it treats a ping before initialize: %v", p.HandshakeErr)
	case p.HandshakeErr != nil:
		return conform.Violation(want, fmt.Sprintf("no reply, and the handshake after it failed: %v", p.HandshakeErr))
	}
	return conform.Silence(want, p.PingErr)
}

// LIFE-PRE-INIT-REQ-01 — {rev}/basic/lifecycle.mdx (Initialization).
var _ = conform.Register(preInitCheck(conform.Check{
	ID: "LIFE-PRE-INIT-REQ-01", Title: "no server request but ping before notifications/initialized",
}, judgeEarlyRequests))

// judgeEarlyRequests judges the server requests that came before
// notifications/initialized.
func judgeEarlyRequests(p *conform.PreInit) conform.Verdict {
	var f conform.Findings
	for _, e := range p.Early {
		f.Fail(fmt.Sprintf("#%d %s", e.Seq, e.Msg.Method))
	}
	switch {
	case f.Failed():
		return f.Violation("no request but ping before notifications/initialized")
	case p.HandshakeErr != nil:
		return conform.Skip(conform.NotExercised, "the handshake after the pre-initialize ping failed: %v", p.HandshakeErr)
	case p.BarrierErr != nil:
		return conform.Skip(conform.NotExercised, "the ping sent before notifications/initialized got no reply, so nothing proves what the server would have sent: %v", p.BarrierErr)
	}
	return conform.Pass("no server request between the initialize result and the reply to a ping sent before notifications/initialized")
}
