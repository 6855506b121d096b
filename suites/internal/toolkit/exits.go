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

// eofExit is the outcome of the stop probe: how a freshly opened server process
// ended once the suite closed its stdin.
type eofExit struct {
	exit  transport.ExitInfo
	label string
	err   error
}

// EOFExitFreshSessions is what a check that calls JudgeEOFExit declares as
// FreshSessions: the one clean process it stops (once per era and run).
const EOFExitFreshSessions = 1

// JudgeEOFExit judges whether a stdio server exits once its stdin is closed
// (LIFE-SHUTDOWN-STDIO-01, STDIO-EOF-EXIT-01). It opens one session of its own per
// era and run (T.Once: the way a process answers the end of its input does not
// depend on the revision it was asked for) and closes it at once, which is the
// shutdown the lifecycle pages describe: stdin closed, a wait of --kill-grace, then
// SIGTERM, then SIGKILL; the transport records the step the process exited at.
//
// Why not judge the sessions the run stops anyway (the spare session, the version
// probe's): those take odd input, and a server that ends itself over it (the Go SDK
// does, a moment after the probe) races the close, so whether any of them proves
// anything changed from run to run; the version probe's session belongs to whichever
// revision claims it first. A clean session stopped on purpose gives one verdict.
// Its checks are of the stdio transport (Check.Transports): the runner calls them
// over stdio only.
func JudgeEOFExit(t *conform.T, want string) conform.Verdict {
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
