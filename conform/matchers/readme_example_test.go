package matchers_test

import (
	"os"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/mcp-conform/mcp-conform/conform"
	. "github.com/mcp-conform/mcp-conform/conform/matchers"
	"github.com/mcp-conform/mcp-conform/refserver"
)

// readmeExample is the Go example of docs/library.md, verbatim.
const readmeExample = `func TestConformance(t *testing.T) {
	server := refserver.NewStreamableHandler(refserver.Options{}) // your server's http.Handler
	result := conform.Test(t, conform.Handler(server), conform.Revisions("2025-11-25"))
	NewWithT(t).Expect(result).To(PassRevision("2025-11-25"))
	NewWithT(t).Expect(result).To(HaveVerdict("PAG-INVALID-01", "pass"))
}`

func TestConformance(t *testing.T) {
	server := refserver.NewStreamableHandler(refserver.Options{}) // your server's http.Handler
	result := conform.Test(t, conform.Handler(server), conform.Revisions("2025-11-25"))
	NewWithT(t).Expect(result).To(PassRevision("2025-11-25"))
	NewWithT(t).Expect(result).To(HaveVerdict("PAG-INVALID-01", "pass"))
}

// TestREADMEExample keeps docs/library.md's example and the test above the same code.
func TestREADMEExample(t *testing.T) {
	readme, err := os.ReadFile("../../docs/library.md")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), readmeExample) {
		t.Errorf("docs/library.md does not show the library example:\n%s", readmeExample)
	}
	if strings.Count(string(self), readmeExample) != 2 { // the constant and the test itself
		t.Errorf("TestConformance is not the README example any more")
	}
}
