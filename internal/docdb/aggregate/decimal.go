package aggregate

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Decimal128 arithmetic. The bson package stores and prints Decimal128 but
// does no arithmetic, so values are taken apart into a big.Int coefficient
// and a power-of-ten exponent, computed exactly, and rounded back to 34
// significant digits (IEEE 754-2008 decimal128, round half to even).

const decDigits = 34

var (
	decNaN, _    = bson.ParseDecimal128("NaN")
	decPosInf, _ = bson.ParseDecimal128("Infinity")
	decNegInf, _ = bson.ParseDecimal128("-Infinity")
	bigTen       = big.NewInt(10)
)

// decimal is a finite decimal number coef * 10^exp, or a special value.
type decimal struct {
	coef *big.Int
	exp  int
	nan  bool
	inf  int // +1 or -1 for infinities
	neg0 bool
}

// decOf takes d apart.
func decOf(d bson.Decimal128) decimal {
	if d.IsNaN() {
		return decimal{nan: true}
	}
	if s := d.IsInf(); s != 0 {
		return decimal{inf: s}
	}
	coef, exp, err := d.BigInt()
	if err != nil {
		return decimal{nan: true}
	}
	r := decimal{coef: coef, exp: exp}
	if coef.Sign() == 0 && strings.HasPrefix(d.String(), "-") {
		r.neg0 = true
	}
	return r
}

// decFromInt converts an integer exactly.
func decFromInt(i int64) bson.Decimal128 {
	d, _ := bson.ParseDecimal128FromBigInt(big.NewInt(i), 0)
	return d
}

// decFromFloat converts a double the way MongoDB does when mixing doubles
// with decimals: rounded to 15 significant digits.
func decFromFloat(f float64) bson.Decimal128 {
	switch {
	case math.IsNaN(f):
		return decNaN
	case math.IsInf(f, 1):
		return decPosInf
	case math.IsInf(f, -1):
		return decNegInf
	}
	s := strconv.FormatFloat(f, 'e', 14, 64)
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		return decNaN
	}
	return decNormalizeTrailing(d)
}

// decNormalizeTrailing strips trailing zeros that the 15-digit rendering of
// a double introduced, keeping the exponent no smaller than needed.
func decNormalizeTrailing(d bson.Decimal128) bson.Decimal128 {
	x := decOf(d)
	if x.coef == nil || x.coef.Sign() == 0 {
		if x.coef != nil {
			z, _ := bson.ParseDecimal128("0")
			if x.neg0 {
				z, _ = bson.ParseDecimal128("-0")
			}
			return z
		}
		return d
	}
	c := new(big.Int).Set(x.coef)
	e := x.exp
	q, r := new(big.Int), new(big.Int)
	for e < 0 {
		q.QuoRem(c, bigTen, r)
		if r.Sign() != 0 {
			break
		}
		c.Set(q)
		e++
	}
	out, ok := bson.ParseDecimal128FromBigInt(c, e)
	if !ok {
		return d
	}
	return out
}

// decToFloat converts a decimal to the nearest double.
func decToFloat(d bson.Decimal128) float64 {
	f, err := strconv.ParseFloat(d.String(), 64)
	if err != nil {
		s := d.String()
		switch s {
		case "Infinity":
			return math.Inf(1)
		case "-Infinity":
			return math.Inf(-1)
		}
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f
		}
		return math.NaN()
	}
	return f
}

// decMake rounds coef*10^exp to 34 digits and encodes it.
func decMake(coef *big.Int, exp int) bson.Decimal128 {
	c := new(big.Int).Set(coef)
	neg := c.Sign() < 0
	c.Abs(c)
	digits := len(c.String())
	if digits > decDigits {
		drop := digits - decDigits
		c = roundHalfEven(c, drop)
		exp += drop
		if len(c.String()) > decDigits {
			c = roundHalfEven(c, 1)
			exp++
		}
	}
	// Bring very small exponents up by dropping digits (subnormal rounding).
	for exp < bson.MinDecimal128Exp && c.Sign() != 0 {
		c = roundHalfEven(c, 1)
		exp++
	}
	if c.Sign() == 0 && exp < bson.MinDecimal128Exp {
		exp = bson.MinDecimal128Exp
	}
	if neg {
		c.Neg(c)
	}
	d, ok := bson.ParseDecimal128FromBigInt(c, exp)
	if !ok {
		if neg {
			return decNegInf
		}
		return decPosInf
	}
	return d
}

// roundHalfEven divides c (non-negative) by 10^n rounding half to even.
func roundHalfEven(c *big.Int, n int) *big.Int {
	div := new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
	q, r := new(big.Int).QuoRem(c, div, new(big.Int))
	twice := new(big.Int).Lsh(r, 1)
	switch twice.Cmp(div) {
	case 1:
		q.Add(q, big.NewInt(1))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// align returns a and b's coefficients scaled to the smaller exponent.
func align(a, b decimal) (*big.Int, *big.Int, int) {
	ca, cb := new(big.Int).Set(a.coef), new(big.Int).Set(b.coef)
	e := a.exp
	if b.exp < e {
		e = b.exp
	}
	if a.exp > e {
		ca.Mul(ca, new(big.Int).Exp(bigTen, big.NewInt(int64(a.exp-e)), nil))
	}
	if b.exp > e {
		cb.Mul(cb, new(big.Int).Exp(bigTen, big.NewInt(int64(b.exp-e)), nil))
	}
	return ca, cb, e
}

// decAdd returns a+b.
func decAdd(x, y bson.Decimal128) bson.Decimal128 {
	a, b := decOf(x), decOf(y)
	switch {
	case a.nan || b.nan:
		return decNaN
	case a.inf != 0 && b.inf != 0:
		if a.inf != b.inf {
			return decNaN
		}
		return x
	case a.inf != 0:
		return x
	case b.inf != 0:
		return y
	}
	ca, cb, e := align(a, b)
	return decMake(ca.Add(ca, cb), e)
}

// decNeg returns -x.
func decNeg(x bson.Decimal128) bson.Decimal128 {
	h, l := x.GetBytes()
	return bson.NewDecimal128(h^(1<<63), l)
}

// decSub returns a-b.
func decSub(x, y bson.Decimal128) bson.Decimal128 { return decAdd(x, decNeg(y)) }

// decMul returns a*b.
func decMul(x, y bson.Decimal128) bson.Decimal128 {
	a, b := decOf(x), decOf(y)
	switch {
	case a.nan || b.nan:
		return decNaN
	case a.inf != 0 || b.inf != 0:
		sa, sb := decSign(a), decSign(b)
		if sa == 0 || sb == 0 {
			return decNaN
		}
		if sa*sb > 0 {
			return decPosInf
		}
		return decNegInf
	}
	c := new(big.Int).Mul(a.coef, b.coef)
	return decMake(c, a.exp+b.exp)
}

func decSign(a decimal) int {
	if a.inf != 0 {
		return a.inf
	}
	if a.nan {
		return 0
	}
	return a.coef.Sign()
}

// decDiv returns a/b; b must not be zero.
func decDiv(x, y bson.Decimal128) bson.Decimal128 {
	a, b := decOf(x), decOf(y)
	switch {
	case a.nan || b.nan:
		return decNaN
	case a.inf != 0 && b.inf != 0:
		return decNaN
	case a.inf != 0:
		if a.inf*decSign(b) >= 0 {
			return decPosInf
		}
		return decNegInf
	case b.inf != 0:
		return decFromInt(0)
	}
	if b.coef.Sign() == 0 {
		return decNaN
	}
	// Scale the numerator so the integer quotient has at least 35 digits.
	num := new(big.Int).Set(a.coef)
	exp := a.exp - b.exp
	shift := decDigits + 2 + len(b.coef.String()) - len(new(big.Int).Abs(num).String())
	if shift < 0 {
		shift = 0
	}
	num.Mul(num, new(big.Int).Exp(bigTen, big.NewInt(int64(shift)), nil))
	exp -= shift
	q, r := new(big.Int).QuoRem(num, b.coef, new(big.Int))
	if r.Sign() != 0 {
		// Sticky digit so that rounding sees the remainder.
		q.Mul(q, bigTen)
		if (r.Sign() < 0) != (b.coef.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
		exp--
	} else {
		// Exact: strip trailing zeros down to the ideal exponent.
		ideal := a.exp - b.exp
		for exp < ideal {
			qq, rr := new(big.Int).QuoRem(q, bigTen, new(big.Int))
			if rr.Sign() != 0 {
				break
			}
			q = qq
			exp++
		}
	}
	return decMake(q, exp)
}

// decCmp compares two decimals numerically (NaN sorts lowest).
func decCmp(x, y bson.Decimal128) int {
	a, b := decOf(x), decOf(y)
	switch {
	case a.nan && b.nan:
		return 0
	case a.nan:
		return -1
	case b.nan:
		return 1
	case a.inf != 0 || b.inf != 0:
		sa, sb := 0, 0
		if a.inf != 0 {
			sa = a.inf
		}
		if b.inf != 0 {
			sb = b.inf
		}
		if sa == sb {
			return 0
		}
		if sa < sb {
			return -1
		}
		return 1
	}
	ca, cb, _ := align(a, b)
	return ca.Cmp(cb)
}

// decIsInteger reports whether x is finite with no fractional part, and its
// integer value.
func decToBigInt(x bson.Decimal128) (*big.Int, bool) {
	a := decOf(x)
	if a.nan || a.inf != 0 {
		return nil, false
	}
	c := new(big.Int).Set(a.coef)
	if a.exp >= 0 {
		return c.Mul(c, new(big.Int).Exp(bigTen, big.NewInt(int64(a.exp)), nil)), true
	}
	if a.exp < -6200 {
		return big.NewInt(0), c.Sign() == 0
	}
	div := new(big.Int).Exp(bigTen, big.NewInt(int64(-a.exp)), nil)
	q, r := new(big.Int).QuoRem(c, div, new(big.Int))
	return q, r.Sign() == 0
}

// decRound rounds x to places decimal places using mode: 'e' half to even,
// 't' truncate toward zero, 'f' floor, 'c' ceiling.
func decRound(x bson.Decimal128, places int, mode byte) bson.Decimal128 {
	a := decOf(x)
	if a.nan || a.inf != 0 || a.exp >= -places {
		return x
	}
	drop := -places - a.exp
	neg := a.coef.Sign() < 0
	c := new(big.Int).Abs(a.coef)
	var q *big.Int
	if drop > 40 {
		q = big.NewInt(0)
		if mode == 'f' && neg && c.Sign() != 0 || mode == 'c' && !neg && c.Sign() != 0 {
			q = big.NewInt(1)
		}
	} else {
		div := new(big.Int).Exp(bigTen, big.NewInt(int64(drop)), nil)
		var r *big.Int
		q, r = new(big.Int).QuoRem(c, div, new(big.Int))
		switch mode {
		case 'e':
			q = roundHalfEven(c, drop)
		case 'f':
			if neg && r.Sign() != 0 {
				q.Add(q, big.NewInt(1))
			}
		case 'c':
			if !neg && r.Sign() != 0 {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	if neg {
		q.Neg(q)
	}
	return decMake(q, -places)
}
