package redact

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

func TestSecretsScrubEveryForm(t *testing.T) {
	const token = `s3cr3t<tok>&"x/y`
	s := New([]string{"Bearer " + token, "ab"})
	tests := []struct{ name, in string }{
		{"verbatim header value", "got Bearer " + token + " here"},
		{"bare token", "token=" + token},
		{"JSON-escaped", `{"message":"bad token s3cr3t\u003ctok\u003e\u0026\"x/y"}`},
		{"JSON-escaped without HTML escaping", `{"message":"s3cr3t<tok>&\"x/y"}`},
		{"base64", "echo " + base64.StdEncoding.EncodeToString([]byte(token))},
		{"base64url unpadded", base64.RawURLEncoding.EncodeToString([]byte("Bearer " + token))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := s.String(tt.in)
			if !strings.Contains(out, Mask) || s.Contains([]byte(out)) {
				t.Fatalf("String(%q) = %q: a form of the secret survived", tt.in, out)
			}
			if got := s.Bytes([]byte(tt.in)); string(got) != out {
				t.Fatalf("Bytes and String disagree: %q vs %q", got, out)
			}
		})
	}
	if got := s.String("ab and abc"); got != "ab and abc" {
		t.Fatalf("a short value was scrubbed: %q", got)
	}
	var b bytes.Buffer
	w := s.Writer(&b)
	if _, err := w.Write([]byte("line with " + token + "\n")); err != nil || strings.Contains(b.String(), token) {
		t.Fatalf("Writer passed the secret on: %q, %v", b.String(), err)
	}
	var none *Secrets
	if none.String("x") != "x" || !none.Empty() {
		t.Fatal("a nil set must scrub nothing")
	}
}

func TestValueScrubsNestedFields(t *testing.T) {
	const tok = "tok-123456"
	type inner struct {
		Msg    string
		hidden string
		Raw    []byte
	}
	type outer struct {
		In    []inner
		M     map[string]string
		Files map[string][]byte
		Any   any
		P     *inner
	}
	v := &outer{
		In:    []inner{{Msg: "a " + tok, hidden: tok, Raw: []byte(tok)}},
		M:     map[string]string{"k": tok},
		Files: map[string][]byte{"f": []byte("x" + tok)},
		Any:   "any " + tok,
		P:     &inner{Msg: tok},
	}
	New([]string{tok}).Value(v)
	if strings.Contains(fmt.Sprintf("%+v %s %s %s", *v, v.In[0].Raw, v.Files["f"], v.P.Msg), tok) {
		t.Fatalf("a secret survived: %+v", *v)
	}
}
