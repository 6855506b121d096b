package modern

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// Reply is one response received in a 2026-07-28 session, paired with the
// request it answers.
type Reply struct {
	Where  string // "<session label> #<seq>"
	Kind   string // the session's transport: stdio, http
	Method string
	Params json.RawMessage // the request's params
	Msg    *wire.Message
}

// Replies collects the responses to the suite's 2026-07-28 requests: those
// whose params._meta carried the per-request protocol version. A request sent
// without it on purpose (MOD-LEGACY-INIT-01's legacy initialize) is not a modern
// request, and its answer is not held to the modern rules.
func Replies(t *conform.T) []Reply {
	var out []Reply
	for _, s := range t.Sessions() {
		if s == nil || s.Conn == nil {
			continue
		}
		sent := map[string]json.RawMessage{}
		for _, e := range t.Transcript(s) {
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
				out = append(out, Reply{Where: fmt.Sprintf("%s #%d", s.Label, e.Seq), Kind: s.Kind, Method: e.ForMethod, Params: params, Msg: e.Msg})
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

// ResultObject decodes a result as an object (nil when it is not one). The members
// are slices of the received reply (wire.Decode validated it), not copies: every
// page of every tools/list walk passes here.
func ResultObject(raw json.RawMessage) map[string]json.RawMessage {
	m, err := rawjson.ObjectOfValid(raw)
	if err != nil {
		return nil
	}
	return m
}

// ServerRequests lists the JSON-RPC requests (method and id) the server sent in the
// revision's sessions; onlyStdio keeps those of stdio sessions. stdio reports whether
// any session ran over stdio.
func ServerRequests(t *conform.T, onlyStdio bool) (reqs []string, received int, stdio bool) {
	for _, s := range t.Sessions() {
		if s == nil || s.Conn == nil {
			continue
		}
		if s.Kind == "stdio" {
			stdio = true
		} else if onlyStdio {
			continue
		}
		for _, e := range t.Transcript(s) {
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

// CodeProblem says how an error code observed in a 2026-07-28 session breaks the
// error-code rules: rule "range" (BASE-ERRRANGE-01: a code 2026-07-28 does not
// allocate) or "meaning" (ERR-R5-CODES-01: a defined code without its data); ""
// when it breaks neither. data is the error's data member.
func CodeProblem(code int, data json.RawMessage) (rule, problem string) {
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

// SeenError is one JSON-RPC error the server sent in a 2026-07-28 session.
type SeenError struct {
	Where string
	Code  int
	Data  json.RawMessage
	// http: the session ran over HTTP and the error came in a 2xx reply or stream;
	// status: the HTTP error status it came with (probes' answers), 0 otherwise.
	HTTP   bool
	Status int
}

// Errors collects the errors answering the suite's modern requests: those the
// transcript holds, and, over Streamable HTTP, those the _meta probes (suites/lifecycle) recorded with RecordHTTPError as
// with an HTTP error status (not messages of the transcript). Errors other checks
// received with a 4xx status are not seen.
func Errors(t *conform.T) []SeenError {
	var out []SeenError
	for _, s := range t.Sessions() {
		out = append(out, recordedHTTPErrors(s)...)
	}
	for _, r := range Replies(t) {
		if r.Msg.Kind != wire.KindError || r.Msg.Error == nil {
			continue
		}
		out = append(out, SeenError{Where: fmt.Sprintf("%s (%s)", r.Where, r.Method), Code: r.Msg.Error.Code, Data: r.Msg.Error.Data, HTTP: r.Kind == "http"})
	}
	return out
}

// httpErrors keeps, per session, the JSON-RPC errors the probes received with an
// HTTP error status: they are no messages of the transcript, and the observed
// error-code checks judge them too.
var httpErrors = struct {
	sync.Mutex
	bySession map[*conform.Session][]SeenError
}{bySession: map[*conform.Session][]SeenError{}}

// RecordHTTPError keeps a JSON-RPC error a probe received with an HTTP error status.
func RecordHTTPError(s *conform.Session, e SeenError) {
	httpErrors.Lock()
	defer httpErrors.Unlock()
	httpErrors.bySession[s] = append(httpErrors.bySession[s], e)
}

func recordedHTTPErrors(s *conform.Session) []SeenError {
	httpErrors.Lock()
	defer httpErrors.Unlock()
	return slices.Clone(httpErrors.bySession[s])
}
