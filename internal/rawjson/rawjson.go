// Package rawjson decodes JSON the way encoding/json does, without copying: the
// members of an object and the items of an array come back as sub-slices of the
// input, and a value decoded into Go types reads its input once.
//
// A suite that judges a server listing 100,000 tools reads the same bytes many
// times over: json.Unmarshal into json.RawMessage validates its whole input and then
// copies every member, so decoding a page, then its tools, then each tool's members
// validates and copies every byte three times. Here validity is established once
// (Valid, which accepts exactly what json.Valid accepts) and every later step only
// slices.
//
// Every function gives the result json.Unmarshal gives for the same input and
// target type, including for null (a nil map or slice, and no error), for values of
// another type (an error), for duplicate keys (the last one wins) and for strings
// with escapes or invalid UTF-8 (decoded by encoding/json itself). The only
// difference is aliasing: returned json.RawMessage values share the input's memory,
// so the input must not be modified while they are in use.
package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// ErrType is returned for a valid JSON value of another type than the one asked for.
var ErrType = errors.New("rawjson: value of another JSON type")

// ErrSyntax is returned for input that is not exactly one JSON value.
var ErrSyntax = errors.New("rawjson: invalid JSON")

// Kind is the JSON type of a value.
type Kind byte

// The JSON types; KindNone is empty input.
const (
	KindNone Kind = iota
	KindNull
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

// String names the kind as the suite's messages do: "absent", "null", "boolean",
// "number", "string", "array", "object".
func (k Kind) String() string {
	return [...]string{"absent", "null", "boolean", "number", "string", "array", "object"}[k]
}

// KindOf classifies data by its first byte after white space, without validating
// it: "tru" is a boolean and "-" a number. Empty or blank input is KindNone.
func KindOf(data []byte) Kind {
	i := skipSpace(data, 0)
	if i >= len(data) {
		return KindNone
	}
	switch data[i] {
	case 'n':
		return KindNull
	case 't', 'f':
		return KindBool
	case '"':
		return KindString
	case '[':
		return KindArray
	case '{':
		return KindObject
	}
	return KindNumber
}

// maxDepth is encoding/json's bound on nesting: deeper input is not valid JSON to it.
const maxDepth = 10000

// Valid reports whether data is exactly one JSON value with optional white space
// around it: json.Valid's verdict on every input (the same grammar, control
// characters refused in strings, bytes that are not UTF-8 accepted, and at most
// 10,000 levels of nesting), in one pass several times faster.
func Valid(data []byte) bool {
	end, ok := validValue(data, skipSpace(data, 0), 0)
	return ok && skipSpace(data, end) == len(data)
}

// validValue checks the value at data[i:] and returns its end.
func validValue(data []byte, i, depth int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; {
	case c == '{':
		if depth++; depth > maxDepth {
			return i, false
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(data) || data[i] != '"' {
				return i, false
			}
			end, ok := validString(data, i)
			if !ok {
				return end, false
			}
			i = skipSpace(data, end)
			if i >= len(data) || data[i] != ':' {
				return i, false
			}
			if i, ok = validValue(data, skipSpace(data, i+1), depth); !ok {
				return i, false
			}
			next, more, ok := afterItem(data, i, '}')
			if !more {
				return next, ok
			}
			i = skipSpace(data, next)
		}
	case c == '[':
		if depth++; depth > maxDepth {
			return i, false
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = validValue(data, i, depth); !ok {
				return i, false
			}
			next, more, ok := afterItem(data, i, ']')
			if !more {
				return next, ok
			}
			i = skipSpace(data, next)
		}
	case c == '"':
		return validString(data, i)
	case c == 't':
		return validLiteral(data, i, "true")
	case c == 'f':
		return validLiteral(data, i, "false")
	case c == 'n':
		return validLiteral(data, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return validNumber(data, i)
	}
	return i, false
}

func validLiteral(data []byte, i int, lit string) (int, bool) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// plainStringByte marks the bytes a string may hold as they are: not a quote, not a
// backslash, not a control character.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// validString checks the string token at data[i] (its opening quote).
func validString(data []byte, i int) (int, bool) {
	i++
	for {
		i = stringStop(data, i)
		if i >= len(data) {
			return i, false
		}
		switch data[i] {
		case '"':
			return i + 1, true
		case '\\':
			i++
			if i >= len(data) {
				return i, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(data)-i < 5 {
					return i, false
				}
				for _, h := range data[i+1 : i+5] {
					if !isHex(h) {
						return i, false
					}
				}
				i += 5
			default:
				return i, false
			}
		default: // a control character
			return i, false
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// validNumber checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at data[i]; what
// follows it is the caller's to check.
func validNumber(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(data, i)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

// Object is json.Unmarshal(data, &m) for m of type map[string]json.RawMessage, with
// the values sub-slices of data. null gives a nil map and no error.
func Object(data []byte) (map[string]json.RawMessage, error) {
	if !Valid(data) {
		return nil, ErrSyntax
	}
	return ObjectOfValid(data)
}

// ObjectOfValid is Object for data already known to be valid JSON (checked with
// json.Valid, or a member or item of a value that was). On invalid input it returns
// an error or a partial result, never panics.
func ObjectOfValid(data []byte) (map[string]json.RawMessage, error) {
	i, null, err := containerOf(data, '{')
	if null || err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	ok := eachMember(data, i, func(key []byte, start, end int) bool {
		m[keyString(key)] = data[start:end:end]
		return true
	})
	if !ok {
		return m, ErrSyntax
	}
	return m, nil
}

// Member is one member of a JSON object: its decoded key and its value, a sub-slice
// of the object's text.
type Member struct {
	Key   string
	Value json.RawMessage
}

// MemberList is an object's members in document order: what ObjectOfValid's map
// holds, in a fraction of the memory (a map of a few members costs about 350 bytes;
// at 100,000 tool definitions that was 35 MB of a run's heap).
type MemberList []Member

// Lookup returns the value of the member named key and whether there is one; of
// members with the same key, the last, as in a decoded map.
func (l MemberList) Lookup(key string) (json.RawMessage, bool) {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].Key == key {
			return l[i].Value, true
		}
	}
	return nil, false
}

// Get returns the value of the member named key (nil when there is none).
func (l MemberList) Get(key string) json.RawMessage {
	v, _ := l.Lookup(key)
	return v
}

// AppendMembers is ObjectOfValid as a MemberList cut from the free capacity of buf,
// so that the members of many small objects share a few large arrays: it returns
// the object's members (nil for JSON null, nil and ErrType for a value that is no
// object, the members before it and ErrSyntax for invalid input; never a panic)
// and buf extended by them. The list's capacity ends with it, so an append to it
// cannot write into buf.
func AppendMembers(buf MemberList, data []byte) (members, grown MemberList, err error) {
	i, null, err := containerOf(data, '{')
	if null || err != nil {
		return nil, buf, err
	}
	start := len(buf)
	ok := eachMember(data, i, func(key []byte, s, e int) bool {
		buf = append(buf, Member{Key: keyString(key), Value: data[s:e:e]})
		return true
	})
	members = buf[start:len(buf):len(buf)]
	if members == nil {
		members = MemberList{} // an empty object is an object: not nil
	}
	if !ok {
		return members, buf, ErrSyntax
	}
	return members, buf, nil
}

// Members calls fn for each member of the object data (already known to be valid
// JSON) in order, with the key decoded and the value a sub-slice of data, until fn
// returns false. It reports false when data is not an object.
func Members(data []byte, fn func(key string, value json.RawMessage) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	return eachMember(data, i, func(key []byte, start, end int) bool { return fn(keyString(key), data[start:end:end]) })
}

// Spans calls fn for each member of the object data (already known to be valid
// JSON) in order, with the key decoded and the value at data[start:end], until fn
// returns false. It reports false when data is not an object.
func Spans(data []byte, fn func(key string, start, end int) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	return eachMember(data, i, func(key []byte, start, end int) bool { return fn(keyString(key), start, end) })
}

// MemberTokens calls fn for each member of the object data (already known to be
// valid JSON) in order, until fn returns false, with the key as it is written
// (quotes stripped) and the value. plain says the key's text is those bytes (no
// escape, valid UTF-8), so it can be looked up without being decoded; otherwise
// Key decodes it. It reports false when data is not an object.
func MemberTokens(data []byte, fn func(key []byte, plain bool, value json.RawMessage) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	return eachMember(data, i, func(key []byte, start, end int) bool {
		body := key[1 : len(key)-1]
		plain := bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body)
		return fn(body, plain, data[start:end:end])
	})
}

// Key decodes a key as MemberTokens passes it (without its quotes).
func Key(body []byte) string {
	s, _ := unquote(append(append([]byte{'"'}, body...), '"'))
	return s
}

// ArrayItems calls fn for each item of the array data (already known to be valid
// JSON) in order, until fn returns false. It reports false when data is not an
// array.
func ArrayItems(data []byte, fn func(item json.RawMessage) bool) bool {
	return eachItem(data, skipSpace(data, 0), func(start, end int) bool { return fn(data[start:end:end]) })
}

// Array is json.Unmarshal(data, &a) for a of type []json.RawMessage, with the items
// sub-slices of data. null gives a nil slice and no error; [] an empty, non-nil one.
func Array(data []byte) ([]json.RawMessage, error) {
	if !Valid(data) {
		return nil, ErrSyntax
	}
	return ArrayOfValid(data)
}

// ArrayOfValid is Array for data already known to be valid JSON.
func ArrayOfValid(data []byte) ([]json.RawMessage, error) {
	i, null, err := containerOf(data, '[')
	if null || err != nil {
		return nil, err
	}
	return appendItems([]json.RawMessage{}, data, i)
}

// AppendArrayOfValid is ArrayOfValid appending the items to dst, for a caller that
// reads them at once and reuses the slice: dst as it is for JSON null, and with
// ErrType for a value that is no array; the items before it and ErrSyntax for
// invalid input.
func AppendArrayOfValid(dst []json.RawMessage, data []byte) ([]json.RawMessage, error) {
	i, null, err := containerOf(data, '[')
	if null || err != nil {
		return dst, err
	}
	return appendItems(dst, data, i)
}

// appendItems appends the items of the array that opens at data[i].
func appendItems(dst []json.RawMessage, data []byte, i int) ([]json.RawMessage, error) {
	ok := eachItem(data, i, func(start, end int) bool {
		dst = append(dst, data[start:end:end])
		return true
	})
	if !ok {
		return dst, ErrSyntax
	}
	return dst, nil
}

// String is json.Unmarshal(data, &s) for s of type string. null gives "" and no
// error.
func String(data []byte) (string, error) {
	if !Valid(data) {
		return "", ErrSyntax
	}
	return StringOfValid(data)
}

// StringOfValid is String for data already known to be valid JSON.
func StringOfValid(data []byte) (string, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return "", ErrSyntax
	}
	switch data[0] {
	case 'n':
		return "", nil
	case '"':
		return unquote(data)
	}
	return "", ErrType
}

// Decode decodes exactly one JSON value as a json.Decoder with UseNumber does:
// objects as map[string]any, arrays as []any, numbers as json.Number, strings,
// booleans and nil. Input that is not exactly one JSON value is an ErrSyntax.
func Decode(data []byte) (any, error) {
	if !Valid(data) {
		return nil, ErrSyntax
	}
	i := skipSpace(data, 0)
	v, end, err := decodeValue(data, i)
	if err != nil {
		return nil, err
	}
	if skipSpace(data, end) != len(data) {
		return nil, ErrSyntax
	}
	return v, nil
}

// decodeValue decodes the valid value at data[i:] and returns it with its end.
func decodeValue(data []byte, i int) (any, int, error) {
	if i >= len(data) {
		return nil, i, ErrSyntax
	}
	switch c := data[i]; c {
	case '{':
		// Parsed in place, never by slicing each member out first: that would scan a
		// value once per level it is nested in.
		m := map[string]any{}
		j := skipSpace(data, i+1)
		if j < len(data) && data[j] == '}' {
			return m, j + 1, nil
		}
		for j < len(data) {
			if data[j] != '"' {
				return nil, i, ErrSyntax
			}
			ke := stringEnd(data, j)
			if ke <= j {
				return nil, i, ErrSyntax
			}
			key := keyString(data[j:ke])
			j = skipSpace(data, ke)
			if j >= len(data) || data[j] != ':' {
				return nil, i, ErrSyntax
			}
			v, end, err := decodeValue(data, skipSpace(data, j+1))
			if err != nil {
				return nil, i, err
			}
			m[key] = v
			next, more, ok := afterItem(data, end, '}')
			if !ok {
				return nil, i, ErrSyntax
			}
			if !more {
				return m, next, nil
			}
			j = skipSpace(data, next)
		}
		return nil, i, ErrSyntax
	case '[':
		a := []any{}
		j := skipSpace(data, i+1)
		if j < len(data) && data[j] == ']' {
			return a, j + 1, nil
		}
		for j < len(data) {
			v, end, err := decodeValue(data, j)
			if err != nil {
				return nil, i, err
			}
			a = append(a, v)
			next, more, ok := afterItem(data, end, ']')
			if !ok {
				return nil, i, ErrSyntax
			}
			if !more {
				return a, next, nil
			}
			j = skipSpace(data, next)
		}
		return nil, i, ErrSyntax
	case '"':
		end, plain := scanString(data, i)
		if end <= i {
			return nil, i, ErrSyntax
		}
		if plain {
			return string(data[i+1 : end-1]), end, nil
		}
		s, err := unquote(data[i:end])
		return s, end, err
	case 't':
		return true, i + 4, nil
	case 'f':
		return false, i + 5, nil
	case 'n':
		return nil, i + 4, nil
	default:
		end := valueEnd(data, i)
		if end <= i {
			return nil, i, ErrSyntax
		}
		return json.Number(data[i:end]), end, nil
	}
}

// keyString decodes an object key (with its quotes), interning the member names
// MCP messages repeat thousands of times so that they cost no allocation.
func keyString(key []byte) string {
	if len(key) >= 2 {
		switch s := key[1 : len(key)-1]; string(s) {
		case "name":
			return "name"
		case "description":
			return "description"
		case "inputSchema":
			return "inputSchema"
		case "outputSchema":
			return "outputSchema"
		case "title":
			return "title"
		case "annotations":
			return "annotations"
		case "type":
			return "type"
		case "properties":
			return "properties"
		case "required":
			return "required"
		case "text":
			return "text"
		case "_meta":
			return "_meta"
		case "icons":
			return "icons"
		case "execution":
			return "execution"
		}
	}
	s, err := unquote(key)
	if err != nil {
		return ""
	}
	return s
}

// unquote decodes a JSON string token (quotes included). Tokens without escapes and
// with valid UTF-8 are their own text; the rest go through encoding/json, so that
// escapes, surrogates and invalid bytes decode exactly as it decodes them.
func unquote(tok []byte) (string, error) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", ErrSyntax
	}
	body := tok[1 : len(tok)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), nil
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return "", ErrSyntax
	}
	return s, nil
}

// containerOf finds the object or array (open is '{' or '[') that data, valid JSON,
// holds: its offset; null for JSON null; ErrSyntax for blank input and ErrType for
// a value of another type.
func containerOf(data []byte, open byte) (i int, null bool, err error) {
	i = skipSpace(data, 0)
	switch {
	case i >= len(data):
		return i, false, ErrSyntax
	case data[i] == 'n':
		return i, true, nil
	case data[i] != open:
		return i, false, ErrType
	}
	return i, false, nil
}

// eachMember calls fn with each key token (quotes included) and the offsets of its
// value, for the object that starts at data[i], until fn returns false; it reports
// false on malformed input.
func eachMember(data []byte, i int, fn func(key []byte, start, end int) bool) bool {
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		ke := stringEnd(data, i)
		if ke <= i {
			return false
		}
		key := data[i:ke]
		i = skipSpace(data, ke)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		ve := valueEnd(data, i)
		if ve <= i {
			return false
		}
		if !fn(key, i, ve) {
			return true
		}
		next, more, ok := afterItem(data, ve, '}')
		if !more {
			return ok
		}
		i = skipSpace(data, next)
	}
	return false
}

// eachItem calls fn with the offsets of each item of the array that starts at
// data[i], until fn returns false; it reports false on malformed input.
func eachItem(data []byte, i int, fn func(start, end int) bool) bool {
	if i >= len(data) || data[i] != '[' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return true
	}
	for i < len(data) {
		end := valueEnd(data, i)
		if end <= i {
			return false
		}
		if !fn(i, end) {
			return true
		}
		next, more, ok := afterItem(data, end, ']')
		if !more {
			return ok
		}
		i = skipSpace(data, next)
	}
	return false
}

// afterItem reads what follows a member or item that ends at data[i], in a container
// that close closes: a comma (more) or close, and next is the offset past it; ok is
// false when neither follows.
func afterItem(data []byte, i int, close byte) (next int, more, ok bool) {
	if i = skipSpace(data, i); i < len(data) {
		switch data[i] {
		case ',':
			return i + 1, true, true
		case close:
			return i + 1, false, true
		}
	}
	return i, false, false
}

// valueEnd returns the index just past the value that starts at data[i] (i itself
// when there is none).
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		return containerEnd(data, i)
	default:
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ':', ' ', '\t', '\n', '\r':
				return j
			}
			j++
		}
		return j
	}
}

// structural marks the bytes containerEnd stops at outside strings.
var structural = func() (t [256]bool) {
	for _, c := range []byte(`"{}[]`) {
		t[c] = true
	}
	return t
}()

// containerEnd returns the index just past the object or array that starts at
// data[i] (i itself when it is not closed). It is the hot loop of every listing
// decode, so strings are skipped inline rather than by a call per string.
func containerEnd(data []byte, i int) int {
	depth := 0
	for j := i; j < len(data); j++ {
		c := data[j]
		if !structural[c] {
			continue
		}
		switch c {
		case '"':
			j++
			for j < len(data) {
				if j = quoteOrEscape(data, j); j < len(data) && data[j] == '"' {
					break
				}
				j += 2 // a backslash and the byte it escapes
			}
			if j >= len(data) {
				return i
			}
		case '{', '[':
			depth++
		default: // '}', ']'
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return i
}

// scanString returns the index just past the string token at data[i] (i itself when
// it is not terminated) and whether it is plain: no escape and only ASCII, so that
// its text is its bytes.
func scanString(data []byte, i int) (int, bool) {
	plain := true
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return j + 1, plain
		case c == '\\':
			plain = false
			j++
		case c >= 0x80:
			plain = false
		}
	}
	return i, false
}

// stringEnd returns the index just past the string token that starts at data[i] (i
// itself when it is not terminated).
func stringEnd(data []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return i
		}
		q := j + k
		// The quote ends the string unless an odd run of backslashes precedes it.
		n := 0
		for p := q - 1; p > i && data[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// MayHold reports whether the JSON text data can hold a key or string whose decoded
// text is s: it spells s out, or holds an escape that could spell one of its
// characters (only \u, unless s has a quote, a backslash, a slash or a control
// character, which other escapes stand for). A false lets a hot path skip decoding a
// value for a member it cannot have.
func MayHold(data []byte, s string) bool {
	if bytes.Contains(data, []byte(s)) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c == '/' || c < 0x20 {
			return bytes.IndexByte(data, '\\') >= 0
		}
	}
	return bytes.Contains(data, []byte(`\u`))
}

// Lookup returns the value of the member key of the object data (already known to be
// valid JSON), matched exactly, and whether there is one. Of duplicate keys the last
// wins, as encoding/json has it. It decodes nothing else, for the hot paths that read
// one member of every message of a transcript.
func Lookup(data []byte, key string) (json.RawMessage, bool) {
	var found json.RawMessage
	ok := false
	MemberTokens(data, func(k []byte, plain bool, value json.RawMessage) bool {
		if (plain && string(k) == key) || (!plain && Key(k) == key) {
			found, ok = value, true
		}
		return true
	})
	return found, ok
}
