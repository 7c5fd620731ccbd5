package hll

import "math"

// alphaInf is α∞ = 1/(2·ln 2), the bias correction of the estimator.
const alphaInf = 0.721347520444481703680

// estimate is the cardinality the register histogram gives. The explicit
// float64 conversions keep every product and sum rounded on its own, so the
// result is the same on every platform.
func (h *histogram) estimate() uint64 {
	const m = float64(Registers)
	z := float64(m * tau(float64(m-float64(h[q+1]))/m))
	for j := q; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += float64(m * sigma(float64(h[0])/m))
	return uint64(math.Round(float64(alphaInf*m*m) / z))
}

// sigma is σ(x) = x + Σ_{k≥1} x^(2^k)·2^(k-1), summed until it stops
// changing; σ(1) is infinite.
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += float64(x * y)
		y += y
		if prev == z {
			return z
		}
	}
}

// tau is τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^-k))²·2^-k)/3, summed until it
// stops changing; τ(0) = τ(1) = 0.
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		d := 1 - x
		z -= float64(float64(d*d) * y)
		if prev == z {
			return z / 3
		}
	}
}

// murmurHash64A is Austin Appleby's MurmurHash64A of b, reading its 8-byte
// blocks little endian.
func murmurHash64A(b []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := seed ^ (uint64(len(b)) * m)
	n := len(b) - len(b)&7
	for i := 0; i < n; i += 8 {
		k := uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
			uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	if t := b[n:]; len(t) > 0 {
		for i := len(t) - 1; i >= 0; i-- {
			h ^= uint64(t[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}
