package lifecycle

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The 2026-07-28 rules judged from the traffic of the revision's sessions: every
// result, every error code, every message the server sent.

// modernReply is one response received in a 2026-07-28 session, paired with the
// request it answers.
type modernReply struct {
	where  string // "<session label> #<seq>"
	kind   string // the session's transport: stdio, http
	method string
	params json.RawMessage // the request's params
	msg    *wire.Message
}

// modernReplies collects the responses to the suite's 2026-07-28 requests: those
// whose params._meta carried the per-request protocol version. A request sent
// without it on purpose (MOD-LEGACY-INIT-01's legacy initialize) is not a modern
// request, and its answer is not held to the modern rules.
func modernReplies(t *conform.T) []modernReply {
	var out []modernReply
	for _, s := range t.Sessions() {
		if s == nil || s.Conn == nil {
			continue
		}
		entries, _ := s.Conn.Transcript()
		sent := map[string]json.RawMessage{}
		for _, e := range entries {
			if e.Msg == nil {
				continue
			}
			switch {
			case e.Dir == wire.Sent && e.Msg.Kind == wire.KindRequest:
				sent[e.Msg.ID.Key()] = e.Msg.Params
			case e.Dir == wire.Received && e.Msg.IsResponse() && e.ForMethod != "":
				params, ok := sent[e.Msg.ID.Key()]
				if !ok || !carriesVersion(params, s.Requested) {
					// A reply whose id echoes no request exactly cannot be told
					// apart (BASE-RESP-ID-01 judges the id).
					continue
				}
				out = append(out, modernReply{where: fmt.Sprintf("%s #%d", s.Label, e.Seq), kind: s.Kind, method: e.ForMethod, params: params, msg: e.Msg})
			}
		}
	}
	return out
}

// carriesVersion reports whether request params make a well-formed modern request:
// _meta carries both required per-request fields. A probe that leaves one out on
// purpose (MOD-META-REQUIRED-01) is judged by that check alone.
func carriesVersion(params json.RawMessage, version string) bool {
	return conform.IsModernRequest(params, version)
}

// resultObject decodes a result as an object (nil when it is not one). The members
// are slices of the received reply (wire.Decode validated it), not copies: every
// page of every tools/list walk passes here.
func resultObject(raw json.RawMessage) map[string]json.RawMessage {
	m, err := rawjson.ObjectOfValid(raw)
	if err != nil {
		return nil
	}
	return m
}

// serverInfoProblem says what is wrong with a result's _meta serverInfo ("" when it
// is an Implementation: an object with string name and version).
func serverInfoProblem(result json.RawMessage) string {
	obj := resultObject(result)
	if obj == nil {
		return "the result is not an object"
	}
	var meta map[string]json.RawMessage
	if raw, ok := obj["_meta"]; !ok || json.Unmarshal(raw, &meta) != nil || meta == nil {
		return "no _meta object"
	}
	raw, ok := meta[conform.MetaServerInfo]
	if !ok {
		return "no _meta[\"" + conform.MetaServerInfo + "\"]"
	}
	var impl struct {
		Name    *string `json:"name"`
		Version *string `json:"version"`
	}
	if json.Unmarshal(raw, &impl) != nil || impl.Name == nil || impl.Version == nil {
		return "_meta[\"" + conform.MetaServerInfo + "\"] is " + conform.Clip(string(raw), 60) + ", not an Implementation with name and version"
	}
	return ""
}

// MOD-DISCOVER-INFO-01 — 2026-07-28/server/discover.mdx.
var _ = conform.Register(conform.Check{
	ID: "MOD-DISCOVER-INFO-01", Title: "the DiscoverResult names the server in _meta io.modelcontextprotocol/serverInfo",
	Level: conform.Should, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `2026-07-28/server/discover.mdx: "_meta['io.modelcontextprotocol/serverInfo']: Name and version of the server software. Servers SHOULD include this field."`,
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		want := "_meta[\"" + conform.MetaServerInfo + "\"] (name and version) in the DiscoverResult"
		switch {
		case s.Init == nil:
			return t.Silent(want, t.ColumnErr())
		case s.Init.IsError():
			return conform.Skip(reports.NotApplicable, "server/discover was answered with error %d, not a DiscoverResult (MOD-DISCOVER-01 judges it)", s.Init.Error.Code)
		}
		if p := serverInfoProblem(s.Init.Result); p != "" {
			return t.Violation(want, p)
		}
		return conform.Pass("serverInfo %s", conform.Clip(string(s.ServerInfo()), 120))
	},
})

// MOD-SERVERINFO-01 — 2026-07-28/basic/index.mdx (_meta, per-response fields).
var _ = conform.Register(conform.Check{
	ID: "MOD-SERVERINFO-01", Title: "every 2026-07-28 result names the server in _meta io.modelcontextprotocol/serverInfo",
	Level: conform.Should, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `2026-07-28/basic/index.mdx (_meta): "Servers SHOULD include the following io.modelcontextprotocol/* field in every result's _meta, unless specifically configured not to do so" — io.modelcontextprotocol/serverInfo, an Implementation`,
	Run: func(t *conform.T) conform.Verdict {
		var bad []string
		n := 0
		for _, r := range modernReplies(t) {
			if r.msg.Kind != wire.KindResult {
				continue
			}
			n++
			if p := serverInfoProblem(r.msg.Result); p != "" {
				bad = append(bad, fmt.Sprintf("%s (%s): %s", r.where, r.method, p))
			}
		}
		switch {
		case n == 0:
			return conform.Skip(reports.NotExercised, "no result was received in this revision's sessions")
		case len(bad) > 0:
			return t.Violation("_meta serverInfo in every result", fmt.Sprintf("%d of %d results without it: %s", len(bad), n, conform.JoinAtMost(bad, 3)))
		}
		return conform.Pass("%d results, each with _meta serverInfo", n)
	},
})

// coreResultTypes are the resultType values 2026-07-28 defines.
var coreResultTypes = []string{"complete", "input_required"}

// BASE-RESULTTYPE-01 — 2026-07-28/basic/index.mdx (Responses, Result Types).
var _ = conform.Register(conform.Check{
	ID: "BASE-RESULTTYPE-01", Title: "every 2026-07-28 result carries resultType: complete, input_required, or an advertised extension's value",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupBase, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `2026-07-28/basic/index.mdx (Responses): "The result MUST include a resultType field to indicate the type of the result."; "The set of supported ResultType values MUST be created from the set defined in the core protocol and include any additional values of supported extensions that are advertised via capabilities."`,
	Run: func(t *conform.T) conform.Verdict {
		_, extensions := t.Session().Capabilities()["extensions"]
		var bad []string
		n, ext := 0, 0
		for _, r := range modernReplies(t) {
			if r.msg.Kind != wire.KindResult {
				continue
			}
			n++
			obj := resultObject(r.msg.Result)
			raw, ok := obj["resultType"]
			var rt string
			switch {
			case obj == nil:
				bad = append(bad, fmt.Sprintf("%s (%s): the result is not an object", r.where, r.method))
			case !ok:
				bad = append(bad, fmt.Sprintf("%s (%s): no resultType", r.where, r.method))
			case json.Unmarshal(raw, &rt) != nil:
				bad = append(bad, fmt.Sprintf("%s (%s): resultType %s is not a string", r.where, r.method, conform.Clip(string(raw), 40)))
			case contains(coreResultTypes, rt):
			case extensions:
				ext++ // a value an advertised extension may define
			default:
				bad = append(bad, fmt.Sprintf("%s (%s): resultType %q is not a core value and the server advertises no extension", r.where, r.method, rt))
			}
		}
		switch {
		case n == 0:
			return conform.Skip(reports.NotExercised, "no result was received in this revision's sessions")
		case len(bad) > 0:
			return t.Violation(`resultType "complete", "input_required" or an advertised extension's value in every result`, fmt.Sprintf("%d of %d results: %s", len(bad), n, conform.JoinAtMost(bad, 3)))
		case ext > 0:
			return conform.Pass("%d results with a resultType; %d with a non-core value, the server advertises capabilities.extensions", n, ext)
		}
		return conform.Pass("%d results, each with resultType complete or input_required", n)
	},
})

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// serverRequests lists the JSON-RPC requests (method and id) the server sent in the
// revision's sessions; onlyStdio keeps those of stdio sessions. stdio reports whether
// any session ran over stdio.
func serverRequests(t *conform.T, onlyStdio bool) (reqs []string, received int, stdio bool) {
	for _, s := range t.Sessions() {
		if s == nil || s.Conn == nil {
			continue
		}
		if s.Kind == "stdio" {
			stdio = true
		} else if onlyStdio {
			continue
		}
		entries, _ := s.Conn.Transcript()
		for _, e := range entries {
			if e.Dir != wire.Received || e.Msg == nil {
				continue
			}
			received++
			if e.Msg.Kind == wire.KindRequest {
				reqs = append(reqs, fmt.Sprintf("%s #%d: %s (id %s)", s.Label, e.Seq, conform.Clip(e.Msg.Method, 60), e.Msg.ID))
			}
		}
	}
	return reqs, received, stdio
}

// MOD-NO-SERVER-REQ-01 — 2026-07-28/basic/patterns/index.mdx.
var _ = conform.Register(conform.Check{
	ID: "MOD-NO-SERVER-REQ-01", Title: "the server sends no JSON-RPC request to the client",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupModern, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `2026-07-28/basic/patterns/index.mdx: "Servers MUST NOT initiate JSON-RPC requests, and clients do not send JSON-RPC responses."`,
	Run: func(t *conform.T) conform.Verdict {
		reqs, n, _ := serverRequests(t, false)
		switch {
		case len(reqs) > 0:
			return t.Violation("no server-to-client request (input is asked for with an InputRequiredResult)", fmt.Sprintf("%d request(s): %s", len(reqs), conform.JoinAtMost(reqs, 3)))
		case n == 0:
			return conform.Skip(reports.NotExercised, "no message was received in this revision's sessions")
		}
		return conform.Pass("%d messages received, none a request", n)
	},
})

// STDIO-NO-REQUESTS-R5-01 — 2026-07-28/basic/transports/stdio.mdx.
var _ = conform.Register(conform.Check{
	ID: "STDIO-NO-REQUESTS-R5-01", Title: "the server writes no JSON-RPC request to stdout",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupStdio, Needs: conform.NeedsOpportunistic,
	Phase:  conform.PhaseTranscript,
	Source: `2026-07-28/basic/transports/stdio.mdx: "The server MUST NOT write JSON-RPC requests to stdout."`,
	Run: func(t *conform.T) conform.Verdict {
		reqs, n, stdio := serverRequests(t, true)
		switch {
		case !stdio:
			return notStdio()
		case len(reqs) > 0:
			return t.Violation("no JSON-RPC request on stdout", fmt.Sprintf("%d request(s): %s", len(reqs), conform.JoinAtMost(reqs, 3)))
		case n == 0:
			return conform.Skip(reports.NotExercised, "no message was read from stdout in this revision's sessions")
		}
		return conform.Pass("%d messages read from stdout, none a request", n)
	},
})

// r5CodeProblem says how an error code observed in a 2026-07-28 session breaks the
// error-code rules: rule "range" (BASE-ERRRANGE-01: a code 2026-07-28 does not
// allocate) or "meaning" (ERR-R5-CODES-01: a defined code without its data); ""
// when it breaks neither. data is the error's data member.
func r5CodeProblem(code int, data json.RawMessage) (rule, problem string) {
	switch {
	case code == -32002:
		return "range", "-32002 (resource not found) is retired in 2026-07-28 (-32602 replaces it)"
	case code == -32042:
		return "range", "-32042 (URL elicitation required, 2025-11-25 only) is retired in 2026-07-28"
	case code == conform.CodeMissingCapability:
		var d struct {
			Req json.RawMessage `json:"requiredCapabilities"`
		}
		if json.Unmarshal(data, &d) != nil || len(d.Req) == 0 || strings.TrimSpace(string(d.Req))[0] != '{' {
			return "meaning", "-32021 without data.requiredCapabilities (an object)"
		}
	case code == conform.CodeUnsupportedVersion:
		var d struct {
			Supported []string `json:"supported"`
			Requested *string  `json:"requested"`
		}
		if json.Unmarshal(data, &d) != nil || d.Supported == nil || d.Requested == nil {
			return "meaning", "-32022 without data.supported (an array of strings) and data.requested (a string)"
		}
	case code == conform.CodeHeaderMismatch:
	case code <= -32020 && code >= -32099:
		return "range", fmt.Sprintf("%d is in -32020…-32099, reserved for codes the specification defines (only -32020, -32021, -32022 are)", code)
	}
	return "", ""
}

// seenError is one JSON-RPC error the server sent in a 2026-07-28 session.
type seenError struct {
	where string
	code  int
	data  json.RawMessage
	// http: the session ran over HTTP and the error came in a 2xx reply or stream;
	// status: the HTTP error status it came with (probes' answers), 0 otherwise.
	http   bool
	status int
}

// r5Errors collects the errors answering the suite's modern requests: those the
// transcript holds, and, over Streamable HTTP, those this package's probes received
// with an HTTP error status (not messages of the transcript). Errors other checks
// received with a 4xx status are not seen.
func r5Errors(t *conform.T) []seenError {
	var out []seenError
	for _, s := range t.Sessions() {
		out = append(out, recordedHTTPErrors(s)...)
	}
	for _, r := range modernReplies(t) {
		if r.msg.Kind != wire.KindError || r.msg.Error == nil {
			continue
		}
		out = append(out, seenError{where: fmt.Sprintf("%s (%s)", r.where, r.method), code: r.msg.Error.Code, data: r.msg.Error.Data, http: r.kind == "http"})
	}
	return out
}

// BASE-ERRRANGE-01 — 2026-07-28/basic/index.mdx (Error Codes).
var _ = conform.Register(conform.Check{
	ID: "BASE-ERRRANGE-01", Title: "no error code outside the 2026-07-28 allocation: nothing undefined in -32020…-32099, no -32002 or -32042, no legacy -32000…-32019",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupBase, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `2026-07-28/basic/index.mdx (Error Codes): "Implementations MUST NOT emit any code from this sub-range that is not defined by this specification" (-32020 to -32099); "Implementations of this protocol version MUST NOT emit these codes: -32002 … -32042"; for -32000 to -32019 "new implementations SHOULD NOT use codes from this sub-range at all" (WARN)`,
	Run: func(t *conform.T) conform.Verdict {
		errs := r5Errors(t)
		var bad, legacy []string
		for _, e := range errs {
			if rule, p := r5CodeProblem(e.code, e.data); rule == "range" {
				bad = append(bad, e.where+": "+p)
			} else if e.code <= -32000 && e.code >= -32019 {
				legacy = append(legacy, fmt.Sprintf("%s: %d", e.where, e.code))
			}
		}
		switch {
		case len(bad) > 0:
			return t.Violation("only error codes 2026-07-28 allocates", conform.JoinAtMost(bad, 3))
		case len(legacy) > 0:
			return conform.Warn("no code of the legacy sub-range -32000…-32019 (SHOULD NOT for new implementations)", conform.JoinAtMost(legacy, 3))
		case len(errs) == 0:
			return conform.Skip(reports.NotExercised, "no JSON-RPC error message was received in this revision's sessions")
		}
		return conform.Pass("%d error replies, every code allowed in 2026-07-28", len(errs))
	},
})

// ERR-R5-CODES-01 — 2026-07-28/basic/index.mdx (Error Codes); schema.
var _ = conform.Register(conform.Check{
	ID: "ERR-R5-CODES-01", Title: "-32020, -32021 and -32022 are used only with their meanings: their data, and HTTP 400",
	Level: conform.Must, Revisions: revision.Span("R5"), Group: conform.GroupErr, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `2026-07-28/basic/index.mdx (Error Codes): implementations "MUST use defined codes only with their specified meanings"; schema MissingRequiredClientCapabilityError: data.requiredCapabilities required; UnsupportedProtocolVersionError: data.supported and data.requested required; each "For HTTP, the response status code MUST be 400 Bad Request."`,
	Run: func(t *conform.T) conform.Verdict {
		var bad []string
		n := 0
		for _, e := range r5Errors(t) {
			if e.code > conform.CodeHeaderMismatch || e.code < conform.CodeUnsupportedVersion {
				continue
			}
			n++
			if rule, p := r5CodeProblem(e.code, e.data); rule == "meaning" {
				bad = append(bad, e.where+": "+p)
			}
			switch {
			case e.http:
				bad = append(bad, fmt.Sprintf("%s: %d came in a 2xx reply or stream, not with HTTP 400", e.where, e.code))
			case e.status != 0 && e.status != 400:
				bad = append(bad, fmt.Sprintf("%s: %d came with HTTP %d, not 400", e.where, e.code, e.status))
			}
		}
		switch {
		case len(bad) > 0:
			return t.Violation("-32020/-32021/-32022 with their data, over HTTP with status 400", conform.JoinAtMost(bad, 3))
		case n == 0:
			return conform.Skip(reports.NotExercised, "no -32020, -32021 or -32022 error was received in this revision's sessions")
		}
		return conform.Pass("%d errors -32020…-32022, each with its data", n)
	},
})
