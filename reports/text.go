package reports

import (
	"strings"
	"unicode/utf8"
)

// Servers send garbage, and their bytes end up in messages: every renderer cleans the
// text it writes so the document still parses (XML), renders (Markdown) or leaves the
// terminal alone (console).

// isXMLChar reports whether r is a Char of XML 1.0 (§2.2).
func isXMLChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r >= 0x20 && r <= 0xD7FF:
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= utf8.MaxRune:
		return true
	}
	return false
}

// isC1orDEL reports whether r is DEL or a C1 control; XML allows them, but a terminal
// may act on them (U+009B is a CSI on some) and they show nothing useful anywhere.
func isC1orDEL(r rune) bool { return r >= 0x7F && r <= 0x9F }

// textFilter is a rule for which runes a cleaned text keeps, with its answer for
// every ASCII byte in a table: most text is ASCII, and cleanWith asks keep only past
// it (a call per rune was a third of report.html's rendering).
type textFilter struct {
	keep  func(rune) bool
	ascii [utf8.RuneSelf]bool
}

func newTextFilter(keep func(rune) bool) *textFilter {
	f := &textFilter{keep: keep}
	for c := range f.ascii {
		f.ascii[c] = keep(rune(c))
	}
	return f
}

// The filters of the renderers.
var (
	anyRune = newTextFilter(func(rune) bool { return true })
	xmlRune = newTextFilter(isXMLChar)
	// termRune: no control characters but newline and tab.
	termRune = newTextFilter(func(r rune) bool {
		return r == '\n' || r == '\t' || (isXMLChar(r) && r != '\r' && !isC1orDEL(r))
	})
	// htmlRune: XML characters but carriage return, DEL and the C1 controls.
	htmlRune = newTextFilter(func(r rune) bool { return isXMLChar(r) && !isC1orDEL(r) && r != '\r' })
	// badgeRune: XML characters but DEL and the C1 controls.
	badgeRune = newTextFilter(func(r rune) bool { return isXMLChar(r) && !isC1orDEL(r) })
)

// cleanWith returns s with every invalid UTF-8 byte replaced by U+FFFD (one per byte,
// as encoding/json does) and every rune f does not keep removed.
func cleanWith(s string, f *textFilter) string {
	clean := true
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !f.ascii[c] {
				clean = false
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !f.keep(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if f.ascii[c] {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
			continue
		}
		if f.keep(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// validUTF8 replaces each invalid UTF-8 byte of s with U+FFFD.
func validUTF8(s string) string { return cleanWith(s, anyRune) }

// xmlText makes s safe for an XML 1.0 document: valid UTF-8, no forbidden
// characters (NUL and the other C0 controls but tab, newline and carriage return,
// U+FFFE, U+FFFF). encoding/xml escapes the rest.
func xmlText(s string) string { return cleanWith(s, xmlRune) }

// termText makes s safe for a terminal: valid UTF-8 with no control characters but
// newline and tab, so a server cannot move the cursor, clear the screen or recolour
// the output with escape sequences.
func termText(s string) string { return cleanWith(s, termRune) }

// oneLine joins s's lines with a space and trims it, for table cells and headings.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r", " ", "\n", " ", "\t", " ").Replace(s)), " ")
}

// mdEscaper backslash-escapes the characters that Markdown (CommonMark and GFM
// tables) would otherwise read as markup: emphasis, code, links, raw HTML, entities,
// strikethrough and the table's own cell separator.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `\<`, `>`, `\>`, `&`, `\&`, `|`, `\|`, `~`, `\~`,
)

// mdText renders s as one line of literal Markdown text, safe in a table cell.
func mdText(s string) string {
	return mdEscaper.Replace(oneLine(termText(s)))
}

// truncate shortens s to at most max runes, marking the cut with an ellipsis.
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
