package query

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// schema is a parsed $jsonSchema (sub)schema. Keywords that restrict one
// type (minimum for numbers, minLength for strings, items for arrays,
// properties for objects) let values of other types pass, as JSON Schema
// does; type/bsonType is what rejects them. At the top level the document is
// always an object, so scalar and array keywords have no effect there.
type schema struct {
	raw bson.D

	title, description       string
	hasTitle, hasDescription bool

	typeKeyword string // "type", "bsonType" or ""
	typeArg     any
	types       []bson.Type
	allNumbers  bool

	pattern    *regexPred
	patternArg any
	maxLength  *lengthKw
	minLength  *lengthKw
	multipleOf any
	maximum    any
	exclMax    bool
	minimum    any
	exclMin    bool

	minItems, maxItems *lengthKw
	uniqueItems        bool
	uniqueItemsArg     any
	items              *schema   // items as one schema
	itemsList          []*schema // items as an array of schemas
	itemsArg           any
	hasItemsList       bool
	additionalItems    *schema
	additionalItemsArg any
	additionalItemsOK  *bool

	required          []string // sorted, unique
	requiredArg       any
	properties        []property
	patternProperties []patternProperty
	additionalProps   *schema
	additionalPropsOK *bool
	additionalArg     any
	hasAllowedProps   bool // patternProperties or additionalProperties present
	minProperties     *lengthKw
	maxProperties     *lengthKw
	dependencies      []dependency

	allOf, anyOf, oneOf []*schema
	not                 *schema
	enum                []any
	enumArg             any
}

type lengthKw struct {
	n   int64
	arg any
}

type property struct {
	name   string
	schema *schema
}

type patternProperty struct {
	pattern string
	re      *regexp.Regexp
	schema  *schema
}

type dependency struct {
	name       string
	schema     *schema  // schema dependency
	properties []string // property dependency
	arg        any
}

// schemaNode is $jsonSchema as a filter node.
type schemaNode struct {
	s    *schema
	spec bson.D
	// alwaysFalse is set when the top-level type excludes "object".
	alwaysFalse bool
}

func (n *schemaNode) match(doc bson.D, _ *evalCtx) bool {
	if n.alwaysFalse {
		return false
	}
	return n.s.check(doc, true, nil)
}

var schemaKeywords = map[string]bool{
	"additionalItems": true, "additionalProperties": true, "allOf": true, "anyOf": true,
	"bsonType": true, "dependencies": true, "description": true, "encrypt": true,
	"encryptMetadata": true, "enum": true, "exclusiveMaximum": true, "exclusiveMinimum": true,
	"items": true, "maxItems": true, "maxLength": true, "maxProperties": true, "maximum": true,
	"minItems": true, "minLength": true, "minProperties": true, "minimum": true,
	"multipleOf": true, "not": true, "oneOf": true, "pattern": true, "patternProperties": true,
	"properties": true, "required": true, "title": true, "type": true, "uniqueItems": true,
}

// jsonTypeAliases are the type names the JSON Schema "type" keyword accepts.
var jsonTypeAliases = map[string]bson.Type{
	"array":   bson.TypeArray,
	"boolean": bson.TypeBoolean,
	"null":    bson.TypeNull,
	"object":  bson.TypeEmbeddedDocument,
	"string":  bson.TypeString,
}

func typeMismatch(format string, args ...any) error {
	return mongoerr.Newf(mongoerr.TypeMismatch, format, args...)
}

func failedToParse(format string, args ...any) error {
	return mongoerr.Newf(mongoerr.FailedToParse, format, args...)
}

func parseJSONSchema(d bson.D) (node, error) {
	s, err := parseSchema(d)
	if err != nil {
		return nil, err
	}
	n := &schemaNode{s: s, spec: d}
	if s.typeKeyword != "" && !s.allows(bson.TypeEmbeddedDocument) {
		n.alwaysFalse = true
	}
	return n, nil
}

func parseSchema(d bson.D) (*schema, error) {
	kw := map[string]bson.E{}
	for _, e := range d {
		if !schemaKeywords[e.Key] {
			switch e.Key {
			case "$ref", "$schema", "default", "definitions", "format", "id":
				return nil, failedToParse("$jsonSchema keyword '%s' is not currently supported", e.Key)
			}
			return nil, failedToParse("Unknown $jsonSchema keyword: %s", e.Key)
		}
		if _, dup := kw[e.Key]; dup {
			return nil, failedToParse("Duplicate $jsonSchema keyword: %s", e.Key)
		}
		kw[e.Key] = e
	}
	s := &schema{raw: d}
	get := func(k string) (any, bool) {
		e, ok := kw[k]
		return e.Value, ok
	}
	if v, ok := get("description"); ok {
		str, isStr := v.(string)
		if !isStr {
			return nil, typeMismatch("$jsonSchema keyword 'description' must be of type string")
		}
		s.description, s.hasDescription = str, true
	}
	if v, ok := get("title"); ok {
		str, isStr := v.(string)
		if !isStr {
			return nil, typeMismatch("$jsonSchema keyword 'title' must be of type string")
		}
		s.title, s.hasTitle = str, true
	}
	if _, ok := get("encrypt"); ok {
		return nil, mongoerr.New(mongoerr.QueryFeatureNotAllowed, "Encryption-related validator keywords are not allowed in this context")
	}
	if _, ok := get("encryptMetadata"); ok {
		return nil, mongoerr.New(mongoerr.QueryFeatureNotAllowed, "Encryption-related validator keywords are not allowed in this context")
	}
	typeV, hasType := get("type")
	bsonTypeV, hasBSONType := get("bsonType")
	switch {
	case hasType && hasBSONType:
		return nil, failedToParse("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'")
	case hasType:
		if err := s.parseTypeKeyword("type", typeV); err != nil {
			return nil, err
		}
	case hasBSONType:
		if err := s.parseTypeKeyword("bsonType", bsonTypeV); err != nil {
			return nil, err
		}
	}
	if err := s.parseScalarKeywords(get); err != nil {
		return nil, err
	}
	if err := s.parseArrayKeywords(get); err != nil {
		return nil, err
	}
	if err := s.parseObjectKeywords(get); err != nil {
		return nil, err
	}
	if err := s.parseLogicalKeywords(get); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *schema) parseTypeKeyword(name string, v any) error {
	s.typeKeyword, s.typeArg = name, v
	var aliases []string
	switch x := v.(type) {
	case string:
		aliases = []string{x}
	default:
		arr, ok := AsArray(v)
		if !ok {
			return typeMismatch("$jsonSchema keyword '%s' must be either a string or an array of strings", name)
		}
		for _, e := range arr {
			str, ok := e.(string)
			if !ok {
				return typeMismatch("$jsonSchema keyword '%s' array elements must be strings", name)
			}
			if slices.Contains(aliases, str) {
				return failedToParse("$jsonSchema keyword '%s' has duplicate value: %s", name, str)
			}
			aliases = append(aliases, str)
		}
	}
	for _, a := range aliases {
		if a == "integer" {
			return failedToParse("$jsonSchema type 'integer' is not currently supported.")
		}
	}
	for _, a := range aliases {
		if a == "number" {
			s.allNumbers = true
			continue
		}
		var t bson.Type
		var ok bool
		if name == "type" {
			t, ok = jsonTypeAliases[a]
		} else {
			t, ok = typeAliases[a]
		}
		if !ok {
			return badValue("Unknown type name alias: %s", a)
		}
		s.types = append(s.types, t)
	}
	if len(s.types) == 0 && !s.allNumbers {
		return failedToParse("$jsonSchema keyword '%s' must name at least one type", name)
	}
	return nil
}

// allows reports whether the stated type admits BSON type t.
func (s *schema) allows(t bson.Type) bool {
	if s.allNumbers && rankOfType(t) == RankNumber {
		return true
	}
	return slices.Contains(s.types, t)
}

// elemString prints "key: value" the way MongoDB prints a BSON element in
// parse errors.
func elemString(key string, v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%s: %q", key, x)
	}
	if IsNumber(v) {
		return key + ": " + formatNumber(v)
	}
	return fmt.Sprintf("%s: %v", key, v)
}

// parseNonNegativeLong is MongoDB's parseIntegerElementToNonNegativeLong.
func parseNonNegativeLong(key string, v any) (*lengthKw, error) {
	if !IsNumber(v) {
		return nil, failedToParse("Expected a number in: %s", elemString(key, v))
	}
	if isNaN(v) {
		return nil, failedToParse("Expected an integer, but found NaN in: %s", elemString(key, v))
	}
	n, ok := coerceInt64(v)
	if !ok {
		return nil, failedToParse("Cannot represent as a 64-bit integer: %s", elemString(key, v))
	}
	if !isIntegral(v) {
		return nil, failedToParse("Expected an integer: %s", elemString(key, v))
	}
	if n < 0 {
		return nil, failedToParse("Expected a positive number in: %s", elemString(key, v))
	}
	return &lengthKw{n: n, arg: v}, nil
}

func (s *schema) parseScalarKeywords(get func(string) (any, bool)) error {
	if v, ok := get("pattern"); ok {
		str, isStr := v.(string)
		if !isStr {
			return typeMismatch("$jsonSchema keyword 'pattern' must be a string")
		}
		rp, err := newRegexPred(str, "")
		if err != nil {
			return err
		}
		s.pattern, s.patternArg = rp, v
	}
	for _, k := range []string{"maxLength", "minLength"} {
		if v, ok := get(k); ok {
			l, err := parseNonNegativeLong(k, v)
			if err != nil {
				return err
			}
			if k == "maxLength" {
				s.maxLength = l
			} else {
				s.minLength = l
			}
		}
	}
	if v, ok := get("multipleOf"); ok {
		if !IsNumber(v) {
			return typeMismatch("$jsonSchema keyword 'multipleOf' must be a number")
		}
		if isNaN(v) || Compare(v, int32(0)) <= 0 {
			return failedToParse("$jsonSchema keyword 'multipleOf' must have a positive value")
		}
		s.multipleOf = v
	}
	for _, pair := range [][2]string{{"maximum", "exclusiveMaximum"}, {"minimum", "exclusiveMinimum"}} {
		bound, hasBound := get(pair[0])
		excl, hasExcl := get(pair[1])
		if !hasBound {
			if hasExcl {
				return failedToParse("$jsonSchema keyword '%s' must be a present if %s is present", pair[0], pair[1])
			}
			continue
		}
		exclusive := false
		if hasExcl {
			b, ok := excl.(bool)
			if !ok {
				return typeMismatch("$jsonSchema keyword '%s' must be a boolean", pair[1])
			}
			exclusive = b
		}
		if !IsNumber(bound) {
			return typeMismatch("$jsonSchema keyword '%s' must be a number", pair[0])
		}
		if pair[0] == "maximum" {
			s.maximum, s.exclMax = bound, exclusive
		} else {
			s.minimum, s.exclMin = bound, exclusive
		}
	}
	return nil
}

func (s *schema) parseArrayKeywords(get func(string) (any, bool)) error {
	for _, k := range []string{"minItems", "maxItems"} {
		if v, ok := get(k); ok {
			l, err := parseNonNegativeLong(k, v)
			if err != nil {
				return err
			}
			if k == "minItems" {
				s.minItems = l
			} else {
				s.maxItems = l
			}
		}
	}
	if v, ok := get("uniqueItems"); ok {
		b, isBool := v.(bool)
		if !isBool {
			return typeMismatch("$jsonSchema keyword 'uniqueItems' must be a boolean")
		}
		s.uniqueItems, s.uniqueItemsArg = b, v
	}
	if v, ok := get("items"); ok {
		s.itemsArg = v
		if arr, isArr := AsArray(v); isArr {
			s.hasItemsList = true
			for _, e := range arr {
				d, isDoc := AsDocument(e)
				if !isDoc {
					return typeMismatch("$jsonSchema keyword 'items' requires that each element of the array is an object, but found a %s", TypeName(e))
				}
				sub, err := parseSchema(d)
				if err != nil {
					return err
				}
				s.itemsList = append(s.itemsList, sub)
			}
		} else if d, isDoc := AsDocument(v); isDoc {
			sub, err := parseSchema(d)
			if err != nil {
				return err
			}
			s.items = sub
		} else {
			return typeMismatch("$jsonSchema keyword 'items' must be an array or an object, not %s", TypeName(v))
		}
	}
	if v, ok := get("additionalItems"); ok {
		s.additionalItemsArg = v
		switch x := v.(type) {
		case bool:
			s.additionalItemsOK = &x
		default:
			d, isDoc := AsDocument(v)
			if !isDoc {
				return typeMismatch("$jsonSchema keyword 'additionalItems' must be either an object or a boolean, but got a %s", TypeName(v))
			}
			sub, err := parseSchema(d)
			if err != nil {
				return err
			}
			s.additionalItems = sub
		}
	}
	return nil
}

// parseObjectKeywords parses the keywords that apply to objects.
func (s *schema) parseObjectKeywords(get func(string) (any, bool)) error {
	for _, parse := range []func(func(string) (any, bool)) error{
		s.parseRequired, s.parseProperties, s.parsePatternProperties,
		s.parseAdditionalProperties, s.parsePropertyCounts, s.parseDependencies,
	} {
		if err := parse(get); err != nil {
			return err
		}
	}
	return nil
}

// parseRequired parses the required keyword: distinct field names, sorted.
func (s *schema) parseRequired(get func(string) (any, bool)) error {
	v, ok := get("required")
	if !ok {
		return nil
	}
	arr, isArr := AsArray(v)
	if !isArr {
		return typeMismatch("$jsonSchema keyword 'required' must be an array, but found an element of type %s", TypeName(v))
	}
	for _, e := range arr {
		str, isStr := e.(string)
		if !isStr {
			return typeMismatch("$jsonSchema keyword 'required' must be an array of strings, but found an element of type: %s", TypeName(e))
		}
		if slices.Contains(s.required, str) {
			return failedToParse("$jsonSchema keyword 'required' array cannot contain duplicate values")
		}
		s.required = append(s.required, str)
	}
	if len(s.required) == 0 {
		return failedToParse("$jsonSchema keyword 'required' cannot be an empty array")
	}
	slices.Sort(s.required)
	s.requiredArg = v
	return nil
}

// parseProperties parses the properties keyword: a schema per field.
func (s *schema) parseProperties(get func(string) (any, bool)) error {
	v, ok := get("properties")
	if !ok {
		return nil
	}
	d, isDoc := AsDocument(v)
	if !isDoc {
		return typeMismatch("$jsonSchema keyword 'properties' must be an object")
	}
	for _, e := range d {
		pd, isDoc := AsDocument(e.Value)
		if !isDoc {
			return typeMismatch("Nested schema for $jsonSchema property '%s' must be an object", e.Key)
		}
		sub, err := parseSchema(pd)
		if err != nil {
			return err
		}
		s.properties = append(s.properties, property{name: e.Key, schema: sub})
	}
	return nil
}

// parsePatternProperties parses the patternProperties keyword: a schema
// per field name pattern.
func (s *schema) parsePatternProperties(get func(string) (any, bool)) error {
	v, ok := get("patternProperties")
	if !ok {
		return nil
	}
	s.hasAllowedProps = true
	d, isDoc := AsDocument(v)
	if !isDoc {
		return typeMismatch("$jsonSchema keyword 'patternProperties' must be an object")
	}
	for _, e := range d {
		pd, isDoc := AsDocument(e.Value)
		if !isDoc {
			return typeMismatch("$jsonSchema keyword 'patternProperties' has property '%s' which is not an object", e.Key)
		}
		re, err := CompileRegex(e.Key, "")
		if err != nil {
			return err
		}
		sub, err := parseSchema(pd)
		if err != nil {
			return err
		}
		s.patternProperties = append(s.patternProperties, patternProperty{pattern: e.Key, re: re, schema: sub})
	}
	return nil
}

// parseAdditionalProperties parses additionalProperties: a bool or a schema.
func (s *schema) parseAdditionalProperties(get func(string) (any, bool)) error {
	v, ok := get("additionalProperties")
	if !ok {
		return nil
	}
	s.hasAllowedProps = true
	s.additionalArg = v
	switch x := v.(type) {
	case bool:
		s.additionalPropsOK = &x
	default:
		d, isDoc := AsDocument(v)
		if !isDoc {
			return typeMismatch("$jsonSchema keyword 'additionalProperties' must be an object or a boolean")
		}
		sub, err := parseSchema(d)
		if err != nil {
			return err
		}
		s.additionalProps = sub
	}
	return nil
}

// parsePropertyCounts parses minProperties and maxProperties.
func (s *schema) parsePropertyCounts(get func(string) (any, bool)) error {
	for _, k := range []string{"minProperties", "maxProperties"} {
		if v, ok := get(k); ok {
			l, err := parseNonNegativeLong(k, v)
			if err != nil {
				return err
			}
			if k == "minProperties" {
				s.minProperties = l
			} else {
				s.maxProperties = l
			}
		}
	}
	return nil
}

// parseDependencies parses the dependencies keyword: per field, a schema or
// the fields it requires.
func (s *schema) parseDependencies(get func(string) (any, bool)) error {
	v, ok := get("dependencies")
	if !ok {
		return nil
	}
	d, isDoc := AsDocument(v)
	if !isDoc {
		return typeMismatch("$jsonSchema keyword 'dependencies' must be an object")
	}
	for _, e := range d {
		if sd, isDoc := AsDocument(e.Value); isDoc {
			sub, err := parseSchema(sd)
			if err != nil {
				return err
			}
			s.dependencies = append(s.dependencies, dependency{name: e.Key, schema: sub, arg: e.Value})
			continue
		}
		arr, isArr := AsArray(e.Value)
		if !isArr {
			if _, isStr := e.Value.(string); isStr && (e.Key == "title" || e.Key == "description") {
				continue
			}
			return typeMismatch("property '%s' in $jsonSchema keyword 'dependencies' must be either an object or an array", e.Key)
		}
		if len(arr) == 0 {
			return failedToParse("property '%s' in $jsonSchema keyword 'dependencies' cannot be an empty array", e.Key)
		}
		dep := dependency{name: e.Key, arg: e.Value, properties: []string{}}
		for _, p := range arr {
			str, isStr := p.(string)
			if !isStr {
				return typeMismatch("array '%s' in $jsonSchema keyword 'dependencies' can only contain strings, but found element of type: %s", e.Key, TypeName(p))
			}
			if slices.Contains(dep.properties, str) {
				return failedToParse("array '%s' in $jsonSchema keyword 'dependencies' contains duplicate element: %s", e.Key, str)
			}
			dep.properties = append(dep.properties, str)
		}
		s.dependencies = append(s.dependencies, dep)
	}
	return nil
}

func (s *schema) parseLogicalKeywords(get func(string) (any, bool)) error {
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		v, ok := get(k)
		if !ok {
			continue
		}
		arr, isArr := AsArray(v)
		if !isArr {
			return typeMismatch("$jsonSchema keyword '%s' must be an array", k)
		}
		if len(arr) == 0 {
			return badValue("$jsonSchema keyword '%s' must be a non-empty array", k)
		}
		var subs []*schema
		for _, e := range arr {
			d, isDoc := AsDocument(e)
			if !isDoc {
				return typeMismatch("$jsonSchema keyword '%s' must be an array of objects, but found an element of type %s", k, TypeName(e))
			}
			sub, err := parseSchema(d)
			if err != nil {
				return err
			}
			subs = append(subs, sub)
		}
		switch k {
		case "allOf":
			s.allOf = subs
		case "anyOf":
			s.anyOf = subs
		default:
			s.oneOf = subs
		}
	}
	if v, ok := get("not"); ok {
		d, isDoc := AsDocument(v)
		if !isDoc {
			return typeMismatch("$jsonSchema keyword 'not' must be an object, but found an element of type %s", TypeName(v))
		}
		sub, err := parseSchema(d)
		if err != nil {
			return err
		}
		s.not = sub
	}
	if v, ok := get("enum"); ok {
		arr, isArr := AsArray(v)
		if !isArr {
			return typeMismatch("$jsonSchema keyword 'enum' must be an array, but found an element of type %s", TypeName(v))
		}
		if len(arr) == 0 {
			return failedToParse("$jsonSchema keyword 'enum' cannot be an empty array")
		}
		for i, e := range arr {
			for _, prev := range arr[:i] {
				if equalUnordered(prev, e) {
					return failedToParse("$jsonSchema keyword 'enum' array cannot contain duplicate values.")
				}
			}
		}
		s.enum, s.enumArg = []any(arr), v
	}
	return nil
}

// equalUnordered compares values like Equal but ignores the order of fields
// in documents (JSON Schema's notion of equality for enum and uniqueItems).
func equalUnordered(a, b any) bool {
	return Compare(sortFields(a), sortFields(b)) == 0
}

func sortFields(v any) any {
	if d, ok := AsDocument(v); ok {
		out := make(bson.D, len(d))
		for i, e := range d {
			out[i] = bson.E{Key: e.Key, Value: sortFields(e.Value)}
		}
		slices.SortStableFunc(out, func(x, y bson.E) int {
			if x.Key < y.Key {
				return -1
			}
			if x.Key > y.Key {
				return 1
			}
			return 0
		})
		return out
	}
	if a, ok := AsArray(v); ok {
		out := make(bson.A, len(a))
		for i, e := range a {
			out[i] = sortFields(e)
		}
		return out
	}
	return v
}

// check validates v against the schema. top is true for the document itself
// (the $jsonSchema root and logical subschemas applied to it). When out is
// nil it only reports the result; otherwise it evaluates every keyword and
// appends one detail document per failed rule, in MongoDB's order.
func (s *schema) check(v any, top bool, out *[]bson.D) bool {
	c := &collector{out: out, ok: true}
	t := TypeOf(v)
	// Scalar and array keywords never apply to the root document.
	if !top {
		if s.checkScalar(v, t, c) {
			return false
		}
		if s.checkArray(v, c) {
			return false
		}
	}
	if d, isDoc := AsDocument(v); isDoc && (top || s.active(isObjectType)) {
		if s.checkObject(d, c) {
			return false
		}
	}
	if s.checkLogical(v, top, c) {
		return false
	}
	if !top && s.typeKeyword != "" && !s.allows(t) {
		c.fail(bson.D{
			{Key: "operatorName", Value: s.typeKeyword},
			{Key: "specifiedAs", Value: bson.D{{Key: s.typeKeyword, Value: s.typeArg}}},
			{Key: "reason", Value: "type did not match"},
			{Key: "consideredValue", Value: v},
			{Key: "consideredType", Value: typeNameOf(t)},
		})
	}
	return c.ok
}

// active reports whether a keyword that restricts values of one kind takes
// effect. With a single stated type that is not of that kind the keyword
// has no effect (MongoDB turns it into an always-true expression), so only
// the type mismatch is reported.
func (s *schema) active(isKind func(bson.Type) bool) bool {
	n := len(s.types)
	if s.allNumbers {
		n++
	}
	if s.typeKeyword == "" || n != 1 {
		return true
	}
	if s.allNumbers {
		return isKind(bson.TypeInt32)
	}
	return isKind(s.types[0])
}

func isArrayType(t bson.Type) bool  { return t == bson.TypeArray }
func isObjectType(t bson.Type) bool { return t == bson.TypeEmbeddedDocument }

func isStringType(t bson.Type) bool { return t == bson.TypeString }
func isNumberType(t bson.Type) bool { return rankOfType(t) == RankNumber }

func (s *schema) checkScalar(v any, t bson.Type, c *collector) bool {
	if isStringType(t) && s.active(isStringType) {
		str := v.(string)
		if s.pattern != nil && !s.pattern.re.MatchString(str) {
			if c.fail(keywordDetail("pattern", s.patternArg, "regular expression did not match", v)) {
				return true
			}
		}
		n := int64(utf8.RuneCountInString(str))
		if s.maxLength != nil && n > s.maxLength.n {
			if c.fail(keywordDetail("maxLength", s.maxLength.arg, "specified string length was not satisfied", v)) {
				return true
			}
		}
		if s.minLength != nil && n < s.minLength.n {
			if c.fail(keywordDetail("minLength", s.minLength.arg, "specified string length was not satisfied", v)) {
				return true
			}
		}
	}
	if isNumberType(t) && s.active(isNumberType) {
		if s.multipleOf != nil && !isMultipleOf(v, s.multipleOf) {
			if c.fail(keywordDetail("multipleOf", s.multipleOf, "considered value is not a multiple of the specified value", v)) {
				return true
			}
		}
		if s.maximum != nil {
			op := opLTE
			if s.exclMax {
				op = opLT
			}
			if !compareToRHS(op, v, s.maximum) {
				if c.fail(boundDetail("maximum", s.maximum, "exclusiveMaximum", s.exclMax, v)) {
					return true
				}
			}
		}
		if s.minimum != nil {
			op := opGTE
			if s.exclMin {
				op = opGT
			}
			if !compareToRHS(op, v, s.minimum) {
				if c.fail(boundDetail("minimum", s.minimum, "exclusiveMinimum", s.exclMin, v)) {
					return true
				}
			}
		}
	}
	return false
}

func keywordDetail(name string, arg any, reason string, v any) bson.D {
	return bson.D{
		{Key: "operatorName", Value: name},
		{Key: "specifiedAs", Value: bson.D{{Key: name, Value: arg}}},
		{Key: "reason", Value: reason},
		{Key: "consideredValue", Value: v},
	}
}

func boundDetail(name string, arg any, exclName string, excl bool, v any) bson.D {
	spec := bson.D{{Key: name, Value: arg}}
	if excl {
		spec = append(spec, bson.E{Key: exclName, Value: true})
	}
	return bson.D{
		{Key: "operatorName", Value: name},
		{Key: "specifiedAs", Value: spec},
		{Key: "reason", Value: "comparison failed"},
		{Key: "consideredValue", Value: v},
	}
}

// isMultipleOf reports whether v is a multiple of m, computed on decimals
// as MongoDB does (a double is first rounded to 15 significant digits).
func isMultipleOf(v, m any) bool {
	a, ok1 := decimalValue(v)
	b, ok2 := decimalValue(m)
	if !ok1 || !ok2 || b.Sign() == 0 {
		return false
	}
	return new(big.Rat).Quo(a, b).IsInt()
}

func decimalValue(v any) (*big.Rat, bool) {
	n, ok := toNumber(v)
	if !ok {
		return nil, false
	}
	switch n.kind {
	case 'i':
		return new(big.Rat).SetInt64(n.i), true
	case 'u':
		return new(big.Rat).SetInt(new(big.Int).SetUint64(n.u)), true
	case 'f':
		if isNaN(n.f) || isInfFloat(n.f) {
			return nil, false
		}
		r, ok := new(big.Rat).SetString(strconv.FormatFloat(n.f, 'e', 14, 64))
		return r, ok
	}
	if n.d.IsNaN() || n.d.IsInf() != 0 {
		return nil, false
	}
	return decimalRat(n.d), true
}

func (s *schema) checkArray(v any, c *collector) bool {
	arr, isArr := AsArray(v)
	if !isArr || !s.active(isArrayType) {
		return false
	}
	for _, kw := range []struct {
		name string
		l    *lengthKw
		bad  func(int64) bool
	}{
		{"minItems", s.minItems, func(n int64) bool { return int64(len(arr)) < n }},
		{"maxItems", s.maxItems, func(n int64) bool { return int64(len(arr)) > n }},
	} {
		if kw.l != nil && kw.bad(kw.l.n) {
			d := keywordDetail(kw.name, kw.l.arg, "array did not match specified length", v)
			d = append(d, bson.E{Key: "numberOfItems", Value: int32(len(arr))})
			if c.fail(d) {
				return true
			}
		}
	}
	if s.checkUniqueItems(arr, v, c) {
		return true
	}
	stop, additionalFrom := s.checkItems(arr, c)
	if stop {
		return true
	}
	return s.checkAdditionalItems(arr, additionalFrom, c)
}

// checkUniqueItems reports the first duplicate item of arr; true stops the
// check.
func (s *schema) checkUniqueItems(arr bson.A, v any, c *collector) bool {
	if !s.uniqueItems {
		return false
	}
	for i := range arr {
		dup := -1
		for j := 0; j < i; j++ {
			if equalUnordered(arr[i], arr[j]) {
				dup = j
				break
			}
		}
		if dup >= 0 {
			d := keywordDetail("uniqueItems", s.uniqueItemsArg, "found a duplicate item", v)
			d = append(d, bson.E{Key: "duplicatedValue", Value: arr[i]})
			if c.fail(d) {
				return true
			}
			break
		}
	}
	return false
}

// checkItems checks items (one schema for every item, or one per position)
// and returns where additionalItems start (-1: no additionalItems rule
// applies); true stops the check.
func (s *schema) checkItems(arr bson.A, c *collector) (bool, int) {
	additionalFrom := -1
	if s.items != nil {
		for i, e := range arr {
			var sub []bson.D
			if !s.items.check(e, false, c.sink(&sub)) {
				if c.fail(bson.D{
					{Key: "operatorName", Value: "items"},
					{Key: "reason", Value: "At least one item did not match the sub-schema"},
					{Key: "itemIndex", Value: int32(i)},
					{Key: "details", Value: toA(sub)},
				}) {
					return true, -1
				}
				break
			}
		}
	} else if s.hasItemsList {
		var items bson.A
		for i, sch := range s.itemsList {
			if i >= len(arr) {
				break
			}
			var sub []bson.D
			if !sch.check(arr[i], false, c.sink(&sub)) {
				if items == nil && !c.detailed() {
					return c.fail(nil), -1
				}
				items = append(items, bson.D{{Key: "itemIndex", Value: int32(i)}, {Key: "details", Value: toA(sub)}})
			}
		}
		if items != nil {
			if c.fail(bson.D{{Key: "operatorName", Value: "items"}, {Key: "details", Value: items}}) {
				return true, -1
			}
		}
		additionalFrom = len(s.itemsList)
	}
	return false, additionalFrom
}

// checkAdditionalItems checks the items of arr from additionalFrom on
// against additionalItems; true stops the check.
func (s *schema) checkAdditionalItems(arr bson.A, additionalFrom int, c *collector) bool {
	if additionalFrom < 0 || additionalFrom >= len(arr) {
		return false
	}
	switch {
	case s.additionalItemsOK != nil && !*s.additionalItemsOK:
		if c.fail(bson.D{
			{Key: "operatorName", Value: "additionalItems"},
			{Key: "specifiedAs", Value: bson.D{{Key: "additionalItems", Value: false}}},
			{Key: "reason", Value: "found additional items"},
			{Key: "additionalItems", Value: bson.A(arr[additionalFrom:])},
		}) {
			return true
		}
	case s.additionalItems != nil:
		for i := additionalFrom; i < len(arr); i++ {
			var sub []bson.D
			if !s.additionalItems.check(arr[i], false, c.sink(&sub)) {
				if c.fail(bson.D{
					{Key: "operatorName", Value: "additionalItems"},
					{Key: "reason", Value: "At least one additional item did not match the sub-schema"},
					{Key: "itemIndex", Value: int32(i)},
					{Key: "details", Value: toA(sub)},
				}) {
					return true
				}
				break
			}
		}
	}
	return false
}

// collector gathers the outcome of a schema check and, when out is set, the
// details of every failed rule.
type collector struct {
	out *[]bson.D // nil when only matching
	ok  bool
}

// fail records a failed rule and reports whether checking should stop (it
// stops at the first failure when only matching).
func (c *collector) fail(d bson.D) bool {
	c.ok = false
	if c.out == nil {
		return true
	}
	if d != nil {
		*c.out = append(*c.out, d)
	}
	return false
}

func (c *collector) detailed() bool { return c.out != nil }

// sink returns where a nested check should put its details.
func (c *collector) sink(sub *[]bson.D) *[]bson.D {
	if c.out == nil {
		return nil
	}
	return sub
}

func toA(ds []bson.D) bson.A {
	a := make(bson.A, len(ds))
	for i, d := range ds {
		a[i] = d
	}
	return a
}

// checkObject checks the object keywords.
func (s *schema) checkObject(d bson.D, c *collector) bool {
	if s.checkProperties(d, c) {
		return true
	}
	if s.hasAllowedProps {
		if s.checkAllowedProperties(d, c) {
			return true
		}
	}
	if s.checkRequired(d, c) {
		return true
	}
	for _, kw := range []struct {
		name string
		l    *lengthKw
		bad  func(int64) bool
	}{
		{"minProperties", s.minProperties, func(n int64) bool { return int64(len(d)) < n }},
		{"maxProperties", s.maxProperties, func(n int64) bool { return int64(len(d)) > n }},
	} {
		if kw.l != nil && kw.bad(kw.l.n) {
			if c.fail(bson.D{
				{Key: "operatorName", Value: kw.name},
				{Key: "specifiedAs", Value: bson.D{{Key: kw.name, Value: kw.l.arg}}},
				{Key: "reason", Value: "specified number of properties was not satisfied"},
				{Key: "numberOfProperties", Value: int32(len(d))},
			}) {
				return true
			}
		}
	}
	return s.checkDependencies(d, c)
}

// checkProperties checks each present property against its schema; true
// stops the check.
func (s *schema) checkProperties(d bson.D, c *collector) bool {
	var failed bson.A
	for _, p := range s.properties {
		v, present := Field(d, p.name)
		if !present {
			continue // "required" reports missing properties
		}
		var sub []bson.D
		if !p.schema.check(v, false, c.sink(&sub)) {
			if !c.detailed() {
				return c.fail(nil)
			}
			entry := bson.D{{Key: "propertyName", Value: p.name}}
			entry = p.schema.appendAnnotations(entry)
			entry = append(entry, bson.E{Key: "details", Value: toA(sub)})
			failed = append(failed, entry)
		}
	}
	if failed != nil {
		if c.fail(bson.D{{Key: "operatorName", Value: "properties"}, {Key: "propertiesNotSatisfied", Value: failed}}) {
			return true
		}
	}
	return false
}

// checkRequired reports the required properties d lacks; true stops the
// check.
func (s *schema) checkRequired(d bson.D, c *collector) bool {
	var missing bson.A
	for _, name := range s.required {
		if _, ok := Field(d, name); !ok {
			missing = append(missing, name)
		}
	}
	if missing != nil {
		if c.fail(bson.D{
			{Key: "operatorName", Value: "required"},
			{Key: "specifiedAs", Value: bson.D{{Key: "required", Value: s.requiredArg}}},
			{Key: "missingProperties", Value: missing},
		}) {
			return true
		}
	}
	return false
}

// checkDependencies checks the dependencies of the properties d has; true
// stops the check.
func (s *schema) checkDependencies(d bson.D, c *collector) bool {
	var failing bson.A
	for _, dep := range s.dependencies {
		if _, ok := Field(d, dep.name); !ok {
			continue
		}
		if dep.schema != nil {
			var sub []bson.D
			if !dep.schema.check(d, true, c.sink(&sub)) {
				if !c.detailed() {
					return c.fail(nil)
				}
				failing = append(failing, bson.D{{Key: "conditionalProperty", Value: dep.name}, {Key: "details", Value: toA(sub)}})
			}
			continue
		}
		var missing bson.A
		for _, p := range dep.properties {
			if _, ok := Field(d, p); !ok {
				missing = append(missing, p)
			}
		}
		if missing != nil {
			if !c.detailed() {
				return c.fail(nil)
			}
			failing = append(failing, bson.D{{Key: "conditionalProperty", Value: dep.name}, {Key: "missingProperties", Value: missing}})
		}
	}
	if failing != nil {
		if c.fail(bson.D{{Key: "operatorName", Value: "dependencies"}, {Key: "failingDependencies", Value: failing}}) {
			return true
		}
	}
	return false
}

func (s *schema) checkAllowedProperties(d bson.D, c *collector) bool {
	var additional bson.A
	var patternFailures bson.A
	for _, e := range d {
		if slices.ContainsFunc(s.properties, func(p property) bool { return p.name == e.Key }) {
			continue
		}
		matchedPattern := false
		for _, pp := range s.patternProperties {
			if !pp.re.MatchString(e.Key) {
				continue
			}
			matchedPattern = true
			var sub []bson.D
			if !pp.schema.check(e.Value, false, c.sink(&sub)) {
				if !c.detailed() {
					return c.fail(nil)
				}
				patternFailures = append(patternFailures, bson.D{
					{Key: "propertyName", Value: e.Key},
					{Key: "regexMatched", Value: pp.pattern},
					{Key: "details", Value: toA(sub)},
				})
			}
		}
		if matchedPattern {
			continue
		}
		switch {
		case s.additionalPropsOK != nil && !*s.additionalPropsOK:
			if !c.detailed() {
				return c.fail(nil)
			}
			additional = append(additional, e.Key)
		case s.additionalProps != nil:
			var sub []bson.D
			if !s.additionalProps.check(e.Value, false, c.sink(&sub)) {
				if !c.detailed() {
					return c.fail(nil)
				}
				if additional == nil {
					additional = bson.A{bson.D{
						{Key: "operatorName", Value: "additionalProperties"},
						{Key: "reason", Value: "at least one additional property did not match the subschema"},
						{Key: "failingProperty", Value: e.Key},
						{Key: "details", Value: toA(sub)},
					}}
				}
			}
		}
	}
	if patternFailures != nil {
		if c.fail(bson.D{{Key: "operatorName", Value: "patternProperties"}, {Key: "details", Value: patternFailures}}) {
			return true
		}
	}
	if additional != nil {
		if s.additionalProps != nil {
			return c.fail(additional[0].(bson.D))
		}
		return c.fail(bson.D{
			{Key: "operatorName", Value: "additionalProperties"},
			{Key: "specifiedAs", Value: bson.D{{Key: "additionalProperties", Value: false}}},
			{Key: "additionalProperties", Value: additional},
		})
	}
	return false
}

func (s *schema) checkLogical(v any, top bool, c *collector) bool {
	for _, kw := range []struct {
		name string
		subs []*schema
	}{{"allOf", s.allOf}, {"anyOf", s.anyOf}} {
		if kw.subs == nil {
			continue
		}
		var failed bson.A
		matched := 0
		for i, sub := range kw.subs {
			var details []bson.D
			if sub.check(v, top, c.sink(&details)) {
				matched++
				continue
			}
			failed = append(failed, bson.D{{Key: "index", Value: int32(i)}, {Key: "details", Value: toA(details)}})
		}
		bad := (kw.name == "allOf" && failed != nil) || (kw.name == "anyOf" && matched == 0)
		if bad {
			if c.fail(bson.D{{Key: "operatorName", Value: kw.name}, {Key: "schemasNotSatisfied", Value: failed}}) {
				return true
			}
		}
	}
	if s.oneOf != nil {
		var failed bson.A
		var matching bson.A
		for i, sub := range s.oneOf {
			var details []bson.D
			if sub.check(v, top, c.sink(&details)) {
				matching = append(matching, int32(i))
				continue
			}
			failed = append(failed, bson.D{{Key: "index", Value: int32(i)}, {Key: "details", Value: toA(details)}})
		}
		switch {
		case len(matching) == 0:
			if c.fail(bson.D{{Key: "operatorName", Value: "oneOf"}, {Key: "schemasNotSatisfied", Value: failed}}) {
				return true
			}
		case len(matching) > 1:
			if c.fail(bson.D{
				{Key: "operatorName", Value: "oneOf"},
				{Key: "reason", Value: "more than one subschema matched"},
				{Key: "matchingSchemaIndexes", Value: matching},
			}) {
				return true
			}
		}
	}
	if s.not != nil && s.not.check(v, top, nil) {
		if c.fail(bson.D{{Key: "operatorName", Value: "not"}, {Key: "reason", Value: "child expression matched"}}) {
			return true
		}
	}
	if s.enum != nil {
		found := false
		for _, e := range s.enum {
			if top {
				// At the top level only documents can match: the root document.
				if _, isDoc := AsDocument(e); !isDoc {
					continue
				}
			}
			if equalUnordered(v, e) {
				found = true
				break
			}
		}
		if !found {
			if c.fail(keywordDetail("enum", s.enumArg, "value was not found in enum", v)) {
				return true
			}
		}
	}
	return false
}

// appendAnnotations adds the schema's title and description, which MongoDB
// (5.1+) copies into validation error details.
func (s *schema) appendAnnotations(d bson.D) bson.D {
	if s.hasTitle {
		d = append(d, bson.E{Key: "title", Value: s.title})
	}
	if s.hasDescription {
		d = append(d, bson.E{Key: "description", Value: s.description})
	}
	return d
}

// explain returns the $jsonSchema detail document for a failing document.
func (n *schemaNode) explain(doc bson.D) bson.D {
	if n.alwaysFalse {
		return bson.D{
			{Key: "operatorName", Value: "$jsonSchema"},
			{Key: "specifiedAs", Value: bson.D{{Key: "$jsonSchema", Value: n.spec}}},
			{Key: "reason", Value: "expression always evaluates to false"},
		}
	}
	details := []bson.D{}
	n.s.check(doc, true, &details)
	out := bson.D{{Key: "operatorName", Value: "$jsonSchema"}}
	out = n.s.appendAnnotations(out)
	return append(out, bson.E{Key: "schemaRulesNotSatisfied", Value: toA(details)})
}
