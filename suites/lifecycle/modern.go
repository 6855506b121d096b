package lifecycle

import (
	"encoding/json"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// MOD-DISCOVER-01 — 2026-07-28/server/discover.mdx; basic/versioning.mdx.
// The column's session is opened with server/discover (the era probe), so its reply
// is the one judged: a server that does not answer it the modern way has no
// 2026-07-28 column at all (revision-unsupported).
var _ = conform.Register(conform.Check{
	ID: "MOD-DISCOVER-01", Title: "server/discover is answered with a DiscoverResult",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `2026-07-28/server/discover.mdx: "server/discover lets a client query a server's supported protocol versions, capabilities, and identity … Servers MUST implement it."; schema DiscoverResult: "required": ["cacheScope", "capabilities", "resultType", "supportedVersions", "ttlMs"]`,
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		want := "a DiscoverResult for server/discover"
		if s.Init == nil {
			return t.Silent(want, t.ColumnErr())
		}
		if s.Init.IsError() {
			return t.Violation(want, conform.Describe(s.Init, nil))
		}
		if err := s.Rev.Validate("DiscoverResult", json.RawMessage(s.Init.Result)); err != nil {
			return t.Violation("a DiscoverResult valid under the "+s.Rev.Name+" schema", err.Error())
		}
		var r struct {
			ResultType string `json:"resultType"`
		}
		_ = json.Unmarshal(s.Init.Result, &r)
		if r.ResultType != "complete" {
			return t.Violation(`resultType "complete" on the DiscoverResult`, "resultType "+conform.Clip(r.ResultType, 40))
		}
		return conform.Pass("DiscoverResult valid under the %s schema, supportedVersions include %s", s.Rev.Name, t.Rev.Name)
	},
})
