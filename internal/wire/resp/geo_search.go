package resp

import (
	"slices"

	"github.com/mayfly/mayfly/internal/geo"
	"github.com/mayfly/mayfly/internal/kv"
)

// geoSearchKind is which search command runs: how its centre and shape are
// given and which store options it takes.
type geoSearchKind uint8

const (
	geoByCoords    geoSearchKind = 1 << iota // GEORADIUS: long lat radius unit
	geoByMember                              // GEORADIUSBYMEMBER: member radius unit
	geoNoStore                               // the _RO variants: no STORE or STOREDIST
	geoSearchArgs                            // GEOSEARCH: FROM... and BY... options
	geoSearchStore                           // GEOSEARCHSTORE: the destination first, STOREDIST a flag
)

// geoFound is a point a search found.
type geoFound struct {
	member    []byte
	score     float64
	dist      float64 // metres until the reply converts it to the unit
	long, lat float64
}

// geoSearch runs the search commands. The source is the sorted set at
// args[src]. Options are read in order, each checked as it comes (a bad
// centre or size fails at once, a missing member of an existing key with
// "could not decode requested zset member"); then the store options are
// checked against the WITH... ones, GEOSEARCH's one FROM... and one BY...,
// and ANY's COUNT. A missing source answers an empty array, or with a
// destination deletes it and answers 0. COUNT without ANY sorts ascending
// when no order is given; with ANY the search stops at COUNT points, in the
// order the cells are read. The destination gets the points scored by
// their geohash (or, with STOREDIST, their distance in the unit), with the
// event `georadiusstore` (`geosearchstore` for GEOSEARCHSTORE), and is
// deleted (`del`) when nothing is found.
func geoSearch(x *cmdCtx, src int, kind geoSearchKind) error {
	key := x.args[src]
	card, err := x.tx.ZCard(key)
	if err != nil {
		return err
	}
	exists := card > 0
	var shape geo.Shape
	var store []byte
	storeDist := false
	base := 0
	switch {
	case kind&geoByCoords != 0:
		base = 6
		if shape.Long, shape.Lat, err = parseLongLat(x.args[2], x.args[3]); err != nil {
			return err
		}
		if shape.Radius, shape.ToMeters, err = parseGeoRadius(x.args[4], x.args[5]); err != nil {
			return err
		}
	case kind&geoByMember != 0 && !exists:
		base = 5 // nothing to search: only the options are checked
	case kind&geoByMember != 0:
		base = 5
		if shape.Long, shape.Lat, err = geoMemberPoint(x, key, x.args[2]); err != nil {
			return err
		}
		if shape.Radius, shape.ToMeters, err = parseGeoRadius(x.args[3], x.args[4]); err != nil {
			return err
		}
	case kind&geoSearchStore != 0:
		base, store = 3, x.args[1]
	default:
		base = 2
	}

	withDist, withHash, withCoord, firstN := false, false, false, false
	fromMember, fromLonLat, byRadius, byBox := false, false, false, false
	desc, sorted := false, false
	var count int64
	search := kind&geoSearchArgs != 0
	radiusStore := kind&(geoNoStore|geoSearchArgs) == 0
	opts := x.args[base:]
	for i := 0; i < len(opts); i++ {
		left := len(opts) - 1 - i // arguments after this one
		switch a := opts[i]; {
		case argEq(a, "withdist"):
			withDist = true
		case argEq(a, "withhash"):
			withHash = true
		case argEq(a, "withcoord"):
			withCoord = true
		case argEq(a, "any"):
			firstN = true
		case argEq(a, "asc"):
			sorted, desc = true, false
		case argEq(a, "desc"):
			sorted, desc = true, true
		case argEq(a, "count") && left >= 1:
			n, err := parseInt(opts[i+1])
			if err != nil {
				return err
			}
			if n <= 0 {
				return replyErr("ERR COUNT must be > 0")
			}
			count = n
			i++
		case (argEq(a, "store") || argEq(a, "storedist")) && left >= 1 && radiusStore:
			store, storeDist = opts[i+1], argEq(a, "storedist")
			i++
		case argEq(a, "storedist") && kind&geoSearchStore != 0:
			storeDist = true
		case argEq(a, "frommember") && left >= 1 && search && !fromLonLat:
			fromMember = true
			if exists {
				if shape.Long, shape.Lat, err = geoMemberPoint(x, key, opts[i+1]); err != nil {
					return err
				}
			}
			i++
		case argEq(a, "fromlonlat") && left >= 2 && search && !fromMember:
			if shape.Long, shape.Lat, err = parseLongLat(opts[i+1], opts[i+2]); err != nil {
				return err
			}
			fromLonLat = true
			i += 2
		case argEq(a, "byradius") && left >= 2 && search && !byBox:
			if shape.Radius, shape.ToMeters, err = parseGeoRadius(opts[i+1], opts[i+2]); err != nil {
				return err
			}
			shape.Box, byRadius = false, true
			i += 2
		case argEq(a, "bybox") && left >= 3 && search && !byRadius:
			if shape.Width, shape.Height, shape.ToMeters, err = parseGeoBox(opts[i+1 : i+4]); err != nil {
				return err
			}
			shape.Box, byBox = true, true
			i += 3
		default:
			return errSyntax
		}
	}

	if store != nil && (withDist || withHash || withCoord) {
		what := "STORE option in GEORADIUS"
		if kind&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		return replyErr("ERR " + what + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
	}
	if search && !fromMember && !fromLonLat {
		return replyErr("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(x.args[0]))
	}
	if search && !byRadius && !byBox {
		return replyErr("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(x.args[0]))
	}
	if firstN && count == 0 {
		return replyErr("ERR the ANY argument requires COUNT argument")
	}

	if !exists {
		if store != nil {
			if err := x.tx.ZStore(store, nil, ""); err != nil {
				return err
			}
			x.w.Int(0)
			return nil
		}
		x.w.Array(0)
		return nil
	}
	if count > 0 && !sorted && !firstN {
		sorted = true
	}
	limit := int64(0)
	if firstN {
		limit = count
	}
	found, err := geoCollect(x.tx, key, shape, limit)
	if err != nil {
		return err
	}
	if len(found) == 0 && store == nil {
		x.w.Array(0)
		return nil
	}
	if sorted {
		cmp := func(a, b geoFound) int {
			c := 0
			switch {
			case a.dist > b.dist:
				c = 1
			case a.dist < b.dist:
				c = -1
			}
			if desc {
				return -c
			}
			return c
		}
		// Redis sorts a whole result with the C library's qsort (a
		// stable merge sort in glibc) and one COUNT cuts with its own
		// partial quicksort: points at the same distance come out in the
		// same order here.
		if count > 0 && int64(len(found)) > count {
			geo.PartialSort(found, cmp, 0, int(count)-1)
		} else {
			slices.SortStableFunc(found, cmp)
		}
	}
	if count > 0 && int64(len(found)) > count {
		found = found[:count]
	}
	for i := range found {
		found[i].dist /= shape.ToMeters
	}
	if store != nil {
		return geoStore(x, store, found, storeDist, kind&geoSearchArgs != 0)
	}
	fields := 0
	for _, on := range []bool{withDist, withHash, withCoord} {
		if on {
			fields++
		}
	}
	x.w.Array(len(found))
	for _, p := range found {
		if fields == 0 {
			x.w.Bulk(p.member)
			continue
		}
		x.w.Array(fields + 1)
		x.w.Bulk(p.member)
		if withDist {
			writeGeoDistance(x.w, p.dist)
		}
		if withHash {
			x.w.Int(int64(p.score))
		}
		if withCoord {
			writeGeoPoint(x.w, p.long, p.lat)
		}
	}
	return nil
}

// geoCollect reads the score ranges of the shape's cells from the sorted
// set at key and keeps the points inside the shape, cell by cell in score
// order; with limit > 0 it stops as soon as it has limit points.
func geoCollect(tx *kv.Tx, key []byte, shape geo.Shape, limit int64) ([]geoFound, error) {
	var found []geoFound
	for _, r := range geo.Plan(shape) {
		if limit > 0 && int64(len(found)) >= limit {
			break
		}
		els, err := tx.ZRange(key, kv.ZRangeSpec{
			Kind: kv.ZByScore, Min: kv.ScoreBound{Value: r.Min}, Max: kv.ScoreBound{Value: r.Max, Excl: true}, Count: -1,
		})
		if err != nil {
			return nil, err
		}
		for _, m := range els {
			long, lat := geo.DecodeScore(m.Score)
			d, in := shape.Contains(long, lat)
			if !in {
				continue
			}
			found = append(found, geoFound{member: m.Member, score: m.Score, dist: d, long: long, lat: lat})
			if limit > 0 && int64(len(found)) >= limit {
				break
			}
		}
	}
	return found, nil
}

// geoStore writes the found points to dst and answers their number.
func geoStore(x *cmdCtx, dst []byte, found []geoFound, byDist, search bool) error {
	els := make([]kv.ZMember, len(found))
	for i, p := range found {
		els[i] = kv.ZMember{Member: p.member, Score: p.score}
		if byDist {
			els[i].Score = p.dist
		}
	}
	event := "georadiusstore"
	if search {
		event = "geosearchstore"
	}
	if err := x.tx.ZStore(dst, els, event); err != nil {
		return err
	}
	x.w.Int(int64(len(els)))
	if len(els) > 0 {
		serveBlocked(x, dst)
	}
	return nil
}

// geoMemberPoint returns the point of member in the sorted set at key.
func geoMemberPoint(x *cmdCtx, key, member []byte) (float64, float64, error) {
	score, ok, err := x.tx.ZScore(key, member)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return 0, 0, replyErr("ERR could not decode requested zset member")
	}
	long, lat := geo.DecodeScore(score)
	return long, lat, nil
}

// parseGeoRadius parses "radius unit".
func parseGeoRadius(radius, unit []byte) (float64, float64, error) {
	r, err := parseGeoSize(radius, "radius")
	if err != nil {
		return 0, 0, err
	}
	if r < 0 {
		return 0, 0, replyErr("ERR radius cannot be negative")
	}
	toMeters, err := parseUnit(unit)
	return r, toMeters, err
}

// parseGeoBox parses "width height unit".
func parseGeoBox(args [][]byte) (w, h, toMeters float64, err error) {
	if w, err = parseGeoSize(args[0], "width"); err != nil {
		return
	}
	if h, err = parseGeoSize(args[1], "height"); err != nil {
		return
	}
	if h < 0 || w < 0 {
		return 0, 0, 0, replyErr("ERR height or width cannot be negative")
	}
	toMeters, err = parseUnit(args[2])
	return
}
