// Package toolcall is what the checks of a tool call's outcome share (TOOLS-CALL-*
// in suites/tools, ERR-* in suites/errors): a request's reply decoded once into the
// channel it used (Classify), and the tools/call results of a transcript paired
// with the tool names their requests carried (SeenCalls).
package toolcall
