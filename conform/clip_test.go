package conform

import "testing"

// ClipBytes gives what Clip gives for the same bytes, for every cut: characters
// of one to four bytes, an encoded U+FFFD, and runs of invalid bytes (one U+FFFD
// each) before, across and after the cut.
func TestClipBytesIsClip(t *testing.T) {
	inputs := []string{
		"",
		"plain ascii text",
		"héllo wörld — ✓ 𝄞 end",
		"\xff\xfe\xfd invalid run, then text",
		"text, then an invalid run \xc3\x28\xa0\xa1",
		"a\xffb\xffc\xff\xffd",
		"valid \uFFFD then invalid \xff",
		"\xe2\x82", // a character cut short
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"tool-𝄞"}]}}`,
	}
	for _, in := range inputs {
		for n := 0; n <= len(in)+4; n++ {
			if got, want := ClipBytes([]byte(in), n), Clip(in, n); got != want {
				t.Errorf("ClipBytes(%q, %d) = %q, want %q (Clip)", in, n, got, want)
			}
		}
	}
}
