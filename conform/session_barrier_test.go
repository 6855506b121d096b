package conform

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
)

// pingTransport is an in-memory server end that answers every ping and counts them.
type pingTransport struct {
	in    chan transport.Frame
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	pings int
}

func (p *pingTransport) Send(_ context.Context, msg []byte) error {
	m, err := wire.Decode(msg)
	if err != nil || m.Kind != wire.KindRequest || m.Method != "ping" {
		return nil
	}
	p.mu.Lock()
	p.pings++
	p.mu.Unlock()
	p.in <- transport.Frame{Data: []byte(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":{}}`), Source: "stdout", At: time.Now()}
	return nil
}

func (p *pingTransport) answered() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pings
}

func (p *pingTransport) Inbound() <-chan transport.Frame { return p.in }
func (p *pingTransport) Done() <-chan struct{}           { return p.done }
func (p *pingTransport) Err() error                      { return nil }
func (p *pingTransport) Kind() string                    { return "stdio" }
func (p *pingTransport) Close(context.Context) error {
	p.once.Do(func() { close(p.done); close(p.in) })
	return nil
}

// TestBarrierAfterFlushIsNotSentAgain: the ping a Conn.Flush leaves standing is the
// session's barrier too (wire.Conn.Standing), so a Barrier right after it sends no
// second ping; once anything is sent, the next Barrier sends one.
func TestBarrierAfterFlushIsNotSentAgain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := &pingTransport{in: make(chan transport.Frame, 8), done: make(chan struct{})}
	s := &Session{Conn: wire.NewConn(tr, wire.Options{RequestTimeout: 5 * time.Second})}
	defer s.Close(ctx)
	steps := []struct {
		name string
		do   func() error
		want int // pings the server has answered after the step
	}{
		{"Flush sends its ping", func() error { return s.Conn.Flush(ctx, nil) }, 1},
		{"a Barrier right after it sends none", func() error { return s.Barrier(ctx) }, 1},
		{"a notification ends the standing", func() error { return s.Conn.Notify(ctx, "notifications/x_probe", nil) }, 1},
		{"so the next Barrier sends one", func() error { return s.Barrier(ctx) }, 2},
		{"and the one after it none", func() error { return s.Barrier(ctx) }, 2},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := tr.answered(); got != st.want {
			t.Fatalf("%s: the server answered %d pings, want %d", st.name, got, st.want)
		}
	}
}

// postPingTransport is pingTransport as Streamable HTTP: each ping's reply is its
// POST's answer, counted as delivered before Send returns, and no POST stream is
// left open.
type postPingTransport struct {
	pingTransport
	delivered atomic.Uint64
}

func (p *postPingTransport) Send(ctx context.Context, msg []byte) error {
	before := p.answered()
	err := p.pingTransport.Send(ctx, msg)
	if p.answered() > before {
		p.delivered.Add(1)
	}
	return err
}

func (p *postPingTransport) Delivered() uint64                       { return p.delivered.Load() }
func (p *postPingTransport) OpenPostStreams() (int, <-chan struct{}) { return 0, nil }
func (p *postPingTransport) Kind() string                            { return "http" }

// TestProveSilenceOwesNoGraceWhereAnswersEnded: a silence probe left unanswered on
// an ordered channel owes the next stray probe on its session a grace (the reply may
// trail the barrier's); on Streamable HTTP, where every POST's answer has ended, it
// owes none, and the next probe may start its window at once.
func TestProveSilenceOwesNoGraceWhereAnswersEnded(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tr        transport.Transport
		wantGrace bool
	}{
		{"stdio", &pingTransport{in: make(chan transport.Frame, 8), done: make(chan struct{})}, true},
		{"Streamable HTTP", &postPingTransport{pingTransport: pingTransport{in: make(chan transport.Frame, 8), done: make(chan struct{})}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s := &Session{Conn: wire.NewConn(tc.tr, wire.Options{RequestTimeout: 5 * time.Second})}
			defer s.Close(ctx)
			ct := &T{Ctx: ctx, Check: &Check{ID: "X-SILENCE-01", SilenceProbe: true}}
			if err := s.Conn.SendRaw(ctx, []byte(`[{"jsonrpc":"2.0","id":"b-1","method":"ping"}]`)); err != nil {
				t.Fatal(err)
			}
			if err := ct.ProveSilence(s, func() bool { return false }); err != nil {
				t.Fatalf("ProveSilence: %v", err)
			}
			s.barrierMu.Lock()
			owed := !s.strayProven.IsZero() && s.strayGrace >= wire.BarrierGrace
			s.barrierMu.Unlock()
			if owed != tc.wantGrace {
				t.Errorf("a grace owed to the next stray probe: %v, want %v", owed, tc.wantGrace)
			}
		})
	}
}

// drainTransport is pingTransport with a Streamable HTTP settle (Drain) that ends
// only when release is closed: a server whose GET stream outlives its DELETE.
type drainTransport struct {
	pingTransport
	release chan struct{}
	drained chan struct{}
	drains  atomic.Int32 // how many times Drain was called
}

func (d *drainTransport) Drain(ctx context.Context) bool {
	if d.drains.Add(1) > 1 {
		return true // a second settle: the first one closed drained
	}
	select {
	case <-d.release:
	case <-ctx.Done():
	}
	close(d.drained)
	return true
}

// TestCleanupSettlesHTTPSessionsInTheBackground: a check's own HTTP sessions settle
// after the check has returned, while the column goes on, and whoever reads their
// traffic whole waits for that settle: the check's evidence (awaitDrained) and the
// column's settle (column.awaitDrains).
func TestCleanupSettlesHTTPSessionsInTheBackground(t *testing.T) {
	tr := &drainTransport{
		pingTransport: pingTransport{in: make(chan transport.Frame, 8), done: make(chan struct{})},
		release:       make(chan struct{}),
		drained:       make(chan struct{}),
	}
	s := &Session{Label: "fresh", Conn: wire.NewConn(tr, wire.Options{RequestTimeout: 5 * time.Second})}
	col := &column{}
	ct := &T{Ctx: context.Background(), Check: &Check{ID: "X-FRESH-01"}, run: &runState{cfg: Config{KillGrace: 10 * time.Second}}, col: col, opened: []*Session{s}}

	returned := make(chan struct{})
	go func() { ct.cleanup(); close(returned) }()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("cleanup waited for the session's settle (its Drain had not ended after 10 s)")
	}
	awaited, settled := make(chan struct{}), make(chan struct{})
	go func() { ct.awaitDrained(); close(awaited) }()
	go func() { col.awaitDrains(); close(settled) }()
	close(tr.release)
	<-awaited
	<-settled
	select {
	case <-tr.drained:
	default:
		t.Fatal("awaitDrained and the column's drains returned before the session's Drain ended")
	}
	if s.Conn.Err() == nil {
		t.Error("the session was not closed after its settle")
	}
}

// lateDrainTransport is drainTransport whose settle, once released, brings in one
// last message before it ends: what a GET stream carries after the session's DELETE.
type lateDrainTransport struct{ drainTransport }

func (d *lateDrainTransport) Drain(ctx context.Context) bool {
	select {
	case <-d.release:
		d.in <- transport.Frame{Data: []byte(`{"jsonrpc":"2.0","method":"notifications/x_late"}`), Source: "get", At: time.Now()}
	case <-ctx.Done():
	}
	close(d.drained)
	return true
}

// A check that does not pass with a session of its own still settling has its
// verdict at once, so the column goes on, and its evidence once the session has
// settled, holding what came on it meanwhile.
func TestEvidenceWaitsForTheChecksOwnSessions(t *testing.T) {
	tr := &lateDrainTransport{drainTransport{
		pingTransport: pingTransport{in: make(chan transport.Frame, 8), done: make(chan struct{})},
		release:       make(chan struct{}),
		drained:       make(chan struct{}),
	}}
	s := &Session{Label: "fresh", Conn: wire.NewConn(tr, wire.Options{RequestTimeout: 5 * time.Second})}
	col := &column{}
	rs := &runState{cfg: Config{Timeout: 5 * time.Second, KillGrace: 10 * time.Second}, ctx: context.Background(), columns: []*column{col}}
	check := &Check{ID: "X-FRESH-01"}
	run := func(t *T) Verdict {
		col.mu.Lock()
		col.sessions = append(col.sessions, s)
		col.mu.Unlock()
		_, _ = t.keep(s, nil, "2025-11-25")
		if _, err := s.Conn.Call(t.Ctx, "ping", nil); err != nil {
			return Errorf("ping: %v", err)
		}
		return Errorf("the check's finding")
	}
	judged := make(chan Verdict, 1)
	go func() { judged <- rs.invoke(col, check, run) }()
	var v Verdict
	select {
	case v = <-judged:
	case <-time.After(10 * time.Second):
		t.Fatal("invoke waited for the session's settle (its Drain had not ended after 10 s)")
	}
	got := make(chan *reports.Exchange, 1)
	go func() { got <- v.Exchange() }()
	close(tr.release)
	ex := <-got
	var late, ping bool
	for _, es := range ex.Sessions {
		for _, m := range es.Messages {
			late = late || strings.Contains(string(m.Message), "notifications/x_late")
			ping = ping || strings.Contains(string(m.Message), `"ping"`)
		}
	}
	if !ping || !late {
		t.Errorf("the evidence holds the check's ping: %v, and what came on its session while it settled: %v; want both (%+v)", ping, late, ex)
	}
}

// The column's settle waits for a check's session still settling, while it settles
// its other sessions, and does not settle that one a second time (which would cut
// its streams short).
func TestColumnSettleWaitsForChecksSessions(t *testing.T) {
	tr := &drainTransport{
		pingTransport: pingTransport{in: make(chan transport.Frame, 8), done: make(chan struct{})},
		release:       make(chan struct{}),
		drained:       make(chan struct{}),
	}
	other := &drainTransport{
		pingTransport: pingTransport{in: make(chan transport.Frame, 8), done: make(chan struct{})},
		release:       make(chan struct{}),
		drained:       make(chan struct{}),
	}
	close(other.release)
	s := &Session{Label: "fresh", Conn: wire.NewConn(tr, wire.Options{RequestTimeout: 5 * time.Second})}
	o := &Session{Label: "other", Conn: wire.NewConn(other, wire.Options{RequestTimeout: 5 * time.Second})}
	col := &column{sessions: []*Session{o, s}}
	rs := &runState{cfg: Config{Timeout: 5 * time.Second, KillGrace: 10 * time.Second}, ctx: context.Background(), columns: []*column{col}}
	ct := &T{Ctx: context.Background(), Check: &Check{ID: "X-FRESH-01"}, run: rs, col: col, opened: []*Session{s}}
	ct.cleanup()

	settled := make(chan struct{})
	go func() { rs.settleSessions(col); close(settled) }()
	select {
	case <-other.drained:
	case <-time.After(10 * time.Second):
		t.Fatal("the column's other session was not settled while the check's own was still settling")
	}
	select {
	case <-settled:
		t.Fatal("the column's settle ended before the check's own session had settled")
	default:
	}
	close(tr.release)
	<-settled
	if n := tr.drains.Load(); n != 1 {
		t.Errorf("the check's session was settled %d times, want once", n)
	}
}
