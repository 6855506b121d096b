package conform

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/reports"
)

// An opening check judges the record of how the column's session opened, in a
// column that opened or not; every other check of a column that failed to open is
// not run. A run in which no column opened goes on only when an opening check found
// a broken rule (exit 1); otherwise the target is unreachable, as before (exit 4).
func TestOpeningChecks(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	noEndpoint := &transport.OpeningError{Opening: transport.SSEOpening{
		URL:      "http://127.0.0.1:1/sse",
		Exchange: &transport.Exchange{Method: "GET", Status: 200, ContentType: "text/event-stream"},
		First:    &transport.Event{Type: "message", Data: "{}"},
		Problem:  fmt.Errorf("first event has type %q: %w", "message", transport.ErrNoEndpointEvent),
	}}
	failing := func(err error) Dialer {
		return func(context.Context) (transport.Transport, error) { return nil, err }
	}
	tests := []struct {
		name    string
		dial    Dialer
		opening reports.Status
		says    string
		other   reports.Status
		goesOn  bool // openingFailed: the run is not unreachable
	}{
		{"opened", (&pipeServer{}).dial, reports.Pass, "opened over ", reports.Pass, false},
		{"no endpoint event", failing(noEndpoint), reports.Fail, `first event has type "message"`, reports.Error, true},
		{"nothing answered", failing(errors.New("connection refused")), reports.Error, "no transport", reports.Error, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withRegistry(t, func() {
				opening := Register(Check{ID: "ZZ-OPENING-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
					Phase: PhaseClean, Opening: true, Run: func(t *T) Verdict {
						o := t.Opening()
						switch {
						case o.Kind == "":
							return Errorf("not verified: no transport: %v", o.Err)
						case o.SSE != nil && o.SSE.Problem != nil:
							return Violation("an endpoint event first", o.SSE.Problem.Error())
						}
						return Pass("opened over %s", o.Kind)
					}})
				other := Register(Check{ID: "AA-CLEAN-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
					Phase: PhaseClean, Run: func(t *T) Verdict {
						if _, err := t.Session().Call(t.Ctx, "x/echo", nil); err != nil {
							return Errorf("%v", err)
						}
						return Pass("")
					}})
				if err := RegistryErr(); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cfg := Config{Timeout: time.Second, KillGrace: 10 * time.Millisecond}
				vs, err := JudgeAll(ctx, cfg, []*Check{opening, other}, rev, tc.dial)
				if err != nil {
					t.Fatal(err)
				}
				if vs[0].Status != tc.opening || !strings.Contains(vs[0].Message, tc.says) {
					t.Errorf("opening check = %s (%s), want %s mentioning %q", vs[0].Status, vs[0].Message, tc.opening, tc.says)
				}
				if vs[1].Status != tc.other {
					t.Errorf("other check = %s (%s), want %s", vs[1].Status, vs[1].Message, tc.other)
				}

				cfg.Revisions = []revision.Revision{rev}
				cfg = cfg.withDefaults()
				sel, err := newSelection(cfg)
				if err != nil {
					t.Fatal(err)
				}
				rs := newRunState(cfg, dialTarget{dialer: tc.dial}, sel)
				rs.ctx = ctx
				rs.openColumns(ctx)
				defer rs.closeSessions(context.Background())
				if tc.opening != reports.Pass && !rs.allBroken() {
					t.Fatal("the column opened")
				}
				if got := rs.openingFailed(); got != tc.goesOn {
					t.Errorf("openingFailed = %v, want %v", got, tc.goesOn)
				}
			})
		})
	}
}

// Only an opening check reads the opening record, and an opening check declares
// PhaseClean and no session of its own.
func TestOpeningGuards(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	withRegistry(t, func() {
		c := Register(Check{ID: "ZZ-READS-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
			Phase: PhaseClean, Run: func(t *T) Verdict { return Pass("%s", t.Opening().Kind) }})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		v, err := Judge(ctx, Config{Timeout: time.Second, KillGrace: 10 * time.Millisecond}, c, rev, (&pipeServer{}).dial)
		if err != nil {
			t.Fatal(err)
		}
		if v.Status != reports.Error || !strings.Contains(v.Message, "is not an opening check") {
			t.Errorf("%s (%s), want an error naming the misuse", v.Status, v.Message)
		}
		Register(Check{ID: "ZZ-OPENING-02", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
			Phase: PhaseOddInput, Opening: true, Run: func(*T) Verdict { return Pass("") }})
		if err := RegistryErr(); err == nil || !strings.Contains(err.Error(), "an opening check judges only the opening record") {
			t.Errorf("registry error %v, want the opening check's phase refused", err)
		}
	})
}
