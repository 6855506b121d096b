package refserver

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-conform/mcp-conform/internal/wire"
)

// The modern faults are a catalogue of their own: well-formed, disjoint from the
// legacy catalogue, and accepted by Options.Faults.
func TestModernFaultCatalogue(t *testing.T) {
	legacy := map[string]bool{}
	for _, f := range faultCatalogue {
		legacy[f.Name] = true
	}
	seen := map[string]bool{}
	for _, f := range ModernFaults() {
		if !faultNamePattern.MatchString(f.Name) || !strings.HasPrefix(f.Name, "r5-") {
			t.Errorf("fault name %q", f.Name)
		}
		if legacy[f.Name] || seen[f.Name] {
			t.Errorf("fault %s is listed twice", f.Name)
		}
		seen[f.Name] = true
		if len(f.Targets) == 0 || f.Description == "" || strings.ContainsAny(f.Description, "\r\n") {
			t.Errorf("fault %s: targets %v, description %q", f.Name, f.Targets, f.Description)
		}
		for _, id := range f.Targets {
			if !checkIDPattern.MatchString(id) {
				t.Errorf("fault %s: %q is not a check ID", f.Name, id)
			}
		}
		if _, err := newConfig(Options{Faults: map[string]bool{f.Name: true}}); err != nil {
			t.Errorf("fault %s is refused: %v", f.Name, err)
		}
	}
	fs := ModernFaults()
	fs[0].Targets[0] = "CHANGED-01"
	if ModernFaults()[0].Targets[0] == "CHANGED-01" {
		t.Error("ModernFaults shares its slices with the catalogue")
	}
}

// modernTranscript drives a modern-only Streamable HTTP server through every R5
// behaviour a fault can break and returns what it answered, one line per exchange
// (session ids reduced to their presence).
func modernTranscript(t *testing.T, opts Options) string {
	opts.Era = EraModern
	c := dialModernHTTP(t, opts).(*modernHTTP)
	c.noAccel = opts.Faults[faultR5NoXAccel]
	var out []string
	n := int64(0)
	post := func(method string, p map[string]any, edit func(http.Header)) {
		n++
		b, _ := wire.EncodeRequest(wire.NumberID(n), method, p)
		h := standardHeaders(method, p)
		if edit != nil {
			edit(h)
		}
		status, header, msgs := c.post(t, context.Background(), h, b)
		line := fmt.Sprintf("%s %d session=%v accel=%q", method, status, header.Get(headerSessionID) != "", header.Get("X-Accel-Buffering"))
		for _, m := range msgs {
			line += " " + string(m)
		}
		out = append(out, line)
	}
	without := modernParams(nil, nil)
	delete(without["_meta"].(map[string]any), metaClientCaps)
	old := modernParams(nil, nil)
	old["_meta"].(map[string]any)[metaProtocolVersion] = "1999-01-01"
	elicit := map[string]any{"elicitation": map[string]any{}}

	post("server/discover", modernParams(nil, nil), nil)
	post("tools/list", modernParams(nil, nil), nil)
	post("tools/list", modernParams(nil, map[string]any{"cursor": ""}), nil)                  // page 2 ("" is a cursor)
	post("tools/list", modernParams(nil, nil), nil)                                           // a second listing
	post("tools/list", modernParams(nil, map[string]any{"cursor": encodeCursor(30, 0)}), nil) // the modern-only tools
	post("tools/list", without, nil)
	post("tools/list", old, func(h http.Header) { h.Set(headerProtocolVersion, "1999-01-01") })
	post("tools/call", modernParams(nil, map[string]any{"name": "test_requires_elicitation"}), nil)
	post("tools/call", modernParams(nil, map[string]any{"name": "test_structured_array"}), nil)
	post("tools/call", modernParams(nil, map[string]any{"name": "test_tool_with_logging"}), nil) // no logLevel: no log
	post("tools/call", modernParams(nil, map[string]any{"name": "test_elicitation"}), nil)
	post("tools/call", modernParams(elicit, map[string]any{"name": "test_elicitation"}), nil)
	post("tools/call", modernParams(nil, map[string]any{"name": "test_requires_elicitation"}), nil)
	// The MRTR retries: answered, with a tampered state, without the answer, with an
	// answer that is no ElicitResult.
	state := (&toolCall{args: map[string]any{}, callParams: params{"name": mustMarshal("test_elicitation")}}).requestState()
	answer := map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}
	for _, retry := range []map[string]any{
		{"requestState": state, "inputResponses": map[string]any{inputKeyName: answer}},
		{"requestState": state + "-tampered", "inputResponses": map[string]any{inputKeyName: answer}},
		{"requestState": state},
		{"requestState": state, "inputResponses": map[string]any{inputKeyName: 12345}},
	} {
		retry["name"] = "test_elicitation"
		post("tools/call", modernParams(elicit, retry), nil)
	}
	post("ping", modernParams(nil, nil), nil)
	post("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}, nil)
	post("tools/call", modernParams(nil, map[string]any{"name": "test_simple_text"}), func(h http.Header) { h.Set(headerMcpMethod, "tools/list") })
	// r5-param-header-unchecked: test_header_param without its Mcp-Param-Region.
	post("tools/call", modernParams(nil, map[string]any{"name": "test_header_param", "arguments": map[string]any{"region": "us-west1"}}), nil)
	// The H5 header rules (r5-headers-optional, r5-name-base64-undecoded,
	// r5-unknown-method-200, r5-last-event-id-refused, r5-origin-unchecked).
	post("tools/list", modernParams(nil, nil), func(h http.Header) { h.Del(headerMcpMethod) })
	post("tools/call", modernParams(nil, map[string]any{"name": "test_simple_text"}), func(h http.Header) {
		h.Set(headerMcpName, b64Prefix+base64.StdEncoding.EncodeToString([]byte("test_simple_text"))+b64Suffix)
	})
	// r5-name-tools-call-only, r5-name-base64-tools-call-only: Mcp-Name on the other
	// named methods, missing and encoded.
	post("prompts/get", modernParams(nil, map[string]any{"name": "greeting", "arguments": map[string]any{"name": "Ada"}}), func(h http.Header) { h.Del(headerMcpName) })
	post("resources/read", modernParams(nil, map[string]any{"uri": "test://embedded/text"}), func(h http.Header) {
		h.Set(headerMcpName, b64Prefix+base64.StdEncoding.EncodeToString([]byte("test://embedded/text"))+b64Suffix)
	})
	// r5-prompt-input-undeclared: introduce_user without elicitation declared.
	post("prompts/get", modernParams(nil, map[string]any{"name": "introduce_user"}), nil)
	post("x_conformance/unknown", modernParams(nil, nil), nil)
	// r5-no-x-accel-buffering: a request whose progress makes its reply a stream.
	progress := modernParams(nil, map[string]any{"name": "test_tool_with_progress"})
	progress["_meta"].(map[string]any)["progressToken"] = "p1"
	post("tools/call", progress, nil)
	post("server/discover", modernParams(nil, nil), func(h http.Header) { h.Set("Last-Event-ID", "1") })
	post("server/discover", modernParams(nil, nil), func(h http.Header) { h.Set("Origin", "http://evil.invalid") })
	// r5-notification-200: an accepted notification is 202.
	nb, _ := wire.EncodeNotification("notifications/x_probe", nil)
	nh := http.Header{}
	nh.Set(headerProtocolVersion, "2026-07-28")
	if status, _, _ := c.post(t, context.Background(), nh, nb); status != 0 {
		out = append(out, fmt.Sprintf("notification %d", status))
	}

	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, c.url, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_ = resp.Body.Close()
		out = append(out, fmt.Sprintf("GET %d", resp.StatusCode))
	}
	if opts.Faults[faultR5PostRefused] {
		// No POST was served (each line above says 405): no subscription opens.
		_ = c.h.(interface{ Close() error }).Close()
		return strings.Join(out, "\n")
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := c.openListen(t, ctx, wire.StringID("sub"), map[string]any{"toolsListChanged": true})
	if !opts.Faults[faultR5ListenNoAck] {
		out = append(out, "listen "+string(recvFrom(t, events).Raw))
	}
	// A second subscription that asks for no tool changes.
	prompts := c.openListen(t, ctx, wire.StringID("prompts"), map[string]any{"promptsListChanged": true})
	if !opts.Faults[faultR5ListenNoAck] {
		out = append(out, "prompts "+string(recvFrom(t, prompts).Raw))
	}
	post("tools/call", modernParams(nil, map[string]any{"name": "test_trigger_tool_change"}), nil)
	// What each subscription is told of the change; a fault that withholds a
	// message is read as absent rather than waited for.
	if !opts.Faults[faultR5ListChangedSilent] {
		out = append(out, "listen "+string(recvFrom(t, events).Raw))
	}
	if opts.Faults[faultR5ListenUnfiltered] {
		out = append(out, "prompts "+string(recvFrom(t, prompts).Raw))
	}
	// The server ends the prompts subscription itself (r5-listen-end-silent): its
	// stream carries the completion result, read below.
	post("tools/call", modernParams(nil, map[string]any{"name": "test_end_subscription", "arguments": map[string]any{"subscriptionId": "prompts"}}), nil)
	// Over stdio, one id used again once its request was answered
	// (r5-answered-id-refused).
	discover, _ := wire.EncodeRequest(wire.NumberID(1), "server/discover", modernParams(nil, nil))
	out = append(out, runStdio(t, string(discover)+"\n"+string(discover)+"\n", opts)...)
	// Over stdio, test_slow cancelled in flight, then another request
	// (r5-progress-after-cancel). The progress test_slow sends as it starts is
	// dropped when the cancellation comes first: it is left out.
	slow := modernParams(nil, map[string]any{"name": "test_slow", "arguments": map[string]any{"ms": 5000}})
	slow["_meta"].(map[string]any)["progressToken"] = "slow"
	slowCall, _ := wire.EncodeRequest(wire.StringID("slow-1"), "tools/call", slow)
	cancelSlow, _ := wire.EncodeNotification("notifications/cancelled", map[string]any{"requestId": "slow-1"})
	last, _ := wire.EncodeRequest(wire.NumberID(2), "tools/call", modernParams(nil, map[string]any{"name": "test_last_cancellation"}))
	for _, line := range runStdio(t, string(slowCall)+"\n"+string(cancelSlow)+"\n"+string(last)+"\n", opts) {
		if !strings.Contains(line, `"0 of 5000 ms"`) {
			out = append(out, line)
		}
	}
	_ = c.h.(interface{ Close() error }).Close()
	for _, s := range []struct {
		name string
		ch   <-chan *wire.Message
	}{{"listen", events}, {"prompts", prompts}} {
		deadline := time.After(recvTimeout)
		for done := false; !done; {
			select {
			case m, ok := <-s.ch:
				if !ok {
					done = true
					break
				}
				out = append(out, s.name+" "+string(m.Raw))
			case <-deadline:
				t.Fatalf("the %s stream did not end at Close", s.name)
			}
		}
	}
	return strings.Join(out, "\n")
}

// Every modern fault changes what the server sends (the later modern checks will
// prove which verdicts it flips).
func TestEveryModernFaultIsObservable(t *testing.T) {
	clean := modernTranscript(t, Options{})
	for _, f := range ModernFaults() {
		t.Run(f.Name, func(t *testing.T) {
			got := modernTranscript(t, Options{Faults: map[string]bool{f.Name: true}})
			if got == clean {
				t.Errorf("the server answers the same with fault %s on as without it", f.Name)
			}
		})
	}
	// The clean transcript has what the faults take away.
	for _, want := range []string{`"resultType":"complete"`, metaServerInfo, `"ttlMs":60000`, `"input_required"`,
		`"code":-32021`, `"code":-32022`, `"code":-32020`, "GET 405", `"io.modelcontextprotocol/subscriptionId":"sub"`} {
		if !strings.Contains(clean, want) {
			t.Errorf("the clean transcript lacks %s:\n%s", want, clean)
		}
	}
	if strings.Contains(clean, "session=true") || slices.Contains(strings.Split(clean, "\n"), "") {
		t.Errorf("clean transcript:\n%s", clean)
	}
}

// Every modern fault bites in 2026-07-28, a revision the reference server serves;
// only one that takes the shared HTTP endpoint down (r5-post-refused) also takes the
// legacy columns served there.
func TestModernFaultRevisions(t *testing.T) {
	for _, f := range ModernFaults() {
		if !slices.Equal(f.Revisions, []string{r5}) && (f.Name != faultR5PostRefused || f.Revisions[0] != r5) {
			t.Errorf("fault %s: revisions %v", f.Name, f.Revisions)
		}
		if _, ok := (&config{modernRevs: modernRevisions(EraDual)}).modernRevision(f.Revisions[0]); !ok {
			t.Errorf("fault %s: %s is not served", f.Name, f.Revisions[0])
		}
	}
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) { r.failed = append(r.failed, fmt.Sprint(args...)) }
func (r *recorder) Helper()           {}

// The schema validation the modern tests apply is not vacuous: faults that break
// the 2026-07-28 schema (or send a request) make it complain.
func TestModernValidationCatchesFaults(t *testing.T) {
	caps := map[string]any{"elicitation": map[string]any{}}
	for _, tc := range []struct {
		fault, method string
		params        map[string]any
	}{
		{faultR5MissingResultType, "server/discover", modernParams(nil, nil)},
		{faultR5NoServerInfo, "tools/call", modernParams(nil, map[string]any{"name": "test_simple_text"})},
		{faultR5NoTTL, "tools/list", modernParams(nil, nil)},
		{faultR5ServerRequest, "tools/call", modernParams(caps, map[string]any{"name": "test_elicitation"})},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			c := dialModernStdio(t, Options{Faults: map[string]bool{tc.fault: true}}).(*modernStdio)
			rec := &recorder{TB: t}
			b, _ := wire.EncodeRequest(wire.NumberID(1), tc.method, tc.params)
			c.c.send(t, b)
			for {
				m := c.recv(t)
				validateModern(rec, tc.method, m)
				if m.IsResponse() {
					break
				}
			}
			if len(rec.failed) == 0 {
				t.Errorf("validation passed with fault %s on", tc.fault)
			}
		})
	}
}
