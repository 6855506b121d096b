package reports

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestWriteHTML(t *testing.T) {
	r := fixture()
	at := time.Date(2026, 3, 1, 12, 30, 46, 0, time.UTC)
	fail := &r.Revisions[0].Checks[2]
	fail.Repro = "mcp-conform --target './server --flag <x>' --revision 2025-06-18 --label-filter id:TOOLS-CALL-UNKNOWN-01"
	fail.Exchange = &Exchange{Sessions: []ExchangeSession{{
		Session: "2025-06-18-03", Transport: "stdio", Requested: "2025-06-18", Negotiated: "2025-06-18",
		Messages: []ExchangeMessage{
			{Seq: 7, Dir: "send", At: at, Message: json.RawMessage(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}`)},
			{Seq: 8, Dir: "recv", At: at.Add(1500 * time.Microsecond), Source: "stdout",
				Message: json.RawMessage(`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"</pre><script>alert(1)</script>"}]}}`)},
			{Seq: 9, Dir: "recv", At: at.Add(2 * time.Millisecond), Raw: "not json <img src=x onerror=alert(2)>\x00", Problem: "not JSON"},
		},
		Omitted: 3,
	}}}
	r.Revisions[0].Checks = append(r.Revisions[0].Checks, CheckResult{ID: "ODD-01", Title: "odd status", Level: "must", Status: "expected-fail"},
		CheckResult{ID: "GARBAGE-01", Title: "garbage status", Level: "must", Status: "<b>"})
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()

	// Self-contained: a policy that forbids any fetch, one inline script and style,
	// no external reference of any kind.
	for _, want := range []string{`http-equiv="Content-Security-Policy" content="default-src 'none';`, "<!DOCTYPE html>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<script"); n != 1 {
		t.Errorf("%d <script> elements, want only the page's own", n)
	}
	for _, bad := range []string{"<link", "@import", "url(", "<iframe", "<img"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q: external asset or unescaped server text", bad)
		}
	}
	if m := regexp.MustCompile(`<[a-zA-Z][^>]*\s(src|srcset|poster|action)=`).FindString(page); m != "" {
		t.Errorf("an element loads something: %s", m)
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("link %q leaves the page", m[1])
		}
	}
	// Everything the server sent is escaped, and cleaned of NUL and invalid UTF-8.
	for _, want := range []string{"&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;", "not json &lt;img src=x onerror=alert(2)&gt;", "got &lt;result&gt; &amp;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped %q", want)
		}
	}
	if strings.ContainsRune(page, 0) || !strings.Contains(page, "\uFFFD\uFFFD bytes") {
		t.Errorf("server garbage not cleaned (NUL kept or invalid UTF-8 not replaced)")
	}
	// The matrix: every column with its negotiated version, every cell linked to its
	// details, which hold expected/actual, spec text, repro and exchange.
	for _, want := range []string{
		`<th class="rev">2025-06-18<small>negotiated 2025-06-18 · stdio</small><small>ref 1.0</small>`,
		`<th class="rev">2024-11-05<small>unsupported (answered 2025-03-26) · stdio</small>`,
		`<a class="st-fail" href="#d-2025-06-18-TOOLS-CALL-UNKNOWN-01"`,
		`<a class="st-warn" href="#d-2025-06-18-TOOLS-LIST-01"`,
		`<a class="st-skip" href="#d-2024-11-05-INIT-01" title="2024-11-05: skip (revision-unsupported)">SKIP</a>`,
		`<td class="cell absent" data-status="absent"`,
		`<details class="finding st-fail" id="d-2025-06-18-TOOLS-CALL-UNKNOWN-01" data-status="fail" data-group="" data-level="MUST" open>`,
		`<pre class="expected">error -32602</pre>`,
		`<pre class="actual">a result &lt;ok&gt; &amp; more</pre>`,
		`<blockquote class="source">tools: &#34;Servers MUST return -32602 for unknown tools&#34;</blockquote>`,
		`<pre class="cmd repro">mcp-conform --target &#39;./server --flag &lt;x&gt;&#39; --revision 2025-06-18`,
		`<caption>session 2025-06-18-03 (stdio, asked for 2025-06-18, negotiated 2025-06-18)</caption>`,
		`<td class="t">&#43;1.5 ms</td>`,
		`<div class="problem">not JSON</div>`,
		`… 3 more messages, in the transcript`,
		// A status outside the five keeps its word but never a pass's colour.
		`<a class="st-xfail" href="#d-2025-06-18-ODD-01"`,
		`<a class="st-error" href="#d-2025-06-18-GARBAGE-01" title="2025-06-18: &lt;b&gt;">&lt;B&gt;</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// A pass is listed closed; every present cell has its details.
	if !strings.Contains(page, `id="d-2025-06-18-INIT-01" data-status="pass" data-group="" data-level="MUST">`) {
		t.Errorf("the passing cell's details are missing or open")
	}
	if got, want := strings.Count(page, `<details class="finding`), 10; got != want {
		t.Errorf("%d cell details, want %d (one per present cell)", got, want)
	}
}
