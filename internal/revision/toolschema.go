package revision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Dialect URIs a tool's inputSchema/outputSchema may declare besides Draft07 and
// Draft2020. Dialect() reports these canonical spellings.
const (
	Draft04   = "http://json-schema.org/draft-04/schema#"
	Draft06   = "http://json-schema.org/draft-06/schema#"
	Draft2019 = "https://json-schema.org/draft/2019-09/schema"
)

// Every error CompileToolSchema returns wraps exactly one of these, so that checks
// can grade the failure (an unsupported dialect or a remote $ref is not the same
// verdict as a broken schema).
var (
	// ErrInvalidSchema: the schema is not JSON, not an object, or breaks its
	// dialect's meta-schema (e.g. {"type":"objekt"}), or a local $ref does not resolve.
	ErrInvalidSchema = errors.New("invalid JSON Schema")
	// ErrUnsupportedDialect: $schema names a dialect the validator does not know.
	ErrUnsupportedDialect = errors.New("unsupported dialect")
	// ErrRemoteRef: the schema needs a document that is not part of it; it is never
	// fetched.
	ErrRemoteRef = errors.New("remote $ref not fetched")
	// ErrRegex: a pattern the Go regexp engine (RE2) cannot compile. It may still be a
	// valid ECMA-262 regex (lookaround, backreferences), so treat it as inconclusive.
	ErrRegex = errors.New("pattern not supported by the Go regexp engine")
	// ErrTooComplex: the schema nests deeper than MaxSchemaDepth or is larger than
	// MaxSchemaBytes, so the suite does not compile it (compiling a 4,000-level schema
	// takes gigabytes). It is a bound of the suite, not a rule of the spec: callers
	// report such a schema as not verified, never as invalid.
	ErrTooComplex = errors.New("schema past the suite's bound")
)

// toolSchemaURL is the synthetic URL tool schemas are compiled under.
const (
	toolSchemaBase = "https://tool-schema.mcp-conform.invalid/"
	toolSchemaURL  = toolSchemaBase + "schema.json"
)

// dialectInfo describes one dialect the validator supports.
type dialectInfo struct {
	uri   string // canonical URI
	name  string // short name for messages, e.g. "2020-12"
	draft *jsonschema.Draft
}

var dialects = []dialectInfo{
	{Draft04, "draft-04", jsonschema.Draft4},
	{Draft06, "draft-06", jsonschema.Draft6},
	{Draft07, "draft-07", jsonschema.Draft7},
	{Draft2019, "2019-09", jsonschema.Draft2019},
	{Draft2020, "2020-12", jsonschema.Draft2020},
}

// lookupDialect finds a dialect by $schema value, accepting what the validator
// accepts: http or https, with or without a trailing "#" (or "#/"), and the
// unversioned "https://json-schema.org/schema" meaning the latest (2020-12).
func lookupDialect(uri string) (dialectInfo, bool) {
	// The URIs as the dialects spell them first: a revision's default dialect is
	// looked up for every tool schema, and normalizing it cost an allocation each.
	if d, ok := dialectsByURI[uri]; ok {
		return d, true
	}
	d, ok := dialectsByURI[normalizeDialectURI(uri)]
	return d, ok
}

// dialectsByURI holds each dialect under its own URI and its normalized one.
var dialectsByURI = func() map[string]dialectInfo {
	m := map[string]dialectInfo{}
	for _, d := range dialects {
		m[d.uri] = d
		m[normalizeDialectURI(d.uri)] = d
		if d.uri == Draft2020 {
			m["https://json-schema.org/schema"] = d
		}
	}
	return m
}()

func normalizeDialectURI(s string) string {
	if rest, ok := strings.CutPrefix(s, "http://"); ok {
		s = "https://" + rest
	}
	if i := strings.IndexByte(s, '#'); i >= 0 && (s[i:] == "#" || s[i:] == "#/") {
		s = s[:i]
	}
	return s
}

// DialectName returns the short name of a dialect URI ("draft-07", "2020-12", …), or
// the URI itself when it is not a supported dialect.
func DialectName(uri string) string {
	if d, ok := lookupDialect(uri); ok {
		return d.name
	}
	return uri
}

// ToolSchema is a compiled tool inputSchema or outputSchema.
type ToolSchema struct {
	schema  *jsonschema.Schema
	dialect dialectInfo
	// src is the schema's JSON text (shared with toolSchemaCache's key, so kept at no
	// cost), from which the nodes of provenValid are built on the first Validate:
	// most tool schemas, the inputSchemas, are never validated against, and keeping
	// every listed schema decoded would cost memory in a listing of thousands.
	src      string
	nodeOnce sync.Once
	root     *schemaNode
}

// node returns the schemaNode of the whole schema.
func (t *ToolSchema) node() *schemaNode {
	t.nodeOnce.Do(func() {
		doc, err := decodeJSON([]byte(t.src))
		obj, ok := doc.(map[string]any)
		if err != nil || !ok {
			t.root = &schemaNode{unsupported: true} // not reached: the schema compiled
			return
		}
		t.root = newNodeDoc(obj).rootNode()
	})
	return t.root
}

// Dialect returns the canonical URI of the dialect the schema was compiled under:
// its declared $schema, or the default passed to CompileToolSchema.
func (t *ToolSchema) Dialect() string { return t.dialect.uri }

// Validate validates an instance (e.g. a CallToolResult's structuredContent) against
// the schema. instance is handled as in Revision.Validate. It returns nil when valid,
// a *ValidationError with Definition "outputSchema" when not, and a plain error when
// instance is not JSON.
func (t *ToolSchema) Validate(instance any) error {
	return validateInstance(t.node(), func() (*jsonschema.Schema, error) { return t.schema, nil },
		instance, "outputSchema", "", "validate against outputSchema")
}

// CompileToolSchema compiles a tool's inputSchema or outputSchema. The dialect is the
// schema's $schema when present (it must be one the validator supports: draft-04,
// -06, -07, 2019-09 or 2020-12), and defaultDialect (Draft07 or Draft2020, or any
// other supported dialect URI) otherwise.
//
// Nothing is ever loaded from the network or the file system: local references
// ("#/$defs/x", "#/definitions/x", anchors) work, any other reference fails with
// ErrRemoteRef. format and contentEncoding are annotations only. The schema must be a
// JSON object; null, booleans, arrays and schemas that break their meta-schema fail
// with ErrInvalidSchema. Every error wraps one of the Err* sentinels of this package.
func CompileToolSchema(raw json.RawMessage, defaultDialect string) (*ToolSchema, error) {
	if err := checkSchemaBounds(raw); err != nil {
		return nil, err
	}
	key := defaultDialect + "\x00" + string(raw)
	compile := func(c *compiledTool) {
		c.ts, c.err = compileToolSchema(raw, defaultDialect)
		if c.ts != nil {
			c.ts.src = key[len(defaultDialect)+1:]
		}
	}
	if v, ok := toolSchemaCache.Load(key); ok {
		c := v.(*compiledTool)
		c.once.Do(func() { compile(c) })
		return c.ts, c.err
	}
	v, _ := toolSchemaCache.LoadOrStore(key, &compiledTool{})
	c := v.(*compiledTool)
	c.once.Do(func() { compile(c) })
	return c.ts, c.err
}

// toolSchemaCache holds every tool schema compiled in this process, by default
// dialect and exact bytes: servers list many tools of few shapes, the same listing
// is judged by several checks, and compiling dominates the cost of a large listing.
// A compiled schema is immutable and safe for concurrent validation.
var toolSchemaCache sync.Map // string → *compiledTool

// compiledTool is one cached compilation; once guarantees a single compile.
type compiledTool struct {
	once sync.Once
	ts   *ToolSchema
	err  error
}

func compileToolSchema(raw json.RawMessage, defaultDialect string) (*ToolSchema, error) {
	doc, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: a schema must be a JSON object, got %s", ErrInvalidSchema, jsonKind(doc))
	}
	var d dialectInfo
	if decl, present := obj["$schema"]; present {
		s, ok := decl.(string)
		if !ok {
			return nil, fmt.Errorf("%w: $schema must be a string, got %s", ErrInvalidSchema, jsonKind(decl))
		}
		if d, ok = lookupDialect(s); !ok {
			return nil, fmt.Errorf("%w: $schema %q", ErrUnsupportedDialect, s)
		}
	} else if d, ok = lookupDialect(defaultDialect); !ok {
		return nil, fmt.Errorf("%w: default dialect %q", ErrUnsupportedDialect, defaultDialect)
	}

	var (
		remoteMu sync.Mutex
		remote   []string
	)
	c := newOfflineCompiler(func(url string) error {
		remoteMu.Lock()
		remote = append(remote, url)
		remoteMu.Unlock()
		return fmt.Errorf("%w: %s", ErrRemoteRef, url)
	})
	c.Draft = d.draft
	if err := c.AddResource(toolSchemaURL, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	sch, err := compileGuarded(c, toolSchemaURL)
	if err == nil {
		return &ToolSchema{schema: sch, dialect: d}, nil
	}
	if len(remote) > 0 {
		ref := remote[0]
		if rel, ok := strings.CutPrefix(ref, toolSchemaBase); ok {
			return nil, fmt.Errorf("%w: relative reference %q (the schema has no base URL)", ErrRemoteRef, rel)
		}
		return nil, fmt.Errorf("%w: %s", ErrRemoteRef, ref)
	}
	var rp regexPanic
	if errors.As(err, &rp) {
		return nil, fmt.Errorf("%w: %s", ErrRegex, rp.msg)
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		probs := newValidationError("schema", d.name, ve, doc).Problems
		msgs := make([]string, len(probs))
		allRegex := len(probs) > 0
		for i, p := range probs {
			msgs[i] = p.String()
			allRegex = allRegex && strings.HasSuffix(p.Message, "is not valid 'regex'")
		}
		sentinel := ErrInvalidSchema
		if allRegex {
			sentinel = ErrRegex
		}
		return nil, fmt.Errorf("%w under %s: %s", sentinel, d.name, strings.Join(msgs, "; "))
	}
	if inner := errors.Unwrap(err); inner != nil {
		err = inner
	}
	msg := strings.ReplaceAll(strings.TrimPrefix(err.Error(), "jsonschema: "), toolSchemaURL, "")
	return nil, fmt.Errorf("%w under %s: %s", ErrInvalidSchema, d.name, msg)
}

// The bounds on a schema the suite compiles. Real tool schemas nest a few levels and
// weigh kilobytes; the bounds leave room for generous ones.
const (
	MaxSchemaDepth = 64
	MaxSchemaBytes = 1 << 20
)

// checkSchemaBounds measures raw's nesting depth in one linear pass (strings are
// skipped) and fails with ErrTooComplex past MaxSchemaDepth or MaxSchemaBytes.
func checkSchemaBounds(raw []byte) error {
	if len(raw) > MaxSchemaBytes {
		return fmt.Errorf("%w: %d bytes, more than %d", ErrTooComplex, len(raw), MaxSchemaBytes)
	}
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	if deepest > MaxSchemaDepth {
		return fmt.Errorf("%w: nests %d levels of objects and arrays, more than %d", ErrTooComplex, deepest, MaxSchemaDepth)
	}
	return nil
}

// regexPanic is a recovered panic from compiling a pattern the library hands
// straight to regexp.MustCompile (2019-09 and 2020-12 only annotate "format":"regex"
// in their meta-schemas, so nothing rejects such patterns earlier).
type regexPanic struct{ msg string }

func (e regexPanic) Error() string { return e.msg }

// compileGuarded compiles url, turning the library's panics on hostile input into
// errors.
func compileGuarded(c *jsonschema.Compiler, url string) (sch *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprint(r)
			if strings.Contains(msg, "regexp: Compile") {
				err = regexPanic{msg: msg}
				return
			}
			err = fmt.Errorf("jsonschema: compiler panicked: %s", msg)
		}
	}()
	return c.Compile(url)
}

// CompileAnyDialect reports the dialect a schema compiles under, for revisions that
// leave tool-schema dialects open (2024-11-05 … 2025-06-18): its declared $schema if
// any, otherwise 2020-12 and then draft-07. When both fail, the error carries both
// reasons.
func CompileAnyDialect(raw json.RawMessage) (dialect string, err error) {
	if err := checkSchemaBounds(raw); err != nil {
		return "", err
	}
	type answer struct {
		dialect string
		err     error
	}
	if v, ok := anyDialectCache.Load(string(raw)); ok {
		a := v.(answer)
		return a.dialect, a.err
	}
	dialect, err = compileAnyDialect(raw)
	anyDialectCache.Store(string(raw), answer{dialect, err})
	return dialect, err
}

// anyDialectCache memoizes CompileAnyDialect by exact bytes (see toolSchemaCache).
var anyDialectCache sync.Map // string → answer

func compileAnyDialect(raw json.RawMessage) (dialect string, err error) {
	if doc, derr := decodeJSON(raw); derr == nil {
		if obj, ok := doc.(map[string]any); ok {
			if _, declared := obj["$schema"]; declared {
				ts, err := CompileToolSchema(raw, Draft2020)
				if err != nil {
					return "", err
				}
				return ts.Dialect(), nil
			}
		}
	}
	ts, err2020 := CompileToolSchema(raw, Draft2020)
	if err2020 == nil {
		return ts.Dialect(), nil
	}
	ts, err07 := CompileToolSchema(raw, Draft07)
	if err07 == nil {
		return ts.Dialect(), nil
	}
	if strings.Replace(err2020.Error(), " under 2020-12", "", 1) == strings.Replace(err07.Error(), " under draft-07", "", 1) {
		// The same complaint in both dialects: say it once.
		return "", fmt.Errorf("%w (same under draft-07)", err2020)
	}
	return "", fmt.Errorf("valid under neither 2020-12 (%w) nor draft-07 (%w)", err2020, err07)
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return "number"
	}
}
