// Package tools holds the checks of server/tools.mdx, groups TOOLS, CONTENT and
// STRUCT, one file per section (internal/catalogue.Homes): capabilities.go
// (TOOLS-CAP-), list.go (TOOLS-LIST-), definitions.go (the other TOOLS- rows of a
// tool definition), schemas.go (TOOLS-INSCHEMA-, TOOLS-OUTSCHEMA-), icons.go,
// mcpheader.go, call.go (TOOLS-CALL-: the two error channels of tools/call), content.go
// (CONTENT-) and structured.go (STRUCT-). Files named *_helpers_*, call_* and
// list_r5.go hold what those checks share.
//
// Safety: the unknown-tool probe uses a random name, and malformed calls are rejected
// before dispatch, so both are tier 0. TOOLS-CALL-01 calls fixture-contract tools or
// tools allowed with --call; the invalid-argument probes (TOOLS-CALL-INVALIDARGS-*,
// TOOLS-CALL-VALIDATE-01) go only to test_echo and to tools allowed with --call.
//
// Every verdict of a call is decided by a small pure function (judgeUnknownTool,
// judgeCall, …) over a reply decoded once (suites/internal/toolcall), so that the
// tables test each outcome without a server. A check that needs a successful tool
// result never accepts isError:true as one.
package tools
