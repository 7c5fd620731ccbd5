package resp

import (
	"math"
	"strconv"

	"github.com/mayfly/mayfly/internal/geo"
	"github.com/mayfly/mayfly/internal/kv"
)

// parseLongLat parses a longitude and a latitude: each a float ("value is
// not a valid float"), then the pair within the encodable limits.
func parseLongLat(long, lat []byte) (float64, float64, error) {
	x, ok := kv.ParseScore(long)
	if !ok {
		return 0, 0, errNotFloat
	}
	y, ok := kv.ParseScore(lat)
	if !ok {
		return 0, 0, errNotFloat
	}
	if !geo.ValidLongLat(x, y) {
		return 0, 0, replyErr("ERR invalid longitude,latitude pair " + cFixed6(x) + "," + cFixed6(y))
	}
	return x, y, nil
}

// cFixed6 formats as C's "%f".
func cFixed6(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// parseUnit returns how many metres one unit is (m, km, ft, mi, any case).
func parseUnit(b []byte) (float64, error) {
	switch {
	case argEq(b, "m"):
		return 1, nil
	case argEq(b, "km"):
		return 1000, nil
	case argEq(b, "ft"):
		return 0.3048, nil
	case argEq(b, "mi"):
		return 1609.34, nil
	}
	return 0, replyErr("ERR unsupported unit provided. please use M, KM, FT, MI")
}

// parseGeoSize parses a non-negative size ("need numeric <what>" when it
// is no float).
func parseGeoSize(b []byte, what string) (float64, error) {
	f, ok := kv.ParseScore(b)
	if !ok {
		return 0, replyErr("ERR need numeric " + what)
	}
	return f, nil
}

// writeGeoDistance writes a distance as a bulk string with four decimals,
// rounded half to even, as Redis prints them in every protocol.
func writeGeoDistance(w *Writer, d float64) {
	w.BulkString(formatGeoDistance(d))
}

func formatGeoDistance(d float64) string {
	if d == 0 {
		return "0.0000"
	}
	// A distance is at most half the earth's circumference, in feet at
	// worst: far within an int64 at four decimals.
	n := int64(math.RoundToEven(d * 10000))
	neg := n < 0
	if neg {
		n = -n
	}
	s := strconv.FormatInt(n, 10)
	for len(s) < 5 {
		s = "0" + s
	}
	out := s[:len(s)-4] + "." + s[len(s)-4:]
	if neg {
		out = "-" + out
	}
	return out
}

// writeGeoCoord writes a coordinate as Redis's human-friendly long double:
// "%.17Lf" without trailing zeros (a bulk string in RESP2, a double in
// RESP3).
func writeGeoCoord(w *Writer, f float64) {
	s := strconv.FormatFloat(f, 'f', 17, 64)
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	if s == "-0" {
		s = "0"
	}
	if w.Proto() >= 3 {
		w.Raw([]byte("," + s + "\r\n"))
		return
	}
	w.BulkString(s)
}

// writeGeoPoint writes [longitude, latitude].
func writeGeoPoint(w *Writer, long, lat float64) {
	w.Array(2)
	writeGeoCoord(w, long)
	writeGeoCoord(w, lat)
}
