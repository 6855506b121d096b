// Package e2e holds the end-to-end tests of the mcp-conform command. They build the
// binary once (TestMain), run it as a subprocess against the bundled reference server
// over stdio, Streamable HTTP and HTTP+SSE, and through its failure paths (bad flags,
// a server that dies or never answers, an interrupted run), and check the exit code
// and that junit.xml, report.json and matrix.md tell the same story.
//
// The package also holds the benchmarks of a full run against its floor (one raw
// session with the reference server); `make bench` runs them and prints a summary.
//
// Everything here is in _test.go files: the package has no API.
package e2e
