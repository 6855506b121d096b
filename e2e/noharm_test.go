package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestNoHarm proves that a run in the default tier executes none of the target's own
// tools: it runs the whole suite against servers whose tools have visible side effects
// (server-filesystem on a temporary directory, server-memory with a temporary store)
// and asserts that nothing changed — and, from the transcripts, that no call naming
// one of the server's listed tools came back as a successful result.
func TestNoHarm(t *testing.T) {
	t.Parallel() // long: it overlaps the other long tests (make test-e2e: -parallel)
	_, npmDir := realPaths(t)
	pkg := func(name string) string {
		return filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
	}

	t.Run("server-filesystem", func(t *testing.T) {
		root := t.TempDir()
		files := map[string]string{"notes.txt": "keep me\n", "sub/data.json": `{"a":1}` + "\n", "sub/deeper/x.md": "# x\n"}
		for name, body := range files {
			p := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshot(t, root)
		dir := t.TempDir()
		r := runCLI(t, "--target", "node "+shQuote(pkg("server-filesystem"))+" "+shQuote(root), "--report-dir", dir)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("want a verdict (exit 0 or 1): %s", r)
		}
		if after := snapshot(t, root); after != before {
			t.Errorf("the run changed the served directory:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		assertNoToolExecuted(t, dir)
	})

	t.Run("server-memory", func(t *testing.T) {
		store := filepath.Join(t.TempDir(), "memory.jsonl")
		dir := t.TempDir()
		r := runCLI(t, "--target", "node "+shQuote(pkg("server-memory")), "--env", "MEMORY_FILE_PATH="+store, "--report-dir", dir)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("want a verdict (exit 0 or 1): %s", r)
		}
		if _, err := os.Stat(store); err == nil {
			body, _ := os.ReadFile(store)
			t.Errorf("the run wrote the memory store %s:\n%s", store, body)
		}
		assertNoToolExecuted(t, dir)
	})
}

// snapshot describes every file under root: path, mode, size and sha256.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		line := fmt.Sprintf("%s %s %d", rel, info.Mode(), info.Size())
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			line += " " + hex.EncodeToString(sum[:])
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatalf("snapshot %s: %v", root, err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// assertNoToolExecuted reads every transcript of a run: the names the server listed,
// and every tools/call the suite sent with its reply; a call naming a listed tool that
// got a successful result means a tool of the target ran.
func assertNoToolExecuted(t *testing.T, reportDir string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(reportDir, "transcripts", "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no transcripts were written")
	}
	listed := map[string]bool{}
	type call struct{ name, session string }
	calls := map[string]call{} // request id (raw) per session → call
	var executed []string
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var line struct {
				Dir       string          `json:"dir"`
				ForMethod string          `json:"forMethod"`
				Message   json.RawMessage `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Message == nil {
				continue
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name any `json:"name"`
				} `json:"params"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(line.Message, &m) != nil {
				continue
			}
			key := filepath.Base(p) + " " + string(m.ID)
			switch {
			case line.Dir == "send" && m.Method == "tools/call":
				if name, ok := m.Params.Name.(string); ok {
					calls[key] = call{name: name, session: filepath.Base(p)}
				}
			case line.Dir == "recv" && line.ForMethod == "tools/list" && m.Result != nil:
				var res struct {
					Tools []struct {
						Name string `json:"name"`
					} `json:"tools"`
				}
				_ = json.Unmarshal(m.Result, &res)
				for _, tl := range res.Tools {
					listed[tl.Name] = true
				}
			case line.Dir == "recv" && line.ForMethod == "tools/call" && m.Result != nil:
				var res struct {
					IsError bool `json:"isError"`
				}
				_ = json.Unmarshal(m.Result, &res)
				if c, ok := calls[key]; ok && !res.IsError {
					executed = append(executed, c.session+": "+c.name)
				}
			}
		}
		f.Close()
	}
	if len(listed) == 0 {
		t.Fatal("the transcripts show no listed tool: the run did not exercise the server")
	}
	var harmful []string
	for _, e := range executed {
		name := e[strings.Index(e, ": ")+2:]
		if listed[name] {
			harmful = append(harmful, e)
		}
	}
	if len(harmful) > 0 {
		t.Errorf("tools of the target were executed with a successful result: %s", strings.Join(harmful, ", "))
	}
}
