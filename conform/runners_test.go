package conform

import (
	"bytes"
	"runtime"
	"testing"
)

// goroutineID is the running goroutine's number, from its stack's header.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := bytes.Cut(bytes.TrimPrefix(buf, []byte("goroutine ")), []byte(" "))
	return string(id)
}

// The pool runs one check after another on the same goroutine; a check that does
// not return keeps its runner, and the next check gets another; once closed, the
// pool keeps no runner.
func TestRunnerPool(t *testing.T) {
	var p runnerPool
	ran := func(job func()) string {
		id := make(chan string, 1)
		p.run(func() { job(); id <- goroutineID() })
		return <-id
	}
	first := ran(func() {})
	waitIdle(t, &p, 1)
	if second := ran(func() {}); second != first {
		t.Errorf("second check on goroutine %s, want the first's %s", second, first)
	}

	// A check that does not return keeps its runner busy: the next one runs anyway,
	// on another.
	waitIdle(t, &p, 1)
	release, started := make(chan struct{}), make(chan string, 1)
	p.run(func() { started <- goroutineID(); <-release })
	stuck := <-started
	if other := ran(func() {}); other == stuck {
		t.Errorf("a check ran on the runner of one that has not returned (%s)", stuck)
	}

	p.close()
	close(release) // the stuck check returns after the close: its runner ends
	if got := idleRunners(&p); got != 0 {
		t.Errorf("%d idle runners after close, want none", got)
	}
	if id := ran(func() {}); id == "" {
		t.Error("a check after close did not run")
	}
	if got := idleRunners(&p); got != 0 {
		t.Errorf("%d idle runners after a check run past close, want none", got)
	}
}

func idleRunners(p *runnerPool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// waitIdle waits until the pool keeps n idle runners: a runner puts itself back
// after its job, a moment after the job's last statement.
func waitIdle(t *testing.T, p *runnerPool, n int) {
	t.Helper()
	for range 1_000_000 {
		if idleRunners(p) == n {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("%d idle runners, want %d", idleRunners(p), n)
}
