package transports

import (
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

func TestEndpointVerdicts(t *testing.T) {
	runSHTTPCases(t, []shttpCase{
		{"GET 405", "SHTTP-ENDPOINT-01", "", &shttpServer{}, reports.Pass, "HTTP 405"},
		{"GET stream", "SHTTP-ENDPOINT-01", "", &shttpServer{getStatus: 200}, reports.Pass, "text/event-stream"},
		{"GET 404 fails", "SHTTP-ENDPOINT-01", "", &shttpServer{getStatus: 404}, reports.Fail, "HTTP 404"},
		{"GET 400 is GET-01's", "SHTTP-ENDPOINT-01", "", &shttpServer{getStatus: 400}, reports.Pass, "note: "},

		{"notifications 202", "SHTTP-POST-202-01", "", &shttpServer{}, reports.Pass, "notifications/cancelled"},
		{"probes refused", "SHTTP-POST-202-01", "", &shttpServer{refuseProbes: true}, reports.Pass, "refused with HTTP 400"},
		{"notification 200 fails", "SHTTP-POST-202-01", "", &shttpServer{notifStatus: 200}, reports.Fail, "accepted with HTTP 200"},

		{"bad notification 400", "SHTTP-POST-REJECT-01", "", &shttpServer{}, reports.Pass, "HTTP 400"},
		{"bad notification 202 fails", "SHTTP-POST-REJECT-01", "", &shttpServer{rejectStatus: 202}, reports.Fail, "HTTP 202"},

		{"unparseable 400", "SHTTP-BADBODY-01", "", &shttpServer{}, reports.Pass, "-32700"},
		{"unparseable 422", "SHTTP-BADBODY-01", "", &shttpServer{badBodyStatus: 422}, reports.Pass, "note: "},
		{"unparseable 200 warns", "SHTTP-BADBODY-01", "", &shttpServer{badBodyStatus: 200}, reports.Warn, "HTTP 200"},

		{"JSON replies", "SHTTP-POST-CT-01", "", &shttpServer{}, reports.Pass, "request POSTs"},
		{"text/plain fails", "SHTTP-POST-CT-01", "", &shttpServer{replyType: "text/plain"}, reports.Fail, `"text/plain"`},

		{"foreign Origin 403", "SHTTP-ORIGIN-01", "2025-03-26", &shttpServer{}, reports.Pass, "HTTP 403"},
		{"foreign Origin 400", "SHTTP-ORIGIN-01", "2025-03-26", &shttpServer{originStatus: 400}, reports.Pass, "HTTP 400"},
		{"foreign Origin served fails", "SHTTP-ORIGIN-01", "2025-03-26", &shttpServer{originStatus: 200}, reports.Fail, "HTTP 200"},
		{"403 in 2025-11-25", "SHTTP-ORIGIN-403-01", "2025-11-25", &shttpServer{}, reports.Pass, "HTTP 403"},
		{"400 in 2025-11-25 fails", "SHTTP-ORIGIN-403-01", "2025-11-25", &shttpServer{originStatus: 400}, reports.Fail, "HTTP 400"},
	})
}
