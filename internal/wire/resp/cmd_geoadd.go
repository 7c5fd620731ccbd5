package resp

import (
	"github.com/mayfly/mayfly/internal/geo"
	"github.com/mayfly/mayfly/internal/kv"
)

var cmdGeoAdd = def(cmdSpec{
	Name: "geoadd", Arity: -5, Flags: "write denyoom", FirstKey: 1, LastKey: 1, Step: 1,
	ACL: "write geo slow", Group: "geo", Since: "3.2.0",
	Summary:    "Add one or more geospatial items in the geospatial index represented using a sorted set",
	Complexity: "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
	Handler:    geoAdd,
})

// geoAdd is GEOADD key [NX|XX] [CH] long lat member ...: ZADD of the
// members with their geohash scores, so its event is `zadd`. Every pair is
// checked before anything is written.
func geoAdd(x *cmdCtx) error {
	var o kv.ZAddOptions
	ch := false
	i := 2
	for ; i < len(x.args); i++ {
		switch a := x.args[i]; {
		case argEq(a, "nx"):
			o.NX = true
		case argEq(a, "xx"):
			o.XX = true
		case argEq(a, "ch"):
			ch = true
		default:
			goto points
		}
	}
points:
	rest := x.args[i:]
	if len(rest)%3 != 0 || (o.NX && o.XX) || len(rest) == 0 {
		return errSyntax
	}
	scores := make([]float64, 0, len(rest)/3)
	members := make([][]byte, 0, len(rest)/3)
	for j := 0; j < len(rest); j += 3 {
		long, lat, err := parseLongLat(rest[j], rest[j+1])
		if err != nil {
			return err
		}
		score, _ := geo.Score(long, lat)
		scores = append(scores, score)
		members = append(members, rest[j+2])
	}
	r, err := x.tx.ZAdd(x.args[1], o, scores, members)
	if err != nil {
		return err
	}
	if ch {
		x.w.Int(r.Added + r.Updated)
	} else {
		x.w.Int(r.Added)
	}
	if r.Added > 0 {
		serveBlocked(x, x.args[1])
	}
	return nil
}
