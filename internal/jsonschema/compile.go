// Package jsonschema is a small validator of the JSON Schema (draft
// 2020-12) keywords a feature list needs (long-running's feature_schema in
// internal/strategy), rather than a general JSON Schema library: such a
// library's package init would run on every hook call. A keyword outside
// the supported list is a schema error, never silently ignored.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// SupportedKeywords lists the keywords the validator knows, for errors.
const SupportedKeywords = "type, properties, required, additionalProperties, items, prefixItems, " +
	"enum, const, minItems, maxItems, uniqueItems, minLength, maxLength, pattern, " +
	"minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, " +
	"minProperties, maxProperties, allOf, anyOf, oneOf, not, and the annotations " +
	"$schema, $id, $comment, title, description, default, examples, deprecated, readOnly, writeOnly, format"

// Schema is one compiled (sub)schema. A nil *Schema accepts
// everything.
type Schema struct {
	reject bool // the schema false

	types []string // type; nil: any

	properties  map[string]*Schema
	required    []string
	additional  *Schema // additionalProperties; nil: any
	minProps    int64   // -1: unset
	maxProps    int64
	items       *Schema // nil: any
	prefixItems []*Schema
	minItems    int64
	maxItems    int64
	uniqueItems bool

	enum     []any
	hasEnum  bool
	constVal any
	hasConst bool

	minLength, maxLength int64
	pattern              *regexp.Regexp

	minimum, maximum    *number
	exclMin, exclMax    *number
	multipleOf          *number
	allOf, anyOf, oneOf []*Schema
	not                 *Schema
}

// ErrNotSchema and ErrUnusable start the two kinds of schema error: a
// document that is not a JSON Schema (not JSON, or a keyword whose value
// has the wrong type), and a schema this validator cannot use (a keyword
// it does not support, a pattern RE2 rejects).
var (
	ErrNotSchema = errors.New("not a JSON Schema")
	ErrUnusable  = errors.New("not a usable JSON Schema")
)

// Compile reads a JSON Schema document.
func Compile(raw []byte) (*Schema, error) {
	doc, err := Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSchema, err)
	}
	n, err := compileNode(doc, "")
	if n == nil && err == nil {
		n = newNode() // true: kept non-nil, nil is the default schema
	}
	return n, err
}

// Decode decodes one JSON value, numbers as json.Number, with nothing
// after it.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the top-level value at byte %d", dec.InputOffset())
	}
	return v, nil
}

// notSchema and unusable make the two kinds of error for the keyword at
// the schema location at.
func notSchema(at, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrNotSchema, where(at), fmt.Sprintf(format, args...))
}

func unusable(at, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrUnusable, where(at), fmt.Sprintf(format, args...))
}

// where names a location (a JSON Pointer) for a message.
func where(at string) string {
	if at == "" {
		return "root"
	}
	return at
}

// pointer appends one reference token to the JSON Pointer at.
func pointer(at, token string) string {
	return at + "/" + strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// newNode is a schema with no keywords (it accepts everything).
func newNode() *Schema {
	return &Schema{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
}

// compileNode compiles the (sub)schema v found at the schema location at.
func compileNode(v any, at string) (*Schema, error) {
	switch s := v.(type) {
	case bool:
		if s {
			return nil, nil
		}
		return &Schema{reject: true}, nil
	case map[string]any:
		n := newNode()
		keys := make([]string, 0, len(s))
		for k := range s {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := n.keyword(k, s[k], pointer(at, k)); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
	return nil, notSchema(at, "want a schema (an object or a boolean), got %s", jsonType(v))
}

// keyword compiles one keyword k with value v (at its location).
func (n *Schema) keyword(k string, v any, at string) error {
	var err error
	switch k {
	case "$schema":
		var uri string
		if uri, err = stringValue(v, at); err == nil && strings.TrimSuffix(uri, "#") != "https://json-schema.org/draft/2020-12/schema" {
			err = unusable(at, "%q: only draft 2020-12 (https://json-schema.org/draft/2020-12/schema) is supported", uri)
		}
	case "$id", "$comment", "title", "description", "format":
		_, err = stringValue(v, at)
	case "deprecated", "readOnly", "writeOnly":
		_, err = boolValue(v, at)
	case "default":
	case "examples":
		if _, ok := v.([]any); !ok {
			err = notSchema(at, "want an array, got %s", jsonType(v))
		}
	case "type":
		n.types, err = typeValue(v, at)
	case "properties":
		m, ok := v.(map[string]any)
		if !ok {
			return notSchema(at, "want an object of schemas, got %s", jsonType(v))
		}
		n.properties = make(map[string]*Schema, len(m))
		for name, sub := range m {
			if n.properties[name], err = compileNode(sub, pointer(at, name)); err != nil {
				return err
			}
		}
	case "required":
		n.required, err = stringsValue(v, at)
	case "additionalProperties":
		n.additional, err = compileNode(v, at)
	case "items":
		if _, ok := v.([]any); ok {
			return notSchema(at, "want one schema for every element (a list of schemas is prefixItems in draft 2020-12)")
		}
		n.items, err = compileNode(v, at)
	case "prefixItems":
		n.prefixItems, err = schemasValue(v, at)
	case "allOf":
		n.allOf, err = schemasValue(v, at)
	case "anyOf":
		n.anyOf, err = schemasValue(v, at)
	case "oneOf":
		n.oneOf, err = schemasValue(v, at)
	case "not":
		if n.not, err = compileNode(v, at); err == nil && n.not == nil {
			n.not = newNode() // not: true rejects everything
		}
	case "enum":
		a, ok := v.([]any)
		if !ok {
			return notSchema(at, "want an array, got %s", jsonType(v))
		}
		n.enum, n.hasEnum = a, true
	case "const":
		n.constVal, n.hasConst = v, true
	case "uniqueItems":
		n.uniqueItems, err = boolValue(v, at)
	case "minItems":
		n.minItems, err = countValue(v, at)
	case "maxItems":
		n.maxItems, err = countValue(v, at)
	case "minLength":
		n.minLength, err = countValue(v, at)
	case "maxLength":
		n.maxLength, err = countValue(v, at)
	case "minProperties":
		n.minProps, err = countValue(v, at)
	case "maxProperties":
		n.maxProps, err = countValue(v, at)
	case "pattern":
		var p string
		if p, err = stringValue(v, at); err == nil {
			if n.pattern, err = regexp.Compile(p); err != nil {
				err = unusable(at, "pattern %q: %v (patterns are Go RE2 syntax)", p, err)
			}
		}
	case "minimum":
		n.minimum, err = numberValue(v, at)
	case "maximum":
		n.maximum, err = numberValue(v, at)
	case "exclusiveMinimum":
		n.exclMin, err = numberValue(v, at)
	case "exclusiveMaximum":
		n.exclMax, err = numberValue(v, at)
	case "multipleOf":
		if n.multipleOf, err = numberValue(v, at); err == nil && n.multipleOf.sign() <= 0 {
			err = notSchema(at, "want a number greater than 0, got %s", v)
		}
	default:
		return unusable(at, "keyword %q is not supported (supported: %s)", k, SupportedKeywords)
	}
	return err
}

func stringValue(v any, at string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", notSchema(at, "want a string, got %s", jsonType(v))
	}
	return s, nil
}

func boolValue(v any, at string) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, notSchema(at, "want a boolean, got %s", jsonType(v))
	}
	return b, nil
}

// stringsValue reads an array of unique strings (required).
func stringsValue(v any, at string) ([]string, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, notSchema(at, "want an array of strings, got %s", jsonType(v))
	}
	out := make([]string, 0, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, notSchema(pointer(at, strconv.Itoa(i)), "want a string, got %s", jsonType(e))
		}
		if slices.Contains(out, s) {
			return nil, notSchema(at, "%q is listed twice", s)
		}
		out = append(out, s)
	}
	return out, nil
}

// typeValue reads type: one of the seven type names or an array of them.
func typeValue(v any, at string) ([]string, error) {
	names, err := []string(nil), error(nil)
	if s, ok := v.(string); ok {
		names = []string{s}
	} else if _, ok := v.([]any); ok {
		if names, err = stringsValue(v, at); err != nil {
			return nil, err
		}
		if len(names) == 0 {
			return nil, notSchema(at, "want a type name or a non-empty array of them")
		}
	} else {
		return nil, notSchema(at, "want a type name or an array of them, got %s", jsonType(v))
	}
	for _, s := range names {
		switch s {
		case "null", "boolean", "object", "array", "number", "string", "integer":
		default:
			return nil, notSchema(at, "%q is not a type (want null, boolean, object, array, number, string or integer)", s)
		}
	}
	return names, nil
}

// schemasValue reads a non-empty array of schemas (allOf, prefixItems...).
func schemasValue(v any, at string) ([]*Schema, error) {
	a, ok := v.([]any)
	if !ok || len(a) == 0 {
		return nil, notSchema(at, "want a non-empty array of schemas, got %s", jsonType(v))
	}
	out := make([]*Schema, len(a))
	for i, e := range a {
		var err error
		if out[i], err = compileNode(e, pointer(at, strconv.Itoa(i))); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// countValue reads a non-negative integer (minItems, maxLength...); one
// too large for int64 counts as the largest.
func countValue(v any, at string) (int64, error) {
	n, err := numberValue(v, at)
	if err != nil {
		return 0, err
	}
	if !n.isInteger() || n.sign() < 0 {
		return 0, notSchema(at, "want a non-negative integer, got %s", v)
	}
	if n.r == nil || !n.r.Num().IsInt64() {
		return math.MaxInt64, nil
	}
	return n.r.Num().Int64(), nil
}

func numberValue(v any, at string) (*number, error) {
	s, ok := v.(json.Number)
	if !ok {
		return nil, notSchema(at, "want a number, got %s", jsonType(v))
	}
	n := parseNumber(s)
	return &n, nil
}

// jsonType names the JSON type of a decoded value, for messages.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", x)
	}
}

// number is a JSON number: exact (r) when its text is of a sane size,
// else the nearest float64 (a number like 1e999999999 would make an exact
// value huge).
type number struct {
	r    *big.Rat
	f    float64
	text string // as written, for messages
}

func parseNumber(s json.Number) number {
	text := string(s)
	f, _ := strconv.ParseFloat(text, 64) // out of range: ±Inf or 0, fine here
	exact := len(text) <= 1000
	if i := strings.IndexAny(text, "eE"); i >= 0 && exact {
		e, err := strconv.Atoi(strings.TrimPrefix(text[i+1:], "+"))
		exact = err == nil && e >= -1000 && e <= 1000
	}
	if exact {
		if r, ok := new(big.Rat).SetString(text); ok {
			return number{r: r, f: f, text: text}
		}
	}
	return number{f: f, text: text}
}

func (a number) cmp(b number) int {
	if a.r != nil && b.r != nil {
		return a.r.Cmp(b.r)
	}
	switch {
	case a.f < b.f:
		return -1
	case a.f > b.f:
		return 1
	}
	return 0
}

func (a number) sign() int {
	if a.r != nil {
		return a.r.Sign()
	}
	return cmpFloat(a.f, 0)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// isInteger: a number with no fraction (1.0 is an integer).
func (a number) isInteger() bool {
	if a.r != nil {
		return a.r.IsInt()
	}
	return math.IsInf(a.f, 0) || a.f == math.Trunc(a.f)
}

// multipleOf: a divided by m is an integer.
func (a number) multipleOf(m number) bool {
	if a.r != nil && m.r != nil {
		return new(big.Rat).Quo(a.r, m.r).IsInt()
	}
	q := a.f / m.f
	return !math.IsInf(q, 0) && q == math.Trunc(q)
}
