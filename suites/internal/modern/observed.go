package modern

import (
	"time"

	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/transport"
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
//
// Replies reads the settled transcripts (transcript-wide checks only), which no
// longer change: the list is made once per revision and shared (read it, never
// write it) by the checks that judge it.
func Replies(t *conform.T) []Reply {
	return t.Once("modern.Replies "+t.Rev.Name, func() any { return replies(t) }).([]Reply)
}

func replies(t *conform.T) []Reply {
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

// ServerRequests finds the JSON-RPC requests the server sent in the revision's
// sessions (those of stdio sessions only, when onlyStdio): each is a failure
// (method and id) of reqs, whose Judged counts the messages received. stdio reports
// whether any session ran over stdio.
func ServerRequests(t *conform.T, onlyStdio bool) (reqs conform.Findings, stdio bool) {
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
			reqs.Judged++
			if e.Msg.Kind == wire.KindRequest {
				reqs.Fail(fmt.Sprintf("%s #%d: %s (id %s)", s.Label, e.Seq, conform.Clip(e.Msg.Method, 60), e.Msg.ID))
			}
		}
	}
	return reqs, stdio
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
	// status: the HTTP error status it came with, 0 otherwise.
	HTTP   bool
	Status int
	// Kind is the session's transport (stdio, http), Method the method of the
	// request it answers, Params that request's params.
	Kind   string
	Method string
	Params json.RawMessage
	// Overrides names the headers a probe set or removed on the request's POST
	// (transport.Exchange.Overrides); Headers is false when the request's headers
	// are not known (not a POST of this session's record).
	Overrides []string
	Headers   bool
	// Session and Request are where the request it answers was sent (its Seq in
	// the session's transcript): what a verdict cites (conform.T.Cite).
	Session *conform.Session
	Request int
}

// Errors collects the errors answering the suite's 2026-07-28 requests, wherever
// they came: in a message of the transcript or as the body of an HTTP error status
// (Entries). A reply is evidence for every rule it can break, whoever provoked it:
// an error answering a probe whose _meta leaves a field out on purpose is still
// held to the error-code rules. Only an answer to a request without any _meta (a
// legacy request, MOD-LEGACY-INIT-01's initialize) is not a modern reply.
func Errors(t *conform.T) []SeenError {
	var out []SeenError
	for _, s := range t.Sessions() {
		if s == nil || s.Conn == nil {
			continue
		}
		posts := postsByID(s)
		sent := map[string]json.RawMessage{}
		sentAt := map[string]int{}
		for _, e := range Entries(t, s) {
			if e.Msg == nil {
				continue
			}
			switch {
			case e.Dir == wire.Sent && e.Msg.Kind == wire.KindRequest:
				sent[e.Msg.ID.Key()] = e.Msg.Params
				sentAt[e.Msg.ID.Key()] = e.Seq
			case e.Dir == wire.Received && e.Msg.Kind == wire.KindError && e.Msg.Error != nil && e.ForMethod != "":
				params, ok := sent[e.Msg.ID.Key()]
				if !ok || !hasMeta(params) {
					continue
				}
				x, known := posts[string(e.Msg.ID.Raw())]
				status := StatusOf(e)
				out = append(out, SeenError{
					Where: fmt.Sprintf("%s (%s)", Where(s, e), e.ForMethod), Code: e.Msg.Error.Code, Data: e.Msg.Error.Data,
					HTTP: s.Kind == "http" && status == 0, Status: status,
					Kind: s.Kind, Method: e.ForMethod, Params: params,
					Overrides: x.Overrides, Headers: known,
					Session: s, Request: sentAt[e.Msg.ID.Key()],
				})
			}
		}
	}
	return out
}

// hasMeta reports whether request params carry a _meta object.
func hasMeta(params json.RawMessage) bool {
	if !rawjson.Valid(params) {
		return false
	}
	meta, ok := rawjson.Lookup(params, "_meta")
	return ok && strings.HasPrefix(strings.TrimSpace(string(meta)), "{")
}

// postsByID maps the raw JSON id of each request an HTTP session POSTed to the
// exchange that carried it (the last one, for an id sent twice).
func postsByID(s *conform.Session) map[string]transport.Exchange {
	out := map[string]transport.Exchange{}
	hs, ok := s.Conn.Transport().(transport.HTTPSession)
	if !ok {
		return out
	}
	for _, x := range hs.Exchanges() {
		if x.Method == http.MethodPost && x.Request != "" {
			out[strings.TrimSpace(x.Request)] = x
		}
	}
	return out
}

// statusSource marks the Source of an entry Entries made from an HTTP error
// status's body: "post (HTTP 400)".
const statusSource = "post (HTTP "

// StatusOf is the HTTP error status an entry of Entries came with (0 for a
// message of the transcript).
func StatusOf(e wire.Entry) int {
	rest, ok := strings.CutPrefix(e.Source, statusSource)
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(rest, ")"))
	return n
}

// Where names an entry of Entries for a verdict: "<label> #<seq>", or for the body
// of an HTTP error status, "<label> HTTP 400 after #<seq>" (it has no number of
// its own: the transcript never held it).
func Where(s *conform.Session, e wire.Entry) string {
	if st := StatusOf(e); st != 0 {
		return fmt.Sprintf("%s HTTP %d after #%d", s.Label, st, e.Seq)
	}
	return fmt.Sprintf("%s #%d", s.Label, e.Seq)
}

// StatusReplies are the JSON-RPC messages a session's server sent as the body of an
// HTTP error status (transport.Exchange.Body), as received entries: Source
// "post (HTTP <status>)", ForMethod the method of the request the POST carried when
// the reply echoes its id, Seq that of the last transcript entry before it. A body
// that is not one JSON-RPC message is no reply (the transport rules judge it).
func StatusReplies(s *conform.Session) []wire.Entry {
	hs := httpSession(s)
	if hs == nil {
		return nil
	}
	return statusRepliesOf(hs.Exchanges())
}

// httpSession is s's HTTP transport, or nil.
func httpSession(s *conform.Session) transport.HTTPSession {
	if s == nil || s.Conn == nil {
		return nil
	}
	hs, _ := s.Conn.Transport().(transport.HTTPSession)
	return hs
}

// statusRepliesOf is StatusReplies of the exchanges xs, by time.
func statusRepliesOf(xs []transport.Exchange) []wire.Entry {
	var out []wire.Entry
	for _, x := range xs {
		if x.Method != http.MethodPost || len(x.Body) == 0 || (x.Status >= 200 && x.Status < 300) {
			continue
		}
		m, err := wire.Decode(x.Body)
		if err != nil || !m.IsResponse() {
			continue
		}
		e := wire.Entry{Dir: wire.Received, At: x.At, Raw: m.Raw, Msg: m, Source: fmt.Sprintf("%s%d)", statusSource, x.Status)}
		if x.Request != "" && string(m.ID.Raw()) == strings.TrimSpace(x.Request) {
			e.ForMethod = x.RPCMethod
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// statusKeep is a session's StatusReplies as of its first n exchanges: every
// observed-message check of a revision reads them (Entries), and each used to copy
// the session's whole record and decode every error body again.
type statusKeep struct {
	mu      sync.Mutex
	n       int
	replies []wire.Entry
}

// keptStatusReplies is StatusReplies of s, kept for the run while the session's
// record holds as many exchanges. Entries asks for it once the session has settled
// (its transcript is read), when every exchange, its error body included, is final.
func keptStatusReplies(t *conform.T, s *conform.Session) []wire.Entry {
	hs := httpSession(s)
	if hs == nil {
		return nil
	}
	k := t.Once("modern.status:"+s.Label, func() any { return &statusKeep{n: -1} }).(*statusKeep)
	k.mu.Lock()
	defer k.mu.Unlock()
	if n := hs.ExchangeCount(); n != k.n {
		k.n, k.replies = n, statusRepliesOf(hs.Exchanges())
	}
	return k.replies
}

// Entries is a session's transcript with its StatusReplies in place, by time: every
// message the server sent, whatever HTTP status it came with. The observed-message
// checks read it, so that a reply counts for every rule it can break on every
// transport (2026-07-28 sends its errors with HTTP 400).
func Entries(t *conform.T, s *conform.Session) []wire.Entry {
	tr := t.Transcript(s)
	if tr == nil { // a probe pass: it reads no transcript, and nothing is final yet
		return merge(tr, StatusReplies(s))
	}
	replies := keptStatusReplies(t, s)
	k := t.Once("modern.entries:"+s.Label, func() any { return &entriesKeep{} }).(*entriesKeep)
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.made || !sameView(tr, k.tr) || !sameView(replies, k.replies) {
		k.made, k.tr, k.replies, k.merged = true, tr, replies, merge(tr, replies)
	}
	return k.merged
}

// merge places a session's StatusReplies in its transcript, by time.
func merge(tr, replies []wire.Entry) []wire.Entry {
	return wire.MergeByTime(tr, replies, func(e wire.Entry) time.Time { return e.At },
		func(x *wire.Entry, after wire.Entry) { x.Seq = after.Seq })
}

// entriesKeep is a session's Entries as of the transcript and StatusReplies views it
// merged: the observed-message checks of a revision read it after the settle, when
// both are final, and each merge copied the whole transcript (5 % of the bytes a run
// allocated).
type entriesKeep struct {
	mu          sync.Mutex
	made        bool
	tr, replies []wire.Entry
	merged      []wire.Entry
}

// sameView reports whether a and b are the same view: the same elements of the same
// array (a transcript only grows, so its view then holds the same entries).
func sameView(a, b []wire.Entry) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
