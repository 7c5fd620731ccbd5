package resp_test

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// The expected replies of these tests are what Redis 7.0 answers to the
// same commands.

// sicily adds Palermo and Catania to key.
func sicily(key string) step {
	return reply(int64(2), "geoadd", key, "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")
}

var (
	palermoPos = []any{"13.36138933897018433", "38.11555639549629859"}
	cataniaPos = []any{"15.08726745843887329", "37.50266842333162032"}
)

func TestGeoAddStoresGeohashScores(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		sicily("Sicily"),
		reply([]any{"Palermo", "3479099956230698", "Catania", "3479447370796909"}, "zrange", "Sicily", "0", "-1", "withscores"),
		reply("3479099956230698", "zscore", "Sicily", "Palermo"),
		reply("zset", "type", "Sicily"),
		// Limits: the upper corner's cell number spills past 52 bits.
		reply(int64(3), "geoadd", "edge", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw", "0", "0", "origin"),
		reply([]any{"sw", "0", "origin", "3377699720527872", "ne", "13510798882111488"}, "zrange", "edge", "0", "-1", "withscores"),
		// Options: NX, XX, CH.
		reply(int64(0), "geoadd", "Sicily", "ch", "xx", "13.361389", "38.115556", "Palermo", "10", "10", "newone"),
		reply(int64(2), "geoadd", "Sicily", "ch", "13.3", "38.1", "Palermo", "10", "10", "newone"),
		reply(int64(0), "geoadd", "Sicily", "nx", "13.36", "38.11", "Palermo"),
		reply(int64(0), "geoadd", "Sicily", "13.3", "38.1", "Palermo"),
		reply("3479076843417631", "zscore", "Sicily", "Palermo"),
		reply(int64(1), "geoadd", "Sicily", "xx", "ch", "13.361389", "38.115556", "Palermo"),
		reply(int64(0), "geoadd", "nokey", "xx", "1", "1", "a"),
		reply(int64(0), "exists", "nokey"),
		// Errors, all before anything is written.
		fails("ERR syntax error", "geoadd", "Sicily", "xx", "nx", "1", "2", "a"),
		fails("ERR syntax error", "geoadd", "Sicily", "gt", "1", "2", "a"),
		fails("ERR syntax error", "geoadd", "Sicily", "1", "2", "a", "3"),
		fails("ERR syntax error", "geoadd", "Sicily", "ch", "nx", "ch"),
		fails("ERR wrong number of arguments for 'geoadd' command", "geoadd", "Sicily", "1", "2"),
		fails("ERR invalid longitude,latitude pair 200.000000,100.000000", "geoadd", "Sicily", "1", "2", "a", "200", "100", "b"),
		fails("ERR invalid longitude,latitude pair inf,1.000000", "geoadd", "Sicily", "inf", "1", "a"),
		fails("ERR invalid longitude,latitude pair 1.000000,-inf", "geoadd", "Sicily", "1", "-inf", "a"),
		fails("ERR invalid longitude,latitude pair 0.000000,85.051130", "geoadd", "Sicily", "0", "85.05113", "a"),
		fails("ERR value is not a valid float", "geoadd", "Sicily", "abc", "2", "a"),
		fails("ERR value is not a valid float", "geoadd", "Sicily", "1", "nan", "a"),
		reply(int64(3), "zcard", "Sicily"),
		ok("set", "str", "x"),
		fails(wrongType, "geoadd", "str", "1", "2", "a"),
		fails("ERR invalid longitude,latitude pair 200.000000,1.000000", "geoadd", "str", "200", "1", "a"),
	})
}

func TestGeoPosHashDist(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		sicily("Sicily"),
		reply([]any{"sqc8b49rny0", "sqdtr74hyu0", nil}, "geohash", "Sicily", "Palermo", "Catania", "nope"),
		reply([]any{nil}, "geohash", "nokey", "a"),
		reply([]any{palermoPos, nil, cataniaPos}, "geopos", "Sicily", "Palermo", "nope", "Catania"),
		reply([]any{nil, nil}, "geopos", "nokey", "a", "b"),
		reply([]any{}, "geopos", "Sicily"),
		reply("166274.1516", "geodist", "Sicily", "Palermo", "Catania"),
		reply("166274.1516", "geodist", "Sicily", "Palermo", "Catania", "m"),
		reply("166.2742", "geodist", "Sicily", "Palermo", "Catania", "KM"),
		reply("103.3182", "geodist", "Sicily", "Palermo", "Catania", "mi"),
		reply("545518.8700", "geodist", "Sicily", "Palermo", "Catania", "Ft"),
		reply("0.0000", "geodist", "Sicily", "Palermo", "Palermo"),
		reply(nil, "geodist", "Sicily", "Palermo", "nope"),
		reply(nil, "geodist", "nokey", "a", "b"),
		fails("ERR unsupported unit provided. please use M, KM, FT, MI", "geodist", "Sicily", "Palermo", "Catania", "yd"),
		fails("ERR unsupported unit provided. please use M, KM, FT, MI", "geodist", "nokey", "a", "b", "yd"),
		fails("ERR syntax error", "geodist", "Sicily", "Palermo", "Catania", "km", "extra"),
		fails("ERR wrong number of arguments for 'geodist' command", "geodist", "Sicily", "Palermo"),
		// Scores no GEOADD wrote still decode, clamped to the limits.
		reply(int64(3), "zadd", "weird", "-1", "neg", "1.5", "frac", "1e300", "huge"),
		reply([]any{[]any{"180", "85.0511287799999991"}, []any{"-179.99999731779098511", "-85.05112497791824921"},
			[]any{"-179.99999731779098511", "-85.05112751263942528"}}, "geopos", "weird", "neg", "frac", "huge"),
		reply([]any{"bp05b5048p0", "00bh0hbj210", "00bh0hbj200"}, "geohash", "weird", "neg", "frac", "huge"),
		ok("set", "str", "x"),
		fails(wrongType, "geopos", "str", "a"),
		fails(wrongType, "geohash", "str", "a"),
		fails(wrongType, "geodist", "str", "a", "b"),
	})
	// RESP3: coordinates are doubles, a missing member a null, a distance
	// still a bulk string.
	c3 := e.client(3)
	got, err := c3.Do(t.Context(), "geopos", "Sicily", "Palermo", "nope").Result()
	want := []any{[]any{13.36138933897018433, 38.11555639549629859}, nil}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("RESP3 GEOPOS = %#v, %v", got, err)
	}
	if got, err := c3.Do(t.Context(), "geodist", "Sicily", "Palermo", "Catania", "km").Result(); err != nil || got != "166.2742" {
		t.Fatalf("RESP3 GEODIST = %#v, %v", got, err)
	}
}

func TestGeoRadius(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		sicily("Sicily"),
		reply([]any{"Palermo", "Catania"}, "georadius", "Sicily", "15", "37", "200", "km"),
		reply([]any{
			[]any{"Palermo", "190.4424", int64(3479099956230698), palermoPos},
			[]any{"Catania", "56.4413", int64(3479447370796909), cataniaPos},
		}, "georadius", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHCOORD", "WITHHASH"),
		reply([]any{}, "georadius", "Sicily", "15", "37", "1", "m"),
		reply([]any{[]any{"Catania", "56.4413"}, []any{"Palermo", "190.4424"}}, "georadius", "Sicily", "15", "37", "200", "km", "withdist", "asc"),
		reply([]any{"Palermo", "Catania"}, "georadius", "Sicily", "15", "37", "200", "km", "desc"),
		reply([]any{"Catania"}, "georadius", "Sicily", "15", "37", "200", "km", "count", "1"),
		reply([]any{"Palermo"}, "georadius", "Sicily", "15", "37", "200", "km", "count", "1", "desc"),
		// ANY stops at the first points found, in score order here.
		reply([]any{"Palermo"}, "georadius", "Sicily", "15", "37", "200", "km", "count", "1", "any"),
		reply([]any{"Palermo"}, "georadius", "Sicily", "15", "37", "200", "km", "count", "1", "any", "asc"),
		reply([]any{"Catania", "Palermo"}, "georadius", "Sicily", "15", "37", "200", "km", "count", "2", "any", "asc"),
		reply([]any{"Palermo", "Catania"}, "georadius", "Sicily", "15", "37", "200000", "m"),
		reply([]any{"Palermo", "Catania"}, "georadius", "Sicily", "15", "37", "124.27", "mi"),
		reply([]any{"Catania"}, "georadius", "Sicily", "15", "37", "500000", "ft"),
		reply([]any{}, "georadius", "nokey", "15", "37", "200", "km"),
		reply([]any{"Palermo", "Catania"}, "georadius", "Sicily", "0", "0", "25000", "km"),
		reply([]any{"Palermo"}, "georadius_ro", "Sicily", "13.361389", "38.115556", "1", "m"),
		// By member.
		reply([]any{[]any{"Palermo", "0.0000"}, []any{"Catania", "166.2742"}}, "georadiusbymember", "Sicily", "Palermo", "200", "km", "withdist"),
		reply([]any{[]any{"Palermo", palermoPos}}, "georadiusbymember_ro", "Sicily", "Palermo", "100", "km", "withcoord", "asc"),
		fails("ERR could not decode requested zset member", "georadiusbymember", "Sicily", "nope", "200", "km"),
		// With no key, the member, radius and unit are not looked at.
		reply([]any{}, "georadiusbymember", "nokey", "nope", "abc", "xyz"),
		// Errors.
		fails("ERR the ANY argument requires COUNT argument", "georadius", "Sicily", "15", "37", "200", "km", "any"),
		fails("ERR COUNT must be > 0", "georadius", "Sicily", "15", "37", "200", "km", "count", "0"),
		fails("ERR value is not an integer or out of range", "georadius", "Sicily", "15", "37", "200", "km", "count", "x"),
		fails("ERR syntax error", "georadius", "Sicily", "15", "37", "200", "km", "count"),
		fails("ERR radius cannot be negative", "georadius", "Sicily", "15", "37", "-1", "km"),
		fails("ERR need numeric radius", "georadius", "Sicily", "15", "37", "abc", "km"),
		fails("ERR unsupported unit provided. please use M, KM, FT, MI", "georadius", "Sicily", "15", "37", "10", "parsec"),
		fails("ERR invalid longitude,latitude pair 200.000000,37.000000", "georadius", "Sicily", "200", "37", "10", "km"),
		fails("ERR syntax error", "georadius", "Sicily", "15", "37", "10", "km", "frommember", "Palermo"),
		fails("ERR syntax error", "georadius_ro", "Sicily", "15", "37", "10", "km", "store", "dst"),
		fails("ERR syntax error", "georadiusbymember_ro", "Sicily", "Palermo", "10", "km", "storedist", "dst"),
		fails("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
			"georadius", "Sicily", "15", "37", "200", "km", "withdist", "store", "dst"),
		fails("ERR wrong number of arguments for 'georadius' command", "georadius", "Sicily", "15", "37", "200"),
		ok("set", "str", "x"),
		fails(wrongType, "georadius", "str", "15", "37", "200", "km"),
		fails(wrongType, "georadiusbymember", "str", "a", "200", "km"),
		fails(wrongType, "georadius_ro", "str", "200", "37", "200", "km"),
	})
}

func TestGeoRadiusStore(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		sicily("Sicily"),
		reply(int64(2), "georadius", "Sicily", "15", "37", "200", "km", "store", "dst"),
		reply([]any{"Palermo", "3479099956230698", "Catania", "3479447370796909"}, "zrange", "dst", "0", "-1", "withscores"),
		reply(int64(1), "georadius", "Sicily", "15", "37", "200", "km", "count", "1", "storedist", "dst"),
		reply([]any{"Catania"}, "zrange", "dst", "0", "-1"),
		reply("56.441257870158204", "zscore", "dst", "Catania"),
		reply(int64(2), "georadiusbymember", "Sicily", "Catania", "200", "km", "store", "dst2"),
		// The store replaces any type and its expiry.
		ok("set", "dst3", "x", "ex", "100"),
		reply(int64(1), "georadiusbymember", "Sicily", "Catania", "1", "km", "storedist", "dst3"),
		reply([]any{"Catania", "0"}, "zrange", "dst3", "0", "-1", "withscores"),
		reply(int64(-1), "ttl", "dst3"),
		// Nothing found, or no source: the destination is deleted.
		reply(int64(0), "georadius", "Sicily", "0", "0", "1", "km", "store", "dst"),
		reply(int64(0), "exists", "dst"),
		reply(int64(0), "georadiusbymember", "nokey", "nope", "abc", "xyz", "store", "dst2"),
		reply(int64(0), "exists", "dst2"),
	})
}

func TestGeoSearch(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		sicily("Sicily"),
		reply([]any{[]any{"Palermo", "0.0000"}, []any{"Catania", "166.2742"}}, "geosearch", "Sicily", "frommember", "Palermo", "byradius", "200", "km", "withdist"),
		reply([]any{[]any{"Catania", "56.4413"}, []any{"Palermo", "190.4424"}}, "geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "400", "400", "km", "withdist", "asc"),
		// A box keeps a point by its distances along the meridian and the
		// parallel: Palermo is 190 km away but only 124 km north and 145 km
		// west of the centre.
		reply([]any{"Catania", "Palermo"}, "geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "300", "260", "km", "asc"),
		reply([]any{"Catania"}, "geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "280", "260", "km", "asc"),
		reply([]any{"Catania"}, "geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "300", "240", "km", "asc"),
		reply([]any{[]any{"Palermo", int64(3479099956230698)}}, "geosearch", "Sicily", "frommember", "Palermo", "byradius", "1", "m", "withhash"),
		reply([]any{"Palermo"}, "geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km", "desc", "count", "1"),
		reply([]any{}, "geosearch", "nokey", "frommember", "x", "byradius", "1", "km"),
		reply([]any{}, "geosearch", "Sicily", "fromlonlat", "0", "0", "byradius", "1", "km"),
		// Options may come in any order, and FROMMEMBER twice.
		reply([]any{"Catania"}, "geosearch", "Sicily", "count", "1", "byradius", "200", "km", "frommember", "Palermo", "frommember", "Catania"),
		// Errors.
		fails("ERR could not decode requested zset member", "geosearch", "Sicily", "frommember", "x", "byradius", "1", "km"),
		fails("ERR syntax error", "geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "400", "400", "km", "frommember", "Palermo"),
		fails("ERR syntax error", "geosearch", "Sicily", "frommember", "Palermo", "fromlonlat", "15", "37", "byradius", "1", "km"),
		fails("ERR syntax error", "geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "10", "km", "bybox", "1", "1", "km"),
		fails("ERR syntax error", "geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "10", "km", "store", "x"),
		fails("ERR syntax error", "geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "10", "km", "storedist"),
		fails("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearch", "geosearch", "Sicily", "byradius", "10", "km", "asc", "withdist"),
		fails("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH", "GEOSEARCH", "Sicily", "byradius", "10", "km", "asc", "withdist"),
		fails("ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch", "geosearch", "Sicily", "fromlonlat", "15", "37", "asc", "withdist"),
		fails("ERR height or width cannot be negative", "geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "-1", "1", "km"),
		fails("ERR need numeric width", "geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "x", "1", "km"),
		fails("ERR need numeric height", "geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "1", "y", "km"),
		fails("ERR unsupported unit provided. please use M, KM, FT, MI", "geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "1", "1", "yd"),
		fails("ERR invalid longitude,latitude pair 15.000000,86.000000", "geosearch", "Sicily", "fromlonlat", "15", "86", "byradius", "1", "km"),
		fails("ERR the ANY argument requires COUNT argument", "geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "1", "km", "any"),
		fails("ERR wrong number of arguments for 'geosearch' command", "geosearch", "Sicily", "fromlonlat", "15", "37"),
		ok("set", "str", "x"),
		fails(wrongType, "geosearch", "str", "fromlonlat", "15", "37", "byradius", "1", "km"),
	})
}

func TestGeoSearchStore(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		sicily("Sicily"),
		reply(int64(2), "geosearchstore", "dst", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km"),
		reply([]any{"Palermo", "3479099956230698", "Catania", "3479447370796909"}, "zrange", "dst", "0", "-1", "withscores"),
		reply(int64(2), "geosearchstore", "dst", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km", "storedist"),
		reply([]any{"Catania", "Palermo"}, "zrange", "dst", "0", "-1"),
		reply("56.441257870158204", "zscore", "dst", "Catania"),
		reply(int64(1), "geosearchstore", "dst", "Sicily", "frommember", "Palermo", "bybox", "10", "10", "km", "storedist"),
		reply([]any{"Palermo", "0"}, "zrange", "dst", "0", "-1", "withscores"),
		// The source may be the destination.
		reply(int64(1), "geosearchstore", "Sicily", "Sicily", "frommember", "Catania", "byradius", "1", "km"),
		reply([]any{"Catania"}, "zrange", "Sicily", "0", "-1"),
		reply(int64(0), "geosearchstore", "dst", "Sicily", "fromlonlat", "0", "0", "byradius", "1", "km"),
		reply(int64(0), "exists", "dst"),
		ok("set", "dst", "x"),
		reply(int64(0), "geosearchstore", "dst", "nokey", "frommember", "x", "byradius", "1", "km"),
		reply(int64(0), "exists", "dst"),
		fails("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
			"geosearchstore", "dst", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km", "withdist"),
		fails("ERR syntax error", "geosearchstore", "dst", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km", "store", "x"),
		fails("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearchstore",
			"geosearchstore", "dst", "Sicily", "byradius", "200", "km", "asc", "desc"),
		fails("ERR wrong number of arguments for 'geosearchstore' command", "geosearchstore", "dst", "Sicily", "fromlonlat", "15", "37"),
	})
}

// A search finds exactly the points within its radius (as GEODIST
// measures them from the same member), sorted by distance, wherever they
// fall among the cells it reads.
func TestGeoSearchManyPoints(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	args := []any{"geoadd", "grid", "0", "51.5", "centre", "139.69", "35.68", "tokyo"}
	var names []string
	for i := range 21 {
		for j := range 21 {
			name := fmt.Sprintf("p%02d%02d", i, j)
			names = append(names, name)
			args = append(args, -0.1+float64(i)*0.01, 51.4+float64(j)*0.01, name)
		}
	}
	if err := c.Do(t.Context(), args...).Err(); err != nil {
		t.Fatal(err)
	}
	for _, radius := range []float64{0.5, 1.2, 3.7, 8} {
		var want []string
		for _, n := range names {
			d, err := c.GeoDist(t.Context(), "grid", "centre", n, "km").Result()
			if err != nil {
				t.Fatal(err)
			}
			if d <= radius {
				want = append(want, n)
			}
		}
		got, err := c.Do(t.Context(), "geosearch", "grid", "frommember", "centre", "byradius", radius, "km", "withdist", "asc").Slice()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want)+1 {
			t.Fatalf("radius %v: found %d points, want %d and the centre", radius, len(got), len(want))
		}
		last := -1.0
		var found []string
		for _, g := range got {
			pair := g.([]any)
			d, err := strconv.ParseFloat(pair[1].(string), 64)
			if err != nil || d < last || d > radius {
				t.Fatalf("radius %v: %v after distance %v", radius, pair, last)
			}
			last = d
			if pair[0] != "centre" {
				found = append(found, pair[0].(string))
			}
		}
		slices.Sort(found)
		if !slices.Equal(found, want) {
			t.Fatalf("radius %v: found %v, want %v", radius, found, want)
		}
	}
	n, err := c.Do(t.Context(), "geosearch", "grid", "fromlonlat", "0", "51.5", "byradius", "20000", "km", "count", "500").Slice()
	if err != nil || len(n) != 443 || n[len(n)-1] != "tokyo" {
		t.Fatalf("the whole earth: %d points, %v", len(n), err)
	}
}

// GEOADD fires zadd (it is a ZADD); the stores fire georadiusstore or
// geosearchstore, or del when they delete the destination.
func TestGeoEvents(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	if err := c.ConfigSet(t.Context(), "notify-keyspace-events", "KEA").Err(); err != nil {
		t.Fatal(err)
	}
	_, next := keyevents(t, e)
	cmds := [][]any{
		{"geoadd", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
		{"geoadd", "g", "13.361389", "38.115556", "Palermo"}, // nothing changed: no event
		{"georadius", "g", "15", "37", "200", "km", "store", "d1"},
		{"georadiusbymember", "g", "Palermo", "1", "km", "storedist", "d1"},
		{"geosearchstore", "d2", "g", "frommember", "Palermo", "byradius", "1", "km"},
		{"geosearchstore", "d2", "g", "fromlonlat", "0", "0", "byradius", "1", "km"},
		{"georadius", "nokey", "15", "37", "200", "km", "store", "d1"},
		{"set", "end", "x"},
	}
	for _, cmd := range cmds {
		if err := c.Do(t.Context(), cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	want := []string{"zadd g", "georadiusstore d1", "georadiusstore d1", "geosearchstore d2", "del d2", "del d1", "set end"}
	if got := next(len(want)); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestGeoGetKeys(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply([]any{"src", "dst"}, "command", "getkeys", "georadius", "src", "1", "1", "1", "km", "store", "dst"),
		reply([]any{"src", "b", "a"}, "command", "getkeys", "georadius", "src", "1", "1", "1", "km", "storedist", "a", "STORE", "b"),
		reply([]any{"src"}, "command", "getkeys", "georadius", "src", "1", "1", "1", "km", "withdist", "store"),
		reply([]any{"src", "dst"}, "command", "getkeys", "georadiusbymember", "src", "m", "1", "km", "store", "dst"),
		reply([]any{"dst", "src"}, "command", "getkeys", "geosearchstore", "dst", "src", "fromlonlat", "1", "1", "byradius", "1", "km"),
	})
}

// Points at the same distance come out in Redis's order: that of a
// stable sort for a whole result, that of Redis's partial quicksort when
// COUNT cuts it.
func TestGeoSearchTieOrder(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	runSteps(t, e, c, []step{
		reply(int64(7), "geoadd", "t", "10", "10", "e", "10", "10", "a", "10", "10", "c", "10", "10", "b", "10", "10", "d",
			"10.01", "10", "f", "10.01", "10", "g"),
		reply([]any{"a", "b", "c", "d", "e", "f", "g"}, "geosearch", "t", "fromlonlat", "10", "10", "byradius", "10", "km", "asc"),
		reply([]any{"f", "g", "a", "b", "c", "d", "e"}, "geosearch", "t", "fromlonlat", "10", "10", "byradius", "10", "km", "desc"),
		reply([]any{"d", "b", "c"}, "geosearch", "t", "fromlonlat", "10", "10", "byradius", "10", "km", "asc", "count", "3"),
		reply([]any{"f", "g", "c"}, "geosearch", "t", "fromlonlat", "10", "10", "byradius", "10", "km", "desc", "count", "3"),
		reply([]any{"d", "b", "c", "a", "e", "f"}, "geosearch", "t", "fromlonlat", "10", "10", "byradius", "10", "km", "count", "6"),
	})
}

// GEOADD and the stores create sorted sets, so they serve a client blocked
// on the key.
func TestGeoServesBlockedClients(t *testing.T) {
	e := newEnv(t)
	c := e.client(2)
	ch := goDo(t, e.client(2), "bzpopmin", "g", "0")
	waitBlockedCount(t, e, 1)
	if err := c.Do(t.Context(), "geoadd", "g", "13.361389", "38.115556", "Palermo").Err(); err != nil {
		t.Fatal(err)
	}
	expectServed(t, ch, []any{"g", "Palermo", "3479099956230698"})

	c.Do(t.Context(), "geoadd", "src", "13.361389", "38.115556", "Palermo")
	ch = goDo(t, e.client(2), "bzpopmax", "dst", "0")
	waitBlockedCount(t, e, 1)
	if err := c.Do(t.Context(), "geosearchstore", "dst", "src", "frommember", "Palermo", "byradius", "1", "km").Err(); err != nil {
		t.Fatal(err)
	}
	expectServed(t, ch, []any{"dst", "Palermo", "3479099956230698"})
}
