package base

import (
	"fmt"

	"github.com/mcp-conform/mcp-conform/conform"
	"github.com/mcp-conform/mcp-conform/internal/revision"
	"github.com/mcp-conform/mcp-conform/internal/wire"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/suites/internal/metakey"
)

// metaKeysRule is the key name format of {rev}/basic/index.mdx (`_meta`), quoted by
// BASE-META-KEYS-01 and CONTENT-META-01.
const metaKeysRule = `{rev}/basic/index.mdx (` + "`_meta`" + `): "Key name format: valid _meta key names have two segments: an optional prefix, and a name." Prefix: "If specified, MUST be a series of labels separated by dots (.), followed by a slash (/). Labels MUST start with a letter and end with a letter or digit; interior characters can be letters, digits, or hyphens (-)." Name: "Unless empty, MUST begin and end with an alphanumeric character ([a-z0-9A-Z])." "MAY contain hyphens (-), underscores (_), dots (.), and alphanumerics in between."`

// BASE-META-KEYS-01 — {rev}/basic/index.mdx (`_meta`).
var _ = conform.Register(conform.Check{
	ID: "BASE-META-KEYS-01", Title: "every _meta key the server sends has a valid optional prefix and name; reserved MCP prefixes only for keys the spec defines",
	Level: conform.Must, Revisions: revision.Span("R3+"), Group: conform.GroupBase, Phase: conform.PhaseTranscript, Needs: conform.NeedsOpportunistic,
	Source: metaKeysRule + ` Reserved prefixes: 2025-06-18 "Any prefix beginning with zero or more valid labels, followed by modelcontextprotocol or mcp, followed by any valid label, is reserved for MCP use."; from 2025-11-25 "Any prefix where the second label is modelcontextprotocol or mcp is reserved for MCP use." (a key the revision does not define under such a prefix: WARN; in 2026-07-28 a server advertising extensions may carry an official extension's key there: note). Every _meta object of every message the server sent is read, outside JSON Schemas, structuredContent, arguments, data and experimental or extension settings (the server's own data); a _meta that is not an object is BASE-SCHEMA-01's.`,
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
		return conform.Skip(reports.NotExercised, "the server sent no _meta key in this revision's sessions")
	}
	return f.Verdict("every _meta key an optional valid prefix (dot-separated labels, then /) and a valid name",
		"reserved MCP prefixes (second label modelcontextprotocol or mcp) only for keys the specification defines",
		fmt.Sprintf("%d _meta keys, each with a valid prefix and name", f.Judged))
}
