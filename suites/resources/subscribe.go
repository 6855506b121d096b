package resources

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolcall"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// Subscriptions (2024-11-05 … 2025-11-25: resources/subscribe; 2026-07-28: the
// resourceSubscriptions of subscriptions/listen) and list_changed.

// firstURI is the uri of the first listed resource ("" when none).
func firstURI(t *conform.T) string {
	for _, it := range resourceList(t).Items {
		if uri, ok := it.String("uri"); ok {
			return uri
		}
	}
	return ""
}

// subscribableURI is the listed resource the subscription checks subscribe to. It
// ends the check with not-applicable when the server declared no resources or no
// resources.subscribe, and with not-exercised when no resource has a string uri.
func subscribableURI(t *conform.T) string {
	requireResources(t)
	if !flag(t, "subscribe") {
		t.SkipNow(conform.NotApplicable, "capabilities.resources.subscribe is not true: the server offers no resource subscriptions")
	}
	uri := firstURI(t)
	if uri == "" {
		t.SkipNow(conform.NotExercised, "resources/list lists no resource with a string uri to subscribe to")
	}
	return uri
}

// RES-SUB-01 — {rev}/server/resources.mdx (Capabilities, Subscriptions).
var _ = conform.Register(conform.Check{
	ID: "RES-SUB-01", Title: "with resources.subscribe, resources/subscribe and unsubscribe of a listed resource succeed",
	Run: func(t *conform.T) conform.Verdict {
		uri := subscribableURI(t)
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
var _ = conform.Register(toolkit.TranscriptCheck(conform.Check{
	ID: "RES-SUB-UPDATED-01", Title: "notifications/resources/updated only for a URI subscribed to before it",
}, (*conform.T).Sessions, judgeUpdates,
	"no notifications/resources/updated was received in this revision's sessions",
	"notifications/resources/updated only for a resource the client subscribed to (or a sub-resource of it)",
	"%d notifications/resources/updated, each for a URI subscribed to before it"))

// judgeUpdates reads one session's transcript in order: the URIs of the
// resources/subscribe requests sent so far (whatever their answer), and each
// notifications/resources/updated received, whose uri must be one of them or under
// one ("This might be a sub-resource of the one that the client actually subscribed
// to").
func judgeUpdates(f *conform.Findings, label string, entries []wire.Entry) {
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
var _ = conform.Register(subscribe.UndeclaredCheck(conform.Check{
	ID: "RES-LC-UNDECLARED-01", Title: "notifications/resources/list_changed only from a server that declared resources.listChanged",
}, "resources", lcMethod))

// lcMethod is the resources' list_changed notification.
const lcMethod = "notifications/resources/list_changed"

// RES-LC-01 — {rev}/server/resources.mdx (List Changed Notification). The trigger
// (the fixture tool test_trigger_tool_change, --trigger-tool, --trigger-cmd) changes
// the tool list; the reference server's changes the resource list with it
// (refserver/doc.go).
var _ = conform.Register(subscribe.ListProbe{
	Capability: "resources", Filter: "resourcesListChanged", Method: lcMethod,
	List: methodList, Key: keyList, Member: "uri",
	Items: "resource list", Noun: "resource(s)", Judges: "RES-LIST-01 and RES-PAG-*",
	Label: func(uri string) string { return fmt.Sprintf("%q", conform.Clip(uri, 60)) },
}.Check(conform.Check{
	ID: "RES-LC-01", Title: "a change of the resource list is announced with notifications/resources/list_changed",
}, requireResources))

// updatedMethod is the notification of a changed resource.
const updatedMethod = "notifications/resources/updated"

// RES-SUB-R5-01 — 2026-07-28/server/resources.mdx (Subscriptions); schema
// ResourceUpdatedNotification; basic/patterns/subscriptions.mdx.
var _ = conform.Register(conform.Check{
	ID: "RES-SUB-R5-01", Title: "a listen stream's resourceSubscriptions get notifications/resources/updated for those URIs only, tagged",
	Run: func(t *conform.T) conform.Verdict {
		uri := subscribableURI(t)
		sub := subscribe.MustOpen(t, map[string]any{"resourceSubscriptions": []string{uri}}, 1)
		defer subscribe.Cancel(t, sub)
		// An update is owed only when the resource changes, which nothing here
		// makes it do: a server that sends none costs the request timeout.
		isUpdated := func(e wire.Entry) bool { return e.Msg != nil && e.Msg.Method == updatedMethod }
		sub.Await(t.Ctx, 0, isUpdated)
		if err := sub.Sync(t.Ctx, 1); err != nil {
			return conform.Errorf("%v", err)
		}
		return judgeListenUpdates(sub, uri, sub.Messages())
	},
})

// judgeListenUpdates judges the messages of a subscription that asked for
// resourceSubscriptions [uri]: each notifications/resources/updated names uri (or a
// sub-resource of it) and carries the subscription's tag.
func judgeListenUpdates(sub *conform.Subscription, uri string, msgs []wire.Entry) conform.Verdict {
	var f conform.Findings
	acked := false
	for _, e := range msgs {
		if e.Msg == nil {
			continue
		}
		if e.Msg.Method == conform.MethodAcknowledged {
			acked = ackedURI(e.Msg.Params, uri)
			continue
		}
		if e.Msg.Method != updatedMethod || e.Msg.Members["id"] {
			continue
		}
		f.Judged++
		var p struct {
			URI *string `json:"uri"`
		}
		_ = json.Unmarshal(e.Msg.Params, &p)
		switch {
		case p.URI == nil:
			f.Fail(fmt.Sprintf("%s without a string uri", subscribe.What(e)))
		case !under(*p.URI, []string{uri}):
			f.Fail(fmt.Sprintf("%s for %q, which the subscription's resourceSubscriptions [%q] does not name", subscribe.What(e), conform.Clip(*p.URI, 80), conform.Clip(uri, 80)))
		}
		if prob := subscribe.TagProblem(sub, e.Msg); prob != "" {
			f.Fail(fmt.Sprintf("%s %s", subscribe.What(e), prob))
		}
	}
	label := fmt.Sprintf("subscription %s {resourceSubscriptions: [%q]}", sub.ID, conform.Clip(uri, 80))
	none := fmt.Sprintf("no %s came on %s (the resource did not change while it was open)", updatedMethod, label)
	if !acked {
		none = fmt.Sprintf("the acknowledgement of %s does not list %q among its resourceSubscriptions (the server did not agree to watch it), and no %s came", label, conform.Clip(uri, 80), updatedMethod)
	}
	return f.VerdictOrNone(none,
		updatedMethod+" only for the URIs of resourceSubscriptions, tagged with the subscription id",
		fmt.Sprintf("%d %s on %s, each for that URI and tagged with the subscription id", f.Judged, updatedMethod, label))
}

// ackedURI reports whether an acknowledgement's params list uri in
// notifications.resourceSubscriptions.
func ackedURI(params json.RawMessage, uri string) bool {
	var p struct {
		Notifications struct {
			ResourceSubscriptions []any `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	_ = json.Unmarshal(params, &p)
	return slices.Contains(p.Notifications.ResourceSubscriptions, any(uri))
}
