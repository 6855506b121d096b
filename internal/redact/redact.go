// Package redact scrubs the user's secrets (every --header value) from whatever the
// suite prints or writes. A server may echo a credential anywhere: in a JSON-RPC
// error message, a tool result, a reply header, its log. So every form a value can
// take on the way out is replaced: verbatim, JSON-escaped (with and without HTML
// escaping), and base64 (standard and URL alphabets, padded or not).
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// Mask replaces every secret.
const Mask = "[REDACTED]"

// minLen is the shortest value worth scrubbing: shorter ones (a "1", "yes") would
// blank out unrelated text and protect nothing.
const minLen = 6

// Secrets is a set of values to scrub. The zero value and nil scrub nothing.
type Secrets struct {
	forms [][]byte // longest first, so a longer form is replaced before its parts
}

// New returns the set for the given header values. For "Scheme token" values (e.g.
// "Bearer abc…") the token is a secret of its own.
func New(values []string) *Secrets {
	seen := map[string]bool{}
	s := &Secrets{}
	add := func(v string) {
		if len(v) < minLen || seen[v] {
			return
		}
		seen[v] = true
		s.forms = append(s.forms, []byte(v))
	}
	for _, v := range values {
		parts := []string{v}
		if i := strings.LastIndexByte(v, ' '); i >= 0 {
			parts = append(parts, v[i+1:])
		}
		for _, p := range parts {
			if len(p) < minLen {
				continue
			}
			add(p)
			add(jsonEscaped(p, true))
			add(jsonEscaped(p, false))
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
				add(enc.EncodeToString([]byte(p)))
			}
		}
	}
	sort.SliceStable(s.forms, func(i, j int) bool { return len(s.forms[i]) > len(s.forms[j]) })
	return s
}

// jsonEscaped is p as it appears inside a JSON string.
func jsonEscaped(p string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	_ = enc.Encode(p)
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.TrimSuffix(strings.TrimPrefix(out, `"`), `"`)
}

// Empty reports whether there is nothing to scrub.
func (s *Secrets) Empty() bool { return s == nil || len(s.forms) == 0 }

// Bytes returns b with every secret replaced by Mask (b itself when none occurs).
func (s *Secrets) Bytes(b []byte) []byte {
	if s.Empty() {
		return b
	}
	for _, f := range s.forms {
		if bytes.Contains(b, f) {
			b = bytes.ReplaceAll(b, f, []byte(Mask))
		}
	}
	return b
}

// String is Bytes for strings.
func (s *Secrets) String(v string) string {
	if s.Empty() {
		return v
	}
	for _, f := range s.forms {
		if strings.Contains(v, string(f)) {
			v = strings.ReplaceAll(v, string(f), Mask)
		}
	}
	return v
}

// Contains reports whether b holds any form of a secret.
func (s *Secrets) Contains(b []byte) bool {
	if s.Empty() {
		return false
	}
	for _, f := range s.forms {
		if bytes.Contains(b, f) {
			return true
		}
	}
	return false
}

// Writer returns a writer that scrubs what it passes on to w. It scrubs each Write
// on its own: callers write whole lines.
func (s *Secrets) Writer(w io.Writer) io.Writer {
	if s.Empty() {
		return w
	}
	return &writer{s: s, w: w}
}

type writer struct {
	mu sync.Mutex
	s  *Secrets
	w  io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(w.s.Bytes(append([]byte(nil), p...))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Value scrubs, in place, every string and byte slice reachable from v (a pointer):
// struct fields exported or not, slices, arrays, maps and interfaces. It is how a
// finished report is scrubbed whatever fields it has.
func (s *Secrets) Value(v any) {
	if s.Empty() {
		return
	}
	s.walk(reflect.ValueOf(v), map[uintptr]bool{})
}

var timeType = reflect.TypeOf(time.Time{})

func (s *Secrets) walk(v reflect.Value, seen map[uintptr]bool) {
	if v.Type() == timeType {
		return // holds no text of ours, and its *Location is shared
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.Kind() == reflect.Pointer && !v.IsNil() {
			if seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
		}
		if !v.IsNil() {
			if v.Kind() == reflect.Interface && v.Elem().Kind() == reflect.String {
				if v.CanSet() {
					v.Set(reflect.ValueOf(s.String(v.Elem().String())).Convert(v.Elem().Type()))
				}
				return
			}
			s.walk(v.Elem(), seen)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			}
			s.walk(f, seen)
		}
	case reflect.String:
		if out := s.String(v.String()); out != v.String() && v.CanSet() {
			v.SetString(out)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.CanSet() && s.Contains(v.Bytes()) {
				v.SetBytes(s.Bytes(v.Bytes()))
			}
			return
		}
		for i := range v.Len() {
			s.walk(v.Index(i), seen)
		}
	case reflect.Array:
		for i := range v.Len() {
			s.walk(v.Index(i), seen)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var updates []kv
		for iter.Next() {
			val := reflect.New(iter.Value().Type()).Elem()
			val.Set(iter.Value())
			s.walk(val, seen)
			updates = append(updates, kv{iter.Key(), val})
		}
		for _, u := range updates {
			v.SetMapIndex(u.k, u.v)
		}
	}
}
