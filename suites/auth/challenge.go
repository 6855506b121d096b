package auth

import (
	"fmt"
	"strings"
)

// challenge is one challenge of a WWW-Authenticate field (RFC 9110 §11.6.1):
// an auth-scheme with either a token68 or auth-params, whose names are
// case-insensitive (kept lower-case here).
type challenge struct {
	Scheme  string
	Token68 string
	Params  map[string]string
}

// bearer returns the first Bearer challenge (RFC 6750 §3: the scheme is
// case-insensitive, RFC 9110 §11.1).
func bearer(cs []challenge) (challenge, bool) {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "Bearer") {
			return c, true
		}
	}
	return challenge{}, false
}

// parseChallenges parses the WWW-Authenticate field lines of a response
// (RFC 9110 §11.6.1: WWW-Authenticate = #challenge; §11.2: challenge = auth-scheme
// [ 1*SP ( token68 / #auth-param ) ], auth-param = token BWS "=" BWS ( token /
// quoted-string )). A field given on several lines is one comma-separated list
// (RFC 9110 §5.3). A parameter named twice in one challenge is an error: "each
// parameter name MUST only occur once per challenge" (RFC 9110 §11.2).
func parseChallenges(lines []string) ([]challenge, error) {
	p := &challengeParser{s: strings.Join(lines, ", ")}
	var out []challenge
	for {
		p.skipListSeparators()
		if p.done() {
			break
		}
		scheme := p.token()
		if scheme == "" {
			return nil, fmt.Errorf("expected an auth-scheme at %q", p.rest())
		}
		c := challenge{Scheme: scheme, Params: map[string]string{}}
		if p.peekSpace() {
			p.skipSpace()
			if err := p.challengeBody(&c); err != nil {
				return nil, fmt.Errorf("challenge %s: %w", scheme, err)
			}
		}
		out = append(out, c)
		p.skipSpace()
		if !p.done() && p.s[p.i] != ',' && !p.afterComma() {
			return nil, fmt.Errorf("challenge %s: unexpected %q", scheme, p.rest())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no challenge")
	}
	return out, nil
}

// challengeBody reads a token68 or a list of auth-params up to the next challenge.
func (p *challengeParser) challengeBody(c *challenge) error {
	// token68, when the next item is not "name =".
	save := p.i
	name := p.token()
	p.skipSpace()
	if name == "" || p.done() || p.s[p.i] != '=' || p.token68Follows(save) {
		p.i = save
		if t := p.token68(); t != "" {
			c.Token68 = t
			return nil
		}
		if p.done() || p.s[p.i] == ',' {
			return nil // a scheme followed by spaces only
		}
		return fmt.Errorf("expected a token68 or auth-param at %q", p.rest())
	}
	p.i = save
	for {
		save := p.i
		name := p.token()
		p.skipSpace()
		if name == "" || p.done() || p.s[p.i] != '=' {
			// The next challenge begins (a scheme is a token not followed by "=").
			p.i = save
			return nil
		}
		p.i++ // '='
		p.skipSpace()
		var value string
		switch {
		case p.done():
			return fmt.Errorf("auth-param %s has no value", name)
		case p.s[p.i] == '"':
			v, err := p.quoted()
			if err != nil {
				return fmt.Errorf("auth-param %s: %w", name, err)
			}
			value = v
		default:
			value = p.token()
			if value == "" {
				return fmt.Errorf("auth-param %s: the value is neither a token nor a quoted-string at %q", name, p.rest())
			}
		}
		key := strings.ToLower(name)
		if _, dup := c.Params[key]; dup {
			return fmt.Errorf("auth-param %s is given twice", name)
		}
		c.Params[key] = value
		p.skipSpace()
		if p.done() {
			return nil
		}
		if p.s[p.i] != ',' {
			return fmt.Errorf("expected a comma after auth-param %s at %q", name, p.rest())
		}
		// Skip the separators; what follows is another auth-param or the next
		// challenge, which the loop's head tells apart.
		p.skipListSeparators()
		if p.done() {
			return nil
		}
	}
}

type challengeParser struct {
	s string
	i int
}

func (p *challengeParser) done() bool { return p.i >= len(p.s) }

// afterComma reports whether the last character before the position, spaces
// aside, is a comma: an auth-param list that ended at the next challenge.
func (p *challengeParser) afterComma() bool {
	for j := p.i - 1; j >= 0; j-- {
		switch p.s[j] {
		case ' ', '\t':
			continue
		case ',':
			return true
		}
		return false
	}
	return false
}
func (p *challengeParser) rest() string { return p.s[p.i:] }

func (p *challengeParser) peekSpace() bool {
	return !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t')
}

func (p *challengeParser) skipSpace() {
	for p.peekSpace() {
		p.i++
	}
}

func (p *challengeParser) skipListSeparators() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

// isTchar is RFC 9110 §5.6.2's tchar.
func isTchar(b byte) bool {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

func (p *challengeParser) token() string {
	start := p.i
	for !p.done() && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// token68 is RFC 9110 §11.2's token68: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" /
// "+" / "/" ) *"=".
func (p *challengeParser) token68() string {
	start := p.i
	for !p.done() && (isAlnum(p.s[p.i]) || strings.IndexByte("-._~+/", p.s[p.i]) >= 0) {
		p.i++
	}
	if p.i == start {
		return ""
	}
	for !p.done() && p.s[p.i] == '=' {
		p.i++
	}
	return p.s[start:p.i]
}

// token68Follows reports whether, from start, a token68 ends in "=" padding with
// nothing but the end or a comma after it (then "x=" is a token68, not a param).
func (p *challengeParser) token68Follows(start int) bool {
	q := &challengeParser{s: p.s, i: start}
	t := q.token68()
	if t == "" || !strings.HasSuffix(t, "=") {
		return false
	}
	q.skipSpace()
	return q.done() || q.s[q.i] == ','
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// quoted reads a quoted-string (RFC 9110 §5.6.4) and returns its unescaped value.
func (p *challengeParser) quoted() (string, error) {
	p.i++ // opening quote
	var b strings.Builder
	for !p.done() {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", fmt.Errorf("a quoted-string ends in a backslash")
			}
			b.WriteByte(p.s[p.i+1])
			p.i += 2
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", fmt.Errorf("a control character in a quoted-string")
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", fmt.Errorf("an unterminated quoted-string")
}
