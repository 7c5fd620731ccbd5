// Package geo is the geohash arithmetic of Redis's geo commands, which keep
// points in sorted sets whose scores are geohashes.
//
// A point is encoded by splitting the longitude range [-180, 180] and the
// latitude range [-85.05112878, 85.05112878] (the limits of Web Mercator;
// the poles cannot be encoded) into 2^26 cells each and interleaving the
// two 26-bit cell numbers, latitude in the even bits: a 52-bit number that
// a float64 score holds exactly. Decoding gives the centre of the cell.
// Nearby points share a prefix, so the points of one coarser cell (a hash
// of fewer steps) are one contiguous range of scores.
//
// A search (Plan) estimates from the radius the coarsest step whose cells
// are not smaller than the area, takes the cell of the centre and its
// eight neighbours, drops the neighbours the area does not reach, and
// reads the score range of each remaining cell; each candidate is then
// kept when its distance (haversine on a sphere of radius EarthRadius
// metres) puts it inside the circle or the box. GeohashString re-encodes a
// point with the standard ranges ([-90, 90] latitude) as the usual
// 11-character base32 geohash.
//
// PartialSort orders a result that COUNT cuts as Redis's partial quicksort
// does, so points at equal distances come out in Redis's order.
//
// Sine, cosine and arcsine are rounded to nearest from double-double
// evaluations (trig.go), not taken from the math package, whose results are
// often an ulp away from the C library's: distances then have the same bits
// as Redis's, but for the rare argument where the C library itself is an
// ulp off.
//
// The package is pure computation: no storage, no I/O.
package geo
