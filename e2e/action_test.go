package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// actionTimeout bounds one step of the action (the install step compiles the binary).
const actionTimeout = 5 * time.Minute

// actionFile is the part of action.yml the tests read.
type actionFile struct {
	Inputs  map[string]struct{ Default string } `yaml:"inputs"`
	Outputs map[string]struct{ Value string }   `yaml:"outputs"`
	Runs    struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID   string            `yaml:"id"`
			Run  string            `yaml:"run"`
			Uses string            `yaml:"uses"`
			Env  map[string]string `yaml:"env"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) *actionFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

// githubEnv is a simulated runner: the files and variables GitHub gives a step.
type githubEnv struct {
	root, actionPath, output, summary, path string
	extraPath                               []string
}

func newGitHubEnv(t *testing.T) *githubEnv {
	t.Helper()
	dir := t.TempDir()
	g := &githubEnv{root: dir, actionPath: repoRoot(t)}
	g.output = filepath.Join(dir, "github_output")
	g.summary = filepath.Join(dir, "step_summary")
	g.path = filepath.Join(dir, "github_path")
	for _, f := range []string{g.output, g.summary, g.path} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// step runs `run.sh NAME` as the action's step does, with env added to what
// GitHub sets, and returns its exit code and combined output. Directories written to
// $GITHUB_PATH by earlier steps are put first on PATH, as the runner does.
func (g *githubEnv) step(t *testing.T, name string, env map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(g.actionPath, ".github", "action", "run.sh"), name)
	cmd.WaitDelay = waitDelay
	cmd.Dir = g.root
	base := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GITHUB_") || strings.HasPrefix(kv, "INPUT_") || strings.HasPrefix(kv, "PATH=")
	})
	paths := append(slices.Clone(g.extraPath), os.Getenv("PATH"))
	cmd.Env = append(base,
		"PATH="+strings.Join(paths, string(os.PathListSeparator)),
		"GITHUB_ACTIONS=true", "GITHUB_ACTION_PATH="+g.actionPath, "RUNNER_TEMP="+g.root,
		"GITHUB_OUTPUT="+g.output, "GITHUB_STEP_SUMMARY="+g.summary, "GITHUB_PATH="+g.path)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("run.sh %s did not finish within %s:\n%s", name, actionTimeout, out.String())
	}
	code := 0
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	} else if err != nil {
		t.Fatalf("run.sh %s: %v", name, err)
	}
	if name == "install" {
		data, _ := os.ReadFile(g.path)
		g.extraPath = slices.DeleteFunc(strings.Split(strings.TrimSpace(string(data)), "\n"), func(s string) bool { return s == "" })
	}
	return code, out.String()
}

// outputs reads $GITHUB_OUTPUT (NAME=VALUE lines) and truncates it for the next run.
func (g *githubEnv) outputs(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(g.output)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	_ = os.WriteFile(g.output, nil, 0o644)
	return out
}

func (g *githubEnv) takeSummary(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(g.summary)
	if err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(g.summary, nil, 0o644)
	return string(data)
}

// TestActionSteps runs the action's steps (.github/action/run.sh) as GitHub would —
// install with the runner's Go from the action's checkout, run, gate — against the
// reference server, faulty and clean, and checks the job summary and the outputs.
func TestActionSteps(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs.using = %q, want composite", a.Runs.Using)
	}
	// Every input reaches the script, under the name the script reads.
	passed := map[string]bool{}
	for _, s := range a.Runs.Steps {
		for k, v := range s.Env {
			if m := regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`).FindStringSubmatch(v); m != nil {
				if want := "INPUT_" + strings.ToUpper(strings.ReplaceAll(m[1], "-", "_")); k != want {
					t.Errorf("input %s is passed as %s, want %s", m[1], k, want)
				}
				passed[m[1]] = true
			}
		}
	}
	for name := range a.Inputs {
		if !passed[name] {
			t.Errorf("input %s never reaches run.sh", name)
		}
	}

	g := newGitHubEnv(t)
	if code, out := g.step(t, "install", nil); code != 0 {
		t.Fatalf("install step exited %d:\n%s", code, out)
	}
	if len(g.extraPath) != 1 {
		t.Fatalf("install step added %q to GITHUB_PATH, want one directory", g.extraPath)
	}
	if _, err := os.Stat(filepath.Join(g.extraPath[0], "mcp-conform")); err != nil {
		t.Fatalf("install step: %v", err)
	}
	work := filepath.Join(g.root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := func(target, revisions string) map[string]string {
		return map[string]string{
			"INPUT_TARGET": target, "INPUT_REVISIONS": revisions, "INPUT_REPORT_DIR": "conform-out",
			"INPUT_WORKING_DIRECTORY": work, "INPUT_ARGS": `--timeout 5s --env "NOTE=two words"`,
			"INPUT_ARTIFACT_NAME": "mcp-conform-report",
		}
	}
	check := func(t *testing.T, outputs map[string]string, want map[string]string) {
		t.Helper()
		for k, v := range want {
			if outputs[k] != v {
				t.Errorf("output %s = %q, want %q (all: %v)", k, outputs[k], v, outputs)
			}
		}
		for name, o := range a.Outputs {
			if m := regexp.MustCompile(`steps\.run\.outputs\.([a-z-]+)`).FindStringSubmatch(o.Value); m == nil {
				t.Errorf("action output %s = %q, not a run-step output", name, o.Value)
			} else if _, ok := outputs[m[1]]; !ok {
				t.Errorf("action output %s reads steps.run.outputs.%s, which run.sh did not set (set: %v)", name, m[1], outputs)
			}
		}
	}

	t.Run("faulty server", func(t *testing.T) {
		code, out := g.step(t, "run", inputs("mcp-conform fixture --fault simple-text-rpc-error", "2025-06-18,2025-11-25"))
		if code != 0 {
			t.Fatalf("run step exited %d (it must not fail before the upload):\n%s", code, out)
		}
		outputs := g.outputs(t)
		check(t, outputs, map[string]string{"exit-code": "1", "fail": "2", "error": "0", "report-dir": "conform-out", "report-path": filepath.Join(work, "conform-out")})
		// The upload step reads the run step's report-path.
		for _, s := range a.Runs.Steps {
			if strings.HasPrefix(s.Uses, "actions/upload-artifact@") && s.With["path"] != "${{ steps.run.outputs.report-path }}" {
				t.Errorf("the upload step's path is %q, want the run step's report-path", s.With["path"])
			}
		}
		total, _ := strconv.Atoi(outputs["total"])
		pass, _ := strconv.Atoi(outputs["pass"])
		if total < 50 || pass != total-2-atoi(outputs["warn"])-atoi(outputs["skip"]) {
			t.Errorf("counts do not add up: %v", outputs)
		}
		summary := g.takeSummary(t)
		for _, want := range []string{
			"## mcp-conform: ❌ FAIL (exit code 1)",
			"Verdicts: total: " + outputs["total"] + " · pass: " + outputs["pass"],
			"| TOOLS-CALL-01 |",
			"2025-06-18<br>negotiated 2025-06-18", "2025-11-25<br>negotiated 2025-11-25",
		} {
			if !strings.Contains(summary, want) {
				t.Errorf("job summary lacks %q:\n%s", want, summary)
			}
		}
		if _, err := exec.LookPath("jq"); err == nil {
			want := "### Reproduce\n\n```sh\n# TOOLS-CALL-01 @ 2025-06-18: fail\nmcp-conform --target 'mcp-conform fixture --fault simple-text-rpc-error' --env 'NOTE=two words' --revision 2025-06-18 --label-filter id:TOOLS-CALL-01 --report-dir mcp-conform-repro\n"
			if !strings.Contains(summary, want) {
				t.Errorf("job summary lacks the repro commands %q:\n%s", want, summary)
			}
		}
		if strings.Contains(summary, "2024-11-05<br>") {
			t.Errorf("job summary has a revision the revisions input left out:\n%s", summary)
		}
		for _, f := range []string{"report.html", "report.json", "junit.xml", "matrix.md"} {
			if _, err := os.Stat(filepath.Join(work, "conform-out", f)); err != nil {
				t.Errorf("report for the artifact: %v", err)
			}
		}
		if code, out := g.step(t, "gate", map[string]string{"EXIT_CODE": outputs["exit-code"]}); code != 1 || !strings.Contains(out, "::error title=mcp-conform::mcp-conform exited 1") {
			t.Errorf("gate step exited %d, want 1 with an error annotation:\n%s", code, out)
		}
	})

	t.Run("clean server", func(t *testing.T) {
		code, out := g.step(t, "run", inputs("mcp-conform fixture", "2025-11-25"))
		if code != 0 {
			t.Fatalf("run step exited %d:\n%s", code, out)
		}
		outputs := g.outputs(t)
		check(t, outputs, map[string]string{"exit-code": "0", "fail": "0", "error": "0"})
		if summary := g.takeSummary(t); !strings.Contains(summary, "## mcp-conform: ✅ PASS (exit code 0)") {
			t.Errorf("job summary:\n%s", summary)
		}
		if code, out := g.step(t, "gate", map[string]string{"EXIT_CODE": "0"}); code != 0 {
			t.Errorf("gate step exited %d:\n%s", code, out)
		}
	})

	t.Run("bad args input", func(t *testing.T) {
		env := inputs("mcp-conform fixture", "2025-11-25")
		env["INPUT_ARGS"] = `--env "unterminated`
		if code, out := g.step(t, "run", env); code != 2 || !strings.Contains(out, "does not split like shell words") {
			t.Errorf("run step with an unmatched quote exited %d, want 2 with a message:\n%s", code, out)
		}
	})

	t.Run("bad merge input", func(t *testing.T) {
		env := inputs("", "all")
		env["INPUT_MERGE"] = `shards "unterminated`
		if code, out := g.step(t, "run", env); code != 2 || !strings.Contains(out, "the merge input does not split like shell words") {
			t.Errorf("run step with an unmatched quote in merge exited %d, want 2 with a message:\n%s", code, out)
		}
	})

	t.Run("baseline input", func(t *testing.T) {
		env := inputs("mcp-conform fixture", "2025-11-25")
		env["INPUT_BASELINE"] = "known-failures.yml"
		code, out := g.step(t, "run", env)
		help := runCLI(t, "--help")
		if strings.Contains(help.stderr+help.stdout, "-baseline") {
			if !strings.Contains(out, "--baseline known-failures.yml") {
				t.Errorf("the baseline input is not passed as --baseline:\n%s", out)
			}
		} else if code != 2 || !strings.Contains(out, "has no --baseline flag") {
			t.Errorf("without a --baseline flag the run step exited %d, want 2 with a message:\n%s", code, out)
		}
		g.outputs(t)
		g.takeSummary(t)
	})
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestReadmeWorkflowUsesTheAction checks the README's workflow against action.yml:
// it uses this action, passes only inputs the action has, and reads only outputs it
// sets.
func TestReadmeWorkflowUsesTheAction(t *testing.T) {
	a := readAction(t)
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## GitHub Action\n.*?```yaml\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no ```yaml workflow under \"## GitHub Action\"")
	}
	var wf struct {
		On   any `yaml:"on"`
		Jobs map[string]struct {
			RunsOn string `yaml:"runs-on"`
			Steps  []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
				Run  string            `yaml:"run"`
				If   string            `yaml:"if"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(m[1], &wf); err != nil {
		t.Fatalf("README workflow is not YAML: %v\n%s", err, m[1])
	}
	if wf.On == nil || len(wf.Jobs) == 0 {
		t.Fatalf("README workflow is not a complete workflow (on, jobs):\n%s", m[1])
	}
	used := 0
	for name, job := range wf.Jobs {
		if job.RunsOn == "" {
			t.Errorf("job %s has no runs-on", name)
		}
		ids := map[string]bool{}
		text := ""
		for _, s := range job.Steps {
			text += s.Run + "\n" + s.If + "\n"
			if !strings.HasPrefix(s.Uses, "mcp-conform/mcp-conform@") {
				continue
			}
			used++
			ids[s.ID] = true
			for k := range s.With {
				if _, ok := a.Inputs[k]; !ok {
					t.Errorf("README passes input %q, which action.yml does not have", k)
				}
			}
			if _, ok := s.With["target"]; !ok {
				t.Errorf("README's step does not set the target input")
			}
		}
		for _, ref := range regexp.MustCompile(`steps\.([a-z0-9_-]+)\.outputs\.([a-z-]+)`).FindAllStringSubmatch(text, -1) {
			if !ids[ref[1]] {
				continue
			}
			if _, ok := a.Outputs[ref[2]]; !ok {
				t.Errorf("README reads output %q, which action.yml does not set", ref[2])
			}
		}
	}
	if used == 0 {
		t.Fatal("README workflow does not use mcp-conform/mcp-conform@…")
	}
}
