package conform

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// pipeServer is an in-memory server for runner tests: it answers initialize (echoing
// the version), ping and x/echo, and ends the session on x/die, as a server that
// crashes on odd input. A legacy one answers server/discover -32601, as a server
// that knows no 2026-07-28 (discover says how it answers it).
type pipeServer struct {
	dials    atomic.Int32
	discover discoverAnswer
}

// discoverAnswer is how a pipeServer answers server/discover.
type discoverAnswer int

const (
	discoverResult   discoverAnswer = iota // {}, as every other method: a lenient legacy server
	discoverNotFound                       // -32601: a legacy server
	discoverCrash                          // the session ends: a legacy server that dies on it
	discoverModern                         // a DiscoverResult naming 2026-07-28
)

func (p *pipeServer) dial(context.Context) (transport.Transport, error) {
	p.dials.Add(1)
	return &pipeTransport{in: make(chan transport.Frame, 64), done: make(chan struct{}), discover: p.discover}, nil
}

type pipeTransport struct {
	mu       sync.Mutex
	in       chan transport.Frame
	done     chan struct{}
	closed   bool
	discover discoverAnswer
}

func (t *pipeTransport) Send(_ context.Context, msg []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return transport.ErrClosed
	}
	m, err := wire.Decode(msg)
	if err != nil || m.Kind != wire.KindRequest {
		return nil
	}
	var reply string
	switch {
	case m.Method == "server/discover" && t.discover == discoverNotFound:
		t.in <- transport.Frame{Data: []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID.Raw())), Source: "stdout", At: time.Now()}
		return nil
	case m.Method == "server/discover" && t.discover == discoverCrash:
		t.closeLocked()
		return nil
	case m.Method == "server/discover" && t.discover == discoverModern:
		reply = `{"supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"pipe","version":"1"}}`
	case m.Method == "initialize":
		reply = `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"pipe","version":"1"}}`
	case m.Method == "x/die":
		t.closeLocked()
		return nil
	default:
		reply = `{}`
	}
	t.in <- transport.Frame{Data: []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID.Raw(), reply)), Source: "stdout", At: time.Now()}
	return nil
}

func (t *pipeTransport) closeLocked() {
	if !t.closed {
		t.closed = true
		close(t.done)
		close(t.in)
	}
}

func (t *pipeTransport) Inbound() <-chan transport.Frame { return t.in }
func (t *pipeTransport) Done() <-chan struct{}           { return t.done }
func (t *pipeTransport) Kind() string                    { return "stdio" }
func (t *pipeTransport) Close(context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closeLocked()
	return nil
}
func (t *pipeTransport) Err() error {
	select {
	case <-t.done:
		return transport.ErrClosed
	default:
		return nil
	}
}

// call is a check body that makes one request on the main session.
func call(method string) func(t *T) Verdict {
	return func(t *T) Verdict {
		if _, err := t.Session().Call(t.Ctx, method, nil); err != nil {
			return Errorf("%s: %v", method, err)
		}
		return Pass("%s answered", method)
	}
}

// runColumn runs the registered checks of one revision against srv through the
// workers, as a run does, and returns the run, its column and every verdict.
func runColumn(t *testing.T, srv *pipeServer, rev revision.Revision) (*runState, *column, map[string]Verdict) {
	t.Helper()
	cfg := Config{Timeout: time.Second, KillGrace: 10 * time.Millisecond, Revisions: []revision.Revision{rev}}.withDefaults()
	sel, err := newSelection(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rs := newRunState(cfg, dialTarget{dialer: srv.dial}, sel)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	rs.ctx = ctx
	rs.openColumns(ctx)
	t.Cleanup(func() { rs.closeSessions(context.Background()) })
	rs.startWorkers()
	col := rs.columns[0]
	got := map[string]Verdict{}
	for _, c := range rs.checksFor(rev) {
		got[c.ID] = (<-col.futures[c.ID]).v
	}
	return rs, col, got
}

// A run opens one session per revision and nothing ahead of time; checks run in
// phase order on it; a server that dies on an odd-input probe loses only the checks
// left, the transcript-wide ones still judge, and the report says where it was lost.
func TestSessionBudgetAndLoss(t *testing.T) {
	withRegistry(t, func() {
		rev := revision.MustLookup("2025-06-18")
		revs := []revision.Revision{rev}
		var order []string
		var mu sync.Mutex
		record := func(id string, fn func(t *T) Verdict) func(t *T) Verdict {
			return func(t *T) Verdict {
				mu.Lock()
				order = append(order, id)
				mu.Unlock()
				return fn(t)
			}
		}
		reg := func(id string, phase Phase, fn func(t *T) Verdict) {
			var changes ServerState
			if phase == PhaseStateChange {
				changes = StateToolList
			}
			Register(Check{ID: id, Title: id, Row: Row{Level: Must, Revisions: revs, Group: GroupBase, Source: "test"}, Phase: phase, Changes: changes, Run: record(id, fn)})
		}
		// Registered out of run order on purpose.
		reg("ZZ-TRANSCRIPT-01", PhaseTranscript, func(t *T) Verdict { return Pass("%d sessions", len(t.Sessions())) })
		reg("AA-ODD-01", PhaseOddInput, func(t *T) Verdict {
			s, err := t.Scratch()
			if err != nil {
				return Errorf("%v", err)
			}
			_, err = s.Call(t.Ctx, "x/die", nil)
			return Pass("the probe ended with %v", err)
		})
		reg("AB-ODD-02", PhaseOddInput, call("x/echo"))
		reg("AC-STATE-01", PhaseStateChange, call("x/echo"))
		reg("AD-CLEAN-01", PhaseClean, call("x/echo"))

		srv := &pipeServer{}
		rs, _, got := runColumn(t, srv, rev)
		// The transcript check's Run is called once, after the settle, to judge.
		wantOrder := []string{"AD-CLEAN-01", "AC-STATE-01", "AA-ODD-01", "ZZ-TRANSCRIPT-01"}
		if strings.Join(order, " ") != strings.Join(wantOrder, " ") {
			t.Errorf("run order %v, want %v", order, wantOrder)
		}
		if n := srv.dials.Load(); n != 1 {
			t.Errorf("%d sessions opened, want 1", n)
		}
		for id, want := range map[string]reports.Status{"AD-CLEAN-01": reports.Pass, "AC-STATE-01": reports.Pass, "AA-ODD-01": reports.Pass, "AB-ODD-02": reports.Error, "ZZ-TRANSCRIPT-01": reports.Pass} {
			if got[id].Status != want {
				t.Errorf("%s = %s (%s), want %s", id, got[id].Status, got[id].Message, want)
			}
		}
		if !strings.Contains(got["AB-ODD-02"].Message, "ended during AA-ODD-01") {
			t.Errorf("AB-ODD-02 message %q does not say where the session was lost", got["AB-ODD-02"].Message)
		}
		if notes := strings.Join(rs.report.Notes, "\n"); !strings.Contains(notes, "ended during AA-ODD-01") {
			t.Errorf("report notes %q do not say where the session was lost", notes)
		}
	})
}

// On a target of a process per session the spare session is the main session: the
// odd-input checks that use it (Check.Spare) run after the other odd-input checks
// and the transcript checks' probes that need the main session, and a second
// session is opened only when the server ended the first. No check loses its
// session to a server that dies on odd input.
func TestSpareSessionIsTheMainSession(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	revs := []revision.Revision{rev}
	tests := []struct {
		name      string
		dies      bool
		wantDials int32
	}{
		{"a server that survives odd input", false, 1},
		{"a server that dies on odd input", true, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withRegistry(t, func() {
				srv := &pipeServer{}
				var mu sync.Mutex
				var order []string
				mark := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
				row := Row{Level: Must, Revisions: revs, Group: GroupBase, Source: "test"}
				var first, second atomic.Pointer[Session]
				Register(Check{ID: "AA-CLEAN-01", Title: "t", Row: row, Phase: PhaseClean,
					Run: func(t *T) Verdict { mark("clean"); return Pass("clean") }})
				Register(Check{ID: "AB-ODD-01", Title: "t", Row: row, Phase: PhaseOddInput, Spare: true,
					Run: func(t *T) Verdict {
						mark("spare 1")
						s, err := t.SpareSession()
						if err != nil {
							return Errorf("%v", err)
						}
						first.Store(s)
						if tc.dies {
							if _, err := s.Conn.Start(t.Ctx, "x/die", nil); err != nil {
								return Errorf("%v", err)
							}
							<-s.Conn.Done()
						}
						return Pass("spare")
					}})
				Register(Check{ID: "AC-ODD-02", Title: "t", Row: row, Phase: PhaseOddInput, Spare: true,
					Run: func(t *T) Verdict {
						mark("spare 2")
						s, err := t.SpareSession()
						if err != nil {
							return Errorf("%v", err)
						}
						second.Store(s)
						return Pass("spare")
					}})
				Register(Check{ID: "AD-ODD-03", Title: "t", Row: row, Phase: PhaseOddInput,
					Run: func(t *T) Verdict {
						mark("scratch")
						if _, err := t.Scratch(); err != nil {
							return Errorf("%v", err)
						}
						return Pass("scratch")
					}})
				Register(Check{ID: "AE-TR-01", Title: "t", Row: row,
					Probe: func(t *T) { mark("probe") },
					Run:   func(t *T) Verdict { mark("transcript"); return Pass("judged") }})
				if err := RegistryErr(); err != nil {
					t.Fatal(err)
				}
				_, col, got := runColumn(t, srv, rev)
				for id, v := range got {
					if v.Status != reports.Pass {
						t.Errorf("%s = %s (%s), want pass", id, v.Status, v.Message)
					}
				}
				want := []string{"clean", "scratch", "probe", "spare 1", "spare 2", "transcript"}
				if !slices.Equal(order, want) {
					t.Errorf("run order %v, want %v", order, want)
				}
				if n := srv.dials.Load(); n != tc.wantDials {
					t.Errorf("%d sessions opened, want %d", n, tc.wantDials)
				}
				if s := first.Load(); s == nil || s != col.main {
					t.Errorf("the first spare check got session %v, want the main session", s)
				}
				if s := second.Load(); s == nil || (s == col.main) == tc.dies {
					t.Errorf("the second spare check got the main session: %v, want %v", s == col.main, !tc.dies)
				}
				if col.lostAt != "" {
					t.Errorf("the column noted its session lost during %s: the spare checks run after every check that needs it", col.lostAt)
				}
			})
		})
	}
}

// A revision whose era has no session driver is a configuration error, not a crash.
func TestRevisionWithoutDriver(t *testing.T) {
	r := revision.MustLookup("2025-06-18")
	r.Era = "future"
	err := checkDrivers([]revision.Revision{r})
	if _, ok := err.(*ConfigError); !ok || !strings.Contains(err.Error(), "no session driver") {
		t.Fatalf("checkDrivers = %v, want a *ConfigError naming the missing driver", err)
	}
	if err := checkDrivers(revision.All()); err != nil {
		t.Fatalf("checkDrivers(All) = %v", err)
	}
}

// A check whose FreshAhead says it will open a fresh session has it opened once its
// column's main session is open, without asking, and its T.NewSession takes that one
// (no process more); one whose FreshAhead says no, or that has none, opens it when it
// asks. A session opened ahead that its check never takes is closed with the run and
// kept in its column's transcripts.
func TestFreshSessionOpenedAhead(t *testing.T) {
	rev := revision.MustLookup("2025-06-18")
	tests := []struct {
		name      string
		ahead     func(*Session) bool
		asks      bool
		wantAhead bool
	}{
		{"opened ahead and taken", func(*Session) bool { return true }, true, true},
		{"FreshAhead says no", func(*Session) bool { return false }, true, false},
		{"no FreshAhead", nil, true, false},
		{"opened ahead, never taken", func(*Session) bool { return true }, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withRegistry(t, func() {
				srv := &pipeServer{}
				var ahead atomic.Bool
				var fresh atomic.Pointer[Session]
				Register(Check{ID: "AA-FRESH-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
					FreshSessions: 1, FreshAhead: tc.ahead,
					Run: func(t *T) Verdict {
						// Before the check asks for anything: its session is opening.
						t.run.preMu.Lock()
						_, opening := t.run.preOpened[freshKey(t.Rev, t.Check)]
						t.run.preMu.Unlock()
						ahead.Store(opening)
						if !tc.asks {
							return Pass("asked for nothing")
						}
						s, err := t.NewSession()
						if err != nil {
							return Errorf("%v", err)
						}
						fresh.Store(s)
						if _, err := s.Conn.Call(t.Ctx, "ping", nil); err != nil {
							return Errorf("the fresh session does not serve: %v", err)
						}
						return Pass("fresh")
					}})
				if err := RegistryErr(); err != nil {
					t.Fatal(err)
				}
				rs, col, got := runColumn(t, srv, rev)
				if v := got["AA-FRESH-01"]; v.Status != reports.Pass {
					t.Fatalf("AA-FRESH-01 = %s (%s)", v.Status, v.Message)
				}
				if ahead.Load() != tc.wantAhead {
					t.Errorf("opening before the check asked: %v, want %v", ahead.Load(), tc.wantAhead)
				}
				if s := fresh.Load(); tc.asks && (s == nil || s == col.main) {
					t.Errorf("NewSession gave %v, want a session of its own", s)
				}
				rs.closeSessions(context.Background()) // waits for a session still opening
				wantDials := int32(1)
				if tc.asks || tc.wantAhead {
					wantDials = 2
				}
				if n := srv.dials.Load(); n != wantDials {
					t.Errorf("%d sessions opened, want %d", n, wantDials)
				}
				col.mu.Lock()
				n := len(col.sessions)
				col.mu.Unlock()
				if n != int(wantDials) {
					t.Errorf("the column keeps %d sessions for its transcripts, want %d", n, wantDials)
				}
			})
		})
	}
}
