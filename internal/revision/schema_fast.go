package revision

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcp-conform/mcp-conform/internal/rawjson"
)

// The validator library reports every failure with its keyword and instance paths,
// and pays for that on every success too: each object and array it visits gets a map
// of what is yet unevaluated, each member a path string. A listing of 10,000 tools
// is 10,000 successes per revision. provenValid walks the same compiled schema for a
// yes only, and only through the keywords the official MCP schemas (and most tool
// schemas) use; a schema with any other keyword, or an instance it cannot prove
// valid, goes to the library, which then decides and words the error. So it may
// answer "not proven" for a valid instance, never "valid" for an invalid one (see
// schema_fast_test.go, which holds it to the library).

// maxInPlace bounds the chain of $ref/allOf/anyOf applied to one value without
// descending into it; a longer one (a reference loop) is left to the library, which
// reports it.
const maxInPlace = 64

// provenValid reports whether v (a value as decodeJSON returns it) is valid against
// s by the rules the library applies, when s uses only keywords this file evaluates.
func provenValid(s *jsonschema.Schema, v any, inPlace int) bool {
	if inPlace > maxInPlace || !fastSupported(s) {
		return false
	}
	if s.Always != nil {
		return *s.Always
	}
	if len(s.Types) > 0 && !typeMatches(s.Types, v) {
		return false
	}
	if len(s.Constant) > 0 && !jsonEqual(v, s.Constant[0]) {
		return false
	}
	if len(s.Enum) > 0 {
		found := false
		for _, e := range s.Enum {
			if jsonEqual(v, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, name := range s.Required {
			if _, ok := v[name]; !ok {
				return false
			}
		}
		for name, sub := range s.Properties {
			if pv, ok := v[name]; ok && !provenValid(sub, pv, 0) {
				return false
			}
		}
		switch ap := s.AdditionalProperties.(type) {
		case nil:
		case bool:
			if !ap {
				for name := range v {
					if _, ok := s.Properties[name]; !ok {
						return false
					}
				}
			}
		case *jsonschema.Schema:
			for name, pv := range v {
				if _, ok := s.Properties[name]; !ok && !provenValid(ap, pv, 0) {
					return false
				}
			}
		default:
			return false
		}
	case []any:
		if (s.MinItems != -1 && len(v) < s.MinItems) || (s.MaxItems != -1 && len(v) > s.MaxItems) {
			return false
		}
		switch items := s.Items.(type) {
		case nil:
		case *jsonschema.Schema:
			for _, it := range v {
				if !provenValid(items, it, 0) {
					return false
				}
			}
		default:
			return false
		}
		if s.Items2020 != nil {
			for _, it := range v {
				if !provenValid(s.Items2020, it, 0) {
					return false
				}
			}
		}
	case json.Number:
		if s.Minimum != nil || s.Maximum != nil {
			r, ok := new(big.Rat).SetString(string(v))
			if !ok || (s.Minimum != nil && r.Cmp(s.Minimum) < 0) || (s.Maximum != nil && r.Cmp(s.Maximum) > 0) {
				return false
			}
		}
	case nil, bool, string:
	default:
		return false // not a decoded JSON value: the library decides
	}
	if s.Ref != nil && !provenValid(s.Ref, v, inPlace+1) {
		return false
	}
	for _, sub := range s.AllOf {
		if !provenValid(sub, v, inPlace+1) {
			return false
		}
	}
	if len(s.AnyOf) > 0 {
		for _, sub := range s.AnyOf {
			if provenValid(sub, v, inPlace+1) {
				return true
			}
		}
		return false
	}
	return true
}

// fastSupported reports whether every keyword s carries is one provenValid
// evaluates. Annotations (title, description, default, examples, …) and format are
// not assertions here: the suite's compilers assert no format (newOfflineCompiler).
func fastSupported(s *jsonschema.Schema) bool {
	return s.Not == nil && len(s.OneOf) == 0 && s.If == nil && s.Then == nil && s.Else == nil &&
		s.RecursiveRef == nil && s.DynamicRef == nil &&
		s.MinProperties == -1 && s.MaxProperties == -1 && s.PropertyNames == nil && !s.RegexProperties &&
		len(s.PatternProperties) == 0 && len(s.Dependencies) == 0 && len(s.DependentRequired) == 0 &&
		len(s.DependentSchemas) == 0 && s.UnevaluatedProperties == nil &&
		!s.UniqueItems && s.AdditionalItems == nil && len(s.PrefixItems) == 0 && s.Contains == nil &&
		s.UnevaluatedItems == nil &&
		s.MinLength == -1 && s.MaxLength == -1 && s.Pattern == nil &&
		s.ContentEncoding == "" && s.ContentMediaType == "" && s.ContentSchema == nil &&
		s.ExclusiveMinimum == nil && s.ExclusiveMaximum == nil && s.MultipleOf == nil &&
		len(s.Extensions) == 0
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
func provenValidRaw(s *jsonschema.Schema, data []byte, inPlace int) bool {
	if inPlace > maxInPlace || !fastSupported(s) {
		return false
	}
	if s.Always != nil {
		return *s.Always
	}
	kind := rawjson.KindOf(data)
	if len(s.Types) > 0 && !rawTypeMatches(s.Types, kind, data) {
		return false
	}
	if len(s.Constant) > 0 || len(s.Enum) > 0 {
		v, err := decodeJSON(data)
		if err != nil {
			return false
		}
		if len(s.Constant) > 0 && !jsonEqual(v, s.Constant[0]) {
			return false
		}
		if len(s.Enum) > 0 {
			found := false
			for _, e := range s.Enum {
				if jsonEqual(v, e) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	switch kind {
	case rawjson.KindObject:
		if !provenObjectRaw(s, data) {
			return false
		}
	case rawjson.KindArray:
		var items *jsonschema.Schema
		switch it := s.Items.(type) {
		case nil:
		case *jsonschema.Schema:
			items = it
		default:
			return false
		}
		n, ok := 0, true
		if !rawjson.ArrayItems(data, func(item json.RawMessage) bool {
			n++
			ok = (items == nil || provenValidRaw(items, item, 0)) && (s.Items2020 == nil || provenValidRaw(s.Items2020, item, 0))
			return ok
		}) || !ok {
			return false
		}
		if (s.MinItems != -1 && n < s.MinItems) || (s.MaxItems != -1 && n > s.MaxItems) {
			return false
		}
	case rawjson.KindNumber:
		if s.Minimum != nil || s.Maximum != nil {
			r, ok := new(big.Rat).SetString(string(bytes.TrimSpace(data)))
			if !ok || (s.Minimum != nil && r.Cmp(s.Minimum) < 0) || (s.Maximum != nil && r.Cmp(s.Maximum) > 0) {
				return false
			}
		}
	case rawjson.KindNull, rawjson.KindBool, rawjson.KindString:
	default:
		return false
	}
	if s.Ref != nil && !provenValidRaw(s.Ref, data, inPlace+1) {
		return false
	}
	for _, sub := range s.AllOf {
		if !provenValidRaw(sub, data, inPlace+1) {
			return false
		}
	}
	if len(s.AnyOf) > 0 {
		for _, sub := range s.AnyOf {
			if provenValidRaw(sub, data, inPlace+1) {
				return true
			}
		}
		return false
	}
	return true
}

// provenObjectRaw checks an object's required, properties and additionalProperties.
func provenObjectRaw(s *jsonschema.Schema, data []byte) bool {
	const maxRequired = 32
	if len(s.Required) > maxRequired {
		return false
	}
	var found [maxRequired]bool
	ok := true
	if !rawjson.MemberTokens(data, func(key []byte, plain bool, value json.RawMessage) bool {
		name := ""
		if !plain {
			name = rawjson.Key(key)
		}
		var sub *jsonschema.Schema
		var listed bool
		if plain {
			sub, listed = s.Properties[string(key)] // no allocation for the look-up
		} else {
			sub, listed = s.Properties[name]
		}
		for i, r := range s.Required {
			if (plain && r == string(key)) || (!plain && r == name) {
				found[i] = true
			}
		}
		switch {
		case listed:
			ok = provenValidRaw(sub, value, 0)
		default:
			switch ap := s.AdditionalProperties.(type) {
			case nil:
			case bool:
				ok = ap
			case *jsonschema.Schema:
				ok = provenValidRaw(ap, value, 0)
			default:
				ok = false
			}
		}
		return ok
	}) || !ok {
		return false
	}
	for i := range s.Required {
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
func provenRaw(s *jsonschema.Schema, instance any) bool {
	raw, ok := rawInstance(instance)
	return ok && rawjson.Valid(raw) && provenValidRaw(s, raw, 0)
}

// provenDecoded reports whether v, the decoded instance, is shown valid by
// provenValid. Raw JSON text had its proof on the text already (provenRaw), and the
// two proofs agree (schema_fast_test.go), so it is not tried a second time.
func provenDecoded(s *jsonschema.Schema, instance, v any) bool {
	if _, raw := rawInstance(instance); raw {
		return false
	}
	return provenValid(s, v, 0)
}
