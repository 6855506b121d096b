package lifecycle

// The verdict tables of this package's tests (TestVerdicts, TestModernVerdicts)
// also cover checks of other groups that judge the same traffic; their packages
// register those checks.
import (
	_ "github.com/mcp-conform/mcp-conform/suites/base"
	_ "github.com/mcp-conform/mcp-conform/suites/errors"
	_ "github.com/mcp-conform/mcp-conform/suites/transports"
	_ "github.com/mcp-conform/mcp-conform/suites/utilities"
)
