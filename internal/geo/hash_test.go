package geo

import (
	"strconv"
	"testing"
)

// The expected values below are what Redis 7.0 answers for the same
// points (ZSCORE, GEOPOS, GEOHASH of a GEOADD).
func TestScoreAndDecode(t *testing.T) {
	cases := []struct {
		long, lat       float64
		score           float64
		gotLong, gotLat string
		hash            string
	}{
		{13.361389, 38.115556, 3479099956230698, "13.36138933897018433", "38.11555639549629859", "sqc8b49rny0"},
		{15.087269, 37.502669, 3479447370796909, "15.08726745843887329", "37.50266842333162032", "sqdtr74hyu0"},
		{0, 0, 3377699720527872, "0.00000268220901489", "0.00000126736058093", "s0000000000"},
		{-180, -85.05112878, 0, "-179.99999731779098511", "-85.05112751263942528", "00bh0hbj200"},
		// The upper limits give a cell number of 2^26, which spills past
		// 52 bits.
		{180, 85.05112878, 13510798882111488, "180", "85.0511287799999991", "bp05b5048p0"},
	}
	for _, c := range cases {
		s, ok := Score(c.long, c.lat)
		if !ok || s != c.score {
			t.Errorf("Score(%v, %v) = %v, %v; want %v", c.long, c.lat, s, ok, c.score)
		}
		long, lat := DecodeScore(s)
		if g := fmtHuman(long); g != c.gotLong {
			t.Errorf("longitude of %v = %s; want %s", s, g, c.gotLong)
		}
		if g := fmtHuman(lat); g != c.gotLat {
			t.Errorf("latitude of %v = %s; want %s", s, g, c.gotLat)
		}
		if g := GeohashString(long, lat); g != c.hash {
			t.Errorf("GeohashString of %v = %s; want %s", s, g, c.hash)
		}
	}
}

// fmtHuman prints as "%.17Lf" without trailing zeros.
func fmtHuman(f float64) string {
	s := strconv.FormatFloat(f, 'f', 17, 64)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

func TestScoresNotFromGeoadd(t *testing.T) {
	cases := []struct {
		score         float64
		long, lat, gh string
	}{
		{-1, "180", "85.0511287799999991", "bp05b5048p0"},
		{1.5, "-179.99999731779098511", "-85.05112497791824921", "00bh0hbj210"},
		{1e300, "-179.99999731779098511", "-85.05112751263942528", "00bh0hbj200"},
	}
	for _, c := range cases {
		long, lat := DecodeScore(c.score)
		if fmtHuman(long) != c.long || fmtHuman(lat) != c.lat || GeohashString(long, lat) != c.gh {
			t.Errorf("DecodeScore(%v) = %s %s %s; want %s %s %s", c.score,
				fmtHuman(long), fmtHuman(lat), GeohashString(long, lat), c.long, c.lat, c.gh)
		}
	}
}

func TestScoreRejectsOutOfRange(t *testing.T) {
	for _, p := range [][2]float64{{180.1, 0}, {-180.1, 0}, {0, 85.06}, {0, -85.06}} {
		if _, ok := Score(p[0], p[1]); ok {
			t.Errorf("Score(%v) accepted", p)
		}
		if ValidLongLat(p[0], p[1]) {
			t.Errorf("ValidLongLat(%v) = true", p)
		}
	}
}

func TestInterleaveRoundTrip(t *testing.T) {
	for _, v := range [][2]uint32{{0, 0}, {1, 0}, {0, 1}, {0x3ffffff, 0x1234567}, {0xffffffff, 0xffffffff}} {
		lat, long := deinterleave(interleave(v[0], v[1]))
		if lat != v[0] || long != v[1] {
			t.Errorf("round trip of %x = %x %x", v, lat, long)
		}
	}
	if got := interleave(1, 0); got != 1 {
		t.Errorf("latitude goes to the even bits: %b", got)
	}
	if got := interleave(0, 1); got != 2 {
		t.Errorf("longitude goes to the odd bits: %b", got)
	}
}

func TestScoreBits(t *testing.T) {
	cases := map[float64]uint64{
		0: 0, 1.9: 1, -1: 1<<64 - 1, 1 << 63: 1 << 63, 1e300: 0, -1e300: 1 << 63,
	}
	for f, want := range cases {
		if got := ScoreBits(f); got != want {
			t.Errorf("ScoreBits(%v) = %x; want %x", f, got, want)
		}
	}
}
