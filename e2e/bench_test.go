package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"
)

// The performance goals a full run is held to, printed (never enforced) by
// TestBenchSummary.
const (
	goalRatio  = 3.0 // a full run within this many floors
	goalRSSMiB = 50  // peak resident set of mcp-conform
)

// benchEnv turns TestBenchSummary on; `make bench` sets it.
const benchEnv = "MCPCONFORM_BENCH"

// benchRunsEnv overrides how many runs of each TestBenchSummary times.
const benchRunsEnv = "MCPCONFORM_BENCH_N"

// fullRun runs every check at every revision against the bundled server over stdio,
// writing the reports into dir, and fails unless the run exits 0.
func fullRun(ctx context.Context, dir string) (*cliRun, error) {
	r, err := execCLI(ctx, "--report-dir", dir)
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
func floorRun(ctx context.Context) (err error) {
	cmd := exec.CommandContext(ctx, bin, "fixture", "--transport", "stdio")
	cmd.WaitDelay = waitDelay
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the reference server: %w", err)
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
		return fmt.Errorf("send initialize: %w", err)
	}
	if err := readReply(rd, 1); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return fmt.Errorf("send notifications/initialized: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); err != nil {
		return fmt.Errorf("send tools/list: %w", err)
	}
	if err := readReply(rd, 2); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if err := stdin.Close(); err != nil {
		return fmt.Errorf("close stdin: %w", err)
	}
	if _, err := io.Copy(io.Discard, rd); err != nil {
		return fmt.Errorf("drain stdout: %w", err)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("reference server after stdin EOF: %w", err)
	}
	return nil
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

// TestBenchSummary measures full runs and floors in one process, alternating them so
// both see the same machine, and prints the median of each, their ratio, the peak RSS
// of mcp-conform over the full runs and whether the goals hold. It never fails on the
// goals. It runs only with MCPCONFORM_BENCH=1 (make bench), not in make test.
func TestBenchSummary(t *testing.T) {
	if os.Getenv(benchEnv) != "1" {
		t.Skipf("set %s=1 (make bench) to measure", benchEnv)
	}
	n := 10
	if s := os.Getenv(benchRunsEnv); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("%s=%q: want a positive integer", benchRunsEnv, s)
		}
		n = v
	}
	dir := t.TempDir()
	timed := func(f func(context.Context) error) (time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		defer cancel()
		start := time.Now()
		err := f(ctx)
		return time.Since(start), err
	}
	var (
		full, floor []time.Duration
		peakKiB     int64
	)
	for i := -1; i < n; i++ { // i == -1 warms the caches and is not counted
		d, err := timed(func(ctx context.Context) error {
			r, err := fullRun(ctx, dir)
			if r != nil {
				peakKiB = max(peakKiB, r.maxRSSKiB)
			}
			if err != nil {
				return fmt.Errorf("%w\n%s", err, r)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if i >= 0 {
			full = append(full, d)
		}
		if d, err = timed(floorRun); err != nil {
			t.Fatalf("floor: %v", err)
		}
		if i >= 0 {
			floor = append(floor, d)
		}
	}
	fm, lm := median(full), median(floor)
	if lm <= 0 {
		t.Fatal("floor measured as zero")
	}
	ratio := float64(fm) / float64(lm)
	rssMiB := float64(peakKiB) / 1024
	fmt.Printf("runs: %d of each (medians)\n", n)
	fmt.Printf("full run: %s ms, floor: %s ms, ratio: %.1f×\n", ms(fm), ms(lm), ratio)
	fmt.Printf("peak RSS: %.1f MB\n", rssMiB)
	fmt.Printf("goal ratio ≤ %.0f×: %s\n", goalRatio, verdict(ratio <= goalRatio))
	fmt.Printf("goal peak RSS < %d MB: %s\n", goalRSSMiB, verdict(rssMiB < goalRSSMiB))
}
