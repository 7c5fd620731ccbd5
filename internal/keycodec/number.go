package keycodec

import (
	"math"
	"math/bits"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Numbers are encoded by value, in a canonical decimal form, so that equal
// numbers of different BSON types (int32 1, int64 1, double 1.0, decimal
// 1.00) have identical encodings. See doc.go for the format.

const (
	// maxNumDigits bounds the significant decimal digits of a number that
	// can be encoded: the exact expansion of a float64 has at most 767, a
	// decimal128 at most 34.
	maxNumDigits = 800
	// maxAbsExp bounds the base-100 exponent accepted by the decoder. The
	// largest in use is 3073 (decimal128 9.99…E+6144), the smallest -3088
	// (decimal128 1E-6176).
	maxAbsExp = 4000

	decimal128Bias   = 6176
	decimal128MaxExp = 6111
	decimal128MaxDig = 34
)

// pow5 holds 5^0 … 5^27, every power of five below 2^63.
var pow5 = func() (p [28]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 5
	}
	return p
}()

// pow10 holds 10^0 … 10^19.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// dec34Hi and dec34Lo are 10^34 as a 128-bit integer: the first
// non-canonical decimal128 coefficient.
var dec34Hi, dec34Lo = bits.Mul64(pow10[17], pow10[17])

// appendInt64 appends the encoding of the integer i.
func appendInt64(dst []byte, i int64) []byte {
	if i == 0 {
		return append(dst, tagZero)
	}
	u := uint64(i)
	neg := i < 0
	if neg {
		u = -u
	}
	return appendUintValue(dst, neg, u)
}

// appendUintValue appends the encoding of ±u for u > 0. The base-100 digits
// of u are the mantissa pairs and their count is the exponent (at most 10,
// so always a medium tag); this is the fast path of appendDecimal.
func appendUintValue(dst []byte, neg bool, u uint64) []byte {
	var p [10]byte // base-100 digits, least significant first
	n := 0
	for ; u > 0; n++ {
		p[n] = byte(u % 100)
		u /= 100
	}
	low := 0
	for p[low] == 0 {
		low++ // trailing zero pairs are not written
	}
	tagAt := len(dst)
	dst = append(dst, tagPosMedium+byte(n))
	for i := n - 1; i > low; i-- {
		dst = append(dst, 2*p[i]+1)
	}
	dst = append(dst, 2*p[low])
	if neg {
		dst[tagAt] = 2*tagZero - dst[tagAt]
		invert(dst[tagAt+1:])
	}
	return dst
}

// appendFloat64 appends the encoding of f by its exact value.
func appendFloat64(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, tagNaN)
	case math.IsInf(f, 1):
		return append(dst, tagPosInf)
	case math.IsInf(f, -1):
		return append(dst, tagNegInf)
	case f == 0:
		return append(dst, tagZero)
	}
	neg := math.Signbit(f)
	a := math.Abs(f)
	if a < 1<<63 && a == math.Trunc(a) {
		return appendUintValue(dst, neg, uint64(a))
	}
	var buf [maxNumDigits + 16]byte
	digits, exp10 := floatDigits(buf[:0], a)
	return appendDecimal(dst, neg, digits, exp10)
}

// floatDigits returns the exact decimal expansion of the finite, positive
// float64 a as ASCII digits without leading or trailing zeros and the
// exponent exp10 such that a = 0.digits × 10^exp10.
func floatDigits(buf []byte, a float64) (digits []byte, exp10 int) {
	b := math.Float64bits(a)
	e := int(b>>52) & 0x7FF
	m := b & (1<<52 - 1)
	if e == 0 {
		e = 1 // subnormal
	} else {
		m |= 1 << 52
	}
	e2 := e - 1075 // a = m × 2^e2
	tz := bits.TrailingZeros64(m)
	m >>= tz
	e2 += tz

	var prec int
	if e2 < 0 {
		// a = m × 5^n / 10^n: exact in decimal with the digits of m × 5^n.
		n := -e2
		if n < len(pow5) {
			if hi, lo := bits.Mul64(m, pow5[n]); hi == 0 {
				digits = strconv.AppendUint(buf, lo, 10)
				exp10 = len(digits) - n
				return trimZeros(digits), exp10
			}
		}
		// m × 5^n has at most 16 + ⌈0.7·n⌉ + 1 digits.
		prec = 17 + (7*n+9)/10
	} else {
		// An integer of at most 16 + ⌈0.302·e2⌉ + 1 digits.
		prec = 17 + (31*e2+99)/100
	}
	prec = min(prec, 767)
	// With at least as many digits as the exact expansion has, 'e'
	// formatting is exact (strconv then pads with zeros).
	out := strconv.AppendFloat(buf, a, 'e', prec, 64)
	ei := len(out) - 1
	for out[ei] != 'e' {
		ei--
	}
	x, _ := strconv.Atoi(string(out[ei+1:]))
	// out is "d.ddd…e±x": move the first digit next to the others.
	out[1] = out[0]
	return trimZeros(out[1:ei]), x + 1
}

// appendDecimal128 appends the encoding of d by its value.
func appendDecimal128(dst []byte, d bson.Decimal128) []byte {
	hi, lo := d.GetBytes()
	neg := hi>>63 == 1
	switch hi >> 58 & 0x1F {
	case 0x1F:
		return append(dst, tagNaN)
	case 0x1E:
		if neg {
			return append(dst, tagNegInf)
		}
		return append(dst, tagPosInf)
	}
	if hi>>61&3 == 3 {
		// The coefficient would be at least 2^113 > 10^34 - 1: IEEE 754
		// says such non-canonical encodings are zero.
		return append(dst, tagZero)
	}
	exp := int(hi>>49&0x3FFF) - decimal128Bias
	chi := hi & (1<<49 - 1)
	if chi == 0 && lo == 0 {
		return append(dst, tagZero)
	}
	if chi > dec34Hi || chi == dec34Hi && lo >= dec34Lo {
		return append(dst, tagZero) // non-canonical coefficient
	}
	var buf [48]byte
	var digits []byte
	if chi == 0 {
		digits = strconv.AppendUint(buf[:0], lo, 10)
	} else {
		q, r := bits.Div64(chi, lo, pow10[19]) // chi < 2^49 < 10^19
		digits = strconv.AppendUint(buf[:0], q, 10)
		var low [19]byte // r, left-padded with zeros
		for i := len(low) - 1; i >= 0; i-- {
			low[i] = '0' + byte(r%10)
			r /= 10
		}
		digits = append(digits, low[:]...)
	}
	exp10 := len(digits) + exp
	return appendDecimal(dst, neg, trimZeros(digits), exp10)
}

// trimZeros drops trailing '0' digits.
func trimZeros(digits []byte) []byte {
	n := len(digits)
	for n > 0 && digits[n-1] == '0' {
		n--
	}
	return digits[:n]
}

// appendDecimal appends the encoding of ±0.digits × 10^exp10, where digits
// is non-empty ASCII without leading or trailing zeros.
func appendDecimal(dst []byte, neg bool, digits []byte, exp10 int) []byte {
	// Base 100: prepend a zero digit when exp10 is odd so that
	// value = 0.(pairs) × 100^e with a non-zero first pair.
	pad := exp10 & 1
	e := (exp10 + pad) / 2

	tagAt := len(dst)
	switch {
	case e > mediumMaxExp:
		dst = append(dst, tagPosLarge)
		dst = appendOrdUint(dst, uint64(e))
	case e >= 0:
		dst = append(dst, tagPosMedium+byte(e))
	default:
		dst = append(dst, tagPosSmall)
		at := len(dst)
		dst = appendOrdUint(dst, uint64(-e))
		invert(dst[at:]) // larger -e: smaller magnitude
	}

	n := pad + len(digits)
	digit := func(j int) byte {
		if j < pad || j >= n {
			return 0
		}
		return digits[j-pad] - '0'
	}
	for j := 0; j < n; j += 2 {
		d := digit(j)*10 + digit(j+1)
		if j+2 < n {
			dst = append(dst, 2*d+1)
		} else {
			dst = append(dst, 2*d)
		}
	}

	if neg {
		// Mirror the tag around tagZero and invert the rest: a larger
		// magnitude must sort lower.
		dst[tagAt] = 2*tagZero - dst[tagAt]
		invert(dst[tagAt+1:])
	}
	return dst
}

// decodeNumber decodes the number whose tag has been read. It returns the
// canonical Go value: int64 for integers in the int64 range, float64 for
// other values a float64 holds exactly (and NaN, ±Inf), and bson.Decimal128
// for the rest.
func (d *decoder) decodeNumber(tag byte) (any, error) {
	switch tag {
	case tagNaN:
		return math.NaN(), nil
	case tagNegInf:
		return math.Inf(-1), nil
	case tagPosInf:
		return math.Inf(1), nil
	case tagZero:
		return int64(0), nil
	}
	neg := tag < tagZero
	mask := d.mask
	if neg {
		tag = 2*tagZero - tag
		mask = ^mask
	}
	var e int
	switch {
	case tag == tagPosLarge:
		u, err := d.ordUint(mask)
		if err != nil {
			return nil, err
		}
		if u <= mediumMaxExp || u > maxAbsExp {
			return nil, corruptf("number exponent %d out of range", u)
		}
		e = int(u)
	case tag >= tagPosMedium:
		e = int(tag - tagPosMedium)
	default: // tagPosSmall
		u, err := d.ordUint(^mask)
		if err != nil {
			return nil, err
		}
		if u == 0 || u > maxAbsExp {
			return nil, corruptf("number exponent -%d out of range", u)
		}
		e = -int(u)
	}

	var buf [maxNumDigits + 32]byte
	digits := buf[:0]
	for first := true; ; first = false {
		b, err := d.readByte()
		if err != nil {
			return nil, err
		}
		b ^= mask
		if b > 199 {
			return nil, corruptf("mantissa byte %#x", b)
		}
		p := b / 2
		last := b&1 == 0
		if (first || last) && p == 0 {
			return nil, corruptf("zero leading or trailing mantissa digit pair")
		}
		if len(digits)+2 > maxNumDigits {
			return nil, corruptf("mantissa longer than %d digits", maxNumDigits)
		}
		digits = append(digits, '0'+p/10, '0'+p%10)
		if last {
			break
		}
	}
	exp10 := 2 * e
	if digits[0] == '0' {
		digits = digits[1:]
		exp10--
	}
	digits = trimZeros(digits)
	return numberValue(neg, digits, exp10)
}

// numberValue picks the canonical Go value of ±0.digits × 10^exp10.
func numberValue(neg bool, digits []byte, exp10 int) (any, error) {
	if exp10 >= len(digits) && exp10 <= 19 {
		var u uint64
		for i := range exp10 {
			u *= 10
			if i < len(digits) {
				u += uint64(digits[i] - '0')
			}
		}
		switch {
		case !neg && u <= math.MaxInt64:
			return int64(u), nil
		case neg && u <= 1<<63:
			return int64(-u), nil
		}
	}

	if f, ok := exactFloat(digits, exp10); ok {
		if neg {
			f = -f
		}
		return f, nil
	}

	if len(digits) <= decimal128MaxDig {
		q := exp10 - len(digits) // value = coefficient × 10^q
		if q > decimal128MaxExp && len(digits)+q-decimal128MaxExp <= decimal128MaxDig {
			// Clamped form: pad the coefficient with zeros.
			for ; q > decimal128MaxExp; q-- {
				digits = append(digits, '0')
			}
		}
		if q >= -decimal128Bias && q <= decimal128MaxExp {
			var hi, lo uint64
			for _, c := range digits {
				// (hi,lo) = (hi,lo)×10 + c; never overflows 113 bits.
				h1, l1 := bits.Mul64(lo, 10)
				var carry uint64
				lo, carry = bits.Add64(l1, uint64(c-'0'), 0)
				hi = hi*10 + h1 + carry
			}
			hi |= uint64(q+decimal128Bias) << 49
			if neg {
				hi |= 1 << 63
			}
			return bson.NewDecimal128(hi, lo), nil
		}
	}
	return nil, corruptf("number 0.%se%d is neither a double nor a decimal128", digits, exp10)
}

// exactFloat returns the float64 whose exact value is 0.digits × 10^exp10,
// if there is one.
func exactFloat(digits []byte, exp10 int) (float64, bool) {
	// Outside this range no finite non-zero float64 has the value.
	if exp10 > 310 || exp10 < -330 {
		return 0, false
	}
	var sb [maxNumDigits + 32]byte
	s := append(sb[:0], "0."...)
	s = append(s, digits...)
	s = append(s, 'e')
	s = strconv.AppendInt(s, int64(exp10), 10)
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil || f == 0 || math.IsInf(f, 0) {
		return 0, false
	}
	var buf [maxNumDigits + 16]byte
	var fd []byte
	var fe int
	if f < 1<<63 && f == math.Trunc(f) {
		fd = strconv.AppendUint(buf[:0], uint64(f), 10)
		fe = len(fd)
		fd = trimZeros(fd)
	} else {
		fd, fe = floatDigits(buf[:0], f)
	}
	return f, fe == exp10 && string(fd) == string(digits)
}
