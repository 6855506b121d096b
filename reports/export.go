package reports

// The text cleaning of the renderers, for the renderers of other packages
// (reports/ecosystem), so that every document the suite writes cleans server text
// the same way.

// MarkdownText renders s as one line of literal Markdown text, safe in a table cell:
// valid UTF-8, no control characters, markup characters backslash-escaped.
func MarkdownText(s string) string { return mdText(s) }

// HTMLText cleans s for an HTML page: invalid UTF-8 becomes U+FFFD and control
// characters (but tab and newline) go. It does not escape; html/template does.
func HTMLText(s string) string { return htmlText(s) }

// TerminalText makes s safe for a terminal: valid UTF-8 with no control characters
// but newline and tab.
func TerminalText(s string) string { return termText(s) }
