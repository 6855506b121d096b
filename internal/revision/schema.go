package revision

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
)

// The official schemas, one directory per revision, byte-for-byte as published.
//
//go:embed schemas
var schemaFS embed.FS

// schemaBaseURL is the synthetic, non-resolvable base under which each revision's
// schema is registered with the compiler; "<base>/<rev>/schema.json".
const schemaBaseURL = "https://schemas.mcp-conform.invalid/"

// schemaSet is one revision's official schema: the decoded document (for definition
// look-ups and union membership), the nodes provenValid proves instances valid on
// (schema_fast.go), and, only once an instance is not proven valid, a compiler and
// the compiled definitions, which decide and word the error.
type schemaSet struct {
	name        string
	url         string
	defsKeyword string         // "definitions" or "$defs"
	defs        map[string]any // the definitions object
	root        map[string]any // the decoded document
	nodes       *nodeDoc       // built from the same decoded document

	// mu guards compiler, the whole document's, created on the first compile of a
	// definition whose references leave the definitions (closure); not safe for
	// concurrent use.
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled sync.Map // definition name → *compiledDef
	// validated memoizes Validate on raw JSON.
	validated validationCache
	// splits holds, by definition name, the array members validated item by item
	// ([]splitProp; nil when the definition does not qualify); see splitOf.
	splits sync.Map
	// dynamic is set when the document uses $dynamicRef or $recursiveRef, whose
	// meaning depends on the path taken to a schema: then nothing is split.
	dynamic bool
}

// compiledDef is one lazily compiled definition; once guarantees a single compile.
type compiledDef struct {
	once     sync.Once
	schema   *jsonschema.Schema
	err      error
	compiles atomic.Int32 // how many times it was actually compiled (tests)
}

var (
	schemaSetsMu sync.Mutex
	schemaSets   = map[string]*schemaSet{}
)

// schemaFor returns the loaded schema of the named revision, reading and parsing the
// embedded file on first use. It is parsed once, here: the validator library, which
// parses it again, is only given it when a definition must be compiled (definition).
func schemaFor(rev, defsKeyword string) (*schemaSet, error) {
	schemaSetsMu.Lock()
	defer schemaSetsMu.Unlock()
	if s, ok := schemaSets[rev]; ok {
		return s, nil
	}
	raw, err := schemaFS.ReadFile(path.Join("schemas", rev, "schema.json"))
	if err != nil {
		return nil, fmt.Errorf("revision %s: no embedded schema: %w", rev, err)
	}
	decoded, err := decodeJSON(raw) // numbers kept exact, as the library reads them
	if err != nil {
		return nil, fmt.Errorf("revision %s: parse embedded schema: %w", rev, err)
	}
	doc, ok := decoded.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("revision %s: embedded schema is not a JSON object", rev)
	}
	if _, ok := doc[defsKeyword]; !ok || defsKeyword == "" {
		defsKeyword = "definitions"
		if _, ok := doc["$defs"]; ok {
			defsKeyword = "$defs"
		}
	}
	defs, isObject := doc[defsKeyword].(map[string]any)
	if !isObject {
		return nil, fmt.Errorf("revision %s: embedded schema has no %q object", rev, defsKeyword)
	}
	s := &schemaSet{
		name:        rev,
		url:         schemaBaseURL + rev + "/schema.json",
		defsKeyword: defsKeyword,
		defs:        defs,
		root:        doc,
		nodes:       newNodeDoc(doc),
		dynamic:     bytes.Contains(raw, []byte(`"$dynamicRef"`)) || bytes.Contains(raw, []byte(`"$recursiveRef"`)),
	}
	schemaSets[rev] = s
	return s, nil
}

// newOfflineCompiler returns a compiler that never loads anything: every URL that is
// not an in-memory resource (or a meta-schema built into the library) is refused with
// the error refuse returns. Format and content assertions are switched off in every
// dialect (draft-07 and older would otherwise assert known formats such as "uri"), so
// format and contentEncoding are annotations only; the suite checks base64 and URIs
// in its own code.
func newOfflineCompiler(refuse func(url string) error) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.LoadURL = func(url string) (io.ReadCloser, error) { return nil, refuse(url) }
	c.AssertFormat = false
	c.AssertContent = false
	// A nil entry shadows the library's global implementation of that name.
	for name := range jsonschema.Formats {
		c.Formats[name] = nil
	}
	for name := range jsonschema.Decoders {
		c.Decoders[name] = nil
	}
	for name := range jsonschema.MediaTypes {
		c.MediaTypes[name] = nil
	}
	return c
}

// node returns the schemaNode of one definition, building it on first use. It
// returns errUnknownDefinition (wrapped) when the revision lacks it.
func (s *schemaSet) node(def string) (*schemaNode, error) {
	if _, ok := s.defs[def]; !ok {
		return nil, fmt.Errorf("revision %s: %w %q", s.name, errUnknownDefinition, def)
	}
	return s.nodes.definition(s.defsKeyword, def), nil
}

// definition returns the compiled schema of one definition, compiling it on first
// use. It returns errUnknownDefinition (wrapped) when the revision lacks it. The
// library validates every document it is given against its meta-schema, and that
// dominates a compile (a revision's whole document: 6-7 ms of CPU, at a run's end
// where BASE-SCHEMA-01 judges), so the compiler is given the definition with only
// the definitions it references (closure), about a tenth of the document, under the
// same URL and pointers: the same schema, and errors worded alike. The cost is paid
// only when an instance is not proven valid (TestEmbeddedSchemasMeetMetaSchema
// checks the whole documents' meta-validity once, in the tests).
func (s *schemaSet) definition(def string) (*jsonschema.Schema, error) {
	if _, ok := s.defs[def]; !ok {
		return nil, fmt.Errorf("revision %s: %w %q", s.name, errUnknownDefinition, def)
	}
	v, _ := s.compiled.LoadOrStore(def, &compiledDef{})
	cd := v.(*compiledDef)
	cd.once.Do(func() {
		cd.compiles.Add(1)
		ref := s.url + "#/" + s.defsKeyword + "/" + escapePointerToken(def)
		if doc, ok := s.closureDoc(def); ok {
			c, err := s.newCompiler(doc)
			if err != nil {
				cd.err = err
				return
			}
			cd.schema, cd.err = compileDefinition(c, ref, s.name, def)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.compiler == nil {
			raw, err := s.document()
			if err != nil {
				cd.err = err
				return
			}
			c, err := s.newCompiler(raw)
			if err != nil {
				cd.err = err
				return
			}
			s.compiler = c
		}
		cd.schema, cd.err = compileDefinition(s.compiler, ref, s.name, def)
	})
	return cd.schema, cd.err
}

// compileDefinition compiles one definition's URL, wrapping the library's error.
func compileDefinition(c *jsonschema.Compiler, url, rev, def string) (*jsonschema.Schema, error) {
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("revision %s: compile definition %s: %w", rev, def, err)
	}
	return sch, nil
}

// closureDoc returns the document with only def and the definitions it reaches by
// "$ref" in its definitions object, encoded, and whether that stands for the whole
// document: not when a reference points anywhere else, a subschema carries an
// identifier (which would move the base its references resolve against), or the
// document uses dynamic references, whose meaning depends on the path taken.
func (s *schemaSet) closureDoc(def string) ([]byte, bool) {
	if s.dynamic {
		return nil, false
	}
	prefix := "#/" + s.defsKeyword + "/"
	keep := map[string]any{}
	todo := []string{def}
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, done := keep[name]; done {
			continue
		}
		v, ok := s.defs[name]
		if !ok {
			return nil, false
		}
		keep[name] = v
		ok = eachRef(v, func(ref string) bool {
			rest, inDefs := strings.CutPrefix(ref, prefix)
			if !inDefs || rest == "" {
				return false
			}
			tok, _, _ := strings.Cut(rest, "/")
			name, err := url.PathUnescape(tok)
			if err != nil {
				return false
			}
			todo = append(todo, unescapeToken(name))
			return true
		})
		if !ok {
			return nil, false
		}
	}
	doc := make(map[string]any, len(s.root))
	for k, v := range s.root {
		doc[k] = v
	}
	doc[s.defsKeyword] = keep
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, false
	}
	return raw, true
}

// eachRef calls f with every "$ref" string in the decoded schema value v, and
// reports false as soon as f does, or when a subschema carries an identifier.
// Values that are data, not schemas (enum, const, default, examples), are walked
// too: a "$ref" there only makes the closure larger or the whole document used.
func eachRef(v any, f func(ref string) bool) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, m := range x {
			switch k {
			case "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor":
				if _, isString := m.(string); isString {
					return false
				}
			case "$ref":
				if ref, isString := m.(string); isString {
					if !f(ref) {
						return false
					}
					continue
				}
			}
			if !eachRef(m, f) {
				return false
			}
		}
	case []any:
		for _, m := range x {
			if !eachRef(m, f) {
				return false
			}
		}
	}
	return true
}

// document is the revision's embedded schema document, as published.
func (s *schemaSet) document() ([]byte, error) {
	raw, err := schemaFS.ReadFile(path.Join("schemas", s.name, "schema.json"))
	if err != nil {
		return nil, fmt.Errorf("revision %s: no embedded schema: %w", s.name, err)
	}
	return raw, nil
}

// newCompiler returns an offline compiler holding doc, a revision's embedded
// document or part of it (closureDoc), under the revision's URL.
func (s *schemaSet) newCompiler(doc []byte) (*jsonschema.Compiler, error) {
	c := newOfflineCompiler(func(url string) error {
		return fmt.Errorf("remote schema not fetched: %s", url)
	})
	if err := c.AddResource(s.url, bytes.NewReader(doc)); err != nil {
		return nil, fmt.Errorf("revision %s: register embedded schema: %w", s.name, err)
	}
	return c, nil
}

// errUnknownDefinition marks a definition name the revision's schema lacks.
var errUnknownDefinition = errors.New("schema has no definition")

// set returns the revision's loaded schema.
func (r Revision) set() (*schemaSet, error) {
	if r.Name == "" {
		return nil, errors.New("revision: zero Revision has no schema")
	}
	return schemaFor(r.Name, r.DefsKeyword)
}

// HasDefinition reports whether the revision's official schema defines def (e.g.
// "CallToolResult"). It is false for a revision without an embedded schema.
func (r Revision) HasDefinition(def string) bool {
	s, err := r.set()
	if err != nil {
		return false
	}
	_, ok := s.defs[def]
	return ok
}

// Definitions returns the names of every definition in the revision's official
// schema, in no particular order (nil when the revision has no embedded schema).
func (r Revision) Definitions() []string {
	s, err := r.set()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(s.defs))
	for name := range s.defs {
		out = append(out, name)
	}
	return out
}

// Validate validates instance against definition def of the revision's official
// schema. instance is either raw JSON (json.RawMessage or []byte, decoded with
// numbers kept exact) or an already-decoded value; values of types the validator does
// not understand directly (structs, typed maps and slices, …) are round-tripped
// through encoding/json first. A Go string is a JSON string, not JSON text.
//
// It returns nil when the instance is valid, a *ValidationError when it is not, and a
// plain error when the revision has no such definition or the instance is not JSON.
func (r Revision) Validate(def string, instance any) error {
	s, err := r.set()
	if err != nil {
		return err
	}
	if raw, ok := rawInstance(instance); ok && raw != nil {
		return s.validateRaw(r, def, raw)
	}
	return r.validate(s, def, instance)
}

// validateRaw validates raw JSON once: every check that validates the same bytes
// against the same definition reads the first result. A definition with an array of
// references to another definition (ListToolsResult's tools: Tool[]) is validated
// item by item, each distinct item once (validSplit): the pages of a list walked
// several times, or shifted by one tool after a change, share their tools.
func (s *schemaSet) validateRaw(r Revision, def string, raw []byte) error {
	key := newValidationKey(def, raw)
	if err, ok := s.validated.load(key); ok {
		return err
	}
	var err error
	if props := s.splitProps(def); len(raw) < minSplitBytes || len(props) == 0 || !s.validSplit(r, def, raw, props) {
		err = r.validate(s, def, raw)
	}
	s.validated.store(key, err)
	return err
}

// minSplitBytes is the size below which an instance is validated whole: splitting a
// small one costs more than it saves.
const minSplitBytes = 1024

// validateWhole validates raw JSON as a whole (never split), once per bytes.
func (s *schemaSet) validateWhole(r Revision, def string, raw []byte) error {
	key := newValidationKey("whole:"+def, raw)
	if err, ok := s.validated.load(key); ok {
		return err
	}
	err := r.validate(s, def, raw)
	s.validated.store(key, err)
	return err
}

// validationKey names one validation: the first half (128 bits: no two validations
// of a run collide) of the SHA-256 of the definition's name, a NUL and the bytes. A
// name beside the sum would double an entry: at 10,000 tools the cache holds tens of
// thousands of them.
type validationKey [16]byte

func newValidationKey(def string, raw []byte) validationKey {
	h := sha256.New()
	h.Write([]byte(def))
	h.Write([]byte{0})
	h.Write(raw)
	var sum [sha256.Size]byte
	var k validationKey
	copy(k[:], h.Sum(sum[:0]))
	return k
}

// maxCachedValidations bounds the cache: past it results are computed, not kept.
const maxCachedValidations = 1 << 20

// validationCache holds validation results by key: a set of the valid (the common
// case, 16 bytes an entry) and the errors of the invalid.
type validationCache struct {
	mu      sync.Mutex
	valid   map[validationKey]struct{}
	invalid map[validationKey]error
}

func (c *validationCache) load(k validationKey) (error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.valid[k]; ok {
		return nil, true
	}
	err, ok := c.invalid[k]
	return err, ok
}

func (c *validationCache) store(k validationKey, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.valid)+len(c.invalid) >= maxCachedValidations {
		return
	}
	if err == nil {
		if c.valid == nil {
			c.valid = map[validationKey]struct{}{}
		}
		c.valid[k] = struct{}{}
		return
	}
	if c.invalid == nil {
		c.invalid = map[validationKey]error{}
	}
	c.invalid[k] = err
}

// splitProp is an array member of a definition whose items are exactly references
// to another definition (itemDef).
type splitProp struct{ name, itemDef string }

// splitProps returns the members of def that validSplit may validate item by item.
func (s *schemaSet) splitProps(def string) []splitProp {
	if v, ok := s.splits.Load(def); ok {
		return v.([]splitProp)
	}
	var props []splitProp
	if d, ok := s.defs[def].(map[string]any); ok && !s.dynamic {
		props = splitOf(s.defs, s.defsKeyword, d)
	}
	s.splits.Store(def, props)
	return props
}

// Keywords that may sit beside the split members without making the split unsound:
// none of them looks into a member's value (annotations, the instance's type, which
// members are required, and additionalProperties, which never applies to a member
// named in properties).
var (
	splitDefKeys   = map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true, "description": true, "title": true, "$comment": true}
	splitArrayKeys = map[string]bool{"type": true, "items": true, "description": true, "title": true, "$comment": true}
	splitItemKeys  = map[string]bool{"$ref": true, "description": true, "title": true, "$comment": true}
)

// splitOf finds the members of definition d that are {"type": "array", "items":
// {"$ref": "#/<defs>/X"}} for a definition X of the same document, when d's other
// keywords are only those of splitDefKeys. For such a d and an object instance I
// whose members P are arrays, I is valid exactly when I with every P emptied is
// valid and every item of every P is valid as its X: "items" applies X to each item
// on its own, an empty array satisfies {"type": "array", "items": …}, and no other
// keyword of d reads the items. (The $ref resolves to the same compiled schema
// either way; with no $dynamicRef in the document, the path to it does not matter.)
func splitOf(defs map[string]any, defsKeyword string, d map[string]any) []splitProp {
	for k := range d {
		if !splitDefKeys[k] {
			return nil
		}
	}
	props, _ := d["properties"].(map[string]any)
	var out []splitProp
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok || pm["type"] != "array" || !onlyKeys(pm, splitArrayKeys) {
			continue
		}
		items, ok := pm["items"].(map[string]any)
		if !ok || !onlyKeys(items, splitItemKeys) {
			continue
		}
		ref, _ := items["$ref"].(string)
		itemDef, ok := strings.CutPrefix(ref, "#/"+defsKeyword+"/")
		if !ok || strings.ContainsAny(itemDef, "/~%") {
			continue
		}
		if _, ok := defs[itemDef]; !ok {
			continue
		}
		out = append(out, splitProp{name: name, itemDef: itemDef})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func onlyKeys(m map[string]any, allowed map[string]bool) bool {
	for k := range m {
		if !allowed[k] {
			return false
		}
	}
	return true
}

// validSplit reports whether raw is shown valid as def by validating the items of
// def's split members one by one (each through validateRaw, so once per distinct
// item) and the rest with those members emptied (splitOf says why that is the same
// verdict). False means not shown: the whole instance is then validated as it is,
// so an invalid one gets the error a whole validation gives, word for word.
func (s *schemaSet) validSplit(r Revision, def string, raw []byte, props []splitProp) bool {
	if !rawjson.Valid(raw) {
		return false
	}
	type span struct {
		start, end int
		itemDef    string
	}
	var spans []span
	seen := map[string]bool{}
	dup := false
	isObject := rawjson.Spans(raw, func(key string, start, end int) bool {
		for _, p := range props {
			if p.name != key {
				continue
			}
			if seen[key] {
				dup = true // a repeated member: left to the whole validation
				return false
			}
			seen[key] = true
			spans = append(spans, span{start: start, end: end, itemDef: p.itemDef})
		}
		return true
	})
	if !isObject || dup || len(spans) == 0 {
		return false
	}
	for _, sp := range spans {
		items, err := rawjson.ArrayOfValid(raw[sp.start:sp.end])
		if err != nil || items == nil {
			return false // not an array (null included)
		}
		for _, it := range items {
			if s.validateRaw(r, sp.itemDef, it) != nil {
				return false
			}
		}
	}
	envelope := make([]byte, 0, 256)
	prev := 0
	for _, sp := range spans { // in document order
		envelope = append(envelope, raw[prev:sp.start]...)
		envelope = append(envelope, "[]"...)
		prev = sp.end
	}
	envelope = append(envelope, raw[prev:]...)
	return s.validateWhole(r, def, envelope) == nil
}

func (r Revision) validate(s *schemaSet, def string, instance any) error {
	node, err := s.node(def)
	if err != nil {
		return err
	}
	return validateInstance(node, func() (*jsonschema.Schema, error) { return s.definition(def) },
		instance, def, r.Name, fmt.Sprintf("validate %s (%s)", def, r.Name))
}

// validateInstance validates instance against a schema: valid when provenValid shows
// it on node (on the JSON text itself when instance is raw JSON, on the decoded
// value otherwise; schema_fast_test.go holds the two proofs to each other), and
// otherwise by the library on the schema compile returns, compiled only then.
// decodeCtx prefixes the error of an instance that is not JSON.
func validateInstance(node *schemaNode, compile func() (*jsonschema.Schema, error), instance any, def, rev, decodeCtx string) error {
	if provenRaw(node, instance) {
		return nil // valid, shown on the JSON text without decoding it
	}
	v, err := normalizeInstance(instance)
	if err != nil {
		return fmt.Errorf("%s: %w", decodeCtx, err)
	}
	if _, raw := rawInstance(instance); !raw && provenValid(node, v, 0) {
		return nil // what the library would say, without its cost
	}
	sch, err := compile()
	if err != nil {
		return err
	}
	return validateWith(sch, v, def, rev)
}

// validateWith runs a compiled schema on v, the decoded instance, and converts the
// library's error tree.
func validateWith(sch *jsonschema.Schema, v any, def, rev string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validate %s: validator panicked: %v", def, r)
		}
	}()
	err = sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("validate %s: %w", def, err)
	}
	return newValidationError(def, rev, ve, v)
}

// compileCount reports how many times def was compiled for the named revision; for
// tests of the cache.
func compileCount(rev, def string) int {
	schemaSetsMu.Lock()
	s, ok := schemaSets[rev]
	schemaSetsMu.Unlock()
	if !ok {
		return 0
	}
	v, ok := s.compiled.Load(def)
	if !ok {
		return 0
	}
	return int(v.(*compiledDef).compiles.Load())
}

// Warm loads the revision's schema document and builds the nodes of the definitions
// a session validates first (with every definition they reference), so that a run
// can pay that cost while it waits for servers to start instead of at its first
// check. Nothing is compiled: valid instances never need the library (schema_fast.go).
// Errors are left for Validate to report.
func (r Revision) Warm() {
	s, err := r.set()
	if err != nil {
		return
	}
	for _, def := range []string{"InitializeResult", "DiscoverResult", "ServerCapabilities", "ListToolsResult", "CallToolResult", "EmptyResult", r.ErrorDefinition()} {
		if _, ok := s.defs[def]; ok {
			_, _ = s.node(def)
		}
	}
}
