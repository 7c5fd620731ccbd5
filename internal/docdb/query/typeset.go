package query

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

// typeAliases maps MongoDB's $type string aliases to BSON types.
var typeAliases = map[string]bson.Type{
	"double":              bson.TypeDouble,
	"string":              bson.TypeString,
	"object":              bson.TypeEmbeddedDocument,
	"array":               bson.TypeArray,
	"binData":             bson.TypeBinary,
	"undefined":           bson.TypeUndefined,
	"objectId":            bson.TypeObjectID,
	"bool":                bson.TypeBoolean,
	"date":                bson.TypeDateTime,
	"null":                bson.TypeNull,
	"regex":               bson.TypeRegex,
	"dbPointer":           bson.TypeDBPointer,
	"javascript":          bson.TypeJavaScript,
	"symbol":              bson.TypeSymbol,
	"javascriptWithScope": bson.TypeCodeWithScope,
	"int":                 bson.TypeInt32,
	"timestamp":           bson.TypeTimestamp,
	"long":                bson.TypeInt64,
	"decimal":             bson.TypeDecimal128,
	"minKey":              bson.TypeMinKey,
	"maxKey":              bson.TypeMaxKey,
}

// TypeName returns MongoDB's name for the BSON type of v, as $type (the
// aggregation operator) and validation errors report it ("int", "string",
// "object", ...), or "missing" for an unsupported value.
func TypeName(v any) string {
	return typeNameOf(TypeOf(v))
}

func typeNameOf(t bson.Type) string {
	for name, tt := range typeAliases {
		if tt == t {
			return name
		}
	}
	return "missing"
}

func validTypeCode(n int64) (bson.Type, bool) {
	switch {
	case n == -1:
		return bson.TypeMinKey, true
	case n == 127:
		return bson.TypeMaxKey, true
	case n >= 1 && n <= 19:
		return bson.Type(n), true
	}
	return 0, false
}

// parseTypeSet parses the argument of $type: a code, an alias, "number", or
// an array of those.
func parseTypeSet(arg any) (*typePred, error) {
	tp := &typePred{}
	add := func(v any) error {
		if s, ok := v.(string); ok {
			if s == "number" {
				tp.allNumbers = true
				return nil
			}
			t, ok := typeAliases[s]
			if !ok {
				if s == "missing" {
					return badValue("'missing' is not a legal type name. To query for non-existence of a field, use {$exists:false}.")
				}
				return badValue("Unknown type name alias: %s", s)
			}
			tp.types = append(tp.types, t)
			return nil
		}
		if !IsNumber(v) {
			return mongoerr.New(mongoerr.TypeMismatch, "type must be represented as a number or a string")
		}
		n, ok := coerceInt64(v)
		if !ok || !isIntegral(v) || n != int64(int32(n)) {
			return badValue("Invalid numerical type code: %s", formatNumber(v))
		}
		if n == 0 {
			return badValue("Invalid numerical type code: %s. Instead use {$exists:false}.", formatNumber(v))
		}
		t, ok := validTypeCode(n)
		if !ok {
			return badValue("Invalid numerical type code: %s", formatNumber(v))
		}
		tp.types = append(tp.types, t)
		return nil
	}
	if arr, ok := AsArray(arg); ok {
		for _, v := range arr {
			if err := add(v); err != nil {
				return nil, err
			}
		}
	} else if err := add(arg); err != nil {
		return nil, err
	}
	if len(tp.types) == 0 && !tp.allNumbers {
		return nil, mongoerr.New(mongoerr.FailedToParse, "$type must match at least one type")
	}
	return tp, nil
}

// formatNumber prints a number the way MongoDB's elt.number() streams it
// (a double with six significant digits).
func formatNumber(v any) string {
	switch x := v.(type) {
	case int32, int64, int:
		return fmt.Sprint(x)
	case float64:
		return fmt.Sprintf("%.6g", x)
	case bson.Decimal128:
		return x.String()
	}
	return fmt.Sprint(v)
}
