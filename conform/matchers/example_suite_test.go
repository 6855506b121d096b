package matchers_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcp-conform/mcp-conform/conform"
	. "github.com/mcp-conform/mcp-conform/conform/matchers"
	"github.com/mcp-conform/mcp-conform/refserver"
	_ "github.com/mcp-conform/mcp-conform/suites" // registers every check
)

// TestExampleSuite is a server author's Ginkgo suite: the server (here the reference
// server, in process) is tested with conform.Test inside Its — as often as needed,
// because the library does not call RunSpecs — and judged with the matchers.
func TestExampleSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "mcp-conform library example")
}

var _ = Describe("my MCP server", func() {
	serve := func(faults ...string) conform.Target {
		opts := refserver.Options{Faults: map[string]bool{}}
		for _, f := range faults {
			opts.Faults[f] = true
		}
		return conform.Handler(refserver.NewStreamableHandler(opts))
	}

	It("conforms to 2025-11-25", func() {
		result := conform.Test(GinkgoT(), serve(), conform.Revisions("2025-11-25"))
		Expect(result).To(PassRevision("2025-11-25"))
		Expect(result).To(HaveVerdict("PAG-INVALID-01", "pass"))
	})

	It("warns on an ignored invalid cursor (a SHOULD)", func() {
		// The fault makes tools/list ignore an invalid cursor: a SHOULD, so a warning,
		// which does not fail the revision.
		result := conform.Test(GinkgoT(), serve("invalid-cursor-first-page"), conform.Revisions("2025-11-25"))
		Expect(result).To(HaveVerdict("PAG-INVALID-01", "warn"))
		Expect(result).To(PassRevision("2025-11-25"))
	})
})
