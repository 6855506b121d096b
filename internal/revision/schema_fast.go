package revision

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
)

// The validator library reports every failure with its keyword and instance paths,
// and pays for that on every success too: each object and array it visits gets a map
// of what is yet unevaluated, each member a path string. A listing of 10,000 tools
// is 10,000 successes per revision. Before it can validate anything it must also
// compile the schema, and compiling any definition of an official schema validates
// the whole document against its meta-schema (tens of milliseconds per revision).
//
// provenValid answers "valid" without the library: it walks schemaNodes, our own
// representation of a schema built straight from the decoded schema document, for
// a yes only, and only through the keywords the official MCP schemas (and most tool
// schemas) use. A schema with any other keyword, or an instance it cannot prove
// valid, goes to the library, which then decides and words the error. So it may
// answer "not proven" for a valid instance, never "valid" for an invalid one (see
// schema_fast_test.go, which holds it to the library).

// maxInPlace bounds the chain of $ref/allOf/anyOf applied to one value without
// descending into it; a longer one (a reference loop) is left to the library, which
// reports it.
const maxInPlace = 64

// schemaNode is one schema (or subschema) as provenValid evaluates it. Absent
// keywords are zero values (minItems and maxItems: -1). A node that uses anything
// provenValid does not evaluate is unsupported, and proves nothing.
type schemaNode struct {
	unsupported bool
	always      *bool // a boolean schema: true accepts everything, false nothing

	types              []string
	hasConst           bool
	constant           any
	hasEnum            bool
	enum               []any
	required           []string
	properties         map[string]*schemaNode
	additional         *schemaNode // additionalProperties; nil when absent
	items              *schemaNode // items as one schema (every dialect); nil when absent
	minItems, maxItems int
	minimum, maximum   *big.Rat
	ref                *schemaNode // a local definition; nil when absent
	allOf, anyOf       []*schemaNode
}

// Keywords that assert nothing under the suite's compilers: annotations, and format
// and content keywords, which newOfflineCompiler turns off in every dialect.
var annotationKeywords = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "$comment": true,
	"format": true, "contentEncoding": true, "contentMediaType": true,
	"readOnly": true, "writeOnly": true, "deprecated": true,
}

// schemaTypes are the seven names "type" may use.
var schemaTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "integer": true, "string": true}

// nodeDoc builds the schemaNodes of one decoded schema document, each once: a
// definition's nodes when it is first asked for (with those of every definition it
// reaches through $ref), under mu, so that a node handed out is complete and never
// changes.
type nodeDoc struct {
	mu   sync.Mutex
	root map[string]any
	defs map[string]*schemaNode // by $ref text, "#/$defs/X" or "#/definitions/X"
}

func newNodeDoc(root map[string]any) *nodeDoc {
	return &nodeDoc{root: root, defs: map[string]*schemaNode{}}
}

// definition returns the node of the document's definition name in container
// ("$defs" or "definitions"), or nil when the document has no such definition.
func (d *nodeDoc) definition(container, name string) *schemaNode {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.resolve("#/" + container + "/" + name)
}

// rootNode returns the node of the whole document (a tool schema).
func (d *nodeDoc) rootNode() *schemaNode {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.resolve("#")
}

// resolve returns the node a $ref names, building it on first use; nil when ref is
// not a pointer to the root or a definition of the document's top level (relative
// and remote references, anchors, deeper or escaped pointers: the library decides).
// mu is held.
func (d *nodeDoc) resolve(ref string) *schemaNode {
	if n, ok := d.defs[ref]; ok {
		return n
	}
	var v any
	root := ref == "#"
	if root {
		v = d.root
	} else {
		container, name, ok := strings.Cut(strings.TrimPrefix(ref, "#/"), "/")
		if !ok || !strings.HasPrefix(ref, "#/") || (container != "$defs" && container != "definitions") ||
			name == "" || strings.ContainsAny(name, "/~%") {
			return nil
		}
		defs, _ := d.root[container].(map[string]any)
		if v, ok = defs[name]; !ok {
			return nil
		}
	}
	n := &schemaNode{}
	d.defs[ref] = n // before building: a definition may reach itself
	d.fill(n, v, root)
	return n
}

// build returns the node of schema value v (an object or a boolean); mu is held.
func (d *nodeDoc) build(v any) *schemaNode {
	n := &schemaNode{}
	d.fill(n, v, false)
	return n
}

// fill makes n the node of v. Only the document root may carry $schema, and the
// definition containers are read only through $ref. A keyword of an unexpected shape
// makes n unsupported rather than guessed at: the official documents are not
// checked against their meta-schema at run time (TestEmbeddedSchemasMeetMetaSchema
// does it once). Up to draft-07 the library ignores the siblings of "$ref"; the node
// applies them too, which can only prove less. Identifiers ($id, id, $anchor, …),
// dynamic references and every keyword not named here make n unsupported.
func (d *nodeDoc) fill(n *schemaNode, v any, root bool) {
	n.minItems, n.maxItems = -1, -1
	if b, ok := v.(bool); ok {
		n.always = &b
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		n.unsupported = true
		return
	}
	for k, kv := range m {
		ok := true
		switch k {
		case "$schema":
			_, isString := kv.(string)
			ok = root && isString
		case "$defs", "definitions":
			_, ok = kv.(map[string]any)
		case "type":
			n.types, ok = typeNames(kv)
		case "const":
			n.hasConst, n.constant = true, kv
		case "enum":
			n.enum, ok = kv.([]any)
			n.hasEnum = true
		case "required":
			n.required, ok = stringList(kv)
		case "properties":
			props, isObject := kv.(map[string]any)
			ok = isObject
			n.properties = make(map[string]*schemaNode, len(props))
			for name, sub := range props {
				n.properties[name] = d.build(sub)
			}
		case "additionalProperties":
			n.additional = d.build(kv)
		case "items":
			_, isArray := kv.([]any) // the tuple form of draft-04 … 2019-09
			ok = !isArray
			n.items = d.build(kv)
		case "minItems":
			n.minItems, ok = count(kv)
		case "maxItems":
			n.maxItems, ok = count(kv)
		case "minimum":
			n.minimum, ok = number(kv)
		case "maximum":
			n.maximum, ok = number(kv)
		case "$ref":
			ref, isString := kv.(string)
			if ok = isString; ok {
				n.ref = d.resolve(ref)
				ok = n.ref != nil
			}
		case "allOf":
			n.allOf, ok = d.buildList(kv)
		case "anyOf":
			n.anyOf, ok = d.buildList(kv)
		default:
			ok = annotationKeywords[k]
		}
		if !ok {
			n.unsupported = true
		}
	}
}

// buildList builds a non-empty array of schemas (allOf, anyOf).
func (d *nodeDoc) buildList(v any) ([]*schemaNode, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	out := make([]*schemaNode, len(list))
	for i, sub := range list {
		out[i] = d.build(sub)
	}
	return out, true
}

func typeNames(v any) ([]string, bool) {
	if s, ok := v.(string); ok {
		return []string{s}, schemaTypes[s]
	}
	names, ok := stringList(v)
	for _, s := range names {
		ok = ok && schemaTypes[s]
	}
	return names, ok && len(names) > 0
}

func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(list))
	for i, e := range list {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// count reads a non-negative integer written plainly (minItems, maxItems).
func count(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return -1, false
	}
	i, err := n.Int64()
	if err != nil || i < 0 || i > 1<<31 {
		return -1, false
	}
	return int(i), true
}

func number(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

// provenValid reports whether v (a value as decodeJSON returns it) is valid against
// s by the rules the library applies, when s uses only keywords this file evaluates.
func provenValid(s *schemaNode, v any, inPlace int) bool {
	if s == nil || s.unsupported || inPlace > maxInPlace {
		return false
	}
	if s.always != nil {
		return *s.always
	}
	if len(s.types) > 0 && !typeMatches(s.types, v) {
		return false
	}
	if s.hasConst && !jsonEqual(v, s.constant) {
		return false
	}
	if s.hasEnum && !inEnum(v, s.enum) {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		for _, name := range s.required {
			if _, ok := v[name]; !ok {
				return false
			}
		}
		for name, pv := range v {
			sub, listed := s.properties[name]
			if !listed {
				sub = s.additional
			}
			if sub != nil && !provenValid(sub, pv, 0) {
				return false
			}
		}
	case []any:
		if (s.minItems != -1 && len(v) < s.minItems) || (s.maxItems != -1 && len(v) > s.maxItems) {
			return false
		}
		if s.items != nil {
			for _, it := range v {
				if !provenValid(s.items, it, 0) {
					return false
				}
			}
		}
	case json.Number:
		if s.minimum != nil || s.maximum != nil {
			r, ok := new(big.Rat).SetString(string(v))
			if !ok || (s.minimum != nil && r.Cmp(s.minimum) < 0) || (s.maximum != nil && r.Cmp(s.maximum) > 0) {
				return false
			}
		}
	case nil, bool, string:
	default:
		return false // not a decoded JSON value: the library decides
	}
	if s.ref != nil && !provenValid(s.ref, v, inPlace+1) {
		return false
	}
	for _, sub := range s.allOf {
		if !provenValid(sub, v, inPlace+1) {
			return false
		}
	}
	if len(s.anyOf) > 0 {
		for _, sub := range s.anyOf {
			if provenValid(sub, v, inPlace+1) {
				return true
			}
		}
		return false
	}
	return true
}

// inEnum reports whether v equals one of enum's values.
func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		if jsonEqual(v, e) {
			return true
		}
	}
	return false
}

// typeMatches is the library's "type" keyword: a number matches "integer" when its
// value is whole (1.0 and 1e2 are integers).
func typeMatches(types []string, v any) bool {
	vt := jsonKind(v)
	for _, t := range types {
		if t == vt {
			return true
		}
		if t == "integer" && vt == "number" {
			if n, ok := v.(json.Number); ok && isWhole(n) {
				return true
			}
		}
	}
	return false
}

// isWhole reports whether a JSON number literal has an integral value.
func isWhole(n json.Number) bool {
	if !strings.ContainsAny(string(n), ".eE") {
		return true
	}
	r, ok := new(big.Rat).SetString(string(n))
	return ok && r.IsInt()
}

// jsonEqual is the library's equality of JSON values (numbers by value).
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	case []any:
		ba, ok := b.([]any)
		if !ok || len(a) != len(ba) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], ba[i]) {
				return false
			}
		}
		return true
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bn {
			return true
		}
		ar, ok1 := new(big.Rat).SetString(string(a))
		br, ok2 := new(big.Rat).SetString(string(bn))
		return ok1 && ok2 && ar.Cmp(br) == 0
	case nil, bool, string:
		return a == b
	}
	return false
}

// provenValidRaw is provenValid on the JSON text itself (known to be valid JSON), so
// that a valid instance, the common case, is never decoded into Go values: members
// and items are read in place, and only a value compared with const or enum is
// decoded. Repeated keys are all checked (the decoded value keeps the last), so it
// proves no more than provenValid would.
func provenValidRaw(s *schemaNode, data []byte, inPlace int) bool {
	if s == nil || s.unsupported || inPlace > maxInPlace {
		return false
	}
	if s.always != nil {
		return *s.always
	}
	kind := rawjson.KindOf(data)
	if len(s.types) > 0 && !rawTypeMatches(s.types, kind, data) {
		return false
	}
	if s.hasConst || s.hasEnum {
		v, err := decodeJSON(data)
		if err != nil || (s.hasConst && !jsonEqual(v, s.constant)) || (s.hasEnum && !inEnum(v, s.enum)) {
			return false
		}
	}
	switch kind {
	case rawjson.KindObject:
		if !provenObjectRaw(s, data) {
			return false
		}
	case rawjson.KindArray:
		n, ok := 0, true
		if !rawjson.ArrayItems(data, func(item json.RawMessage) bool {
			n++
			ok = s.items == nil || provenValidRaw(s.items, item, 0)
			return ok
		}) || !ok {
			return false
		}
		if (s.minItems != -1 && n < s.minItems) || (s.maxItems != -1 && n > s.maxItems) {
			return false
		}
	case rawjson.KindNumber:
		if s.minimum != nil || s.maximum != nil {
			r, ok := new(big.Rat).SetString(string(bytes.TrimSpace(data)))
			if !ok || (s.minimum != nil && r.Cmp(s.minimum) < 0) || (s.maximum != nil && r.Cmp(s.maximum) > 0) {
				return false
			}
		}
	case rawjson.KindNull, rawjson.KindBool, rawjson.KindString:
	default:
		return false
	}
	if s.ref != nil && !provenValidRaw(s.ref, data, inPlace+1) {
		return false
	}
	for _, sub := range s.allOf {
		if !provenValidRaw(sub, data, inPlace+1) {
			return false
		}
	}
	if len(s.anyOf) > 0 {
		for _, sub := range s.anyOf {
			if provenValidRaw(sub, data, inPlace+1) {
				return true
			}
		}
		return false
	}
	return true
}

// provenObjectRaw checks an object's required, properties and additionalProperties.
func provenObjectRaw(s *schemaNode, data []byte) bool {
	const maxRequired = 32
	if len(s.required) > maxRequired {
		return false
	}
	var found [maxRequired]bool
	ok := true
	if !rawjson.MemberTokens(data, func(key []byte, plain bool, value json.RawMessage) bool {
		name := ""
		if !plain {
			name = rawjson.Key(key)
		}
		var sub *schemaNode
		var listed bool
		if plain {
			sub, listed = s.properties[string(key)] // no allocation for the look-up
		} else {
			sub, listed = s.properties[name]
		}
		for i, r := range s.required {
			if (plain && r == string(key)) || (!plain && r == name) {
				found[i] = true
			}
		}
		if !listed {
			sub = s.additional
		}
		ok = sub == nil || provenValidRaw(sub, value, 0)
		return ok
	}) || !ok {
		return false
	}
	for i := range s.required {
		if !found[i] {
			return false
		}
	}
	return true
}

// rawTypeMatches is typeMatches for JSON text of a known kind.
func rawTypeMatches(types []string, kind rawjson.Kind, data []byte) bool {
	name := kind.String()
	for _, t := range types {
		if t == name {
			return true
		}
		if t == "integer" && kind == rawjson.KindNumber && isWhole(json.Number(bytes.TrimSpace(data))) {
			return true
		}
	}
	return false
}

// rawInstance returns instance's bytes when it is raw JSON (json.RawMessage or
// []byte), the form Validate reads as JSON text.
func rawInstance(instance any) ([]byte, bool) {
	switch v := instance.(type) {
	case json.RawMessage:
		return v, true
	case []byte:
		return v, true
	}
	return nil, false
}

// provenRaw reports whether instance is raw JSON that provenValidRaw shows valid
// against s.
func provenRaw(s *schemaNode, instance any) bool {
	raw, ok := rawInstance(instance)
	return ok && rawjson.Valid(raw) && provenValidRaw(s, raw, 0)
}
