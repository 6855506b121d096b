package utilities

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
)

// PING-01 — {rev}/basic/utilities/ping.mdx.
var _ = conform.Register(conform.Check{
	ID: "PING-01", Title: "ping is answered promptly with an empty result",
	Run: func(t *conform.T) conform.Verdict {
		resp, err := t.Session().Call(t.Ctx, "ping", nil)
		result := t.ExpectResult(resp, err, "ping")
		var m map[string]any
		if err := json.Unmarshal(result, &m); err != nil {
			return conform.Violation("an empty result {}", "result "+string(result))
		}
		delete(m, "_meta") // every result may carry _meta
		switch {
		case len(m) > 0:
			return conform.Warn("an empty result {}", "result "+string(result))
		case resp.Elapsed > time.Second:
			return conform.Warn("a prompt reply (within 1 s)", fmt.Sprintf("the reply took %s", resp.Elapsed.Round(time.Millisecond)))
		}
		return conform.Pass("{} in %s", resp.Elapsed.Round(time.Millisecond))
	},
})
