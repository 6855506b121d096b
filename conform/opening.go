package conform

import (
	"errors"
	"fmt"

	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Opening is what the opening of a revision's main session put on the wire, kept
// whether or not the session opened: the evidence of the opening checks
// (Check.Opening). A rule about the connection itself (an HTTP+SSE stream that starts
// with its endpoint event, an endpoint that takes POST) is broken exactly when the
// session cannot open, so its check judges this record, which a column that failed to
// open still has, instead of a session it lacks.
type Opening struct {
	// Kind is the transport: "stdio", "http" (Streamable HTTP) or "sse" (HTTP+SSE);
	// "" when none was opened (a command that could not be launched).
	Kind string
	// Exchanges are the HTTP exchanges of the opening, in order: over HTTP+SSE the
	// GET of the event stream, then the POSTs of the handshake; over Streamable HTTP
	// the POSTs of initialize (or server/discover) and what followed it. Empty over
	// stdio.
	Exchanges []transport.Exchange
	// SSE is, over HTTP+SSE, what the GET of the event stream showed up to its
	// endpoint event (nil on other transports).
	SSE *transport.SSEOpening
	// Err is why the session did not open (nil when it did).
	Err error
}

// openingOf reads the opening record of a session just opened (or not) by its era's
// driver; err is the driver's error.
func openingOf(s *Session, err error) *Opening {
	o := &Opening{Err: err}
	var oe *transport.OpeningError
	switch {
	case s != nil && s.Conn != nil:
		o.Kind = s.Kind
		tr := s.Conn.Transport()
		if xs, ok := tr.(interface{ Exchanges() []transport.Exchange }); ok {
			o.Exchanges = xs.Exchanges()
		}
		if sse, ok := tr.(*transport.SSE); ok {
			op := sse.Opening()
			o.SSE = &op
		}
	case errors.As(err, &oe):
		// The event stream did not open: DialSSE kept what its GET showed.
		o.Kind = "sse"
		op := oe.Opening
		o.SSE = &op
		if op.Exchange != nil {
			o.Exchanges = []transport.Exchange{*op.Exchange}
		}
	}
	return o
}

// Opening is the record of how the revision's main session opened, for the opening
// checks (Check.Opening) alone: it is there whether or not the session opened.
func (t *T) Opening() Opening {
	if !t.Check.Opening {
		t.misused(fmt.Sprintf("%s reads the opening record (T.Opening) and is not an opening check (Check.Opening)", t.Check.ID))
	}
	if t.col.main == nil || t.col.main.opening == nil {
		return Opening{Err: t.col.err}
	}
	return *t.col.main.opening
}

// openingFailed reports whether, in a run where no column opened, an opening check
// found the reason to be a broken rule of the connection itself (fail or warn): the
// server was reached and judged, so the run goes on, and its other checks are not
// run, each with its column's opening error. Otherwise (nothing answered, or an
// opening that broke no rule the suite judges) the target is unreachable, as before.
func (rs *runState) openingFailed() bool {
	for _, col := range rs.columns {
		for _, c := range rs.checksFor(col.rev) {
			if !c.Opening {
				continue
			}
			if st := rs.judge(col, c).Status; st == reports.Fail || st == reports.Warn {
				return true
			}
		}
	}
	return false
}
