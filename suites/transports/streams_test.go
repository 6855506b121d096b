package transports

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/conform/conformtest"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/transport"
	"github.com/mcp-conform/mcp-conform/refserver"
	"github.com/mcp-conform/mcp-conform/reports"

	// PROG-TOKEN-01, whose probe makes the traffic the transcript checks judge.
	_ "github.com/mcp-conform/mcp-conform/suites/utilities"
)

// judgeStreams runs check id (with the checks in with, whose probes make the traffic
// a transcript check judges) at rev against the reference server over Streamable
// HTTP, with the faults on: the server whose streams the verdict tables script is
// the reference server, each fault breaking one stream rule.
func judgeStreams(t *testing.T, rev, id string, faults []string, with ...string) conform.Verdict {
	t.Helper()
	opts := refserver.Options{Faults: map[string]bool{}}
	for _, f := range faults {
		opts.Faults[f] = true
	}
	h := refserver.NewStreamableHandler(opts)
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.(io.Closer).Close()
	var checks []*conform.Check
	for _, cid := range append([]string{id}, with...) {
		c := conform.Lookup(cid)
		if c == nil {
			t.Fatalf("no check %s", cid)
		}
		checks = append(checks, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dial := func(ctx context.Context) (transport.Transport, error) {
		return transport.DialStreamableHTTP(ctx, transport.HTTPConfig{URL: srv.URL, Timeout: 2 * time.Second})
	}
	vs, err := conform.JudgeAll(ctx, conform.Config{Timeout: 2 * time.Second, KillGrace: 10 * time.Millisecond}, checks, revision.MustLookup(rev), dial)
	if err != nil {
		t.Fatalf("judge %s: %v", id, err)
	}
	return vs[0]
}

func TestStreamVerdicts(t *testing.T) {
	const (
		r2, r3, r4, r5 = "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"
		traffic        = "PROG-TOKEN-01" // its probe calls test_tool_with_progress
	)
	tests := []struct {
		name, rev, id string
		faults        []string
		want          reports.Status
		says          string
	}{
		{"GET stream offered", r3, "SHTTP-GET-01", nil, reports.Pass, "text/event-stream"},
		{"no response on GET", r3, "SHTTP-GET-NORESP-01", nil, reports.Pass, "none a response"},
		{"a response on GET", r3, "SHTTP-GET-NORESP-01", []string{"sh-response-on-get-stream"}, reports.Fail, "a response"},
		{"GET messages unrelated", r2, "SHTTP-GET-UNRELATED-01", nil, reports.Pass, "none tied"},
		{"progress on GET", r2, "SHTTP-GET-UNRELATED-01", []string{"sh-progress-on-get-stream"}, reports.Warn, "progress for the request"},
		{"one stream per message", r3, "SHTTP-NO-BROADCAST-01", nil, reports.Pass, "each once"},
		{"broadcast to every session", r3, "SHTTP-NO-BROADCAST-01", []string{"sh-stream-broadcast"}, reports.Fail, "other session's call"},
		{"response on its stream", r3, "SHTTP-POST-SSE-RESP-01", nil, reports.Pass, "each carrying its response"},
		{"response elsewhere", r3, "SHTTP-POST-SSE-RESP-01", []string{"sh-response-on-get-stream"}, reports.Warn, "came on the get stream"},
		{"progress of the request", r2, "SHTTP-POST-SSE-RELATED-01", nil, reports.Pass, "that request's token"},
		{"progress of no request", r2, "SHTTP-POST-SSE-RELATED-01", []string{"sh-foreign-progress"}, reports.Warn, "mcp-conform-fixture-foreign"},
		{"stream ends after response", r2, "SHTTP-POST-SSE-END-01", nil, reports.Pass, "ended after its response"},
		{"stream left open", r2, "SHTTP-POST-SSE-END-01", []string{"sh-stream-lingers"}, reports.Warn, "still open"},
		{"ids unique", r4, "SHTTP-EVENTID-01", nil, reports.Pass, "each once"},
		{"ids reused", r4, "SHTTP-EVENTID-01", []string{"sh-event-id-reused"}, reports.Fail, "already used"},
		{"streams primed", r4, "SHTTP-PRIME-01", nil, reports.Pass, "each primed"},
		{"streams not primed", r4, "SHTTP-PRIME-01", []string{"sh-no-priming"}, reports.Warn, "which carries data"},
		{"resume replays its stream", r3, "SHTTP-RESUME-01", nil, reports.Pass, "all of that stream"},
		{"resume replays every stream", r3, "SHTTP-RESUME-01", []string{"sh-resume-replays-all"}, reports.Fail, "another"},
		{"disconnect is no cancellation", r2, "SHTTP-DISCONNECT-01", nil, reports.Pass, "ran on"},
		{"disconnect cancels", r2, "SHTTP-DISCONNECT-01", []string{"sh-disconnect-cancels"}, reports.Warn, "cancelled it"},
		{"polling with retry", r4, "SHTTP-RETRY-01", nil, reports.Pass, "retry of 10 ms"},
		{"polling without retry", r4, "SHTTP-RETRY-01", []string{"sh-poll-without-retry"}, reports.Warn, "none with a retry field"},
		{"modern stream related", r5, "H5-SSE-RELATED-01", nil, reports.Pass, "each a notification of its request"},
		{"modern stream foreign progress", r5, "H5-SSE-RELATED-01", []string{"sh-foreign-progress"}, reports.Fail, "not the request's"},
		{"modern stream ends", r5, "H5-SSE-END-01", nil, reports.Pass, "ended after its response"},
		{"modern stream left open", r5, "H5-SSE-END-01", []string{"sh-stream-lingers"}, reports.Warn, "still open"},
		{"close cancels", r5, "H5-CANCEL-CLOSE-01", nil, reports.Pass, "was cancelled"},
		{"close does not cancel", r5, "H5-CANCEL-CLOSE-01", []string{"r5-close-not-cancel"}, reports.Fail, "still answers"},
		{"param headers checked", r5, "H5-PARAM-HEADER-01", nil, reports.Pass, "(base64)"},
		{"param headers unchecked", r5, "H5-PARAM-HEADER-01", []string{"r5-param-header-unchecked"}, reports.Fail, "no Mcp-Param-Region header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var with []string
			if c := conform.Lookup(tc.id); c != nil && c.Phase == conform.PhaseTranscript {
				with = []string{traffic}
			}
			v := judgeStreams(t, tc.rev, tc.id, tc.faults, with...)
			if v.Status != tc.want || !strings.Contains(v.Message, tc.says) {
				t.Errorf("%s = %s (%s), want %s mentioning %q", tc.id, v.Status, v.Message, tc.want, tc.says)
			}
		})
	}
}

// A task's progress on the stream of tasks/result for that task (2025-11-25: the
// reference server delivers a task's messages there, with the related-task _meta)
// is related to that request; PROG-TASKS-R4-01's probe makes the traffic.
func TestTaskProgressOnTaskResultStream(t *testing.T) {
	v := judgeStreams(t, "2025-11-25", "SHTTP-POST-SSE-RELATED-01", nil, "PROG-TASKS-R4-01")
	if v.Status != reports.Pass || !strings.Contains(v.Message, "that request's token") {
		t.Errorf("SHTTP-POST-SSE-RELATED-01 = %s (%s), want pass", v.Status, v.Message)
	}
	// The exemption is the task's alone: foreign progress beside it still warns.
	v = judgeStreams(t, "2025-11-25", "SHTTP-POST-SSE-RELATED-01", []string{"sh-foreign-progress"}, "PROG-TASKS-R4-01", "PROG-TOKEN-01")
	if v.Status != reports.Warn {
		t.Errorf("SHTTP-POST-SSE-RELATED-01 with sh-foreign-progress = %s (%s), want warn", v.Status, v.Message)
	}
}

// Over stdio the stream rules do not apply: each skips as not applicable.
func TestStreamChecksNotApplicableOnStdio(t *testing.T) {
	srv := conformtest.NewServer()
	n := 0
	for _, c := range conform.Checks() {
		home := strings.TrimPrefix(c.ID, "SHTTP-")
		if home == c.ID && !strings.HasPrefix(c.ID, "H5-SSE-") && !strings.HasPrefix(c.ID, "H5-CANCEL-") && !strings.HasPrefix(c.ID, "H5-PARAM-") {
			continue
		}
		for _, rev := range c.Revisions {
			if rev.Era == revision.Modern {
				continue // the modern stdio session is H5-*NotApplicableOnStdio's
			}
			n++
			v := conformtest.Judge(t, c.ID, rev.Name, srv)
			if v.Status != reports.Skip || v.Reason != reports.NotApplicable {
				t.Errorf("%s at %s over stdio = %s %s (%s), want skip not-applicable", c.ID, rev.Name, v.Status, v.Reason, v.Message)
			}
			break
		}
	}
	if n == 0 {
		t.Fatal("no stream check is registered")
	}
}
