package conform

import (
	"context"
	"fmt"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// Dialer opens a transport for one new session.
type Dialer func(ctx context.Context) (transport.Transport, error)

// dialTarget is a target made of a Dialer (tests script servers with it).
type dialTarget struct{ dialer Dialer }

func (d dialTarget) isolated() bool                                        { return true }
func (d dialTarget) describe() string                                      { return "scripted server" }
func (d dialTarget) start(context.Context) error                           { return nil }
func (d dialTarget) fallback(context.Context, error) bool                  { return false }
func (d dialTarget) close(context.Context)                                 {}
func (d dialTarget) attachments() map[string][]byte                        { return nil }
func (d dialTarget) dial(ctx context.Context) (transport.Transport, error) { return d.dialer(ctx) }

// Lookup returns the registered check with the ID, or nil.
func Lookup(id string) *Check {
	for _, c := range Checks() {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Judge runs one check at one revision against the sessions a Dialer opens, outside
// Ginkgo, and returns its final verdict (with --strict applied when cfg.Strict). It
// exists for table tests of verdict logic with hand-written replies; the revision's
// main session is opened first, exactly as in a run.
func Judge(ctx context.Context, cfg Config, c *Check, rev revision.Revision, dial Dialer) (Verdict, error) {
	if c == nil {
		return Verdict{}, fmt.Errorf("judge: no check")
	}
	vs, err := JudgeAll(ctx, cfg, []*Check{c}, rev, dial)
	if err != nil {
		return Verdict{}, err
	}
	return vs[0], nil
}

// JudgeAll is Judge for several checks that share one run: one main session, in run
// order (phase, then registry), so that tests can see what checks share (a memoized
// call, a barrier). The verdicts are in the order of checks.
func JudgeAll(ctx context.Context, cfg Config, checks []*Check, rev revision.Revision, dial Dialer) ([]Verdict, error) {
	only := map[*Check]bool{}
	for _, c := range checks {
		if c == nil {
			return nil, fmt.Errorf("judge: no check")
		}
		only[c] = true
	}
	cfg.Revisions = []revision.Revision{rev}
	cfg = cfg.withDefaults()
	if err := checkDrivers(cfg.Revisions); err != nil {
		return nil, err
	}
	sel, err := newSelection(cfg)
	if err != nil {
		return nil, err
	}
	rs := newRunState(cfg, dialTarget{dialer: dial}, sel)
	defer rs.runners.close()
	rs.restrict(only)
	rs.ctx = ctx
	rs.openColumns(ctx)
	defer rs.closeSessions(context.WithoutCancel(ctx))
	col := rs.columns[0]
	order := rs.checksFor(rev)
	got := map[*Check]Verdict{}
	run := rs.runOrder(order)
	for i, c := range run {
		col.setAhead(run[i+1:])
		got[c] = rs.judgeInOrder(col, c, order).final(cfg.Strict)
	}
	out := make([]Verdict, len(checks))
	for i, c := range checks {
		v, ok := got[c]
		if !ok {
			return nil, fmt.Errorf("judge: %s does not apply to %s or is not selected", c.ID, rev.Name)
		}
		out[i] = v
	}
	return out, nil
}
