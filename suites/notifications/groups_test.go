package notifications

// TestListenVerdicts also judges STDIO-SUBID-R5-01, the stdio rule for two
// subscriptions on one channel, with the same scripted listen servers; its package
// registers it.
import _ "github.com/mcp-conform/mcp-conform/suites/transports"
