package reports

import (
	"bytes"
	"encoding/json"
	"html/template"
	"strings"
	"testing"
	"time"
)

// The matrix rows and the details as html.tmpl wrote them through html/template,
// before writeRows and writeDetails: the reference the hand-written ones must match
// byte for byte, escaping included.
const (
	templateRows = `{{range .Rows}}<tr id="row-{{.ID}}" data-group="{{.Group}}" data-levels="{{.Levels}}">
<th><code>{{.ID}}</code><div class="title">{{.Title}}</div></th><td>{{.Group}}</td><td>{{.Levels}}</td>
{{range .Cells}}{{if .Present}}<td class="cell" data-status="{{.Status}}" data-level="{{.Level}}"><a class="{{.Class}}" href="#{{.Anchor}}" title="{{.Revision}}: {{.Status}}{{if .Reason}} ({{.Reason}}){{end}}">{{statusWord .Status}}</a></td>{{else}}<td class="cell absent" data-status="absent" title="does not apply to this revision">—</td>{{end}}{{end}}
</tr>
{{end}}`
	templateDetails = `{{range .Cells}}<details class="finding {{.Class}}" id="{{.Anchor}}" data-status="{{.Status}}" data-group="{{.Group}}" data-level="{{.Level}}"{{if .Problem}} open{{end}}>
<summary><span class="tag {{.Class}}">{{statusWord .Status}}</span><code>{{.ID}}</code> <span class="rev">@ {{.Revision}}</span> — {{.Title}}</summary>
<div class="body"><dl>
<dt>Level</dt><dd>{{.Level}} · group {{.Group}}{{if .Negotiated}} · negotiated {{.Negotiated}}{{end}}{{if .Duration}} · {{.Duration}}{{end}}</dd>
{{if .Reason}}<dt>Skip reason</dt><dd>{{.Reason}}</dd>{{end}}
{{if .Message}}<dt>Message</dt><dd><pre class="message">{{.Message}}</pre></dd>{{end}}
{{if .Expected}}<dt>Expected</dt><dd><pre class="expected">{{.Expected}}</pre></dd>{{end}}
{{if .Actual}}<dt>Actual</dt><dd><pre class="actual">{{.Actual}}</pre></dd>{{end}}
{{if .Source}}<dt>Spec</dt><dd><blockquote class="source">{{.Source}}</blockquote></dd>{{end}}
{{if .Repro}}<dt>Reproduce</dt><dd><pre class="cmd repro">{{.Repro}}</pre></dd>{{end}}
{{if .HasExchange}}<dt>Exchange</dt><dd class="exchange-cell">{{if .ExchangeNote}}<p class="meta">{{.ExchangeNote}}</p>{{end}}{{range .Exchange}}<table class="exchange"><caption>session {{.Session}} ({{.Head}})</caption>
{{range .Messages}}<tr class="{{.Dir}}"><td class="t">{{.Offset}}</td><td class="d" title="{{.Dir}}{{if .Source}} ({{.Source}}){{end}}">{{.Arrow}}</td><td><pre>{{.Text}}</pre>{{if .Problem}}<div class="problem">{{.Problem}}</div>{{end}}</td></tr>
{{end}}{{if .Omitted}}<tr><td></td><td></td><td class="meta">… {{.Omitted}} more messages, in the transcript</td></tr>{{end}}</table>{{end}}</dd>{{end}}
</dl></div>
</details>
{{end}}`
)

// templateHTML renders r as report.html was rendered wholly by html/template.
func templateHTML(t *testing.T, r *Report) string {
	t.Helper()
	text := strings.Replace(strings.Replace(htmlTemplateText, "{{.RowsHTML}}", templateRows, 1), "{{.DetailsHTML}}", templateDetails, 1)
	tmpl := template.Must(template.New("reference").Funcs(template.FuncMap{
		"statusWord": func(st string) string { return strings.ToUpper(st) },
	}).Parse(text))
	var b bytes.Buffer
	if err := tmpl.Execute(&b, newHTMLPage(r)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// hostileReport is the fixture with what a hostile server can put in a report's
// text: every character html/template escapes, bytes that are no UTF-8, an
// identifier a URL fragment must percent-encode, and exchanges of every shape.
func hostileReport() *Report {
	r := fixture()
	at := time.Date(2026, 3, 1, 12, 30, 45, 0, time.UTC)
	c := &r.Revisions[0].Checks[2]
	c.Repro = `mcp-conform --check 'X' --target "./s <a> & b+c"`
	c.Exchange = &Exchange{Sessions: []ExchangeSession{{
		Session: "2025-06-18-01 <s>", Transport: "stdio", Requested: "2025-06-18", Negotiated: "2025-06-18",
		Messages: []ExchangeMessage{
			{Seq: 1, Dir: "send", At: at, Message: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"<x>&'+\""}}`)},
			{Seq: 2, Dir: "recv", At: at.Add(1500 * time.Microsecond), Source: "stdout", Raw: garbageMsg, Problem: "not JSON: <&>"},
		},
		Omitted: 3,
	}}}
	r.Revisions[0].Checks[3].Exchange = &Exchange{}
	r.Revisions[0].Checks = append(r.Revisions[0].Checks, CheckResult{
		ID: "ODD-<é&+ '\"#%/?>-01", Title: garbageMsg, Level: "MUST", Group: "X\x00Y", Status: Fail, Message: "\x00", Source: "{rev}: text"})
	r.Summarize()
	return r
}

// The hand-written rows and details give the bytes html/template gave, on the
// fixture and on hostile text.
func TestHTMLMatchesTheTemplate(t *testing.T) {
	for name, r := range map[string]*Report{"fixture": fixture(), "hostile": hostileReport()} {
		var got bytes.Buffer
		if err := WriteHTML(&got, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := templateHTML(t, r); got.String() != want {
			i := 0
			for i < len(want) && i < got.Len() && want[i] == got.String()[i] {
				i++
			}
			t.Errorf("%s: report.html differs from html/template's at byte %d:\n got …%s…\nwant …%s…", name, i,
				clipAround(got.String(), i), clipAround(want, i))
		}
	}
}

func clipAround(s string, i int) string {
	return s[max(0, i-80):min(len(s), i+80)]
}
