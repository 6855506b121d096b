// Package errors holds the checks of the two error channels of tools/call
// (spec-matrix §2.8 TOOLS-CALL-*, §2.10): unknown tools, malformed calls, invalid
// params, and isError semantics.
package errors
