package refserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Transports accepted by Serve and RunCLI.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http" // Streamable HTTP at /mcp
	TransportSSE   = "sse"  // HTTP+SSE (2024-11-05) at /sse and /messages
)

// DefaultAddr is the listen address of the HTTP transports: loopback, any free port.
const DefaultAddr = "127.0.0.1:0"

// PageSizeEnv names the environment variable read when --page-size is not given.
const PageSizeEnv = "FIXTURE_PAGE_SIZE"

// shutdownGrace bounds a graceful HTTP shutdown.
const shutdownGrace = 5 * time.Second

// ErrNotLoopback is returned for a listen address that is not on a loopback interface.
var ErrNotLoopback = errors.New("listen address is not a loopback address")

// errUsage marks command-line mistakes (exit status 2).
var errUsage = errors.New("usage")

// loopbackAddr checks a host:port and returns it with "localhost" pinned to
// 127.0.0.1; a missing host (all interfaces) or any non-loopback host is refused.
func loopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrNotLoopback, addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("%w: %q (use 127.0.0.1 or [::1])", ErrNotLoopback, addr)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// Serve runs the reference server on one transport until ctx is cancelled.
// For "stdio" it serves os.Stdin/os.Stdout (ready is not called) and also returns at
// EOF. For "http" and "sse" it listens on addr, which must be a loopback address
// (DefaultAddr when empty; anything else fails with ErrNotLoopback), calls ready with
// the endpoint URL (http://127.0.0.1:PORT/mcp or …/sse) once listening, and shuts
// down gracefully, bounded, when ctx ends.
func Serve(ctx context.Context, transport, addr string, opts Options, ready func(url string)) error {
	return serve(ctx, transport, addr, opts, ready, os.Stdin, os.Stdout)
}

// serve is Serve with the stdio streams as parameters.
func serve(ctx context.Context, transport, addr string, opts Options, ready func(string), stdin io.Reader, stdout io.Writer) error {
	if err := checkOptions(opts); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	switch transport {
	case TransportStdio:
		return ServeStdio(ctx, stdin, stdout, opts)
	case TransportHTTP, TransportSSE:
		return serveHTTP(ctx, transport, addr, opts, ready)
	default:
		return fmt.Errorf("%w: unknown transport %q (want stdio, http or sse)", errUsage, transport)
	}
}

// serveHTTP runs one of the HTTP transports.
func serveHTTP(ctx context.Context, transport, addr string, opts Options, ready func(string)) error {
	if addr == "" {
		addr = DefaultAddr
	}
	bind, err := loopbackAddr(addr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", bind, err)
	}
	mux := http.NewServeMux()
	var h http.Handler
	path := "/mcp"
	if transport == TransportSSE {
		h, path = NewSSEHandler(opts), "/sse"
		mux.Handle("/sse", h)
		mux.Handle("/messages", h)
	} else {
		h = NewStreamableHandler(opts)
		if opts.AuthToken != "" {
			mountAuth(mux, "/mcp", h, opts)
		} else {
			mux.Handle("/mcp", h)
		}
	}
	baseCtx, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ErrorLog:          opts.Log,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if ready != nil {
		ready("http://" + ln.Addr().String() + path)
	}

	select {
	case err := <-served:
		return fmt.Errorf("serve %s: %w", transport, err)
	case <-ctx.Done():
	}
	// Streams never end on their own: end the sessions first, then drain.
	if c, ok := h.(io.Closer); ok {
		_ = c.Close()
	}
	cancelBase()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("shutdown %s: %w", transport, err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", transport, err)
	}
	return nil
}

// cliConfig is the parsed command line.
type cliConfig struct {
	transport  string
	addr       string
	opts       Options
	listFaults bool
}

// faultFlag collects the repeatable --fault flag.
type faultFlag map[string]bool

func (f faultFlag) String() string {
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

func (f faultFlag) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		return errors.New("empty fault name")
	}
	f[v] = true
	return nil
}

// parseCLI parses the fixture command's flags (the arguments after "fixture").
func parseCLI(args []string, stderr io.Writer) (cliConfig, error) {
	var c cliConfig
	fs := flag.NewFlagSet("mcp-conform fixture", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.transport, "transport", TransportStdio, "transport: stdio, http (Streamable HTTP at /mcp) or sse (HTTP+SSE at /sse)")
	fs.StringVar(&c.addr, "addr", DefaultAddr, "listen address for http and sse; loopback only")
	pageSize := fs.Int("page-size", DefaultPageSize, "tools/list page size; 0 turns paging off (default: $"+PageSizeEnv+", else 5)")
	fs.IntVar(&c.opts.ExtraTools, "extra-tools", 0, "list N more tools (bulk_00001 …, never called by the suite's default tier) for scale benchmarks")
	revisions := fs.String("revisions", "", "comma-separated legacy protocol revisions to support (default: all)")
	fs.StringVar(&c.opts.Era, "era", EraDual, "protocol eras to serve: dual (legacy initialize sessions and stateless 2026-07-28), modern (2026-07-28 only) or legacy")
	faults := faultFlag{}
	fs.Var(faults, "fault", "break one rule on purpose: a fault NAME from --list-faults (repeatable)")
	fs.StringVar(&c.opts.AuthToken, "auth-token", "", "protect the http transport: serve only requests with this bearer token (401 with a challenge otherwise), and serve its OAuth Protected Resource Metadata")
	fs.BoolVar(&c.listFaults, "list-faults", false, "list the faults (name, targeted check IDs, revisions, description) and exit")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mcp-conform fixture --transport stdio|http|sse [--addr 127.0.0.1:PORT] [--page-size N] [--extra-tools N] [--revisions a,b] [--era dual|modern|legacy] [--auth-token TOKEN] [--fault NAME]…\n       mcp-conform fixture --list-faults")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	size := *pageSize
	if env := os.Getenv(PageSizeEnv); env != "" && !given["page-size"] {
		n, err := strconv.Atoi(env)
		if err != nil {
			return c, fmt.Errorf("%w: $%s=%q is not an integer", errUsage, PageSizeEnv, env)
		}
		size = n
	}
	if size < 0 {
		return c, fmt.Errorf("%w: page size %d is negative", errUsage, size)
	}
	if c.opts.ExtraTools < 0 || c.opts.ExtraTools > MaxExtraTools {
		return c, fmt.Errorf("%w: --extra-tools %d is outside 0…%d", errUsage, c.opts.ExtraTools, MaxExtraTools)
	}
	c.opts.PageSize = size
	if size == 0 {
		c.opts.PageSize = NoPaging
	}
	if *revisions != "" {
		for _, r := range strings.Split(*revisions, ",") {
			if r = strings.TrimSpace(r); r != "" {
				c.opts.Revisions = append(c.opts.Revisions, r)
			}
		}
	}
	if len(faults) > 0 {
		c.opts.Faults = faults
	}
	if err := checkOptions(c.opts); err != nil {
		return c, fmt.Errorf("%w: %v", errUsage, err)
	}
	switch c.transport {
	case TransportStdio, TransportHTTP, TransportSSE:
	default:
		return c, fmt.Errorf("%w: unknown transport %q (want stdio, http or sse)", errUsage, c.transport)
	}
	if c.opts.AuthToken != "" && c.transport != TransportHTTP {
		return c, fmt.Errorf("%w: --auth-token protects the http transport only", errUsage)
	}
	if c.transport != TransportStdio {
		if _, err := loopbackAddr(c.addr); err != nil {
			return c, err
		}
	}
	return c, nil
}

// RunCLI implements `mcp-conform fixture`; args are the arguments after "fixture".
// Exit status: 0 after a clean shutdown (ctx cancelled, SIGINT/SIGTERM, or stdin EOF
// for stdio), 1 on a runtime failure, 2 on bad flags (an unknown --fault among them)
// or a non-loopback --addr. For http and sse exactly one line, "listening on <url>",
// goes to stdout; for stdio stdout carries only MCP messages. Diagnostics go to
// stderr. --list-faults prints the fault catalogue to stdout and exits 0.
func RunCLI(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, err := parseCLI(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "mcp-conform fixture: %v\n", err)
		return 2
	case c.listFaults:
		if err := writeFaults(stdout); err != nil {
			fmt.Fprintf(stderr, "mcp-conform fixture: %v\n", err)
			return 1
		}
		return 0
	}
	c.opts.Log = log.New(stderr, "mcp-conform fixture: ", log.LstdFlags)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	err = serve(ctx, c.transport, c.addr, c.opts, func(url string) {
		fmt.Fprintf(stdout, "listening on %s\n", url)
	}, stdin, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform fixture: %v\n", err)
		if errors.Is(err, ErrNotLoopback) || errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}
