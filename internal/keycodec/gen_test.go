package keycodec_test

import (
	"math"
	"math/big"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"
)

// Generators of BSON values for the property tests. Alphabets are small so
// that equal values, shared prefixes and ties across numeric types are
// frequent, which is where encodings go wrong.

// genValue generates any BSON value, nesting documents and arrays up to
// depth levels.
func genValue(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		max := 20
		if depth <= 0 {
			max = 17 // no documents, arrays or code with scope
		}
		switch rapid.IntRange(0, max).Draw(t, "kind") {
		case 0, 1, 2, 3, 4:
			return genNumber().Draw(t, "number")
		case 5:
			return rapid.SampledFrom([]any{bson.MinKey{}, bson.MaxKey{}, bson.Undefined{}, nil, bson.Null{}}).Draw(t, "special")
		case 6, 7:
			return genString().Draw(t, "string")
		case 8:
			return bson.Symbol(genString().Draw(t, "symbol"))
		case 9:
			return bson.Binary{
				Subtype: rapid.SampledFrom([]byte{0, 1, 2, 4, 5, 0x80, 0xFF}).Draw(t, "subtype"),
				Data:    genBytes().Draw(t, "data"),
			}
		case 10:
			return genObjectID().Draw(t, "oid")
		case 11:
			return rapid.Bool().Draw(t, "bool")
		case 12:
			return genDate().Draw(t, "date")
		case 13:
			return genTimestamp().Draw(t, "ts")
		case 14:
			// Options are sorted flags: the driver sorts them when it writes BSON.
			return bson.Regex{Pattern: genString().Draw(t, "pattern"), Options: rapid.SampledFrom([]string{"", "i", "im", "ims", "m", "s", "x"}).Draw(t, "options")}
		case 15:
			return bson.DBPointer{DB: genString().Draw(t, "ns"), Pointer: genObjectID().Draw(t, "pointer")}
		case 16:
			return bson.JavaScript(genString().Draw(t, "js"))
		case 17:
			return genDate().Draw(t, "date")
		case 18:
			return genDoc(depth-1).Draw(t, "doc")
		case 19:
			return bson.A(rapid.SliceOfN(genValue(depth-1), 0, 3).Draw(t, "array"))
		default:
			return bson.CodeWithScope{Code: bson.JavaScript(genString().Draw(t, "code")), Scope: genDoc(depth-1).Draw(t, "scope")}
		}
	})
}

func genDoc(depth int) *rapid.Generator[bson.D] {
	return rapid.Custom(func(t *rapid.T) bson.D {
		n := rapid.IntRange(0, 3).Draw(t, "fields")
		d := bson.D{}
		for range n {
			d = append(d, bson.E{Key: genKey().Draw(t, "key"), Value: genValue(depth).Draw(t, "value")})
		}
		return d
	})
}

func genKey() *rapid.Generator[string] {
	return rapid.SampledFrom([]string{"", "a", "b", "ab", "_id", "a\x00", "é"})
}

func genString() *rapid.Generator[string] {
	return rapid.Map(rapid.SliceOfN(rapid.SampledFrom([]byte{0x00, 0x01, 'a', 'b', 0x7F, 0xC3, 0xA9, 0xFE, 0xFF}), 0, 4),
		func(b []byte) string { return string(b) })
}

func genBytes() *rapid.Generator[[]byte] {
	return rapid.SliceOfN(rapid.SampledFrom([]byte{0x00, 0x01, 0x7F, 0x80, 0xFF}), 0, 3)
}

func genObjectID() *rapid.Generator[bson.ObjectID] {
	return rapid.Custom(func(t *rapid.T) bson.ObjectID {
		var oid bson.ObjectID
		b := rapid.SliceOfN(rapid.SampledFrom([]byte{0x00, 0x01, 0x7F, 0xFF}), 12, 12).Draw(t, "oid")
		copy(oid[:], b)
		return oid
	})
}

func genDate() *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		var ms int64
		if rapid.Bool().Draw(t, "edge") {
			ms = rapid.SampledFrom([]int64{math.MinInt64, -1, 0, 1, 1700000000000, math.MaxInt64}).Draw(t, "ms")
		} else {
			ms = rapid.Int64().Draw(t, "ms")
		}
		if ms > -1e15 && ms < 1e15 && rapid.IntRange(0, 4).Draw(t, "time") == 0 {
			return time.UnixMilli(ms)
		}
		return bson.DateTime(ms)
	})
}

func genTimestamp() *rapid.Generator[bson.Timestamp] {
	u := rapid.OneOf(rapid.SampledFrom([]uint32{0, 1, 1 << 31, math.MaxUint32}), rapid.Uint32())
	return rapid.Custom(func(t *rapid.T) bson.Timestamp {
		return bson.Timestamp{T: u.Draw(t, "t"), I: u.Draw(t, "i")}
	})
}

// genNumber generates numbers of the four BSON numeric types, biased
// towards values that are equal or adjacent across types.
func genNumber() *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		switch rapid.IntRange(0, 11).Draw(t, "numkind") {
		case 0, 1:
			// A small integer in any type, decimals with any exponent.
			return inAnyType(t, big.NewRat(rapid.Int64Range(-3, 3).Draw(t, "k"), 1))
		case 2:
			return rapid.Int32().Draw(t, "int32")
		case 3:
			return rapid.OneOf(rapid.Int64(), rapid.SampledFrom([]int64{
				math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1,
				1<<53 - 1, 1 << 53, 1<<53 + 1, -(1 << 53) - 1, math.MaxInt32 + 1, math.MinInt32 - 1,
				99, 100, 101, 9999, 10000, 1e18, 1e18 - 1,
			})).Draw(t, "int64")
		case 4:
			return math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
		case 5:
			f := rapid.Float64().Draw(t, "float")
			if rapid.Bool().Draw(t, "neg") {
				f = -f
			}
			return f
		case 6:
			// Doubles at and next to integers and powers of two.
			base := rapid.SampledFrom([]float64{0, 1, 2, 1 << 53, 1 << 63, 1 << 64, 1e20, 1e21, 0.5, 1e-5, 1e300, math.MaxFloat64, math.SmallestNonzeroFloat64}).Draw(t, "base")
			f := base
			switch rapid.IntRange(0, 2).Draw(t, "dir") {
			case 1:
				f = math.Nextafter(base, math.Inf(1))
			case 2:
				f = math.Nextafter(base, math.Inf(-1))
			}
			if rapid.Bool().Draw(t, "neg") {
				f = -f
			}
			return f
		case 7:
			return math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
		case 8:
			// A decimal of random coefficient and exponent.
			coef := new(big.Int).SetUint64(rapid.Uint64().Draw(t, "coef"))
			if rapid.Bool().Draw(t, "wide") {
				coef.Mul(coef, new(big.Int).SetUint64(rapid.Uint64Max(1e15).Draw(t, "coef2")))
			}
			exp := rapid.OneOf(rapid.IntRange(-40, 40), rapid.IntRange(-6176, 6111)).Draw(t, "exp")
			return makeDecimal(rapid.Bool().Draw(t, "neg"), coef, exp)
		case 9:
			// A decimal equal or next to a double.
			f := rapid.OneOf(rapid.Float64(), rapid.Map(rapid.Uint64(), math.Float64frombits)).Draw(t, "float")
			return decimalNear(t, f)
		case 10:
			// An int64 as a decimal with trailing zeros, or as a double.
			i := rapid.Int64().Draw(t, "i")
			if rapid.Bool().Draw(t, "asdouble") {
				return float64(i)
			}
			return inAnyType(t, new(big.Rat).SetInt64(i))
		default:
			return rapid.SampledFrom([]any{
				math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1),
				mustDecimal("NaN"), mustDecimal("-NaN"), mustDecimal("Inf"), mustDecimal("-Inf"),
				mustDecimal("-0"), mustDecimal("0E+6111"), mustDecimal("-0E-6176"),
				mustDecimal("1E-6176"), mustDecimal("-1E-6176"), mustDecimal("9999999999999999999999999999999999E+6111"),
				mustDecimal("1E+6144"), mustDecimal("1E+6111"), mustDecimal("0.1"), mustDecimal("0.5"),
				mustDecimal("9223372036854775807"), mustDecimal("9223372036854775808"), mustDecimal("-9223372036854775809"),
				bson.NewDecimal128(0x7E00000000000000|1, 7),   // NaN with a payload
				bson.NewDecimal128(0x6000000000000000, 1),     // coefficient above 2^113: zero
				bson.NewDecimal128(0x3041FFFFFFFFFFFF, 1<<63), // coefficient above 10^34-1: zero
			}).Draw(t, "special")
		}
	})
}

// inAnyType returns the rational r (an integer or a decimal fraction) as a
// randomly chosen numeric type that holds it exactly, decimals with a
// random number of trailing zeros.
func inAnyType(t *rapid.T, r *big.Rat) any {
	if r.IsInt() && r.Num().IsInt64() {
		i := r.Num().Int64()
		switch rapid.IntRange(0, 3).Draw(t, "type") {
		case 0:
			if i >= math.MinInt32 && i <= math.MaxInt32 {
				return int32(i)
			}
		case 1:
			return i
		case 2:
			if f, exact := r.Float64(); exact {
				if f == 0 && rapid.Bool().Draw(t, "negzero") {
					return math.Copysign(0, -1)
				}
				return f
			}
		}
	}
	// As a decimal: num × 10^s / 10^s with s extra zeros.
	s := rapid.IntRange(0, 8).Draw(t, "scale")
	num := new(big.Int).Set(r.Num())
	den := r.Denom()
	exp := 0
	for den.Cmp(big.NewInt(1)) != 0 { // den is a product of 2s and 5s here
		num.Mul(num, big.NewInt(10))
		exp--
		q, m := new(big.Int).DivMod(num, den, new(big.Int))
		if m.Sign() == 0 {
			num, den = q, big.NewInt(1)
		}
	}
	neg := num.Sign() < 0
	num.Abs(num)
	if num.Cmp(tenTo34) >= 0 {
		// More than 34 digits: only a double holds it.
		f, _ := r.Float64()
		return f
	}
	scaled := new(big.Int).Mul(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s)), nil))
	if scaled.Cmp(tenTo34) < 0 {
		num = scaled
		exp -= s
	}
	return makeDecimal(neg, num, exp)
}

// decimalNear returns a decimal equal to the finite double f when its exact
// expansion has at most 34 digits, else one of the two 34-digit decimals
// around it; NaN and infinities as decimals.
func decimalNear(t *rapid.T, f float64) any {
	switch {
	case math.IsNaN(f):
		return mustDecimal("NaN")
	case math.IsInf(f, 1):
		return mustDecimal("Inf")
	case math.IsInf(f, -1):
		return mustDecimal("-Inf")
	}
	if rapid.Bool().Draw(t, "shortest") {
		// The shortest repr: usually a different value than f.
		d, err := bson.ParseDecimal128(strconv.FormatFloat(f, 'e', -1, 64))
		if err == nil {
			return d
		}
	}
	r := new(big.Rat).SetFloat64(f)
	neg := r.Sign() < 0
	r.Abs(r)
	// r = num / 2^k = num × 5^k / 10^k
	num := new(big.Int).Set(r.Num())
	k := r.Denom().BitLen() - 1
	num.Mul(num, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k)), nil))
	exp := -k
	ten := big.NewInt(10)
	for num.Sign() != 0 && new(big.Int).Mod(num, ten).Sign() == 0 {
		num.Div(num, ten)
		exp++
	}
	for num.Cmp(tenTo34) >= 0 { // truncate to 34 digits
		num.Div(num, ten)
		exp++
	}
	if exp < -6176 || exp > 6111 {
		return f
	}
	if rapid.Bool().Draw(t, "up") {
		num.Add(num, big.NewInt(1))
		if num.Cmp(tenTo34) >= 0 {
			num.Div(num, ten)
			exp++
		}
	}
	return makeDecimal(neg, num, exp)
}

// makeDecimal builds ±coef × 10^exp, coef < 10^34 or divisible enough to
// fit; out-of-range exponents are brought into range where exact.
func makeDecimal(neg bool, coef *big.Int, exp int) bson.Decimal128 {
	for coef.Cmp(tenTo34) >= 0 {
		coef = new(big.Int).Div(coef, big.NewInt(10))
		exp++
	}
	exp = max(-6176, min(exp, 6111))
	d, ok := bson.ParseDecimal128FromBigInt(coef, exp)
	if !ok {
		panic("makeDecimal: not representable")
	}
	if neg {
		h, l := d.GetBytes()
		d = bson.NewDecimal128(h|1<<63, l)
	}
	return d
}

func mustDecimal(s string) bson.Decimal128 {
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		panic(err)
	}
	return d
}
