package base

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/suites/internal/metakey"
)

// metaKeysRule is the key name format of {rev}/basic/index.mdx (`_meta`), quoted by
// BASE-META-KEYS-01 and CONTENT-META-01.
const metaKeysRule = `{rev}/basic/index.mdx (` + "`_meta`" + `): "Key name format: valid _meta key names have two segments: an optional prefix, and a name." Prefix: "If specified, MUST be a series of labels separated by dots (.), followed by a slash (/). Labels MUST start with a letter and end with a letter or digit; interior characters can be letters, digits, or hyphens (-)." Name: "Unless empty, MUST begin and end with an alphanumeric character ([a-z0-9A-Z])." "MAY contain hyphens (-), underscores (_), dots (.), and alphanumerics in between."`

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
