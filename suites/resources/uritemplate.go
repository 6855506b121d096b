package resources

import (
	"fmt"
	"strings"
)

// ParseURITemplate checks the syntax of an RFC 6570 URI template (§2): literals
// outside expressions, and expressions "{" [operator] varspec *("," varspec) "}",
// where a varspec is a varname (ALPHA / DIGIT / "_" / pct-encoded, with dots
// between) and an optional modifier (":" 1–4 digits below 10000, or "*"). It judges
// syntax only, never expansion.
func ParseURITemplate(s string) error {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return fmt.Errorf("the expression at offset %d is not closed", i)
			}
			if err := parseExpression(s[i+1 : i+end]); err != nil {
				return fmt.Errorf("expression %q: %w", s[i:i+end+1], err)
			}
			i += end + 1
		case c == '}':
			return fmt.Errorf("a \"}\" at offset %d closes no expression", i)
		case c == '%':
			if !pctEncoded(s[i:]) {
				return fmt.Errorf("a %% at offset %d starts no pct-encoded octet", i)
			}
			i += 3
		case c < 0x21 || c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '|' || c == 0x7f:
			return fmt.Errorf("the literal character %q at offset %d is not allowed (RFC 6570 §2.1)", c, i)
		default:
			i++
		}
	}
	return nil
}

func parseExpression(e string) error {
	if e == "" {
		return fmt.Errorf("empty")
	}
	if strings.ContainsRune("+#./;?&", rune(e[0])) {
		e = e[1:]
	} else if strings.ContainsRune("=,!@|", rune(e[0])) {
		return fmt.Errorf("the operator %q is reserved (RFC 6570 §2.2)", e[0])
	}
	if strings.Contains(e, "{") {
		return fmt.Errorf("a nested \"{\"")
	}
	for _, spec := range strings.Split(e, ",") {
		if err := parseVarspec(spec); err != nil {
			return err
		}
	}
	return nil
}

func parseVarspec(spec string) error {
	name := spec
	if strings.HasSuffix(spec, "*") {
		name = spec[:len(spec)-1]
	} else if i := strings.IndexByte(spec, ':'); i >= 0 {
		name = spec[:i]
		n := spec[i+1:]
		if len(n) == 0 || len(n) > 4 || n[0] == '0' || strings.Trim(n, "0123456789") != "" {
			return fmt.Errorf("the prefix modifier %q is not 1 to 9999 (RFC 6570 §2.4.1)", spec[i:])
		}
	}
	if name == "" {
		return fmt.Errorf("an empty variable name")
	}
	for i := 0; i < len(name); {
		c := name[i]
		switch {
		case c == '%':
			if !pctEncoded(name[i:]) {
				return fmt.Errorf("the variable name %q has a bad pct-encoding", name)
			}
			i += 3
			continue
		case c == '.' && i > 0 && i < len(name)-1 && name[i-1] != '.':
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		default:
			return fmt.Errorf("the variable name %q has the character %q (RFC 6570 §2.3)", name, c)
		}
		i++
	}
	return nil
}

func pctEncoded(s string) bool {
	hex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	return len(s) >= 3 && s[0] == '%' && hex(s[1]) && hex(s[2])
}
