package transport

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits a command line into words the way a POSIX shell would, without
// running a shell. It exists for --target "CMD ARGS…".
//
// Unquoted spaces, tabs and newlines separate words. Inside single quotes every
// character is literal. Inside double quotes a backslash escapes only ", \, $, ` and
// newline (an escaped newline is removed); any other backslash is kept. Outside quotes
// a backslash makes the next character literal (an escaped newline is removed).
// Adjacent quoted and unquoted parts join into one word, and an empty pair of quotes
// alone is an empty word. Nothing is expanded: no variables, globs, tildes or command
// substitution, and shell operators such as | ; & < > are ordinary characters.
//
// An unterminated quote, a trailing backslash, or a line with no words is an error.
func SplitCommand(s string) ([]string, error) {
	var (
		words  []string
		word   strings.Builder
		inWord bool // a word has started, even if it is still empty ('')
	)
	const (
		plain = iota
		single
		double
	)
	state := plain
	quoteAt := 0
	end := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case plain:
			switch c {
			case ' ', '\t', '\n', '\r':
				end()
			case '\'':
				state, quoteAt, inWord = single, i, true
			case '"':
				state, quoteAt, inWord = double, i, true
			case '\\':
				if i+1 >= len(s) {
					return nil, fmt.Errorf("split command %q: trailing backslash", s)
				}
				i++
				if s[i] == '\n' {
					continue // line continuation
				}
				word.WriteByte(s[i])
				inWord = true
			default:
				word.WriteByte(c)
				inWord = true
			}
		case single:
			if c == '\'' {
				state = plain
			} else {
				word.WriteByte(c)
			}
		case double:
			switch c {
			case '"':
				state = plain
			case '\\':
				if i+1 < len(s) {
					switch s[i+1] {
					case '"', '\\', '$', '`':
						i++
						word.WriteByte(s[i])
						continue
					case '\n':
						i++
						continue
					}
				}
				word.WriteByte(c)
			default:
				word.WriteByte(c)
			}
		}
	}
	switch state {
	case single:
		return nil, fmt.Errorf("split command %q: unterminated single quote at offset %d", s, quoteAt)
	case double:
		return nil, fmt.Errorf("split command %q: unterminated double quote at offset %d", s, quoteAt)
	}
	end()
	if len(words) == 0 {
		return nil, errors.New("split command: empty command")
	}
	return words, nil
}
