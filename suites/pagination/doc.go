// Package pagination holds the PAG checks (pagination.go): cursor paging of tools/list
// (server/utilities/pagination.mdx).
//
// Every check reads the main session's memoized walk (toolkit.List), which follows
// nextCursor until it is left out, a page fails, a cursor already followed comes back,
// or --max-pages pages were fetched. A list that fits one page exercises no paging:
// the checks that need several pages skip with not-exercised, never pass.
//
// # The empty-string cursor (PAG-EMPTY-CURSOR-R5-01)
//
// 2024-11-05 … 2025-11-25 do not say what nextCursor "" means; 2026-07-28 makes it a
// valid cursor. toolkit.Walk follows "" once, like any new cursor. The walk is then
// read as follows (interpret), and PAG-EMPTY-CURSOR-R5-01 warns whatever happened:
//
//   - cursor "" answered with an error, a malformed result or no reply: the server
//     meant "" as the end of the list. The list is the pages up to the one that
//     carried "". The reply is not judged by PAG-FOLLOW-01.
//   - cursor "" answered with the first page again (same tool names, in order): the
//     server read "" as "no cursor", so it meant the end too. The list is the pages up
//     to the one that carried ""; the restart, and the cursor repeat the walk then
//     hit, are not judged (no PAG-NEXTCURSOR-01 failure, no PAG-NODUP-01 duplicate).
//   - cursor "" answered with nextCursor "" again: the walk stops there, as the
//     catalogue row PAG-EMPTY-CURSOR-R5-01 says ("stop paginating only if the same "" comes back twice"). Not a failure.
//   - cursor "" answered with new tools: "" was a real cursor, and the walk goes on
//     and is judged like any other. A non-empty cursor that comes back later is a
//     genuine repeat: PAG-NEXTCURSOR-01 fails.
//
// So PAG-NEXTCURSOR-01 never fails on a single follow of "", and fails on every
// repeated non-empty cursor that is not the consequence of following "".
package pagination
