package toolkit

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// exiter is a transport whose server process the run launched (stdio): how it ended.
type exiter interface {
	Exit() transport.ExitInfo
}

// JudgeEOFExits judges how the revision's stdio server processes that the run has
// already stopped answered the end of their stdin (LIFE-SHUTDOWN-STDIO-01,
// STDIO-EOF-EXIT-01). It opens nothing: before the transcript-wide checks judge,
// the run closes every session of the revision but the main one (the spare session,
// a negotiation probe's), and closing a stdio session is the shutdown the lifecycle
// pages describe: stdin closed, then a wait of --kill-grace, then SIGTERM, then
// SIGKILL. The transport records which step the process exited at. A process that
// had ended before its stdin was closed (it crashed, or closed its own output) says
// nothing about this rule; the main session, closed only at the end of the run, is
// not judged.
func JudgeEOFExits(t *conform.T, want string) conform.Verdict {
	var f conform.Findings
	stdio, ran := false, 0
	for _, s := range t.Sessions() {
		if s == nil || s.Conn == nil || s.Kind != "stdio" {
			continue
		}
		stdio = true
		p, ok := s.Conn.Transport().(exiter)
		if !ok {
			continue
		}
		switch x := p.Exit(); x.Ending {
		case transport.Running:
			ran++ // the main session: stopped after the verdicts
		case transport.EndedByItself:
			f.Note(fmt.Sprintf("%s: the process had ended before its stdin was closed (%s)", s.Label, x))
		case transport.EndedOnEOF:
			f.Judged++
		default:
			f.Judged++
			f.Fail(fmt.Sprintf("%s: still running when the wait after closing stdin (--kill-grace) ran out: %s", s.Label, x))
		}
	}
	switch {
	case !stdio:
		return conform.Skip(reports.NotApplicable, "the target is not a stdio server")
	case f.Judged == 0:
		why := fmt.Sprintf("no stdio session of this revision was stopped before the judging (%d still running; in a full run the spare session of the odd-input probes is)", ran)
		if len(f.Notes()) > 0 {
			why += "; not judged: " + conform.JoinAtMost(f.Notes(), 3)
		}
		return conform.Skip(reports.NotExercised, "%s", why)
	}
	return f.Verdict(want, "", fmt.Sprintf("%d server process(es) of this revision exited on their own once stdin was closed, before SIGTERM", f.Judged))
}
