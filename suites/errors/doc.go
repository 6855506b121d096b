// Package errors holds the checks of the ERR group (errors.go): a tool's own
// failure comes back as an isError:true result with a text block explaining it, an
// isError result is not held to the tool's outputSchema, 2026-07-28's error codes
// keep their meanings, and an unknown log level is refused with -32602
// (ERR-LOGLEVEL-01, from the probe it shares with the LOG rows:
// suites/internal/loglevel). The protocol-error channel of tools/call (unknown tools,
// malformed calls, invalid arguments) is the TOOLS-CALL- rows', in suites/tools.
//
// The observed checks (ERR-ISERROR-CONTENT-01, ERR-ISERROR-STRUCT-01) read every
// tools/call result of the revision's sessions (suites/internal/toolcall.SeenCalls).
//
// The package is named for its directory (suites/errors, fixed by the design card).
// It uses nothing of the standard library's errors package, and its one importer,
// package suites, imports it for its side effects only, so the name shadows nothing.
package errors
