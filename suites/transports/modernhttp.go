package transports

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/modern"
	"github.com/mcp-conform/mcp-conform/suites/internal/named"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The H5 checks (the H5 rows) probe the 2026-07-28 Streamable HTTP rules on the
// column's main session: it is one transport, and every POST is a request of its own,
// so a probe is one call whose headers transport.WithHeaders overrides. The status
// and the reply headers are read from the transport's record of exchanges.

// h5Case is one probe of a check with several: what was sent, and what it showed.
type h5Case struct {
	what string // what the probe sent
	bad  string // "" when the rule held; else what came back
	note string // a case not judged, and why
}

// h5Judge turns the cases into a verdict: any bad case is a violation of expected.
func h5Judge(t *conform.T, expected string, cases []h5Case) conform.Verdict {
	var bad conform.Findings
	var good, notes []string
	for _, c := range cases {
		switch {
		case c.note != "":
			notes = append(notes, c.what+": "+c.note)
		case c.bad != "":
			bad.Fail(c.what + ": " + c.bad)
		default:
			good = append(good, c.what)
		}
	}
	if bad.Failed() {
		return bad.Violation(expected)
	}
	if len(good) == 0 {
		return conform.Skip(conform.NotExercised, "%s", strings.Join(notes, "; "))
	}
	msg := "as required for " + strings.Join(good, "; ")
	if len(notes) > 0 {
		return conform.Note("%s (not judged: %s)", msg, strings.Join(notes, "; "))
	}
	return conform.Pass("%s", msg)
}

// legacyTri says what the run knows of whether the server also serves the legacy
// era: yes, no, or unknown (no legacy revision was asked).
type legacyTri int

const (
	legacyUnknown legacyTri = iota
	legacyNo
	legacyYes
)

// servesLegacy reads the run's legacy columns: a revision of the legacy era that was
// negotiated means the server serves older clients. only, when set, restricts the
// question to those revisions (negotiated exactly as asked).
func servesLegacy(asked map[string]string, only ...string) legacyTri {
	out := legacyUnknown
	for name, neg := range asked {
		r, ok := revision.Lookup(name)
		if !ok || r.Era != revision.Legacy {
			continue
		}
		if len(only) > 0 {
			want := false
			for _, o := range only {
				want = want || o == name
			}
			if !want {
				continue
			}
			if neg == name {
				return legacyYes
			}
			out = legacyNo
			continue
		}
		if neg != "" {
			return legacyYes
		}
		out = legacyNo
	}
	return out
}

// modernOnlyRule settles a rule that binds only a server that supports no earlier
// revision ("A server that supports only this revision … SHOULD"): not applicable
// to a server the run shows dual-era, whatever it answered (pass says what the rule
// would have passed on); else pass when bad holds nothing, and broken if the run
// shows the server is modern-only.
func modernOnlyRule(t *conform.T, expected, pass string, bad *conform.Findings) conform.Verdict {
	seen := pass
	if bad.Failed() {
		seen = bad.Violation(expected).Actual
	}
	if dual := modern.DualEra(t); dual != "" {
		return conform.Skip(conform.NotApplicable, "the server also serves earlier revisions (%s; their sessions, GET streams and resumption are theirs); the rule binds a server that supports only 2026-07-28 (seen: %s)", dual, seen)
	}
	if !bad.Failed() {
		return conform.Pass("%s", pass)
	}
	v := bad.Violation(expected)
	switch servesLegacy(t.RevisionsAsked()) {
	case legacyUnknown:
		return conform.Skip(conform.NotExercised, "the rule binds a server that supports only 2026-07-28, and this run asked no earlier revision to tell (seen: %s)", v.Actual)
	}
	return v
}

// h5Probe completes c (ID, Title) as a probe of the column's HTTP session that sends
// what the suite's own client never would (PhaseOddInput); run gets the session and
// its HTTP transport.
func h5Probe(c conform.Check, run func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict) conform.Check {
	c.Phase = conform.PhaseOddInput
	c.Run = func(t *conform.T) conform.Verdict {
		s, hs := conform.TransportOf[transport.HTTPSession](t)
		return run(t, s, hs)
	}
	return c
}

// h5Discover is a harmless request every modern server answers.
const h5Discover = "server/discover"

// discoverWith sends server/discover on the check's HTTP session with the header
// name: value, which a modern-only server must ignore; bad holds a failure (named
// with what) when the request was not served as usual.
func discoverWith(t *conform.T, s *conform.Session, hs transport.HTTPSession, what, name, value string) (r httpReply, bad conform.Findings) {
	r = httpCall(t, s, hs, h5Discover, nil, hdr(name, value))
	if !r.processed() {
		bad.Fail("server/discover with " + what + " → " + r.describe())
	}
	return r, bad
}

// h5Tool picks a tool the suite may call for the probes that need a tools/call
// (Mcp-Name): test_simple_text, test_echo, else the first callable one that does not
// change the tool list. ok false carries why none.
func h5Tool(t *conform.T, s *conform.Session) (toolkit.CallableTool, string) {
	if !toolkit.Declared(s) {
		return toolkit.CallableTool{}, "the server declares no tools capability"
	}
	l := toolkit.List(t)
	callable := toolkit.Callable(t, l)
	for _, name := range []string{"test_simple_text", "test_echo"} {
		for _, c := range callable {
			if c.Name == name {
				return c, ""
			}
		}
	}
	trigger := ""
	if tt := t.Options().TriggerTool; tt != nil {
		trigger = tt.Name
	}
	for _, c := range callable {
		if c.Name != trigger && c.Name != "test_trigger_tool_change" && c.Name != "test_slow" {
			return c, ""
		}
	}
	return toolkit.CallableTool{}, "no tool the suite may call (allow one with --call NAME[=JSON])"
}

// toolCall is the params of a tools/call of ct.
func toolCall(ct toolkit.CallableTool) map[string]any {
	return map[string]any{"name": ct.Name, "arguments": ct.Args}
}

// want400 judges a probe that must be rejected with 400 and code.
func want400(r httpReply, code int) string {
	if r.is(http.StatusBadRequest, code) {
		return ""
	}
	return r.describe()
}

// mismatchCase sends server/discover with the headers h, which must be rejected with
// 400 and -32020 (HeaderMismatch); what names the probe.
func mismatchCase(t *conform.T, s *conform.Session, hs transport.HTTPSession, what string, h http.Header) h5Case {
	r := httpCall(t, s, hs, h5Discover, nil, h)
	return h5Case{what: what, bad: want400(r, conform.CodeHeaderMismatch)}
}

// namedRequests are the requests whose Mcp-Name the H5 checks probe, one of each
// method the header binds (streamable-http.mdx, Standard Request Headers: "params.name
// or params.uri" of "tools/call, resources/read, prompts/get"): a call of h5Tool's
// tool, a read of a listed resource, a get of a listed prompt.
func namedRequests(t *conform.T, s *conform.Session) []named.Request {
	tool := named.Request{Method: "tools/call", Other: "mcp_conform_no_such_tool"}
	if ct, why := h5Tool(t, s); why != "" {
		tool.Why = why
	} else {
		tool.Name, tool.Params = ct.Name, toolCall(ct)
	}
	return []named.Request{tool, named.Resource(t), named.Prompt(t)}
}

// nameCases sends each named request with the Mcp-Name value(r) ("" removes the
// header) and judges each answer with judge; a method with nothing to send is a
// case not judged.
func nameCases(t *conform.T, s *conform.Session, hs transport.HTTPSession, value func(named.Request) string, judge func(httpReply) string) []h5Case {
	var cases []h5Case
	for _, r := range namedRequests(t, s) {
		v := value(r)
		sent := "without Mcp-Name"
		if v != "" {
			sent = "with Mcp-Name: " + v
		}
		if r.Why != "" {
			cases = append(cases, h5Case{what: r.Method + " " + sent, note: r.Why})
			continue
		}
		reply := httpCall(t, s, hs, r.Method, r.Params, hdr(transport.HeaderName, v))
		cases = append(cases, h5Case{what: r.String() + " " + sent, bad: judge(reply)})
	}
	return cases
}

// discoverProbe is a server/discover sent with header overrides h; what names it.
type discoverProbe struct {
	what string
	h    http.Header
}

// rejectedAll is the Run of a check whose every probe must be rejected with 400
// and -32020 (expected): the server/discover probes the session gives, then each
// named request with the Mcp-Name value name gives it ("" removes the header).
func rejectedAll(expected string, probes func(*conform.Session) []discoverProbe, name func(named.Request) string) func(*conform.T) conform.Verdict {
	return func(t *conform.T) conform.Verdict {
		s, hs := conform.TransportOf[transport.HTTPSession](t)
		var cases []h5Case
		for _, p := range probes(s) {
			cases = append(cases, mismatchCase(t, s, hs, p.what, p.h))
		}
		cases = append(cases, nameCases(t, s, hs, name, mismatched)...)
		return h5Judge(t, expected, cases)
	}
}

// mismatched judges a probe that must be rejected with 400 and -32020 (HeaderMismatch).
func mismatched(r httpReply) string { return want400(r, conform.CodeHeaderMismatch) }

// H5-GET-DELETE-405-01 — streamable-http.mdx (Earlier Streamable HTTP Revisions).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-GET-DELETE-405-01", Title: "a modern-only server answers GET and DELETE with 405",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	p, ok := hs.(prober)
	if !ok {
		return conform.Errorf("not verified: the transport cannot send a bare GET or DELETE")
	}
	var bad conform.Findings
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		// An older client's DELETE names its session.
		var h http.Header
		if m == http.MethodDelete {
			h = hdr("Mcp-Session-Id", "mcp-conform-older-client-session")
		}
		x, err := p.Probe(t.Ctx, m, h)
		switch {
		case err != nil:
			return conform.Errorf("not verified: %s: %v", m, err)
		case x.Status != http.StatusMethodNotAllowed:
			bad.Fail(fmt.Sprintf("%s → HTTP %d", m, x.Status))
		}
	}
	return modernOnlyRule(t, "HTTP 405 for GET and DELETE", "GET and DELETE → HTTP 405", &bad)
}))

// H5-SESSION-IGNORE-01 — streamable-http.mdx (Earlier Streamable HTTP Revisions).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-SESSION-IGNORE-01", Title: "a modern-only server ignores Mcp-Session-Id and mints none",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	r, bad := discoverWith(t, s, hs, "a stale Mcp-Session-Id", "Mcp-Session-Id", "mcp-conform-stale-session")
	// The replies to modern requests only: the column's opening server/discover
	// and the probe. Other checks send this connection legacy requests on
	// purpose (MOD-LEGACY-INIT-01's initialize), and a dual-era server rightly
	// answers those with a session; which of them ran before this check must not
	// decide its verdict.
	replies := map[string]*transport.Exchange{"the probe's reply": r.x}
	if xs := hs.Exchanges(); len(xs) > 0 {
		replies["the reply to the column's opening server/discover"] = &xs[0]
	}
	for _, what := range []string{"the reply to the column's opening server/discover", "the probe's reply"} {
		if x := replies[what]; x != nil {
			if sid := x.Header.Get("Mcp-Session-Id"); sid != "" {
				bad.Fail(fmt.Sprintf("%s (HTTP %d) carries Mcp-Session-Id %q", what, x.Status, conform.Clip(sid, 60)))
			}
		}
	}
	return modernOnlyRule(t, "requests served without regard to Mcp-Session-Id, and no session id minted or echoed",
		"a stale Mcp-Session-Id was ignored, and neither the column's opening reply nor the probe's carried a session id", &bad)
}))

// H5-LASTEVENTID-IGNORE-01 — streamable-http.mdx (Earlier Streamable HTTP Revisions).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-LASTEVENTID-IGNORE-01", Title: "a modern-only server ignores Last-Event-ID",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	r, bad := discoverWith(t, s, hs, "Last-Event-ID", "Last-Event-ID", "mcp-conform-1")
	return modernOnlyRule(t, "the request served as if Last-Event-ID were absent",
		"server/discover with Last-Event-ID was served as usual: "+r.describe(), &bad)
}))

// H5-HEADERS-REQUIRED-01 — streamable-http.mdx (Protocol Version Header; Standard
// Request Headers; Server Validation).
var _ = conform.Register(conform.Check{
	ID: "H5-HEADERS-REQUIRED-01", Title: "a POST without a required MCP header is rejected with 400 and -32020",
	Phase: conform.PhaseOddInput,
	// A POST without MCP-Protocol-Version is H5-NOHEADER-LEGACY-01's: a server that
	// still serves clients older than 2025-06-18 may take it as 2025-03-26.
	Run: rejectedAll("HTTP 400 with JSON-RPC error -32020 (HeaderMismatch) for a POST missing a required header",
		func(*conform.Session) []discoverProbe {
			return []discoverProbe{{"server/discover without Mcp-Method", hdr(transport.HeaderMethod, "")}}
		},
		func(named.Request) string { return "" }),
})

// H5-NOHEADER-LEGACY-01 — streamable-http.mdx (Protocol Version Header).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-NOHEADER-LEGACY-01", Title: "a POST without MCP-Protocol-Version is rejected, unless the server serves clients older than 2025-06-18",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	r := httpCall(t, s, hs, h5Discover, nil, hdr(transport.HeaderProtocolVersion, ""))
	if r.err != nil && r.x == nil {
		return conform.Silence("an answer to server/discover without MCP-Protocol-Version", r.err)
	}
	return judgeNoVersionHeader(r.describe(), want400(r, conform.CodeHeaderMismatch) == "", servesLegacy(t.RevisionsAsked(), "2024-11-05", "2025-03-26"))
}))

// judgeNoVersionHeader settles H5-NOHEADER-LEGACY-01: rejected per Server Validation
// is right for every server; anything else (served, or answered as another
// revision's request) is the MAY of a server that serves clients older than
// 2025-06-18, which the run's 2024-11-05 and 2025-03-26 columns tell.
func judgeNoVersionHeader(got string, rejected bool, older legacyTri) conform.Verdict {
	const what = "server/discover without MCP-Protocol-Version"
	switch {
	case rejected:
		return conform.Pass("%s was rejected per Server Validation: %s", what, got)
	case older == legacyYes:
		return conform.Note("%s was not rejected (%s); the server serves clients older than 2025-06-18 (this run negotiated 2024-11-05 or 2025-03-26), so it MAY treat the request as 2025-03-26", what, got)
	case older == legacyNo:
		return conform.Violation("HTTP 400 with JSON-RPC error -32020 (HeaderMismatch): the server serves no client older than 2025-06-18 (this run's 2024-11-05 and 2025-03-26 sessions were not negotiated)", what+": "+got)
	}
	return conform.Skip(conform.NotExercised, "%s was not rejected (%s), and this run asked neither 2024-11-05 nor 2025-03-26, so whether the server serves older clients (and MAY take it as 2025-03-26) is unknown: run with those revisions too", what, got)
}

// H5-ENDPOINT-01 — streamable-http.mdx (Overview). An opening check: a server without a
// POST endpoint is exactly a 2026-07-28 column that cannot open, so the verdict comes
// from the record of the opening's POST, in every column.
var _ = conform.Register(conform.Check{
	ID: "H5-ENDPOINT-01", Title: "the MCP endpoint takes POST",
	Opening: true,
	Run: func(t *conform.T) conform.Verdict {
		o := t.Opening()
		switch o.Kind {
		case "http":
		case "":
			return conform.Errorf("not verified: no transport was opened: %v", o.Err)
		default:
			return conform.Skip(conform.NotApplicable, "the target is not a Streamable HTTP server (this rule is of the Streamable HTTP transport)")
		}
		for _, x := range o.Exchanges {
			if x.Method == http.MethodPost {
				return judgeEndpointPOST(x, o.Err)
			}
		}
		return conform.Errorf("not verified: the opening's POST got no reply: %v", o.Err)
	},
})

// judgeEndpointPOST judges the first POST of the opening (server/discover); openErr is
// why the column did not open (nil when it did).
func judgeEndpointPOST(x transport.Exchange, openErr error) conform.Verdict {
	// A reply carrying a JSON-RPC error made the column revision-unsupported (era
	// detection), where this check does not run: here an error status has none.
	got := fmt.Sprintf("POST of server/discover → HTTP %d", x.Status)
	switch {
	case x.Status >= 200 && x.Status < 300:
		return conform.Pass("%s: the endpoint takes POST", got)
	case x.Status == http.StatusMethodNotAllowed || x.Status == http.StatusNotImplemented:
		return conform.Violation("an MCP endpoint that supports POST", got+" (Allow: "+x.Header.Get("Allow")+")")
	case x.Status == http.StatusNotFound:
		return conform.Skip(conform.NotApplicable, "%s without a JSON-RPC error: by the page's Backward Compatibility, a legacy server that does not host the 2026-07-28 endpoint", got)
	}
	return conform.Skip(conform.NotExercised, "%s: the endpoint neither served the POST nor refused the method, so whether it takes POST is not shown (%v)", got, openErr)
}

// H5-HEADERS-MATCH-01 — streamable-http.mdx (Protocol Version Header; Server Validation).
var _ = conform.Register(conform.Check{
	ID: "H5-HEADERS-MATCH-01", Title: "header values that differ from the body are rejected with 400 and -32020",
	Phase: conform.PhaseOddInput,
	Run: rejectedAll("HTTP 400 with JSON-RPC error -32020 (HeaderMismatch) when a header differs from the body",
		func(s *conform.Session) []discoverProbe {
			return []discoverProbe{
				{"server/discover sent with Mcp-Method: tools/list", hdr(transport.HeaderMethod, "tools/list")},
				// An older revision's name, so that the header names a real version
				// that differs from the body's _meta.
				{"MCP-Protocol-Version: 2025-11-25 with _meta protocolVersion " + s.Requested, hdr(transport.HeaderProtocolVersion, "2025-11-25")},
			}
		},
		func(r named.Request) string { return r.Other }),
})

// H5-HEADER-CASE-01 — streamable-http.mdx (Case Sensitivity).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-HEADER-CASE-01", Title: "header names compare case-insensitively, values case-sensitively",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	var cases []h5Case
	// The derived Mcp-Method is replaced by the same header spelled in lower case.
	r := httpCall(t, s, hs, h5Discover, nil, hdr("mcp-method", h5Discover))
	c := h5Case{what: "mcp-method: server/discover (lower-case name)"}
	if !r.processed() {
		c.bad = r.describe()
	}
	cases = append(cases, c)
	cases = append(cases, mismatchCase(t, s, hs, "Mcp-Method: SERVER/DISCOVER (value in another case) → 400 and -32020", hdr(transport.HeaderMethod, strings.ToUpper(h5Discover))))
	return h5Judge(t, "a lower-case header name accepted, and a header value in another case rejected with HTTP 400 and -32020", cases)
}))

// H5-NAME-B64-01 — streamable-http.mdx (Value Encoding).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-NAME-B64-01", Title: "a base64-encoded Mcp-Name is decoded before it is compared",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	encoded := func(r named.Request) string {
		return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(r.Name)) + "?="
	}
	return h5Judge(t, "each request served with its Mcp-Name base64-encoded (no HTTP 400, no -32020)", nameCases(t, s, hs, encoded, servedDecoded))
}))

// servedDecoded judges a probe whose encoded Mcp-Name equals the body's value once
// decoded: any answer but a header rejection (400 or -32020) shows it was decoded.
func servedDecoded(r httpReply) string {
	mismatch := r.resp != nil && r.resp.IsError() && r.resp.Error.Code == conform.CodeHeaderMismatch
	if r.x == nil || mismatch || r.status() == http.StatusBadRequest {
		return r.describe()
	}
	return ""
}

// H5-UNKNOWN-METHOD-01 — streamable-http.mdx (Protocol Version Header).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-UNKNOWN-METHOD-01", Title: "an unimplemented method is answered 404 with -32601",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	r := httpCall(t, s, hs, "x_conformance/unknown_method", nil, nil)
	if r.err != nil && r.x == nil {
		return conform.Silence("HTTP 404 with JSON-RPC error -32601", r.err)
	}
	if r.is(http.StatusNotFound, wire.CodeMethodNotFound) {
		return conform.Pass("x_conformance/unknown_method → %s", r.describe())
	}
	return conform.Violation("HTTP 404 with JSON-RPC error -32601 for x_conformance/unknown_method", r.describe())
}))

// H5-VERSION-400-01 — streamable-http.mdx (Protocol Version Header).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-VERSION-400-01", Title: "an unsupported protocol version is answered 400 with -32022",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	// The version in both _meta and the header (derived from the body), so that
	// only the version itself is wrong.
	const bogus = "1999-01-01"
	meta := s.Conn.Meta()
	meta[conform.MetaProtocolVersion] = bogus
	method := h5Discover
	if toolkit.Declared(s) {
		method = "tools/list"
	}
	raw, err := wire.EncodeRequest(s.Conn.NextID(), method, wire.StampMeta(json.RawMessage(`{}`), meta))
	if err != nil {
		return conform.Errorf("encode %s: %v", method, err)
	}
	r := httpCallRaw(t, s, hs, method, raw, nil)
	if r.err != nil && r.x == nil {
		return conform.Silence("HTTP 400 with JSON-RPC error -32022", r.err)
	}
	if r.is(http.StatusBadRequest, conform.CodeUnsupportedVersion) {
		return conform.Pass("%s for version %s → %s", method, bogus, r.describe())
	}
	return conform.Violation(fmt.Sprintf("HTTP 400 with JSON-RPC error -32022 for %s with protocol version %s", method, bogus), r.describe())
}))

// H5-POST-CT-01 — streamable-http.mdx (Sending Messages).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-POST-CT-01", Title: "a request POST is answered JSON or SSE, an accepted notification 202",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	var cases []h5Case
	r := httpCall(t, s, hs, h5Discover, nil, nil)
	c := h5Case{what: "server/discover"}
	switch {
	case r.x == nil:
		return conform.Silence("a reply to server/discover", r.err)
	case !validPostType(r.x.ContentType):
		c.bad = fmt.Sprintf("HTTP %d with Content-Type %q", r.x.Status, r.x.ContentType)
	}
	cases = append(cases, c)

	// A notification no revision defines: a server may refuse it (an HTTP error
	// status), and one it accepts is 202 with no body.
	raw := []byte(`{"jsonrpc":"2.0","method":"notifications/x_conformance/probe"}`)
	n := hs.ExchangeCount()
	err := s.Conn.SendRaw(t.Ctx, raw)
	xs := hs.ExchangesFrom(n)
	c = h5Case{what: "a notification POST"}
	switch {
	case len(xs) == 0:
		return conform.Errorf("not verified: the notification POST got no reply: %v", err)
	case xs[0].Status >= 200 && xs[0].Status < 300 && xs[0].Status != http.StatusAccepted:
		c.bad = fmt.Sprintf("accepted with HTTP %d (Content-Type %q)", xs[0].Status, xs[0].ContentType)
	case xs[0].Status != http.StatusAccepted:
		c.what += fmt.Sprintf(" (refused with HTTP %d, which the rule allows)", xs[0].Status)
	}
	cases = append(cases, c)
	return h5Judge(t, "application/json or text/event-stream for a request, 202 Accepted for an accepted notification", cases)
}))

// validPostType reports whether a request POST's reply type is one of the two allowed.
func validPostType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt == "application/json" || mt == "text/event-stream"
}

// H5-ORIGIN-403-01 — streamable-http.mdx (Security & Endpoint).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-ORIGIN-403-01", Title: "a request with an invalid Origin is answered 403",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	// An origin no local server can call its own: a reserved, unresolvable name.
	const origin = "http://mcp-conform.invalid"
	r := httpCall(t, s, hs, h5Discover, nil, hdr("Origin", origin))
	if r.x == nil {
		return conform.Silence("HTTP 403 Forbidden", r.err)
	}
	if r.x.Status == http.StatusForbidden {
		return conform.Pass("Origin: %s → HTTP 403", origin)
	}
	return conform.Violation("HTTP 403 Forbidden for Origin: "+origin, r.describe())
}))

// sseReplies returns the POST exchanges answered with an SSE stream.
func sseReplies(hs transport.HTTPSession) []transport.Exchange {
	var out []transport.Exchange
	for _, x := range hs.Exchanges() {
		if x.Method == http.MethodPost && x.Stream != nil {
			out = append(out, x)
		}
	}
	return out
}

// requestSeq is the transcript Seq of the request the session sent with the raw
// JSON id (a POST's transport.Exchange.Request), 0 when none.
func requestSeq(s *conform.Session, id string) int {
	entries, _ := s.Conn.Transcript()
	for _, e := range entries {
		if e.Dir == wire.Sent && e.Msg != nil && e.Msg.Kind == wire.KindRequest && string(e.Msg.ID.Raw()) == id {
			return e.Seq
		}
	}
	return 0
}

// H5-XACCEL-01 — streamable-http.mdx (Receiving Messages).
var _ = conform.Register(h5Probe(conform.Check{
	ID: "H5-XACCEL-01", Title: "SSE responses carry X-Accel-Buffering: no",
}, func(t *conform.T, s *conform.Session, hs transport.HTTPSession) conform.Verdict {
	streams := sseReplies(hs)
	if len(streams) == 0 {
		// No reply of the session so far was a stream: a subscriptions/listen
		// reply is one by definition, so open one and close it at once.
		call, err := s.Conn.Start(t.Ctx, "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
		if err == nil {
			_ = call.Cancel(t.Ctx)
		}
		streams = sseReplies(hs)
	}
	if len(streams) == 0 {
		return conform.Skip(conform.NotExercised, "no reply of this revision's session was an SSE stream (subscriptions/listen did not open one either)")
	}
	var first *transport.Exchange
	for i, x := range streams {
		if x.Header.Get("X-Accel-Buffering") == "no" {
			continue
		}
		if first == nil {
			first = &streams[i]
		}
		// The evidence is a POST whose request is in the transcript (a raw
		// probe's POST is only in the exchange record).
		if seq := requestSeq(s, x.Request); seq > 0 {
			t.Cite(s, seq)
			break
		}
	}
	if first != nil {
		return conform.Violation("X-Accel-Buffering: no on every SSE response", fmt.Sprintf("an SSE response (HTTP %d) with X-Accel-Buffering %q (%d SSE responses seen)", first.Status, first.Header.Get("X-Accel-Buffering"), len(streams)))
	}
	return conform.Pass("all %d SSE responses carried X-Accel-Buffering: no", len(streams))
}))
