package geo

import "math"

// Shape is a search area: a circle of Radius, or (Box) a rectangle of
// Width by Height, centred on (Long, Lat). Sizes are in a unit of
// ToMeters metres each, kept apart because the tests of the area multiply
// at different moments, and their roundings decide points on the edge.
type Shape struct {
	Long, Lat             float64
	Box                   bool
	Radius, Width, Height float64
	ToMeters              float64
}

// Contains reports whether the point is inside the shape and its distance
// in metres from the centre. A box keeps a point whose distance along the
// meridian is at most half the height and whose distance along its own
// parallel to the centre's longitude is at most half the width.
func (s Shape) Contains(long, lat float64) (float64, bool) {
	// Points clearly outside are told apart without the exact distance.
	if !s.Box {
		r := s.Radius * s.ToMeters
		if beyond(r, s.Long, s.Lat, long, lat) {
			return 0, false
		}
		d := Distance(s.Long, s.Lat, long, lat)
		return d, d <= r
	}
	w, h := s.Width*s.ToMeters, s.Height*s.ToMeters
	if LatDistance(lat, s.Lat) > h/2 {
		return 0, false
	}
	if beyond(w/2, long, lat, s.Long, lat) || Distance(long, lat, s.Long, lat) > w/2 {
		return 0, false
	}
	return Distance(s.Long, s.Lat, long, lat), true
}

// bounds returns the rectangle of longitudes and latitudes that holds the
// shape: [minLong, minLat, maxLong, maxLat].
func (s Shape) bounds() [4]float64 {
	var halfH, halfW float64
	if s.Box {
		halfH, halfW = s.ToMeters*(s.Height/2), s.ToMeters*(s.Width/2)
	} else {
		halfH, halfW = s.ToMeters*s.Radius, s.ToMeters*s.Radius
	}
	latDelta := radToDeg(halfH / EarthRadius)
	longDeltaTop := radToDeg(halfW / EarthRadius / cos(degToRad(s.Lat+latDelta)))
	longDeltaBottom := radToDeg(halfW / EarthRadius / cos(degToRad(s.Lat-latDelta)))
	// The parallel farther from the equator is the shorter one, so it needs
	// the wider longitude span: the top one in the north, the bottom one in
	// the south.
	longDelta := longDeltaTop
	if s.Lat < 0 {
		longDelta = longDeltaBottom
	}
	return [4]float64{s.Long - longDelta, s.Lat - latDelta, s.Long + longDelta, s.Lat + latDelta}
}

// reachMeters is the distance from the centre to the farthest point of the
// shape: the radius, or half the box's diagonal.
func (s Shape) reachMeters() float64 {
	r := s.Radius
	if s.Box {
		r = math.Sqrt((s.Width/2)*(s.Width/2) + (s.Height/2)*(s.Height/2))
	}
	return r * s.ToMeters
}

// mercatorMax is half the circumference of the Web Mercator projection in
// metres.
const mercatorMax = 20037726.37

// stepsForRadius estimates the coarsest step whose cells still cover a
// circle of the radius: the step where the doubled radius passes half the
// Mercator circumference, two steps coarser to be safe, and one or two more
// beyond 66 and 80 degrees of latitude where cells narrow. The result is
// within [1, 26]; a radius of 0 gives 26.
func stepsForRadius(meters, lat float64) uint8 {
	if meters == 0 {
		return StepMax
	}
	step := 1
	for meters < mercatorMax {
		meters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint8(min(max(step, 1), StepMax))
}

// The neighbours of a cell, in the order a search reads them.
const (
	north = iota
	south
	east
	west
	northEast
	northWest
	southEast
	southWest
)

// neighbours returns the eight cells around h, of the same step.
func neighbours(h Hash) [8]Hash {
	var n [8]Hash
	moves := [8][2]int{
		north: {0, 1}, south: {0, -1}, east: {1, 0}, west: {-1, 0},
		northEast: {1, 1}, northWest: {-1, 1}, southEast: {1, -1}, southWest: {-1, -1},
	}
	for i, m := range moves {
		n[i] = moveLat(moveLong(h, m[0]), m[1])
	}
	return n
}

// moveLong moves h one cell east (d > 0) or west (d < 0), wrapping around
// the antimeridian.
func moveLong(h Hash, d int) Hash {
	if d == 0 {
		return h
	}
	long := h.Bits & 0xaaaaaaaaaaaaaaaa
	lat := h.Bits & 0x5555555555555555
	fill := uint64(0x5555555555555555) >> (64 - 2*uint(h.Step)) // the lat bits, all ones
	if d > 0 {
		long += fill + 1
	} else {
		long = (long | fill) - (fill + 1)
	}
	long &= uint64(0xaaaaaaaaaaaaaaaa) >> (64 - 2*uint(h.Step))
	return Hash{Bits: long | lat, Step: h.Step}
}

// moveLat moves h one cell north (d > 0) or south (d < 0), wrapping
// between the latitude limits.
func moveLat(h Hash, d int) Hash {
	if d == 0 {
		return h
	}
	long := h.Bits & 0xaaaaaaaaaaaaaaaa
	lat := h.Bits & 0x5555555555555555
	fill := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - 2*uint(h.Step)) // the long bits, all ones
	if d > 0 {
		lat += fill + 1
	} else {
		lat = (lat | fill) - (fill + 1)
	}
	lat &= uint64(0x5555555555555555) >> (64 - 2*uint(h.Step))
	return Hash{Bits: long | lat, Step: h.Step}
}

// ScoreRange is the scores [Min, Max) of the points of one cell.
type ScoreRange struct{ Min, Max float64 }

// Plan returns the score ranges a search of the shape reads, in order: the
// centre's cell, then the neighbours the shape reaches (north, south,
// east, west, north-east, north-west, south-east, south-west), leaving out
// a neighbour equal to the cell read just before it (huge areas wrap onto
// the same cells).
func Plan(s Shape) []ScoreRange {
	b := s.bounds()
	minLong, minLat, maxLong, maxLat := b[0], b[1], b[2], b[3]
	step := stepsForRadius(s.reachMeters(), s.Lat)
	h, _ := Encode(s.Long, s.Lat, step)
	n := neighbours(h)
	// The estimate can leave the area poking out of the neighbours when the
	// centre lies near the edge of its cell: one step coarser then.
	if step > 1 &&
		(Decode(n[north]).Lat.Max < maxLat || Decode(n[south]).Lat.Min > minLat ||
			Decode(n[east]).Long.Max < maxLong || Decode(n[west]).Long.Min > minLong) {
		step--
		h, _ = Encode(s.Long, s.Lat, step)
		n = neighbours(h)
	}
	area := Decode(h)
	if step >= 2 {
		drop := func(is ...int) {
			for _, i := range is {
				n[i] = Hash{}
			}
		}
		if area.Lat.Min < minLat {
			drop(south, southWest, southEast)
		}
		if area.Lat.Max > maxLat {
			drop(north, northEast, northWest)
		}
		if area.Long.Min < minLong {
			drop(west, southWest, northWest)
		}
		if area.Long.Max > maxLong {
			drop(east, southEast, northEast)
		}
	}
	cells := append([]Hash{h}, n[:]...)
	out := make([]ScoreRange, 0, len(cells))
	last := -1 // the last neighbour read; the centre's cell does not count
	for i, c := range cells {
		if c.IsZero() {
			continue
		}
		if last > 0 && c == cells[last] {
			continue
		}
		lo := Align52(c)
		c.Bits++
		out = append(out, ScoreRange{float64(lo), float64(Align52(c))})
		last = i
	}
	return out
}
