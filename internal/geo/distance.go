package geo

import "math"

// EarthRadius is the radius in metres of the sphere distances are measured
// on (the quadratic mean radius of WGS-84, as Redis takes it).
const EarthRadius = 6372797.560856

func degToRad(d float64) float64 { return d * (math.Pi / 180.0) }
func radToDeg(r float64) float64 { return r / (math.Pi / 180.0) }

// LatDistance is the distance in metres along a meridian between two
// latitudes.
func LatDistance(lat1, lat2 float64) float64 {
	return EarthRadius * math.Abs(degToRad(lat2)-degToRad(lat1))
}

// roughDistance is Distance with the math package's functions: within a
// few ulps of it (far less than roughMargin of it), and many times faster.
func roughDistance(long1, lat1, long2, lat2 float64) float64 {
	v := math.Sin((degToRad(long2) - degToRad(long1)) / 2)
	if v == 0 {
		return LatDistance(lat1, lat2)
	}
	lat1r, lat2r := degToRad(lat1), degToRad(lat2)
	u := math.Sin((lat2r - lat1r) / 2)
	a := u*u + math.Cos(lat1r)*math.Cos(lat2r)*v*v
	return 2.0 * EarthRadius * math.Asin(math.Sqrt(a))
}

// roughMargin is the relative distance from a limit beyond which
// roughDistance decides alone that a point is past it.
const roughMargin = 1e-9

// beyond reports whether the distance between the points is certainly
// more than limit, judged from roughDistance.
func beyond(limit, long1, lat1, long2, lat2 float64) bool {
	return roughDistance(long1, lat1, long2, lat2) > limit*(1+roughMargin)
}

// Distance is the haversine distance in metres between two points; when
// the longitudes are (practically) equal it is the distance along the
// meridian.
func Distance(long1, lat1, long2, lat2 float64) float64 {
	v := sin((degToRad(long2) - degToRad(long1)) / 2)
	if v == 0 {
		return LatDistance(lat1, lat2)
	}
	lat1r, lat2r := degToRad(lat1), degToRad(lat2)
	u := sin((lat2r - lat1r) / 2)
	a := u*u + cos(lat1r)*cos(lat2r)*v*v
	return 2.0 * EarthRadius * asin(math.Sqrt(a))
}
