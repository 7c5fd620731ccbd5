package geo

import "math"

// Distances are computed with sine, cosine and arcsine rounded to the
// nearest float64 of the exact value, as the C library Redis is built with
// gives them (within its half-ulp accuracy), so that the stored distances
// of STOREDIST and the decisions on a search's edge are the same bits as
// Redis's. The exact value is approached in double-double arithmetic (a
// float64 pair holding about 106 bits) and rounded once.

// dd is the unevaluated sum hi + lo, with |lo| at most half an ulp of hi.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// ddAdd adds without an exact sum of the low parts: its error stays within
// a few units of 2^-106 of the operands, which the series below (whose
// terms never cancel by more than a factor of a few) keep.
func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	return quickTwoSum(s.hi, s.lo+(a.lo+b.lo))
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddMul(a, b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p, e)
}

// ddDivInt divides by a small positive integer n.
func ddDivInt(a dd, n float64) dd {
	q1 := a.hi / n
	// remainder a - q1*n, exactly enough
	p := q1 * n
	pe := math.FMA(q1, n, -p)
	r := ddAdd(a, dd{-p, -pe})
	q2 := r.hi / n
	return quickTwoSum(q1, q2)
}

// pi as a double-double.
var ddPi = dd{math.Pi, 1.2246467991473532e-16}

// invFact[n] is 1/n! as a double-double, for n < seriesTerms.
const seriesTerms = 36

var invFact = func() [seriesTerms]dd {
	var t [seriesTerms]dd
	t[0] = dd{1, 0}
	for n := 1; n < seriesTerms; n++ {
		t[n] = ddDivInt(t[n-1], float64(n))
	}
	return t
}()

// The Taylor series below sum their high terms (degree ddDegree and up,
// at most 2^-26 of the sum for |x| <= pi/2) in float64 and only the low
// ones in double-double: the error stays near 2^-78 of the result, so the
// rounding to float64 is wrong only for values within that distance of a
// midpoint between two float64s.
const ddDegree = 12

// sinSeries is the Taylor series of sine at x, |x| <= pi/2 (its terms fall
// below 2^-107 of the sum before degree 35), by Horner's scheme.
func sinSeries(x dd) dd {
	x2 := ddMul(x, x)
	t := invFact[35].hi
	for n := 33; n > ddDegree; n -= 2 {
		t = invFact[n].hi - t*x2.hi
	}
	sum := dd{t, 0}
	for n := ddDegree - 1; n >= 1; n -= 2 {
		sum = ddMul(sum, x2)
		sum = ddAdd(invFact[n], dd{-sum.hi, -sum.lo})
	}
	return ddMul(sum, x)
}

// cosSeries is the Taylor series of cosine at x, |x| <= pi/2.
func cosSeries(x float64) dd {
	x2 := twoProd(x, x)
	t := invFact[34].hi
	for n := 32; n > ddDegree; n -= 2 {
		t = invFact[n].hi - t*x2.hi
	}
	sum := dd{t, 0}
	for n := ddDegree; n >= 0; n -= 2 {
		sum = ddMul(sum, x2)
		sum = ddAdd(invFact[n], dd{-sum.hi, -sum.lo})
	}
	return sum
}

// ddSin is sine of x in double-double, for |x| <= pi.
func ddSin(x float64) dd {
	ax := math.Abs(x)
	arg := dd{ax, 0}
	if ax > math.Pi/2 {
		// sin(x) = sin(pi - x); pi.hi - x is exact here.
		arg = twoSum(ddPi.hi-ax, ddPi.lo)
	}
	s := sinSeries(arg)
	if x < 0 {
		s = dd{-s.hi, -s.lo}
	}
	return s
}

// sin is the sine of x rounded to nearest.
func sin(x float64) float64 {
	if math.IsNaN(x) || math.Abs(x) > math.Pi {
		return math.Sin(x)
	}
	if x == 0 {
		return x
	}
	s := ddSin(x)
	return s.hi + s.lo
}

// cos is the cosine of x rounded to nearest.
func cos(x float64) float64 {
	if math.IsNaN(x) || math.Abs(x) > math.Pi/2 {
		return math.Cos(x)
	}
	c := cosSeries(x)
	return c.hi + c.lo
}

// asin is the arcsine of x rounded to nearest: one Newton step in
// double-double from the library's value, which is within an ulp.
func asin(x float64) float64 {
	y := math.Asin(x)
	if math.IsNaN(y) || math.Abs(x) > 0.9999 || x == 0 {
		return y
	}
	s := ddSin(y)
	diff := ddAdd(s, dd{-x, 0})
	return y - (diff.hi+diff.lo)/math.Cos(y)
}
