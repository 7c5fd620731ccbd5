package resp

import "github.com/mayfly/mayfly/internal/geo"

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

// geoQuery is a parsed search command.
type geoQuery struct {
	key    []byte // the source sorted set
	exists bool   // whether it exists (a search of nothing checks only the options)
	shape  geo.Shape

	withDist, withHash, withCoord bool
	sorted, desc                  bool
	count                         int64 // 0: no COUNT
	firstN                        bool  // ANY: stop at count points

	store     []byte // the destination, nil when none
	storeDist bool
}

// parseGeoQuery reads a search command whose source is args[src]. Options
// are read in order, each checked as it comes (a bad centre or size fails
// at once, a missing member of an existing key with "could not decode
// requested zset member"); then the store options are checked against the
// WITH... ones, GEOSEARCH's one FROM... and one BY..., and ANY's COUNT.
// COUNT without ANY sorts ascending when no order is given.
func parseGeoQuery(x *cmdCtx, src int, kind geoSearchKind) (geoQuery, error) {
	q := geoQuery{key: x.args[src]}
	card, err := x.tx.ZCard(q.key)
	if err != nil {
		return q, err
	}
	q.exists = card > 0
	base := 0
	switch {
	case kind&geoByCoords != 0:
		base = 6
		if q.shape.Long, q.shape.Lat, err = parseLongLat(x.args[2], x.args[3]); err != nil {
			return q, err
		}
		if q.shape.Radius, q.shape.ToMeters, err = parseGeoRadius(x.args[4], x.args[5]); err != nil {
			return q, err
		}
	case kind&geoByMember != 0 && !q.exists:
		base = 5 // nothing to search: only the options are checked
	case kind&geoByMember != 0:
		base = 5
		if q.shape.Long, q.shape.Lat, err = geoMemberPoint(x, q.key, x.args[2]); err != nil {
			return q, err
		}
		if q.shape.Radius, q.shape.ToMeters, err = parseGeoRadius(x.args[3], x.args[4]); err != nil {
			return q, err
		}
	case kind&geoSearchStore != 0:
		base, q.store = 3, x.args[1]
	default:
		base = 2
	}

	fromMember, fromLonLat, byRadius, byBox := false, false, false, false
	search := kind&geoSearchArgs != 0
	radiusStore := kind&(geoNoStore|geoSearchArgs) == 0
	opts := x.args[base:]
	for i := 0; i < len(opts); i++ {
		left := len(opts) - 1 - i // arguments after this one
		switch a := opts[i]; {
		case argEq(a, "withdist"):
			q.withDist = true
		case argEq(a, "withhash"):
			q.withHash = true
		case argEq(a, "withcoord"):
			q.withCoord = true
		case argEq(a, "any"):
			q.firstN = true
		case argEq(a, "asc"):
			q.sorted, q.desc = true, false
		case argEq(a, "desc"):
			q.sorted, q.desc = true, true
		case argEq(a, "count") && left >= 1:
			n, err := parseInt(opts[i+1])
			if err != nil {
				return q, err
			}
			if n <= 0 {
				return q, replyErr("ERR COUNT must be > 0")
			}
			q.count = n
			i++
		case (argEq(a, "store") || argEq(a, "storedist")) && left >= 1 && radiusStore:
			q.store, q.storeDist = opts[i+1], argEq(a, "storedist")
			i++
		case argEq(a, "storedist") && kind&geoSearchStore != 0:
			q.storeDist = true
		case argEq(a, "frommember") && left >= 1 && search && !fromLonLat:
			fromMember = true
			if q.exists {
				if q.shape.Long, q.shape.Lat, err = geoMemberPoint(x, q.key, opts[i+1]); err != nil {
					return q, err
				}
			}
			i++
		case argEq(a, "fromlonlat") && left >= 2 && search && !fromMember:
			if q.shape.Long, q.shape.Lat, err = parseLongLat(opts[i+1], opts[i+2]); err != nil {
				return q, err
			}
			fromLonLat = true
			i += 2
		case argEq(a, "byradius") && left >= 2 && search && !byBox:
			if q.shape.Radius, q.shape.ToMeters, err = parseGeoRadius(opts[i+1], opts[i+2]); err != nil {
				return q, err
			}
			q.shape.Box, byRadius = false, true
			i += 2
		case argEq(a, "bybox") && left >= 3 && search && !byRadius:
			if q.shape.Width, q.shape.Height, q.shape.ToMeters, err = parseGeoBox(opts[i+1 : i+4]); err != nil {
				return q, err
			}
			q.shape.Box, byBox = true, true
			i += 3
		default:
			return q, errSyntax
		}
	}

	if q.store != nil && (q.withDist || q.withHash || q.withCoord) {
		what := "STORE option in GEORADIUS"
		if kind&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		return q, replyErr("ERR " + what + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
	}
	if search && !fromMember && !fromLonLat {
		return q, replyErr("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(x.args[0]))
	}
	if search && !byRadius && !byBox {
		return q, replyErr("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(x.args[0]))
	}
	if q.firstN && q.count == 0 {
		return q, replyErr("ERR the ANY argument requires COUNT argument")
	}
	if q.count > 0 && !q.sorted && !q.firstN {
		q.sorted = true
	}
	return q, nil
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
