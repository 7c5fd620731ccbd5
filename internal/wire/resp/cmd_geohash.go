package resp

import "github.com/mayfly/mayfly/internal/geo"

var cmdGeoHash = def(cmdSpec{
	Name: "geohash", Arity: -2, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read geo slow", Group: "geo", Since: "3.2.0",
	Summary:    "Returns members of a geospatial index as standard geohash strings",
	Complexity: "O(log(N)) for each member requested, where N is the number of elements in the sorted set.",
	Handler:    geoHash,
})

// geoHash is GEOHASH key member...: the standard 11-character geohash of
// each member's point, null for a missing one.
func geoHash(x *cmdCtx) error {
	scores, ok, err := x.tx.ZMScore(x.args[1], x.args[2:])
	if err != nil {
		return err
	}
	x.w.Array(len(scores))
	for i, s := range scores {
		if !ok[i] {
			x.w.Null()
			continue
		}
		x.w.BulkString(geo.GeohashString(geo.DecodeScore(s)))
	}
	return nil
}
