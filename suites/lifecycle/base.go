package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// BASE-RESP-ID-01 — {rev}/basic/index.mdx (Responses).
var _ = conform.Register(conform.Check{
	ID: "BASE-RESP-ID-01", Title: "replies carry the request's id: same value, same JSON type",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupBase, Phase: conform.PhaseTranscript, Needs: conform.NeedsAny,
	Source: `{rev}/basic/index.mdx (Responses): "Responses MUST include the same ID as the request they correspond to." (request ids are strings or integers; 7 and "7" are different ids)`,
	Run: func(t *conform.T) conform.Verdict {
		// The probe is made once per revision (the runner may run a transcript-wide
		// check twice: once to make its probes while the session is open, once to
		// judge), then every reply of the revision's sessions is judged.
		p := t.Once("BASE-RESP-ID-01:"+t.Rev.Name, func() any { return probeResponseIDs(t) }).(respIDProbe)
		if p.silent != nil {
			return *p.silent
		}
		bad := p.bad
		// Every other reply of this revision's sessions must have matched exactly too.
		for _, sess := range t.Sessions() {
			for _, e := range t.Transcript(sess) {
				if e.Dir == wire.Received && e.LooseID {
					bad = append(bad, fmt.Sprintf("%s #%d: the reply to %s came back with id %s of the wrong JSON type", sess.Label, e.Seq, e.ForMethod, e.Msg.ID))
				}
			}
		}
		if len(bad) > 0 {
			return t.Violation("every reply's id equal to its request's id, with the same JSON type", strings.Join(dedupe(bad), "; "))
		}
		return conform.Pass("ids \"c-1\", %s, 0 and 9007199254740991 echoed exactly", p.fresh)
	},
})

// respIDProbe is what BASE-RESP-ID-01's probe saw: ids that came back altered, or
// the silence that ended it.
type respIDProbe struct {
	fresh  wire.ID // the ordinary integer id the probe used
	bad    []string
	silent *conform.Verdict
}

// probeResponseIDs sends the barrier method with ids of each JSON type on the main
// session and records every reply whose id is not the request's exactly. Ids are
// never reused in a session, so the ordinary integer is a fresh one, and 0 and
// 2^53-1 are ids the suite's counter (from 1, upwards) has not reached.
func probeResponseIDs(t *conform.T) respIDProbe {
	s := t.Session()
	ids := []wire.ID{wire.StringID("c-1"), s.Conn.NextID(), wire.NumberID(0), wire.NumberID(9007199254740991)}
	// ping has no place in 2026-07-28: there the probe is server/discover, the
	// request every modern server answers at any time.
	method := s.Conn.BarrierMethod()
	p := respIDProbe{fresh: ids[1]}
	for _, id := range ids {
		after := s.Conn.Seq()
		resp, err := s.Conn.CallID(t.Ctx, id, method, nil)
		switch {
		case err == nil && !resp.IDExact:
			p.bad = append(p.bad, fmt.Sprintf("sent id %s (%s), the reply's id is %s (%s)", id, id.TypeName(), resp.Msg.ID, resp.Msg.ID.TypeName()))
		case errors.Is(err, wire.ErrTimeout):
			if stray := strayReplies(s, after); stray != "" {
				p.bad = append(p.bad, fmt.Sprintf("sent id %s, no reply carried it; replies seen: %s", id, stray))
				continue
			}
			v := t.Silent("a reply to "+method+" with id "+id.String(), err)
			p.silent = &v
			return p
		case err != nil:
			v := t.Silent("a reply to "+method+" with id "+id.String(), err)
			p.silent = &v
			return p
		}
	}
	return p
}

// strayReplies describes responses received after seq that matched no request.
func strayReplies(s *conform.Session, after int) string {
	var out []string
	for _, e := range s.Conn.Received(after) {
		if e.Msg != nil && e.Msg.IsResponse() && e.ForMethod == "" {
			out = append(out, "id "+e.Msg.ID.String())
		}
	}
	return strings.Join(out, ", ")
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// BASE-METHOD-UNKNOWN-01 — JSON-RPC 2.0 §5.1.
var _ = conform.Register(conform.Check{
	ID: "BASE-METHOD-UNKNOWN-01", Title: "an unknown method is answered with -32601",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupBase, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `JSON-RPC 2.0 §5.1: "-32601 Method not found: The method does not exist / is not available."; {rev}/basic/index.mdx: messages "MUST follow the JSON-RPC 2.0 specification"`,
	Run: func(t *conform.T) conform.Verdict {
		resp, err := t.Session().Call(t.Ctx, "x_conformance/unknown_method", map[string]any{})
		return t.ExpectRPCError(resp, err, wire.CodeMethodNotFound, "the method x_conformance/unknown_method")
	},
})

// PING-01 — {rev}/basic/utilities/ping.mdx.
var _ = conform.Register(conform.Check{
	ID: "PING-01", Title: "ping is answered promptly with an empty result",
	Level: conform.Must, Revisions: revision.Span("R1–R4"), Group: conform.GroupUtil, Phase: conform.PhaseClean, Needs: conform.NeedsAny,
	Source: `{rev}/basic/utilities/ping.mdx: "The receiver MUST respond promptly with an empty response"`,
	Run: func(t *conform.T) conform.Verdict {
		resp, err := t.Session().Call(t.Ctx, "ping", nil)
		result, v := t.ExpectResult(resp, err, "ping")
		if v != nil {
			return *v
		}
		var m map[string]any
		if err := json.Unmarshal(result, &m); err != nil {
			return t.Violation("an empty result {}", "result "+string(result))
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

// BASE-SCHEMA-01 — {rev}/basic/index.mdx (Schema); schema/<rev>.
var _ = conform.Register(conform.Check{
	ID: "BASE-SCHEMA-01", Title: "every message received matches the negotiated revision's schema",
	Level: conform.Must, Revisions: revision.Span("all"), Group: conform.GroupBase, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: `{rev}/basic/index.mdx (Schema): the TypeScript schema (and its JSON twin, schema/<rev>/schema.json) is "the source of truth for all protocol messages and structures". In 2024-11-05 and 2025-03-26 a content block whose type is outside the revision's union is judged at LIFE-VERSION-RESPECT-01's level there, SHOULD (spec-matrix CONTENT-UNKNOWN-TYPE-01): WARN`,
	Run: func(t *conform.T) conform.Verdict {
		var problems []string
		var findings []conform.SchemaFinding
		total := 0
		for _, s := range t.Sessions() {
			fs, n := s.SchemaFindings()
			total += n
			findings = append(findings, fs...)
			for _, f := range fs {
				problems = append(problems, fmt.Sprintf("%s #%d %s", f.Session, f.Seq, f.Problem))
			}
		}
		if len(problems) > 0 && t.Rev.Before("2025-06-18") && onlyContentTypeLeaks(findings) {
			return conform.Warn("every message valid under the "+t.Rev.Name+" schema (content types outside its union: SHOULD in this revision)", conform.JoinAtMost(problems, 5))
		}
		if len(problems) > 0 {
			return t.Violation("every message valid under the "+t.Rev.Name+" schema", conform.JoinAtMost(problems, 5))
		}
		if total == 0 {
			return conform.Skip(reports.NotExercised, "no message with a schema definition was received")
		}
		return conform.Pass("%d messages valid under the %s schema", total, t.Rev.Name)
	},
})

// contentTypePointer matches the type member of a content block of a tool result.
var contentTypePointer = regexp.MustCompile(`^/content/\d+/type$`)

// onlyContentTypeLeaks reports whether every finding is a content block whose type the
// revision's union lacks (an audio block in 2024-11-05, a resource_link before
// 2025-06-18, an unknown type): revision leakage, whose level in 2024-11-05 and
// 2025-03-26 is SHOULD.
func onlyContentTypeLeaks(findings []conform.SchemaFinding) bool {
	for _, f := range findings {
		var ve *revision.ValidationError
		if !errors.As(f.Err, &ve) || len(ve.Problems) == 0 {
			return false
		}
		for _, p := range ve.Problems {
			if !contentTypePointer.MatchString(p.Pointer) || !strings.Contains(p.Message, "is not one of") {
				return false
			}
		}
	}
	return len(findings) > 0
}
