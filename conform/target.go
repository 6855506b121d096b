package conform

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

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
		if how := p.ExitState(); how != "" {
			return fmt.Errorf("the launched command %q exited (%s) before anything accepted connections at %s%s",
				t.label, how, redacted(t.cfg.URL), lastOutput(p.Output()))
		}
		return fmt.Errorf("%s: %w", t.label, err)
	}
	// What accepted the connection was not the launched command when that has
	// exited already: another process serves the port.
	select {
	case <-p.Done():
		return fmt.Errorf("the launched command %q exited (%s), yet something accepts connections at %s: another process serves that port%s",
			t.label, p.ExitState(), redacted(t.cfg.URL), lastOutput(p.Output()))
	default:
	}
	return nil
}

// died says how the launched command ended when it ended by itself, before the run
// stopped it ("exit status 1", "killed by SIGKILL"); "" while it runs, when it never
// started, or when the run's own stop sequence ended it.
func (t *launchTarget) died() string {
	if t.p == nil {
		return ""
	}
	if e := t.p.Exit(); e.Ending == transport.EndedByItself {
		return e.String()
	}
	return ""
}

// busyProbeTimeout bounds the connect that looks for a server already on --url's port
// (on loopback a refusal is immediate; only a wedged listener takes that long).
const busyProbeTimeout = time.Second

// refuseBusyURL fails with a configuration error when something already accepts TCP
// connections at --url's host and port before the command is launched: the run would
// test that process, and a launched command that failed (the port is taken) would go
// unnoticed. Only a host on this machine's loopback (or the unspecified address,
// which reaches it) is probed: a launched server serves this machine.
func (t *launchTarget) refuseBusyURL(ctx context.Context) error {
	addrs := loopbackAddrs(t.cfg.URL)
	if len(addrs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, busyProbeTimeout)
	defer cancel()
	for _, addr := range addrs {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			continue // refused (free), or no answer within the bound: nothing proven
		}
		_ = c.Close()
		_, port, _ := net.SplitHostPort(addr)
		return configErr("--url %s: another process already listens on port %s (%s) before %q was launched; "+
			"the run would test that process, not the launched one. Stop it, or have the launched server and --url use a free port",
			redacted(t.cfg.URL), port, addr, t.label)
	}
	return nil
}

// loopbackAddrs returns the host:port addresses to probe for rawURL when its host is
// loopback ("localhost" is tried over IPv4 and IPv6), or nil for any other host.
func loopbackAddrs(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	host := strings.ToLower(u.Hostname())
	switch ip := net.ParseIP(host); {
	case port == "":
		return nil
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return []string{net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port)}
	case ip != nil && (ip.IsLoopback() || ip.IsUnspecified()):
		return []string{net.JoinHostPort(host, port)}
	}
	return nil
}

func redacted(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Redacted()
	}
	return rawURL
}

// lastOutput is the end of a launched command's output, for an error: "" when it
// said nothing.
func lastOutput(out []byte) string {
	const keep = 2 << 10
	if len(out) > keep {
		out = out[len(out)-keep:]
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		return "; last output:\n" + s
	}
	return ""
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
