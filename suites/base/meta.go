package base

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/metakey"
)

// BASE-META-KEYS-01 — {rev}/basic/index.mdx (`_meta`).
var _ = conform.Register(conform.Check{
	ID: "BASE-META-KEYS-01", Title: "every _meta key the server sends has a valid optional prefix and name; reserved MCP prefixes only for keys the spec defines",
	Phase: conform.PhaseTranscript,
	Run: func(t *conform.T) conform.Verdict {
		var keys []metaKey
		received(t, func(s *conform.Session, e wire.Entry) {
			for _, m := range metakey.Find(e.Raw) {
				for _, k := range m.Keys {
					keys = append(keys, metaKey{where: where(s, e) + " " + m.Pointer, key: k})
				}
			}
		})
		_, extensions := t.Session().Capabilities()["extensions"]
		return judgeMetaKeys(t.Rev, keys, extensions && t.Session().Modern())
	},
})

// metaKey is one key of a _meta object the server sent, and where.
type metaKey struct{ where, key string }

// judgeMetaKeys holds every key to the key name format (a violation) and keys under
// a reserved prefix to those the revision defines (a warning; a note when the server
// advertises 2026-07-28 extensions, whose official ones define such keys).
func judgeMetaKeys(rev revision.Revision, keys []metaKey, extensions bool) conform.Verdict {
	var f conform.Findings
	for _, k := range keys {
		f.Judged++
		switch p := metakey.Problem(k.key); {
		case p != "":
			f.Fail(fmt.Sprintf("%s: key %q: %s", k.where, k.key, p))
		case !metakey.Reserved(rev, k.key) || metakey.Defined(rev, k.key):
		case extensions:
			f.Note(fmt.Sprintf("%s: key %q under a prefix reserved for MCP, which %s does not define (an advertised extension may)", k.where, k.key, rev.Name))
		default:
			f.Warn(fmt.Sprintf("%s: key %q under a prefix reserved for MCP, which %s does not define", k.where, k.key, rev.Name))
		}
	}
	if f.Judged == 0 {
		return conform.Skip(conform.NotExercised, "the server sent no _meta key in this revision's sessions")
	}
	return f.Verdict("every _meta key an optional valid prefix (dot-separated labels, then /) and a valid name",
		"reserved MCP prefixes (second label modelcontextprotocol or mcp) only for keys the specification defines",
		fmt.Sprintf("%d _meta keys, each with a valid prefix and name", f.Judged))
}
