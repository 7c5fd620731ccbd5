package mongo

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

// This file holds the helpers for command arguments parsed from decoded
// documents (bson.D, as docdb.DecodeDocument gives them): index specs and
// the options of create and collMod, whose messages print the values as
// mongod prints BSON.

// valueTypeName returns MongoDB's name of a decoded value's BSON type.
func valueTypeName(v any) string { return aggregate.TypeName(v) }

// fmtDoc renders a document as mongod prints BSON in messages.
func fmtDoc(d bson.D) string { return aggregate.FormatValue(d) }

// fmtNumber renders a number as mongod prints it in messages.
func fmtNumber(v any) string {
	if n, ok := valueInt64(v); ok {
		return strconv.FormatInt(n, 10)
	}
	return aggregate.FormatValue(v)
}

// valueIsNumber reports whether a decoded value is a BSON number.
func valueIsNumber(v any) bool {
	switch v.(type) {
	case int32, int64, float64, bson.Decimal128:
		return true
	}
	return false
}

// valueFloat converts a decoded BSON number to float64.
func valueFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case bson.Decimal128:
		f, err := strconv.ParseFloat(x.String(), 64)
		return f, err == nil
	}
	return 0, false
}

// valueInt64 converts a decoded BSON number to int64; false for other
// types and for doubles that are not integral or out of range.
func valueInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case float64:
		if x != x || x < -9.223372036854775e18 || x > 9.223372036854775e18 || x != float64(int64(x)) {
			return 0, false
		}
		return int64(x), true
	case bson.Decimal128:
		f, ok := valueFloat(x)
		if !ok {
			return 0, false
		}
		return valueInt64(f)
	}
	return 0, false
}

// valueTruthy is truthy for a decoded value: false for false, null,
// undefined and a zero int or double.
func valueTruthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int32:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	case nil, bson.Null, bson.Undefined:
		return false
	}
	return true
}

// keyDirection returns +1 or -1 for a key pattern value (1, -1, 1.0, ...);
// 0 for zero and for values that are not numbers.
func keyDirection(v any) int {
	f, ok := valueFloat(v)
	switch {
	case !ok || f != f:
		return 0
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return 0
}

// fieldOf returns the value of key in d.
func fieldOf(d bson.D, key string) (any, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// decodedFields calls fn for every field of a decoded command document
// after the command name, skipping the generic arguments.
func decodedFields(cmd bson.D, fn func(el bson.E) error) error {
	for i, el := range cmd {
		if i == 0 || genericArgs[el.Key] {
			continue
		}
		if err := fn(el); err != nil {
			return err
		}
	}
	return nil
}
