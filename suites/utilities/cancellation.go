package utilities

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// CANCEL-R5-SERVER-01 — 2026-07-28/basic/patterns/cancellation.mdx.
var _ = conform.Register(conform.Check{
	ID: "CANCEL-R5-SERVER-01", Title: "the server sends notifications/cancelled only to tear down a subscription",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupUtil, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `2026-07-28/basic/patterns/cancellation.mdx: "Servers MUST NOT send notifications/cancelled for any other purpose."; "Server-sent cancellation notifications MUST reference a subscriptions/listen request, to terminate that subscription stream"`,
	Run:    func(t *conform.T) conform.Verdict { return lsJudgeCancel(subscribe.Observe(t)) },
})

// lsJudgeCancel judges every notifications/cancelled the server sent.
func lsJudgeCancel(obs []subscribe.Observed) conform.Verdict {
	var f conform.Findings
	for _, o := range obs {
		for _, e := range o.Entries {
			if e.Msg == nil || e.Msg.Method != "notifications/cancelled" || e.Msg.IsResponse() {
				continue
			}
			f.Judged++
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			_ = json.Unmarshal(e.Msg.Params, &p)
			id, err := wire.ParseID(p.RequestID)
			if err != nil || id.IsZero() || !o.Listens[id.Key()] {
				f.Fail(fmt.Sprintf("%s #%d notifications/cancelled names requestId %s, which is no subscriptions/listen request of the session", o.Label, e.Seq, toolkit.Or(string(p.RequestID), "(none)")))
			}
		}
	}
	if f.Judged == 0 {
		return conform.Skip(reports.NotExercised, "the server sent no notifications/cancelled in this revision's sessions")
	}
	return f.Verdict("notifications/cancelled only for a subscriptions/listen request", "",
		fmt.Sprintf("%d notifications/cancelled, each tearing down a subscription", f.Judged))
}
