package kv

import (
	"math/big"
	"strings"
)

// Redis computes INCRBYFLOAT in C's long double: on x86-64 an 80-bit float
// with a 64-bit mantissa and a 15-bit exponent, printed with "%.17Lf" and
// trailing zeros removed. big.Float with 64 bits of precision rounds the
// same way, so 0.1+0.2 gives "0.3" here as it does in Redis.

const (
	longDoublePrec   = 64
	longDoubleMaxExp = 16384 // values of magnitude >= 2^16384 overflow
	longDoubleMinExp = -16445
)

func newLongDouble() *big.Float { return new(big.Float).SetPrec(longDoublePrec) }

// parseLongDouble parses a number as Redis's string2ld does: no leading
// space, the whole string, not NaN, and not out of the long double range.
// Infinity is accepted (the sum is then rejected).
func parseLongDouble(b []byte) (*big.Float, error) {
	s := string(b)
	if s == "" || s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r' || s[0] == '\v' || s[0] == '\f' {
		return nil, ErrNotFloat
	}
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "inf", "infinity":
		f := newLongDouble().SetInf(s[0] == '-')
		return f, nil
	}
	f, _, err := newLongDouble().SetMode(big.ToNearestEven).Parse(s, 10)
	if err != nil {
		return nil, ErrNotFloat
	}
	if f.Sign() != 0 {
		e := f.MantExp(nil)
		if e > longDoubleMaxExp || e < longDoubleMinExp {
			return nil, ErrNotFloat
		}
	} else if hasNonZeroDigit(s) {
		return nil, ErrNotFloat // underflowed to zero: ERANGE
	}
	return f, nil
}

func hasNonZeroDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			return false
		}
		if s[i] >= '1' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// addLongDouble returns a+b, or ErrNaNOrInf when the result is not finite.
func addLongDouble(a, b *big.Float) (*big.Float, error) {
	if a.IsInf() || b.IsInf() {
		return nil, ErrNaNOrInf
	}
	sum := newLongDouble().SetMode(big.ToNearestEven).Add(a, b)
	if sum.Sign() != 0 && sum.MantExp(nil) > longDoubleMaxExp {
		return nil, ErrNaNOrInf
	}
	return sum, nil
}

// formatLongDouble prints f as "%.17Lf" with trailing zeros (and a
// trailing dot) removed, and "-0" as "0".
func formatLongDouble(f *big.Float) []byte {
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return []byte(s)
}
