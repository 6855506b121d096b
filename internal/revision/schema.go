package revision

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The official schemas, one directory per revision, byte-for-byte as published.
//
//go:embed schemas
var schemaFS embed.FS

// schemaBaseURL is the synthetic, non-resolvable base under which each revision's
// schema is registered with the compiler; "<base>/<rev>/schema.json".
const schemaBaseURL = "https://schemas.mcp-conform.invalid/"

// schemaSet is one revision's official schema: the raw document (for definition
// look-ups and union membership), a compiler, and the compiled definitions.
type schemaSet struct {
	name        string
	url         string
	defsKeyword string         // "definitions" or "$defs"
	defs        map[string]any // the definitions object

	mu       sync.Mutex // guards compiler, which is not safe for concurrent use
	compiler *jsonschema.Compiler
	compiled sync.Map // definition name → *compiledDef
	// validated memoizes Validate on raw JSON: validationKey → nil or the error.
	validated sync.Map
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
// embedded file on first use.
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
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("revision %s: parse embedded schema: %w", rev, err)
	}
	if _, ok := doc[defsKeyword]; !ok || defsKeyword == "" {
		defsKeyword = "definitions"
		if _, ok := doc["$defs"]; ok {
			defsKeyword = "$defs"
		}
	}
	defs, ok := doc[defsKeyword].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("revision %s: embedded schema has no %q object", rev, defsKeyword)
	}
	s := &schemaSet{
		name:        rev,
		url:         schemaBaseURL + rev + "/schema.json",
		defsKeyword: defsKeyword,
		defs:        defs,
	}
	c := newOfflineCompiler(func(url string) error {
		return fmt.Errorf("remote schema not fetched: %s", url)
	})
	if err := c.AddResource(s.url, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("revision %s: register embedded schema: %w", rev, err)
	}
	s.compiler = c
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

// definition returns the compiled schema of one definition, compiling it on first
// use. It returns errUnknownDefinition (wrapped) when the revision lacks it.
func (s *schemaSet) definition(def string) (*jsonschema.Schema, error) {
	if _, ok := s.defs[def]; !ok {
		return nil, fmt.Errorf("revision %s: %w %q", s.name, errUnknownDefinition, def)
	}
	v, _ := s.compiled.LoadOrStore(def, &compiledDef{})
	cd := v.(*compiledDef)
	cd.once.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		cd.compiles.Add(1)
		sch, err := s.compiler.Compile(s.url + "#/" + s.defsKeyword + "/" + escapePointerToken(def))
		if err != nil {
			cd.err = fmt.Errorf("revision %s: compile definition %s: %w", s.name, def, err)
			return
		}
		cd.schema = sch
	})
	return cd.schema, cd.err
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
	var raw []byte
	switch v := instance.(type) {
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	}
	if raw != nil {
		// A received message is validated once: every check that validates the same
		// bytes against the same definition reads the first result.
		key := validationKey{def: def, sum: sha256.Sum256(raw)}
		if v, ok := s.validated.Load(key); ok {
			if v == nil {
				return nil
			}
			return v.(error)
		}
		err := r.validate(s, def, raw)
		if err == nil {
			s.validated.Store(key, nil)
		} else {
			s.validated.Store(key, err)
		}
		return err
	}
	return r.validate(s, def, instance)
}

// validationKey names one validation: a definition and the SHA-256 of the bytes.
type validationKey struct {
	def string
	sum [sha256.Size]byte
}

func (r Revision) validate(s *schemaSet, def string, instance any) error {
	sch, err := s.definition(def)
	if err != nil {
		return err
	}
	v, err := normalizeInstance(instance)
	if err != nil {
		return fmt.Errorf("validate %s (%s): %w", def, r.Name, err)
	}
	return validateWith(sch, v, def, r.Name)
}

// validateWith runs a compiled schema and converts the library's error tree.
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

// Warm compiles the definitions a session validates first (and, with them, the
// revision's whole schema document), so that a run can pay that cost while it waits
// for servers to start instead of at its first check. Errors are left for Validate to
// report.
func (r Revision) Warm() {
	s, err := r.set()
	if err != nil {
		return
	}
	for _, def := range []string{"InitializeResult", "ServerCapabilities", "ListToolsResult", "CallToolResult", "EmptyResult", r.ErrorDefinition()} {
		if _, ok := s.defs[def]; ok {
			_, _ = s.definition(def)
		}
	}
}
