package keycodec

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"
)

// exactDigits returns the exact decimal expansion of the positive finite
// float64 a as digits without trailing zeros and exp10 with
// a = 0.digits × 10^exp10, computed with math/big.
func exactDigits(a float64) (string, int) {
	r := new(big.Rat).SetFloat64(a)
	k := r.Denom().BitLen() - 1 // the denominator is 2^k
	num := new(big.Int).Mul(r.Num(), new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k)), nil))
	s := num.String() // a = s × 10^-k
	exp10 := len(s) - k
	return strings.TrimRight(s, "0"), exp10
}

func TestFloatDigitsExact(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, a float64) {
		if a == 0 || math.IsNaN(a) || math.IsInf(a, 0) {
			return
		}
		a = math.Abs(a)
		var buf [maxNumDigits + 16]byte
		got, gotExp := floatDigits(buf[:0], a)
		want, wantExp := exactDigits(a)
		if string(got) != want || gotExp != wantExp {
			t.Fatalf("floatDigits(%g) = 0.%s e%d, want 0.%s e%d", a, got, gotExp, want, wantExp)
		}
	}
	for _, a := range []float64{
		0.1, 0.5, 1.5, 3.14, 1e-300, 1e300, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.Nextafter(math.SmallestNonzeroFloat64, 1), 0x1p-1022, math.Nextafter(0x1p-1022, 0),
		1 << 63, 1 << 64, 1e22, 1e23, 0.3, 2.5e-5, 1.0 / 3,
	} {
		check(t, a)
	}
	rapid.Check(t, func(t *rapid.T) {
		check(t, math.Float64frombits(rapid.Uint64().Draw(t, "bits")))
	})
}

func TestDecimal128Digits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		hi := rapid.Uint64Max(1<<49-1).Draw(t, "hi")
		lo := rapid.Uint64().Draw(t, "lo")
		exp := rapid.IntRange(0, 12287).Draw(t, "exp")
		d := bson.NewDecimal128(hi|uint64(exp)<<49, lo)
		enc := appendDecimal128(nil, d)
		coef, e, err := d.BigInt()
		if err != nil {
			t.Fatal(err)
		}
		if coef.Sign() == 0 || coef.Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(34), nil)) >= 0 {
			if len(enc) != 1 || enc[0] != tagZero {
				t.Fatalf("%v (zero or non-canonical) encoded as %x", d, enc)
			}
			return
		}
		s := coef.String()
		want := appendDecimal(nil, false, []byte(strings.TrimRight(s, "0")), len(s)+e)
		if string(enc) != string(want) {
			t.Fatalf("%v encoded as %x, want %x", d, enc, want)
		}
	})
}
