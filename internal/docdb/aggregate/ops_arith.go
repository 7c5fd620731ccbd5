package aggregate

import (
	"math"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
)

func init() {
	register(nary(0, -1, evalAdd), "$add")
	register(nary(2, 2, evalSubtract), "$subtract")
	register(nary(0, -1, evalMultiply), "$multiply")
	register(nary(2, 2, evalDivide), "$divide")
	register(nary(2, 2, evalMod), "$mod")
	register(unary(evalAbs), "$abs")
	register(unary(func(n string, x any) (any, error) { return roundInt(n, x, 'f') }), "$floor")
	register(unary(func(n string, x any) (any, error) { return roundInt(n, x, 'c') }), "$ceil")
	register(nary(1, 2, evalRound), "$round", "$trunc")
	register(unary(evalSqrt), "$sqrt")
	register(nary(2, 2, evalPow), "$pow")
	register(unary(func(n string, x any) (any, error) { return floatFn(n, x, math.Exp) }), "$exp")
	register(unary(func(n string, x any) (any, error) { return floatFn(n, x, math.Log) }), "$ln")
	register(unary(func(n string, x any) (any, error) { return floatFn(n, x, math.Log10) }), "$log10")
}

// evalAdd adds numbers, and at most one date (the result is then a date).
func evalAdd(_ string, xs []any) (any, error) {
	var sum any = int32(0)
	var date *bson.DateTime
	sawNull := false
	for _, x := range xs {
		switch {
		case isNumber(x):
			sum = numAdd(sum, x)
		case isDate(x):
			if date != nil {
				return nil, mongoerr.New(mongoerr.Location16612, "only one date allowed in an $add expression")
			}
			d := asDateTime(x)
			date = &d
		case nullish(x):
			sawNull = true
		default:
			return nil, mongoerr.Newf(mongoerr.Location16554, "$add only supports numeric or date types, not %s", TypeName(x))
		}
	}
	if sawNull {
		return nil, nil
	}
	if date != nil {
		return addToDate(*date, sum)
	}
	return sum, nil
}

// addToDate adds a number of milliseconds to a date.
func addToDate(d bson.DateTime, n any) (any, error) {
	var ms int64
	switch classify(n) {
	case numDouble, numDecimal:
		f := math.Round(toFloat(n))
		if math.IsNaN(f) || math.IsInf(f, 0) || f > math.MaxInt64 || f < math.MinInt64 {
			return nil, mongoerr.New(mongoerr.Location40322, "$add resulted in a date value that is too large to represent")
		}
		ms = int64(f)
	default:
		ms = toInt64(n)
	}
	return bson.DateTime(int64(d) + ms), nil
}

// evalSubtract subtracts numbers, a number from a date, or two dates.
func evalSubtract(_ string, xs []any) (any, error) {
	a, b := xs[0], xs[1]
	switch {
	case nullish(a) || nullish(b):
		return nil, nil
	case isNumber(a) && isNumber(b):
		return numSub(a, b), nil
	case isDate(a) && isDate(b):
		return int64(asDateTime(a)) - int64(asDateTime(b)), nil
	case isDate(a) && isNumber(b):
		neg := numSub(int32(0), b)
		return addToDate(asDateTime(a), neg)
	}
	return nil, mongoerr.Newf(mongoerr.Location16556, "can't $subtract %s from %s", TypeName(b), TypeName(a))
}

// evalMultiply multiplies numbers.
func evalMultiply(_ string, xs []any) (any, error) {
	var p any = int32(1)
	sawNull := false
	for _, x := range xs {
		switch {
		case isNumber(x):
			p = numMul(p, x)
		case nullish(x):
			sawNull = true
		default:
			return nil, mongoerr.Newf(mongoerr.Location16555, "$multiply only supports numeric types, not %s", TypeName(x))
		}
	}
	if sawNull {
		return nil, nil
	}
	return p, nil
}

// evalDivide divides; the result is a double unless a decimal is involved.
func evalDivide(_ string, xs []any) (any, error) {
	a, b := xs[0], xs[1]
	switch {
	case isNumber(a) && isNumber(b):
		if classify(a) == numDecimal || classify(b) == numDecimal {
			db := toDecimal(b)
			if db.IsZero() {
				return nil, mongoerr.New(mongoerr.BadValue, "can't $divide by zero")
			}
			return decDiv(toDecimal(a), db), nil
		}
		d := toFloat(b)
		if d == 0 {
			return nil, mongoerr.New(mongoerr.BadValue, "can't $divide by zero")
		}
		return toFloat(a) / d, nil
	case nullish(a) || nullish(b):
		return nil, nil
	}
	return nil, mongoerr.Newf(mongoerr.TypeMismatch, "$divide only supports numeric types, not %s and %s", TypeName(a), TypeName(b))
}

// evalMod computes the remainder with the sign of the dividend.
func evalMod(_ string, xs []any) (any, error) {
	a, b := xs[0], xs[1]
	switch {
	case isNumber(a) && isNumber(b):
		c := max(classify(a), classify(b))
		switch c {
		case numInt, numLong:
			y := toInt64(b)
			if y == 0 {
				return nil, mongoerr.New(mongoerr.Location16610, "can't $mod by zero")
			}
			x := toInt64(a)
			if y == -1 {
				return intResult(0, c), nil
			}
			return intResult(x%y, c), nil
		case numDouble:
			y := toFloat(b)
			if y == 0 {
				return nil, mongoerr.New(mongoerr.Location16610, "can't $mod by zero")
			}
			return math.Mod(toFloat(a), y), nil
		default:
			y := toDecimal(b)
			if y.IsZero() {
				return nil, mongoerr.New(mongoerr.Location16610, "can't $mod by zero")
			}
			x := toDecimal(a)
			q := decRound(decDiv(x, y), 0, 't')
			return decSub(x, decMul(q, y)), nil
		}
	case nullish(a) || nullish(b):
		return nil, nil
	}
	return nil, mongoerr.Newf(mongoerr.Location16611, "$mod only supports numeric types, not %s and %s", TypeName(a), TypeName(b))
}

func evalAbs(name string, x any) (any, error) {
	switch classify(x) {
	case numInt:
		i := toInt64(x)
		if i < 0 {
			i = -i
		}
		return intResult(i, numInt), nil
	case numLong:
		i := toInt64(x)
		if i == math.MinInt64 {
			return nil, mongoerr.New(mongoerr.Location28680, "can't take $abs of long long min")
		}
		if i < 0 {
			i = -i
		}
		return i, nil
	case numDouble:
		return math.Abs(toFloat(x)), nil
	case numDecimal:
		d := toDecimal(x)
		if decCmp(d, decFromInt(0)) < 0 {
			return decNeg(d), nil
		}
		return d, nil
	}
	if nullish(x) {
		return nil, nil
	}
	return nil, mongoerr.Newf(mongoerr.Location28765, "%s only supports numeric types, not %s", name, TypeName(x))
}

// roundInt implements $floor and $ceil.
func roundInt(name string, x any, mode byte) (any, error) {
	switch classify(x) {
	case numInt, numLong:
		return x, nil
	case numDouble:
		if mode == 'f' {
			return math.Floor(toFloat(x)), nil
		}
		return math.Ceil(toFloat(x)), nil
	case numDecimal:
		return decRound(toDecimal(x), 0, mode), nil
	}
	if nullish(x) {
		return nil, nil
	}
	return nil, mongoerr.Newf(mongoerr.Location28765, "%s only supports numeric types, not %s", name, TypeName(x))
}

// evalRound implements $round (half to even) and $trunc with an optional
// number of places in [-20, 100].
func evalRound(name string, xs []any) (any, error) {
	x := xs[0]
	places := int64(0)
	if len(xs) == 2 {
		p := xs[1]
		if nullish(p) {
			return nil, nil
		}
		if !isNumber(p) {
			return nil, mongoerr.Newf(mongoerr.Location51081, "%s only supports numeric types, not %s", name, TypeName(p))
		}
		if !isIntegral(p) {
			return nil, mongoerr.Newf(mongoerr.Location51082, "precision argument to  %s must be a integral value", name)
		}
		places = toInt64(p)
		if places < -20 || places > 100 {
			return nil, mongoerr.Newf(mongoerr.Location51083, "cannot apply %s with precision value %d value must be in [-20, 100]", name, places)
		}
	}
	if nullish(x) {
		return nil, nil
	}
	mode := byte('e')
	if name == "$trunc" {
		mode = 't'
	}
	switch classify(x) {
	case numInt, numLong:
		if places >= 0 {
			return x, nil
		}
		r := decRound(decFromInt(toInt64(x)), int(places), mode)
		b, _ := decToBigInt(r)
		if !b.IsInt64() {
			return nil, mongoerr.Newf(mongoerr.Location51080, "invalid conversion from Decimal128 result in %s resulting from arguments: [%s, %d]", name, fmtValue(x), places)
		}
		return intResult(b.Int64(), classify(x)), nil
	case numDouble:
		f := toFloat(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return f, nil
		}
		d, err := bson.ParseDecimal128(strconv.FormatFloat(f, 'g', -1, 64))
		if err != nil {
			return f, nil
		}
		return decToFloat(decRound(d, int(places), mode)), nil
	case numDecimal:
		return decRound(toDecimal(x), int(places), mode), nil
	}
	return nil, mongoerr.Newf(mongoerr.Location51081, "%s only supports numeric types, not %s", name, TypeName(x))
}

// isIntegral reports whether a number has no fractional part.
func isIntegral(x any) bool {
	switch classify(x) {
	case numInt, numLong:
		return true
	case numDouble:
		f := toFloat(x)
		return f == math.Trunc(f) && !math.IsInf(f, 0)
	case numDecimal:
		_, ok := decToBigInt(toDecimal(x))
		return ok
	}
	return false
}

func evalSqrt(name string, x any) (any, error) {
	if nullish(x) {
		return nil, nil
	}
	if !isNumber(x) {
		return nil, mongoerr.Newf(mongoerr.Location28765, "$sqrt only supports numeric types, not %s", TypeName(x))
	}
	f := toFloat(x)
	if f < 0 {
		return nil, mongoerr.New(mongoerr.Location28714, "$sqrt's argument must be greater than or equal to 0")
	}
	return math.Sqrt(f), nil
}

func evalPow(_ string, xs []any) (any, error) {
	a, b := xs[0], xs[1]
	if nullish(a) || nullish(b) {
		return nil, nil
	}
	if !isNumber(a) {
		return nil, mongoerr.Newf(mongoerr.Location28762, "$pow's base must be numeric, not %s", TypeName(a))
	}
	if !isNumber(b) {
		return nil, mongoerr.Newf(mongoerr.Location28763, "$pow's exponent must be numeric, not %s", TypeName(b))
	}
	c := max(classify(a), classify(b))
	if c <= numLong {
		x, y := toInt64(a), toInt64(b)
		if x == 0 && y < 0 {
			return nil, mongoerr.New(mongoerr.Location28764, "$pow cannot take a base of 0 and a negative exponent")
		}
		if y >= 0 {
			if r, ok := powInt64(x, y); ok {
				return intResult(r, c), nil
			}
		}
	}
	return math.Pow(toFloat(a), toFloat(b)), nil
}

func floatFn(name string, x any, fn func(float64) float64) (any, error) {
	if nullish(x) {
		return nil, nil
	}
	if !isNumber(x) {
		return nil, mongoerr.Newf(mongoerr.Location28765, "%s only supports numeric types, not %s", name, TypeName(x))
	}
	return fn(toFloat(x)), nil
}

// powInt64 raises x to y (y >= 0) by squaring, reporting overflow.
func powInt64(x, y int64) (int64, bool) {
	r := int64(1)
	for y > 0 {
		if y&1 == 1 {
			var ok bool
			if r, ok = mulInt64(r, x); !ok {
				return 0, false
			}
		}
		y >>= 1
		if y > 0 {
			var ok bool
			if x, ok = mulInt64(x, x); !ok {
				return 0, false
			}
		}
	}
	return r, true
}
