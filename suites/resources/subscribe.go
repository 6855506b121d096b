package resources

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Subscriptions (2024-11-05 … 2025-11-25: resources/subscribe) and list_changed.

// firstURI is the uri of the first listed resource ("" when none).
func firstURI(t *conform.T) string {
	for _, it := range resourceList(t).Items {
		if uri, ok := it.String("uri"); ok {
			return uri
		}
	}
	return ""
}

// RES-SUB-01 — {rev}/server/resources.mdx (Capabilities, Subscriptions).
var _ = conform.Register(conform.Check{
	ID: "RES-SUB-01", Title: "with resources.subscribe, resources/subscribe and unsubscribe of a listed resource succeed",
	Run: func(t *conform.T) conform.Verdict {
		requireResources(t)
		if !flag(t, "subscribe") {
			return conform.Skip(conform.NotApplicable, "capabilities.resources.subscribe is not true: the server offers no subscriptions")
		}
		uri := firstURI(t)
		if uri == "" {
			return conform.Skip(conform.NotExercised, "resources/list lists no resource with a string uri to subscribe to")
		}
		s := t.Session()
		sub, err := s.Call(t.Ctx, "resources/subscribe", map[string]any{"uri": uri})
		var unsub *wire.Response
		var uerr error
		if err == nil && !sub.IsError() {
			unsub, uerr = s.Call(t.Ctx, "resources/unsubscribe", map[string]any{"uri": uri})
		}
		return judgeSubscribe(uri, toolcall.Classify(sub, err), unsub, uerr, func(raw json.RawMessage) error { return t.Rev.Validate("EmptyResult", raw) })
	},
})

// judgeSubscribe wants an empty result for the subscription and for its end.
func judgeSubscribe(uri string, sub toolcall.Reply, unsub *wire.Response, uerr error, validate func(json.RawMessage) error) conform.Verdict {
	label := fmt.Sprintf("resources/subscribe{uri: %q}", conform.Clip(uri, 80))
	switch {
	case sub.Kind == toolcall.KindNone:
		return conform.Silence("a result for "+label, sub.Err)
	case sub.Kind != toolcall.KindResult:
		return conform.Violation("a result for "+label+" from a server that declared resources.subscribe", sub.Desc)
	case validate(sub.Raw) != nil:
		return conform.Violation("an EmptyResult for "+label, toolkit.Problems(validate(sub.Raw), ""))
	}
	ulabel := fmt.Sprintf("resources/unsubscribe{uri: %q}", conform.Clip(uri, 80))
	switch {
	case uerr != nil:
		return conform.Silence("a result for "+ulabel, uerr)
	case unsub.IsError():
		return conform.Violation("a result for "+ulabel+" after the subscription succeeded", conform.Describe(unsub, nil))
	case validate(unsub.Result) != nil:
		return conform.Violation("an EmptyResult for "+ulabel, toolkit.Problems(validate(unsub.Result), ""))
	}
	return conform.Pass("%s and %s both answered with an empty result", label, ulabel)
}

// RES-SUB-UNDECLARED-01 — 2026-07-28 schema MethodNotFoundError; JSON-RPC 2.0 §5.1.
var _ = conform.Register(conform.Check{
	ID: "RES-SUB-UNDECLARED-01", Title: "without resources.subscribe, resources/subscribe is answered with -32601",
	Run: func(t *conform.T) conform.Verdict {
		requireResources(t)
		if flag(t, "subscribe") {
			return conform.Skip(conform.NotApplicable, "capabilities.resources.subscribe is true")
		}
		uri := firstURI(t)
		if uri == "" {
			uri = notFoundURI
		}
		resp, err := t.Session().Call(t.Ctx, "resources/subscribe", map[string]any{"uri": uri})
		return judgeMethodNotFound([]toolcall.Probe{{Label: fmt.Sprintf("resources/subscribe{uri: %q} (no resources.subscribe)", conform.Clip(uri, 80)), R: toolcall.Classify(resp, err)}},
			"resources/subscribe of a server that did not declare resources.subscribe")
	},
})

// RES-SUB-UPDATED-01 — {rev} schema ResourceUpdatedNotification.
var _ = conform.Register(conform.Check{
	ID: "RES-SUB-UPDATED-01", Title: "notifications/resources/updated only for a URI subscribed to before it",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, s := range t.Sessions() {
			judgeUpdates(s.Label, t.Transcript(s), &f)
		}
		return f.VerdictOrNone("no notifications/resources/updated was received in this revision's sessions",
			"notifications/resources/updated only for a resource the client subscribed to (or a sub-resource of it)",
			fmt.Sprintf("%d notifications/resources/updated, each for a URI subscribed to before it", f.Judged))
	},
})

// judgeUpdates reads one session's transcript in order: the URIs of the
// resources/subscribe requests sent so far (whatever their answer), and each
// notifications/resources/updated received, whose uri must be one of them or under
// one ("This might be a sub-resource of the one that the client actually subscribed
// to").
func judgeUpdates(label string, entries []wire.Entry, f *conform.Findings) {
	var subscribed []string
	for _, e := range entries {
		if e.Msg == nil {
			continue
		}
		var p struct {
			URI *string `json:"uri"`
		}
		_ = json.Unmarshal(e.Msg.Params, &p)
		switch {
		case e.Dir == wire.Sent && e.Msg.Method == "resources/subscribe" && p.URI != nil:
			subscribed = append(subscribed, *p.URI)
		case e.Dir == wire.Received && e.Msg.Method == "notifications/resources/updated" && !e.Msg.Members["id"]:
			f.Judged++
			where := fmt.Sprintf("session %s entry #%d", label, e.Seq)
			switch {
			case p.URI == nil:
				f.Fail(where + ": notifications/resources/updated without a string uri")
			case !under(*p.URI, subscribed):
				f.Fail(fmt.Sprintf("%s: notifications/resources/updated for %q, which was not subscribed to (subscribed before it: %s)", where, conform.Clip(*p.URI, 80), quoteAll(subscribed)))
			}
		}
	}
}

// under reports whether uri is one of the subscribed URIs or below one of them.
func under(uri string, subscribed []string) bool {
	for _, s := range subscribed {
		if uri == s || strings.HasPrefix(uri, strings.TrimSuffix(s, "/")+"/") {
			return true
		}
	}
	return false
}

func quoteAll(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", conform.Clip(s, 60))
	}
	return strings.Join(q, ", ")
}

// RES-LC-UNDECLARED-01 — {rev}/basic/lifecycle.mdx (Operation).
var _ = conform.Register(conform.Check{
	ID: "RES-LC-UNDECLARED-01", Title: "notifications/resources/list_changed only from a server that declared resources.listChanged",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		for _, s := range t.Sessions() {
			declared := resourcesListChanged(s.Capabilities()["resources"])
			for _, e := range t.Transcript(s) {
				if e.Dir != wire.Received || e.Msg == nil || e.Msg.Method != "notifications/resources/list_changed" {
					continue
				}
				f.Judged++
				if !declared {
					f.Fail(fmt.Sprintf("session %s entry #%d: notifications/resources/list_changed, and the session's capabilities.resources is %s", s.Label, e.Seq, toolkit.Or(string(s.Capabilities()["resources"]), "absent")))
				}
			}
		}
		return f.VerdictOrNone("no notifications/resources/list_changed was received in this revision's sessions",
			"notifications/resources/list_changed only after declaring resources.listChanged: true",
			fmt.Sprintf("%d notifications/resources/list_changed, all in sessions that declared resources.listChanged", f.Judged))
	},
})

// resourcesListChanged reports whether a capabilities.resources value sets
// listChanged to true.
func resourcesListChanged(raw json.RawMessage) bool {
	return string(toolkit.Object(raw)["listChanged"]) == "true"
}
