// Package resources holds the checks of the RES group (server/resources.mdx and the
// pagination rules of the resource lists, issue 34): the capability, resources/list
// and resources/templates/list walked by cursor, the listed definitions, a bounded
// number of resources/read calls (the first readLimit listed resources; the evidence
// names them), an unknown URI, subscriptions (2024-11-05 … 2025-11-25) and
// list_changed. A server that declares no resources capability gets not-applicable,
// never a failure, except from RES-CAP-01 and RES-UNDECLARED-01, whose rules are
// about exactly that server.
package resources
