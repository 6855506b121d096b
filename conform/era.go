package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// eraDriver opens sessions in one era's style and owns every decision of the run
// that differs by era, so that adding an era means adding a driver, not branches in
// the scheduler: how a session opens, what a failure to open means (era detection),
// whether a column proves the server was reached, how the columns of a run are
// reconciled once all have opened, and where a session's serverInfo is. Every
// revision names its era, and a revision whose era has no driver is a configuration
// error at start-up (checkDrivers), never a crash.
//
// The session budget is the runner's, not the driver's: the runner asks a driver for
// one session per selected revision (the main session, shared by every check of the
// revision in phase order), plus one per negotiation probe a check declares
// (Check.PreOpen), plus what a check asks for with T.NewSession (Check.FreshSessions;
// `mcp-conform --list -v` shows every check that declares it). On stdio each open is a process, so a driver must dial the
// target exactly once per open and never on its own.
//
// The legacy driver (2024-11-05 … 2025-11-25, session.go) dials, sends initialize,
// then notifications/initialized, and opens the optional GET stream over HTTP.
//
// The modern driver (2026-07-28, modern.go) dials once (on stdio, the one process of
// the column; over HTTP, a transport without session state), asks server/discover
// (the era probe), and returns a Session whose Negotiated is what server/discover
// said, whose InitResult holds the DiscoverResult (so Capabilities read the same for
// checks of both eras), and whose Conn stamps every request with the per-request
// _meta (and, over HTTP, the standard request headers). Settle works for both: its
// barrier request is the Conn's (ping, or server/discover).
type eraDriver interface {
	open(ctx context.Context, tgt target, requested string, rev revision.Revision, opts sessionOptions) (*Session, error)
	// notThisEra reports whether a failure to open says the server does not speak
	// this era at all: the column is revision-unsupported, never a failure.
	notThisEra(err error) bool
	// reached reports whether a column that opened (or failed to) proves the server
	// answered: a run in which no column did is unreachable (exit 4).
	reached(col *column) bool
	// reconcile adjusts the run's columns once every column has opened.
	reconcile(cols []*column)
	// serverInfo is the session's Implementation object (nil when none came).
	serverInfo(s *Session) json.RawMessage
}

var drivers = map[revision.Era]eraDriver{
	revision.Legacy: legacyDriver{},
	revision.Modern: modernDriver{},
}

// driverOf is the driver of a revision's era (present: Run and Judge refuse a
// revision without one).
func driverOf(rev revision.Revision) eraDriver { return drivers[rev.Era] }

// A legacy server's failure to open is its own: refused or broken.
func (legacyDriver) notThisEra(error) bool { return false }

func (legacyDriver) reached(col *column) bool { return col.main != nil && col.state != colBroken }

// Legacy columns are settled by their own initialize.
func (legacyDriver) reconcile([]*column) {}

func (legacyDriver) serverInfo(s *Session) json.RawMessage { return s.InitResult["serverInfo"] }

// Era detection: a server that does not answer server/discover the modern way is a
// legacy server (2026-07-28 basic/versioning.mdx).
func (modernDriver) notThisEra(err error) bool { return isNotModern(err) }

// Era detection reads a modern column's silence as "a legacy server"; that proves
// nothing when no legacy column was answered either.
func (modernDriver) reached(col *column) bool {
	return col.main != nil && col.state != colBroken && col.main.Init != nil
}

// reconcile applies the other half of era detection: once server/discover proved the
// server modern and no legacy column got an InitializeResult, a legacy column whose
// initialize failed (refused, or any answer but a failure to connect) is
// revision-unsupported — a modern-only server owes initialize no result (2026-07-28
// basic/versioning.mdx), only, SHOULD, an error naming its versions
// (MOD-LEGACY-INIT-01 judges that).
func (modernDriver) reconcile(cols []*column) {
	modern, legacy := false, false
	for _, col := range cols {
		switch {
		case col.rev.Era == revision.Modern && col.state == colOpen:
			modern = true
		case col.rev.Era == revision.Legacy && col.main != nil && col.main.Negotiated != "":
			// initialize answered (with this version or another): the server
			// speaks the legacy era, and a refused column is its own failure.
			legacy = true
		}
	}
	if !modern || legacy {
		return
	}
	for _, col := range cols {
		if col.rev.Era != revision.Legacy || (col.state != colRefused && col.state != colBroken) {
			continue
		}
		var ie *initError
		if !errors.As(col.err, &ie) || ie.stage == "connect" {
			continue
		}
		col.state = colUnsupported
		col.why = fmt.Sprintf("the server answered server/discover as a 2026-07-28 server, and initialize for %s failed: %v", col.rev.Name, col.err)
	}
}

// In 2026-07-28 the serverInfo is the DiscoverResult's
// _meta["io.modelcontextprotocol/serverInfo"].
func (modernDriver) serverInfo(s *Session) json.RawMessage {
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(s.InitResult["_meta"], &meta)
	return meta[MetaServerInfo]
}
