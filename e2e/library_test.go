package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/mcp-conform/mcp-conform/conform"
	. "github.com/mcp-conform/mcp-conform/conform/matchers"
	"github.com/mcp-conform/mcp-conform/refserver"
	"github.com/mcp-conform/mcp-conform/reports"
	_ "github.com/mcp-conform/mcp-conform/suites" // registers every check
)

// TestLibraryGoSDK is the example of the Go library: a server author's go test runs the
// suite against their server (here the Go SDK fixture, over stdio) with conform.Test,
// which fails the test on any failure, and asserts more with the Gomega matchers. The
// verdicts are the CLI's: every one equals the golden file of the CLI run.
func TestLibraryGoSDK(t *testing.T) {
	gosdk, _ := realPaths(t)
	// The Go SDK's two known 2026-07-28 deviations (its golden file names the spec
	// text) are accepted the way a server author would: as a baseline.
	known := filepath.Join(t.TempDir(), "baseline.yml")
	writeFile(t, known, `expected-failures:
  - id: MOD-META-REQUIRED-01
    revisions: [2026-07-28]
    reason: go-sdk v1.8.0 serves a stdio request without _meta protocolVersion
  - id: MOD-VERSION-UNSUPPORTED-01
    revisions: [2026-07-28]
    reason: go-sdk v1.8.0 serves a stdio request for protocol version 1999-01-01
  - id: BASE-PARSE-01
    reason: go-sdk v1.8.0 exits on an unparseable stdin line, with no -32700
  - id: BASE-INVALID-REQ-01
    reason: go-sdk v1.8.0 exits on a request with jsonrpc "1.0", with no -32600
  - id: BASE-BATCH-R2-01
    revisions: [2025-03-26]
    reason: go-sdk v1.8.0 exits on a 2025-03-26 batch holding a notification
  - id: BASE-BATCH-R2-02
    revisions: [2025-03-26]
    reason: go-sdk v1.8.0 exits on a batch of notifications
  - id: STDIO-BATCH-R2-01
    revisions: [2025-03-26]
    reason: go-sdk v1.8.0 exits on a 2025-03-26 batch holding a notification
`)
	result := conform.Test(t, conform.Command(gosdk), conform.Baseline(known), conform.Configure(func(c *conform.Config) {
		for _, name := range []string{"echo", "add", "fail", "upper"} {
			c.Calls = append(c.Calls, conform.CallSpec{Name: name})
		}
		c.TriggerTool = &conform.CallSpec{Name: "toggle_tool"}
		c.Timeout = 10e9
	}))
	g := NewWithT(t)
	g.Expect(result).To(PassRevision("2025-11-25"))
	g.Expect(result).To(HaveVerdict("TOOLS-CALL-MALFORMED-01", "warn"))
	g.Expect(result).NotTo(HaveVerdict("TOOLS-CALL-01", "fail"))

	golden, err := readGolden(filepath.Join("testdata", "golden", "gosdk-stdio.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rev := range result.Report.Revisions {
		for _, c := range rev.Checks {
			n++
			want, ok := golden[goldenKey{c.ID, rev.Revision}]
			got := c.Status
			if got == reports.ExpectedFail {
				got = reports.Fail // baselined: the CLI run without the baseline fails it
			}
			if !ok || want.status != got {
				t.Errorf("library run: %s %s is %s, the CLI's golden verdict %q", c.ID, rev.Revision, c.Status, want.status)
			}
		}
	}
	if n != len(golden) {
		t.Errorf("library run judged %d verdicts, the golden file has %d", n, len(golden))
	}
}

// recorder is a TestingT that keeps what conform.Test reports.
type recorder struct{ errors, logs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *recorder) Fatalf(f string, args ...any) {
	r.errors = append(r.errors, "fatal: "+fmt.Sprintf(f, args...))
}
func (r *recorder) Logf(f string, args ...any) { r.logs = append(r.logs, fmt.Sprintf(f, args...)) }
func (r *recorder) failedOn(s string) bool     { return strings.Contains(strings.Join(r.errors, "\n"), s) }

// TestLibraryInProcess runs the library several times in one process against the
// reference server served in process: clean (passes), with a fault (fails the test
// naming the check, with the CLI's verdict), with that fault baselined (passes).
func TestLibraryInProcess(t *testing.T) {
	serve := func(faults ...string) conform.Target {
		opts := refserver.Options{Faults: map[string]bool{}}
		for _, f := range faults {
			opts.Faults[f] = true
		}
		return conform.Handler(refserver.NewStreamableHandler(opts))
	}
	rev := conform.Revisions("2025-11-25")

	dir := t.TempDir()
	clean := conform.Test(t, serve(), rev, conform.ReportDir(dir))
	NewWithT(t).Expect(clean).To(PassRevision("2025-11-25"))
	if written := loadReports(t, dir); written.Summary != clean.Report.Summary {
		t.Errorf("ReportDir: report.json summary %+v, the run's %+v", written.Summary, clean.Report.Summary)
	}

	var rec recorder
	faulty := conform.Test(&rec, serve("simple-text-rpc-error"), rev)
	if !rec.failedOn("FAIL 2025-11-25 TOOLS-CALL-01") || len(rec.errors) != 1 {
		t.Errorf("with the fault, want one failure naming TOOLS-CALL-01; got %q", rec.errors)
	}
	NewWithT(t).Expect(faulty).To(HaveVerdict("TOOLS-CALL-01", "fail"))
	NewWithT(t).Expect(faulty).NotTo(PassRevision("2025-11-25"))

	file := filepath.Join(t.TempDir(), "baseline.yml")
	writeFile(t, file, "expected-failures:\n  - id: TOOLS-CALL-01\n    revisions: [2025-11-25]\n    reason: the fault under test\n")
	accepted := conform.Test(t, serve("simple-text-rpc-error"), rev, conform.Baseline(file))
	NewWithT(t).Expect(accepted).To(HaveVerdict("TOOLS-CALL-01", "expected-fail"))

	rec = recorder{}
	conform.Test(&rec, serve(), rev, conform.Baseline(file))
	if !rec.failedOn("stale baseline entry") {
		t.Errorf("the baseline against the clean server should fail on its stale entry; got %q", rec.errors)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
