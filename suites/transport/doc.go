// Package transport holds the checks of the transport groups, one file each: stdio.go
// (STDIO-), sse.go (SSE-, the 2024-11-05 HTTP+SSE transport), streamable.go (SHTTP-,
// Streamable HTTP of 2025-03-26 to 2025-11-25) with two sections of it in files of
// their own, sessions.go (SHTTP-SESSION-, SHTTP-PV-) and endpoint.go (the MCP
// endpoint, the POST rules and Origin), and modernhttp.go (H5-, the 2026-07-28 HTTP
// transport). Its name is the group's; the transports themselves are
// internal/transport, which its files import under that name.
//
// internal/catalogue.Homes maps each ID prefix to its file; a test holds every
// check to it.
package transport
