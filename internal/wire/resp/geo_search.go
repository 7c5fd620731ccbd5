package resp

import (
	"slices"

	"github.com/mayfly/mayfly/internal/geo"
	"github.com/mayfly/mayfly/internal/kv"
)

// geoFound is a point a search found.
type geoFound struct {
	member    []byte
	score     float64
	dist      float64 // metres until the reply converts it to the unit
	long, lat float64
}

// geoSearch runs the search commands (see parseGeoQuery for the options).
// A missing source answers an empty array, or with a destination deletes
// it and answers 0. With ANY the search stops at COUNT points, in the
// order the cells are read. The destination gets the points scored by
// their geohash (or, with STOREDIST, their distance in the unit), with the
// event `georadiusstore` (`geosearchstore` for GEOSEARCHSTORE), and is
// deleted (`del`) when nothing is found.
func geoSearch(x *cmdCtx, src int, kind geoSearchKind) error {
	q, err := parseGeoQuery(x, src, kind)
	if err != nil {
		return err
	}
	if !q.exists {
		if q.store != nil {
			if err := x.tx.ZStore(q.store, nil, ""); err != nil {
				return err
			}
			x.w.Int(0)
			return nil
		}
		x.w.Array(0)
		return nil
	}
	limit := int64(0)
	if q.firstN {
		limit = q.count
	}
	found, err := geoCollect(x.tx, q.key, q.shape, limit)
	if err != nil {
		return err
	}
	if len(found) == 0 && q.store == nil {
		x.w.Array(0)
		return nil
	}
	if q.sorted {
		cmp := func(a, b geoFound) int {
			c := 0
			switch {
			case a.dist > b.dist:
				c = 1
			case a.dist < b.dist:
				c = -1
			}
			if q.desc {
				return -c
			}
			return c
		}
		// Redis sorts a whole result with the C library's qsort (a
		// stable merge sort in glibc) and one COUNT cuts with its own
		// partial quicksort: points at the same distance come out in the
		// same order here.
		if q.count > 0 && int64(len(found)) > q.count {
			geo.PartialSort(found, cmp, 0, int(q.count)-1)
		} else {
			slices.SortStableFunc(found, cmp)
		}
	}
	if q.count > 0 && int64(len(found)) > q.count {
		found = found[:q.count]
	}
	for i := range found {
		found[i].dist /= q.shape.ToMeters
	}
	if q.store != nil {
		return geoStore(x, q.store, found, q.storeDist, kind&geoSearchArgs != 0)
	}
	fields := 0
	for _, on := range []bool{q.withDist, q.withHash, q.withCoord} {
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
		if q.withDist {
			writeGeoDistance(x.w, p.dist)
		}
		if q.withHash {
			x.w.Int(int64(p.score))
		}
		if q.withCoord {
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
