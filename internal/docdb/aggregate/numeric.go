package aggregate

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// numClass orders the numeric BSON types by width: the result of an
// arithmetic operation takes the widest class of its operands.
type numClass int

const (
	notNum numClass = iota
	numInt
	numLong
	numDouble
	numDecimal
)

// classify returns the numeric class of v.
func classify(v any) numClass {
	switch x := v.(type) {
	case int32, int8, int16, uint8, uint16:
		return numInt
	case int:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return numInt
		}
		return numLong
	case int64, uint32:
		return numLong
	case float64, float32:
		return numDouble
	case bson.Decimal128:
		return numDecimal
	}
	return notNum
}

// isNumber reports whether v is a BSON number.
func isNumber(v any) bool { return classify(v) != notNum }

// toInt64 converts an integral value (int32/int64/int) to int64.
func toInt64(v any) int64 {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	case int:
		return int64(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case float64:
		return int64(x)
	case float32:
		return int64(x)
	case bson.Decimal128:
		if b, ok := decToBigInt(x); ok && b.IsInt64() {
			return b.Int64()
		}
	}
	return 0
}

// toFloat converts a number to float64.
func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case bson.Decimal128:
		return decToFloat(x)
	}
	return float64(toInt64(v))
}

// toDecimal converts a number to Decimal128.
func toDecimal(v any) bson.Decimal128 {
	switch x := v.(type) {
	case bson.Decimal128:
		return x
	case float64:
		return decFromFloat(x)
	case float32:
		return decFromFloat(float64(x))
	}
	return decFromInt(toInt64(v))
}

// intResult returns i as int32 when it fits and the class allows it.
func intResult(i int64, c numClass) any {
	if c == numInt && i >= math.MinInt32 && i <= math.MaxInt32 {
		return int32(i)
	}
	return i
}

// numAdd adds two numbers with MongoDB's promotion rules: int overflow
// widens to long, long overflow to double; a double makes a double and a
// decimal makes a decimal.
func numAdd(a, b any) any {
	c := max(classify(a), classify(b))
	switch c {
	case numInt, numLong:
		x, y := toInt64(a), toInt64(b)
		s := x + y
		if (s > x) == (y > 0) {
			return intResult(s, c)
		}
		return float64(x) + float64(y)
	case numDouble:
		return toFloat(a) + toFloat(b)
	default:
		return decAdd(toDecimal(a), toDecimal(b))
	}
}

// numSub subtracts b from a with the promotion rules of numAdd.
func numSub(a, b any) any {
	c := max(classify(a), classify(b))
	switch c {
	case numInt, numLong:
		x, y := toInt64(a), toInt64(b)
		s := x - y
		if (s < x) == (y > 0) {
			return intResult(s, c)
		}
		return float64(x) - float64(y)
	case numDouble:
		return toFloat(a) - toFloat(b)
	default:
		return decSub(toDecimal(a), toDecimal(b))
	}
}

// numMul multiplies with the promotion rules of numAdd.
func numMul(a, b any) any {
	c := max(classify(a), classify(b))
	switch c {
	case numInt, numLong:
		x, y := toInt64(a), toInt64(b)
		if p, ok := mulInt64(x, y); ok {
			return intResult(p, c)
		}
		return float64(x) * float64(y)
	case numDouble:
		return toFloat(a) * toFloat(b)
	default:
		return decMul(toDecimal(a), toDecimal(b))
	}
}

// mulInt64 multiplies with overflow detection.
func mulInt64(x, y int64) (int64, bool) {
	if x == 0 || y == 0 {
		return 0, true
	}
	p := x * y
	if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
		return 0, false
	}
	return p, true
}

// addChecked adds for update operators ($inc): int32 overflow widens to
// int64, but int64 overflow is an error (ok false), as MongoDB's SafeNum.
func addChecked(a, b any) (any, bool) {
	c := max(classify(a), classify(b))
	switch c {
	case numInt, numLong:
		x, y := toInt64(a), toInt64(b)
		s := x + y
		if (s > x) != (y > 0) {
			return nil, false
		}
		return intResult(s, c), true
	}
	return numAdd(a, b), true
}

// mulChecked multiplies for $mul: like addChecked.
func mulChecked(a, b any) (any, bool) {
	c := max(classify(a), classify(b))
	switch c {
	case numInt, numLong:
		p, ok := mulInt64(toInt64(a), toInt64(b))
		if !ok {
			return nil, false
		}
		return intResult(p, c), true
	}
	return numMul(a, b), true
}

// AddNumbers adds two BSON numbers with the update language's rules ($inc):
// int32+int32 overflowing int32 gives int64; int64 overflow reports false.
func AddNumbers(a, b any) (any, bool) { return addChecked(a, b) }

// MulNumbers multiplies two BSON numbers with the rules of $mul.
func MulNumbers(a, b any) (any, bool) { return mulChecked(a, b) }

// IsNumber reports whether v is a BSON number (int32, int64, double,
// decimal).
func IsNumber(v any) bool { return isNumber(v) }

func sqrt(x float64) float64 { return math.Sqrt(x) }

// ToDouble converts a BSON number to float64; ok is false for non-numbers.
func ToDouble(v any) (float64, bool) {
	if !isNumber(v) {
		return 0, false
	}
	return toFloat(v), true
}
