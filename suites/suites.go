// Package suites registers every check of mcp-conform: importing it (for its side
// effects) is how the CLI and the tests get the whole suite.
package suites

import (
	_ "github.com/mcp-conform/mcp-conform/suites/errors"     // package errorhandling: TOOLS-CALL-*, ERR-*, BASE-INVALID-PARAMS-01
	_ "github.com/mcp-conform/mcp-conform/suites/lifecycle"  // LIFE-*, BASE-*, PING-01
	_ "github.com/mcp-conform/mcp-conform/suites/pagination" // PAG-*
	_ "github.com/mcp-conform/mcp-conform/suites/tools"      // TOOLS-*, CONTENT-*, STRUCT-*, NOTIF-*, PROG-*
)
