package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

// IsNumber reports whether v is a BSON number.
func IsNumber(v any) bool {
	switch v.(type) {
	case int32, int64, int, float64, bson.Decimal128:
		return true
	}
	return false
}

// ToFloat converts a BSON number to float64; ok is false for other types.
func ToFloat(v any) (float64, bool) {
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
		f, err := DecimalToFloat(x)
		return f, err == nil
	}
	return 0, false
}

// SameDoc reports whether two documents are equal as index specs and key
// patterns compare: the same keys in the same order, numbers by value,
// other values by type and formatted value.
func SameDoc(a, b bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !SameValue(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// SameValue compares two values as SameDoc compares its fields.
func SameValue(a, b any) bool {
	if da, ok := a.(bson.D); ok {
		db, ok := b.(bson.D)
		return ok && SameDoc(da, db)
	}
	if IsNumber(a) && IsNumber(b) {
		fa, _ := ToFloat(a)
		fb, _ := ToFloat(b)
		return fa == fb
	}
	return fmtValueEq(a, b)
}

// fmtValueEq reports whether a and b have the same type and formatting.
func fmtValueEq(a, b any) bool {
	return aggregate.TypeName(a) == aggregate.TypeName(b) && aggregate.FormatValue(a) == aggregate.FormatValue(b)
}
