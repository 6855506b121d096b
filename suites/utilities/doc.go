// Package utilities holds the checks of the UTIL group, the protocol's utilities
// (basic/utilities/, server/utilities/), one file per page: ping.go (PING-),
// progress.go (PROG-), cancellation.go (CANCEL-) and logging.go (LOG-).
// cancellation.go also holds STDIO-CANCEL-R5-01, the stdio transport's rule for a
// cancelled request, judged from CANCEL-INFLIGHT-01's probe.
//
// internal/catalogue.Homes maps each ID prefix to its file; a test holds every
// check to it.
package utilities
