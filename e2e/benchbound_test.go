package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// measuredCLI is execCLI through e2e/testdata/rusage, which reports mcp-conform's
// own peak RSS: read from the test binary, a child's peak would include the test
// binary's memory, which it shares until its exec (a --version run read 30 MB this
// way, 18 MB through the helper). The run's CPU is the helper's report too.
func measuredCLI(ctx context.Context, args ...string) (*cliRun, error) {
	rusageBin, err := testdataBinary("rusage")
	if err != nil {
		return nil, err
	}
	out, err := os.CreateTemp("", "mcp-conform-cost-*.json")
	if err != nil {
		return nil, err
	}
	_ = out.Close()
	defer os.Remove(out.Name())
	cmd := command(ctx, args...)
	cmd.Path, cmd.Args = rusageBin, append([]string{rusageBin, out.Name(), bin}, args...)
	r, err := execCommand(ctx, cmd, args)
	if err != nil {
		return r, err
	}
	var c rusageCost
	raw, rerr := os.ReadFile(out.Name())
	if rerr == nil {
		rerr = json.Unmarshal(raw, &c)
	}
	if rerr != nil {
		return r, fmt.Errorf("the rusage helper's report: %w\n%s", rerr, r)
	}
	r.maxRSSKiB, r.cpu = c.MaxRSSKiB, time.Duration(c.CPUNanos)
	return r, nil
}

// rusageCost is one line of the rusage helper's file: one process's cost.
type rusageCost struct {
	MaxRSSKiB int64 `json:"maxRSSKiB"`
	CPUNanos  int64 `json:"cpuNanos"`
}

// What bounds a figure that misses its goal (issue 22: "what bounds a figure and why
// it cannot go lower"): TestBenchSummary measures the CPU each run costs, the suite's
// and the servers', and prints after the figure the least wall time any schedule of
// that work could take on this machine's cores. CPU is a bound no ordering of the
// work beats; what the work is (sessions, requests) the run's cost beside it says.

// cpuTally collects the CPU time of the runs of one kind.
type cpuTally []time.Duration

func (c *cpuTally) add(d time.Duration) { *c = append(*c, d) }

// median is the tally's median, or 0 when nothing was measured.
func (c cpuTally) median() time.Duration {
	if len(c) == 0 {
		return 0
	}
	return median(c)
}

// clockTicks is the unit of /proc's CPU times: USER_HZ, 100 on every Linux.
const clockTicks = 100

// cpuOf reads the CPU time a live process has spent so far, user and system, from
// /proc/<pid>/stat (fields 14 and 15). ok is false where there is no /proc.
func cpuOf(pid int) (d time.Duration, ok bool) {
	return cpuFrom(fmt.Sprintf("/proc/%d/stat", pid))
}

// mainThreadCPUOf reads the CPU time the main thread of a live process has spent
// so far, from /proc/<pid>/task/<pid>/stat: for a Node server, the thread that
// runs its JavaScript, one request at a time.
func mainThreadCPUOf(pid int) (d time.Duration, ok bool) {
	return cpuFrom(fmt.Sprintf("/proc/%d/task/%d/stat", pid, pid))
}

// cpuFrom reads user and system time from a /proc stat file.
func cpuFrom(path string) (d time.Duration, ok bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces: count the
	// fields after its closing one, which is field 3.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, true
}

// serverTally is the CPU a server spent serving each run: the whole process's, and
// its main thread's.
type serverTally struct{ proc, main cpuTally }

// whileServing runs f and adds to tally the CPU the live process pid and its main
// thread spent meanwhile (nothing when /proc cannot say).
func whileServing(pid int, tally *serverTally, f func() error) error {
	before, ok := cpuOf(pid)
	mainBefore, mok := mainThreadCPUOf(pid)
	err := f()
	if after, ok2 := cpuOf(pid); ok && ok2 {
		tally.proc.add(after - before)
	}
	if after, ok2 := mainThreadCPUOf(pid); mok && ok2 {
		tally.main.add(after - mainBefore)
	}
	return err
}

// cores is how many CPUs the work of a run can spread over.
func cores() time.Duration { return time.Duration(runtime.NumCPU()) }

// stdioBound prints what a stdio figure's CPU says. A run's CPU (mcp-conform with
// every server process it reaped, wait4's rusage) over the cores is the least its
// wall time can be. Of it, the servers' share (measureServerShare) over the cores is
// the least any run of these checks could take against this server, whatever
// mcp-conform did: the requests the checks make cost the server that much. A zero
// servers is not measured, and not printed.
func stdioBound(t *testing.T, dir string, run, floorCPU, floor time.Duration, goal float64, servers serverShare) {
	t.Helper()
	sessions := 0
	if rep := loadReports(t, dir); rep.Cost != nil {
		sessions = rep.Cost.Sessions
	}
	least := run / cores()
	benchLine("  bound: a run's CPU %s ms (mcp-conform and the %d server processes it reaped; the floor's server alone %s ms): on %d cores no schedule ends before %s ms, %.1f× the floor",
		ms(run), sessions, ms(floorCPU), runtime.NumCPU(), ms(least), float64(least)/float64(floor))
	if servers.processes == 0 {
		return
	}
	benchLine("  bound: the server processes' own CPU, each measured through the rusage helper: %s ms a run (%d processes, %s ms each on average), the rest of the same runs (mcp-conform, and the helpers' own) %s ms; the servers' share alone over the cores %s ms, %.1f× the floor (goal %.1f×)",
		ms(servers.cpu), servers.processes, ms(servers.cpu/time.Duration(servers.processes)), ms(servers.rest), ms(servers.cpu/cores()), float64(servers.cpu/cores())/float64(floor), goal)
}

// serverShare is the CPU the server processes of a stdio run spent: the median of
// some runs' sums, how many processes the last of them counted, and the median of
// the rest of those runs' CPU (wait4's total less the servers').
type serverShare struct {
	cpu, rest time.Duration
	processes int
}

// measureServerShare runs mcp-conform k times against target (a --target command
// line) with every server process it starts wrapped in the rusage helper, each
// appending its process's CPU to one file, and returns the runs' median sum: the
// servers' own share of a run's CPU, which the figure's own runs (unwrapped, one
// wait4 total) cannot tell from mcp-conform's. The helpers' own CPU is not in it;
// it is in the rest, which comes from the same runs.
func measureServerShare(t *testing.T, k int, target string, args ...string) serverShare {
	t.Helper()
	rusageBin, err := testdataBinary("rusage")
	if err != nil {
		t.Fatal(err)
	}
	var share serverShare
	var sums, rests []time.Duration
	for range k {
		log := filepath.Join(t.TempDir(), "servers.jsonl")
		ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
		r, err := verdictRun(ctx, append([]string{"--target", shQuote(rusageBin) + " " + shQuote(log) + " " + target}, args...)...)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("the servers' rusage lines: %v", err)
		}
		var sum time.Duration
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		for _, line := range lines {
			var c rusageCost
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatalf("the rusage helper's line %q: %v", line, err)
			}
			sum += time.Duration(c.CPUNanos)
		}
		sums, rests = append(sums, sum), append(rests, r.cpu-sum)
		share.processes = len(lines)
	}
	share.cpu, share.rest = median(sums), median(rests)
	return share
}

// httpBound prints what an HTTP figure's CPU says: the server (started by the bench,
// so /proc reads its CPU) and our process share the cores, so no run ends before
// their CPU over the cores, nor before the server's own over the cores.
func httpBound(what string, server serverTally, ours time.Duration, goal time.Duration, oneThread bool) {
	proc, main := server.proc.median(), server.main.median()
	if proc == 0 {
		benchLine("  bound: not measured (no /proc to read the server's CPU from)")
		return
	}
	benchLine("  bound: %s spent %s ms of CPU serving a run, mcp-conform %s ms: on %d cores no schedule ends before %s ms, nor before %s ms for the server's share alone (goal %s ms)",
		what, ms(proc), ms(ours), runtime.NumCPU(), ms((proc+ours)/cores()), ms(proc/cores()), ms(goal))
	if oneThread && main > 0 {
		// Node runs a server's JavaScript on one thread: what that thread spends
		// serving the run's requests, one after another, no second core shortens.
		benchLine("  bound: of it, %s ms on the server's main thread, which serves one request at a time: no run ends before %s ms, %.1f× the goal", ms(main), ms(main), float64(main)/float64(goal))
	}
}

// rssBound prints what a normal run's peak RSS is made of: the binary started and
// doing nothing (mcp-conform --version), and the peak with the collector at GOGC=10,
// a fifth of the headroom it runs with, which shows what is not garbage.
func rssBound(t *testing.T, url, dir string, peakKiB int64, cpu time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	idle, err := measuredCLI(ctx, "--version")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOGC", "10")
	var tight cpuTally
	var tightPeak int64
	for range 3 {
		r, err := verdictRun(ctx, "--target", url, "--report-dir", dir)
		if err != nil {
			t.Fatal(err)
		}
		tight.add(r.cpu)
		tightPeak = max(tightPeak, r.maxRSSKiB)
	}
	benchLine("  bound: mcp-conform --version alone peaks at %.1f MB (the binary's pages and the runtime); a normal run at GOGC=10 instead of 50, %.1f MB with %s ms of CPU against %.1f MB with %s ms",
		float64(idle.maxRSSKiB)/1024, float64(tightPeak)/1024, ms(tight.median()), float64(peakKiB)/1024, ms(cpu))
}
