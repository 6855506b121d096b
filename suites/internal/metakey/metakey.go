// Package metakey holds the `_meta` key naming rules of {rev}/basic/index.mdx
// (`_meta`, 2025-06-18 on), shared by the checks of several groups: BASE-META-KEYS-01
// and CONTENT-META-01 judge the keys a server sends, MOD-EXT-01 the extension
// identifiers of a 2026-07-28 DiscoverResult (which follow the same rules with a
// mandatory prefix). It also finds the `_meta` objects of a message.
package metakey

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
	"github.com/mcp-conform/mcp-conform/internal/revision"
)

// Problem checks a `_meta` key against the key name format: an optional prefix
// (labels separated by dots, then a slash) and a name. It returns "" for a valid key,
// otherwise what is wrong.
func Problem(key string) string {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if hasPrefix {
		if p := prefixProblem(prefix); p != "" {
			return p
		}
	} else {
		name = key
	}
	return nameProblem(name)
}

// ExtensionIDProblem checks an identifier that must carry a prefix (a 2026-07-28
// extension identifier) against the same rules: "" when valid.
func ExtensionIDProblem(id string) string {
	prefix, name, ok := strings.Cut(id, "/")
	if !ok || prefix == "" {
		return "no prefix (labels followed by a slash)"
	}
	if p := prefixProblem(prefix); p != "" {
		return p
	}
	if name == "" {
		return fmt.Sprintf("name %q does not begin and end with an alphanumeric character (with -, _, . and alphanumerics between)", name)
	}
	return nameProblem(name)
}

// prefixProblem: "If specified, MUST be a series of labels separated by dots (.),
// followed by a slash (/). Labels MUST start with a letter and end with a letter or
// digit; interior characters can be letters, digits, or hyphens (-)."
func prefixProblem(prefix string) string {
	if prefix == "" {
		return "an empty prefix before the slash (a prefix is one or more labels)"
	}
	for _, l := range strings.Split(prefix, ".") {
		if !validLabel(l) {
			return fmt.Sprintf("prefix label %q does not start with a letter, end with a letter or digit and hold only letters, digits and hyphens", l)
		}
	}
	return ""
}

// nameProblem: "Unless empty, MUST begin and end with an alphanumeric character
// ([a-z0-9A-Z]). MAY contain hyphens (-), underscores (_), dots (.), and
// alphanumerics in between."
func nameProblem(name string) string {
	if name == "" || validName(name) {
		return ""
	}
	return fmt.Sprintf("name %q does not begin and end with an alphanumeric character (with -, _, . and alphanumerics between)", name)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }

func validLabel(l string) bool {
	if l == "" || !isLetter(l[0]) || !isAlnum(l[len(l)-1]) {
		return false
	}
	for i := range len(l) {
		if c := l[i]; !isAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

func validName(n string) bool {
	if !isAlnum(n[0]) || !isAlnum(n[len(n)-1]) {
		return false
	}
	for i := range len(n) {
		if c := n[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// Reserved reports whether a valid key's prefix is reserved for MCP use in rev.
// 2025-06-18: "Any prefix beginning with zero or more valid labels, followed by
// modelcontextprotocol or mcp, followed by any valid label, is reserved" (e.g.
// modelcontextprotocol.io/); from 2025-11-25: "Any prefix where the second label is
// modelcontextprotocol or mcp is reserved" (e.g. io.modelcontextprotocol/).
func Reserved(rev revision.Revision, key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	mcp := func(l string) bool { return l == "modelcontextprotocol" || l == "mcp" }
	if rev.AtLeast("2025-11-25") {
		return len(labels) >= 2 && mcp(labels[1])
	}
	for i := 0; i+1 < len(labels); i++ {
		if mcp(labels[i]) {
			return true
		}
	}
	return false
}

// definedKeys are the keys under a reserved prefix that each revision's pages and
// schema define: 2025-11-25 schema (tasks: related-task; model-immediate-response);
// 2026-07-28/basic/index.mdx (Reserved keys; Per-request and per-response protocol
// fields). 2025-06-18 defines none.
var definedKeys = map[string][]string{
	"2025-11-25": {"io.modelcontextprotocol/related-task", "io.modelcontextprotocol/model-immediate-response"},
	"2026-07-28": {
		"io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientInfo",
		"io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/logLevel",
		"io.modelcontextprotocol/subscriptionId", "io.modelcontextprotocol/serverInfo",
	},
}

// Defined reports whether rev's specification defines key (one under a reserved
// prefix).
func Defined(rev revision.Revision, key string) bool {
	for _, k := range definedKeys[rev.Name] {
		if k == key {
			return true
		}
	}
	return false
}

// freeForm are members whose values are the server's or the user's own data, not MCP
// structures, so a "_meta" inside them is no MCP `_meta`: JSON Schemas, tool output,
// arguments, error and log data, and experimental or extension settings.
var freeForm = map[string]bool{
	"inputSchema": true, "outputSchema": true, "requestedSchema": true, "structuredContent": true,
	"arguments": true, "data": true, "experimental": true, "extensions": true,
}

// Found is one `_meta` object of a message.
type Found struct {
	Pointer string   // JSON pointer of the `_meta` member
	Keys    []string // its keys, sorted
}

// Find returns every `_meta` object in a JSON value, outside the free-form members
// (whose contents are not MCP structures) and outside `_meta` values themselves.
// A `_meta` that is not an object is skipped: the schema rows (BASE-SCHEMA-01) judge
// its type.
func Find(raw json.RawMessage) []Found {
	// One validation for the whole value; below it each level is split without
	// decoding or validating again (a received message carries `_meta` at several
	// depths, and a level-by-level json.Unmarshal was 4 % of a run's CPU).
	if !mayHoldMeta(raw) || !rawjson.Valid(raw) {
		return nil
	}
	var out []Found
	find(raw, "", &out)
	return out
}

// find adds the `_meta` objects of raw, valid JSON at pointer ptr, to out.
func find(raw json.RawMessage, ptr string, out *[]Found) {
	if !mayHoldMeta(raw) {
		return
	}
	switch firstByte(raw) {
	case '{':
		for _, m := range sortedMembers(raw) {
			p := ptr + "/" + escape(m.key)
			switch {
			case m.key == "_meta":
				if firstByte(m.value) != '{' {
					continue
				}
				meta := sortedMembers(m.value)
				keys := make([]string, len(meta))
				for i, mm := range meta {
					keys[i] = mm.key
				}
				*out = append(*out, Found{Pointer: p, Keys: keys})
			case freeForm[m.key]:
			default:
				find(m.value, p, out)
			}
		}
	case '[':
		arr, err := rawjson.ArrayOfValid(raw)
		if err != nil {
			return
		}
		for i, v := range arr {
			find(v, ptr+"/"+strconv.Itoa(i), out)
		}
	}
}

// member is one member of an object: its decoded key and its value's bytes.
type member struct {
	key   string
	value json.RawMessage
}

// sortedMembers is the members of obj (a valid JSON object) by key, one per key: of
// a repeated key the last, as a decoded object keeps it. They are read where they
// lie, not put in a map: every message of a 2026-07-28 transcript carries `_meta`,
// and most of BASE-META-KEYS-01's CPU went to building maps of its levels.
func sortedMembers(obj json.RawMessage) []member {
	var ms []member
	rawjson.Members(obj, func(key string, value json.RawMessage) bool {
		ms = append(ms, member{key, value})
		return true
	})
	slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue // a later member of the same key wins
		}
		out = append(out, m)
	}
	return out
}

// mayHoldMeta reports whether a JSON value can have a `_meta` member anywhere in it.
// Most values of a large listing cannot, and are not decoded level by level for
// nothing.
func mayHoldMeta(raw json.RawMessage) bool { return rawjson.MayHold(raw, "_meta") }

func firstByte(raw json.RawMessage) byte {
	for _, c := range raw {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}

// escape encodes a member name for a JSON pointer (RFC 6901).
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
