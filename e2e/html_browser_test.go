package e2e

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/reports/ecosystem"
)

// browserTimeout bounds one headless Chromium run.
const browserTimeout = 90 * time.Second

// chromium finds the headless browser: $MCPCONFORM_CHROMIUM, or chromium on PATH
// (Debian's package; `make test` installs it). Without one the test is skipped,
// unless MCPCONFORM_REAL=1 (as in `make test`), where a missing browser fails it.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MCPCONFORM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("MCPCONFORM_REAL") == "1" {
		t.Fatal("no chromium on PATH: `make browser` installs it (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH (make browser installs it)")
	return ""
}

// testOutputDir is where tests keep files for people to look at:
// $MCPCONFORM_TEST_OUTPUT, or bin/test-output in the repository.
func testOutputDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCPCONFORM_TEST_OUTPUT")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "bin", "test-output")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runChromium runs headless Chromium on url with extra flags (--dump-dom,
// --screenshot=…) in a fresh profile, with everything that could reach the network
// off, and returns its stdout. Its whole process group is killed if it overruns.
func runChromium(t *testing.T, browser, url string, extra ...string) string {
	t.Helper()
	profile := t.TempDir()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--hide-scrollbars", "--virtual-time-budget=5000",
	}, extra...)
	args = append(args, url)
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // no renderer outlives the test
	}
	if err != nil {
		t.Fatalf("chromium %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// element returns the start tag of the element with the id in a dumped DOM.
func element(t *testing.T, dom, id string) string {
	t.Helper()
	tag := regexp.MustCompile(`<[a-z]+ [^>]*id="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(dom)
	if tag == "" {
		t.Fatalf("the rendered page has no element #%s", id)
	}
	return tag
}

func hidden(tag string) bool { return regexp.MustCompile(`\shidden(=""|\s|>)`).MatchString(tag) }

// TestHTMLReportInBrowser loads the report.html of a run against the faulty
// reference server in headless Chromium: the flipped cells are shown, each filter
// (verdict, area, level — set through the URL fragment) hides what it should, and a
// screenshot of the failures-only view is kept in the test output directory.
func TestHTMLReportInBrowser(t *testing.T) {
	browser := chromium(t)
	dir, _, _ := faultyReport(t)
	page := filepath.Join(dir, reports.HTMLFile)
	url := "file://" + page

	// A run with failures opens on them (issue 32): the failing row shown, a
	// passing one hidden, the filter set to the problems.
	dom := runChromium(t, browser, url, "--dump-dom")
	if !strings.Contains(element(t, dom, "run-verdict"), "v-FAIL") || !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("page did not render or its script did not run:\n%.2000s", dom)
	}
	if !hidden(element(t, dom, "row-TOOLS-LIST-01")) || hidden(element(t, dom, "row-TOOLS-CALL-01")) {
		t.Errorf("the page of a failing run does not open on its failures")
	}
	// Unfiltered (#status=all): every check is shown, the failing cell is there and marked.
	dom = runChromium(t, browser, url+"#status=all", "--dump-dom")
	if hidden(element(t, dom, "row-TOOLS-LIST-01")) || hidden(element(t, dom, "row-TOOLS-CALL-01")) {
		t.Errorf("unfiltered page hides rows")
	}
	if !regexp.MustCompile(`<a class="st-fail" href="#d-2025-06-18-TOOLS-CALL-01"[^>]*>FAIL</a>`).MatchString(dom) {
		t.Errorf("the failing cell TOOLS-CALL-01 @ 2025-06-18 is not shown as FAIL")
	}

	filters := []struct {
		fragment      string
		shown, hidden []string // element ids
		count         string
	}{
		{
			fragment: "status=problems",
			shown:    []string{"row-PING-01", "row-TOOLS-CALL-01", "d-2025-06-18-TOOLS-CALL-01", "d-2024-11-05-PING-01"},
			hidden:   []string{"row-TOOLS-LIST-01", "row-LIFE-INIT-01", "d-2025-06-18-TOOLS-LIST-01", "d-2025-06-18-LIFE-INIT-01"},
			count:    "2 of ",
		},
		{
			fragment: "status=all&group=UTIL",
			shown:    []string{"row-PING-01", "d-2025-06-18-PING-01"},
			hidden:   []string{"row-TOOLS-CALL-01", "row-TOOLS-LIST-01", "d-2025-06-18-TOOLS-CALL-01"},
		},
		{
			// Both problems are MUST rows (PING-01 warns on its SHOULD part): the
			// SHOULD filter hides them.
			fragment: "status=problems&level=should",
			hidden:   []string{"row-PING-01", "row-TOOLS-CALL-01", "d-2025-06-18-PING-01"},
			count:    "0 of ",
		},
		{
			fragment: "status=problems&level=must",
			shown:    []string{"row-PING-01", "row-TOOLS-CALL-01"},
			count:    "2 of ",
		},
	}
	for _, f := range filters {
		dom := runChromium(t, browser, url+"#"+f.fragment, "--dump-dom")
		for _, id := range f.shown {
			if hidden(element(t, dom, id)) {
				t.Errorf("#%s: %s is hidden, want shown", f.fragment, id)
			}
		}
		for _, id := range f.hidden {
			if !hidden(element(t, dom, id)) {
				t.Errorf("#%s: %s is shown, want hidden", f.fragment, id)
			}
		}
		if f.count != "" && !strings.Contains(dom, `<span id="shown">`+f.count) {
			t.Errorf("#%s: the shown count does not start %q", f.fragment, f.count)
		}
	}
	shot := filepath.Join(testOutputDir(t), "report-html-failures.png")
	_ = os.Remove(shot)
	runChromium(t, browser, url+"#status=problems", "--window-size=1400,1400", "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 10_000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s: %d bytes, %v: want a PNG", shot, len(png), err)
	}
	t.Logf("screenshot of the failures-only view: %s", shot)
}

// TestBadgesInBrowser loads every badge of the faulty run into a page in headless
// Chromium, as a README shows them (an <img> each): each must load, at the size its
// SVG declares, and the failing run's summary must say so. A screenshot of the
// badges is kept in the test output directory.
func TestBadgesInBrowser(t *testing.T) {
	browser := chromium(t)
	dir, rep, _ := faultyReport(t)
	badges := reports.Badges(rep)
	if len(badges) != len(rep.Revisions)+1 {
		t.Fatalf("%d badges for %d columns", len(badges), len(rep.Revisions))
	}
	// The page's script records what the browser made of each image once all have
	// loaded or failed: data-w and data-h, its natural size (0 when it failed).
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><body style=\"margin:8px;background:#fff\">\n")
	for i, badge := range badges {
		src := "file://" + filepath.Join(dir, reports.BadgeDir, badge.File)
		fmt.Fprintf(&b, "<p><img id=\"badge-%d\" src=\"%s\" alt=\"%s\"></p>\n", i, html.EscapeString(src), html.EscapeString(badge.File))
	}
	b.WriteString(`<script>
window.addEventListener("load", () => {
  for (const img of document.images) {
    img.dataset.w = img.complete ? img.naturalWidth : 0;
    img.dataset.h = img.complete ? img.naturalHeight : 0;
  }
  document.body.dataset.ready = "1";
});
</script>
</body></html>
`)
	page := filepath.Join(t.TempDir(), "badges.html")
	if err := os.WriteFile(page, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := runChromium(t, browser, "file://"+page, "--dump-dom")
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the badge page's script did not run:\n%.2000s", dom)
	}
	size := regexp.MustCompile(`data-w="(\d+)" data-h="(\d+)"`)
	for i, badge := range badges {
		svg, err := os.ReadFile(filepath.Join(dir, reports.BadgeDir, badge.File))
		if err != nil {
			t.Fatal(err)
		}
		declared := regexp.MustCompile(`^<svg [^>]*width="(\d+)" height="(\d+)"`).FindSubmatch(svg)
		m := size.FindStringSubmatch(element(t, dom, fmt.Sprintf("badge-%d", i)))
		switch {
		case declared == nil:
			t.Errorf("%s declares no size:\n%s", badge.File, svg)
		case m == nil || m[1] == "0" || m[2] == "0":
			t.Errorf("%s did not load in the browser: %v", badge.File, m)
		case m[1] != string(declared[1]) || m[2] != string(declared[2]):
			t.Errorf("%s renders %sx%s, its SVG declares %sx%s", badge.File, m[1], m[2], declared[1], declared[2])
		}
	}
	// The faulty run fails TOOLS-CALL-01 at every revision: no column passes.
	if want := fmt.Sprintf("0/%d revisions pass", len(rep.Revisions)); badges[0].Message != want {
		t.Errorf("summary badge says %q, want %q", badges[0].Message, want)
	}
	shot := filepath.Join(testOutputDir(t), "badges.png")
	_ = os.Remove(shot)
	runChromium(t, browser, "file://"+page, "--window-size=400,"+fmt.Sprint(40*len(badges)+40), "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 1_000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s: %d bytes, %v: want a PNG", shot, len(png), err)
	}
	t.Logf("screenshot of the badges: %s", shot)
}

// mergedMatrix writes two many-target runs of the reference server — clean, in each
// era alone, and with a fault — and merges them, as a CI job merges its shards; it
// returns the merged matrix's directory.
func mergedMatrix(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	ref := shQuote(bin) + " fixture"
	shards := map[string][]ecosystemEntry{
		"shard-1": {{"reference", []string{"--target", ref}}, {"broken-ping", []string{"--target", ref + " --fault ping-error"}}},
		"shard-2": {{"legacy-only", []string{"--target", ref + " --era legacy"}}, {"modern-only", []string{"--target", ref + " --era modern"}}},
	}
	for name, entries := range shards {
		file := filepath.Join(work, name+".yaml")
		if err := os.WriteFile(file, []byte(entriesYAML(t, entries)), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, "--targets", file, "--report-dir", filepath.Join(work, name), "--jobs", "2", "-q")
		if r.code != 0 && r.code != 1 {
			t.Fatalf("%s: %s", name, r)
		}
	}
	out := filepath.Join(work, "matrix")
	wantCode(t, runCLI(t, "merge", "--report-dir", out, filepath.Join(work, "shard-1"), filepath.Join(work, "shard-2")), 0)
	return out
}

// rowOrder is the order of the runs' rows in a dumped DOM.
func rowOrder(dom string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<tr id="run-([^"]+)"`).FindAllStringSubmatch(dom, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestMatrixHTMLInBrowser loads the merged matrix.html in headless Chromium: the
// runs in rank order, each control — sort by name or by one revision, keep one
// revision, one check's row across the runs, its failures only; all set through the
// URL fragment — does what it says, and a screenshot is kept in the test output
// directory.
func TestMatrixHTMLInBrowser(t *testing.T) {
	browser := chromium(t)
	dir := mergedMatrix(t)
	url := "file://" + filepath.Join(dir, ecosystem.HTMLFile)

	views := []struct {
		fragment       string
		order          []string          // the rows, in the order shown (hidden ones too)
		shown, hidden  []string          // element ids
		attrs          map[string]string // element id → an attribute its start tag has
		text, countTxt string
		links          []string
	}{
		{
			fragment: "",
			// All four pass everything but broken-ping; ties go to more revisions.
			order: []string{"reference", "legacy-only", "modern-only", "broken-ping"},
			shown: []string{"run-reference", "run-broken-ping", "run-reference-2024-11-05"},
			attrs: map[string]string{"run-modern-only-2025-06-18": `data-state="unsupported"`, "run-reference-2026-07-28": `data-state="negotiated"`},
		},
		{fragment: "sort=name", order: []string{"broken-ping", "legacy-only", "modern-only", "reference"}},
		{
			// By conformance at 2026-07-28: those that support it first, in rank order
			// where they tie (ping is gone in 2026-07-28: broken-ping passes there).
			fragment: "sort=rev:2026-07-28",
			order:    []string{"reference", "modern-only", "broken-ping", "legacy-only"},
		},
		{
			fragment: "rev=2026-07-28",
			shown:    []string{"run-reference", "run-modern-only", "run-reference-2026-07-28"},
			hidden:   []string{"run-legacy-only", "run-reference-2025-06-18", "run-modern-only-2024-11-05"},
			countTxt: "3 of 4 runs shown",
		},
		{
			fragment: "check=PING-01",
			shown:    []string{"run-reference", "run-broken-ping", "run-legacy-only", "run-modern-only", "check-head"},
			attrs: map[string]string{
				"run-broken-ping-2025-06-18": `data-verdict="fail"`, "run-reference-2025-06-18": `data-verdict="pass"`,
				"run-modern-only-2025-06-18": `data-verdict="skip"`, "run-reference-2026-07-28": `data-verdict="none"`,
			},
			text: "PING-01 — ",
			// Each verdict links to its details in the run's report.html.
			links: []string{"../shard-1/broken-ping/report.html#d-2025-06-18-PING-01"},
		},
		{
			fragment: "check=PING-01&status=problems",
			shown:    []string{"run-broken-ping"},
			hidden:   []string{"run-reference", "run-legacy-only", "run-modern-only"},
			text:     "fails, warns or errors on 1 of 4 runs",
			countTxt: "1 of 4 runs shown",
		},
	}
	for _, v := range views {
		dom := runChromium(t, browser, url+"#"+v.fragment, "--dump-dom")
		if !strings.Contains(dom, `data-ready="1"`) {
			t.Fatalf("#%s: the page's script did not run:\n%.2000s", v.fragment, dom)
		}
		if v.order != nil && !slices.Equal(rowOrder(dom), v.order) {
			t.Errorf("#%s: rows %q, want %q", v.fragment, rowOrder(dom), v.order)
		}
		for _, id := range v.shown {
			if hidden(element(t, dom, id)) {
				t.Errorf("#%s: %s is hidden, want shown", v.fragment, id)
			}
		}
		for _, id := range v.hidden {
			if !hidden(element(t, dom, id)) {
				t.Errorf("#%s: %s is shown, want hidden", v.fragment, id)
			}
		}
		for id, attr := range v.attrs {
			if tag := element(t, dom, id); !strings.Contains(tag, attr) {
				t.Errorf("#%s: %s is %s, want %s", v.fragment, id, tag, attr)
			}
		}
		if v.text != "" && !strings.Contains(dom, v.text) {
			t.Errorf("#%s: the page does not say %q", v.fragment, v.text)
		}
		for _, href := range v.links {
			if !strings.Contains(dom, `<a href="`+href+`">`) {
				t.Errorf("#%s: no link to %s", v.fragment, href)
			}
			target := filepath.Join(dir, filepath.FromSlash(strings.Split(href, "#")[0]))
			page, err := os.ReadFile(target)
			if err != nil || !strings.Contains(string(page), `id="`+strings.Split(href, "#")[1]+`"`) {
				t.Errorf("#%s: %s does not lead to an element of %s: %v", v.fragment, href, target, err)
			}
		}
		if v.countTxt != "" && !strings.Contains(dom, `<span id="shown">`+v.countTxt) {
			t.Errorf("#%s: the shown count is not %q", v.fragment, v.countTxt)
		}
	}
	shot := filepath.Join(testOutputDir(t), "matrix-html.png")
	_ = os.Remove(shot)
	runChromium(t, browser, url, "--window-size=1600,700", "--screenshot="+shot)
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 10_000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s: %d bytes, %v: want a PNG", shot, len(png), err)
	}
	// And one check's row across the runs, its failures only.
	checkShot := filepath.Join(testOutputDir(t), "matrix-html-check.png")
	_ = os.Remove(checkShot)
	runChromium(t, browser, url+"#check=PING-01", "--window-size=1600,500", "--screenshot="+checkShot)
	if png, err := os.ReadFile(checkShot); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s: %v: want a PNG", checkShot, err)
	}
	t.Logf("screenshots of the merged matrix: %s, and of PING-01 across the runs: %s", shot, checkShot)
}
