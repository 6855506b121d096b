package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	_ "embed"
)

// HTMLFile is the self-contained HTML report.
const HTMLFile = "report.html"

//go:embed html.tmpl
var htmlTemplateText string

var htmlTemplate = template.Must(template.New("report.html").Funcs(template.FuncMap{
	"statusWord": func(st string) string { return strings.ToUpper(st) },
}).Parse(htmlTemplateText))

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
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, newHTMLPage(r)); err != nil {
		return fmt.Errorf("reports: render report.html: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("reports: write report.html: %w", err)
	}
	return nil
}

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
	return cleanWith(s, func(r rune) bool { return isXMLChar(r) && !isC1orDEL(r) && r != '\r' })
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
