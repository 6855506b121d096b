package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-conform/mcp-conform/reports/ecosystem"
)

// The sharded workflow of docs/ecosystem.md, run as GitHub would run it: each job of
// its job matrix on a runner of its own (the action's steps with the variables GitHub sets),
// artifacts passed from job to job, the merge job last.

// workflowFile is the part of a workflow the test reads.
type workflowFile struct {
	On   any                    `yaml:"on"`
	Jobs map[string]workflowJob `yaml:"jobs"`
}

type workflowJob struct {
	RunsOn   string `yaml:"runs-on"`
	Needs    any    `yaml:"needs"`
	If       string `yaml:"if"`
	Strategy struct {
		FailFast *bool            `yaml:"fail-fast"`
		Matrix   map[string][]any `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []workflowStep `yaml:"steps"`
}

type workflowStep struct {
	ID   string            `yaml:"id"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	If   string            `yaml:"if"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

// readmeShardedWorkflow is the yaml block under "## Sharded across CI jobs" of
// docs/ecosystem.md.
func readmeShardedWorkflow(t *testing.T) *workflowFile {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "ecosystem.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Sharded across CI jobs\n.*?```yaml\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("docs/ecosystem.md has no ```yaml workflow under \"## Sharded across CI jobs\"")
	}
	var wf workflowFile
	if err := yaml.Unmarshal(m[1], &wf); err != nil {
		t.Fatalf("the sharded workflow of docs/ecosystem.md is not YAML: %v\n%s", err, m[1])
	}
	return &wf
}

// expression matches ${{ … }} in a workflow value.
var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// substitute evaluates the expressions a workflow value may hold: the values of
// vars (matrix.K, secrets.NAME, inputs.NAME, steps.ID.outputs.NAME). Any other is a
// test failure: the test does not know what GitHub would make of it.
func substitute(t *testing.T, s string, vars map[string]string) string {
	t.Helper()
	return expression.ReplaceAllStringFunc(s, func(e string) string {
		name := expression.FindStringSubmatch(e)[1]
		v, ok := vars[name]
		if !ok {
			t.Fatalf("the workflow's %q: the test does not know %s", s, name)
		}
		return v
	})
}

// simulatedRunner runs one job of a workflow on a runner of its own.
type simulatedRunner struct {
	g         *githubEnv
	action    *actionFile
	artifacts string // shared by the jobs: one directory per uploaded artifact
	vars      map[string]string
	failed    bool   // a step failed: later steps without if: always() are skipped
	summary   string // the job summary
	gateCodes []int  // the action's gate step exit codes
}

// runStep runs one step of the job as GitHub would.
func (r *simulatedRunner) runStep(t *testing.T, s workflowStep) {
	t.Helper()
	with := map[string]string{}
	for k, v := range s.With {
		with[k] = substitute(t, v, r.vars)
	}
	env := map[string]string{}
	for k, v := range s.Env {
		env[k] = substitute(t, v, r.vars)
	}
	name, _, _ := strings.Cut(s.Uses, "@")
	switch {
	case s.Run != "":
		t.Fatalf("the workflow runs %q: the test only knows the action's steps", s.Run)
	case name == "actions/checkout", name == "actions/setup-go", name == "actions/setup-node":
		// The runner here has the checkout (its workspace), Go and Node already.
	case name == "actions/download-artifact":
		r.download(t, with)
	case name == "mcp-conform/mcp-conform":
		r.runAction(t, with, env)
	default:
		t.Fatalf("the workflow uses %s: the test does not know it", s.Uses)
	}
}

// download is actions/download-artifact@v4 with a pattern: each matching artifact
// into path/NAME.
func (r *simulatedRunner) download(t *testing.T, with map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(r.artifacts)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if ok, _ := path.Match(with["pattern"], e.Name()); !ok {
			continue
		}
		n++
		copyTree(t, filepath.Join(r.artifacts, e.Name()), filepath.Join(r.g.root, with["path"], e.Name()))
	}
	if n == 0 {
		t.Fatalf("download-artifact %q: no artifact matches", with["pattern"])
	}
}

// runAction runs the composite action's steps: install, run, upload, gate.
func (r *simulatedRunner) runAction(t *testing.T, with, stepEnv map[string]string) {
	t.Helper()
	vars := map[string]string{}
	for k, in := range r.action.Inputs {
		vars["inputs."+k] = in.Default
	}
	for k, v := range with {
		if _, ok := r.action.Inputs[k]; !ok {
			t.Fatalf("the workflow passes input %q, which action.yml does not have", k)
		}
		vars["inputs."+k] = v
	}
	for _, s := range r.action.Runs.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			if p := vars["steps.run.outputs.report-path"]; p != "" {
				name := substitute(t, s.With["name"], vars)
				dst := filepath.Join(r.artifacts, name)
				if _, err := os.Stat(dst); err == nil {
					t.Fatalf("artifact %s uploaded twice (upload-artifact@v4 refuses that)", name)
				}
				copyTree(t, substitute(t, s.With["path"], vars), dst)
			}
		case strings.Contains(s.Run, "run.sh\" install"):
			if code, out := r.g.step(t, "install", stepEnv); code != 0 {
				t.Fatalf("install step exited %d:\n%s", code, out)
			}
		case strings.Contains(s.Run, "run.sh\" run"):
			env := maps(stepEnv)
			for k, v := range s.Env {
				env[k] = substitute(t, v, vars)
			}
			code, out := r.g.step(t, "run", env)
			if code != 0 {
				t.Fatalf("run step exited %d (it must not fail before the upload):\n%s", code, out)
			}
			for k, v := range r.g.outputs(t) {
				vars["steps.run.outputs."+k] = v
			}
			r.summary += r.g.takeSummary(t)
		case strings.Contains(s.Run, "run.sh\" gate"):
			env := map[string]string{}
			for k, v := range s.Env {
				env[k] = substitute(t, v, vars)
			}
			code, out := r.g.step(t, "gate", env)
			r.gateCodes = append(r.gateCodes, code)
			if code != 0 {
				r.failed = true
				t.Logf("gate step exited %d:\n%s", code, out)
			}
		default:
			t.Fatalf("action.yml step %+v: the test does not know it", s)
		}
	}
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}

// TestReadmeShardedWorkflow runs the README's sharded workflow: its four shard jobs
// (each the action with --targets and --shard, against six reference servers, one
// of them reached with a secret header) and the job that downloads their artifacts
// and merges them. The shards with a faulty server fail after their upload; the
// merge job runs anyway and its artifact holds the matrix of all six, each row
// linking to a report.html inside the same artifact; the secret appears nowhere.
func TestReadmeShardedWorkflow(t *testing.T) {
	t.Parallel() // long: it overlaps the other long tests (make test-e2e: -parallel)
	wf := readmeShardedWorkflow(t)
	action := readAction(t)
	if wf.On == nil || len(wf.Jobs) != 2 {
		t.Fatalf("the sharded workflow is not a workflow of two jobs: %+v", wf)
	}
	// The jobs in the order their needs give.
	var order []string
	for len(order) < len(wf.Jobs) {
		progressed := false
		for name, job := range wf.Jobs {
			if slices.Contains(order, name) {
				continue
			}
			needs := fmt.Sprint(job.Needs)
			if job.Needs == nil || slices.Contains(order, strings.Trim(needs, "[]")) {
				order = append(order, name)
				progressed = true
			}
		}
		if !progressed {
			t.Fatalf("the jobs' needs do not order them: %+v", wf.Jobs)
		}
	}
	shardJob, mergeJob := wf.Jobs[order[0]], wf.Jobs[order[1]]
	if ff := shardJob.Strategy.FailFast; ff == nil || *ff {
		t.Error("the shard job must set fail-fast: false, or one failing shard cancels the others")
	}
	if mergeJob.If != "always()" {
		t.Errorf("the merge job's if is %q, want always(): it must run when a shard fails", mergeJob.If)
	}
	if len(shardJob.Strategy.Matrix) != 1 {
		t.Fatalf("the shard job's matrix %v: want one key", shardJob.Strategy.Matrix)
	}

	const token = "wf-secret-token-9137"
	port := freePort(t)
	ref := "mcp-conform fixture" // on PATH: the action's install step put it there
	entries := []ecosystemEntry{
		{"ref", []string{"--target", ref}},
		{"ref-ping-error", []string{"--target", ref + " --fault ping-error"}},
		{"ref-legacy", []string{"--target", ref + " --era legacy"}},
		{"ref-modern", []string{"--target", ref + " --era modern"}},
		{"ref-http", []string{"--target", fmt.Sprintf("%s --transport http --addr 127.0.0.1:%d", ref, port), "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
			"--header", "Authorization: Bearer ${MCP_TOKEN}"}},
		{"ref-unknown-tool", []string{"--target", ref + " --fault simple-text-rpc-error"}},
	}
	serversYAML := entriesYAML(t, entries)
	artifacts := t.TempDir()
	var runners []*simulatedRunner
	newRunner := func(vars map[string]string) *simulatedRunner {
		r := &simulatedRunner{g: newGitHubEnv(t), action: action, artifacts: artifacts, vars: vars}
		vars["secrets.MCP_TOKEN"] = token
		// The checkout: the repository's servers.yaml in the workspace.
		if err := os.WriteFile(filepath.Join(r.g.root, "servers.yaml"), []byte(serversYAML), 0o644); err != nil {
			t.Fatal(err)
		}
		runners = append(runners, r)
		return r
	}
	runJob := func(r *simulatedRunner, job workflowJob) {
		for _, s := range job.Steps {
			if r.failed && s.If != "always()" {
				continue
			}
			r.runStep(t, s)
		}
	}
	var key string
	for k := range shardJob.Strategy.Matrix {
		key = k
	}
	var shardCodes []int
	for _, v := range shardJob.Strategy.Matrix[key] {
		r := newRunner(map[string]string{"matrix." + key: fmt.Sprint(v)})
		runJob(r, shardJob)
		if len(r.gateCodes) != 1 {
			t.Fatalf("shard %v: the action ran its gate %d times", v, len(r.gateCodes))
		}
		shardCodes = append(shardCodes, r.gateCodes[0])
		if !strings.Contains(r.summary, "## mcp-conform: ") || !strings.Contains(r.summary, "| # | Run | Conformance |") {
			t.Errorf("shard %v: the job summary lacks the matrix:\n%s", v, r.summary)
		}
	}
	// Four shards of six: ref and ref-http, ref-ping-error and ref-unknown-tool,
	// ref-legacy, ref-modern; the second fails on its faults.
	if want := []int{0, 1, 0, 0}; !slices.Equal(shardCodes, want) {
		t.Errorf("the shards' gates exited %v, want %v", shardCodes, want)
	}
	merge := newRunner(map[string]string{})
	runJob(merge, mergeJob)
	if !slices.Equal(merge.gateCodes, []int{0}) {
		t.Errorf("the merge job's gate exited %v, want 0", merge.gateCodes)
	}
	if !strings.Contains(merge.summary, "## mcp-conform: ecosystem matrix (exit code 0)") || !strings.Contains(merge.summary, "| 1 | ref") {
		t.Errorf("the merge job's summary:\n%s", merge.summary)
	}
	// The merge job's artifact: the matrix of all six, linking inside itself.
	artifact := ""
	for _, s := range mergeJob.Steps {
		if strings.HasPrefix(s.Uses, "mcp-conform/mcp-conform@") && s.With["merge"] != "" {
			artifact = filepath.Join(artifacts, s.With["artifact-name"])
		}
	}
	m := readMatrix(t, artifact)
	var names []string
	for _, row := range m.Rows {
		names = append(names, row.Name)
		if _, err := os.Stat(filepath.Join(artifact, filepath.FromSlash(row.HTML))); err != nil || row.HTML == "" {
			t.Errorf("%s links %q, not inside the artifact: %v", row.Name, row.HTML, err)
		}
	}
	slices.Sort(names)
	if want := []string{"ref", "ref-http", "ref-legacy", "ref-modern", "ref-ping-error", "ref-unknown-tool"}; !slices.Equal(names, want) {
		t.Errorf("the merged matrix has %q, want %q", names, want)
	}
	if i := slices.IndexFunc(m.Rows, func(r ecosystem.Row) bool { return r.Name == "ref-http" }); i < 0 || m.Rows[i].ExitCode != 0 || m.Rows[i].Cells[0].Transport != "http" {
		t.Errorf("ref-http (reached with the header from the secret) did not pass over HTTP: %+v", m.Rows)
	}
	// The secret is nowhere: not in an artifact, a summary or an output.
	for _, r := range runners {
		if strings.Contains(r.summary, token) {
			t.Errorf("a job summary shows the secret")
		}
	}
	_ = filepath.WalkDir(artifacts, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), token) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
}
