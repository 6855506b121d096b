// Package suites registers every check of mcp-conform: importing it (for its side
// effects) is how the CLI and the tests get the whole suite. Each package holds the
// checks of one or more catalogue groups, one file per spec section
// (internal/catalogue.Homes; `mcp-conform --list -v` names each check's file).
package suites

import (
	_ "github.com/mcp-conform/mcp-conform/suites/auth"          // AUTH
	_ "github.com/mcp-conform/mcp-conform/suites/base"          // BASE
	_ "github.com/mcp-conform/mcp-conform/suites/errors"        // ERR
	_ "github.com/mcp-conform/mcp-conform/suites/lifecycle"     // LIFE, MOD
	_ "github.com/mcp-conform/mcp-conform/suites/notifications" // NOTIF
	_ "github.com/mcp-conform/mcp-conform/suites/pagination"    // PAG
	_ "github.com/mcp-conform/mcp-conform/suites/prompts"       // PROMPT, COMPL
	_ "github.com/mcp-conform/mcp-conform/suites/resources"     // RES
	_ "github.com/mcp-conform/mcp-conform/suites/tools"         // TOOLS, CONTENT, STRUCT
	_ "github.com/mcp-conform/mcp-conform/suites/transports"    // STDIO, SSE, SHTTP, H5
	_ "github.com/mcp-conform/mcp-conform/suites/utilities"     // UTIL
)
