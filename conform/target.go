package conform

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// target is the server under test: it opens one transport per session and owns
// whatever process it launched.
type target interface {
	describe() string
	// start prepares the target (launches a server that serves a URL); dial opens a
	// transport for one new session.
	start(ctx context.Context) error
	dial(ctx context.Context) (transport.Transport, error)
	// fallback is asked when initialize over Streamable HTTP got an HTTP status error.
	// It returns true when the target switched to another transport (HTTP+SSE) and the
	// session should be retried.
	fallback(ctx context.Context, err error) bool
	close(ctx context.Context)
	attachments() map[string][]byte
	// isolated reports whether every session gets a server of its own (stdio: a
	// process per session). Only then may revisions run concurrently: on a shared
	// server one revision's state change (a list change is global: the fixture contract, refserver/doc.go)
	// would show in another's listings.
	isolated() bool
}

// stdioTarget launches the command once per session.
type stdioTarget struct {
	cfg   transport.ProcessConfig
	label string
	mu    sync.Mutex
	procs []*transport.Stdio
}

func (t *stdioTarget) describe() string            { return t.label }
func (t *stdioTarget) isolated() bool              { return true }
func (t *stdioTarget) start(context.Context) error { return nil }
func (t *stdioTarget) fallback(context.Context, error) bool {
	return false
}

func (t *stdioTarget) dial(ctx context.Context) (transport.Transport, error) {
	p, err := transport.StartStdio(ctx, t.cfg)
	if err != nil {
		return nil, fmt.Errorf("launch %s: %w", t.label, err)
	}
	t.mu.Lock()
	t.procs = append(t.procs, p)
	t.mu.Unlock()
	return p, nil
}

func (t *stdioTarget) close(ctx context.Context) {
	t.mu.Lock()
	procs := append([]*transport.Stdio(nil), t.procs...)
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); _ = p.Close(ctx) }()
	}
	wg.Wait()
}

func (t *stdioTarget) attachments() map[string][]byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string][]byte{}
	for i, p := range t.procs {
		var b strings.Builder
		fmt.Fprintf(&b, "# process %d: %s (pid %d, %s)\n", i+1, t.label, p.Pid(), orRunning(p.ExitState()))
		if n := p.StderrDropped(); n > 0 {
			fmt.Fprintf(&b, "# %d further bytes of stderr were dropped\n", n)
		}
		b.Write(p.Stderr())
		out[fmt.Sprintf("stderr/process-%02d.log", i+1)] = []byte(b.String())
	}
	return out
}

func orRunning(s string) string {
	if s == "" {
		return "running"
	}
	return s
}

// httpTarget dials a URL: Streamable HTTP, or HTTP+SSE when asked for or detected.
type httpTarget struct {
	cfg  transport.HTTPConfig
	mu   sync.Mutex
	mode string // "auto", "http" or "sse"
	note string // what detection decided
}

func (t *httpTarget) describe() string            { return t.cfg.URL }
func (t *httpTarget) isolated() bool              { return false }
func (t *httpTarget) start(context.Context) error { return nil }
func (t *httpTarget) close(context.Context)       {}

func (t *httpTarget) detectionNote() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.note
}
func (t *httpTarget) attachments() map[string][]byte {
	return nil
}

func (t *httpTarget) dial(ctx context.Context) (transport.Transport, error) {
	t.mu.Lock()
	mode := t.mode
	t.mu.Unlock()
	if mode == "sse" {
		tr, err := transport.DialSSE(ctx, t.cfg)
		if err != nil {
			return nil, fmt.Errorf("HTTP+SSE %s: %w", t.cfg.URL, err)
		}
		return tr, nil
	}
	tr, err := transport.DialStreamableHTTP(ctx, t.cfg)
	if err != nil {
		return nil, fmt.Errorf("streamable HTTP %s: %w", t.cfg.URL, err)
	}
	return tr, nil
}

// fallback is transport detection (basic/transports.mdx, Backwards Compatibility):
// initialize over Streamable HTTP answered with 400, 404 or 405 → GET the URL and
// look for an HTTP+SSE endpoint event.
func (t *httpTarget) fallback(ctx context.Context, err error) bool {
	var se *transport.HTTPStatusError
	if !errors.As(err, &se) || (se.Status != http.StatusBadRequest && se.Status != http.StatusNotFound && se.Status != http.StatusMethodNotAllowed) {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mode == "sse" {
		return true // another session already switched
	}
	if t.mode != "auto" {
		return false
	}
	probe, perr := transport.DialSSE(ctx, t.cfg)
	if perr != nil {
		return false
	}
	_ = probe.Close(ctx)
	t.mode = "sse"
	t.note = fmt.Sprintf("Streamable HTTP initialize got HTTP %d; the URL serves the 2024-11-05 HTTP+SSE transport, which was used instead", se.Status)
	return true
}

// launchTarget launches a command that serves HTTP, then dials its URL.
type launchTarget struct {
	httpTarget
	proc  transport.ProcessConfig
	label string
	p     *transport.Process
}

func (t *launchTarget) describe() string { return t.label + " @ " + t.cfg.URL }

func (t *launchTarget) start(ctx context.Context) error {
	// An HTTP server has no reason to exit when its stdin closes: SIGTERM it at once
	// instead of waiting --kill-grace for that first.
	t.proc.TermFirst = true
	p, err := transport.Launch(ctx, t.proc)
	if err != nil {
		return fmt.Errorf("launch %s: %w", t.label, err)
	}
	t.p = p
	if err := transport.WaitForURL(ctx, t.cfg.URL, p); err != nil {
		return fmt.Errorf("%s: %w", t.label, err)
	}
	return nil
}

func (t *launchTarget) close(ctx context.Context) {
	if t.p != nil {
		_ = t.p.Stop(ctx)
	}
}

func (t *launchTarget) attachments() map[string][]byte {
	if t.p == nil {
		return nil
	}
	head := fmt.Sprintf("# %s (pid %d, %s)\n", t.label, t.p.Pid(), orRunning(t.p.ExitState()))
	return map[string][]byte{"stderr/server.log": append([]byte(head), t.p.Output()...)}
}
