package docdb

import (
	"fmt"
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// Index specs: validation of createIndexes specs with mongod's messages, and
// the equivalence rules that decide between "already exists", 85 and 86.

// maxIndexes is the most indexes a collection may have, _id_ included.
const maxIndexes = 64

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

// indexRequest is one validated createIndexes spec.
type indexRequest struct {
	raw  bson.D // as sent, for messages
	spec bson.D // as stored and listed: {v, key, name, options...}
	name string
	key  bson.D
}

// fmtDoc renders a document as mongod prints BSON in messages.
func fmtDoc(d bson.D) string { return aggregate.FormatValue(d) }

// parseIndexSpec validates a createIndexes spec.
func parseIndexSpec(raw bson.D) (*indexRequest, error) {
	text := fmtDoc(raw)
	versioned := raw
	if _, ok := fieldOf(raw, "v"); !ok {
		versioned = append(bson.D{{Key: "v", Value: int32(2)}}, raw...)
	}
	vtext := fmtDoc(versioned)
	inSpec := func(code mongoerr.Code, t, why string) error {
		return mongoerr.Newf(code, "Error in specification %s :: caused by :: %s", t, why)
	}
	cannot := func(why string) error { return inSpec(mongoerr.CannotCreateIndex, text, why) }

	kv, ok := fieldOf(raw, "key")
	if !ok {
		return nil, inSpec(mongoerr.FailedToParse, text, "The 'key' field is a required property of an index specification")
	}
	key, ok := kv.(bson.D)
	if !ok {
		return nil, inSpec(mongoerr.TypeMismatch, text,
			fmt.Sprintf("The field 'key' must be an object, but got %s", typeName(kv)))
	}
	if len(key) == 0 {
		return nil, cannot("Index keys cannot be empty.")
	}
	for _, f := range key {
		if f.Key == "" || strings.Contains(f.Key, "..") || strings.HasPrefix(f.Key, ".") || strings.HasSuffix(f.Key, ".") {
			return nil, cannot("Index keys cannot be an empty field.")
		}
		if strings.HasPrefix(f.Key, "$") && f.Key != "$**" {
			return nil, cannot("Index key contains an illegal field name: field name starts with '$'.")
		}
		switch x := f.Value.(type) {
		case string:
			if indexPlugins[x] {
				return nil, mongoerr.Newf(mongoerr.NotImplemented, "%s indexes are not supported", x)
			}
			return nil, cannot(fmt.Sprintf("Unknown index plugin '%s'", x))
		default:
			if !isNumber(f.Value) {
				return nil, cannot(fmt.Sprintf(
					"Values in v:2 index key pattern cannot be of type %s. Only numbers > 0, numbers < 0, and strings are allowed.",
					typeName(f.Value)))
			}
			fv, _ := toFloat(f.Value)
			if math.IsNaN(fv) {
				return nil, cannot("Values in the index key pattern cannot be NaN.")
			}
			if fv == 0 {
				return nil, cannot("Values in the index key pattern cannot be 0.")
			}
		}
		if strings.Contains(f.Key, "$**") {
			return nil, mongoerr.New(mongoerr.NotImplemented, "wildcard indexes are not supported")
		}
	}
	if len(key) > maxKeyFields {
		return nil, mongoerr.New(mongoerr.Location13103, "too many compound keys")
	}
	if v, ok := fieldOf(raw, "v"); ok {
		n, ok := toInt64(v)
		if !ok || n < 1 || n > 2 {
			return nil, cannot(fmt.Sprintf("Invalid index specification %s; cannot create an index with v=%s", text, aggregate.FormatValue(v)))
		}
	}
	name := ""
	if nv, ok := fieldOf(raw, "name"); ok {
		s, ok := nv.(string)
		if !ok {
			return nil, mongoerr.Newf(mongoerr.TypeMismatch,
				"Error in specification %s :: caused by :: The field 'name' must be a string, but got %s", text, typeName(nv))
		}
		name = s
		if name == "" {
			return nil, inSpec(mongoerr.CannotCreateIndex, vtext, "index name cannot be empty")
		}
		if name == "*" {
			return nil, mongoerr.New(mongoerr.BadValue, "The index name '*' is not valid.")
		}
	} else {
		name = defaultIndexName(key)
	}
	isIDKey := len(key) == 1 && key[0].Key == "_id"
	if isIDKey {
		if keyDirection(key[0].Value) != 1 {
			return nil, mongoerr.Newf(mongoerr.BadValue,
				"The field 'key' for an _id index must be {_id: 1}, but got %s", fmtDoc(key))
		}
		for _, e := range raw {
			switch e.Key {
			case "key", "name", "v", "ns", "collation":
			default:
				return nil, mongoerr.Newf(mongoerr.InvalidIndexSpecificationOption,
					"The field '%s' is not valid for an _id index specification. Specification: %s", e.Key, vtext)
			}
		}
	}
	for _, e := range raw {
		if e.Key != "key" && e.Key != "name" && !indexOptionNames[e.Key] {
			return nil, inSpec(mongoerr.InvalidIndexSpecificationOption, text,
				fmt.Sprintf("The field '%s' is not valid for an index specification. Specification: %s", e.Key, text))
		}
	}
	pfe, hasPartial := fieldOf(raw, "partialFilterExpression")
	if sv, ok := fieldOf(raw, "sparse"); ok && truthy(sv) && hasPartial {
		return nil, inSpec(mongoerr.CannotCreateIndex, vtext, "cannot mix \"partialFilterExpression\" and \"sparse\" options")
	}
	if hasPartial {
		d, ok := pfe.(bson.D)
		if !ok {
			return nil, inSpec(mongoerr.TypeMismatch, text,
				fmt.Sprintf("The field 'partialFilterExpression' must be an object, but got %s", typeName(pfe)))
		}
		if why := checkPartialFilter(d, 0); why != "" {
			return nil, inSpec(mongoerr.CannotCreateIndex, vtext, why)
		}
		if _, err := parseFilter(d); err != nil {
			return nil, err
		}
	}
	var ttl any
	if ev, ok := fieldOf(raw, "expireAfterSeconds"); ok {
		n, err := indexExpireAfter(ev, text)
		if err != nil {
			return nil, err
		}
		if len(key) > 1 {
			return nil, mongoerr.Newf(mongoerr.CannotCreateIndex,
				"TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: %s", text)
		}
		ttl = n
	}
	for _, opt := range []string{"unique", "sparse", "hidden", "background", "prepareUnique"} {
		if v, ok := fieldOf(raw, opt); ok && !isNumber(v) {
			if _, isBool := v.(bool); !isBool {
				return nil, mongoerr.Newf(mongoerr.TypeMismatch,
					"Error in specification %s :: caused by :: The field '%s' must be a bool, but got %s", text, opt, typeName(v))
			}
		}
	}

	spec := bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: key}, {Key: "name", Value: name}}
	for _, e := range raw {
		switch e.Key {
		case "v", "key", "name", "ns":
			continue
		case "unique", "sparse", "hidden", "prepareUnique":
			// mongod keeps these only when true, as booleans.
			if !truthy(e.Value) {
				continue
			}
			e.Value = true
		case "expireAfterSeconds":
			e.Value = ttl
		}
		spec = append(spec, e)
	}
	return &indexRequest{raw: raw, spec: spec, name: name, key: key}, nil
}

// indexExpireAfter validates an index's expireAfterSeconds (spec 1.7) and
// returns it as stored: an int32, doubles truncated.
func indexExpireAfter(v any, text string) (int32, error) {
	fail := func(why string) error {
		return mongoerr.Newf(mongoerr.CannotCreateIndex, ". Index spec: %s :: caused by :: %s", text, why)
	}
	if !isNumber(v) {
		return 0, fail(fmt.Sprintf("TTL index 'expireAfterSeconds' option must be numeric, but received a type of '%s", typeName(v)))
	}
	f, _ := toFloat(v)
	if math.IsNaN(f) {
		return 0, fail("TTL index 'expireAfterSeconds' option must not be NaN")
	}
	if f < math.MinInt32 || f > math.MaxInt32 {
		return 0, fail("TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer")
	}
	if f < 0 {
		return 0, fail("TTL index 'expireAfterSeconds' option cannot be less than 0")
	}
	return int32(f), nil
}

// checkPartialFilter enforces the expressions MongoDB allows in a partial
// index filter: equality, $exists: true, comparisons, $type, $in, and $and
// or $or of those. It returns mongod's reason for refusing the filter, or
// "" when it is allowed.
func checkPartialFilter(d bson.D, depth int) string {
	unsupported := func(e bson.E) string {
		return "Expression not supported in partial index: " + fmtDoc(bson.D{e})
	}
	for _, e := range d {
		switch e.Key {
		case "$and", "$or":
			if depth > 0 && e.Key == "$and" {
				return unsupported(e)
			}
			arr, ok := e.Value.(bson.A)
			if !ok {
				continue // the query parser reports it
			}
			for _, sub := range arr {
				if sd, ok := sub.(bson.D); ok {
					if why := checkPartialFilter(sd, depth+1); why != "" {
						return why
					}
				}
			}
			continue
		}
		if strings.HasPrefix(e.Key, "$") {
			return unsupported(e)
		}
		ops, ok := e.Value.(bson.D)
		if !ok || len(ops) == 0 || !strings.HasPrefix(ops[0].Key, "$") {
			if _, isRegex := e.Value.(bson.Regex); isRegex {
				return unsupported(e)
			}
			continue // equality
		}
		for _, op := range ops {
			switch op.Key {
			case "$eq", "$gt", "$gte", "$lt", "$lte", "$type", "$in":
			case "$exists":
				if !truthy(op.Value) {
					return unsupported(bson.E{Key: e.Key, Value: bson.D{op}})
				}
			default:
				return unsupported(bson.E{Key: e.Key, Value: bson.D{op}})
			}
		}
	}
	return ""
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

// identifying returns the options that make two indexes on the same key
// different indexes (unique, sparse, partialFilterExpression, collation).
func identifying(spec bson.D) bson.D {
	var out bson.D
	for _, e := range spec {
		switch e.Key {
		case "unique", "sparse", "partialFilterExpression", "collation":
			out = append(out, e)
		}
	}
	return out
}

// nonIdentifying returns the options that do not identify an index but are
// part of its definition (expireAfterSeconds, hidden).
func nonIdentifying(spec bson.D) bson.D {
	var out bson.D
	for _, e := range spec {
		switch e.Key {
		case "expireAfterSeconds", "hidden":
			out = append(out, e)
		}
	}
	return out
}

// sameDoc compares two documents field by field in order, numbers by value.
func sameDoc(a, b bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !sameValue(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

func sameValue(a, b any) bool {
	if da, ok := a.(bson.D); ok {
		db, ok := b.(bson.D)
		return ok && sameDoc(da, db)
	}
	if isNumber(a) && isNumber(b) {
		fa, _ := toFloat(a)
		fb, _ := toFloat(b)
		return fa == fb
	}
	return fmtValueEq(a, b)
}

func fmtValueEq(a, b any) bool {
	return typeName(a) == typeName(b) && aggregate.FormatValue(a) == aggregate.FormatValue(b)
}

// sameOptions compares two option lists as sets, numbers by value.
func sameOptions(a, b bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for _, e := range a {
		v, ok := fieldOf(b, e.Key)
		if !ok || !sameValue(e.Value, v) {
			return false
		}
	}
	return true
}

// conflictText renders a spec for 85/86 messages as mongod does: v first,
// then the options, then key and name.
func conflictText(spec bson.D) string {
	out := bson.D{{Key: "v", Value: int32(2)}}
	for _, e := range spec {
		switch e.Key {
		case "v", "key", "name", "ns":
		default:
			out = append(out, e)
		}
	}
	if k, ok := fieldOf(spec, "key"); ok {
		out = append(out, bson.E{Key: "key", Value: k})
	}
	if n, ok := fieldOf(spec, "name"); ok {
		out = append(out, bson.E{Key: "name", Value: n})
	}
	return fmtDoc(out)
}

// indexConflict compares a requested index with an existing one. It returns
// exists when they are the same index, or the 85/86 error of spec 1.8.
func indexConflict(req *indexRequest, existing bson.D) (exists bool, err error) {
	exName, _ := fieldOf(existing, "name")
	exKeyV, _ := fieldOf(existing, "key")
	exKey, _ := exKeyV.(bson.D)
	sameName := exName == req.name
	sameKey := sameDoc(exKey, req.key)
	sameIdent := sameOptions(identifying(existing), identifying(req.spec))
	sameRest := sameOptions(nonIdentifying(existing), nonIdentifying(req.spec))
	pair := fmt.Sprintf("Requested index: %s, existing index: %s", conflictText(req.spec), conflictText(existing))
	switch {
	case sameName && sameKey && sameIdent && sameRest:
		return true, nil
	case sameName && sameKey && sameIdent:
		return false, mongoerr.New(mongoerr.IndexOptionsConflict,
			"An equivalent index already exists with the same name but different options. "+pair)
	case sameName:
		return false, mongoerr.New(mongoerr.IndexKeySpecsConflict,
			"An existing index has the same name as the requested index. When index names are not specified, "+
				"they are auto generated and can cause conflicts. Please refer to our documentation. "+pair)
	case sameKey && sameIdent && sameRest:
		return false, mongoerr.Newf(mongoerr.IndexOptionsConflict, "Index already exists with a different name: %v", exName)
	case sameKey && sameIdent:
		return false, mongoerr.New(mongoerr.IndexOptionsConflict,
			"An equivalent index already exists with a different name and options. "+pair)
	}
	return false, nil
}
