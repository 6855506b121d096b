package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	scrub "github.com/mcp-conform/mcp-conform/internal/redact"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/reports/ecosystem"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadTargets(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret-token"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name, yaml string
		want       [][]string // each entry's args
		wantErr    string
	}{
		{
			name: "every kind of value",
			yaml: `targets:
  - name: a
    target: node s.js
    call: [echo, 'add={"a":1}']
    strict: true
    timeout: 10s
    --env: MODE=test
  - name: b.http_2
    target: http://127.0.0.1:1/mcp
    header: ["Authorization: Bearer ${TOKEN}"]
`,
			want: [][]string{
				{"--target=node s.js", "--call=echo", `--call=add={"a":1}`, "--strict=true", "--timeout=10s", "--env=MODE=test"},
				{"--target=http://127.0.0.1:1/mcp", "--header=Authorization: Bearer s3cret-token"},
			},
		},
		{name: "not yaml", yaml: "targets: [", wantErr: "yaml"},
		{name: "empty", yaml: "", wantErr: "empty"},
		{name: "a list at the top", yaml: "- name: a\n", wantErr: "want a mapping"},
		{name: "another top key", yaml: "servers: []\n", wantErr: `unknown key "servers"`},
		{name: "no targets", yaml: "targets: []\n", wantErr: "non-empty"},
		{name: "unknown flag", yaml: "targets:\n  - name: a\n    target: x\n    urll: y\n", wantErr: `:4: "urll" is not a flag`},
		{name: "report-dir per target", yaml: "targets:\n  - name: a\n    target: x\n    report-dir: y\n", wantErr: "report-dir cannot be set per target"},
		{name: "a list for a single flag", yaml: "targets:\n  - name: a\n    target: [x, y]\n", wantErr: "takes one value"},
		{name: "a mapping for a flag", yaml: "targets:\n  - name: a\n    target: x\n    env: {A: b}\n", wantErr: "want a value or a list"},
		{name: "no name", yaml: "targets:\n  - target: x\n", wantErr: "no name"},
		{name: "no target", yaml: "targets:\n  - name: a\n    call: echo\n", wantErr: "a has no target"},
		{name: "a name that is a path", yaml: "targets:\n  - name: ../up\n    target: x\n", wantErr: `name "../up"`},
		{name: "a name taken, in another case", yaml: "targets:\n  - name: Srv\n    target: x\n  - name: srv\n    target: y\n", wantErr: "4: name \"srv\" is taken by the entry of line 2"},
		{name: "an unset variable", yaml: "targets:\n  - name: a\n    target: x\n    header: 'X-Key: ${NOPE}'\n", wantErr: "${NOPE}, which is not set"},
		{name: "an entry that is not a mapping", yaml: "targets:\n  - a\n", wantErr: "is a mapping"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "servers.yaml", tc.yaml)
			entries, err := loadTargets(path, lookup)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(tc.want) {
				t.Fatalf("%d entries, want %d", len(entries), len(tc.want))
			}
			for i, e := range entries {
				if !slices.Equal(e.args, tc.want[i]) {
					t.Errorf("entry %d args %q, want %q", i, e.args, tc.want[i])
				}
				// Each entry's args are single-run flags that parse.
				if _, err := parseFlags(e.args, io.Discard); err != nil {
					t.Errorf("entry %d: %v", i, err)
				}
			}
		})
	}
}

func TestSelectShard(t *testing.T) {
	var entries []targetEntry
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		entries = append(entries, targetEntry{name: n})
	}
	names := func(es []targetEntry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.name)
		}
		return strings.Join(out, ",")
	}
	for shard, want := range map[string]string{"": "a,b,c,d,e", "1/2": "a,c,e", "2/2": "b,d", "3/3": "c", "1/1": "a,b,c,d,e", "6/6": ""} {
		got, err := selectShard(entries, shard)
		if err != nil || names(got) != want {
			t.Errorf("shard %q: %q, %v; want %q", shard, names(got), err, want)
		}
	}
	for _, bad := range []string{"0/2", "3/2", "2", "a/b", "1/0", "-1/2"} {
		if _, err := selectShard(entries, bad); err == nil {
			t.Errorf("shard %q: no error", bad)
		}
	}
}

// The command line's single-run flags reach every target, before the entry's own.
func TestForwardedFlags(t *testing.T) {
	o, err := parseFlags([]string{"--targets", "s.yaml", "--jobs", "3", "--timeout", "9s", "--env", "A=1", "--env", "B=2", "--strict", "--report-dir", "out"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--env=A=1", "--env=B=2", "--strict=true", "--timeout=9s"}
	if !slices.Equal(o.forward, want) {
		t.Errorf("forward %q, want %q", o.forward, want)
	}
	if !o.reportDirSet || o.jobs != 3 {
		t.Errorf("report dir set %v, jobs %d", o.reportDirSet, o.jobs)
	}
	// An entry's own flags come after: a single-valued one overrides, a repeatable
	// one adds.
	eo, err := parseFlags(append(slices.Clone(o.forward), "--timeout=20s", "--env=C=3"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if eo.timeout != 20*time.Second || !slices.Equal(eo.env, multiFlag{"A=1", "B=2", "C=3"}) {
		t.Errorf("timeout %s, env %q: want the entry's timeout and every env", eo.timeout, eo.env)
	}
	if _, err := parseFlags([]string{"--jobs", "2"}, io.Discard); err == nil {
		t.Error("--jobs without --targets: no error")
	}
}

// runTargets refuses, before running anything, what cannot work.
func TestRunTargetsUsageErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "servers.yaml", "targets:\n  - name: a\n    target: x\n")
	badCall := writeFile(t, dir, "bad.yaml", "targets:\n  - name: a\n    target: x\n  - name: b\n    target: y\n    call: 'add=[1]'\n")
	single := filepath.Join(dir, "single")
	if err := os.MkdirAll(single, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, single, reports.JSONFile, "{}")
	tests := []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{"--targets", good, "--target", "x"}, conform.ExitUsage, "go in the entries"},
		{[]string{"--targets", good, "--write-baseline", "b.yml"}, conform.ExitUsage, "per entry"},
		{[]string{"--targets", good, "--jobs", "-1"}, conform.ExitUsage, "positive"},
		{[]string{"--targets", filepath.Join(dir, "missing.yaml")}, conform.ExitUsage, "no such file"},
		{[]string{"--targets", badCall, "--report-dir", filepath.Join(dir, "out")}, conform.ExitUsage, "bad.yaml:4: b: --call"},
		{[]string{"--targets", good, "--shard", "2/2", "--report-dir", filepath.Join(dir, "out")}, conform.ExitIncomplete, "selects none"},
		{[]string{"--targets", good, "--report-dir", single}, conform.ExitUsage, "report.json of a single run"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, nil, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.wantErr) {
			t.Errorf("%q: exit %d, stderr %q; want %d with %q", tc.args, code, stderr.String(), tc.code, tc.wantErr)
		}
	}
}

// fakeTarget is a planned target whose run is the shell script, bounded by bound.
func fakeTarget(t *testing.T, name string, bound time.Duration, secrets ...string) plannedTarget {
	return plannedTarget{targetEntry: targetEntry{name: name}, target: "./server " + name, bound: bound,
		secrets: scrub.New(secrets), dir: filepath.Join(t.TempDir(), name)}
}

// A target that crashes, writes no report, or overruns and ignores SIGINT costs its
// own row: a report that says what happened (its secrets scrubbed), no verdict, a
// non-zero exit code; the others are not held up.
func TestRunOneContainsAFailingTarget(t *testing.T) {
	tests := []struct {
		name, script string
		wantCode     int
		wantNote     string
	}{
		{"crash", "echo 'panic: token s3cret-value-9 leaked' >&2; exit 2", 2, "exit status 2; the end of its output: panic: token [REDACTED] leaked"},
		{"silent exit 0", "exit 0", conform.ExitFailed, "ended without a report"},
		{"stuck", "trap '' INT; exec sleep 60", reports.ExitInterrupted, "stopped after"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &targetRunner{self: []string{"sh", "-c", tc.script}, jobs: 1, stdout: io.Discard, stderr: io.Discard, grace: 200 * time.Millisecond, stopDelay: 300 * time.Millisecond}
			p := fakeTarget(t, "srv", 100*time.Millisecond, "s3cret-value-9")
			start := time.Now()
			res := tr.runOne(context.Background(), &p)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
			if res.code != tc.wantCode {
				t.Errorf("exit %d, want %d", res.code, tc.wantCode)
			}
			data, err := os.ReadFile(filepath.Join(p.dir, reports.JSONFile))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte("s3cret-value-9")) {
				t.Errorf("the report shows the secret:\n%s", data)
			}
			run, err := ecosystem.ReadRun("srv", filepath.Join(p.dir, reports.JSONFile))
			if err != nil {
				t.Fatal(err)
			}
			rep := run.Report
			if rep.ExitCode != tc.wantCode || len(rep.Revisions) != 0 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], tc.wantNote) {
				t.Errorf("report: exit %d, %d columns, notes %q; want exit %d and a note with %q", rep.ExitCode, len(rep.Revisions), rep.Notes, tc.wantCode, tc.wantNote)
			}
		})
	}
}

// The target's process gets its arguments in the environment, with its report
// directory; none is on its command line.
func TestRunOnePassesArgsInTheEnvironment(t *testing.T) {
	tr := &targetRunner{self: []string{"sh", "-c", `printf '%s' "$` + childArgsEnv + `" > "$0.args"; echo "$@" > "$0.argv"; exit 1`}, jobs: 1, stdout: io.Discard, stderr: io.Discard, grace: time.Second, stopDelay: time.Second}
	p := fakeTarget(t, "srv", time.Minute)
	p.argv = []string{"--target=./server", "--header=Authorization: Bearer abcdefgh"}
	out := filepath.Join(t.TempDir(), "child")
	tr.self = append(tr.self, out)
	tr.runOne(context.Background(), &p)
	data, err := os.ReadFile(out + ".args")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	if err := json.Unmarshal(data, &args); err != nil {
		t.Fatal(err)
	}
	if want := append(slices.Clone(p.argv), "--report-dir="+p.dir, "--no-color"); !slices.Equal(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
	if argv, _ := os.ReadFile(out + ".argv"); strings.Contains(string(argv), "abcdefgh") {
		t.Errorf("the header is on the command line: %s", argv)
	}
}

// At most jobs targets run at once.
func TestRunAllBoundsParallelism(t *testing.T) {
	dir := t.TempDir()
	// Each run records its start and end in a shared file, after a pause.
	script := `echo start >> "$0"; sleep 0.3; echo end >> "$0"; exit 0`
	log := filepath.Join(dir, "log")
	tr := &targetRunner{self: []string{"sh", "-c", script, log}, jobs: 2, stdout: io.Discard, stderr: io.Discard, grace: time.Minute, stopDelay: time.Second}
	var planned []plannedTarget
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		planned = append(planned, fakeTarget(t, n, time.Minute))
	}
	results := tr.runAll(context.Background(), planned)
	if len(results) != 5 {
		t.Fatalf("%d results", len(results))
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	running, peak := 0, 0
	for _, l := range strings.Fields(string(data)) {
		if l == "start" {
			running++
		} else {
			running--
		}
		peak = max(peak, running)
	}
	if peak != 2 {
		t.Errorf("%d ran at once, want 2 (--jobs 2):\n%s", peak, data)
	}
}

// Interrupted before any target starts: none starts, each is marked so.
func TestRunAllInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	marker := filepath.Join(t.TempDir(), "started")
	tr := &targetRunner{self: []string{"sh", "-c", `touch "$0"`, marker}, jobs: 1, stdout: io.Discard, stderr: io.Discard, grace: time.Second, stopDelay: time.Second}
	results := tr.runAll(ctx, []plannedTarget{fakeTarget(t, "a", time.Minute), fakeTarget(t, "b", time.Minute)})
	for i, r := range results {
		if r.started || r.code != reports.ExitInterrupted {
			t.Errorf("target %d: %+v, want not started, exit %d", i, r, reports.ExitInterrupted)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a target started after the interrupt")
	}
}

// A run that overran but wrote its report (on SIGINT) keeps it, with a note.
func TestRunOneKeepsTheReportOfAnOverrun(t *testing.T) {
	p := fakeTarget(t, "srv", 100*time.Millisecond)
	rep := &reports.Report{Target: "./server", Tool: "mcp-conform test", ExitCode: reports.ExitInterrupted, Revisions: []reports.RevisionReport{{Revision: "2025-06-18", Negotiated: "2025-06-18", Checks: []reports.CheckResult{{ID: "X-01", Status: reports.Pass}}}}}
	var doc bytes.Buffer
	if err := reports.WriteJSON(&doc, rep); err != nil {
		t.Fatal(err)
	}
	// It writes its report when interrupted, then exits 130.
	script := `trap 'kill $!; printf "%s" "$1" > "$0/report.json"; exit 130' INT; sleep 60 >/dev/null 2>&1 & wait`
	tr := &targetRunner{self: []string{"sh", "-c", script, p.dir, doc.String()}, jobs: 1, stdout: io.Discard, stderr: io.Discard, grace: 200 * time.Millisecond, stopDelay: 5 * time.Second}
	res := tr.runOne(context.Background(), &p)
	run, err := ecosystem.ReadRun("srv", filepath.Join(p.dir, reports.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if res.code != reports.ExitInterrupted || len(run.Report.Revisions) != 1 || len(run.Report.Notes) != 1 || !strings.Contains(run.Report.Notes[0], "stopped after") {
		t.Errorf("exit %d, report %+v", res.code, run.Report)
	}
}
