// Package base holds the checks of the BASE group: the JSON-RPC 2.0 rules every MCP
// message follows (basic/index.mdx), one file per section — messages.go (requests,
// responses, errors, notifications, ids), schema.go (every message against the
// revision's official schema), batch.go and meta.go as their rows get checks.
//
// internal/catalogue.Homes maps each ID prefix to its file; a test holds every
// check to it.
package base
