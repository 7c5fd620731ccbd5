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
