package geo

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDistance(t *testing.T) {
	// Palermo to Catania as Redis's GEODIST gives it: 166274.1516 m.
	d := Distance(13.36138933897018433, 38.11555639549629859, 15.08726745843887329, 37.50266842333162032)
	if math.Abs(d-166274.1516) > 0.00005 {
		t.Errorf("Distance = %v", d)
	}
	// The same bits as Redis's (a STOREDIST score of 190.44242984775784 km).
	if d := Distance(15, 37, 13.36138933897018433, 38.11555639549629859); d != 190442.42984775783 {
		t.Errorf("Distance = %.17g", d)
	}
	if d := Distance(10, 10, 10, 11); d != LatDistance(10, 11) {
		t.Errorf("same longitude: %v", d)
	}
	if d := Distance(0, 0, 0, 0); d != 0 {
		t.Errorf("same point: %v", d)
	}
}

func TestStepsForRadius(t *testing.T) {
	cases := []struct {
		meters, lat float64
		want        uint8
	}{
		{0, 0, 26}, {1, 0, 24}, {1000, 0, 14}, {100000, 0, 7}, {5e6, 0, 2}, {2.1e7, 0, 1},
		{1000, 70, 13}, {1000, -85, 12}, {math.Inf(1), 0, 1},
	}
	for _, c := range cases {
		if got := stepsForRadius(c.meters, c.lat); got != c.want {
			t.Errorf("stepsForRadius(%v, %v) = %d; want %d", c.meters, c.lat, got, c.want)
		}
	}
}

func TestNeighbours(t *testing.T) {
	h, _ := Encode(13.361389, 38.115556, 10)
	a := Decode(h)
	n := neighbours(h)
	width, height := a.Long.Max-a.Long.Min, a.Lat.Max-a.Lat.Min
	want := [8][2]float64{
		north: {0, 1}, south: {0, -1}, east: {1, 0}, west: {-1, 0},
		northEast: {1, 1}, northWest: {-1, 1}, southEast: {1, -1}, southWest: {-1, -1},
	}
	for i, w := range want {
		b := Decode(n[i])
		if math.Abs(b.Long.Min-(a.Long.Min+w[0]*width)) > 1e-9 || math.Abs(b.Lat.Min-(a.Lat.Min+w[1]*height)) > 1e-9 {
			t.Errorf("neighbour %d at %v, %v", i, b.Long, b.Lat)
		}
	}
	// East of the last column is the first one.
	edge, _ := Encode(179.99, 0, 4)
	if e := Decode(neighbours(edge)[east]); e.Long.Min != -180 {
		t.Errorf("east of the antimeridian: %v", e.Long)
	}
}

// Every point a shape contains lies in one of the score ranges of its
// plan, and the ranges of a plan do not overlap.
func TestPlanCoversShape(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		s := Shape{
			Long: r.Float64()*360 - 180, Lat: r.Float64()*160 - 80,
			Box: r.IntN(2) == 0, Radius: r.Float64() * 200, Width: r.Float64() * 300,
			Height: r.Float64() * 300, ToMeters: 1000,
		}
		plan := Plan(s)
		if len(plan) == 0 || len(plan) > 9 {
			t.Fatalf("plan of %+v has %d ranges", s, len(plan))
		}
		for i := range plan {
			for j := range i {
				if plan[i].Min < plan[j].Max && plan[j].Min < plan[i].Max {
					t.Fatalf("plan of %+v: ranges %v and %v overlap", s, plan[i], plan[j])
				}
			}
		}
		for range 500 {
			long := s.Long + (r.Float64()*2-1)*5
			lat := s.Lat + (r.Float64()*2-1)*3
			if !ValidLongLat(long, lat) {
				continue
			}
			score, _ := Score(long, lat)
			pl, pa := DecodeScore(score)
			if _, in := s.Contains(pl, pa); !in {
				continue
			}
			found := false
			for _, sr := range plan {
				found = found || (score >= sr.Min && score < sr.Max)
			}
			if !found {
				t.Fatalf("point %v,%v inside %+v is in no range of %v", pl, pa, s, plan)
			}
		}
	}
}

func TestContainsBox(t *testing.T) {
	s := Shape{Long: 0, Lat: 0, Box: true, Width: 200, Height: 100, ToMeters: 1000}
	if _, ok := s.Contains(0.8, 0); !ok {
		t.Error("a point 89 km east is inside a 200 km wide box")
	}
	if _, ok := s.Contains(0, 0.5); ok {
		t.Error("a point 55 km north is outside a 100 km high box")
	}
	if d, ok := s.Contains(0, 0.4); !ok || math.Abs(d-LatDistance(0, 0.4)) > 1e-9 {
		t.Errorf("a point 44 km north: %v %v", d, ok)
	}
}
