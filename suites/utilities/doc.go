// Package utilities holds the checks of the UTIL group, the protocol's utilities
// (basic/utilities/, server/utilities/), one file per page: ping.go (PING-),
// progress.go (PROG-), cancellation.go (CANCEL-) and logging.go (LOG-).
//
// internal/catalogue.Homes maps each ID prefix to its file; a test holds every
// check to it.
package utilities
