// Package tools holds the checks of the tools surface (spec-matrix §2.8, §2.11–2.13,
// §2.14 progress): capability declaration, tool definitions, revision leakage, content
// blocks, structured output, list_changed notifications and progress.
package tools
