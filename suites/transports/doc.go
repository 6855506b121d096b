// Package transports holds the checks of the transport groups, a file per section:
// stdio.go (STDIO-), sse.go (SSE-, the 2024-11-05 HTTP+SSE transport), and for
// Streamable HTTP of 2025-03-26 to 2025-11-25 (SHTTP-) endpoint.go (the MCP endpoint,
// the POST rules and Origin), sessions.go (SHTTP-SESSION-, SHTTP-PV-), poststream.go,
// getstream.go and resume.go (its streams); modernhttp.go and modernstream.go (H5-,
// the 2026-07-28 HTTP transport). httphelpers.go holds what every HTTP transport's
// checks share. The transports themselves are internal/transport.
//
// internal/catalogue.Homes maps each ID prefix to its file; a test holds every
// check to it.
package transports
