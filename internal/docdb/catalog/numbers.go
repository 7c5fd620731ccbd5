package catalog

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// DecimalToFloat converts a Decimal128 to the nearest float64.
func DecimalToFloat(d bson.Decimal128) (float64, error) {
	return strconv.ParseFloat(d.String(), 64)
}

// ToInt64 converts a BSON number to int64; ok is false for other types and
// for doubles that are not integral or out of range.
func ToInt64(v any) (int64, bool) {
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
		f, err := DecimalToFloat(x)
		if err != nil {
			return 0, false
		}
		return ToInt64(f)
	}
	return 0, false
}
