package mongo

import (
	"fmt"
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb"
	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// This file checks createIndexes specs with mongod's messages, one step per
// rule group, in mongod's order.

// maxKeyFields is the most fields in a compound key pattern.
const maxKeyFields = 32

// indexOptionNames are the options a createIndexes spec may carry besides
// key and name.
var indexOptionNames = map[string]bool{
	"v": true, "unique": true, "sparse": true, "partialFilterExpression": true,
	"expireAfterSeconds": true, "hidden": true, "background": true, "ns": true,
	"storageEngine": true, "collation": true, "prepareUnique": true,
}

// indexPlugins are the special index types MongoDB knows; mayfly builds only
// ordinary (btree) indexes.
var indexPlugins = map[string]bool{"2d": true, "2dsphere": true, "text": true, "hashed": true, "geoHaystack": true, "2dsphere_bucket": true}

// indexSpecText is an index spec as messages print it: text as sent, vtext
// with the v: 2 mongod adds when v is absent.
type indexSpecText struct {
	text, vtext string
}

func newIndexSpecText(raw bson.D) indexSpecText {
	versioned := raw
	if _, ok := catalog.FieldOf(raw, "v"); !ok {
		versioned = append(bson.D{{Key: "v", Value: int32(2)}}, raw...)
	}
	return indexSpecText{text: fmtDoc(raw), vtext: fmtDoc(versioned)}
}

// inSpec is mongod's "Error in specification" error for the spec printed
// as t.
func inSpec(code mongoerr.Code, t, why string) error {
	return errorf(code, "Error in specification %s :: caused by :: %s", t, why)
}

// cannot is CannotCreateIndex for the spec as sent.
func (s indexSpecText) cannot(why string) error {
	return inSpec(mongoerr.CannotCreateIndex, s.text, why)
}

// parseIndexSpec checks one createIndexes spec and returns it as the
// document model creates it.
func parseIndexSpec(raw bson.D) (docdb.IndexSpec, error) {
	t := newIndexSpecText(raw)
	key, err := indexKeyArg(raw, t)
	if err != nil {
		return docdb.IndexSpec{}, err
	}
	if err := indexVersionArg(raw, t); err != nil {
		return docdb.IndexSpec{}, err
	}
	name, err := indexNameArg(raw, key, t)
	if err != nil {
		return docdb.IndexSpec{}, err
	}
	if err := checkIDIndexSpec(raw, key, t); err != nil {
		return docdb.IndexSpec{}, err
	}
	if err := checkIndexOptionNames(raw, t); err != nil {
		return docdb.IndexSpec{}, err
	}
	if err := checkPartialIndex(raw, t); err != nil {
		return docdb.IndexSpec{}, err
	}
	ttl, err := indexTTLArg(raw, key, t)
	if err != nil {
		return docdb.IndexSpec{}, err
	}
	if err := checkIndexBoolOptions(raw, t); err != nil {
		return docdb.IndexSpec{}, err
	}
	return docdb.IndexSpec{Key: key, Name: name, Options: indexOptions(raw, ttl)}, nil
}

// indexKeyArg checks the spec's key pattern.
func indexKeyArg(raw bson.D, t indexSpecText) (bson.D, error) {
	kv, ok := catalog.FieldOf(raw, "key")
	if !ok {
		return nil, inSpec(mongoerr.FailedToParse, t.text, "The 'key' field is a required property of an index specification")
	}
	key, ok := kv.(bson.D)
	if !ok {
		return nil, inSpec(mongoerr.TypeMismatch, t.text,
			fmt.Sprintf("The field 'key' must be an object, but got %s", valueTypeName(kv)))
	}
	if len(key) == 0 {
		return nil, t.cannot("Index keys cannot be empty.")
	}
	for _, f := range key {
		if err := indexKeyField(f, t); err != nil {
			return nil, err
		}
	}
	if len(key) > maxKeyFields {
		return nil, errorf(mongoerr.Location13103, "too many compound keys")
	}
	return key, nil
}

// indexKeyField checks one field of a key pattern: its path and its
// direction (mayfly has no index plugins, wildcard indexes among them).
func indexKeyField(f bson.E, t indexSpecText) error {
	if f.Key == "" || strings.Contains(f.Key, "..") || strings.HasPrefix(f.Key, ".") || strings.HasSuffix(f.Key, ".") {
		return t.cannot("Index keys cannot be an empty field.")
	}
	if strings.HasPrefix(f.Key, "$") && f.Key != "$**" {
		return t.cannot("Index key contains an illegal field name: field name starts with '$'.")
	}
	if s, ok := f.Value.(string); ok {
		if indexPlugins[s] {
			return errorf(mongoerr.NotImplemented, "%s indexes are not supported", s)
		}
		return t.cannot(fmt.Sprintf("Unknown index plugin '%s'", s))
	}
	if !catalog.IsNumber(f.Value) {
		return t.cannot(fmt.Sprintf(
			"Values in v:2 index key pattern cannot be of type %s. Only numbers > 0, numbers < 0, and strings are allowed.",
			valueTypeName(f.Value)))
	}
	fv, _ := catalog.ToFloat(f.Value)
	if math.IsNaN(fv) {
		return t.cannot("Values in the index key pattern cannot be NaN.")
	}
	if fv == 0 {
		return t.cannot("Values in the index key pattern cannot be 0.")
	}
	if strings.Contains(f.Key, "$**") {
		return errorf(mongoerr.NotImplemented, "wildcard indexes are not supported")
	}
	return nil
}

// indexVersionArg checks the spec's index version v: 1 or 2.
func indexVersionArg(raw bson.D, t indexSpecText) error {
	v, ok := catalog.FieldOf(raw, "v")
	if !ok {
		return nil
	}
	if n, ok := catalog.ToInt64(v); !ok || n < 1 || n > 2 {
		return t.cannot(fmt.Sprintf("Invalid index specification %s; cannot create an index with v=%s", t.text, aggregate.FormatValue(v)))
	}
	return nil
}

// indexNameArg returns the spec's name, or the name mongod gives an
// unnamed index.
func indexNameArg(raw, key bson.D, t indexSpecText) (string, error) {
	nv, ok := catalog.FieldOf(raw, "name")
	if !ok {
		return defaultIndexName(key), nil
	}
	name, ok := nv.(string)
	if !ok {
		return "", errorf(mongoerr.TypeMismatch,
			"Error in specification %s :: caused by :: The field 'name' must be a string, but got %s", t.text, valueTypeName(nv))
	}
	switch name {
	case "":
		return "", inSpec(mongoerr.CannotCreateIndex, t.vtext, "index name cannot be empty")
	case "*":
		return "", errorf(mongoerr.BadValue, "The index name '*' is not valid.")
	}
	return name, nil
}

// defaultIndexName is the name drivers and mongod give an unnamed index:
// field_direction pairs joined by underscores.
func defaultIndexName(key bson.D) string {
	var b strings.Builder
	for i, f := range key {
		if i > 0 {
			b.WriteByte('_')
		}
		b.WriteString(f.Key)
		b.WriteByte('_')
		b.WriteString(aggregate.FormatValue(f.Value))
	}
	return b.String()
}

// checkIDIndexSpec checks a spec on {_id}: ascending, with no options but
// name, v, ns and collation.
func checkIDIndexSpec(raw, key bson.D, t indexSpecText) error {
	if len(key) != 1 || key[0].Key != "_id" {
		return nil
	}
	if catalog.KeyDirection(key[0].Value) != 1 {
		return errorf(mongoerr.BadValue, "The field 'key' for an _id index must be {_id: 1}, but got %s", fmtDoc(key))
	}
	for _, e := range raw {
		switch e.Key {
		case "key", "name", "v", "ns", "collation":
		default:
			return errorf(mongoerr.InvalidIndexSpecificationOption,
				"The field '%s' is not valid for an _id index specification. Specification: %s", e.Key, t.vtext)
		}
	}
	return nil
}

// checkIndexOptionNames refuses an option an index spec does not have.
func checkIndexOptionNames(raw bson.D, t indexSpecText) error {
	for _, e := range raw {
		if e.Key != "key" && e.Key != "name" && !indexOptionNames[e.Key] {
			return inSpec(mongoerr.InvalidIndexSpecificationOption, t.text,
				fmt.Sprintf("The field '%s' is not valid for an index specification. Specification: %s", e.Key, t.text))
		}
	}
	return nil
}

// checkPartialIndex checks partialFilterExpression: not with sparse, an
// object, and an expression a partial index allows.
func checkPartialIndex(raw bson.D, t indexSpecText) error {
	pfe, ok := catalog.FieldOf(raw, "partialFilterExpression")
	if !ok {
		return nil
	}
	if sv, ok := catalog.FieldOf(raw, "sparse"); ok && catalog.Truthy(sv) {
		return inSpec(mongoerr.CannotCreateIndex, t.vtext, "cannot mix \"partialFilterExpression\" and \"sparse\" options")
	}
	d, ok := pfe.(bson.D)
	if !ok {
		return inSpec(mongoerr.TypeMismatch, t.text,
			fmt.Sprintf("The field 'partialFilterExpression' must be an object, but got %s", valueTypeName(pfe)))
	}
	why, err := docdb.CheckPartialFilter(d)
	if why != "" {
		return inSpec(mongoerr.CannotCreateIndex, t.vtext, why)
	}
	return err
}

// indexTTLArg checks expireAfterSeconds and returns it as stored: an
// int32, doubles truncated; nil when absent.
func indexTTLArg(raw, key bson.D, t indexSpecText) (any, error) {
	v, ok := catalog.FieldOf(raw, "expireAfterSeconds")
	if !ok {
		return nil, nil
	}
	fail := func(why string) error {
		return errorf(mongoerr.CannotCreateIndex, ". Index spec: %s :: caused by :: %s", t.text, why)
	}
	if !catalog.IsNumber(v) {
		return nil, fail(fmt.Sprintf("TTL index 'expireAfterSeconds' option must be numeric, but received a type of '%s", valueTypeName(v)))
	}
	f, _ := catalog.ToFloat(v)
	switch {
	case math.IsNaN(f):
		return nil, fail("TTL index 'expireAfterSeconds' option must not be NaN")
	case f < math.MinInt32 || f > math.MaxInt32:
		return nil, fail("TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer")
	case f < 0:
		return nil, fail("TTL index 'expireAfterSeconds' option cannot be less than 0")
	}
	if len(key) > 1 {
		return nil, errorf(mongoerr.CannotCreateIndex,
			"TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: %s", t.text)
	}
	return int32(f), nil
}

// checkIndexBoolOptions checks the boolean options' types (a number is
// accepted as a bool).
func checkIndexBoolOptions(raw bson.D, t indexSpecText) error {
	for _, opt := range []string{"unique", "sparse", "hidden", "background", "prepareUnique"} {
		v, ok := catalog.FieldOf(raw, opt)
		if !ok || catalog.IsNumber(v) {
			continue
		}
		if _, isBool := v.(bool); !isBool {
			return errorf(mongoerr.TypeMismatch,
				"Error in specification %s :: caused by :: The field '%s' must be a bool, but got %s", t.text, opt, valueTypeName(v))
		}
	}
	return nil
}

// indexOptions returns the spec's options as stored, in the order given:
// unique, sparse, hidden and prepareUnique only when true (as true),
// expireAfterSeconds as ttl.
func indexOptions(raw bson.D, ttl any) bson.D {
	var out bson.D
	for _, e := range raw {
		switch e.Key {
		case "v", "key", "name", "ns":
			continue
		case "unique", "sparse", "hidden", "prepareUnique":
			if !catalog.Truthy(e.Value) {
				continue
			}
			e.Value = true
		case "expireAfterSeconds":
			e.Value = ttl
		}
		out = append(out, e)
	}
	return out
}
