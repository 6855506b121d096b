// Package modern is what the suites share about 2026-07-28 traffic: the replies to
// the suite's modern requests, the error codes the server sent (also those a probe
// received with an HTTP error status), and the requests the server sent. Read from
// the revision's whole transcript, it serves the transcript-phase checks of several
// groups (BASE, ERR, MOD, STDIO).
package modern
