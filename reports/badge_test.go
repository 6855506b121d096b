package reports

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// svgDoc is what a badge's XML holds, as encoding/xml reads it back.
type svgDoc struct {
	XMLName   xml.Name
	Width     string `xml:"width,attr"`
	Height    string `xml:"height,attr"`
	AriaLabel string `xml:"aria-label,attr"`
	Title     string `xml:"title"`
	Rects     []struct {
		X     string `xml:"x,attr"`
		Width string `xml:"width,attr"`
		Fill  string `xml:"fill,attr"`
	} `xml:"g>rect"`
	Texts []struct {
		Hidden string `xml:"aria-hidden,attr"`
		Length string `xml:"textLength,attr"`
		Text   string `xml:",chardata"`
	} `xml:"g>text"`
}

// parseBadge reads svg as XML, failing t on any error, and checks that it is one
// self-contained svg element: no reference outside the document.
func parseBadge(t *testing.T, svg []byte) svgDoc {
	t.Helper()
	// Every token must decode: a stray '<' or '&' from a server fails here.
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("badge is not well-formed XML: %v\n%s", err, svg)
		}
	}
	var doc svgDoc
	if err := xml.Unmarshal(svg, &doc); err != nil {
		t.Fatalf("badge does not unmarshal: %v\n%s", err, svg)
	}
	if doc.XMLName.Local != "svg" || doc.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Errorf("root element %v, want svg in the SVG namespace", doc.XMLName)
	}
	for _, bad := range []string{"href", "@import", "@font-face", "<image", "<style", "<script", "http:", "https:", "//"} {
		if strings.Contains(strings.ReplaceAll(string(svg), "http://www.w3.org/2000/svg", ""), bad) {
			t.Errorf("badge holds %q: it must not load anything\n%s", bad, svg)
		}
	}
	return doc
}

// checkBadge checks that b's SVG shows label and message on colour, that its sizes
// add up, and that a second render gives the same bytes.
func checkBadge(t *testing.T, b Badge, label, message, color string) {
	t.Helper()
	if b.Label != label || b.Message != message || b.Color != color {
		t.Errorf("badge = %q | %q on %s, want %q | %q on %s", b.Label, b.Message, b.Color, label, message, color)
	}
	svg := b.SVG()
	if again := b.SVG(); !bytes.Equal(svg, again) {
		t.Errorf("two renders of one badge differ:\n%s\n%s", svg, again)
	}
	doc := parseBadge(t, svg)
	if want := label + ": " + message; doc.Title != want || doc.AriaLabel != want {
		t.Errorf("title %q, aria-label %q, want %q", doc.Title, doc.AriaLabel, want)
	}
	if len(doc.Rects) != 3 || len(doc.Texts) != 4 {
		t.Fatalf("%d rects and %d texts, want 3 and 4 (label, message, gloss; each text with its shadow)\n%s", len(doc.Rects), len(doc.Texts), svg)
	}
	if doc.Rects[0].Fill != badgeLabelColor || doc.Rects[1].Fill != color {
		t.Errorf("fills %q, %q, want %q, %q", doc.Rects[0].Fill, doc.Rects[1].Fill, badgeLabelColor, color)
	}
	for i, want := range []string{label, label, message, message} {
		if doc.Texts[i].Text != want {
			t.Errorf("text %d = %q, want %q", i, doc.Texts[i].Text, want)
		}
	}
	lw, _ := strconv.Atoi(doc.Rects[0].Width)
	mx, _ := strconv.Atoi(doc.Rects[1].X)
	mw, _ := strconv.Atoi(doc.Rects[1].Width)
	total, _ := strconv.Atoi(doc.Width)
	if lw <= 10 || mw <= 10 || mx != lw || total != lw+mw || doc.Height != "20" {
		t.Errorf("sizes: label %d, message at %d width %d, badge %sx%s: the halves must fill the badge", lw, mx, mw, doc.Width, doc.Height)
	}
	// The texts fit their halves with 5 px on either side.
	for i, half := range []int{lw, lw, mw, mw} {
		n, _ := strconv.Atoi(doc.Texts[i].Length)
		if n > (half-10)*10 || n < (half-11)*10 {
			t.Errorf("text %d is %d tenths of a pixel in a half of %d px", i, n, half)
		}
	}
}

// A column's badge for each mix of verdicts.
func TestRevisionBadges(t *testing.T) {
	check := func(st Status) CheckResult { return CheckResult{ID: "X-" + string(st), Status: st} }
	quarantined := CheckResult{ID: "Q", Status: Fail, Quarantine: &QuarantineMark{Reason: "flaky"}}
	quarantinedError := CheckResult{ID: "QE", Status: Error, Quarantine: &QuarantineMark{Reason: "flaky"}}
	tests := []struct {
		name          string
		rev           RevisionReport
		message       string
		color         string
		passesSummary bool
	}{
		{"all pass", RevisionReport{Checks: []CheckResult{check(Pass), check(Pass), check(Skip)}}, "pass", badgeGreen, true},
		{"fails", RevisionReport{Checks: []CheckResult{check(Pass), check(Fail), check(Fail), check(Fail), check(Warn)}}, "3 fail", badgeRed, false},
		{"fails and an error", RevisionReport{Checks: []CheckResult{check(Fail), check(Fail), check(Error), check(Warn)}}, "2 fail, 1 error", badgeRed, false},
		{"errors only", RevisionReport{Checks: []CheckResult{check(Error), check(Pass)}}, "1 error", badgeRed, false},
		{"an unknown status is an error", RevisionReport{Checks: []CheckResult{check("bogus"), check(Pass)}}, "1 error", badgeRed, false},
		{"warn only", RevisionReport{Checks: []CheckResult{check(Pass), check(Warn), check(Warn)}}, "2 warn", badgeYellow, true},
		{"warn and expected-fail", RevisionReport{Checks: []CheckResult{check(Warn), check(ExpectedFail), check(Pass)}}, "1 warn, 1 expected-fail", badgeYellow, true},
		{"quarantined failures do not fail", RevisionReport{Checks: []CheckResult{check(Pass), quarantined, quarantinedError}}, "2 quarantined", badgeYellow, true},
		{"unsupported", RevisionReport{Negotiated: "2025-03-26", Unsupported: true, Checks: []CheckResult{
			{ID: "A", Status: Skip, Reason: RevisionUnsupported}, {ID: "B", Status: Error}}}, "not supported", badgeGrey, false},
		{"all skipped", RevisionReport{Checks: []CheckResult{check(Skip), check(Skip)}}, "skipped", badgeGrey, false},
		{"no checks", RevisionReport{}, "no checks", badgeGrey, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rev.Revision = "2025-11-25"
			r := &Report{Revisions: []RevisionReport{tt.rev}}
			badges := Badges(r)
			if len(badges) != 2 {
				t.Fatalf("%d badges, want the summary and one column", len(badges))
			}
			if badges[1].File != "revision-2025-11-25.svg" {
				t.Errorf("file %q", badges[1].File)
			}
			checkBadge(t, badges[1], "MCP 2025-11-25", tt.message, tt.color)
			wantSummary, wantColor := "0/1 revisions pass", badgeYellow
			switch {
			case tt.passesSummary:
				wantSummary, wantColor = "1/1 revisions pass", badgeGreen
			case tt.color == badgeRed:
				wantColor = badgeRed
			}
			checkBadge(t, badges[0], "MCP conformance", wantSummary, wantColor)
		})
	}
}

// The run's badge over several columns, and a stale baseline entry.
func TestSummaryBadge(t *testing.T) {
	col := func(rev string, st Status) RevisionReport {
		return RevisionReport{Revision: rev, Negotiated: rev, Checks: []CheckResult{{ID: "A", Status: st}}}
	}
	unsupported := RevisionReport{Revision: "2026-07-28", Unsupported: true, Checks: []CheckResult{{ID: "A", Status: Skip, Reason: RevisionUnsupported}}}
	tests := []struct {
		name    string
		r       Report
		message string
		color   string
	}{
		{"four of five, one unsupported", Report{Revisions: []RevisionReport{
			col("2024-11-05", Pass), col("2025-03-26", Pass), col("2025-06-18", Warn), col("2025-11-25", Pass), unsupported}},
			"4/5 revisions pass", badgeYellow},
		{"every column passes, warnings included", Report{Revisions: []RevisionReport{col("2025-06-18", Pass), col("2025-11-25", Warn)}},
			"2/2 revisions pass", badgeGreen},
		{"a failing column", Report{Revisions: []RevisionReport{col("2025-06-18", Pass), col("2025-11-25", Fail), unsupported}},
			"1/3 revisions pass", badgeRed},
		{"no columns", Report{}, "no revisions", badgeGrey},
		{"a stale baseline entry fails the run", Report{Revisions: []RevisionReport{col("2025-11-25", Pass)},
			Baseline: &BaselineReport{Stale: []StaleEntry{{ID: "X"}}}}, "1/1 revisions pass, 1 stale baseline entry", badgeRed},
		{"two stale entries", Report{Revisions: []RevisionReport{col("2025-11-25", Pass)},
			Baseline: &BaselineReport{Stale: []StaleEntry{{ID: "X"}, {ID: "Y"}}}}, "1/1 revisions pass, 2 stale baseline entries", badgeRed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			badges := Badges(&tt.r)
			if len(badges) != len(tt.r.Revisions)+1 || badges[0].File != SummaryBadgeFile {
				t.Fatalf("badges %+v: want the summary first, then one per column", badges)
			}
			checkBadge(t, badges[0], "MCP conformance", tt.message, tt.color)
		})
	}
	if Badges(nil) != nil {
		t.Error("Badges(nil) is not nil")
	}
}

// The fixture report: its failing column and its unsupported one.
func TestBadgesOfTheFixture(t *testing.T) {
	badges := Badges(fixture())
	var files []string
	for _, b := range badges {
		files = append(files, b.File)
	}
	if want := []string{"conformance.svg", "revision-2025-06-18.svg", "revision-2024-11-05.svg"}; !slices.Equal(files, want) {
		t.Fatalf("files %q, want %q", files, want)
	}
	checkBadge(t, badges[0], "MCP conformance", "0/2 revisions pass", badgeRed)
	checkBadge(t, badges[1], "MCP 2025-06-18", "1 fail, 1 error", badgeRed)
	checkBadge(t, badges[2], "MCP 2024-11-05", "not supported", badgeGrey)
}

// Text from a report is escaped and cleaned, file names stay in the folder, and two
// columns never share a file.
func TestBadgeHostileText(t *testing.T) {
	r := &Report{Revisions: []RevisionReport{
		{Revision: `<x&"y'>` + "\x00\x1b[31m\xff", Checks: []CheckResult{{ID: "A", Status: Pass}}},
		{Revision: "../../etc/passwd", Checks: []CheckResult{{ID: "A", Status: Pass}}},
		{Revision: "2025-11-25", Checks: []CheckResult{{ID: "A", Status: Pass}}},
		{Revision: "2025-11-25", Checks: []CheckResult{{ID: "A", Status: Fail}}},
		{Revision: "", Checks: []CheckResult{{ID: "A", Status: Pass}}},
		{Revision: strings.Repeat("long ", 40), Checks: []CheckResult{{ID: "A", Status: Pass}}},
	}}
	badges := Badges(r)
	seen := map[string]bool{}
	for _, b := range badges {
		if seen[b.File] {
			t.Errorf("two badges named %q", b.File)
		}
		seen[b.File] = true
		if !filepath.IsLocal(b.File) || strings.ContainsAny(b.File, `/\`) || strings.HasPrefix(b.File, ".") || !strings.HasSuffix(b.File, ".svg") {
			t.Errorf("file name %q could leave the folder or hide", b.File)
		}
	}
	for _, want := range []string{"revision-2025-11-25.svg", "revision-2025-11-25-2.svg", "revision-unnamed.svg", "revision-_._.._etc_passwd.svg"} {
		if !seen[want] {
			t.Errorf("no badge %q among %v", want, seen)
		}
	}
	doc := parseBadge(t, badges[1].SVG())
	if want := "MCP <x&\"y'>[31m\ufffd"; doc.Texts[1].Text != want {
		t.Errorf("hostile label reads back as %q, want %q", doc.Texts[1].Text, want)
	}
	if svg := string(badges[1].SVG()); !strings.Contains(svg, "&lt;x&amp;&#34;y&#39;&gt;") {
		t.Errorf("label is not escaped:\n%s", svg)
	}
	long := parseBadge(t, badges[6].SVG())
	if n := len([]rune(long.Texts[1].Text)); n > badgeMaxRunes {
		t.Errorf("a long revision gives a label of %d runes, want at most %d", n, badgeMaxRunes)
	}
	// A colour that is not one is not written into the SVG.
	odd := Badge{Label: "a", Message: "b", Color: `red"/><script>`}
	if doc := parseBadge(t, odd.SVG()); doc.Rects[1].Fill != badgeGrey {
		t.Errorf("an invalid colour became fill %q", doc.Rects[1].Fill)
	}
}

// Widths follow the text: a longer message makes a wider badge, and wide runes
// count wider than narrow ones.
func TestBadgeWidth(t *testing.T) {
	width := func(b Badge) int {
		n, err := strconv.Atoi(parseBadge(t, b.SVG()).Width)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	short := width(Badge{Label: "MCP 2025-11-25", Message: "pass", Color: badgeGreen})
	long := width(Badge{Label: "MCP 2025-11-25", Message: "12 fail, 3 error", Color: badgeRed})
	if long <= short {
		t.Errorf("width %d for a longer message, %d for pass", long, short)
	}
	if textWidth("iiii") >= textWidth("MMMM") || textWidth("ab") != charWidth['a'-' ']+charWidth['b'-' '] || textWidth("漢") <= textWidth("a") {
		t.Errorf("textWidth: iiii %d, MMMM %d, 漢 %d", textWidth("iiii"), textWidth("MMMM"), textWidth("漢"))
	}
	// Verdana's digits share one width, so "1 fail" and "9 fail" are as wide.
	for d := '1'; d <= '9'; d++ {
		if charWidth[d-' '] != charWidth['0'-' '] {
			t.Errorf("digit %c is %d wide, 0 is %d", d, charWidth[d-' '], charWidth['0'-' '])
		}
	}
	// The geometry, pinned: "MCP 2025-11-25" measures 93.6 px, "pass" 24.8 px; each
	// half rounds up to whole pixels and adds 10.
	if short != 104+35 {
		t.Errorf("MCP 2025-11-25 | pass is %d px wide, want 139", short)
	}
}

// WriteAll writes the badges and removes those of an earlier run's columns.
func TestWriteAllBadges(t *testing.T) {
	dir := t.TempDir()
	r := fixture()
	if _, err := WriteAll(dir, r, nil); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, BadgeDir, "revision-2024-11-05.svg")
	if _, err := os.Stat(stale); err != nil {
		t.Fatal(err)
	}
	r.Revisions = r.Revisions[:1]
	paths, err := WriteAll(dir, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the badge of a column this run does not have survived: %v", err)
	}
	for _, b := range Badges(r) {
		path := filepath.Join(dir, BadgeDir, b.File)
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, b.SVG()) {
			t.Errorf("%s: %v, or not the badge's bytes", path, err)
		}
		if !slices.Contains(paths, path) {
			t.Errorf("WriteAll does not return %s", path)
		}
	}
	// An attachment cannot overwrite a badge.
	if _, err := WriteAll(dir, r, map[string][]byte{"badges/conformance.svg": []byte("<svg/>")}); err == nil || !strings.Contains(err.Error(), "would replace a badge") {
		t.Errorf("an attachment into the badge folder: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, BadgeDir, SummaryBadgeFile)); !bytes.Equal(got, Badges(r)[0].SVG()) {
		t.Errorf("the summary badge was replaced by an attachment")
	}
}
