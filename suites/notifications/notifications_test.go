package notifications

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

func TestClientNotificationVerdicts(t *testing.T) {
	tests := []struct {
		name    string
		handler conformtest.Handler // the server's answer to notifications/roots/list_changed
		want    reports.Status
	}{
		{"taken silently passes", nil, reports.Pass},
		{"answered with an error fails", func(*wire.Message) []string {
			return []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`}
		}, reports.Fail},
		{"answered with a result fails", func(*wire.Message) []string {
			return []string{`{"jsonrpc":"2.0","id":null,"result":{}}`}
		}, reports.Fail},
		// Over HTTP a refused POST is the transport's answer: noted, never a response.
		{"an HTTP refusal with no body is noted", func(*wire.Message) []string {
			return []string{conformtest.HTTPError(400, ``)}
		}, reports.Pass},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := conformtest.NewServer()
			if tc.handler != nil {
				srv.Handle(ctRootsChanged, tc.handler)
			}
			v := conformtest.Judge(t, "NOTIF-CLIENTNOTIF-01", "2025-06-18", srv)
			if v.Status != tc.want {
				t.Errorf("status %s, want %s (%s)", v.Status, tc.want, v.Message)
			}
		})
	}
}
