package integration_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// createTimeseries creates app.<coll> as a time-series collection.
func (e *ttlEnv) createTimeseries(coll string, ts bson.D, expireAfter any) *mongo.Collection {
	e.t.Helper()
	cmd := bson.D{{Key: "create", Value: coll}, {Key: "timeseries", Value: ts}}
	if expireAfter != nil {
		cmd = append(cmd, bson.E{Key: "expireAfterSeconds", Value: expireAfter})
	}
	e.mustRun("app", cmd)
	return e.cl.Database("app").Collection(coll)
}

// atHalfPast advances the server's clock to the next hh:30:00 and returns
// that hour's start, so that tests know which bucket a time falls in.
func (e *ttlEnv) atHalfPast() time.Time {
	e.t.Helper()
	now := e.now()
	hour := now.Truncate(time.Hour).Add(time.Hour)
	e.s.Advance(e.t, hour.Add(30*time.Minute).Sub(now))
	return hour
}

// Ensure that create checks the timeseries options as MongoDB 7.0 does.
func TestTimeseriesCreateValidation(t *testing.T) {
	e := startTTL(t)
	cases := []struct {
		name string
		ts   any
		more bson.D
		code int32
		msg  string
	}{
		{"no timeField", bson.D{}, nil, 40414, "BSON field 'timeseries.timeField' is missing but a required field"},
		{"timeseries not a document", "t", nil, 14, ""},
		{"metaField is _id", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "_id"}}, nil, 72, `'metaField' cannot be "_id"`},
		{"metaField is timeField", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "t"}}, nil, 72, "'metaField' cannot be the same as 'timeField'"},
		{"dotted timeField", bson.D{{Key: "timeField", Value: "a.b"}}, nil, 72, "app.bad: 'timeField' must be a top-level field and not contain a '.'"},
		{"unknown granularity", bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "days"}}, nil, 2, ""},
		{"span alone", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: 100}}, nil, 72,
			"Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' need to be set alongside each other"},
		{"rounding unlike span", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: 100}, {Key: "bucketRoundingSeconds", Value: 10}}, nil, 72,
			"Timeseries 'bucketRoundingSeconds' needs to be equal to 'bucketMaxSpanSeconds'"},
		{"granularity with another span", bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "hours"}, {Key: "bucketMaxSpanSeconds", Value: 100}}, nil, 72,
			"Timeseries 'bucketMaxSpanSeconds' is not configurable to a value other than the default of 2592000 for the provided granularity"},
		{"negative expireAfterSeconds", bson.D{{Key: "timeField", Value: "t"}}, bson.D{{Key: "expireAfterSeconds", Value: -1}}, 72, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := append(bson.D{{Key: "create", Value: "bad"}, {Key: "timeseries", Value: tc.ts}}, tc.more...)
			_, err := e.run("app", cmd)
			wantCmdErr(t, err, tc.code, tc.msg)
		})
	}
	t.Run("listCollections", func(t *testing.T) {
		e := e.with(t)
		e.createTimeseries("weather", bson.D{{Key: "timeField", Value: "ts"}, {Key: "metaField", Value: "sensor"}}, 86400)
		e.createTimeseries("custom", bson.D{{Key: "timeField", Value: "ts"}, {Key: "bucketMaxSpanSeconds", Value: 600}, {Key: "bucketRoundingSeconds", Value: 600}}, nil)
		cur, err := e.cl.Database("app").ListCollections(t.Context(), bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		var got []bson.Raw
		if err := cur.All(t.Context(), &got); err != nil {
			t.Fatal(err)
		}
		byName := map[string]bson.Raw{}
		for _, c := range got {
			byName[c.Lookup("name").StringValue()] = c
		}
		w, ok := byName["weather"]
		if !ok || w.Lookup("type").StringValue() != "timeseries" {
			t.Fatalf("weather: %v", w)
		}
		if got := w.Lookup("options").String(); got != `{"timeseries": {"timeField": "ts","metaField": "sensor","granularity": "seconds","bucketMaxSpanSeconds": {"$numberInt":"3600"}},"expireAfterSeconds": {"$numberLong":"86400"}}` {
			t.Fatalf("weather options %s", got)
		}
		if got := byName["custom"].Lookup("options", "timeseries").String(); got != `{"timeField": "ts","bucketRoundingSeconds": {"$numberInt":"600"},"bucketMaxSpanSeconds": {"$numberInt":"600"}}` {
			t.Fatalf("custom options %s", got)
		}
		b, ok := byName["system.buckets.weather"]
		if !ok || b.Lookup("type").StringValue() != "collection" || !b.Lookup("options", "clusteredIndex").Boolean() {
			t.Fatalf("buckets: %v", b)
		}
		_, err = e.run("app", bson.D{{Key: "create", Value: "weather"}})
		wantCmdErr(t, err, 48, "")
	})
}

// Ensure that measurements go in and come out as MongoDB presents them:
// inserts single and many (ordered and unordered, with MongoDB's error for
// a measurement without a time), find with time and meta predicates,
// aggregate, count, distinct, deletes on the metaField, and collStats's
// bucket count.
func TestTimeseriesMeasurements(t *testing.T) {
	e := startTTL(t)
	ctx := t.Context()
	c := e.createTimeseries("weather", bson.D{{Key: "timeField", Value: "ts"}, {Key: "metaField", Value: "sensor"}}, nil)
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var docs []any
	for i := range 48 { // two days, one measurement per hour and sensor
		for _, s := range []string{"north", "south"} {
			docs = append(docs, bson.D{{Key: "ts", Value: dt(t0.Add(time.Duration(i) * time.Hour))}, {Key: "sensor", Value: s}, {Key: "temp", Value: i}})
		}
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "ts", Value: dt(t0.Add(30 * time.Minute))}, {Key: "sensor", Value: "north"}, {Key: "temp", Value: 100}}); err != nil {
		t.Fatal(err)
	}

	t.Run("a measurement needs a Date time", func(t *testing.T) {
		for _, ordered := range []bool{true, false} {
			_, err := c.InsertMany(ctx, []any{
				bson.D{{Key: "sensor", Value: "bad"}},
				bson.D{{Key: "ts", Value: dt(t0)}, {Key: "sensor", Value: "bad"}},
			}, options.InsertMany().SetOrdered(ordered))
			var bwe mongo.BulkWriteException
			if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Code != 2 ||
				bwe.WriteErrors[0].Message != "'ts' must be present and contain a valid BSON UTC datetime value" {
				t.Fatalf("ordered %v: %v", ordered, err)
			}
		}
		// The unordered insert went on past the failure.
		if n, err := c.CountDocuments(ctx, bson.D{{Key: "sensor", Value: "bad"}}); err != nil || n != 1 {
			t.Fatalf("bad sensor measurements %d %v", n, err)
		}
	})

	t.Run("find one hour of one sensor", func(t *testing.T) {
		cur, err := c.Find(ctx, bson.D{
			{Key: "ts", Value: bson.D{{Key: "$gte", Value: dt(t0)}, {Key: "$lt", Value: dt(t0.Add(time.Hour))}}},
			{Key: "sensor", Value: "north"},
		}, options.Find().SetSort(bson.D{{Key: "temp", Value: 1}}).SetProjection(bson.D{{Key: "_id", Value: 0}}))
		if err != nil {
			t.Fatal(err)
		}
		var got []bson.Raw
		if err := cur.All(ctx, &got); err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, d := range got {
			s = append(s, d.String())
		}
		want := `{"ts": {"$date":{"$numberLong":"` + i64(t0.UnixMilli()) + `"}},"sensor": "north","temp": {"$numberInt":"0"}} ` +
			`{"ts": {"$date":{"$numberLong":"` + i64(t0.Add(30*time.Minute).UnixMilli()) + `"}},"sensor": "north","temp": {"$numberInt":"100"}}`
		if strings.Join(s, " ") != want {
			t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(s, " "), want)
		}
	})

	t.Run("aggregate, count and distinct", func(t *testing.T) {
		cur, err := c.Aggregate(ctx, mongo.Pipeline{
			{{Key: "$match", Value: bson.D{{Key: "sensor", Value: bson.D{{Key: "$ne", Value: "bad"}}}}}},
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$sensor"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
			{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var groups []bson.M
		if err := cur.All(ctx, &groups); err != nil {
			t.Fatal(err)
		}
		if len(groups) != 2 || groups[0]["_id"] != "north" || groups[0]["n"] != int32(49) || groups[1]["n"] != int32(48) {
			t.Fatalf("groups %v", groups)
		}
		if n, err := c.CountDocuments(ctx, bson.D{{Key: "temp", Value: bson.D{{Key: "$gte", Value: 40}}}}); err != nil || n != 17 {
			t.Fatalf("count %d %v", n, err)
		}
		var sensors []string
		if err := c.Distinct(ctx, "sensor", bson.D{}).Decode(&sensors); err != nil || strings.Join(sensors, ",") != "bad,north,south" {
			t.Fatalf("distinct %v %v", sensors, err)
		}
	})

	t.Run("collStats counts buckets", func(t *testing.T) {
		st := e.mustRun("app", bson.D{{Key: "collStats", Value: "weather"}})
		// 48 hours of two sensors, and the bad sensor's hour.
		if n := st.Lookup("timeseries", "bucketCount").AsInt64(); n != 97 {
			t.Fatalf("bucketCount %d: %v", n, st)
		}
		if ns := st.Lookup("timeseries", "bucketsNs").StringValue(); ns != "app.system.buckets.weather" {
			t.Fatalf("bucketsNs %s", ns)
		}
	})

	t.Run("update the metaField", func(t *testing.T) {
		res, err := c.UpdateMany(ctx, bson.D{{Key: "sensor", Value: "bad"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "sensor", Value: "fixed"}}}})
		if err != nil || res.MatchedCount != 1 || res.ModifiedCount != 1 {
			t.Fatalf("updateMany %+v %v", res, err)
		}
		if n, err := c.CountDocuments(ctx, bson.D{{Key: "sensor", Value: "fixed"}}); err != nil || n != 1 {
			t.Fatalf("fixed %d %v", n, err)
		}
		_, err = c.UpdateMany(ctx, bson.D{{Key: "temp", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "sensor", Value: "x"}}}})
		var we mongo.WriteException
		if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 238 {
			t.Fatalf("update on a measurement field: %v", err)
		}
	})

	t.Run("delete on the metaField", func(t *testing.T) {
		res, err := c.DeleteMany(ctx, bson.D{{Key: "sensor", Value: "south"}})
		if err != nil || res.DeletedCount != 48 {
			t.Fatalf("deleteMany %v %v", res, err)
		}
		_, err = c.DeleteOne(ctx, bson.D{{Key: "sensor", Value: "north"}})
		var we mongo.WriteException
		if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 20 {
			t.Fatalf("deleteOne %v", err)
		}
		st := e.mustRun("app", bson.D{{Key: "collStats", Value: "weather"}})
		if n := st.Lookup("timeseries", "bucketCount").AsInt64(); n != 49 {
			t.Fatalf("bucketCount after delete %d", n)
		}
	})

	t.Run("drop drops the buckets", func(t *testing.T) {
		if err := c.Drop(ctx); err != nil {
			t.Fatal(err)
		}
		names, err := e.cl.Database("app").ListCollectionNames(ctx, bson.D{})
		if err != nil || len(names) != 0 {
			t.Fatalf("collections after drop %v %v", names, err)
		}
	})
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

// Ensure the cases of timeseries_ttl.js and timeseries_expire_collmod.js:
// a bucket goes once its start is older than now - expireAfterSeconds -
// bucketMaxSpanSeconds (whole, one range deletion, counted as one
// document), measurements past their TTL are hidden at once (strict
// visibility) while their bucket waits, and collMod changes or removes the
// TTL with MongoDB's errors.
func TestTimeseriesTTL(t *testing.T) {
	e := startTTL(t)
	ctx := t.Context()
	c := e.createTimeseries("m", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "host"}}, 60)
	hour := e.atHalfPast() // now is hour + 30 min
	var docs []any
	for i := range 1000 {
		docs = append(docs, bson.D{{Key: "t", Value: dt(hour.Add(-3 * time.Hour).Add(time.Duration(i) * time.Second))}, {Key: "host", Value: "a"}})
	}
	docs = append(docs,
		bson.D{{Key: "t", Value: dt(hour.Add(28 * time.Minute))}, {Key: "host", Value: "a"}, {Key: "k", Value: "hidden"}},
		bson.D{{Key: "t", Value: dt(hour.Add(29*time.Minute + 30*time.Second))}, {Key: "host", Value: "a"}, {Key: "k", Value: "visible"}},
	)
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if n, err := c.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("visible %d %v, want 1", n, err)
	}
	before := e.counter("deletedDocuments")
	e.sweep(time.Second)
	if n := e.counter("deletedDocuments") - before; n != 1 {
		t.Fatalf("deletedDocuments grew by %d, want 1 bucket", n)
	}
	buckets := func() int64 {
		return e.mustRun("app", bson.D{{Key: "collStats", Value: "m"}}).Lookup("timeseries", "bucketCount").AsInt64()
	}
	if n := buckets(); n != 1 {
		t.Fatalf("buckets %d, want the current hour's", n)
	}

	t.Run("collMod", func(t *testing.T) {
		e := e.with(t)
		e.mustRun("app", bson.D{{Key: "create", Value: "plain"}})
		cases := []struct {
			name string
			cmd  bson.D
			code int32
			msg  string
		}{
			{"a string", bson.D{{Key: "collMod", Value: "m"}, {Key: "expireAfterSeconds", Value: "10"}}, 72, ""},
			{"a document", bson.D{{Key: "collMod", Value: "m"}, {Key: "expireAfterSeconds", Value: bson.D{}}}, 14, ""},
			{"a collection that is not clustered", bson.D{{Key: "collMod", Value: "plain"}, {Key: "expireAfterSeconds", Value: 10}}, 72, ""},
			{"an index TTL", bson.D{{Key: "collMod", Value: "m"}, {Key: "index", Value: bson.D{{Key: "name", Value: "x"}, {Key: "expireAfterSeconds", Value: 10}}}}, 72,
				"TTL indexes are not supported for time-series collections. Please refer to the documentation and use the top-level 'expireAfterSeconds' option instead"},
		}
		for _, tc := range cases {
			_, err := e.run("app", tc.cmd)
			wantCmdErr(t, err, tc.code, tc.msg)
		}
		e.mustRun("app", bson.D{{Key: "collMod", Value: "m"}, {Key: "expireAfterSeconds", Value: "off"}})
		if n, err := c.CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
			t.Fatalf("visible after off %d %v", n, err)
		}
		e.sweep(48 * time.Hour)
		if n := buckets(); n != 1 {
			t.Fatalf("buckets after off %d", n)
		}
		e.mustRun("app", bson.D{{Key: "collMod", Value: "m"}, {Key: "expireAfterSeconds", Value: 3600}})
		e.sweep(time.Second)
		if n := buckets(); n != 0 {
			t.Fatalf("buckets after collMod 3600: %d", n)
		}
	})
}

// Ensure that mongosh sees a time-series collection as MongoDB shows it.
func TestTimeseriesMongosh(t *testing.T) {
	e := startTTL(t)
	script := `
db.createCollection("weather", {timeseries: {timeField: "timestamp", metaField: "metadata", granularity: "hours"}});
db.weather.insertMany([
  {metadata: {sensorId: 5578, type: "temperature"}, timestamp: ISODate("2021-05-18T00:00:00.000Z"), temp: 12},
  {metadata: {sensorId: 5578, type: "temperature"}, timestamp: ISODate("2021-05-18T04:00:00.000Z"), temp: 11},
  {metadata: {sensorId: 5579, type: "temperature"}, timestamp: ISODate("2021-05-19T00:00:00.000Z"), temp: 20}
]);
const one = db.weather.findOne({timestamp: ISODate("2021-05-18T00:00:00.000Z")}, {_id: 0});
print("one " + EJSON.stringify(one));
print("count " + db.weather.countDocuments({"metadata.sensorId": 5578}));
print("type " + db.getCollectionInfos({name: "weather"})[0].type);
print("buckets " + db.runCommand({collStats: "weather"}).timeseries.bucketCount);
`
	out, ok := ttlMongosh(t, e.s, "app", "--eval", script)
	if !ok {
		t.Fatalf("mongosh failed:\n%s", out)
	}
	for _, want := range []string{
		`one {"timestamp":{"$date":"2021-05-18T00:00:00Z"},"metadata":{"sensorId":5578,"type":"temperature"},"temp":12}`,
		"count 2", "type timeseries", "buckets 2",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("mongosh output lacks %q:\n%s", want, out)
		}
	}
}
