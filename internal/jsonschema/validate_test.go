package jsonschema

import (
	"strings"
	"testing"
)

// TestSchemaKeywords: every supported keyword, with instances that satisfy
// it and instances that do not (outcomes from the draft 2020-12
// specification), the violation naming the instance location.
func TestSchemaKeywords(t *testing.T) {
	tests := []struct {
		schema, inst string
		want         string // the violations; "" = valid
	}{
		// boolean schemas
		{`true`, `{"a":1}`, ""},
		{`false`, `1`, "root: not allowed (the schema here is false)"},
		{`{}`, `[1,"x",null]`, ""},

		// type
		{`{"type":"string"}`, `"x"`, ""},
		{`{"type":"string"}`, `1`, "root: want string, got number"},
		{`{"type":"integer"}`, `1`, ""},
		{`{"type":"integer"}`, `1.0`, ""},
		{`{"type":"integer"}`, `-3e2`, ""},
		{`{"type":"integer"}`, `12345678901234567890123`, ""},
		{`{"type":"integer"}`, `1.5`, "root: want integer, got number"},
		{`{"type":"integer"}`, `"1"`, "root: want integer, got string"},
		{`{"type":"number"}`, `1.5`, ""},
		{`{"type":"number"}`, `true`, "root: want number, got boolean"},
		{`{"type":"boolean"}`, `false`, ""},
		{`{"type":"null"}`, `null`, ""},
		{`{"type":"null"}`, `0`, "root: want null, got number"},
		{`{"type":"array"}`, `{}`, "root: want array, got object"},
		{`{"type":"object"}`, `[]`, "root: want object, got array"},
		{`{"type":["string","null"]}`, `null`, ""},
		{`{"type":["string","null"]}`, `1`, "root: want string or null, got number"},

		// properties, required, additionalProperties, min/maxProperties
		{`{"properties":{"a":{"type":"string"}}}`, `{"a":"x","b":1}`, ""},
		{`{"properties":{"a":{"type":"string"}}}`, `{"a":1}`, "/a: want string, got number"},
		{`{"properties":{"a":{"type":"string"}}}`, `"not an object"`, ""},
		{`{"properties":{"a/b":{"type":"string"},"c~d":{"type":"string"}}}`, `{"a/b":1,"c~d":2}`,
			"/a~1b: want string, got number; /c~0d: want string, got number"},
		{`{"required":["a","b"]}`, `{"a":1,"b":null}`, ""},
		{`{"required":["a","b","c"]}`, `{"b":1}`, `root: missing properties: ["a","c"]`},
		{`{"required":["a"]}`, `[]`, ""},
		{`{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1}`, ""},
		{`{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"z":2,"b":3}`,
			`root: property "b" is not allowed (additionalProperties); root: property "z" is not allowed (additionalProperties)`},
		{`{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}`, `{"a":"x","b":2}`, ""},
		{`{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}`, `{"a":"x","b":"y"}`, "/b: want integer, got string"},
		{`{"additionalProperties":true}`, `{"b":"y"}`, ""},
		{`{"minProperties":2}`, `{"a":1,"b":2}`, ""},
		{`{"minProperties":2}`, `{"a":1}`, "root: want at least 2 properties, got 1"},
		{`{"maxProperties":1}`, `{"a":1,"b":2}`, "root: want at most 1 properties, got 2"},

		// items, prefixItems, minItems, maxItems, uniqueItems
		{`{"items":{"type":"string"}}`, `["a","b"]`, ""},
		{`{"items":{"type":"string"}}`, `["a",2,"c",4]`, "/1: want string, got number; /3: want string, got number"},
		{`{"items":false}`, `[]`, ""},
		{`{"items":false}`, `[1]`, "/0: not allowed (the schema here is false)"},
		{`{"prefixItems":[{"type":"string"},{"type":"integer"}]}`, `["a",1,true]`, ""},
		{`{"prefixItems":[{"type":"string"},{"type":"integer"}]}`, `["a"]`, ""},
		{`{"prefixItems":[{"type":"string"},{"type":"integer"}]}`, `[1,1]`, "/0: want string, got number"},
		{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,2]`, ""},
		{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,"b"]`, "/2: want integer, got string"},
		{`{"prefixItems":[{}],"items":false}`, `[1,2]`, "/1: not allowed (the schema here is false)"},
		{`{"minItems":1}`, `[]`, "root: want at least 1 items, got 0"},
		{`{"minItems":1.0}`, `[1]`, ""},
		{`{"maxItems":2}`, `[1,2,3]`, "root: want at most 2 items, got 3"},
		{`{"maxItems":2}`, `"abc"`, ""},
		{`{"uniqueItems":true}`, `[1,"1",[1],{"a":1},{"a":2}]`, ""},
		{`{"uniqueItems":true}`, `[1,2,1.0]`, "root: items 0 and 2 are equal, want unique items"},
		{`{"uniqueItems":true}`, `[{"a":1,"b":[2]},{"b":[2.0],"a":1}]`, "root: items 0 and 1 are equal, want unique items"},
		{`{"uniqueItems":false}`, `[1,1]`, ""},

		// enum, const
		{`{"enum":["todo","done",null]}`, `"done"`, ""},
		{`{"enum":["todo","done",null]}`, `null`, ""},
		{`{"enum":["todo","done"]}`, `"later"`, `root: "later" is not one of ["todo","done"] (enum)`},
		{`{"enum":[1,{"a":[1]}]}`, `1.0`, ""},
		{`{"enum":[1,{"a":[1]}]}`, `{"a":[1e0]}`, ""},
		{`{"enum":[1,{"a":[1]}]}`, `{"a":[1],"b":1}`, `root: {"a":[1],"b":1} is not one of [1,{"a":[1]}] (enum)`},
		{`{"const":2}`, `2.0`, ""},
		{`{"const":2}`, `"2"`, `root: want 2 (const), got "2"`},
		{`{"const":{"x":[1,true]}}`, `{"x":[1,true]}`, ""},
		{`{"const":{"x":[1,true]}}`, `{"x":[true,1]}`, `root: want {"x":[1,true]} (const), got {"x":[true,1]}`},
		{`{"const":null}`, `false`, `root: want null (const), got false`},

		// strings
		{`{"minLength":2}`, `"ab"`, ""},
		{`{"minLength":2}`, `"é"`, "root: want at least 2 characters, got 1"},
		{`{"maxLength":2}`, `"日本"`, ""},
		{`{"maxLength":2}`, `"日本語"`, "root: want at most 2 characters, got 3"},
		{`{"minLength":5}`, `12`, ""},
		{`{"pattern":"b+"}`, `"abbc"`, ""},
		{`{"pattern":"^b+$"}`, `"abbc"`, `root: does not match the pattern "^b+$"`},
		{`{"pattern":"^F-[0-9]+$"}`, `3`, ""},

		// numbers
		{`{"minimum":1}`, `1`, ""},
		{`{"minimum":1}`, `0.99`, "root: want >= 1, got 0.99"},
		{`{"maximum":1.5}`, `1.5`, ""},
		{`{"maximum":1.5}`, `2`, "root: want <= 1.5, got 2"},
		{`{"exclusiveMinimum":1}`, `1.0001`, ""},
		{`{"exclusiveMinimum":1}`, `1`, "root: want > 1, got 1"},
		{`{"exclusiveMaximum":1}`, `1`, "root: want < 1, got 1"},
		{`{"exclusiveMaximum":1}`, `-5`, ""},
		{`{"minimum":9007199254740993}`, `9007199254740992`, "root: want >= 9007199254740993, got 9007199254740992"},
		{`{"multipleOf":0.1}`, `0.3`, ""},
		{`{"multipleOf":0.01}`, `19.99`, ""},
		{`{"multipleOf":0.1}`, `0.35`, "root: want a multiple of 0.1, got 0.35"},
		{`{"multipleOf":3}`, `9e0`, ""},
		{`{"multipleOf":3}`, `10`, "root: want a multiple of 3, got 10"},
		{`{"minimum":0}`, `"-1"`, ""},
		{`{"maximum":10}`, `1e999999999`, "root: want <= 10, got 1e999999999"},
		{`{"type":"integer"}`, `1e999999999`, ""},

		// allOf, anyOf, oneOf, not
		{`{"allOf":[{"type":"integer"},{"minimum":2}]}`, `3`, ""},
		{`{"allOf":[{"type":"integer"},{"minimum":2}]}`, `1.5`, "root: want integer, got number; root: want >= 2, got 1.5"},
		{`{"anyOf":[{"type":"string"},{"minimum":2}]}`, `"x"`, ""},
		{`{"anyOf":[{"type":"string"},{"minimum":2}]}`, `3`, ""},
		{`{"anyOf":[{"type":"string"},{"minimum":2}]}`, `1`, "root: matches none of the 2 schemas of anyOf"},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `1`, ""},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `2.5`, ""},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `3`, "root: matches schemas 0, 1 of the 2 schemas of oneOf, want exactly one"},
		{`{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `1.5`, "root: matches none of the 2 schemas of oneOf, want exactly one"},
		{`{"not":{"type":"string"}}`, `1`, ""},
		{`{"not":{"type":"string"}}`, `"x"`, "root: matches the schema of not"},
		{`{"not":true}`, `[1]`, "root: matches the schema of not"},
		{`{"not":false}`, `[1]`, ""},

		// annotations change nothing
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/f","$comment":"c",
		   "title":"t","description":"d","default":[],"examples":[[]],"deprecated":false,"readOnly":true,
		   "writeOnly":false,"format":"email"}`, `"not an email"`, ""},

		// nested locations; the first few violations, in order
		{`{"type":"array","items":{"type":"object","required":["id","passes"],"properties":{"id":{"type":"integer"},"steps":{"type":"array","items":{"type":"string"}}}}}`,
			`[{"id":1,"passes":true},{"id":"two","passes":false,"steps":["a",3]},{"id":3}]`,
			`/1/id: want integer, got string; /1/steps/1: want string, got number; /2: missing properties: ["passes"]`},
		{`{"items":{"type":"string"}}`, `[1,2,3,4,5]`,
			"/0: want string, got number; /1: want string, got number; /2: want string, got number; and more"},
	}
	for _, tt := range tests {
		s, err := Compile([]byte(tt.schema))
		if err != nil {
			t.Errorf("%s: %v", tt.schema, err)
			continue
		}
		inst, err := Decode([]byte(tt.inst))
		if err != nil {
			t.Fatalf("%s: %v", tt.inst, err)
		}
		if got := strings.Join(Validate(s, inst), "; "); got != tt.want {
			t.Errorf("schema %s, instance %s:\n got %q\nwant %q", tt.schema, tt.inst, got, tt.want)
		}
	}
}

// TestSchemaErrors: a keyword the validator does not support, or one whose
// value has the wrong type, is a schema error naming it; never ignored.
func TestSchemaErrors(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":5}`, "not a JSON Schema: /type: want a type name or an array of them, got number"},
		{`{"type":"int"}`, `not a JSON Schema: /type: "int" is not a type`},
		{`{"type":[]}`, "not a JSON Schema: /type: want a type name or a non-empty array of them"},
		{`{"type":["string","string"]}`, `not a JSON Schema: /type: "string" is listed twice`},
		{`{"required":"x"}`, "not a JSON Schema: /required: want an array of strings, got string"},
		{`{"required":["x",1]}`, "not a JSON Schema: /required/1: want a string, got number"},
		{`{"properties":[]}`, "not a JSON Schema: /properties: want an object of schemas, got array"},
		{`{"properties":{"a":1}}`, "not a JSON Schema: /properties/a: want a schema (an object or a boolean), got number"},
		{`{"additionalProperties":"no"}`, "not a JSON Schema: /additionalProperties: want a schema"},
		{`{"items":[{}]}`, "not a JSON Schema: /items: want one schema for every element (a list of schemas is prefixItems"},
		{`{"prefixItems":{}}`, "not a JSON Schema: /prefixItems: want a non-empty array of schemas, got object"},
		{`{"allOf":[]}`, "not a JSON Schema: /allOf: want a non-empty array of schemas, got array"},
		{`{"anyOf":[{"type":1}]}`, "not a JSON Schema: /anyOf/0/type: want a type name"},
		{`{"oneOf":true}`, "not a JSON Schema: /oneOf: want a non-empty array"},
		{`{"not":"x"}`, "not a JSON Schema: /not: want a schema"},
		{`{"enum":"a"}`, "not a JSON Schema: /enum: want an array, got string"},
		{`{"uniqueItems":1}`, "not a JSON Schema: /uniqueItems: want a boolean, got number"},
		{`{"minItems":-1}`, "not a JSON Schema: /minItems: want a non-negative integer, got -1"},
		{`{"maxLength":1.5}`, "not a JSON Schema: /maxLength: want a non-negative integer, got 1.5"},
		{`{"minProperties":"1"}`, "not a JSON Schema: /minProperties: want a number, got string"},
		{`{"minimum":"0"}`, "not a JSON Schema: /minimum: want a number, got string"},
		{`{"exclusiveMinimum":true}`, "not a JSON Schema: /exclusiveMinimum: want a number, got boolean"},
		{`{"multipleOf":0}`, "not a JSON Schema: /multipleOf: want a number greater than 0, got 0"},
		{`{"pattern":1}`, "not a JSON Schema: /pattern: want a string, got number"},
		{`{"title":1}`, "not a JSON Schema: /title: want a string, got number"},
		{`{"deprecated":"yes"}`, "not a JSON Schema: /deprecated: want a boolean, got string"},
		{`{"examples":1}`, "not a JSON Schema: /examples: want an array, got number"},
		{`[]`, "not a JSON Schema: root: want a schema (an object or a boolean), got array"},
		{`{"type":"string"`, "not a JSON Schema: unexpected EOF"},
		{`{} {}`, "not a JSON Schema: data after the top-level value"},
		{`{"pattern":"(?=x)"}`, `not a usable JSON Schema: /pattern: pattern "(?=x)": error parsing regexp`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#"}`, `not a usable JSON Schema: /$schema: "http://json-schema.org/draft-07/schema#": only draft 2020-12`},
	}
	for _, kw := range []string{"$ref", "$defs", "if", "then", "else", "patternProperties", "dependentRequired",
		"contains", "minContains", "propertyNames", "unevaluatedProperties", "additionalItems", "definitions", "typo"} {
		tests = append(tests, struct{ schema, want string }{`{"items":{"` + kw + `":{}}}`,
			`not a usable JSON Schema: /items/` + strings.ReplaceAll(kw, "/", "~1") + `: keyword "` + kw + `" is not supported (supported: type, properties,`})
	}
	for _, tt := range tests {
		_, err := Compile([]byte(tt.schema))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v\nwant %q...", tt.schema, err, tt.want)
		}
	}
	// The list names every supported keyword, so a user can fix the schema.
	_, err := Compile([]byte(`{"$ref":"#"}`))
	for _, kw := range []string{"exclusiveMaximum", "prefixItems", "oneOf", "writeOnly", "format"} {
		if err == nil || !strings.Contains(err.Error(), kw) {
			t.Errorf("the supported list lacks %s: %v", kw, err)
		}
	}
}
