package aggregate

import (
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// missingValue is the type of Missing.
type missingValue struct{}

// Missing is the value an expression evaluates to when its result is absent
// (a field path that names no field, $$REMOVE). Stages that write fields
// leave a field out when its expression yields Missing; inside arrays it
// becomes null, as in MongoDB.
var Missing any = missingValue{}

// IsMissing reports whether v is the Missing value.
func IsMissing(v any) bool {
	_, ok := v.(missingValue)
	return ok
}

// nullish reports whether v is null, undefined or missing: the values most
// operators answer null for.
func nullish(v any) bool {
	switch v.(type) {
	case nil, missingValue, bson.Undefined, bson.Null:
		return true
	}
	return false
}

// TypeName returns MongoDB's name of v's BSON type, as $type reports it
// ("double", "string", "object", "array", "int", "long", "decimal", ...;
// "missing" for Missing).
func TypeName(v any) string {
	switch x := v.(type) {
	case missingValue:
		return "missing"
	case nil, bson.Null:
		return "null"
	case float64, float32:
		return "double"
	case string:
		return "string"
	case bson.D, bson.M, bson.Raw:
		return "object"
	case bson.A, []any:
		return "array"
	case bson.Binary, []byte:
		return "binData"
	case bson.Undefined:
		return "undefined"
	case bson.ObjectID:
		return "objectId"
	case bool:
		return "bool"
	case bson.DateTime, time.Time:
		return "date"
	case bson.Regex:
		return "regex"
	case bson.DBPointer:
		return "dbPointer"
	case bson.JavaScript:
		return "javascript"
	case bson.Symbol:
		return "symbol"
	case bson.CodeWithScope:
		return "javascriptWithScope"
	case int32, int8, int16, uint8, uint16:
		return "int"
	case int:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return "int"
		}
		return "long"
	case int64, uint32:
		return "long"
	case bson.Timestamp:
		return "timestamp"
	case bson.Decimal128:
		return "decimal"
	case bson.MinKey:
		return "minKey"
	case bson.MaxKey:
		return "maxKey"
	}
	return "unknown"
}

// typeNumbers maps $type names to BSON type numbers (for $type aliases).
var typeNumbers = map[string]int32{
	"double": 1, "string": 2, "object": 3, "array": 4, "binData": 5, "undefined": 6,
	"objectId": 7, "bool": 8, "date": 9, "null": 10, "regex": 11, "dbPointer": 12,
	"javascript": 13, "symbol": 14, "javascriptWithScope": 15, "int": 16,
	"timestamp": 17, "long": 18, "decimal": 19, "minKey": -1, "maxKey": 127,
}

// asArray returns v as a slice if it is an array.
func asArray(v any) (bson.A, bool) {
	switch x := v.(type) {
	case bson.A:
		return x, true
	case []any:
		return bson.A(x), true
	}
	return nil, false
}

// asDoc returns v as a document if it is one.
func asDoc(v any) (bson.D, bool) {
	switch x := v.(type) {
	case bson.D:
		return x, true
	case bson.M:
		d := make(bson.D, 0, len(x))
		for k, e := range x {
			d = append(d, bson.E{Key: k, Value: e})
		}
		return d, true
	}
	return nil, false
}

// lookupField returns the value of the top-level field name in d.
func lookupField(d bson.D, name string) (any, bool) {
	for _, e := range d {
		if e.Key == name {
			return e.Value, true
		}
	}
	return nil, false
}

// setField sets name in d, keeping its position when it exists and appending
// it otherwise. It returns the new document.
func setField(d bson.D, name string, v any) bson.D {
	for i := range d {
		if d[i].Key == name {
			d[i].Value = v
			return d
		}
	}
	return append(d, bson.E{Key: name, Value: v})
}

// removeField removes name from d.
func removeField(d bson.D, name string) bson.D {
	for i := range d {
		if d[i].Key == name {
			return append(d[:i:i], d[i+1:]...)
		}
	}
	return d
}

// truthy is MongoDB's coercion of a value to bool in expressions: false,
// null, undefined, missing and numeric zero are false; everything else
// (including empty strings and arrays) is true.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case nil, missingValue, bson.Undefined, bson.Null:
		return false
	case int32:
		return x != 0
	case int64:
		return x != 0
	case int:
		return x != 0
	case float64:
		return x != 0
	case bson.Decimal128:
		return !x.IsZero()
	}
	return true
}

// cloneValue deep-copies documents and arrays so that results never alias
// their inputs.
func cloneValue(v any) any {
	switch x := v.(type) {
	case bson.D:
		return cloneDoc(x)
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

// cloneDoc deep-copies d.
func cloneDoc(d bson.D) bson.D {
	if d == nil {
		return nil
	}
	out := make(bson.D, len(d))
	for i, e := range d {
		out[i] = bson.E{Key: e.Key, Value: cloneValue(e.Value)}
	}
	return out
}

// CloneDoc returns a deep copy of d (nested documents and arrays copied).
func CloneDoc(d bson.D) bson.D { return cloneDoc(d) }

// arrayValue converts Missing into null for storage in an array.
func arrayValue(v any) any {
	if IsMissing(v) {
		return nil
	}
	return v
}

// CloneValue returns a deep copy of v (documents and arrays copied).
func CloneValue(v any) any { return cloneValue(v) }
