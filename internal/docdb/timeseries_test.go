package docdb

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"pgregory.net/rapid"

	"github.com/mayfly/mayfly/internal/docdb/mongoerr"
	"github.com/mayfly/mayfly/internal/docdb/timeseries"
	"github.com/mayfly/mayfly/internal/expiry"
)

// createTS creates app.<coll> as a time-series collection on t and m.
func (te *testEngine) createTS(coll string, o timeseries.Options, expireAfter *int64) {
	te.t.Helper()
	if err := te.CreateCollection(te.t.Context(), "app", coll, CreateCollectionRequest{Timeseries: &o, ExpireAfterSeconds: expireAfter}); err != nil {
		te.t.Fatal(err)
	}
}

func TestTimeseriesCreateErrors(t *testing.T) {
	te := newTestEngine(t)
	cases := []struct {
		name string
		o    timeseries.Options
		code mongoerr.Code
		msg  string
	}{
		{"dotted timeField", timeseries.Options{TimeField: "a.b"}, mongoerr.InvalidOptions, "app.c: 'timeField' must be a top-level field and not contain a '.'"},
		{"metaField _id", timeseries.Options{TimeField: "t", MetaField: "_id"}, mongoerr.InvalidOptions, `'metaField' cannot be "_id"`},
		{"metaField same as timeField", timeseries.Options{TimeField: "t", MetaField: "t"}, mongoerr.InvalidOptions, "'metaField' cannot be the same as 'timeField'"},
		{"dotted metaField", timeseries.Options{TimeField: "t", MetaField: "m.x"}, mongoerr.InvalidOptions, "app.c: 'metaField' must be a top-level field and not contain a '.'"},
		{"span without rounding", timeseries.Options{TimeField: "t", MaxSpan: 100}, mongoerr.InvalidOptions, "Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' need to be set alongside each other"},
		{"rounding differs from span", timeseries.Options{TimeField: "t", MaxSpan: 100, Rounding: 50}, mongoerr.InvalidOptions, "Timeseries 'bucketRoundingSeconds' needs to be equal to 'bucketMaxSpanSeconds'"},
		{"granularity with another span", timeseries.Options{TimeField: "t", Granularity: "minutes", MaxSpan: 3600}, mongoerr.InvalidOptions, "Timeseries 'bucketMaxSpanSeconds' is not configurable to a value other than the default of 86400 for the provided granularity"},
		{"granularity with another rounding", timeseries.Options{TimeField: "t", Granularity: "hours", Rounding: 60}, mongoerr.InvalidOptions, "Timeseries 'bucketRoundingSeconds' is not configurable to a value other than the default of 86400 for the provided granularity"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			err := te.CreateCollection(t.Context(), "app", "c", CreateCollectionRequest{Timeseries: &o})
			wantCode(t, err, tc.code, tc.msg)
		})
	}
	te.createTS("c", timeseries.Options{TimeField: "t"}, nil)
	err := te.CreateCollection(t.Context(), "app", "c", CreateCollectionRequest{Timeseries: &timeseries.Options{TimeField: "t"}})
	wantCode(t, err, mongoerr.NamespaceExists, "Collection app.c already exists.")
}

func TestTimeseriesReadsAndBuckets(t *testing.T) {
	te := newTestEngine(t)
	ctx := t.Context()
	te.createTS("weather", timeseries.Options{TimeField: "ts", MetaField: "sensor"}, nil)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var docs []bson.D
	for i := range 10 {
		for _, s := range []string{"a", "b"} {
			docs = append(docs, d("_id", int32(len(docs)), "ts", date(t0.Add(time.Duration(i)*20*time.Minute)), "sensor", s, "temp", int32(i)))
		}
	}
	te.mustInsert("app", "weather", docs...)
	// 10 measurements per sensor over 3h20m: hours 10, 11, 12 and 13.
	st, err := te.CollStats(ctx, "app", "system.buckets.weather")
	if err != nil || st.Count != 8 {
		t.Fatalf("buckets %d %v", st.Count, err)
	}
	if n, err := te.Count(ctx, "app", "weather", CountRequest{}); err != nil || n != 20 {
		t.Fatalf("count %d %v", n, err)
	}
	got := te.mustFind("app", "weather", FindRequest{Filter: d("_id", int32(3))})
	if want := `{ ts: new Date(` + itoa64(t0.Add(20*time.Minute).UnixMilli()) + `), sensor: "b", _id: 3, temp: 1 }`; got != want {
		t.Fatalf("find\n  %s\nwant\n  %s", got, want)
	}
	hour := FindRequest{Filter: d("ts", d("$gte", date(t0.Add(time.Hour)), "$lt", date(t0.Add(2*time.Hour))), "sensor", "a"),
		Projection: d("_id", int32(0), "temp", int32(1)), Sort: d("temp", int32(-1))}
	if got := te.mustFind("app", "weather", hour); got != "{ temp: 5 } { temp: 4 } { temp: 3 }" {
		t.Fatalf("one hour of a: %s", got)
	}
	if got := te.mustFind("app", "weather", FindRequest{Filter: d("ts", d("$lte", date(t0))), Sort: d("sensor", int32(1)), Limit: 1, Projection: d("sensor", int32(1), "_id", int32(0))}); got != `{ sensor: "a" }` {
		t.Fatalf("first: %s", got)
	}
	vals, err := te.Distinct(ctx, "app", "weather", DistinctRequest{Key: "sensor"})
	if err != nil || len(vals) != 2 || vals[0] != "a" || vals[1] != "b" {
		t.Fatalf("distinct %v %v", vals, err)
	}
	// A delete on the metaField removes whole buckets.
	res, err := te.Delete(ctx, "app", "weather", DeleteRequest{Statements: []DeleteStatement{{Filter: d("sensor", "b")}}})
	if err != nil || res.N != 10 {
		t.Fatalf("delete %+v %v", res, err)
	}
	if st, _ := te.CollStats(ctx, "app", "system.buckets.weather"); st.Count != 4 {
		t.Fatalf("buckets after delete %d", st.Count)
	}
	// A delete on a measurement field rewrites the bucket.
	res, err = te.Delete(ctx, "app", "weather", DeleteRequest{Statements: []DeleteStatement{{Filter: d("temp", d("$lt", int32(2)))}}})
	if err != nil || res.N != 2 {
		t.Fatalf("delete %+v %v", res, err)
	}
	if n, _ := te.Count(ctx, "app", "weather", CountRequest{}); n != 8 {
		t.Fatalf("count after deletes %d", n)
	}
	// An update of the metaField rewrites the buckets' meta.
	ur, err := te.Update(ctx, "app", "weather", UpdateRequest{Statements: []UpdateStatement{
		{Filter: d("sensor", "a"), Update: d("$set", d("sensor", "north")), Multi: true}}})
	if err != nil || len(ur.WriteErrors) > 0 || ur.N != 8 || ur.NModified != 8 {
		t.Fatalf("update %+v %v", ur, err)
	}
	if n, _ := te.Count(ctx, "app", "weather", CountRequest{Filter: d("sensor", "north")}); n != 8 {
		t.Fatalf("north after update %d", n)
	}
	for _, st := range []UpdateStatement{
		{Filter: d("sensor", "north"), Update: d("$set", d("temp", int32(1))), Multi: true},
		{Filter: d("temp", int32(1)), Update: d("$set", d("sensor", "x")), Multi: true},
		{Filter: d("sensor", "north"), Update: d("$set", d("sensor", "x"))},
	} {
		ur, err := te.Update(ctx, "app", "weather", UpdateRequest{Statements: []UpdateStatement{st}})
		if err != nil || len(ur.WriteErrors) != 1 {
			t.Fatalf("update %v: %+v %v", st, ur, err)
		}
		wantCode(t, ur.WriteErrors[0].Err, mongoerr.NotImplemented, "")
	}
	// The collection and its buckets survive a restart.
	te.reopen()
	if n, _ := te.Count(ctx, "app", "weather", CountRequest{Filter: d("sensor", "north")}); n != 8 {
		t.Fatalf("north after reopen %d", n)
	}
	cols, err := te.ListCollections(ctx, "app", nil, true)
	if err != nil || len(cols) != 2 || fmtDoc(cols[0]) != `{ name: "system.buckets.weather", type: "collection" }` || fmtDoc(cols[1]) != `{ name: "weather", type: "timeseries" }` {
		t.Fatalf("listCollections %v %v", cols, err)
	}
	if existed, err := te.DropCollection(ctx, "app", "weather"); err != nil || !existed {
		t.Fatalf("drop %v %v", existed, err)
	}
	if cols, _ := te.ListCollections(ctx, "app", nil, true); len(cols) != 0 {
		t.Fatalf("after drop %v", cols)
	}
}

// TestTimeseriesExpiry checks timeseries_ttl.js's rule: measurements are
// hidden once time + expireAfterSeconds has passed, and a bucket is
// deleted, as one span, once its start is older than now -
// expireAfterSeconds - bucketMaxSpanSeconds.
func TestTimeseriesExpiry(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	eas := int64(60)
	te.createTS("m", timeseries.Options{TimeField: "t", MetaField: "host"}, &eas)
	now := te.clock.Now() // 12:00:00
	te.mustInsert("app", "m",
		d("t", date(now.Add(-3*time.Hour)), "host", "x"),               // bucket 09:00, due 10:01
		d("t", date(now.Add(-90*time.Minute)), "host", "x"),            // bucket 10:00, due 11:01
		d("t", date(now.Add(-30*time.Minute)), "host", "x"),            // bucket 11:00, due 12:01: hidden, kept
		d("t", date(now.Add(-30*time.Second)), "host", "x", "v", true), // bucket 11:00 too, visible
	)
	te.reopen() // the source is registered again at Open
	if n, _ := te.Count(ctx, "app", "m", CountRequest{}); n != 1 {
		for _, r := range te.storedDocs("app", "system.buckets.m") {
			t.Log(r)
		}
		t.Fatalf("visible %d, want 1", n)
	}
	src := reg.get("ttl_index:app.system.buckets.m._id_")
	if src == nil {
		t.Fatalf("sources %v", reg.names())
	}
	due, ok, err := src.NextDue(ctx)
	if err != nil || !ok || !due.Equal(now.Add(-3*time.Hour).Add(61*time.Minute)) {
		t.Fatalf("next due %v %v %v", due, ok, err)
	}
	r, err := expiry.Drain(ctx, src, now, 0, 10)
	if err != nil || r.Items != 2 || len(r.Spans) != 1 {
		t.Fatalf("reaped %+v %v", r, err)
	}
	if st, _ := te.CollStats(ctx, "app", "system.buckets.m"); st.Count != 1 {
		t.Fatalf("buckets left %d", st.Count)
	}
	// collMod off: nothing is hidden or deleted any more.
	if _, err := te.CollMod(ctx, "app", "m", CollModRequest{ExpireAfterSeconds: &CollectionExpiry{Off: true}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := te.Count(ctx, "app", "m", CountRequest{}); n != 2 {
		t.Fatalf("visible after off %d", n)
	}
	_, err = te.CollMod(ctx, "app", "m", CollModRequest{Index: &CollModIndex{Name: "x", ExpireAfterSeconds: &eas}})
	wantCode(t, err, mongoerr.InvalidOptions, "TTL indexes are not supported for time-series collections. Please refer to the documentation and use the top-level 'expireAfterSeconds' option instead")
}

// TestTimeseriesExtendedRangeExpiresNothing checks the documented rule for
// dates before 1970 or after 2038-01-19.
func TestTimeseriesExtendedRangeExpiresNothing(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	eas := int64(1)
	te.createTS("m", timeseries.Options{TimeField: "t"}, &eas)
	now := te.clock.Now()
	te.mustInsert("app", "m", d("t", date(now.Add(-48*time.Hour))), d("t", date(time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC))))
	src := reg.get("ttl_index:app.system.buckets.m._id_")
	if _, ok, err := src.NextDue(ctx); err != nil || ok {
		t.Fatalf("next due %v %v", ok, err)
	}
	r, err := expiry.Drain(ctx, src, now, 0, 10)
	if err != nil || r.Items != 0 {
		t.Fatalf("reaped %+v %v", r, err)
	}
	if st, _ := te.CollStats(ctx, "app", "system.buckets.m"); st.Count != 2 {
		t.Fatalf("buckets %d", st.Count)
	}
}

// TestTimeseriesExpiryModel is a property test: under random inserts,
// metaField deletes, TTL changes, clock moves and reaps, the visible
// measurements are those a simple model keeps (time + expireAfterSeconds
// after now), reaping removes exactly the measurements of buckets whose
// start + expireAfterSeconds + span has passed, and the store stays
// consistent.
func TestTimeseriesExpiryModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		reg := newFakeRegistry()
		te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
		ctx := t.Context()
		span := int64(rapid.SampledFrom([]int{60, 600, 3600}).Draw(rt, "span"))
		o := timeseries.Options{TimeField: "t", MetaField: "m", MaxSpan: span, Rounding: span}
		ttl := int64(rapid.IntRange(0, 1200).Draw(rt, "ttl"))
		te.createTS("c", o, &ttl)
		type meas struct {
			t    int64
			meta string
		}
		model := map[int32]meas{}
		next := int32(0)
		for range rapid.IntRange(1, 25).Draw(rt, "steps") {
			now := te.clock.Now()
			switch rapid.IntRange(0, 4).Draw(rt, "op") {
			case 0:
				var docs []bson.D
				for range rapid.IntRange(1, 30).Draw(rt, "n") {
					at := now.Add(time.Duration(rapid.IntRange(-7200, 600).Draw(rt, "offset")) * time.Second)
					meta := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "meta")
					model[next] = meas{t: at.UnixMilli(), meta: meta}
					docs = append(docs, d("_id", next, "t", date(at), "m", meta))
					next++
				}
				te.mustInsert("app", "c", docs...)
			case 1:
				meta := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "deleteMeta")
				if _, err := te.Delete(ctx, "app", "c", DeleteRequest{Statements: []DeleteStatement{{Filter: d("m", meta)}}}); err != nil {
					rt.Fatal(err)
				}
				for id, m := range model {
					if m.meta == meta && (ttl < 0 || m.t+ttl*1000 > now.UnixMilli()) {
						delete(model, id)
					}
				}
			case 2:
				if rapid.Bool().Draw(rt, "off") {
					ttl = -1
					if _, err := te.CollMod(ctx, "app", "c", CollModRequest{ExpireAfterSeconds: &CollectionExpiry{Off: true}}); err != nil {
						rt.Fatal(err)
					}
				} else {
					ttl = int64(rapid.IntRange(0, 1200).Draw(rt, "newTTL"))
					if _, err := te.CollMod(ctx, "app", "c", CollModRequest{ExpireAfterSeconds: &CollectionExpiry{Seconds: ttl}}); err != nil {
						rt.Fatal(err)
					}
				}
			case 3:
				te.clock.Advance(time.Duration(rapid.IntRange(1, 3600).Draw(rt, "advance")) * time.Second)
			case 4:
				src := reg.get("ttl_index:app.system.buckets.c._id_")
				if src == nil {
					continue
				}
				if _, err := expiry.Drain(ctx, src, now, 0, rapid.IntRange(1, 20).Draw(rt, "batch")); err != nil {
					rt.Fatal(err)
				}
				for id, m := range model {
					if o.StartOf(m.t)+(ttl+span)*1000 <= now.UnixMilli() {
						delete(model, id)
					}
				}
				stored := int64(0)
				for _, r := range te.storedDocs("app", "system.buckets.c") {
					b, err := o.Decode(mustD(rt, r), len(r))
					if err != nil {
						rt.Fatal(err)
					}
					stored += int64(b.Count)
				}
				if stored != int64(len(model)) {
					rt.Fatalf("%d measurements stored after reaping, model has %d", stored, len(model))
				}
			}
			want := 0
			for _, m := range model {
				if ttl < 0 || m.t+ttl*1000 > te.clock.Now().UnixMilli() {
					want++
				}
			}
			if n, err := te.Count(ctx, "app", "c", CountRequest{}); err != nil || n != int64(want) {
				rt.Fatalf("visible %d (%v), model %d", n, err, want)
			}
			if err := te.Check(ctx); err != nil {
				rt.Fatal(err)
			}
		}
	})
}

func mustD(rt *rapid.T, r bson.Raw) bson.D {
	var doc bson.D
	if err := bson.Unmarshal(r, &doc); err != nil {
		rt.Fatal(err)
	}
	return doc
}

// TestTimeseriesExpiryPerBucket checks the way for a bucket collection
// that cannot expire by spans (with the change log, which records a
// delete per bucket): the due buckets go one by one, in batches, with the
// same counts.
func TestTimeseriesExpiryPerBucket(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg; o.ChangeLog = true })
	ctx := t.Context()
	eas := int64(0)
	te.createTS("m", timeseries.Options{TimeField: "t", MaxSpan: 60, Rounding: 60}, &eas)
	now := te.clock.Now()
	var docs []bson.D
	for i := range 10 { // ten buckets due, one not
		docs = append(docs, d("t", date(now.Add(-time.Duration(i+2)*time.Minute))))
	}
	docs = append(docs, d("t", date(now.Add(time.Minute))))
	te.mustInsert("app", "m", docs...)
	src := reg.get("ttl_index:app.system.buckets.m._id_")
	r, err := expiry.Drain(ctx, src, now, 0, 3)
	if err != nil || r.Items != 10 || len(r.Spans) != 0 || len(r.Due) != 10 {
		t.Fatalf("reaped %+v %v", r, err)
	}
	if st, _ := te.CollStats(ctx, "app", "system.buckets.m"); st.Count != 1 {
		t.Fatalf("buckets left %d", st.Count)
	}
	if n, _ := te.Count(ctx, "app", "m", CountRequest{}); n != 1 {
		t.Fatalf("visible %d", n)
	}
}

// TestTimeseriesIndexes checks indexes of a time-series collection: on
// the metaField and timeField only, and a TTL index only on the timeField
// with a partialFilterExpression on the metaField (timeseries_index_ttl_partial.js),
// which expires the matching buckets.
func TestTimeseriesIndexes(t *testing.T) {
	reg := newFakeRegistry()
	te := newTestEngine(t, func(o *Options) { o.Expiry = reg })
	ctx := t.Context()
	te.createTS("s", timeseries.Options{TimeField: "zaman", MetaField: "sensor", Granularity: "hours"}, ptr(int64(86400)))
	cases := []struct {
		name string
		spec bson.D
		code mongoerr.Code
	}{
		{"compound TTL", d("key", d("zaman", int32(1), "sensor", int32(1)), "name", "c", "expireAfterSeconds", int32(10)), mongoerr.CannotCreateIndex},
		{"TTL on the metaField", d("key", d("sensor", int32(1)), "name", "m", "expireAfterSeconds", int32(10), "partialFilterExpression", d("sensor", "a")), mongoerr.InvalidOptions},
		{"TTL without a partial filter", d("key", d("zaman", int32(1)), "name", "z", "expireAfterSeconds", int32(10)), mongoerr.InvalidOptions},
		{"TTL with a filter on data", d("key", d("zaman", int32(1)), "name", "z", "expireAfterSeconds", int32(10), "partialFilterExpression", d("temp", d("$gt", int32(1)))), mongoerr.InvalidOptions},
		{"TTL with a filter on meta and data", d("key", d("zaman", int32(1)), "name", "z", "expireAfterSeconds", int32(10), "partialFilterExpression", d("sensor", "a", "temp", int32(1))), mongoerr.InvalidOptions},
		{"a measurement field", d("key", d("temp", int32(1)), "name", "t"), mongoerr.NotImplemented},
	}
	for _, tc := range cases {
		_, err := te.CreateIndexes(ctx, "app", "s", indexSpecs(tc.spec))
		if me, ok := mongoerr.As(err); !ok || me.Code != tc.code {
			t.Fatalf("%s: %v, want code %d", tc.name, err, tc.code)
		}
	}
	te.mustCreateIndexes("app", "s",
		d("key", d("zaman", int32(1)), "name", "zaman_1", "partialFilterExpression", d("sensor", d("$eq", "test-01")), "expireAfterSeconds", int32(3600)),
		d("key", d("sensor.room", int32(1)), "name", "room"))
	if got := te.indexList("app", "s"); got != `{ v: 2, key: { zaman: 1 }, name: "zaman_1", partialFilterExpression: { sensor: { $eq: "test-01" } }, expireAfterSeconds: 3600 }`+"\n"+`{ v: 2, key: { sensor.room: 1 }, name: "room" }` {
		t.Fatalf("listIndexes %s", got)
	}
	now := te.clock.Now()
	te.mustInsert("app", "s",
		d("zaman", date(now.Add(-2*time.Hour)), "sensor", "test-01"),
		d("zaman", date(now.Add(-2*time.Hour)), "sensor", "prod-01"),
	)
	if got := te.mustFind("app", "s", FindRequest{Projection: d("sensor", int32(1), "_id", int32(0))}); got != `{ sensor: "prod-01" }` {
		t.Fatalf("visible: %s", got)
	}
	src := reg.get("ttl_index:app.system.buckets.s.zaman_1")
	if src == nil {
		t.Fatalf("sources %v", reg.names())
	}
	if r, err := expiry.Drain(ctx, src, now, 0, 10); err != nil || r.Items != 1 {
		t.Fatalf("reaped %+v %v", r, err)
	}
	if st, _ := te.CollStats(ctx, "app", "system.buckets.s"); st.Count != 1 {
		t.Fatalf("buckets %d", st.Count)
	}
	if _, err := te.DropIndexes(ctx, "app", "s", DropIndexesRequest{KeyPattern: d("sensor.room", int32(1))}); err != nil {
		t.Fatal(err)
	}
}
