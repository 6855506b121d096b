package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/reports/ecosystem"
	"github.com/mcp-conform/mcp-conform/reports/reportstest"
)

// The ecosystem matrix as a maintainer of many servers meets it: twenty servers in
// one servers.yaml — the real servers the other tests run, and the reference server
// clean, in each era and with faults — one command, one page; and the same page
// from four shards of that file, merged.

// ecosystemTimeout bounds a many-target run of the twenty (and each shard).
const ecosystemTimeout = 6 * time.Minute

// ecosystemJobs is --jobs for the twenty: the machine has two cores, shared.
const ecosystemJobs = 2

// ecosystemFlags are the command line's flags for every target: generous bounds on a
// loaded machine (the targets' start-up is not what is judged), and a run timeout
// that bounds a stuck server to minutes.
var ecosystemFlags = []string{"--timeout", "10s", "--start-timeout", "60s", "--run-timeout", "3m"}

// ecosystemEntry is one entry of servers.yaml: a name and single-run flags, as
// --flag value pairs.
type ecosystemEntry struct {
	name string
	args []string
}

// referenceFaults are the reference server's faults among the twenty, each over
// stdio, with a check it makes fail.
var referenceFaults = []struct{ fault, check string }{
	{"ping-error", "PING-01"},
	{"simple-text-rpc-error", "TOOLS-CALL-01"},
	{"id-as-string", "BASE-RESP-ID-01"},
	{"error-without-message", "BASE-ERR-SHAPE-01"},
	{"tools-cap-missing", "TOOLS-CAP-01"},
	{"invalid-utf8", "BASE-UTF8-01"},
	{"cursor-loop", "PAG-NEXTCURSOR-01"},
	{"text-not-string", "CONTENT-TEXT-01"},
	{"jsonrpc-version-one", "BASE-JSONRPC-VERSION-01"},
}

// twentyTargets are the twenty entries: the six real servers (the Go SDK, mcp-go and
// server-everything, each over stdio and Streamable HTTP, with the flags
// TestRealServers gives them), the reference server over stdio and HTTP, legacy-only,
// modern-only and with only its two oldest revisions, and nine of its faults. HTTP
// servers get fresh ports at each call.
func twentyTargets(t *testing.T) []ecosystemEntry {
	t.Helper()
	gosdk, npmDir := realPaths(t)
	var out []ecosystemEntry
	for _, srv := range realServers(gosdk, npmDir) {
		if strings.HasSuffix(srv.name, "-auth") {
			// The protected servers (issue 35) carry a token header; the twenty
			// are the unprotected real servers and the reference server's runs.
			continue
		}
		out = append(out, ecosystemEntry{srv.name, srv.args(t)})
	}
	ref := shQuote(bin) + " fixture"
	port := freePort(t)
	out = append(out,
		ecosystemEntry{"ref-stdio", []string{"--target", ref}},
		ecosystemEntry{"ref-http", []string{"--target", fmt.Sprintf("%s --transport http --addr 127.0.0.1:%d", ref, port), "--url", fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}},
		ecosystemEntry{"ref-legacy", []string{"--target", ref + " --era legacy"}},
		ecosystemEntry{"ref-modern", []string{"--target", ref + " --era modern"}},
		ecosystemEntry{"ref-oldest-two", []string{"--target", ref + " --era legacy --revisions 2024-11-05,2025-03-26"}},
	)
	for _, f := range referenceFaults {
		out = append(out, ecosystemEntry{"ref-" + f.fault, []string{"--target", ref + " --fault " + f.fault}})
	}
	if len(out) != 20 {
		t.Fatalf("%d entries, want 20", len(out))
	}
	return out
}

// entriesYAML writes entries as servers.yaml: each flag a key, a repeated flag a list.
func entriesYAML(t *testing.T, entries []ecosystemEntry) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("targets:\n")
	for _, e := range entries {
		fmt.Fprintf(&b, "  - name: %s\n", e.name)
		var keys []string
		values := map[string][]string{}
		if len(e.args)%2 != 0 {
			t.Fatalf("%s: args %q are not --flag value pairs", e.name, e.args)
		}
		for i := 0; i < len(e.args); i += 2 {
			k := strings.TrimPrefix(e.args[i], "--")
			if _, ok := values[k]; !ok {
				keys = append(keys, k)
			}
			values[k] = append(values[k], e.args[i+1])
		}
		for _, k := range keys {
			// A JSON string is a YAML string.
			quoted := make([]string, len(values[k]))
			for i, v := range values[k] {
				q, _ := json.Marshal(v)
				quoted[i] = string(q)
			}
			if len(quoted) == 1 {
				fmt.Fprintf(&b, "    %s: %s\n", k, quoted[0])
			} else {
				fmt.Fprintf(&b, "    %s: [%s]\n", k, strings.Join(quoted, ", "))
			}
		}
	}
	return b.String()
}

// manyTargetRun runs mcp-conform with args in dir, bounded by ecosystemTimeout.
func manyTargetRun(t *testing.T, dir string, args ...string) *cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ecosystemTimeout)
	defer cancel()
	cmd := command(ctx, args...)
	cmd.Dir = dir
	r := &cliRun{args: args}
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r.elapsed = time.Since(start)
	r.stdout, r.stderr = stdout.String(), stderr.String()
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil || (err != nil && r.code < 0) {
		t.Fatalf("%v (after %s)\n%s", err, r.elapsed, r)
	}
	return r
}

// readMatrix reads and validates dir's matrix.json, and checks that matrix.md and
// matrix.html are there.
func readMatrix(t *testing.T, dir string) *ecosystem.Matrix {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ecosystem.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := reportstest.ValidateMatrix(data); err != nil {
		t.Fatal(err)
	}
	m, err := ecosystem.ReadJSON(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ecosystem.MarkdownFile, ecosystem.HTMLFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	return m
}

// twentyRun is the one run of the twenty that both tests read.
var twentyRun struct {
	once sync.Once
	dir  string
	run  *cliRun
	// fail or skip say why there is no run: the first test to ask stopped (failed,
	// or skipped for want of the real servers), and the other must do the same.
	fail, skip string
}

// runTwenty runs the twenty targets once per test binary, in a directory under the
// binary's own (which testMain removes), and returns the matrix's directory.
func runTwenty(t *testing.T) (string, *cliRun) {
	t.Helper()
	twentyRun.once.Do(func() {
		// Set until the step that may stop this goroutine (t.Skip, t.Fatal) is past.
		twentyRun.skip = "the real servers are not installed (make real-servers)"
		entries := twentyTargets(t)
		twentyRun.skip = ""
		twentyRun.fail = "the run of the twenty targets failed: see the log of the first test that asked for it"
		dir := filepath.Join(filepath.Dir(bin), "twenty")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "servers.yaml"), []byte(entriesYAML(t, entries)), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--targets", "servers.yaml", "--jobs", fmt.Sprint(ecosystemJobs)}, ecosystemFlags...)
		twentyRun.run = manyTargetRun(t, dir, args...)
		twentyRun.dir = filepath.Join(dir, "mcp-conform-matrix")
		twentyRun.fail = ""
	})
	switch {
	case twentyRun.fail != "":
		t.Fatal(twentyRun.fail)
	case twentyRun.skip != "":
		if os.Getenv("MCPCONFORM_REAL") == "1" {
			t.Fatal(twentyRun.skip)
		}
		t.Skip(twentyRun.skip)
	}
	return twentyRun.dir, twentyRun.run
}

// TestEcosystemTwentyTargets: a maintainer with twenty servers writes servers.yaml,
// runs one command and opens one page that shows which server supports which
// revision, sorted by how conformant they are.
func TestEcosystemTwentyTargets(t *testing.T) {
	t.Parallel() // long: it overlaps the other long tests (make test-e2e: -parallel)
	dir, r := runTwenty(t)
	t.Logf("20 targets, --jobs %d: %s\n%s", ecosystemJobs, r.elapsed.Round(time.Millisecond), r.stdout)
	// The faulty reference servers fail their gate, so the run does.
	wantCode(t, r, 1)
	if n := strings.Count(r.stdout, "/20] "); n != 20 {
		t.Errorf("%d progress lines, want one per target:\n%s", n, r.stdout)
	}
	m := readMatrix(t, dir)
	if len(m.Rows) != 20 || len(m.Skipped) != 0 {
		t.Fatalf("%d rows, skipped %v; want 20 rows\n%s", len(m.Rows), m.Skipped, r)
	}
	if !slices.Equal(m.Revisions, allRevisions) {
		t.Errorf("columns %q, want %q", m.Revisions, allRevisions)
	}
	rows := map[string]*ecosystem.Row{}
	for i := range m.Rows {
		row := &m.Rows[i]
		rows[row.Name] = row
		if row.Rank != i+1 {
			t.Errorf("%s: rank %d at row %d", row.Name, row.Rank, i+1)
		}
		// Sorted by conformance.
		if i > 0 && m.Rows[i-1].Conformance != nil && row.Conformance != nil && *row.Conformance > *m.Rows[i-1].Conformance {
			t.Errorf("%s (%.4f) ranks below %s (%.4f)", row.Name, *row.Conformance, m.Rows[i-1].Name, *m.Rows[i-1].Conformance)
		}
		checkRowAgainstReport(t, dir, row)
		// The line that ends the run names each target that failed its gate.
		if failed := row.ExitCode != 0; failed != strings.Contains(lastLine(r.stdout), row.Name+" (exit ") {
			t.Errorf("%s exited %d; the last line says otherwise: %s", row.Name, row.ExitCode, lastLine(r.stdout))
		}
	}
	// Which server supports which revision.
	supports := func(name string, want ...string) {
		t.Helper()
		row, ok := rows[name]
		if !ok {
			t.Errorf("no row %s", name)
			return
		}
		var got []string
		for _, c := range row.Cells {
			if c.State == ecosystem.StateNegotiated {
				got = append(got, c.Revision)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s supports %q, want %q", name, got, want)
		}
	}
	supports("ref-stdio", allRevisions...)
	supports("ref-http", allRevisions...)
	supports("ref-legacy", allRevisions[:4]...)
	supports("ref-modern", allRevisions[4])
	supports("ref-oldest-two", allRevisions[:2]...)
	if row := rows["ref-stdio"]; row != nil && (row.ExitCode != 0 || row.Conformance == nil || *row.Conformance != 1 || row.Rank > 5) {
		t.Errorf("the clean reference server: exit %d, conformance %s, rank %d; want 0, 100%%, among the first", row.ExitCode, ecosystem.Percent(row.Conformance), row.Rank)
	}
	for _, name := range []string{"gosdk-stdio", "gosdk-http", "mcpgo-stdio", "mcpgo-http", "everything-stdio", "everything-http"} {
		if row := rows[name]; row != nil && row.Supported == 0 {
			t.Errorf("%s supports no revision:\n%+v", name, row.Cells)
		}
	}
	// A check's row across the servers: each fault fails its check on its server
	// and nowhere among the clean reference servers.
	for _, f := range referenceFaults {
		line := checkLine(t, m, f.check)
		if line == nil {
			continue
		}
		if !slices.Contains(line["ref-"+f.fault], reports.Fail) {
			t.Errorf("%s on ref-%s: %q, want a fail", f.check, f.fault, line["ref-"+f.fault])
		}
		for _, clean := range []string{"ref-stdio", "ref-http"} {
			if slices.Contains(line[clean], reports.Fail) {
				t.Errorf("%s fails on %s: %q", f.check, clean, line[clean])
			}
		}
		if row := rows["ref-"+f.fault]; row != nil && row.ExitCode != 1 {
			t.Errorf("ref-%s exited %d, want 1", f.fault, row.ExitCode)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, ecosystem.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range m.Rows {
		if !strings.Contains(string(page), `href="`+row.HTML+`"`) {
			t.Errorf("matrix.html does not link %s to %s", row.Name, row.HTML)
		}
	}
}

// lastLine is s's last non-empty line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// checkLine is a check's verdicts across the rows, by row name.
func checkLine(t *testing.T, m *ecosystem.Matrix, id string) map[string][]reports.Status {
	t.Helper()
	i := slices.IndexFunc(m.Checks, func(c ecosystem.Check) bool { return c.ID == id })
	if i < 0 {
		t.Errorf("the matrix has no check %s", id)
		return nil
	}
	out := map[string][]reports.Status{}
	for ri, vs := range m.Checks[i].Verdicts {
		for _, v := range vs {
			out[m.Rows[ri].Name] = append(out[m.Rows[ri].Name], reports.Status(v))
		}
	}
	return out
}

// checkRowAgainstReport checks a row against the report.json it links: the same
// columns negotiated, the same counts, and a report.html beside it.
func checkRowAgainstReport(t *testing.T, dir string, row *ecosystem.Row) {
	t.Helper()
	rep := loadReports(t, filepath.Dir(filepath.Join(dir, filepath.FromSlash(row.Report))))
	if rep.ExitCode != row.ExitCode {
		t.Errorf("%s: exit %d, report.json says %d", row.Name, row.ExitCode, rep.ExitCode)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(row.HTML))); err != nil || row.HTML == "" {
		t.Errorf("%s: report.html %q: %v", row.Name, row.HTML, err)
	}
	var total reports.Summary
	for _, col := range rep.Revisions {
		i := slices.IndexFunc(row.Cells, func(c ecosystem.Cell) bool { return c.Revision == col.Revision })
		if i < 0 {
			t.Errorf("%s: no cell for %s", row.Name, col.Revision)
			continue
		}
		c := row.Cells[i]
		var s reports.Summary
		for _, ch := range col.Checks {
			s.Add(ch.Status)
			total.Add(ch.Status)
		}
		if c.Negotiated != col.Negotiated || c.Summary != s {
			t.Errorf("%s @ %s: cell %+v, report.json negotiated %q with %+v", row.Name, col.Revision, c, col.Negotiated, s)
		}
	}
	if total != row.Summary {
		t.Errorf("%s: summary %+v, report.json's verdicts %+v", row.Name, row.Summary, total)
	}
}

// TestEcosystemShardsMerge: the same page comes out of four CI shards merged. The
// twenty entries are run again as four shards of the same servers.yaml, each into
// its own directory as its CI job would, and `mcp-conform merge` of the four gives
// the matrix of the one run: the same rows in the same order, the same columns,
// the same negotiated versions and counts, the same verdicts of every check — but
// for a server whose own verdicts differ between its two runs, which is named and
// left out (at most two of the twenty).
func TestEcosystemShardsMerge(t *testing.T) {
	t.Parallel() // long: it overlaps the other long tests (make test-e2e: -parallel)
	oneDir, _ := runTwenty(t)
	one := readMatrix(t, oneDir)
	work := t.TempDir()
	// Fresh ports for the HTTP servers; the same entries in the same order.
	if err := os.WriteFile(filepath.Join(work, "servers.yaml"), []byte(entriesYAML(t, twentyTargets(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for k := 1; k <= 4; k++ {
		args := append([]string{"--targets", "servers.yaml", "--shard", fmt.Sprintf("%d/4", k), "--report-dir", fmt.Sprintf("shard-%d", k), "--jobs", fmt.Sprint(ecosystemJobs)}, ecosystemFlags...)
		r := manyTargetRun(t, work, args...)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("shard %d: exit %d\n%s", k, r.code, r)
		}
		shard := readMatrix(t, filepath.Join(work, fmt.Sprintf("shard-%d", k)))
		if len(shard.Rows) != 5 {
			t.Errorf("shard %d has %d rows, want 5", k, len(shard.Rows))
		}
		for _, row := range shard.Rows {
			seen[row.Name]++
		}
	}
	for _, row := range one.Rows {
		if seen[row.Name] != 1 {
			t.Errorf("%s is in %d shards, want 1", row.Name, seen[row.Name])
		}
	}
	r := manyTargetRun(t, work, "merge", "shard-1", "shard-2", "shard-3", "shard-4")
	wantCode(t, r, 0)
	merged := readMatrix(t, filepath.Join(work, "mcp-conform-matrix"))
	for _, row := range merged.Rows {
		if _, err := os.Stat(filepath.Join(work, "mcp-conform-matrix", filepath.FromSlash(row.HTML))); err != nil || !strings.HasPrefix(row.HTML, "../shard-") {
			t.Errorf("%s links %q: %v", row.Name, row.HTML, err)
		}
	}
	// The two runs of a server may differ where one of its verdicts is unstable (a
	// fault of the suite or of the server, not of sharding or merging: the
	// stability tests hunt those). Such a server's row is left out of the
	// comparison and named; every other row must be the same.
	unstable := map[string]string{}
	for _, row := range one.Rows {
		i := slices.IndexFunc(merged.Rows, func(r ecosystem.Row) bool { return r.Name == row.Name })
		if i < 0 {
			t.Errorf("%s is missing from the merged matrix", row.Name)
			continue
		}
		a := reportVerdicts(t, filepath.Join(oneDir, filepath.FromSlash(row.Report)))
		b := reportVerdicts(t, filepath.Join(work, "mcp-conform-matrix", filepath.FromSlash(merged.Rows[i].Report)))
		if d := lineDiff(a, b); d != "" {
			unstable[row.Name] = d
		}
	}
	for name, d := range unstable {
		t.Logf("%s gave other verdicts in its two runs, left out of the comparison:\n%s", name, d)
	}
	if len(unstable) > 2 {
		t.Errorf("%d of the 20 servers gave other verdicts in their two runs: more than unstable verdicts explain", len(unstable))
	}
	if d := lineDiff(matrixShape(one, unstable), matrixShape(merged, unstable)); d != "" {
		t.Errorf("the four shards merged differ from the one run (- one run, + merged):\n%s", d)
	}
}

// reportVerdicts is every verdict of a report.json, a line each.
func reportVerdicts(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := reports.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"exit " + fmt.Sprint(rep.ExitCode)}
	for _, col := range rep.Revisions {
		out = append(out, fmt.Sprintf("%s negotiated %q", col.Revision, col.Negotiated))
		for _, c := range col.Checks {
			out = append(out, fmt.Sprintf("%s %s %s", col.Revision, c.ID, c.Status))
		}
	}
	return out
}

// lineDiff lists the lines only a has (-) and only b has (+), or "" when none.
func lineDiff(a, b []string) string {
	var d []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			d = append(d, "  - "+l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			d = append(d, "  + "+l)
		}
	}
	return strings.Join(d, "\n")
}

// matrixShape is what two matrices of the same servers must share, whenever and
// wherever they ran: the rows in order with their exit code, conformance, summary
// and cells, and every check's verdicts; not the times, ports or paths. The rows
// named in leave are left out (their place in the order too).
func matrixShape(m *ecosystem.Matrix, leave map[string]string) []string {
	out := []string{"columns " + strings.Join(m.Revisions, " ")}
	n := 0
	for _, r := range m.Rows {
		if _, ok := leave[r.Name]; ok {
			continue
		}
		n++
		line := fmt.Sprintf("row %d: %s exit %d %s supported %d %+v |", n, r.Name, r.ExitCode, ecosystem.Percent(r.Conformance), r.Supported, r.Summary)
		for _, c := range r.Cells {
			line += fmt.Sprintf(" %s %s %s %+v |", c.Revision, c.State, c.Negotiated, c.Summary)
		}
		out = append(out, line)
	}
	for _, c := range m.Checks {
		var vs []string
		for ri, row := range c.Verdicts {
			if _, ok := leave[m.Rows[ri].Name]; ok {
				continue
			}
			var cells []string
			for _, v := range row {
				cells = append(cells, string(v))
			}
			vs = append(vs, m.Rows[ri].Name+"="+strings.Join(cells, ","))
		}
		out = append(out, c.ID+": "+strings.Join(vs, " "))
	}
	return out
}
