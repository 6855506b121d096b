// Package pagination holds the cursor paging checks of tools/list (spec-matrix §2.9).
package pagination
