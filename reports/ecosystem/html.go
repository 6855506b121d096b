package ecosystem

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/reports"
)

//go:embed matrix.html.tmpl
var htmlTemplateText string

// htmlTemplate is parsed on first use, not by every process of the binary at
// start-up.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New(HTMLFile).Parse(htmlTemplateText))
})

// verdictCodes are the one-letter codes of the verdicts in the page's check data.
var verdictCodes = map[reports.Status]byte{
	reports.Pass: 'p', reports.Warn: 'w', reports.Fail: 'f', reports.Skip: 's',
	reports.Error: 'e', reports.ExpectedFail: 'x',
}

type htmlPage struct {
	Tool, Generated string
	Versions        []string
	Revisions       []string
	Rows            []htmlRow
	Checks          []htmlCheck
	Skipped         []Skipped
	Data            template.JS
}

type htmlRow struct {
	Index                  int
	Rank                   int
	ID, Name, Target, Tool string
	Conformance, Share     string
	HTML                   string
	ExitCode               int
	Gate                   string // "pass" or "fail"
	Supported              string // the revisions negotiated, space-separated
	Summary                reports.Summary
	Cells                  []htmlCell
	Notes                  []string
	Started, Duration      string
}

type htmlCell struct {
	ID, Revision, State, Text, Share, Class string
	Summary                                 reports.Summary
	Negotiated, Transport, Server           string
}

type htmlCheck struct{ ID, Label string }

// pageData is what the page's script reads: the check verdicts, one string per row
// (in rank order) with one letter per column (p w f s e x, "." where it did not run).
type pageData struct {
	Revisions []string                `json:"revisions"`
	Checks    map[string]pageDataItem `json:"checks"`
}

type pageDataItem struct {
	Title    string   `json:"title"`
	Group    string   `json:"group"`
	Verdicts []string `json:"verdicts"`
}

// WriteHTML writes m as matrix.html: one self-contained page (inline CSS and
// script, no network: its Content-Security-Policy forbids any) with the runs down,
// sorted by conformance, and the revisions across, each cell the negotiated version,
// the verdict counts and a link to the run's report.html. Its controls — also set
// from the address, "#sort=name&rev=2025-06-18&check=PING-01&status=problems" —
// sort the runs by name or by their conformance at one revision, keep one revision
// (and the runs that support it), and show one check's verdicts across the runs.
func WriteHTML(w io.Writer, m *Matrix) error {
	if m == nil {
		return errors.New("ecosystem: write matrix.html: nil matrix")
	}
	p, err := newHTMLPage(m)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := htmlTemplate().Execute(&b, p); err != nil {
		return fmt.Errorf("ecosystem: render matrix.html: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("ecosystem: write matrix.html: %w", err)
	}
	return nil
}

// cleanID makes an element id of s: no whitespace.
func cleanID(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			return '_'
		}
		return r
	}, reports.HTMLText(s))
}

func newHTMLPage(m *Matrix) (*htmlPage, error) {
	t := reports.HTMLText
	p := &htmlPage{Tool: t(m.Tool), Generated: m.GeneratedAt.UTC().Format("2006-01-02 15:04:05 UTC"), Skipped: m.Skipped}
	for _, v := range m.Versions {
		p.Versions = append(p.Versions, t(v))
	}
	for _, r := range m.Revisions {
		p.Revisions = append(p.Revisions, t(r))
	}
	for i := range m.Rows {
		r := &m.Rows[i]
		hr := htmlRow{
			Index: i, Rank: r.Rank, ID: "run-" + cleanID(r.Name), Name: t(r.Name), Target: t(r.Target), Tool: t(r.Tool),
			Conformance: Percent(r.Conformance), HTML: linkPath(r.HTML), ExitCode: r.ExitCode, Summary: r.Summary,
			Duration: fmt.Sprintf("%.1f s", float64(r.DurationMs)/1000),
		}
		if !r.StartedAt.IsZero() {
			hr.Started = r.StartedAt.UTC().Format("2006-01-02 15:04 UTC")
		}
		hr.Share = "-1"
		if r.Conformance != nil {
			hr.Share = fmt.Sprintf("%.6f", *r.Conformance)
		}
		hr.Gate = "pass"
		if r.ExitCode != 0 {
			hr.Gate = "fail"
		}
		for _, n := range r.Notes {
			hr.Notes = append(hr.Notes, t(n))
		}
		var supported []string
		for ci := range r.Cells {
			c := &r.Cells[ci]
			hc := htmlCell{
				ID: hr.ID + "-" + cleanID(c.Revision), Revision: t(c.Revision), State: c.State,
				Text: t(stateText(c)), Summary: c.Summary, Negotiated: t(c.Negotiated), Transport: t(c.Transport), Server: t(c.Server),
				Share: "-1", Class: cellClass(c),
			}
			if c.State == StateNegotiated {
				supported = append(supported, t(c.Revision))
				if j := judgedCount(c.Summary); j > 0 {
					hc.Share = fmt.Sprintf("%.6f", float64(c.Summary.Pass)/float64(j))
				}
			}
			hr.Cells = append(hr.Cells, hc)
		}
		hr.Supported = strings.Join(supported, " ")
		p.Rows = append(p.Rows, hr)
	}
	data := pageData{Revisions: p.Revisions, Checks: map[string]pageDataItem{}}
	for _, c := range m.Checks {
		item := pageDataItem{Title: t(c.Title), Group: t(c.Group)}
		for _, vs := range c.Verdicts {
			row := make([]byte, len(vs))
			for i, v := range vs {
				row[i] = '.'
				if v != "" {
					if code, ok := verdictCodes[reports.Status(v)]; ok {
						row[i] = code
					} else {
						row[i] = 'e'
					}
				}
			}
			item.Verdicts = append(item.Verdicts, string(row))
		}
		data.Checks[t(c.ID)] = item
		label := t(c.ID)
		if c.Title != "" {
			label += " — " + t(c.Title)
		}
		p.Checks = append(p.Checks, htmlCheck{ID: t(c.ID), Label: label})
	}
	// json.Marshal escapes <, > and &, so the data cannot end its script element.
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("ecosystem: encode the page's data: %w", err)
	}
	p.Data = template.JS(raw)
	return p, nil
}

// cellClass is a cell's colour: its worst verdict, or its state.
func cellClass(c *Cell) string {
	return [...]string{
		gradeNotTested: "st-none", gradeUnsupported: "st-skip", gradeNoSession: "st-error",
		gradeFail: "st-fail", gradeWarn: "st-warn", gradeSkip: "st-skip", gradePass: "st-pass",
	}[cellGrade(c)]
}
