package resp

import "github.com/mayfly/mayfly/internal/geo"

var cmdGeoDist = def(cmdSpec{
	Name: "geodist", Arity: -4, Flags: "readonly", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "read geo slow", Group: "geo", Since: "3.2.0",
	Summary:    "Returns the distance between two members of a geospatial index",
	Complexity: "O(log(N))",
	Handler:    geoDist,
})

// geoDist is GEODIST key member1 member2 [unit]: the distance (metres by
// default) with four decimals, null when the key or either member is
// missing. The unit is checked before the key.
func geoDist(x *cmdCtx) error {
	toMeters := 1.0
	switch {
	case len(x.args) == 5:
		u, err := parseUnit(x.args[4])
		if err != nil {
			return err
		}
		toMeters = u
	case len(x.args) > 5:
		return errSyntax
	}
	scores, ok, err := x.tx.ZMScore(x.args[1], x.args[2:4])
	if err != nil {
		return err
	}
	if !ok[0] || !ok[1] {
		x.w.Null()
		return nil
	}
	long1, lat1 := geo.DecodeScore(scores[0])
	long2, lat2 := geo.DecodeScore(scores[1])
	writeGeoDistance(x.w, geo.Distance(long1, lat1, long2, lat2)/toMeters)
	return nil
}
