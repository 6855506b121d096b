package conform

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/reports"
)

// stopSignal carries the verdict of a check that ended itself (T.Stop) up to the
// runner, through whatever helpers it was in.
type stopSignal struct{ v Verdict }

// Stop ends the check with verdict v, from the check or from any helper it calls on
// the check's own goroutine, as testing.T.FailNow ends a test: a helper that finds
// the check cannot go on says so in one call, and no verdict is threaded back.
func (t *T) Stop(v Verdict) {
	panic(stopSignal{v})
}

// SkipNow ends the check with a skip for reason.
func (t *T) SkipNow(reason reports.SkipReason, format string, args ...any) {
	t.Stop(Skip(reason, format, args...))
}

// ErrorNow ends the check with an error verdict: it could not judge.
func (t *T) ErrorNow(format string, args ...any) {
	t.Stop(Errorf(format, args...))
}

// call runs fn, a check's Run, and returns its verdict or the one it stopped with.
func (t *T) call(fn func(*T) Verdict) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(stopSignal)
			if !ok {
				panic(r)
			}
			v = s.v
		}
	}()
	return fn(t)
}

// TransportOf returns the revision's main session and its transport as X (for
// example *transport.SSE, or transport.HTTPSession for every HTTP transport): the
// typed accessor of a check whose rule is about that transport (Check.Transports;
// the runner does not call a check on another). A session without one ends the
// check with an error verdict.
func TransportOf[X any](t *T) (*Session, X) {
	var zero X
	s := t.Session()
	if s == nil || s.Conn == nil {
		t.ErrorNow("not verified: the revision has no session: %v", t.ColumnErr())
	}
	x, ok := s.Conn.Transport().(X)
	if !ok {
		t.ErrorNow("harness: %s runs over %s, whose transport is not the %T the check asks for (Check.Transports)", t.Check.ID, s.Kind, zero)
	}
	return s, x
}

// transportSkip is the verdict of a check whose rule is about another transport
// than the column's, or gives way to another rule in the column's revision over
// its transport (Check.NotOn), or nil.
func transportSkip(c *Check, rev, kind string) *Verdict {
	if kind == "" {
		return nil
	}
	if !c.AppliesOn(kind) {
		v := Skip(reports.NotApplicable, "%s", fmt.Sprintf("a rule of the %s transport; the session runs over %s", transportNames(c.Transports), kind))
		return &v
	}
	for _, n := range c.NotOn {
		if n.Revision == rev && n.Transport == kind {
			v := Skip(reports.NotApplicable, "%s", fmt.Sprintf("not a rule of %s over %s: %s", rev, transportNames([]string{kind}), n.Why))
			return &v
		}
	}
	return nil
}

func transportNames(kinds []string) string {
	names := map[string]string{"stdio": "stdio", "http": "Streamable HTTP", "sse": "HTTP+SSE"}
	out := ""
	for i, k := range kinds {
		if i > 0 {
			out += " or "
		}
		out += names[k]
	}
	return out
}
