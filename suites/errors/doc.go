// Package errorhandling holds the checks of the two error channels of tools/call
// (spec-matrix §2.8 TOOLS-CALL-*, §2.10): unknown tools, malformed calls, invalid
// params, and isError semantics.
//
// Safety (design.md §5): the unknown-tool probe uses a random name, and malformed
// calls are rejected before dispatch, so both are tier 0. TOOLS-CALL-01 and
// ERR-EXEC-IN-RESULT-01 call fixture-contract tools or tools allowed with --call; the
// invalid-argument probes (TOOLS-CALL-INVALIDARGS-*, TOOLS-CALL-VALIDATE-01) go only
// to test_echo and to tools allowed with --call. Probes that send malformed input use
// a fresh session, so a fragile server cannot take the main session down.
//
// Every verdict is decided by a small pure function (judgeUnknownTool, judgeCall, …)
// over a decoded reply, so that the tables test each outcome without a server. A
// check that needs a successful tool result never accepts isError:true as one.
//
// The observed checks (TOOLS-CALL-ISERROR-01, ERR-ISERROR-CONTENT-01,
// ERR-ISERROR-STRUCT-01) read every tools/call result of the revision's sessions,
// pairing each with the tool name its request carried.
//
// The directory is suites/errors (fixed by the design card, and what a reader looks
// for next to suites/tools and suites/pagination); the package is errorhandling so
// that it does not shadow the standard library's errors package in its own files
// and in importers.
package errorhandling
