package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "embed"
)

// HTMLFile is the self-contained HTML report.
const HTMLFile = "report.html"

//go:embed html.tmpl
var htmlTemplateText string

// htmlTemplate is parsed on first use, not at start-up: every process of the binary
// would pay for it, the reference server's too (seven of them a run).
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report.html").Parse(htmlTemplateText))
})

// WriteHTML writes r as report.html: one self-contained page (inline CSS and script,
// no network, no external asset; a Content-Security-Policy forbids any) with the
// revision × check matrix — the negotiated version in each column head, a colour per
// verdict — filters by verdict, catalogue group and level (also set from the URL fragment,
// "#status=problems&group=TOOLS&level=must"), and for every cell its details: message,
// expected and actual, the quoted spec text, the repro command and the exchange that
// decided it. Everything the server sent is escaped by html/template, and cleaned of
// invalid UTF-8 and control characters.
func WriteHTML(w io.Writer, r *Report) error {
	if r == nil {
		return errors.New("reports: write report.html: nil report")
	}
	p := newHTMLPage(r)
	// The template renders the page's frame around two markers; the rows and the
	// details, most of the page, are written straight into w between its parts
	// (through the template they were copied three times over).
	p.RowsHTML, p.DetailsHTML = rowsMarker, detailsMarker
	var frame bytes.Buffer
	if err := htmlTemplate().Execute(&frame, p); err != nil {
		return fmt.Errorf("reports: render report.html: %w", err)
	}
	head, rest, rowsOK := bytes.Cut(frame.Bytes(), []byte(rowsMarker))
	middle, tail, detailsOK := bytes.Cut(rest, []byte(detailsMarker))
	if !rowsOK || !detailsOK {
		return errors.New("reports: render report.html: the template lost the place of its rows or details")
	}
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriterSize(w, 64<<10)
	}
	// A bufio.Writer keeps its first write error: the Flush reports it.
	_, _ = bw.Write(head)
	p.writeRows(bw)
	_, _ = bw.Write(middle)
	p.writeDetails(bw)
	_, _ = bw.Write(tail)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("reports: write report.html: %w", err)
	}
	return nil
}

// The markers of the template's frame where the rows and the details go: HTML
// comments, which html/template writes as they are in a template.HTML value.
const (
	rowsMarker    template.HTML = "<!--mcp-conform: rows-->"
	detailsMarker template.HTML = "<!--mcp-conform: details-->"
)

type htmlPage struct {
	Target, Tool, Date, Duration string
	ExitCode                     int
	Summary                      Summary
	Verdict                      string // the run's one word: PASS, FAIL, …
	Notes                        []string
	Revisions                    []htmlRevision
	Rows                         []htmlRow
	Cells                        []htmlCell // every present cell, row by row, for the details
	Groups, Levels               []string
	// RowsHTML and DetailsHTML are the matrix's rows and the details of every
	// cell, written by hand (writeRows, writeDetails) with html/template's own
	// escaping: through the template they were a tenth of a run's CPU.
	RowsHTML, DetailsHTML template.HTML
}

type htmlRevision struct {
	Name, Negotiated, Transport, Server string
	State                               string // "negotiated X", "unsupported: …", "no session"
	Counts                              Summary
}

type htmlRow struct {
	ID, Title, Group string
	Levels           string // space-separated levels across revisions (StricterFrom)
	Cells            []htmlCell
}

type htmlCell struct {
	Present                 bool
	Anchor                  string
	Revision, Negotiated    string
	ID, Title, Level, Group string
	Status, Class           string
	Reason, Message         string
	Expected, Actual        string
	Source, Repro           string
	Duration                string
	HasExchange             bool
	Exchange                []htmlSession
	ExchangeNote            string
	Problem                 bool // fail, warn or error: open by default
	ReplayCheck, ReplayRevs string
}

type htmlSession struct {
	Session, Head string
	Messages      []htmlMessage
	Omitted       int
}

type htmlMessage struct {
	Offset, Dir, Arrow, Source, Text, Problem string
}

// htmlText cleans text for the page: invalid UTF-8 becomes U+FFFD and control
// characters (but tab and newline) go; html/template does the escaping.
func htmlText(s string) string {
	return cleanWith(s, htmlRune)
}

// statusClass maps a verdict to its CSS class; a status outside the five (a later
// one, or garbage) keeps its own word but never a pass's colour.
func statusClass(st Status) string {
	if st == ExpectedFail {
		return "st-xfail"
	}
	if st.Known() {
		return "st-" + string(st)
	}
	return "st-error"
}

func newHTMLPage(r *Report) *htmlPage {
	p := &htmlPage{
		Target: htmlText(r.Target), Tool: htmlText(r.Tool), ExitCode: r.ExitCode,
		Duration: (time.Duration(r.DurationMs) * time.Millisecond).String(),
		Summary:  r.tallyAll(),
	}
	if !r.StartedAt.IsZero() {
		p.Date = r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	switch {
	case p.Summary.Fail > 0 || p.Summary.Error > 0:
		p.Verdict = "FAIL"
	case p.Summary.Total == 0 || p.Summary.Skip == p.Summary.Total:
		p.Verdict = "INCOMPLETE"
	default:
		p.Verdict = "PASS"
	}
	for _, n := range r.Notes {
		p.Notes = append(p.Notes, htmlText(n))
	}
	rowIndex := map[string]int{}
	groups, levels := map[string]bool{}, map[string]bool{}
	for ci := range r.Revisions {
		rev := &r.Revisions[ci]
		hr := htmlRevision{Name: htmlText(rev.Revision), Negotiated: htmlText(rev.Negotiated), Transport: htmlText(rev.Transport), Counts: tally(rev.Checks)}
		hr.Server = htmlText(strings.TrimSpace(ServerName(rev.ServerInfo)))
		hr.State = ColumnState(hr.Negotiated, rev.Unsupported || (rev.Negotiated != "" && rev.Negotiated != rev.Revision))
		p.Revisions = append(p.Revisions, hr)
		for _, c := range rev.Checks {
			i, ok := rowIndex[c.ID]
			if !ok {
				i = len(p.Rows)
				rowIndex[c.ID] = i
				p.Rows = append(p.Rows, htmlRow{ID: htmlText(c.ID), Title: htmlText(c.Title), Group: htmlText(c.Group), Cells: make([]htmlCell, len(r.Revisions))})
			}
			row := &p.Rows[i]
			if row.Group == "" {
				row.Group = htmlText(c.Group)
			}
			if lv := htmlText(c.Level); !slices.Contains(strings.Fields(row.Levels), lv) && lv != "" {
				row.Levels = strings.TrimSpace(row.Levels + " " + lv)
			}
			row.Cells[ci] = newHTMLCell(rev, &c)
			if c.Group != "" {
				groups[htmlText(c.Group)] = true
			}
			if c.Level != "" {
				levels[htmlText(c.Level)] = true
			}
		}
	}
	for i := range p.Rows {
		for ci := range p.Rows[i].Cells {
			if p.Rows[i].Cells[ci].Present {
				p.Cells = append(p.Cells, p.Rows[i].Cells[ci])
			}
		}
	}
	p.Groups = htmlSortedKeys(groups)
	for _, lv := range []string{"must", "should", "may", "descriptive", "derived"} {
		if levels[lv] {
			p.Levels = append(p.Levels, lv)
			delete(levels, lv)
		}
	}
	p.Levels = append(p.Levels, htmlSortedKeys(levels)...)
	return p
}

func newHTMLCell(rev *RevisionReport, c *CheckResult) htmlCell {
	st := c.Status
	word := string(st)
	if word == "" {
		word = string(Error)
	}
	cell := htmlCell{
		Present: true, Anchor: "d-" + htmlText(rev.Revision) + "-" + htmlText(c.ID),
		Revision: htmlText(rev.Revision), Negotiated: htmlText(rev.Negotiated),
		ID: htmlText(c.ID), Title: htmlText(c.Title), Level: htmlText(c.Level), Group: htmlText(c.Group),
		Status: htmlText(word), Class: statusClass(st),
		Message: htmlText(c.Message), Expected: htmlText(c.Expected), Actual: htmlText(c.Actual),
		// The spec matrix writes a page's revision as {rev}: name the cell's.
		Source: htmlText(strings.ReplaceAll(c.Source, "{rev}", rev.Revision)), Repro: htmlText(c.Repro),
	}
	if st == Skip {
		cell.Reason = string(skipReason(rev, c))
	}
	if c.Duration > 0 {
		cell.Duration = c.Duration.Round(time.Microsecond * 100).String()
	}
	switch st.effective() {
	case Fail, Warn, Error:
		cell.Problem = true
	}
	if c.Exchange != nil {
		cell.HasExchange = true
		cell.Exchange = htmlExchange(c.Exchange)
		if c.Exchange.Empty() {
			cell.ExchangeNote = "No message crossed the wire while this check ran: it judged traffic recorded earlier (see the transcripts), or its session could not be opened."
		}
	}
	return cell
}

// htmlExchange lays a slice out for the page: offsets from its first message, JSON
// indented for reading.
func htmlExchange(e *Exchange) []htmlSession {
	var first time.Time
	for _, s := range e.Sessions {
		for _, m := range s.Messages {
			if first.IsZero() || m.At.Before(first) {
				first = m.At
			}
		}
	}
	var out []htmlSession
	for _, s := range e.Sessions {
		hs := htmlSession{Session: htmlText(s.Session), Omitted: s.Omitted}
		hs.Head = fmt.Sprintf("%s, asked for %s", dashIfEmpty(htmlText(s.Transport)), dashIfEmpty(htmlText(s.Requested)))
		if s.Negotiated != "" {
			hs.Head += ", negotiated " + htmlText(s.Negotiated)
		}
		for _, m := range s.Messages {
			hm := htmlMessage{Offset: fmt.Sprintf("+%.1f ms", float64(m.At.Sub(first).Microseconds())/1000), Source: htmlText(m.Source), Problem: htmlText(m.Problem)}
			if m.Sent() {
				hm.Dir, hm.Arrow = "send", "→"
			} else {
				hm.Dir, hm.Arrow = "recv", "←"
			}
			var ind bytes.Buffer
			if len(m.Message) > 0 && json.Indent(&ind, m.Message, "", "  ") == nil {
				hm.Text = htmlText(ind.String())
			} else {
				hm.Text = htmlText(m.Text())
			}
			hs.Messages = append(hs.Messages, hm)
		}
		out = append(out, hs)
	}
	return out
}

func htmlSortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// writeRows writes the matrix's rows as the template wrote them: a row per check,
// a cell per revision (absent where the check does not apply).
func (p *htmlPage) writeRows(b *bufio.Writer) {
	for _, row := range p.Rows {
		b.WriteString(`<tr id="row-`)
		htmlEscape(b, row.ID)
		b.WriteString(`" data-group="`)
		htmlEscape(b, row.Group)
		b.WriteString(`" data-levels="`)
		htmlEscape(b, row.Levels)
		b.WriteString("\">\n<th><code>")
		htmlEscape(b, row.ID)
		b.WriteString(`</code><div class="title">`)
		htmlEscape(b, row.Title)
		b.WriteString(`</div></th><td>`)
		htmlEscape(b, row.Group)
		b.WriteString(`</td><td>`)
		htmlEscape(b, row.Levels)
		b.WriteString("</td>\n")
		for _, c := range row.Cells {
			if !c.Present {
				b.WriteString(`<td class="cell absent" data-status="absent" title="does not apply to this revision">—</td>`)
				continue
			}
			b.WriteString(`<td class="cell" data-status="`)
			htmlEscape(b, c.Status)
			b.WriteString(`" data-level="`)
			htmlEscape(b, c.Level)
			b.WriteString(`"><a class="`)
			htmlEscape(b, c.Class)
			b.WriteString(`" href="#`)
			urlEscape(b, c.Anchor)
			b.WriteString(`" title="`)
			htmlEscape(b, c.Revision)
			b.WriteString(`: `)
			htmlEscape(b, c.Status)
			htmlAside(b, c.Reason)
			b.WriteString(`">`)
			htmlEscape(b, strings.ToUpper(c.Status))
			b.WriteString(`</a></td>`)
		}
		b.WriteString("\n</tr>\n")
	}
}

// writeDetails writes every present cell's details as the template wrote them.
func (p *htmlPage) writeDetails(b *bufio.Writer) {
	for _, c := range p.Cells {
		b.WriteString(`<details class="finding `)
		htmlEscape(b, c.Class)
		b.WriteString(`" id="`)
		htmlEscape(b, c.Anchor)
		b.WriteString(`" data-status="`)
		htmlEscape(b, c.Status)
		b.WriteString(`" data-group="`)
		htmlEscape(b, c.Group)
		b.WriteString(`" data-level="`)
		htmlEscape(b, c.Level)
		b.WriteString(`"`)
		if c.Problem {
			b.WriteString(` open`)
		}
		b.WriteString(">\n<summary><span class=\"tag ")
		htmlEscape(b, c.Class)
		b.WriteString(`">`)
		htmlEscape(b, strings.ToUpper(c.Status))
		b.WriteString(`</span><code>`)
		htmlEscape(b, c.ID)
		b.WriteString(`</code> <span class="rev">@ `)
		htmlEscape(b, c.Revision)
		b.WriteString(`</span> — `)
		htmlEscape(b, c.Title)
		b.WriteString("</summary>\n<div class=\"body\"><dl>\n<dt>Level</dt><dd>")
		htmlEscape(b, c.Level)
		b.WriteString(` · group `)
		htmlEscape(b, c.Group)
		if c.Negotiated != "" {
			b.WriteString(` · negotiated `)
			htmlEscape(b, c.Negotiated)
		}
		if c.Duration != "" {
			b.WriteString(` · `)
			htmlEscape(b, c.Duration)
		}
		b.WriteString("</dd>\n")
		for _, f := range []struct{ v, open, close string }{
			{c.Reason, `<dt>Skip reason</dt><dd>`, `</dd>`},
			{c.Message, `<dt>Message</dt><dd><pre class="message">`, `</pre></dd>`},
			{c.Expected, `<dt>Expected</dt><dd><pre class="expected">`, `</pre></dd>`},
			{c.Actual, `<dt>Actual</dt><dd><pre class="actual">`, `</pre></dd>`},
			{c.Source, `<dt>Spec</dt><dd><blockquote class="source">`, `</blockquote></dd>`},
			{c.Repro, `<dt>Reproduce</dt><dd><pre class="cmd repro">`, `</pre></dd>`},
		} {
			if f.v != "" {
				b.WriteString(f.open)
				htmlEscape(b, f.v)
				b.WriteString(f.close)
			}
			b.WriteString("\n")
		}
		if c.HasExchange {
			b.WriteString(`<dt>Exchange</dt><dd class="exchange-cell">`)
			if c.ExchangeNote != "" {
				b.WriteString(`<p class="meta">`)
				htmlEscape(b, c.ExchangeNote)
				b.WriteString(`</p>`)
			}
			for _, s := range c.Exchange {
				b.WriteString(`<table class="exchange"><caption>session `)
				htmlEscape(b, s.Session)
				b.WriteString(` (`)
				htmlEscape(b, s.Head)
				b.WriteString(")</caption>\n")
				for _, m := range s.Messages {
					b.WriteString(`<tr class="`)
					htmlEscape(b, m.Dir)
					b.WriteString(`"><td class="t">`)
					htmlEscape(b, m.Offset)
					b.WriteString(`</td><td class="d" title="`)
					htmlEscape(b, m.Dir)
					htmlAside(b, m.Source)
					b.WriteString(`">`)
					htmlEscape(b, m.Arrow)
					b.WriteString(`</td><td><pre>`)
					htmlEscape(b, m.Text)
					b.WriteString(`</pre>`)
					if m.Problem != "" {
						b.WriteString(`<div class="problem">`)
						htmlEscape(b, m.Problem)
						b.WriteString(`</div>`)
					}
					b.WriteString("</td></tr>\n")
				}
				if s.Omitted != 0 {
					b.WriteString(`<tr><td></td><td></td><td class="meta">… `)
					b.WriteString(strconv.Itoa(s.Omitted))
					b.WriteString(` more messages, in the transcript</td></tr>`)
				}
				b.WriteString(`</table>`)
			}
			b.WriteString(`</dd>`)
		}
		b.WriteString("\n</dl></div>\n</details>\n")
	}
}

// htmlEscapes are the characters html/template escapes in text and in quoted
// attribute values (its htmlReplacementTable), NUL becoming U+FFFD.
var htmlEscapes = [...]string{
	0:    "\uFFFD",
	'"':  "&#34;",
	'&':  "&amp;",
	'\'': "&#39;",
	'+':  "&#43;",
	'<':  "&lt;",
	'>':  "&gt;",
}

// htmlEscape writes s escaped as html/template escapes text and quoted attribute
// values; every byte it escapes is ASCII, so the loop is over bytes.
func htmlEscape(b *bufio.Writer, s string) {
	written := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; int(c) < len(htmlEscapes) && htmlEscapes[c] != "" {
			b.WriteString(s[written:i])
			b.WriteString(htmlEscapes[c])
			written = i + 1
		}
	}
	b.WriteString(s[written:])
}

// htmlAside writes " (s)", s escaped, when s is not empty.
func htmlAside(b *bufio.Writer, s string) {
	if s != "" {
		b.WriteString(" (")
		htmlEscape(b, s)
		b.WriteString(")")
	}
}

// urlEscape writes s as html/template escapes a URL's fragment: every byte but
// RFC 3986's unreserved characters percent-encoded (none of what it writes then
// needs HTML escaping).
func urlEscape(b *bufio.Writer, s string) {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}
