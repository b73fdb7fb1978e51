package jsonschema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// maxViolations is how many violations a check reports.
const maxViolations = 3

// violations collects the first few violations of a check, each as
// "location: what", the location a JSON Pointer into the instance.
type violations struct {
	max  int
	list []string
}

func (vs *violations) full() bool { return len(vs.list) >= vs.max }

func (vs *violations) add(at, format string, args ...any) {
	if !vs.full() {
		vs.list = append(vs.list, where(at)+": "+fmt.Sprintf(format, args...))
	}
}

// Validate checks a decoded instance (numbers as json.Number)
// against the schema; it returns the first few violations, in a
// deterministic order (object members by name), or nil.
func Validate(n *Schema, inst any) []string {
	vs := &violations{max: maxViolations + 1}
	n.validate(inst, "", vs)
	if len(vs.list) > maxViolations {
		return append(vs.list[:maxViolations], "and more")
	}
	return vs.list
}

// matches: v satisfies n (anyOf, oneOf, not).
func (n *Schema) matches(v any, at string) bool {
	vs := &violations{max: 1}
	n.validate(v, at, vs)
	return len(vs.list) == 0
}

// validate adds the violations of v, found at the instance location at.
func (n *Schema) validate(v any, at string, vs *violations) {
	if n == nil || vs.full() {
		return
	}
	if n.reject {
		vs.add(at, "not allowed (the schema here is false)")
		return
	}
	if n.types != nil && !typeMatches(n.types, v) {
		vs.add(at, "want %s, got %s", strings.Join(n.types, " or "), jsonType(v))
		return
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e any) bool { return jsonEqual(e, v) }) {
		vs.add(at, "%s is not one of %s (enum)", shortJSON(v), shortJSON(n.enum))
	}
	if n.hasConst && !jsonEqual(n.constVal, v) {
		vs.add(at, "want %s (const), got %s", shortJSON(n.constVal), shortJSON(v))
	}
	switch x := v.(type) {
	case json.Number:
		n.validateNumber(parseNumber(x), at, vs)
	case string:
		n.validateString(x, at, vs)
	case []any:
		n.validateArray(x, at, vs)
	case map[string]any:
		n.validateObject(x, at, vs)
	}
	for _, s := range n.allOf {
		s.validate(v, at, vs)
	}
	if n.anyOf != nil && !slices.ContainsFunc(n.anyOf, func(s *Schema) bool { return s.matches(v, at) }) {
		vs.add(at, "matches none of the %d schemas of anyOf", len(n.anyOf))
	}
	if n.oneOf != nil {
		var matched []string
		for i, s := range n.oneOf {
			if s.matches(v, at) {
				matched = append(matched, strconv.Itoa(i))
			}
		}
		if len(matched) != 1 {
			which := "none"
			if len(matched) > 1 {
				which = "schemas " + strings.Join(matched, ", ")
			}
			vs.add(at, "matches %s of the %d schemas of oneOf, want exactly one", which, len(n.oneOf))
		}
	}
	if n.not != nil && n.not.matches(v, at) {
		vs.add(at, "matches the schema of not")
	}
}

func (n *Schema) validateNumber(x number, at string, vs *violations) {
	if n.minimum != nil && x.cmp(*n.minimum) < 0 {
		vs.add(at, "want >= %s, got %s", n.minimum.text, x.text)
	}
	if n.exclMin != nil && x.cmp(*n.exclMin) <= 0 {
		vs.add(at, "want > %s, got %s", n.exclMin.text, x.text)
	}
	if n.maximum != nil && x.cmp(*n.maximum) > 0 {
		vs.add(at, "want <= %s, got %s", n.maximum.text, x.text)
	}
	if n.exclMax != nil && x.cmp(*n.exclMax) >= 0 {
		vs.add(at, "want < %s, got %s", n.exclMax.text, x.text)
	}
	if n.multipleOf != nil && !x.multipleOf(*n.multipleOf) {
		vs.add(at, "want a multiple of %s, got %s", n.multipleOf.text, x.text)
	}
}

func (n *Schema) validateString(x string, at string, vs *violations) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := int64(utf8.RuneCountInString(x))
		if n.minLength >= 0 && l < n.minLength {
			vs.add(at, "want at least %d characters, got %d", n.minLength, l)
		}
		if n.maxLength >= 0 && l > n.maxLength {
			vs.add(at, "want at most %d characters, got %d", n.maxLength, l)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(x) {
		vs.add(at, "does not match the pattern %q", n.pattern.String())
	}
}

func (n *Schema) validateArray(x []any, at string, vs *violations) {
	l := int64(len(x))
	if n.minItems >= 0 && l < n.minItems {
		vs.add(at, "want at least %d items, got %d", n.minItems, l)
	}
	if n.maxItems >= 0 && l > n.maxItems {
		vs.add(at, "want at most %d items, got %d", n.maxItems, l)
	}
	if n.uniqueItems {
	unique:
		for i := range x {
			for j := i + 1; j < len(x); j++ {
				if jsonEqual(x[i], x[j]) {
					vs.add(at, "items %d and %d are equal, want unique items", i, j)
					break unique
				}
			}
		}
	}
	for i, e := range x {
		if vs.full() {
			return
		}
		if i < len(n.prefixItems) {
			n.prefixItems[i].validate(e, pointer(at, strconv.Itoa(i)), vs)
		} else {
			n.items.validate(e, pointer(at, strconv.Itoa(i)), vs)
		}
	}
}

func (n *Schema) validateObject(x map[string]any, at string, vs *violations) {
	var missing []string
	for _, r := range n.required {
		if _, ok := x[r]; !ok {
			missing = append(missing, r)
		}
	}
	if missing != nil {
		vs.add(at, "missing properties: %s", shortJSON(missing))
	}
	l := int64(len(x))
	if n.minProps >= 0 && l < n.minProps {
		vs.add(at, "want at least %d properties, got %d", n.minProps, l)
	}
	if n.maxProps >= 0 && l > n.maxProps {
		vs.add(at, "want at most %d properties, got %d", n.maxProps, l)
	}
	if n.properties == nil && n.additional == nil {
		return
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if vs.full() {
			return
		}
		s, ok := n.properties[k]
		switch {
		case ok:
			s.validate(x[k], pointer(at, k), vs)
		case n.additional != nil && n.additional.reject:
			vs.add(at, "property %q is not allowed (additionalProperties)", k)
		default:
			n.additional.validate(x[k], pointer(at, k), vs)
		}
	}
}

// typeMatches: v is of one of the types ("integer": a number with no
// fraction).
func typeMatches(types []string, v any) bool {
	for _, t := range types {
		switch x := v.(type) {
		case nil:
			if t == "null" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case []any:
			if t == "array" {
				return true
			}
		case map[string]any:
			if t == "object" {
				return true
			}
		case json.Number:
			if t == "number" || t == "integer" && parseNumber(x).isInteger() {
				return true
			}
		}
	}
	return false
}

// jsonEqual is JSON equality: numbers by value, arrays item by item,
// objects member by member.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool, string:
		return a == b
	case json.Number:
		y, ok := b.(json.Number)
		return ok && (x == y || parseNumber(x).cmp(parseNumber(y)) == 0)
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, jsonEqual)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			f, ok := y[k]
			if !ok || !jsonEqual(e, f) {
				return false
			}
		}
		return true
	}
	return false
}

// shortJSON writes v as JSON for a message, cut to about 60 bytes.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = termtext.Cut(s, 57) + "..."
	}
	return s
}
