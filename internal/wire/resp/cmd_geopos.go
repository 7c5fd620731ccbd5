package resp

import "github.com/mayfly/mayfly/internal/geo"

var cmdGeoPos = def(cmdSpec{
	Name: "geopos", Arity: -2, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read geo slow", Group: "geo", Since: "3.2.0",
	Summary:    "Returns longitude and latitude of members of a geospatial index",
	Complexity: "O(N) where N is the number of members requested.",
	Handler:    geoPos,
})

// geoPos is GEOPOS key member...: [longitude, latitude] of each member's
// point, a null array for a missing one.
func geoPos(x *cmdCtx) error {
	scores, ok, err := x.tx.ZMScore(x.args[1], x.args[2:])
	if err != nil {
		return err
	}
	x.w.Array(len(scores))
	for i, s := range scores {
		if !ok[i] {
			x.w.NullArray()
			continue
		}
		long, lat := geo.DecodeScore(s)
		writeGeoPoint(x.w, long, lat)
	}
	return nil
}
