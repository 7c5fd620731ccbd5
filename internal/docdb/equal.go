package docdb

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
	"github.com/mayfly/mayfly/internal/docdb/catalog"
)

// isNumber reports whether v is a BSON number.
func isNumber(v any) bool {
	switch v.(type) {
	case int32, int64, int, float64, bson.Decimal128:
		return true
	}
	return false
}

// toFloat converts a BSON number to float64; ok is false for other types.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	case bson.Decimal128:
		f, err := catalog.DecimalToFloat(x)
		return f, err == nil
	}
	return 0, false
}

// sameDoc reports whether two documents are equal as index specs and key
// patterns compare: the same keys in the same order, numbers by value,
// other values by type and formatted value.
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

// sameValue compares two values as sameDoc compares its fields.
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

// fmtValueEq reports whether a and b have the same type and formatting.
func fmtValueEq(a, b any) bool {
	return aggregate.TypeName(a) == aggregate.TypeName(b) && aggregate.FormatValue(a) == aggregate.FormatValue(b)
}
