package geo

import "math"

// The encoding limits and the full precision (26 steps, 52 bits).
const (
	LongMin = -180.0
	LongMax = 180.0
	LatMin  = -85.05112878
	LatMax  = 85.05112878
	StepMax = 26
)

// Range is an interval of one coordinate.
type Range struct{ Min, Max float64 }

// The ranges of the score encoding and of standard geohash strings.
var (
	longRange    = Range{LongMin, LongMax}
	latRange     = Range{LatMin, LatMax}
	stdLatRange  = Range{-90, 90}
	stdLongRange = Range{-180, 180}
)

// Hash is a geohash of Step steps: 2*Step interleaved bits, longitude in
// the odd bits. The zero Hash (no bits, no step) stands for "no cell".
type Hash struct {
	Bits uint64
	Step uint8
}

// IsZero reports whether h is the "no cell" value.
func (h Hash) IsZero() bool { return h.Bits == 0 && h.Step == 0 }

// Area is the cell of a hash.
type Area struct {
	Hash      Hash
	Long, Lat Range
}

// ValidLongLat reports whether the point can be encoded.
func ValidLongLat(long, lat float64) bool {
	return long >= LongMin && long <= LongMax && lat >= LatMin && lat <= LatMax
}

// encode returns the hash of the point in the given ranges; ok is false
// for a point outside the encodable limits or the ranges, or a step
// outside [1, 32].
func encode(lr, ar Range, long, lat float64, step uint8) (Hash, bool) {
	if step == 0 || step > 32 || !ValidLongLat(long, lat) {
		return Hash{}, false
	}
	if lat < ar.Min || lat > ar.Max || long < lr.Min || long > lr.Max {
		return Hash{}, false
	}
	cells := float64(uint64(1) << step)
	latCell := (lat - ar.Min) / (ar.Max - ar.Min) * cells
	longCell := (long - lr.Min) / (lr.Max - lr.Min) * cells
	return Hash{Bits: interleave(uint32(latCell), uint32(longCell)), Step: step}, true
}

// Encode returns the hash of a point in the score encoding's ranges.
func Encode(long, lat float64, step uint8) (Hash, bool) {
	return encode(longRange, latRange, long, lat, step)
}

// decode returns the cell of h in the given ranges. The cell numbers are
// 32-bit, so the upper edge of the last possible one wraps to 0, as in
// Redis.
func decode(lr, ar Range, h Hash) Area {
	latCell, longCell := deinterleave(h.Bits)
	cells := float64(uint64(1) << h.Step)
	latScale, longScale := ar.Max-ar.Min, lr.Max-lr.Min
	return Area{
		Hash: h,
		Lat: Range{
			ar.Min + (float64(latCell)/cells)*latScale,
			ar.Min + (float64(latCell+1)/cells)*latScale,
		},
		Long: Range{
			lr.Min + (float64(longCell)/cells)*longScale,
			lr.Min + (float64(longCell+1)/cells)*longScale,
		},
	}
}

// Decode returns the cell of h in the score encoding's ranges.
func Decode(h Hash) Area { return decode(longRange, latRange, h) }

// Center returns the middle of the cell, clamped to the encodable limits.
func (a Area) Center() (long, lat float64) {
	long = min(max((a.Long.Min+a.Long.Max)/2, LongMin), LongMax)
	lat = min(max((a.Lat.Min+a.Lat.Max)/2, LatMin), LatMax)
	return long, lat
}

// Align52 returns h's bits shifted to a full-precision (52-bit) score: the
// lowest score of the cell.
func Align52(h Hash) uint64 { return h.Bits << (52 - 2*uint(h.Step)) }

// Score returns the sorted set score of a point; ok is false when the
// point cannot be encoded.
func Score(long, lat float64) (float64, bool) {
	h, ok := Encode(long, lat, StepMax)
	if !ok {
		return 0, false
	}
	return float64(Align52(h)), true
}

// ScoreBits converts a score to the integer a geohash is read from, as a
// C cast of double to uint64_t does on x86-64 (the platform Redis's
// replies are taken from): fractions are truncated, a negative value
// wraps as a signed integer would, and what no integer holds (NaN, values
// beyond the 64-bit range) gives the "integer indefinite" pattern.
func ScoreBits(score float64) uint64 {
	const two63 = 9223372036854775808.0
	const indefinite = uint64(1) << 63
	switch {
	case math.IsNaN(score):
		return indefinite
	case score < two63:
		if score <= -two63-1 {
			return indefinite
		}
		return uint64(int64(score))
	case score < 2*two63:
		return uint64(int64(score-two63)) ^ indefinite
	default:
		return 0 // (x - 2^63) converts to the indefinite pattern, whose xor is 0
	}
}

// DecodeScore returns the point a score stands for: the centre of its
// full-precision cell. Every score decodes to some point; a score that no
// GEOADD wrote gives a point clamped to the limits.
func DecodeScore(score float64) (long, lat float64) {
	return Decode(Hash{Bits: ScoreBits(score), Step: StepMax}).Center()
}

// GeohashString returns the standard 11-character geohash of a point: 52
// bits of the standard ranges in base32, the eleventh character (which
// would need 55 bits) always '0'.
func GeohashString(long, lat float64) string {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	h, _ := encode(stdLongRange, stdLatRange, long, lat, StepMax)
	var buf [11]byte
	for i := range 10 {
		buf[i] = alphabet[(h.Bits>>(52-5*(uint(i)+1)))&0x1f]
	}
	buf[10] = alphabet[0]
	return string(buf[:])
}

// interleave spreads lat into the even bits and long into the odd bits.
func interleave(lat, long uint32) uint64 {
	return spread(lat) | spread(long)<<1
}

// spread moves bit i of v to bit 2i.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// deinterleave is the inverse of interleave over all 64 bits.
func deinterleave(bits uint64) (lat, long uint32) {
	return gather(bits), gather(bits >> 1)
}

// gather moves bit 2i of v to bit i.
func gather(v uint64) uint32 {
	x := v & 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	return uint32(x)
}
