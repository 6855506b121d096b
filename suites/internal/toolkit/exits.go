package toolkit

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// exiter is a transport whose server process the run launched (stdio): how it ended.
type exiter interface {
	Exit() transport.ExitInfo
}

// eofExit is how a server process ended once the suite closed its stdin.
type eofExit struct {
	exit  transport.ExitInfo
	label string
	err   error
}

// EOFExitFreshSessions is what a check that calls JudgeEOFExit declares as
// FreshSessions: the one clean process it stops when the revision's own session did
// not exit on the end of its input (once per era and run).
const EOFExitFreshSessions = 1

// JudgeEOFExit judges whether a stdio server exits once its stdin is closed
// (LIFE-SHUTDOWN-STDIO-01, STDIO-EOF-EXIT-01), which is the shutdown the lifecycle
// pages describe: stdin closed, a wait of --kill-grace, then SIGTERM, then SIGKILL;
// the transport records the step the process exited at. A transcript-wide check: it
// looks first at the revision's own session, which the run stops by closing its
// stdin when the column settles (T.Stopped), after the session's last probe was
// followed by a request the server answered, so an end the server chose over odd
// input (the Go SDK exits on it) shows before the close, not as a race with it. A
// process that exited then is a pass. Anything else there is no evidence: the
// session has had work in flight (a task, a timer of a subscription) that a server
// may finish before it exits, and whether it does within the wait would rest on
// machine speed. Then one clean session of its own is opened per era and run
// (T.Once: the way a process answers the end of its input does not depend on the
// revision it was asked for) and closed at once; it gives the verdict. Its checks
// are of the stdio transport (Check.Transports): the runner calls them over stdio
// only.
func JudgeEOFExit(t *conform.T, want string) conform.Verdict {
	for _, s := range t.Stopped() {
		p, ok := s.Conn.Transport().(exiter)
		if !ok {
			continue
		}
		if e := p.Exit(); e.Ending == transport.EndedOnEOF {
			return judgeEOFExit(eofExit{exit: e, label: s.Label}, want)
		}
	}
	r := t.Once("eof-exit:"+string(t.Rev.Era), func() any {
		s, err := t.NewSession()
		if err != nil {
			return eofExit{err: err}
		}
		p, ok := s.Conn.Transport().(exiter)
		if !ok {
			return eofExit{err: fmt.Errorf("the session's transport reports no process exit")}
		}
		s.Close(t.Ctx)
		return eofExit{exit: p.Exit(), label: s.Label}
	}).(eofExit)
	return judgeEOFExit(r, want)
}

// judgeEOFExit is the verdict on one process's end.
func judgeEOFExit(r eofExit, want string) conform.Verdict {
	if r.err != nil {
		return conform.Errorf("could not open a session to stop: %v", r.err)
	}
	switch r.exit.Ending {
	case transport.EndedOnEOF:
		return conform.Pass("%s: the server process exited once its stdin was closed, before SIGTERM (%s)", r.label, r.exit)
	case transport.EndedByItself:
		return conform.Skip(conform.NotExercised, "%s: the process had ended before its stdin was closed (%s)", r.label, r.exit)
	case transport.Running:
		return conform.Errorf("%s: the process was still running after the stop sequence", r.label)
	}
	return conform.Violation(want, fmt.Sprintf("%s: still running when the wait after closing stdin (--kill-grace) ran out: %s", r.label, r.exit))
}
