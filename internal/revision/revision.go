// Package revision is the registry of MCP protocol revisions as data: each revision's
// name, era, JSON Schema dialect, the features it introduced, and its official schema
// (embedded, unmodified) with a validator for its definitions.
//
// Adding a revision means adding an entry to registry (and, for a new era, a driver in
// the runner); nothing else switches on revision names.
package revision

import (
	"fmt"
	"slices"
	"strings"
)

// Era groups revisions that share a session model.
type Era string

// The eras. Legacy revisions open a session with initialize; modern ones (2026-07-28
// on) carry the version in every request's _meta.
const (
	Legacy Era = "legacy"
	Modern Era = "modern"
)

// JSON Schema dialect URIs.
const (
	Draft07   = "http://json-schema.org/draft-07/schema#"
	Draft2020 = "https://json-schema.org/draft/2020-12/schema"
)

// Feature names one thing a revision added (or, for Batching, had only briefly).
type Feature string

// Features that checks and the reference server switch on.
const (
	Batching           Feature = "batching"             // JSON-RPC batches: 2025-03-26 only
	StreamableHTTP     Feature = "streamable-http"      // the Streamable HTTP transport
	ToolAnnotations    Feature = "tool-annotations"     // Tool.annotations (ToolAnnotations)
	AudioContent       Feature = "audio-content"        // the audio content block
	ProgressMessage    Feature = "progress-message"     // ProgressNotification.message
	ResourceLink       Feature = "resource-link"        // the resource_link content block
	Title              Feature = "title"                // title on Tool, Implementation, …
	OutputSchema       Feature = "output-schema"        // Tool.outputSchema
	StructuredContent  Feature = "structured-content"   // CallToolResult.structuredContent
	Meta               Feature = "meta"                 // _meta on tools and content blocks
	LastModified       Feature = "last-modified"        // Annotations.lastModified
	VersionHeader      Feature = "version-header"       // MCP-Protocol-Version on HTTP
	Elicitation        Feature = "elicitation"          // elicitation/create (client feature)
	Icons              Feature = "icons"                // icons on Tool, Implementation, …
	ToolNameRules      Feature = "tool-name-rules"      // SHOULD 1–128 chars of [A-Za-z0-9_.-]
	Tasks              Feature = "tasks"                // experimental tasks, Tool.execution
	ErrorIDOptional    Feature = "error-id-optional"    // error responses may omit id
	ValidationIsResult Feature = "validation-is-result" // input validation → isError result
	DefaultDialect2020 Feature = "default-dialect-2020" // tool schemas default to 2020-12
)

// Revision is one protocol revision.
type Revision struct {
	Name    string // the protocolVersion string, e.g. "2025-06-18"
	Label   string // the catalogue's short label, e.g. "R3"
	Era     Era
	Dialect string // the dialect of the revision's own schema
	// DefsKeyword is "definitions" (draft-07) or "$defs" (2020-12).
	DefsKeyword string
	// Added lists the features this revision introduced.
	Added []Feature
	// Removed lists features this revision dropped.
	Removed []Feature
	index   int
}

// registry is the ordered list of revisions the suite knows.
var registry = []Revision{
	{Name: "2024-11-05", Label: "R1", Era: Legacy, Dialect: Draft07, DefsKeyword: "definitions"},
	{Name: "2025-03-26", Label: "R2", Era: Legacy, Dialect: Draft07, DefsKeyword: "definitions",
		Added: []Feature{Batching, StreamableHTTP, ToolAnnotations, AudioContent, ProgressMessage}},
	{Name: "2025-06-18", Label: "R3", Era: Legacy, Dialect: Draft07, DefsKeyword: "definitions",
		Added:   []Feature{ResourceLink, Title, OutputSchema, StructuredContent, Meta, LastModified, VersionHeader, Elicitation},
		Removed: []Feature{Batching}},
	{Name: "2025-11-25", Label: "R4", Era: Legacy, Dialect: Draft2020, DefsKeyword: "$defs",
		Added: []Feature{Icons, ToolNameRules, Tasks, ErrorIDOptional, ValidationIsResult, DefaultDialect2020}},
	{Name: "2026-07-28", Label: "R5", Era: Modern, Dialect: Draft2020, DefsKeyword: "$defs",
		Removed: []Feature{Tasks}},
}

func init() {
	for i := range registry {
		registry[i].index = i
	}
}

// All returns every known revision, oldest first.
func All() []Revision { return slices.Clone(registry) }

// Names returns the names of every known revision, oldest first.
func Names() []string {
	out := make([]string, len(registry))
	for i, r := range registry {
		out[i] = r.Name
	}
	return out
}

// Lookup finds a revision by name.
func Lookup(name string) (Revision, bool) {
	for _, r := range registry {
		if r.Name == name {
			return r, true
		}
	}
	return Revision{}, false
}

// MustLookup is Lookup for names known at compile time.
func MustLookup(name string) Revision {
	r, ok := Lookup(name)
	if !ok {
		panic("revision: unknown revision " + name)
	}
	return r
}

// Parse turns a comma-separated selection ("2025-06-18,2025-11-25", or "all"/"")
// into revisions, oldest first, without duplicates.
func Parse(sel string) ([]Revision, error) {
	sel = strings.TrimSpace(sel)
	if sel == "" || sel == "all" {
		return All(), nil
	}
	var out []Revision
	for _, part := range strings.Split(sel, ",") {
		name := strings.TrimSpace(part)
		if name == "" {
			continue
		}
		r, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown revision %q (known: %s)", name, strings.Join(Names(), ", "))
		}
		if !slices.ContainsFunc(out, func(x Revision) bool { return x.Name == r.Name }) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no revision selected in %q", sel)
	}
	slices.SortFunc(out, func(a, b Revision) int { return a.index - b.index })
	return out, nil
}

// Has reports whether the revision has the feature: some revision at or before it
// added it, and none between removed it.
func (r Revision) Has(f Feature) bool {
	has := false
	for _, x := range registry[:r.index+1] {
		if slices.Contains(x.Added, f) {
			has = true
		}
		if slices.Contains(x.Removed, f) {
			has = false
		}
	}
	return has
}

// AtLeast reports whether r is the named revision or a later one. It panics on an
// unknown name, which is a programming error.
func (r Revision) AtLeast(name string) bool { return r.index >= MustLookup(name).index }

// Before reports whether r is older than the named revision.
func (r Revision) Before(name string) bool { return !r.AtLeast(name) }

// Index is the revision's position, oldest first.
func (r Revision) Index() int { return r.index }

// Span returns the revisions a range expression names, in the catalogue's own
// notation (its Revs column): "all"; one label ("R5"); a label and every later
// revision ("R3+"); or a closed range ("R1–R4", an en dash or a hyphen). Checks and
// the catalogue write which revisions they cover this one way, so extending a check to
// a new revision is a one-word change ("R1–R4" → "all"). A malformed expression is a
// programming error and panics.
func Span(expr string) []Revision {
	out, err := ParseSpan(expr)
	if err != nil {
		panic("revision: " + err.Error())
	}
	return out
}

// ParseSpan is Span returning an error instead of panicking.
func ParseSpan(expr string) ([]Revision, error) {
	e := strings.TrimSpace(expr)
	first, last := -1, -1
	switch {
	case e == "all":
		first, last = 0, len(registry)-1
	case strings.HasSuffix(e, "+"):
		i, ok := labelIndex(strings.TrimSuffix(e, "+"))
		if !ok {
			return nil, fmt.Errorf("bad revision span %q", expr)
		}
		first, last = i, len(registry)-1
	default:
		lo, hi, isRange := strings.Cut(strings.Replace(e, "–", "-", 1), "-")
		i, ok := labelIndex(lo)
		j := i
		if isRange {
			var okHi bool
			j, okHi = labelIndex(hi)
			ok = ok && okHi && j > i
		}
		if !ok {
			return nil, fmt.Errorf("bad revision span %q", expr)
		}
		first, last = i, j
	}
	return slices.Clone(registry[first : last+1]), nil
}

// labelIndex finds a revision by its label ("R3").
func labelIndex(label string) (int, bool) {
	for i, r := range registry {
		if r.Label == strings.TrimSpace(label) {
			return i, true
		}
	}
	return 0, false
}

// InEra returns the known revisions of one era.
func InEra(e Era) []Revision {
	var out []Revision
	for _, r := range registry {
		if r.Era == e {
			out = append(out, r)
		}
	}
	return out
}
