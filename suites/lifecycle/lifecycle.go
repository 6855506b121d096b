// Package lifecycle holds the checks of the LIFE group (lifecycle.go: initialize and
// its result, version negotiation, capability shapes and honesty, a revision's
// fields) and of the MOD group, 2026-07-28's stateless era (modern.go:
// server/discover, per-request _meta, removed methods, extensions; mrtr.go: multi
// round-trip requests). leakage.go and modern_probes.go hold what they share.
package lifecycle

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// LIFE-INIT-01 — {rev}/basic/lifecycle.mdx.
var _ = conform.Register(conform.Check{
	ID: "LIFE-INIT-01", Title: "initialize is answered with an InitializeResult",
	Handshake: true,
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		want := "an InitializeResult for initialize{protocolVersion: " + t.Rev.Name + "}"
		switch {
		case s.Init == nil:
			return conform.Silence(want, t.ColumnErr())
		case s.Init.IsError() && s.Init.Error.Code == -32602:
			return conform.Skip(conform.RevisionUnsupported, "the server rejected %s with -32602 %q (judged by LIFE-VERSION-FALLBACK-01)", t.Rev.Name, s.Init.Error.Message)
		case s.Init.IsError():
			return conform.Violation(want, conform.Describe(s.Init, nil))
		case s.InitErr != nil:
			return conform.Violation(want, s.InitErr.Error())
		case s.Negotiated != t.Rev.Name:
			return unsupportedHere(t)
		}
		return conform.Pass("InitializeResult in %s (protocolVersion %s)", s.Init.Elapsed.Round(1e6), s.Negotiated)
	},
})

// settledSession returns the main session for a check that reads its successful
// handshake result (InitializeResult, or DiscoverResult in 2026-07-28), ending the
// check with a not-applicable skip saying none when there is none: LIFE-INIT-01 and
// MOD-DISCOVER-01 judge the handshake itself.
func settledSession(t *conform.T, none string) *conform.Session {
	s := t.Session()
	if s.Init == nil || s.Init.IsError() {
		t.SkipNow(conform.NotApplicable, "%s", none)
	}
	return s
}

// LIFE-INIT-RESULT-01 — lifecycle.mdx; schema InitializeResult.
var _ = conform.Register(conform.Check{
	ID: "LIFE-INIT-RESULT-01", Title: "InitializeResult has protocolVersion, capabilities and serverInfo{name,version}",
	Handshake: true,
	Run: func(t *conform.T) conform.Verdict {
		s := settledSession(t, "no InitializeResult to judge (see LIFE-INIT-01)")
		if s.Negotiated != "" && s.Negotiated != t.Rev.Name {
			return unsupportedHere(t)
		}
		if err := s.Rev.Validate("InitializeResult", json.RawMessage(s.Init.Result)); err != nil {
			return conform.Violation("an InitializeResult valid under the "+s.Rev.Name+" schema", err.Error())
		}
		return conform.Pass("valid under the %s schema", s.Rev.Name)
	},
})

// LIFE-VERSION-ECHO-01 — lifecycle.mdx (Version Negotiation).
var _ = conform.Register(conform.Check{
	ID: "LIFE-VERSION-ECHO-01", Title: "a supported version is echoed; another answer names a version the server supports",
	Handshake: true,
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		switch {
		case s.Init == nil:
			return conform.Silence("an answer to initialize", t.ColumnErr())
		case s.Init.IsError():
			return conform.Skip(conform.RevisionUnsupported, "initialize was answered with an error (%s); judged by LIFE-INIT-01 and LIFE-VERSION-FALLBACK-01", conform.Describe(s.Init, nil))
		case s.Negotiated == "":
			return conform.Violation("a protocolVersion string in the InitializeResult", "none")
		case s.Negotiated == t.Rev.Name:
			return conform.Pass("asked for %s, the server echoed it", t.Rev.Name)
		}
		ok, err := t.Supports(s.Negotiated)
		switch {
		case err != nil:
			return conform.Errorf("could not verify the counter-offer %s: %v", s.Negotiated, err)
		case !ok:
			return conform.Violation(
				"the requested version, or another version the server supports",
				fmt.Sprintf("asked for %s, the server answered %s — but asked for %s it does not echo it", t.Rev.Name, s.Negotiated, s.Negotiated))
		}
		return conform.Skip(conform.RevisionUnsupported, "asked for %s, the server answered %s, a version it supports (it echoes it when asked)", t.Rev.Name, s.Negotiated)
	},
})

// unsupportedHere is the verdict of a handshake check in a column whose revision the
// server answered with another version.
func unsupportedHere(t *conform.T) conform.Verdict {
	return conform.Skip(conform.RevisionUnsupported, "asked for %s, the server answered %s", t.Rev.Name, t.Session().Negotiated)
}

// bogusVersion is a protocol version no server can support.
const bogusVersion = "1999-01-01"

type fallbackProbe struct {
	answer  string      // the version answered, "" if none
	rpcErr  string      // the JSON-RPC error, if the server rejected the version
	rpc     *wire.Error // the same error, as it came
	silence error       // no answer at all
	supp    bool        // the answered version is one the server supports
	suppErr error
	newest  string // the newest version the server echoed in this run
}

// LIFE-VERSION-FALLBACK-01 — lifecycle.mdx (Version Negotiation, Error Handling).
var _ = conform.Register(conform.Check{
	ID: "LIFE-VERSION-FALLBACK-01", Title: "an unsupported version is answered with a version the server supports",
	// The probe's session opens alongside the main sessions (once per run).
	PreOpen: []string{bogusVersion},
	Run: func(t *conform.T) conform.Verdict {
		p := t.Once("fallback-probe", func() any { return probeFallback(t) }).(fallbackProbe)
		switch {
		case p.silence != nil:
			return conform.Silence("an answer to initialize{protocolVersion: "+bogusVersion+"}", p.silence)
		case p.rpcErr != "":
			return conform.Warn("a version the server supports (the MUST)", "a JSON-RPC error: "+p.rpcErr+" (the lifecycle page's own example does this)")
		case p.answer == bogusVersion:
			return conform.Violation("another protocol version the server supports", "the server echoed the unknown version "+bogusVersion)
		case p.suppErr != nil:
			return conform.Errorf("could not verify the answered version %s: %v", p.answer, p.suppErr)
		case !p.supp:
			return conform.Violation("another protocol version the server supports", fmt.Sprintf("%s, which it does not echo when asked for it", p.answer))
		case p.newest != "" && p.answer != p.newest:
			return conform.Warn("the latest version the server supports ("+p.newest+"), as the SHOULD asks", p.answer)
		}
		return conform.Pass("asked for %s, the server answered %s, which it supports", bogusVersion, p.answer)
	},
})

// LIFE-VERSION-ERRSHAPE-01 — lifecycle.mdx (Error Handling example).
var _ = conform.Register(conform.Check{
	ID: "LIFE-VERSION-ERRSHAPE-01", Title: "a rejected version is -32602 with data.supported[] and data.requested, as the spec's example",
	// The same probe as LIFE-VERSION-FALLBACK-01 (memoized): no session of its own.
	PreOpen: []string{bogusVersion},
	Run: func(t *conform.T) conform.Verdict {
		p := t.Once("fallback-probe", func() any { return probeFallback(t) }).(fallbackProbe)
		switch {
		case p.silence != nil:
			return conform.Skip(conform.NotExercised, "initialize{protocolVersion: %s} got no answer (judged by LIFE-VERSION-FALLBACK-01)", bogusVersion)
		case p.rpc == nil:
			return conform.Skip(conform.NotExercised, "the server answered initialize{protocolVersion: %s} with version %s, not an error: no error shape to judge", bogusVersion, p.answer)
		}
		return judgeVersionError(p.rpc)
	},
})

// judgeVersionError compares a version rejection with the lifecycle page's example:
// code -32602, data.supported an array of version strings, data.requested the version
// asked for.
func judgeVersionError(e *wire.Error) conform.Verdict {
	var f conform.Findings
	if e.Code != wire.CodeInvalidParams {
		f.Fail(fmt.Sprintf("code %d, not -32602", e.Code))
	}
	var data struct {
		Supported json.RawMessage `json:"supported"`
		Requested json.RawMessage `json:"requested"`
	}
	if len(e.Data) == 0 || json.Unmarshal(e.Data, &data) != nil {
		f.Fail("no data object (" + toolkit.Or(conform.ClipBytes(e.Data, 60), "absent") + ")")
	} else {
		var supported []string
		if err := json.Unmarshal(data.Supported, &supported); err != nil || len(supported) == 0 {
			f.Fail("data.supported is not a non-empty array of version strings (" + toolkit.Or(conform.ClipBytes(data.Supported, 60), "absent") + ")")
		}
		var req string
		if err := json.Unmarshal(data.Requested, &req); err != nil || req != bogusVersion {
			f.Fail(fmt.Sprintf("data.requested is not %q (%s)", bogusVersion, toolkit.Or(conform.ClipBytes(data.Requested, 60), "absent")))
		}
	}
	if f.Failed() {
		return f.Violation(`the example's shape: -32602 with data {"supported": [...], "requested": "` + bogusVersion + `"}`)
	}
	return conform.Pass("-32602 with data.supported %s and data.requested %q", conform.ClipBytes(data.Supported, 80), bogusVersion)
}

func probeFallback(t *conform.T) fallbackProbe {
	var p fallbackProbe
	s, err := t.OpenSession(bogusVersion)
	switch {
	case s != nil && s.Init != nil && s.Init.IsError():
		p.rpcErr, p.rpc = conform.Describe(s.Init, nil), s.Init.Error
		return p
	case s != nil && s.Init == nil:
		p.silence = err
		return p
	case s == nil:
		p.silence = err
		return p
	}
	p.answer = s.Negotiated
	if p.answer == "" || p.answer == bogusVersion {
		return p
	}
	p.supp, p.suppErr = t.Supports(p.answer)
	// Only versions initialize can negotiate count: a 2026-07-28 server speaks that
	// version through server/discover, never initialize.
	for _, r := range revision.InEra(revision.Legacy) {
		if neg, ok := t.RevisionsAsked()[r.Name]; ok && neg == r.Name {
			p.newest = r.Name
		}
	}
	if p.newest != "" {
		if nr, ok := revision.Lookup(p.answer); !ok || nr.Index() > revision.MustLookup(p.newest).Index() {
			p.newest = "" // the server answered something newer than any we asked for: fine
		}
	}
	return p
}

// LIFE-CAPS-SHAPE-01 — lifecycle.mdx; schema ServerCapabilities.
var _ = conform.Register(conform.Check{
	ID: "LIFE-CAPS-SHAPE-01", Title: "each declared capability is an object with boolean flags",
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		raw, ok := s.InitResult["capabilities"]
		if !ok {
			return conform.Violation("a capabilities object", "no capabilities member")
		}
		if err := s.Rev.Validate("ServerCapabilities", json.RawMessage(raw)); err != nil {
			return conform.Violation("capabilities valid under the "+s.Rev.Name+" schema", err.Error())
		}
		var caps map[string]json.RawMessage
		if err := json.Unmarshal(raw, &caps); err != nil {
			return conform.Violation("a capabilities object", string(raw))
		}
		var names, unknown []string
		known := map[string]bool{"tools": true, "prompts": true, "resources": true, "logging": true, "completions": true, "experimental": true, "tasks": true}
		for k := range caps {
			names = append(names, k)
			if !known[k] {
				unknown = append(unknown, k)
			}
		}
		// Map order is random: the message is the same on every run.
		slices.Sort(names)
		slices.Sort(unknown)
		if len(unknown) > 0 {
			return conform.Note("capabilities %s valid; keys the spec does not define (allowed by the schema): %s", strings.Join(names, ", "), strings.Join(unknown, ", "))
		}
		return conform.Pass("capabilities valid: %s", strings.Join(names, ", "))
	},
})

// defClientFeatureMethods are the server→client requests that need a client
// capability the suite never declares (it sends capabilities: {}).
var defClientFeatureMethods = map[string]string{
	"sampling/createMessage": "sampling",
	"elicitation/create":     "elicitation",
	"roots/list":             "roots",
}

// LIFE-CAPS-HONEST-01 — {rev}/basic/lifecycle.mdx (Operation).
var _ = conform.Register(conform.Check{
	ID: "LIFE-CAPS-HONEST-01", Title: "no sampling, elicitation or roots request reaches a client that declared no capabilities",
	Phase: conform.PhaseTranscript,
	Run:   runCapsHonest,
})

func runCapsHonest(t *conform.T) conform.Verdict {
	var found conform.Findings
	received, sessions := 0, 0
	for _, s := range t.Sessions() {
		sessions++
		entries, _ := s.Conn.Transcript()
		for _, e := range entries {
			if e.Dir != wire.Received {
				continue
			}
			received++
			if e.Msg == nil || e.Msg.Kind != wire.KindRequest {
				continue
			}
			if capName, ok := defClientFeatureMethods[e.Msg.Method]; ok {
				found.Fail(fmt.Sprintf("%s #%d: %s (needs the client's %s capability)", s.Label, e.Seq, e.Msg.Method, capName))
			}
		}
	}
	if found.Failed() {
		return found.Violation("no sampling/createMessage, elicitation/create or roots/list request: the client declared capabilities {}")
	}
	return conform.Note("none seen in %d messages received in %d session(s); this proves absence only in the traffic seen", received, sessions)
}

// LIFE-VERSION-RESPECT-01 — {rev}/basic/lifecycle.mdx (Operation).
var _ = conform.Register(conform.Check{
	ID: "LIFE-VERSION-RESPECT-01", Title: "tool definitions and tool results use only fields and content types of the negotiated revision",
	Probe: func(t *conform.T) { toolkit.List(t) }, // the memoized walk: every revision's definitions are seen at least once
	Run: func(t *conform.T) conform.Verdict {
		sc := defScanSessions(t.Sessions())
		switch {
		case len(sc.leaks) > 0:
			return conform.Violation("only members and content types the negotiated revision defines", conform.JoinAtMost(sc.leaks, 5))
		case sc.lists+sc.calls == 0:
			return conform.Skip(conform.NotExercised, "no tools/list or tools/call result was received in this revision's sessions")
		}
		msg := fmt.Sprintf("%d tools/list and %d tools/call result(s) in %d session(s) use only their negotiated revision's vocabulary; this proves absence only in the traffic seen", sc.lists, sc.calls, sc.sessions)
		if len(sc.unknown) > 0 {
			return conform.Note("%s; not judged (version unknown to the suite): %s", msg, conform.JoinAtMost(sc.unknown, 3))
		}
		return conform.Pass("%s", msg)
	},
})

// LIFE-INSTRUCTIONS-01 — schema InitializeResult.
var _ = conform.Register(conform.Check{
	ID: "LIFE-INSTRUCTIONS-01", Title: "instructions, when the server sends them, are a string",
	Run: func(t *conform.T) conform.Verdict {
		s := settledSession(t, "no InitializeResult to judge (see LIFE-INIT-01)")
		raw, ok := s.InitResult["instructions"]
		if !ok {
			return conform.Skip(conform.NotExercised, "the InitializeResult carries no instructions (they are optional)")
		}
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return conform.Violation("instructions as a string", "instructions "+toolkit.JSONKind(raw)+" "+conform.ClipBytes(raw, 60))
		}
		return conform.Pass("instructions: a string of %d bytes", len(text))
	},
})

// implExtras are the optional Implementation fields each revision added.
var implExtras = []struct {
	field   string
	feature revision.Feature
}{
	{"title", revision.Title},
	{"description", revision.Icons},
	{"icons", revision.Icons},
	{"websiteUrl", revision.Icons},
}

// LIFE-IMPL-01 — schema Implementation.
var _ = conform.Register(conform.Check{
	ID: "LIFE-IMPL-01", Title: "serverInfo's optional title (2025-06-18), description, icons and websiteUrl (2025-11-25) have the schema's types",
	Run: func(t *conform.T) conform.Verdict {
		s := t.Session()
		info := s.ServerInfo()
		if len(info) == 0 {
			return conform.Skip(conform.NotApplicable, "no serverInfo to judge (see LIFE-INIT-RESULT-01)")
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(info, &obj) != nil {
			return conform.Skip(conform.NotApplicable, "serverInfo is not an object (judged by LIFE-INIT-RESULT-01)")
		}
		var present []string
		for _, x := range implExtras {
			if _, ok := obj[x.field]; ok && t.Rev.Has(x.feature) {
				present = append(present, x.field)
			}
		}
		if len(present) == 0 {
			return conform.Skip(conform.NotExercised, "serverInfo carries none of the optional fields of %s", t.Rev.Name)
		}
		var bad conform.Findings
		if err := t.Rev.Validate("Implementation", info); err != nil {
			bad.Fail(err.Error())
		}
		if raw, ok := obj["websiteUrl"]; ok && t.Rev.Has(revision.Icons) {
			var u string
			if json.Unmarshal(raw, &u) == nil && !absoluteURI(u) {
				bad.Fail(fmt.Sprintf("websiteUrl %q is not an absolute URI", conform.Clip(u, 80)))
			}
		}
		if bad.Failed() {
			return bad.Violation("serverInfo valid under the " + t.Rev.Name + " schema's Implementation")
		}
		return conform.Pass("serverInfo's %s valid under the %s schema", strings.Join(present, ", "), t.Rev.Name)
	},
})

// absoluteURI reports whether s is a URI with a scheme (RFC 3986 §4.3).
func absoluteURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "" || u.Path != "")
}

// LIFE-SHUTDOWN-STDIO-01 — {rev}/basic/lifecycle.mdx (Shutdown, stdio).
var _ = conform.Register(conform.Check{
	ID: "LIFE-SHUTDOWN-STDIO-01", Title: "a stdio server exits once its stdin is closed, before SIGTERM",
	Transports: []string{"stdio"},
	// The revision's own session, stopped when the column settles; a clean process
	// of its own only when that one did not exit on EOF (toolkit.JudgeEOFExit).
	Phase:         conform.PhaseTranscript,
	FreshSessions: toolkit.EOFExitFreshSessions,
	// Derived: the key word binds the client's procedure; the server's part (exit
	// on EOF) is what that procedure waits for. A violation warns, never fails.
	Run: func(t *conform.T) conform.Verdict {
		return toolkit.JudgeEOFExit(t, "the server process exits once its stdin is closed, without SIGTERM")
	},
})

// LIFE-INITIALIZED-01 — {rev}/basic/lifecycle.mdx (Initialization); {rev}/basic/index.mdx (Notifications).
var _ = conform.Register(conform.Check{
	ID: "LIFE-INITIALIZED-01", Title: "notifications/initialized is taken silently",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var f conform.Findings
		open := 0
		for _, s := range t.Sessions() {
			switch judgeInitialized(s.Label, t.Transcript(s), &f) {
			case initializedJudged:
				f.Judged++
			case initializedOpen:
				open++
			}
		}
		if f.Judged == 0 && !f.Failed() {
			return conform.Skip(conform.NotExercised, "no session of this revision sent notifications/initialized and then got a reply to a later request (%d left unproven)", open)
		}
		return f.Verdict("no response to notifications/initialized", "", fmt.Sprintf("%d session(s): no response to notifications/initialized before the reply to the next request", f.Judged))
	},
})

// initializedWindow says whether a session's transcript proves what followed its
// notifications/initialized.
type initializedWindow int

const (
	initializedNone   initializedWindow = iota // the session sent none (initialize failed, or 2026-07-28)
	initializedOpen                            // no reply to a later request closed the window
	initializedJudged                          // the window is closed: what came in it is judged
)

// judgeInitialized looks at what a session received between its
// notifications/initialized and the first reply to a request sent after it: a
// response that answers none of the suite's requests there answers the
// notification. A window in which the suite sent odd input (the spare session's
// first probes) proves nothing: a stray reply there may answer the probe.
func judgeInitialized(label string, entries []wire.Entry, f *conform.Findings) initializedWindow {
	sentAt := -1
	for i, e := range entries {
		if e.Dir == wire.Sent && e.Msg != nil && e.Msg.Kind == wire.KindNotification && e.Msg.Method == "notifications/initialized" {
			sentAt = i
			break
		}
	}
	if sentAt < 0 {
		return initializedNone
	}
	// A reply that carries the id of a request the suite sent answers that request
	// (again, if it was answered already: a duplicate, another rule's), never the
	// notification, which has no id.
	requested := map[string]bool{}
	for _, e := range entries {
		if e.Dir == wire.Sent && e.Msg != nil && e.Msg.Kind == wire.KindRequest {
			requested[e.Msg.ID.LooseKey()] = true
		}
	}
	for _, e := range entries[sentAt+1:] {
		if e.Dir == wire.Sent && (e.Msg == nil || e.Msg.Problem != "") {
			// Odd input (unparseable bytes, an invalid request, a batch) went out
			// before the window closed: a reply no call claims may answer it. The
			// suite's well-formed answers to the server's own requests are not: what
			// comes back for them is no reply to a request at all.
			return initializedOpen
		}
		if e.Dir != wire.Received || e.Msg == nil || !e.Msg.IsResponse() {
			continue
		}
		if e.ForMethod != "" {
			return initializedJudged
		}
		if !e.Msg.ID.IsZero() && !e.Msg.ID.IsNull() && requested[e.Msg.ID.LooseKey()] {
			continue
		}
		f.Fail(fmt.Sprintf("%s #%d: %s", label, e.Seq, toolkit.DescribeReply(e.Msg)))
	}
	return initializedOpen
}
