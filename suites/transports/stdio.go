package transports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/modern"
	"github.com/mcp-conform/mcp-conform/suites/internal/subscribe"
	"github.com/mcp-conform/mcp-conform/suites/internal/toolkit"
)

// The stdio rules are judged from what the transport rejected on stdout, in every
// session of the revision: the run goes on past a bad line (it is recorded, never
// taken for a message), and these checks say what the server wrote.

// stdoutLine is one rejected stdout line of a session.
type stdoutLine struct {
	where string
	raw   []byte
	err   string
}

func (l stdoutLine) String() string {
	return fmt.Sprintf("%s: %.80q", l.where, l.raw)
}

// rejectedStdout collects the stdout lines the transport did not take as messages,
// leaving out a last line cut short by the process's end (no newline), which says
// nothing about what the server meant to write.
func rejectedStdout(t *conform.T, keep func(stdoutLine) bool) (lines []stdoutLine, stdio bool) {
	for _, s := range t.Sessions() {
		if s == nil || s.Conn == nil {
			continue
		}
		if s.Kind != "stdio" {
			continue
		}
		stdio = true
		entries, _ := s.Conn.Transcript()
		for _, e := range entries {
			if e.Dir != wire.Received || e.Source != "stdout" || e.Err == "" || e.Msg != nil {
				continue
			}
			if strings.Contains(e.Err, "not terminated by a newline") {
				continue
			}
			l := stdoutLine{where: fmt.Sprintf("%s #%d", s.Label, e.Seq), raw: e.Raw, err: e.Err}
			if keep(l) {
				lines = append(lines, l)
			}
		}
	}
	return lines, stdio
}

// looksLikeJSON reports whether a line is JSON that breaks the framing: a complete
// JSON value followed by more, or a value cut short by the newline. Any other line
// is not a message at all, whatever its first character: "[INFO] started" is a log
// line (STDIO-STDOUT-PURE-01), not a message cut by a newline (STDIO-FRAMING-01).
func looksLikeJSON(raw []byte) bool {
	_, ok := framingFault(raw)
	return ok
}

func notUTF8(l stdoutLine) bool { return strings.Contains(l.err, "not valid UTF-8") }
func notJSON(l stdoutLine) bool { return strings.Contains(l.err, "not JSON") && !notUTF8(l) }

func capLines(ls []stdoutLine, n int) string {
	parts := make([]string, 0, n)
	for i, l := range ls {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(ls)-n))
			break
		}
		parts = append(parts, l.String())
	}
	return strings.Join(parts, "; ")
}

func notStdio() conform.Verdict {
	return conform.Skip(conform.NotApplicable, "the target is not a stdio server")
}

// STDIO-STDOUT-PURE-01 — {rev}/basic/transports.mdx (stdio).
var _ = conform.Register(conform.Check{
	ID: "STDIO-STDOUT-PURE-01", Title: "the server writes nothing but MCP messages to stdout",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		bad, stdio := rejectedStdout(t, func(l stdoutLine) bool { return notJSON(l) && !looksLikeJSON(l.raw) })
		switch {
		case !stdio:
			return notStdio()
		case len(bad) > 0:
			return conform.Violation("only MCP messages on stdout", fmt.Sprintf("%d line(s) that are not JSON-RPC messages: %s", len(bad), capLines(bad, 3)))
		}
		return conform.Pass("every stdout line of this revision's sessions was a JSON value")
	},
})

// STDIO-FRAMING-01 — {rev}/basic/transports.mdx (stdio).
var _ = conform.Register(conform.Check{
	ID: "STDIO-FRAMING-01", Title: "one JSON-RPC message per newline-terminated stdout line",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		bad, stdio := rejectedStdout(t, func(l stdoutLine) bool { return notJSON(l) && looksLikeJSON(l.raw) })
		switch {
		case !stdio:
			return notStdio()
		case len(bad) > 0:
			var kinds conform.Findings
			for _, l := range bad {
				fault, _ := framingFault(l.raw)
				kinds.Fail(fault + " — " + l.String())
			}
			return kinds.Violation("each stdout line exactly one JSON value")
		}
		return conform.Pass("every stdout line of this revision's sessions was exactly one JSON value")
	},
})

// framingFault says how a JSON line breaks the framing; ok is false for a line that
// is not JSON at all.
func framingFault(raw []byte) (fault string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var first json.RawMessage
	switch err := dec.Decode(&first); {
	case err == nil:
		return "more than one JSON value on one line", true
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "a message cut by a newline", true
	}
	return "", false
}

// STDIO-NO-REQUESTS-R5-01 — 2026-07-28/basic/transports/stdio.mdx.
var _ = conform.Register(conform.Check{
	ID: "STDIO-NO-REQUESTS-R5-01", Title: "the server writes no JSON-RPC request to stdout",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		reqs, stdio := modern.ServerRequests(t, true)
		if !stdio {
			return notStdio()
		}
		return reqs.VerdictOrNone("no message was read from stdout in this revision's sessions",
			fmt.Sprintf("no JSON-RPC request on stdout; got %d", reqs.Count()),
			fmt.Sprintf("%d messages read from stdout, none a request", reqs.Judged))
	},
})

// STDIO-SUBID-R5-01 — 2026-07-28/basic/transports/stdio.mdx; subscriptions.mdx.
// Two subscriptions share the channel at once: each message must name its own.
var _ = conform.Register(conform.Check{
	ID: "STDIO-SUBID-R5-01", Title: "stdio: two concurrent subscriptions are told apart by _meta subscriptionId",
	Changes: conform.StateToolList,
	Run: func(t *conform.T) conform.Verdict {
		a := subscribe.MustOpen(t, subscribe.Tools, 1)
		defer subscribe.Cancel(t, a)
		b := subscribe.MustOpen(t, subscribe.Tools, 2)
		defer subscribe.Cancel(t, b)
		changed := ""
		if trig := subscribe.PickTrigger(t); trig != nil && toolkit.ListChangedDeclared(t.Session()) {
			subscribe.MustChange(t, trig)
			if err := b.Sync(t.Ctx, 2); err != nil {
				return conform.Errorf("%v", err)
			}
			changed = " (after a tool list change with " + trig.What + ")"
		}
		var f conform.Findings
		// An untagged subscription notification is owned by both; judging it
		// under a alone reports it once.
		subscribe.TagFindings(&f, a)
		for _, e := range b.Messages() {
			f.Judged++
			if e.Msg == nil {
				continue
			}
			if _, ok := conform.SubscriptionTag(e.Msg); ok {
				if p := subscribe.TagProblem(b, e.Msg); p != "" {
					f.Fail(fmt.Sprintf("subscription %s: %s %s", b.ID, subscribe.What(e), p))
				}
			}
		}
		return f.Verdict(fmt.Sprintf("every message of subscriptions %s and %s tagged with its own id", a.ID, b.ID), "",
			fmt.Sprintf("%d messages of the two subscriptions %s and %s on the one channel%s, each tagged with its own id", f.Judged, a.ID, b.ID, changed))
	},
})

// STDIO-BATCH-R2-01 — 2025-03-26/basic/transports.mdx (stdio).
var _ = conform.Register(toolkit.OnMixedBatch(conform.Check{
	ID: "STDIO-BATCH-R2-01", Title: "a whole batch on one stdin line is accepted and each request answered",
}, toolkit.BatchProbe.JudgeBatch))

// STDIO-SINGLE-R3-01 — {rev}/basic/transports.mdx (stdio).
var _ = conform.Register(toolkit.NoArraysCheck(conform.Check{
	ID: "STDIO-SINGLE-R3-01", Title: "each stdout line is a single message, never an array",
}, true, "no stdout line was received in this revision's sessions",
	"one message per stdout line, never a JSON array",
	"%d stdout messages, each on its own"))

// STDIO-EOF-EXIT-01 — 2026-07-28/basic/transports/stdio.mdx (Shutdown).
var _ = conform.Register(conform.Check{
	ID: "STDIO-EOF-EXIT-01", Title: "the server exits promptly once stdin reaches EOF (2026-07-28)",
	// The revision's own session, stopped when the column settles; a clean process
	// of its own only when that one did not exit on EOF (toolkit.JudgeEOFExit).
	Phase:         conform.PhaseTranscript,
	FreshSessions: toolkit.EOFExitFreshSessions,
	Run: func(t *conform.T) conform.Verdict {
		return toolkit.JudgeEOFExit(t, "the server process exits promptly once its stdin reaches EOF, without SIGTERM")
	},
})
