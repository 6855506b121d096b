package conform

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
)

// launchWait bounds what these tests wait for: a run, a launched process's exit.
const launchWait = 20 * time.Second

// freeLoopbackPort returns a loopback port that was free a moment ago.
func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// launchRun runs one check against cfg's launched target, without Ginkgo.
func launchRun(t *testing.T, cfg Config) (*Result, error) {
	t.Helper()
	var (
		res *Result
		err error
	)
	withRegistry(t, func() {
		rev := revision.MustLookup("2025-06-18")
		Register(Check{ID: "ZZ-LAUNCH-01", Title: "t", Row: Row{Level: Must, Revisions: []revision.Revision{rev}, Group: GroupBase, Source: "test"},
			Phase: PhaseClean, Run: func(t *T) Verdict { return Pass("") }})
		ctx, cancel := context.WithTimeout(context.Background(), launchWait)
		defer cancel()
		cfg.Revisions = []revision.Revision{rev}
		cfg.Timeout, cfg.StartTimeout, cfg.KillGrace = 2*time.Second, 5*time.Second, 100*time.Millisecond
		res, err = run(ctx, cfg, false)
	})
	return res, err
}

// A --url that already answers before the command is launched is a configuration
// error naming the port: the run would test that other process. The command is not
// launched. Only loopback hosts are probed.
func TestLaunchRefusesABusyURL(t *testing.T) {
	stale := httptest.NewServer(http.NotFoundHandler()) // a stale dev server on 127.0.0.1
	defer stale.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(stale.URL, "http://"))
	free := freeLoopbackPort(t)
	tests := []struct {
		name string
		url  string
		busy bool
	}{
		{"127.0.0.1 served", "http://127.0.0.1:" + port + "/mcp", true},
		{"localhost served", "http://localhost:" + port + "/mcp", true},
		{"127.0.0.1 free", "http://127.0.0.1:" + free + "/mcp", false},
		// TEST-NET-1: not loopback, never dialled (a dial would take the whole bound).
		{"not loopback", "http://192.0.2.1:" + port + "/mcp", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "launched")
			cfg := Config{Target: "sh -c " + shellQuote("touch "+shellQuote(marker)+"; exit 0"), URL: tc.url}
			tgt, _, err := newTarget(cfg.withDefaults())
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = tgt.(*launchTarget).refuseBusyURL(context.Background())
			if took := time.Since(start); took > busyProbeTimeout+500*time.Millisecond {
				t.Errorf("the probe took %s", took)
			}
			if !tc.busy {
				if err != nil {
					t.Errorf("refuseBusyURL = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("refuseBusyURL = nil, want a configuration error")
			}
			// Through the run: a configuration error (exit 2), nothing launched.
			res, err := launchRun(t, cfg)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				exit := -1
				if res != nil {
					exit = res.Report.ExitCode
				}
				t.Fatalf("run: err %v (exit %d), want a *ConfigError", err, exit)
			}
			for _, w := range []string{"another process already listens on port " + port, tc.url} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, serr := os.Stat(marker); serr == nil {
				t.Error("the command was launched although the port was taken")
			}
		})
	}
}

// A launched command that exits at once while nothing listens on --url: exit 4, and
// the note names the command and its exit status.
func TestLaunchedCommandExitsAtOnce(t *testing.T) {
	tests := []struct {
		name, script, status string
	}{
		{"exit 1, silent", "exit 1", "exit status 1"},
		{"exit 3 with a message", "echo boom >&2; exit 3", "exit status 3"},
		{"killed", "kill -9 $$", "killed by SIGKILL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			command := "sh -c " + shellQuote(tc.script)
			res, err := launchRun(t, Config{Target: command, URL: "http://127.0.0.1:" + freeLoopbackPort(t) + "/mcp"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Report.ExitCode != ExitUnreachable {
				t.Errorf("exit %d, want %d; notes %q", res.Report.ExitCode, ExitUnreachable, res.Report.Notes)
			}
			want := fmt.Sprintf("the launched command %q exited (%s)", command, tc.status)
			if !slices.ContainsFunc(res.Report.Notes, func(n string) bool {
				return strings.HasPrefix(n, unreachableNote) && strings.Contains(n, want)
			}) {
				t.Errorf("notes %q: none says %q", res.Report.Notes, want)
			}
		})
	}
}

// A launched command that ended by itself is never a pass: before any check ran the
// unreachable note names its exit (exit 4 stays); after checks ran the run fails
// (exit 1) with a note that the target died. A command the run stopped itself, and a
// stdio target, change nothing.
func TestNoteTargetDeath(t *testing.T) {
	tests := []struct {
		name         string
		script       string // "" for a stdio target
		stopped      bool   // the run's stop sequence ends it
		override     int
		note         string // a note already recorded
		wantOverride int
		want         string // in a note
	}{
		{name: "died after checks ran", script: "exit 3", wantOverride: ExitFailed,
			want: targetDiedPrefix + `: the launched command "sh -c 'exit 3'" exited by itself (exit status 3)`},
		{name: "died before any check ran", script: "exit 3", override: ExitUnreachable, note: unreachableNote + "no session could be opened",
			wantOverride: ExitUnreachable, want: unreachableNote + `no session could be opened; the launched command "sh -c 'exit 3'" exited by itself (exit status 3)`},
		{name: "killed from outside", script: "kill -9 $$", wantOverride: ExitFailed, want: "exited by itself (killed by SIGKILL)"},
		{name: "stopped by the run", script: "exec sleep 60", stopped: true, wantOverride: 0},
		{name: "stdio target", wantOverride: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Target: "sh -c " + shellQuote(tc.script)}
			if tc.script != "" {
				cfg.URL = "http://127.0.0.1:1/mcp"
			}
			cfg = cfg.withDefaults()
			tgt, _, err := newTarget(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if lt, ok := tgt.(*launchTarget); ok {
				ctx, cancel := context.WithTimeout(context.Background(), launchWait)
				defer cancel()
				lt.proc.TermFirst = true // as start sets it: SIGTERM at once
				p, err := transport.Launch(ctx, lt.proc)
				if err != nil {
					t.Fatal(err)
				}
				lt.p = p
				if tc.stopped {
					if err := p.Stop(ctx); err != nil {
						t.Fatal(err)
					}
				}
				select {
				case <-p.Done():
				case <-ctx.Done():
					_ = p.Stop(context.Background())
					t.Fatalf("%s did not exit within %s", cfg.Target, launchWait)
				}
				defer func() { _ = p.Stop(ctx) }()
			}
			sel, err := newSelection(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rs := newRunState(cfg, tgt, sel)
			rs.exitOverride = tc.override
			if tc.note != "" {
				rs.report.Notes = append(rs.report.Notes, tc.note)
			}
			rs.noteTargetDeath()
			if got := rs.exitOverride; got != tc.wantOverride {
				t.Errorf("exit code override %d, want %d; notes %q", got, tc.wantOverride, rs.report.Notes)
			}
			if tc.want == "" {
				if len(rs.report.Notes) != len(slices.DeleteFunc([]string{tc.note}, func(s string) bool { return s == "" })) {
					t.Errorf("notes %q, want none added", rs.report.Notes)
				}
				return
			}
			if !slices.ContainsFunc(rs.report.Notes, func(n string) bool { return strings.Contains(n, tc.want) }) {
				t.Errorf("notes %q: none says %q", rs.report.Notes, tc.want)
			}
			if tc.note != "" && len(rs.report.Notes) != 1 {
				t.Errorf("notes %q: want the unreachable note amended, not another", rs.report.Notes)
			}
		})
	}
}
