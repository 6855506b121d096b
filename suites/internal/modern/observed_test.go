package modern

import (
	"encoding/json"
	"testing"
)

// The observed checks hold only well-formed modern requests to the modern rules: a
// request sent without _meta protocolVersion (MOD-LEGACY-INIT-01's legacy
// initialize) or without clientCapabilities (a MOD-META-REQUIRED-01 probe) is not one.
func TestCarriesVersion(t *testing.T) {
	for _, tc := range []struct {
		params string
		want   bool
	}{
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, true},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, false},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`, false},
		{`{"protocolVersion":"2025-11-25","capabilities":{}}`, false},
		{`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`, false},
		{``, false},
		{`[1]`, false},
	} {
		if got := carriesVersion(json.RawMessage(tc.params), "2026-07-28"); got != tc.want {
			t.Errorf("carriesVersion(%s) = %v, want %v", tc.params, got, tc.want)
		}
	}
}
