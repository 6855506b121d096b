package conform

import "sync"

// runnerPool runs checks on goroutines it keeps between checks. A check's
// goroutine grows its stack (the HTTP client's calls run deep), and one started
// afresh for every check grew it again each time: stack copying was 8 % of the CPU
// of a one-revision run over HTTP. A runner whose check outlives its bound stays
// busy with it; the next check takes an idle runner or a new one. close ends the
// idle runners, and each busy one once its check returns.
type runnerPool struct {
	mu     sync.Mutex
	idle   []chan func()
	closed bool
}

// maxIdleRunners bounds the runners kept: the columns' workers and the probes
// between them.
const maxIdleRunners = 16

// run runs job on an idle runner, or on a new one.
func (p *runnerPool) run(job func()) {
	p.mu.Lock()
	var r chan func()
	if n := len(p.idle); n > 0 && !p.closed {
		r, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.mu.Unlock()
	if r == nil {
		r = make(chan func(), 1)
		go p.serve(r)
	}
	r <- job
}

// serve runs the jobs a runner is given until the pool no longer keeps it.
func (p *runnerPool) serve(r chan func()) {
	for job := range r {
		job()
		if !p.keep(r) {
			return
		}
	}
}

// keep puts a runner back among the idle ones; false when the pool is closed or
// full, and the runner ends.
func (p *runnerPool) keep(r chan func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.idle) >= maxIdleRunners {
		return false
	}
	p.idle = append(p.idle, r)
	return true
}

// close ends the idle runners; a busy one ends when its check returns.
func (p *runnerPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, r := range p.idle {
		close(r)
	}
	p.idle = nil
}
