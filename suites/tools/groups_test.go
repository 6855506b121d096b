package tools

// TestVerdicts and TestProbesRunLateOnTheMainSession also judge the checks of
// other groups that share the tool-call probes (BASE-INVALID-PARAMS-01, ERR-*), and
// TestVersionRespectVerdicts judges LIFE-VERSION-RESPECT-01 on tool definitions;
// their packages register them.
import (
	_ "github.com/mcp-conform/mcp-conform/suites/base"
	_ "github.com/mcp-conform/mcp-conform/suites/errors"
	_ "github.com/mcp-conform/mcp-conform/suites/lifecycle"
)
