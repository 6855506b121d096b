package utilities

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
)

// lsObs builds an observed session from scripted traffic.
var lsObs = subscribe.MustObservedOf

// CANCEL-R5-SERVER-01 over scripted traffic: a server's notifications/cancelled
// only tears down a subscription it opened.
func TestJudgeCancel(t *testing.T) {
	sub := []wire.ID{wire.NumberID(7)}
	ack := conformtest.Notification(conform.MethodAcknowledged, `{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`)
	cases := []struct {
		name string
		obs  func(t *testing.T) []subscribe.Observed
		want conform.Outcome
	}{
		{"none is not exercised", func(t *testing.T) []subscribe.Observed { return []subscribe.Observed{lsObs(t, sub, ack)} }, conform.OutcomeSkip},
		{"tearing down the subscription passes", func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{"requestId":7}`))}
		}, conform.OutcomePass},
		{"the id as a string is another request and fails", func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{"requestId":"7"}`))}
		}, conform.OutcomeViolation},
		{"another request fails", func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{"requestId":9}`))}
		}, conform.OutcomeViolation},
		{"no requestId fails", func(t *testing.T) []subscribe.Observed {
			return []subscribe.Observed{lsObs(t, sub, conformtest.Notification("notifications/cancelled", `{}`))}
		}, conform.OutcomeViolation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := lsJudgeCancel(tc.obs(t))
			if got := v.Outcome(); got != tc.want {
				t.Fatalf("outcome %s, want %s (%s)", got, tc.want, v.Message)
			}
		})
	}
}
