package aggregate

import (
	"math"
	"math/big"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"
)

// genScalar draws a BSON scalar of a type expressions meet often.
func genScalar() *rapid.Generator[any] {
	return rapid.OneOf(
		rapid.Map(rapid.Int32(), func(i int32) any { return i }),
		rapid.Map(rapid.Int64(), func(i int64) any { return i }),
		rapid.Map(rapid.Float64(), func(f float64) any { return f }),
		rapid.Map(rapid.StringN(0, 6, -1), func(s string) any { return s }),
		rapid.Just[any](nil),
		rapid.Just[any](true),
		rapid.Map(rapid.Int64Range(-1e13, 1e13), func(i int64) any { return bson.DateTime(i) }),
		rapid.Map(rapid.Int64Range(-1e6, 1e6), func(i int64) any { return decFromInt(i) }),
		rapid.SampledFrom([]any{"$a", "$s", "$arr", "$d", "$$ROOT", "$$NOW", "$$REMOVE", "$arr.x"}),
	)
}

// genExpr draws a random expression tree over the registered operators.
func genExpr(depth int) *rapid.Generator[any] {
	if depth <= 0 {
		return genScalar()
	}
	names := make([]string, 0, len(operators))
	for n := range operators {
		names = append(names, n)
	}
	sort.Strings(names)
	return rapid.OneOf(
		genScalar(),
		rapid.Custom(func(t *rapid.T) any {
			op := rapid.SampledFrom(names).Draw(t, "op")
			n := rapid.IntRange(0, 4).Draw(t, "n")
			args := bson.A{}
			for i := 0; i < n; i++ {
				args = append(args, genExpr(depth-1).Draw(t, "arg"))
			}
			if rapid.Bool().Draw(t, "named") && n > 0 {
				keys := []string{"input", "as", "in", "cond", "date", "unit", "amount", "startDate", "endDate", "to", "format", "timezone", "vars", "initialValue", "branches", "default", "if", "then", "else"}
				d := bson.D{}
				for i := 0; i < n; i++ {
					d = append(d, bson.E{Key: rapid.SampledFrom(keys).Draw(t, "k"), Value: args[i]})
				}
				return bson.D{{Key: op, Value: d}}
			}
			return bson.D{{Key: op, Value: args}}
		}),
	)
}

var propDoc = bson.D{
	{Key: "a", Value: int32(7)}, {Key: "s", Value: "abc"}, {Key: "d", Value: bson.DateTime(1e12)},
	{Key: "arr", Value: bson.A{int32(1), bson.D{{Key: "x", Value: 2.5}}, "z"}},
}

// Any expression either fails with an error or yields a value: it never
// panics.
func TestPropertyExpressionsNeverPanic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		expr := genExpr(3).Draw(t, "expr")
		e, err := Compile(expr)
		if err != nil {
			return
		}
		_, _ = e.Eval(NewVars(time.Unix(1e9, 0)), propDoc)
	})
}

// $add of integers is exact or widens: compare with big.Int arithmetic.
func TestPropertyAddWidens(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.Int64().Draw(t, "a")
		b := rapid.Int64().Draw(t, "b")
		got := numAdd(a, b)
		exact := new(big.Int).Add(big.NewInt(a), big.NewInt(b))
		if exact.IsInt64() {
			if got != any(exact.Int64()) {
				t.Fatalf("%d + %d = %v; want %v", a, b, got, exact)
			}
			return
		}
		if _, ok := got.(float64); !ok {
			t.Fatalf("overflowing %d + %d = %T; want double", a, b, got)
		}
	})
}

// Decimal addition and multiplication agree with exact rational arithmetic
// on values that fit in 34 digits.
func TestPropertyDecimalArithmetic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ac := rapid.Int64Range(-1e12, 1e12).Draw(t, "ac")
		ae := rapid.IntRange(-6, 6).Draw(t, "ae")
		bc := rapid.Int64Range(-1e12, 1e12).Draw(t, "bc")
		be := rapid.IntRange(-6, 6).Draw(t, "be")
		x, _ := bson.ParseDecimal128FromBigInt(big.NewInt(ac), ae)
		y, _ := bson.ParseDecimal128FromBigInt(big.NewInt(bc), be)
		rat := func(c int64, e int) *big.Rat {
			r := new(big.Rat).SetInt64(c)
			p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(e))), nil))
			if e >= 0 {
				return r.Mul(r, p)
			}
			return r.Quo(r, p)
		}
		toRat := func(d bson.Decimal128) *big.Rat {
			c, e, err := d.BigInt()
			if err != nil {
				t.Fatal(err)
			}
			r := new(big.Rat).SetInt(c)
			p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(e))), nil))
			if e >= 0 {
				return r.Mul(r, p)
			}
			return r.Quo(r, p)
		}
		sum := new(big.Rat).Add(rat(ac, ae), rat(bc, be))
		if got := toRat(decAdd(x, y)); got.Cmp(sum) != 0 {
			t.Fatalf("%s + %s = %s; want %s", x, y, decAdd(x, y), sum.FloatString(12))
		}
		prod := new(big.Rat).Mul(rat(ac, ae), rat(bc, be))
		p := decMul(x, y)
		pc, pe, _ := p.BigInt()
		got := new(big.Rat).SetInt(pc)
		scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(pe))), nil))
		if pe >= 0 {
			got.Mul(got, scale)
		} else {
			got.Quo(got, scale)
		}
		if got.Cmp(prod) != 0 {
			t.Fatalf("%s * %s = %s; want %s", x, y, p, prod.FloatString(24))
		}
		if decCmp(x, y) != rat(ac, ae).Cmp(rat(bc, be)) {
			t.Fatalf("decCmp(%s, %s) = %d", x, y, decCmp(x, y))
		}
	})
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// $group puts numerically equal keys of any numeric type in one group.
func TestPropertyCanonicalKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		i := rapid.Int32().Draw(t, "i")
		keys := []string{canonicalKey(i), canonicalKey(int64(i)), canonicalKey(float64(i)), canonicalKey(decFromInt(int64(i)))}
		for _, k := range keys[1:] {
			if k != keys[0] {
				t.Fatalf("keys differ for %d: %q", i, keys)
			}
		}
		f := rapid.Float64().Draw(t, "f")
		if !math.IsNaN(f) && (canonicalKey(f) == canonicalKey(f+1)) != (f == f+1) {
			t.Fatalf("key equality disagrees with value equality for %v", f)
		}
	})
}
