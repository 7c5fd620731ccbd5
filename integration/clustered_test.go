package integration_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// createClustered creates app.<coll> clustered on _id with a TTL.
func (e *ttlEnv) createClustered(coll string, expireAfter int64) *mongo.Collection {
	e.t.Helper()
	e.mustRun("app", bson.D{
		{Key: "create", Value: coll},
		{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}},
		{Key: "expireAfterSeconds", Value: expireAfter},
	})
	return e.cl.Database("app").Collection(coll)
}

// Ensure that a clustered collection with expireAfterSeconds behaves as
// MongoDB's clustered_collection_ttl.js and clustered_coll_mod.js have it:
// only Date _ids expire, a secondary TTL index still works, collMod changes
// or removes the TTL, the clustered index cannot be hidden, and
// listCollections shows the clustered index.
func TestClusteredCollectionTTL(t *testing.T) {
	e := startTTL(t)
	t0 := e.now()

	t.Run("listCollections shows clusteredIndex", func(t *testing.T) {
		e := e.with(t)
		e.createClustered("listed", 3600)
		cur, err := e.cl.Database("app").ListCollections(t.Context(), bson.D{{Key: "name", Value: "listed"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []bson.Raw
		if err := cur.All(t.Context(), &got); err != nil || len(got) != 1 {
			t.Fatalf("listCollections %v %v", got, err)
		}
		ci := got[0].Lookup("options", "clusteredIndex").Document()
		if ci.Lookup("name").StringValue() != "_id_" || !ci.Lookup("unique").Boolean() || ci.Lookup("key", "_id").AsInt64() != 1 {
			t.Fatalf("clusteredIndex %v", ci)
		}
		if n := got[0].Lookup("options", "expireAfterSeconds").AsInt64(); n != 3600 {
			t.Fatalf("expireAfterSeconds %d", n)
		}
	})

	t.Run("only Date _ids expire", func(t *testing.T) {
		e := e.with(t)
		c := e.createClustered("dates", 60)
		old := bson.NewObjectIDFromTimestamp(t0.Add(-30 * 24 * time.Hour))
		docs := []any{
			bson.D{{Key: "_id", Value: old}, {Key: "k", Value: "objectid"}},
			bson.D{{Key: "_id", Value: "a string"}},
		}
		for i := range 1000 {
			docs = append(docs, bson.D{{Key: "_id", Value: dt(t0.Add(time.Duration(i) * time.Millisecond))}})
		}
		docs = append(docs, bson.D{{Key: "_id", Value: dt(t0.Add(time.Hour))}})
		if _, err := c.InsertMany(t.Context(), docs); err != nil {
			t.Fatal(err)
		}
		before := e.counter("deletedDocuments")
		e.sweep(2 * time.Minute)
		if n := e.counter("deletedDocuments") - before; n != 1000 {
			t.Fatalf("deletedDocuments grew by %d, want 1000", n)
		}
		if n, err := c.CountDocuments(t.Context(), bson.D{}); err != nil || n != 3 {
			t.Fatalf("count %d %v, want the ObjectId, the string and the future date", n, err)
		}
		st := e.mustRun("app", bson.D{{Key: "collStats", Value: "dates"}})
		if n := st.Lookup("count").AsInt64(); n != 3 {
			t.Fatalf("collStats count %d", n)
		}
	})

	t.Run("a secondary TTL index still works", func(t *testing.T) {
		e := e.with(t)
		c := e.createClustered("secondary", 24*3600)
		if _, err := c.Indexes().CreateOne(t.Context(), mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(0)}); err != nil {
			t.Fatal(err)
		}
		now := e.now()
		if _, err := c.InsertMany(t.Context(), []any{
			bson.D{{Key: "_id", Value: 1}, {Key: "at", Value: dt(now.Add(time.Second))}},
			bson.D{{Key: "_id", Value: dt(now)}, {Key: "at", Value: dt(now.Add(48 * time.Hour))}},
			bson.D{{Key: "_id", Value: 2}},
		}); err != nil {
			t.Fatal(err)
		}
		e.sweep(2 * time.Second)
		e.wantIDs(c, `{"$numberInt":"2"}`, dateString(now))
	})

	t.Run("collMod expireAfterSeconds", func(t *testing.T) {
		e := e.with(t)
		c := e.createClustered("modded", 3600)
		now := e.now()
		if _, err := c.InsertMany(t.Context(), []any{
			bson.D{{Key: "_id", Value: dt(now.Add(-10 * time.Minute))}},
			bson.D{{Key: "_id", Value: dt(now.Add(-20 * time.Minute))}},
		}); err != nil {
			t.Fatal(err)
		}
		e.mustRun("app", bson.D{{Key: "collMod", Value: "modded"}, {Key: "expireAfterSeconds", Value: 15 * 60}})
		e.sweep(time.Second)
		e.wantIDs(c, dateString(now.Add(-10*time.Minute)))
		e.mustRun("app", bson.D{{Key: "collMod", Value: "modded"}, {Key: "expireAfterSeconds", Value: "off"}})
		e.sweep(24 * time.Hour)
		e.wantIDs(c, dateString(now.Add(-10*time.Minute)))
		opts := e.mustRun("app", bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "modded"}}}})
		if _, err := opts.LookupErr("cursor", "firstBatch", "0", "options", "expireAfterSeconds"); err == nil {
			t.Fatalf("expireAfterSeconds still listed after off: %v", opts)
		}
	})

	t.Run("errors", func(t *testing.T) {
		e := e.with(t)
		e.createClustered("errs", 60)
		e.mustRun("app", bson.D{{Key: "create", Value: "plain"}})
		cases := []struct {
			name string
			cmd  bson.D
			code int32
			msg  string
		}{
			{"hiding the clustered index", bson.D{{Key: "collMod", Value: "errs"}, {Key: "index", Value: bson.D{{Key: "name", Value: "_id_"}, {Key: "hidden", Value: true}}}},
				6011800, "The 'hidden' option is not supported for a clusteredIndex"},
			{"expireAfterSeconds on a collection that is not clustered", bson.D{{Key: "collMod", Value: "plain"}, {Key: "expireAfterSeconds", Value: 10}},
				72, ""},
			{"negative expireAfterSeconds", bson.D{{Key: "collMod", Value: "errs"}, {Key: "expireAfterSeconds", Value: -1}},
				72, ""},
			{"create with expireAfterSeconds but not clustered", bson.D{{Key: "create", Value: "notclustered"}, {Key: "expireAfterSeconds", Value: 10}},
				72, "'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified"},
		}
		for _, tc := range cases {
			_, err := e.run("app", tc.cmd)
			wantCmdErr(t, err, tc.code, tc.msg)
		}
	})
}

// dateString is how ids renders a Date _id.
func dateString(t time.Time) string {
	typ, b, err := bson.MarshalValue(dt(t))
	if err != nil {
		panic(err)
	}
	return rawString(bson.RawValue{Type: typ, Value: b})
}

// Ensure that mongosh sees a clustered collection's TTL as MongoDB shows
// it: the clustered index in getIndexes and collection-level expiry.
func TestClusteredCollectionMongosh(t *testing.T) {
	e := startTTL(t)
	now := e.now()
	script := `
db.createCollection("events", {clusteredIndex: {key: {_id: 1}, unique: true, name: "by_time"}, expireAfterSeconds: 1});
db.events.insertOne({_id: new Date(` + strconv.FormatInt(now.Add(-time.Hour).UnixMilli(), 10) + `), v: 1});
db.events.insertOne({_id: new ObjectId(), v: 2});
print("indexes " + JSON.stringify(db.events.getIndexes()));
print("count " + db.events.countDocuments({}));
`
	out, ok := ttlMongosh(t, e.s, "app", "--eval", script)
	if !ok {
		t.Fatalf("mongosh failed:\n%s", out)
	}
	if !strings.Contains(out, `"name":"by_time"`) || !strings.Contains(out, `"clustered":true`) {
		t.Fatalf("getIndexes:\n%s", out)
	}
	// Strict visibility: the hour-old Date _id is hidden before it is reaped.
	if !strings.Contains(out, "count 1") {
		t.Fatalf("countDocuments:\n%s", out)
	}
	e.sweep(time.Second)
	c := e.cl.Database("app").Collection("events")
	if n, err := c.CountDocuments(t.Context(), bson.D{}); err != nil || n != 1 {
		t.Fatalf("count %d %v", n, err)
	}
}
