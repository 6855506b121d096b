package notifications

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// ctRootsChanged is the client notification NOTIF-CLIENTNOTIF-01 sends: one of the
// notifications a client sends of its own, which the suite otherwise never does.
const ctRootsChanged = "notifications/roots/list_changed"

// NOTIF-CLIENTNOTIF-01 — {rev}/client/roots.mdx; {rev}/basic/index.mdx (Notifications).
var _ = conform.Register(conform.Check{
	ID: "NOTIF-CLIENTNOTIF-01", Title: "a client notification (notifications/roots/list_changed) is taken silently",
	// The suite declared no roots capability, so a server may take the notification
	// as unexpected; it still owes it no response. A transcript-wide check: sent in
	// the probe pass, judged after the column settles (no grace period to wait out).
	Probe: func(t *conform.T) { clientNotifOnce(t) },
	Run: func(t *conform.T) conform.Verdict {
		p := clientNotifOnce(t)
		if p.Answer.Err != nil {
			return conform.Errorf("not verified: %s", conform.Describe(nil, p.Answer.Err))
		}
		a := p.SettledFor(t)
		switch {
		case len(a.Replies) > a.FromRefusals:
			return conform.Violation("no response to "+ctRootsChanged, a.Describe())
		case a.Err != nil:
			return conform.Errorf("not verified: after the notification, %s", conform.Describe(nil, a.Err))
		case len(a.Refused) > 0:
			return conform.Note("no JSON-RPC response on any stream; the POST was refused with %s, which the transport allows (SHTTP-POST-202-01 judges the status)", a.Describe())
		}
		return conform.Pass("no response to %s (proven when the session settled)", ctRootsChanged)
	},
})

// clientNotifOnce is NOTIF-CLIENTNOTIF-01's probe, made once per revision: the
// notification sent on the main session.
func clientNotifOnce(t *conform.T) toolkit.StrayProbe {
	return t.Once("NOTIF-CLIENTNOTIF-01:"+t.Rev.Name, func() any {
		raw, err := wire.EncodeNotification(ctRootsChanged, nil)
		if err != nil {
			return toolkit.StrayProbe{Answer: toolkit.StrayAnswer{Err: fmt.Errorf("encode the notification: %w", err)}}
		}
		return toolkit.SendBeforeSettle(t, t.Session(), raw)
	}).(toolkit.StrayProbe)
}
