package transports

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The 2026-07-28 rows of a request's own SSE stream: what it may carry, when it
// ends, and that closing it cancels the request.

// changeNotification reports whether method is a long-lived change notification,
// which 2026-07-28 delivers on a subscriptions/listen stream only.
func changeNotification(method string) bool {
	return strings.HasSuffix(method, "/list_changed") || method == "notifications/resources/updated"
}

// H5-SSE-RELATED-01 — 2026-07-28/basic/transports/streamable-http.mdx (Receiving Messages).
var _ = conform.Register(httpMessageCheck(conform.Check{
	ID: "H5-SSE-RELATED-01", Title: "a request's SSE stream carries only notifications of that request, and no request",
}, func(s *conform.Session, e wire.Entry, sent sessionRequests, f *conform.Findings) {
	if e.Stream == "" || e.Msg.IsResponse() {
		return
	}
	if sent.methods[e.Stream] == "subscriptions/listen" {
		return // the listen stream's rules are NOTIF-LISTEN-*'s
	}
	f.Judged++
	what := fmt.Sprintf("%s: on the stream of %s (id %s)", where(s, e), sent.methods[e.Stream], e.Stream)
	switch {
	case e.Msg.Kind == wire.KindRequest:
		f.Fail(fmt.Sprintf("%s: a %s request", what, e.Msg.Method))
	case changeNotification(e.Msg.Method):
		f.Fail(fmt.Sprintf("%s: %s, a change notification that belongs on a subscriptions/listen stream", what, e.Msg.Method))
	case e.Msg.Method == "notifications/progress" && progressToken(e.Msg) != sent.tokens[e.Stream]:
		f.Fail(fmt.Sprintf("%s: progress for token %s, not the request's (%s)", what, progressToken(e.Msg), toolkit.Or(sent.tokens[e.Stream], "none")))
	}
}, "no request's SSE stream carried a message before its response",
	"only notifications of the originating request on its stream",
	"%d message(s) on request streams, each a notification of its request"))

// H5-SSE-END-01 — 2026-07-28/basic/transports/streamable-http.mdx (Receiving Messages).
var _ = conform.Register(conform.Check{
	ID: "H5-SSE-END-01", Title: "a request's SSE stream ends with its final response",
	Run: runEndCheck,
})

// cancelTool is the slow fixture tool H5-CANCEL-CLOSE-01 cancels.
const cancelTool = "test_slow"

// H5-CANCEL-CLOSE-01 — 2026-07-28/basic/transports/streamable-http.mdx (Cancellation).
var _ = conform.Register(conform.Check{
	ID: "H5-CANCEL-CLOSE-01", Title: "closing a request's SSE stream cancels the request",
	Run: func(t *conform.T) conform.Verdict {
		s, ps := conform.TransportOf[probeStreamer](t)
		for _, name := range []string{cancelTool, "test_last_cancellation"} {
			if _, ok := fixtureTool(t, name); !ok {
				return conform.Skip(conform.MissingFixture, "list the fixture tools %s and test_last_cancellation (the fixture contract, refserver/doc.go): the slow call to cancel and the record of its cancellation", cancelTool)
			}
		}
		id, body, err := toolCallBody(s, cancelTool, map[string]any{"ms": 5000}, "mcp-conform-cancel-"+s.Label)
		if err != nil {
			return conform.Errorf("%v", err)
		}
		raw := string(id.Raw())
		rep, err := ps.OpenProbeStream(t.Ctx, http.MethodPost, body, nil)
		if err != nil {
			return conform.Silence("a reply to tools/call "+cancelTool, err)
		}
		if rep.Stream == nil {
			return conform.Skip(conform.NotExercised, "tools/call %s was answered with HTTP %d (%q), not an SSE stream to close", cancelTool, rep.Exchange.Status, rep.Exchange.ContentType)
		}
		// The first event proves the call is running; then the stream is closed.
		r := readUntil(t.Ctx, rep.Stream, t.Timeout(), raw, func(transport.Event) bool { return true })
		rep.Stream.Close()
		if r.response || r.ended || r.err != nil {
			return conform.Skip(conform.NotExercised, "the stream of %s ended or answered before the suite could close it (%d event(s))", cancelTool, len(r.events))
		}
		// The server learns of the close when its side of the connection fails: ask
		// until it has recorded a cancellation of the call, within --timeout.
		deadline := time.Now().Add(t.Timeout())
		last := ""
		for {
			o := toolkit.Call(t, s, "test_last_cancellation", json.RawMessage(`{}`))
			if o.Succeeded() && len(o.Content) > 0 {
				var b struct{ Text string }
				_ = json.Unmarshal(o.Content[0], &b)
				last = b.Text
			}
			if last == raw {
				return conform.Pass("the call (id %s) was cancelled when its stream was closed: test_last_cancellation names it", raw)
			}
			if time.Now().After(deadline) {
				break
			}
			select {
			case <-t.Ctx.Done():
				return conform.Errorf("not verified: %v", t.Ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
		return conform.Violation(fmt.Sprintf("the call (id %s) cancelled when its stream was closed", raw),
			fmt.Sprintf("test_last_cancellation still answers %q %s after the close", last, t.Timeout()))
	},
})

// paramHeader is one x-mcp-header annotation: the property path from the schema root
// (through properties only: the only place the annotation is valid) and its type.
type paramHeader struct {
	path []string
	name string // the {Name} of Mcp-Param-{Name}
	typ  string
}

// paramHeaders lists the x-mcp-header annotations of an inputSchema reachable from
// its root through properties.
func paramHeaders(schema json.RawMessage) []paramHeader {
	var walk func(n map[string]any, path []string) []paramHeader
	walk = func(n map[string]any, path []string) []paramHeader {
		var out []paramHeader
		props, _ := n["properties"].(map[string]any)
		for _, key := range slices.Sorted(maps.Keys(props)) {
			child, ok := props[key].(map[string]any)
			if !ok {
				continue
			}
			p := append(append([]string(nil), path...), key)
			if h, ok := child["x-mcp-header"].(string); ok && h != "" {
				typ, _ := child["type"].(string)
				out = append(out, paramHeader{path: p, name: h, typ: typ})
			}
			out = append(out, walk(child, p)...)
		}
		return out
	}
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	return walk(root, nil)
}

// paramValues are the argument value and its header form the probe sends for a
// parameter of each type, and a second, different value.
func paramValues(typ string) (v any, header, other string) {
	switch typ {
	case "integer":
		return 42, "42", "43"
	case "boolean":
		return true, "true", "false"
	}
	return "mcp-conform-value", "mcp-conform-value", "mcp-conform-other"
}

// setPath puts v at path in args, making objects on the way.
func setPath(args map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := args[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			args[k] = next
		}
		args = next
	}
	args[path[len(path)-1]] = v
}

// headerParamTool is the fixture contract's tool with an x-mcp-header parameter
// (refserver/doc.go): callable for this probe, whose every call names its header.
const headerParamTool = "test_header_param"

// H5-PARAM-HEADER-01 — 2026-07-28/basic/transports/streamable-http.mdx (Custom Headers from Tool Parameters).
var _ = conform.Register(conform.Check{
	ID: "H5-PARAM-HEADER-01", Title: "a tools/call whose Mcp-Param-{Name} header is missing or differs from the body is rejected with 400 and -32020",
	Phase: conform.PhaseOddInput,
	Run: func(t *conform.T) conform.Verdict {
		s, hs := conform.TransportOf[transport.HTTPSession](t)
		if !toolkit.Declared(s) {
			return conform.Skip(conform.NotExercised, "the server declares no tools capability")
		}
		declared := 0
		for _, tl := range toolkit.List(t).Tools {
			hps := paramHeaders(tl.Fields.Get("inputSchema"))
			if len(hps) == 0 {
				continue
			}
			declared++
			p := toolkit.Allowed(t, tl)
			if !p.Allowed && tl.Name != headerParamTool {
				continue
			}
			args := map[string]any{}
			if p.Allowed {
				_ = json.Unmarshal(p.Args, &args)
			}
			right, wrong, none := http.Header{}, http.Header{}, http.Header{}
			for i, hp := range hps {
				v, h, other := paramValues(hp.typ)
				setPath(args, hp.path, v)
				name := "Mcp-Param-" + hp.name
				right.Set(name, h)
				none[name] = []string{}
				if i == 0 {
					wrong.Set(name, other)
				} else {
					wrong.Set(name, h)
				}
			}
			// A correct header in the =?base64?…?= form: the server decodes it.
			b64 := right.Clone()
			first := "Mcp-Param-" + hps[0].name
			b64.Set(first, "=?base64?"+base64.StdEncoding.EncodeToString([]byte(right.Get(first)))+"?=")
			call := map[string]any{"name": tl.Name, "arguments": args}
			var cases []h5Case
			for _, c := range []struct {
				what string
				h    http.Header
				ok   bool
			}{
				{fmt.Sprintf("%s: %s", first, right.Get(first)), right, true},
				{fmt.Sprintf("%s: %s (base64)", first, b64.Get(first)), b64, true},
				{fmt.Sprintf("%s: %s, differing from the argument", first, wrong.Get(first)), wrong, false},
				{fmt.Sprintf("no %s header, the argument set", first), none, false},
			} {
				r := httpCall(t, s, hs, "tools/call", call, c.h)
				k := h5Case{what: fmt.Sprintf("tools/call %q with %s", tl.Name, c.what)}
				switch {
				case c.ok && !r.processed():
					k.bad = r.describe()
				case !c.ok:
					k.bad = want400(r, conform.CodeHeaderMismatch)
				}
				cases = append(cases, k)
			}
			return h5Judge(t, "HTTP 400 with -32020 for a missing or mismatched Mcp-Param header, and the call served with a matching one", cases)
		}
		if declared == 0 {
			return conform.Skip(conform.NotExercised, "no listed tool declares an x-mcp-header parameter")
		}
		return toolkit.NotAllowed("H5-PARAM-HEADER-01 (a tool with x-mcp-header parameters)")
	},
})
