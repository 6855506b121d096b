package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// officialRefereeScenarios are the official suite's resources, prompts and
// completion scenarios (@modelcontextprotocol/conformance 0.1.16, fixtures/npm-bench).
var officialRefereeScenarios = []string{
	"resources-list", "resources-read-text", "resources-read-binary", "resources-templates-read",
	"resources-subscribe", "resources-unsubscribe", "prompts-list", "prompts-get-simple",
	"prompts-get-with-args", "prompts-get-embedded-resource", "prompts-get-with-image", "completion-complete",
}

// officialSame are the scenarios that judge a rule mcp-conform judges on any server
// (a valid list: RES-LIST-01, PROMPT-LIST-01) rather than the official fixture's
// names; on server-everything they must agree with our pass in its goldens. The
// others request names only the official fixture (and the reference server,
// refserver/official.go) serves; the design document in docs says why their
// failures on server-everything are no verdict on a rule.
var officialSame = []string{"resources-list", "prompts-list"}

// TestOfficialReferee runs the official suite's resources, prompts and completion
// scenarios as a second referee (the design document in docs): every one passes
// against the reference server over Streamable HTTP, and the two that judge a rule
// we judge pass against server-everything, as our RES-LIST-01 and PROMPT-LIST-01
// do. It needs Node 22 from fixtures/npm-bench, so it runs only with
// MCPCONFORM_BENCH=1 (make bench), never in make test.
func TestOfficialReferee(t *testing.T) {
	if os.Getenv(benchEnv) != "1" {
		t.Skipf("set %s=1 (make bench) to run the official suite", benchEnv)
	}
	official, why := officialSuite(t)
	if why != "" {
		t.Fatal(why)
	}
	_, npmDir := realPaths(t)
	ref := freePort(t)
	refURL := fmt.Sprintf("http://127.0.0.1:%d/mcp", ref)
	startHTTPServer(t, "", nil, refURL, bin, "fixture", "--transport", "http", "--addr", fmt.Sprintf("127.0.0.1:%d", ref))
	ev := freePort(t)
	evURL := fmt.Sprintf("http://127.0.0.1:%d/mcp", ev)
	startHTTPServer(t, npmDir, []string{fmt.Sprintf("PORT=%d", ev)}, evURL, "node", "--require", "./loopback.cjs", everythingJS(npmDir), "streamableHttp")

	for _, target := range []struct {
		name, url string
		must      []string
	}{
		{"reference server", refURL, officialRefereeScenarios},
		{"server-everything", evURL, officialSame},
	} {
		got := map[string]string{}
		for _, sc := range officialRefereeScenarios {
			dir := t.TempDir()
			if err := runOfficial(context.Background(), append(slices.Clone(official), "server", "--url", target.url, "--scenario", sc, "-o", dir)); err != nil {
				t.Fatalf("%s, %s: %v", target.name, sc, err)
			}
			got[sc] = officialOutcome(t, dir)
		}
		t.Logf("%s: %v", target.name, got)
		for _, sc := range target.must {
			if got[sc] != "SUCCESS" {
				t.Errorf("%s: the official scenario %s: %s, want SUCCESS", target.name, sc, got[sc])
			}
		}
	}
}

// officialOutcome reads the checks.json a scenario wrote below dir: SUCCESS when
// every check succeeded, else the first other status with its message.
func officialOutcome(t *testing.T, dir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	if len(files) != 1 {
		return fmt.Sprintf("%d checks.json files under %s", len(files), dir)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []struct {
		Status, ErrorMessage string
	}
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
	if len(checks) == 0 {
		return "no checks"
	}
	for _, c := range checks {
		if c.Status != "SUCCESS" {
			return c.Status + ": " + strings.TrimSpace(c.ErrorMessage)
		}
	}
	return "SUCCESS"
}
