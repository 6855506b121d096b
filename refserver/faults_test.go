package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/revision"
)

var (
	faultNamePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	checkIDPattern   = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*-[0-9]{2}$`)
)

func TestFaultCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Faults() {
		if !faultNamePattern.MatchString(f.Name) {
			t.Errorf("fault name %q is not lower-case words joined by hyphens", f.Name)
		}
		if seen[f.Name] {
			t.Errorf("fault %s is listed twice", f.Name)
		}
		seen[f.Name] = true
		if len(f.Targets) == 0 {
			t.Errorf("fault %s targets no check", f.Name)
		}
		for _, id := range append(slices.Clone(f.Targets), f.Masks...) {
			if !checkIDPattern.MatchString(id) {
				t.Errorf("fault %s: %q is not a check ID", f.Name, id)
			}
		}
		for _, id := range f.Masks {
			if slices.Contains(f.Targets, id) {
				t.Errorf("fault %s: %s is both a target and masked", f.Name, id)
			}
		}
		for _, name := range f.Revisions {
			// The reference server serves every legacy revision, and the modern ones
			// of its dual era.
			r, ok := revision.Lookup(name)
			served := r.Era == revision.Legacy || slices.ContainsFunc(modernRevisions(EraDual), func(m revision.Revision) bool { return m.Name == name })
			if !ok || !served {
				t.Errorf("fault %s: revision %q is not one the reference server serves", f.Name, name)
			}
		}
		if f.Transport != "" && f.Transport != httpOnly && f.Transport != transportLegacyHTTP && f.Transport != httpDual && f.Transport != transportSSE && f.Transport != authTransport {
			t.Errorf("fault %s: transport %q (want empty for stdio, %q, %q, %q or %q)", f.Name, f.Transport, httpOnly, transportLegacyHTTP, httpDual, transportSSE)
		}
		if f.Description == "" || strings.ContainsAny(f.Description, "\r\n") {
			t.Errorf("fault %s: the description must be one non-empty line: %q", f.Name, f.Description)
		}
	}
	for _, name := range definitionFaults {
		if !seen[name] {
			t.Errorf("definition fault %s is not in the catalogue", name)
		}
	}
	// Faults returns copies: changing them leaves the catalogue alone.
	fs := Faults()
	fs[0].Targets[0] = "CHANGED-01"
	if Faults()[0].Targets[0] == "CHANGED-01" {
		t.Error("Faults shares its slices with the catalogue")
	}
}

func TestNewFaultSet(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]bool
		want    []string
		wantErr string
	}{
		{name: "none", in: nil},
		{name: "one", in: map[string]bool{faultPingError: true}, want: []string{faultPingError}},
		{name: "switched off", in: map[string]bool{faultPingError: false}},
		{name: "unknown", in: map[string]bool{"no-such-fault": true, faultPingError: true}, wantErr: `unknown fault "no-such-fault"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := newFaultSet(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for name := range fs {
				got = append(got, name)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("faults on: %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := newConfig(Options{Faults: map[string]bool{"no-such-fault": true}}); err == nil {
		t.Error("newConfig accepted an unknown fault")
	}
}

func TestRunCLIFaults(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout []string // substrings
		wantStderr string
	}{
		{name: "list", args: []string{"--list-faults"}, wantCode: 0,
			wantStdout: []string{"FAULT", faultPingError + " ", "PING-01", faultInitRefused + " ", "LIFE-INIT-01", "2024-11-05"}},
		{name: "unknown fault", args: []string{"--fault", "no-such-fault"}, wantCode: 2, wantStderr: `unknown fault "no-such-fault"`},
		{name: "empty fault", args: []string{"--fault", ""}, wantCode: 2, wantStderr: "empty fault name"},
		{name: "fault on", args: []string{"--fault", faultPingError, "--fault", faultUnknownMethodIntern},
			stdin:    initLine + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n",
			wantCode: 0, wantStdout: []string{`"id":2`, `"code":-32603`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := RunCLI(context.Background(), tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.wantCode, stderr.String())
			}
			for _, want := range tc.wantStdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			if tc.wantStderr != "" && !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.wantStderr)
			}
		})
	}
	var stdout bytes.Buffer
	RunCLI(context.Background(), []string{"--list-faults"}, strings.NewReader(""), &stdout, &bytes.Buffer{})
	if got, want := strings.Count(stdout.String(), "\n"), len(Faults())+1; got != want {
		t.Errorf("--list-faults printed %d lines, want a header and one line per fault (%d)", got, want)
	}
}

// probeScript is a fixed client session that touches every behaviour a fault can
// break: the handshake, the tools/list walk (cursors are deterministic), every
// non-blocking fixture tool, the error probes, ping and an unknown method.
func probeScript(requested string) string {
	var lines []string
	id := 0
	req := func(method string, params any) {
		id++
		m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
		if params != nil {
			m["params"] = params
		}
		lines = append(lines, string(mustMarshal(m)))
	}
	req("ping", nil) // before initialize
	req("initialize", map[string]any{"protocolVersion": requested, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	lines = append(lines, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req("tools/list", nil)
	for off := DefaultPageSize; off < 40; off += DefaultPageSize {
		req("tools/list", map[string]any{"cursor": encodeCursor(off, 0)})
	}
	req("tools/list", map[string]any{"cursor": encodeCursor(DefaultPageSize, 0)}) // again
	req("tools/list", map[string]any{"cursor": ""})
	req("tools/list", map[string]any{"cursor": "x-invalid"})
	req("tools/list", map[string]any{"cursor": 5})
	lines = append(lines, `{"jsonrpc":"2.0","id":"raw","method":"tools/list","params":"abc"}`)
	// Resources (resources.go): the paged list, an invalid cursor, the templates,
	// text and blob reads, an unknown URI, a subscription.
	req("resources/list", nil)
	for off := DefaultPageSize; off < 15; off += DefaultPageSize {
		req("resources/list", map[string]any{"cursor": encodeCursor(off, 0)})
	}
	req("resources/list", map[string]any{"cursor": "x-invalid"})
	req("resources/templates/list", nil)
	for _, uri := range []string{uriEmbeddedText, uriEmbeddedBlob, "test://nope"} {
		req("resources/read", map[string]any{"uri": uri})
	}
	req("resources/subscribe", map[string]any{"uri": uriEmbeddedText})
	req("resources/unsubscribe", map[string]any{"uri": uriEmbeddedText})
	for i, name := range []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_tool_with_progress", "test_error_handling", "test_resource_link",
		"test_annotated_content", "test_structured_output", "test_trigger_tool_change"} {
		for _, token := range []any{100 + i, fmt.Sprintf("tok-%d", i)} {
			req("tools/call", map[string]any{"name": name, "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": token}})
		}
	}
	// Logging: every level at debug, then the invalid and refused levels, then the
	// levels that pass error.
	logCall := map[string]any{"name": "test_tool_with_logging", "arguments": map[string]any{}}
	req("logging/setLevel", map[string]any{"level": "debug"})
	req("tools/call", logCall)
	for _, level := range []string{"notice", "verbose", "error"} {
		req("logging/setLevel", map[string]any{"level": level})
	}
	req("tools/call", logCall)
	req("tools/call", map[string]any{"name": "x_no_such_tool"})
	req("tools/call", map[string]any{"name": "TEST_SIMPLE_TEXT"})
	req("tools/call", map[string]any{})
	req("tools/call", map[string]any{"name": "test_echo", "arguments": map[string]any{}})
	// A task for a tool without task support (-32601 in 2025-11-25).
	req("tools/call", map[string]any{"name": "test_simple_text", "arguments": map[string]any{}, "task": map[string]any{}})
	// Cancellation: test_slow cancelled in flight (no reply unless the fault ignores
	// it), a cancellation naming no request, then the diagnostic tool.
	lines = append(lines, `{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"test_slow","arguments":{"ms":300},"_meta":{"progressToken":"slow-tok"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x-unknown"}}`)
	req("tools/call", map[string]any{"name": "test_last_cancellation", "arguments": map[string]any{}})
	req("ping", nil)
	req("x/unknown", nil)
	// Prompts and completion (prompts.go, completion.go): both pages, an invalid
	// cursor, every prompt, an unknown one, a missing argument, completions.
	req("prompts/list", nil)
	req("prompts/list", map[string]any{"cursor": "x_conformance_invalid_cursor"})
	req("prompts/get", map[string]any{"name": "media_showcase"})
	req("prompts/get", map[string]any{"name": "code_review", "arguments": map[string]any{"language": "go"}})
	req("prompts/get", map[string]any{"name": "x_unknown"})
	req("prompts/get", map[string]any{"name": "greeting"})
	req("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "code_review"}, "argument": map[string]any{"name": "language", "value": ""}})
	req("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "x_unknown"}, "argument": map[string]any{"name": "x", "value": ""}})
	req("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "code_review"}, "argument": map[string]any{"name": "style", "value": ""},
		"context": map[string]any{"arguments": map[string]any{"language": "go"}}})
	// The odd input of the BASE checks: unparseable JSON, invalid requests, a null
	// id, an unknown notification, batches.
	lines = append(lines, `{"jsonrpc":"2.0","id":]`,
		`{"jsonrpc":"1.0","id":901,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/x_conformance_probe"}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		`[{"jsonrpc":"2.0","id":902,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x_conformance_probe"}]`)
	return strings.Join(lines, "\n") + "\n"
}

// TestEveryFaultIsObservable runs the probe script against the clean server and
// against each fault: every fault must change what the server writes in at least one
// revision (or for an unknown requested version). The e2e self-test proves which
// checks each fault flips; this catches a fault whose branch is never reached.
func TestEveryFaultIsObservable(t *testing.T) {
	requests := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "1999-01-01"}
	transcript := func(opts Options) string {
		var parts []string
		for _, v := range requests {
			parts = append(parts, strings.Join(runStdio(t, probeScript(v), opts), "\n"))
		}
		return strings.Join(parts, "\n---\n")
	}
	clean := transcript(Options{})
	for _, line := range strings.Split(clean, "\n") {
		if line != "---" && !json.Valid([]byte(line)) {
			t.Fatalf("the clean server wrote a line that is not JSON: %q", line)
		}
	}
	for _, f := range Faults() {
		if isModernFault(f.Name) || f.Transport == httpDual {
			continue // a stdio script never reaches them: TestEveryModernFaultIsObservable, TestEveryStreamFaultIsObservable
		}
		if f.Name == faultStdinEOFIgnored {
			continue // it changes when the server exits, not what it writes: TestStdinEOFIgnored
		}
		if taskFaults[f.Name] {
			continue // a fixed script cannot name a task: TestEveryTaskFaultIsObservable
		}
		if isTransportFault(f) {
			continue // stdio never reaches them: TestEveryLegacyHTTPFaultIsObservable
		}
		if f.Transport == authTransport {
			continue // only a protected HTTP server has them: TestEveryAuthFaultIsObservable
		}
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel() // each fault's servers are its own: they use both cores
			if got := transcript(Options{Faults: map[string]bool{f.Name: true}}); got == clean {
				t.Errorf("the server writes the same bytes with fault %s on as without it", f.Name)
			}
		})
	}
}

// TestStdinEOFIgnored: with fault stdin-eof-ignored, ServeStdio does not return at
// stdin's EOF, only once its context ends (SIGTERM, for the fixture command); the
// clean server returns at EOF (runStdio).
func TestStdinEOFIgnored(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- ServeStdio(ctx, strings.NewReader(probeScript("2025-06-18")), &out, Options{Faults: map[string]bool{faultStdinEOFIgnored: true}})
	}()
	select {
	case err := <-done:
		t.Fatalf("ServeStdio returned at EOF (%v) with %s on", err, faultStdinEOFIgnored)
	case <-time.After(eofGrace + 500*time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(recvTimeout):
		t.Fatal("ServeStdio did not return once its context ended")
	}
	if out.Len() == 0 {
		t.Error("the session wrote nothing: the probe script was not served")
	}
}
