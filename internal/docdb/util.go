package docdb

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/aggregate"
)

// typeName returns MongoDB's name of v's BSON type ("double", "string",
// "object", ...).
func typeName(v any) string { return aggregate.TypeName(v) }

// decimalToFloat converts a Decimal128 to the nearest float64.
func decimalToFloat(d bson.Decimal128) (float64, error) {
	return strconv.ParseFloat(d.String(), 64)
}

// toInt64 converts a BSON number to int64; ok is false for other types and
// for doubles that are not integral or out of range.
func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x != x || x < -9.223372036854775e18 || x > 9.223372036854775e18 || x != float64(int64(x)) {
			return 0, false
		}
		return int64(x), true
	case bson.Decimal128:
		f, err := decimalToFloat(x)
		if err != nil {
			return 0, false
		}
		return toInt64(f)
	}
	return 0, false
}

// isNumber reports whether v is a BSON number.
func isNumber(v any) bool {
	switch v.(type) {
	case int32, int64, int, float64, bson.Decimal128:
		return true
	}
	return false
}
