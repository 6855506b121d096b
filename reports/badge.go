package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// The badges WriteAll writes: a folder of SVG files in the report directory, the
// run's badge and one per column, for a README or a dashboard to show.
const (
	// BadgeDir is the report directory's folder of badges. WriteAll empties it
	// before writing, so a column an earlier run had leaves no badge behind.
	BadgeDir = "badges"
	// SummaryBadgeFile is the run's badge in BadgeDir: how many columns pass.
	SummaryBadgeFile = "conformance.svg"
	// revisionBadgePrefix starts the name of a column's badge in BadgeDir, which
	// goes on with the revision ("revision-2025-11-25.svg").
	revisionBadgePrefix = "revision-"
)

// The badge colours: a grey label, then the message on the colour of its verdict.
const (
	badgeLabelColor = "#555"
	badgeGreen      = "#4c1"    // every judged check passed
	badgeYellow     = "#dfb317" // warnings, expected failures or quarantined checks
	badgeRed        = "#e05d44" // a fail or error that fails the run
	badgeGrey       = "#9f9f9f" // nothing judged: unsupported, skipped, no checks
)

// badgeMaxRunes bounds a badge's label and message, so that a garbage revision name
// read from a report cannot make a badge a screen wide.
const badgeMaxRunes = 48

// Badge is one SVG badge: a label on grey and a message on its verdict's colour.
type Badge struct {
	// File is the badge's file name in BadgeDir.
	File string
	// Label is the left part ("MCP 2025-11-25"), Message the right ("pass").
	Label, Message string
	// Color is the message's background, a CSS hex colour.
	Color string
}

// Badges returns the run's badges, the summary first, then one per column in column
// order. A column's message is the verdict a reader of a README wants at a glance:
//
//   - "not supported" (grey) when the server answered another version;
//   - "N fail", "N error" or both (red) when checks fail the run there;
//   - "N warn", "N expected-fail", "N quarantined" (yellow) for findings that do not
//     fail the run: SHOULD warnings, failures a baseline accepts, quarantined checks;
//   - "pass" (green) when checks passed and nothing else was found;
//   - "skipped" or "no checks" (grey) when nothing was judged.
//
// The summary says how many columns pass — green or yellow above — out of all:
// "4/5 revisions pass", red when a column fails or a baseline entry is stale (which
// fails the run too, and is then said), green when every column passes, else yellow.
func Badges(r *Report) []Badge {
	if r == nil {
		return nil
	}
	out := make([]Badge, 0, len(r.Revisions)+1)
	out = append(out, Badge{}) // the summary, once the columns are counted
	used := map[string]bool{SummaryBadgeFile: true}
	passing, failing := 0, false
	for i := range r.Revisions {
		rev := &r.Revisions[i]
		b := revisionBadge(rev)
		b.File = uniqueBadgeFile(used, revisionBadgePrefix+fileSafe(rev.Revision))
		switch b.Color {
		case badgeGreen, badgeYellow:
			passing++
		case badgeRed:
			failing = true
		}
		out = append(out, b)
	}
	sum := Badge{File: SummaryBadgeFile, Label: "MCP conformance"}
	n := len(r.Revisions)
	switch {
	case n == 0:
		sum.Message, sum.Color = "no revisions", badgeGrey
	default:
		sum.Message = fmt.Sprintf("%d/%d revisions pass", passing, n)
		switch {
		case failing:
			sum.Color = badgeRed
		case passing == n:
			sum.Color = badgeGreen
		default:
			sum.Color = badgeYellow
		}
	}
	if bl := r.Baseline; bl != nil && len(bl.Stale) > 0 {
		sum.Message += ", " + countOf(len(bl.Stale), "stale baseline entry", "stale baseline entries")
		sum.Color = badgeRed
	}
	out[0] = sum
	return out
}

// revisionBadge is a column's badge, without its file name.
func revisionBadge(rev *RevisionReport) Badge {
	b := Badge{Label: "MCP " + rev.Revision}
	if rev.Unsupported {
		b.Message, b.Color = "not supported", badgeGrey
		return b
	}
	var pass, fail, errs, warn, xfail, quarantined int
	for i := range rev.Checks {
		c := &rev.Checks[i]
		st := c.Status.effective()
		switch {
		case c.Gates() && st == Fail:
			fail++
		case c.Gates():
			errs++
		case c.Quarantine != nil && (st == Fail || st == Error):
			quarantined++
		case st == Warn:
			warn++
		case st == ExpectedFail:
			xfail++
		case st == Pass:
			pass++
		}
	}
	switch {
	case fail+errs > 0:
		b.Message, b.Color = joinCounts([]int{fail, errs}, []string{"fail", "error"}), badgeRed
	case warn+xfail+quarantined > 0:
		b.Message, b.Color = joinCounts([]int{warn, xfail, quarantined}, []string{"warn", "expected-fail", "quarantined"}), badgeYellow
	case pass > 0:
		b.Message, b.Color = "pass", badgeGreen
	case len(rev.Checks) == 0:
		b.Message, b.Color = "no checks", badgeGrey
	default:
		b.Message, b.Color = "skipped", badgeGrey
	}
	return b
}

// joinCounts is "2 fail, 1 error": each non-zero count with its word.
func joinCounts(counts []int, words []string) string {
	var parts []string
	for i, n := range counts {
		if n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+words[i])
		}
	}
	return strings.Join(parts, ", ")
}

// countOf is "1 entry" or "2 entries".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// fileSafe maps s to a file name part every file system takes: letters, digits,
// '.', '-' and '_', anything else as '_' ("unnamed" when s is empty), so that a
// revision name from a report can neither leave BadgeDir nor break the name.
func fileSafe(s string) string {
	if s == "" {
		return "unnamed"
	}
	var b strings.Builder
	for _, r := range truncate(s, badgeMaxRunes) {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// uniqueBadgeFile is base+".svg", or base+"-2.svg", "-3", … when two columns map to
// one name (the same revision twice, or names that differ only in unsafe runes).
func uniqueBadgeFile(used map[string]bool, base string) string {
	name := base + ".svg"
	for i := 2; used[name]; i++ {
		name = base + "-" + strconv.Itoa(i) + ".svg"
	}
	used[name] = true
	return name
}

// charWidth is the advance of each printable ASCII rune in Verdana at 11 px, in
// tenths of a pixel (the font's advance widths over its 2048 units per em, times
// 11). The badge sizes its halves from it and pins each text to that length
// (textLength), so a viewer whose fallback font is wider or narrower still fits the
// text into its half. Integers keep the sizes, and so the bytes, the same on every
// machine.
var charWidth = [95]int{
	39, 43, 50, 92, 70, 119, 81, 30, 50, 50, 70, 92, 40, 50, 40, 50, // ' ' … '/'
	70, 70, 70, 70, 70, 70, 70, 70, 70, 70, // '0' … '9'
	50, 50, 92, 92, 92, 60, 108, // ':' … '@'
	75, 76, 77, 85, 70, 63, 85, 83, 46, 50, 76, 62, 94, 82, 87, 66, // 'A' … 'P'
	87, 76, 75, 66, 80, 75, 109, 75, 66, 75, // 'Q' … 'Z'
	50, 50, 50, 92, 70, 70, // '[' … '`'
	66, 68, 57, 68, 65, 39, 68, 69, 30, 37, 64, 30, 107, 69, 66, 68, // 'a' … 'p'
	68, 47, 57, 43, 69, 64, 89, 64, 64, 57, // 'q' … 'z'
	70, 50, 70, 92, // '{' … '~'
}

// textWidth is the width of s in tenths of a pixel: charWidth for ASCII, an em for
// the wide scripts (CJK and after), a digit's width for any other rune.
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case r >= ' ' && r <= '~':
			w += charWidth[r-' ']
		case r >= 0x2E80:
			w += 110
		default:
			w += 70
		}
	}
	return w
}

// badgeText makes s one line of clean XML text of at most badgeMaxRunes runes;
// xmlEscape escapes it where it is written.
func badgeText(s string) string {
	return truncate(oneLine(cleanWith(s, badgeRune)), badgeMaxRunes)
}

// xmlEscape escapes s for XML text and attribute values (both quotes included).
func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}

// SVG renders b in the flat style of the common README badges: a self-contained
// SVG 1.1 document (no font, image, style sheet or link outside it; the font is a
// list of system families), 20 px high, as wide as its texts measure, with the
// label and message XML-escaped. The same badge gives the same bytes.
func (b Badge) SVG() []byte {
	label, msg := badgeText(b.Label), badgeText(b.Message)
	color := b.Color
	if !isHexColor(color) {
		color = badgeGrey
	}
	// Each half is its text plus 5 px on either side, in whole pixels.
	lw, mw := textWidth(label), textWidth(msg)
	lpx, mpx := (lw+9)/10+10, (mw+9)/10+10
	total := lpx + mpx
	title := xmlEscape(label + ": " + msg)
	el, em := xmlEscape(label), xmlEscape(msg)
	var s bytes.Buffer
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s">`+"\n", total, title)
	fmt.Fprintf(&s, "<title>%s</title>\n", title)
	s.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` + "\n")
	fmt.Fprintf(&s, `<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`+"\n", total)
	fmt.Fprintf(&s, `<g clip-path="url(#r)"><rect width="%d" height="20" fill="%s"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>`+"\n",
		lpx, badgeLabelColor, lpx, mpx, color, total)
	// Texts at ten times the size, scaled down: positions and lengths in tenths of
	// a pixel stay integers. Each is drawn twice, a faint shadow 1 px below.
	s.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">` + "\n")
	for _, t := range []struct {
		x, w int
		text string
	}{{lpx * 5, lw, el}, {lpx*10 + mpx*5, mw, em}} {
		fmt.Fprintf(&s, `<text aria-hidden="true" x="%d" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="%d">%s</text>`+"\n", t.x, t.w, t.text)
		fmt.Fprintf(&s, `<text x="%d" y="140" transform="scale(.1)" fill="#fff" textLength="%d">%s</text>`+"\n", t.x, t.w, t.text)
	}
	s.WriteString("</g>\n</svg>\n")
	return s.Bytes()
}

// isHexColor reports whether c is "#rgb" or "#rrggbb", the only colours SVG writes.
func isHexColor(c string) bool {
	if len(c) != 4 && len(c) != 7 || c[0] != '#' {
		return false
	}
	for _, r := range c[1:] {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}
