package integration_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mayfly/mayfly/integration/harness"
)

// Black-box tests of capped collections and tailable cursors through the
// Go driver and mongosh against the real binary.

// cappedXs returns the x fields a find returns, in order.
func cappedXs(t *testing.T, c *mongo.Collection, filter any, opts ...options.Lister[options.FindOptions]) []int32 {
	t.Helper()
	cur, err := c.Find(t.Context(), filter, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var out []int32
	for cur.Next(t.Context()) {
		out = append(out, cur.Current.Lookup("x").Int32())
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameInts(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMongoCappedCollection(t *testing.T) {
	s := harness.Start(t)
	cl := mongoClient(t, s)
	ctx := t.Context()
	db := cl.Database("app")
	if err := db.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(4000).SetMaxDocuments(5)); err != nil {
		t.Fatal(err)
	}
	log := db.Collection("log")
	if _, err := log.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	// _id falls while x rises: insertion order is not _id order.
	for i := int32(0); i < 8; i++ {
		if _, err := log.InsertOne(ctx, bson.D{{Key: "_id", Value: 100 - i}, {Key: "x", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	want := []int32{3, 4, 5, 6, 7}
	if got := cappedXs(t, log, bson.D{}); !sameInts(got, want) {
		t.Fatalf("natural order: got %v, want %v", got, want)
	}
	if got := cappedXs(t, log, bson.D{}, options.Find().SetSort(bson.D{{Key: "$natural", Value: -1}})); !sameInts(got, []int32{7, 6, 5, 4, 3}) {
		t.Fatalf("$natural: -1: got %v", got)
	}
	if got := cappedXs(t, log, bson.D{{Key: "x", Value: bson.D{{Key: "$lt", Value: 100}}}}, options.Find().SetHint("x_1")); !sameInts(got, want) {
		t.Fatalf("the x_1 index has entries of removed documents: %v", got)
	}
	if n, err := log.CountDocuments(ctx, bson.D{}); err != nil || n != 5 {
		t.Fatalf("count %d %v", n, err)
	}

	// listCollections reports the options, size rounded up to 256 bytes.
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "log"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("listCollections: %v %v", specs, err)
	}
	opts := specs[0].Options
	if !opts.Lookup("capped").Boolean() || opts.Lookup("size").Int32() != 4096 || opts.Lookup("max").Int32() != 5 {
		t.Fatalf("options %v", opts)
	}
	var stats bson.Raw
	if stats, err = db.RunCommand(ctx, bson.D{{Key: "collStats", Value: "log"}, {Key: "scale", Value: 2}}).Raw(); err != nil {
		t.Fatal(err)
	}
	if !stats.Lookup("capped").Boolean() || stats.Lookup("max").Int32() != 5 || stats.Lookup("maxSize").Int32() != 2048 || stats.Lookup("count").Int32() != 5 {
		t.Fatalf("collStats %v", stats)
	}

	// Deletes are allowed; an update may change a document's size.
	if _, err := log.DeleteOne(ctx, bson.D{{Key: "x", Value: 4}}); err != nil {
		t.Fatal(err)
	}
	if _, err := log.UpdateOne(ctx, bson.D{{Key: "x", Value: 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "pad", Value: "grown"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := log.InsertOne(ctx, bson.D{{Key: "x", Value: 8}}); err != nil {
		t.Fatal(err)
	}
	if got := cappedXs(t, log, bson.D{}); !sameInts(got, []int32{3, 5, 6, 7, 8}) {
		t.Fatalf("after delete, update and insert: %v", got)
	}

	// collMod lowers the bound; the next insert removes what is over it.
	if err := db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "log"}, {Key: "cappedMax", Value: 2}}).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := log.InsertOne(ctx, bson.D{{Key: "x", Value: 9}}); err != nil {
		t.Fatal(err)
	}
	if got := cappedXs(t, log, bson.D{}); !sameInts(got, []int32{8, 9}) {
		t.Fatalf("after collMod cappedMax 2: %v", got)
	}
	err = db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "log"}, {Key: "cappedSize", Value: 0}}).Err()
	wantCommandError(t, err, 51024, "BSON field 'cappedSize' value must be >= 1, actual value '0'")

	// One document larger than the whole collection is refused.
	_, err = log.InsertOne(ctx, bson.D{{Key: "big", Value: string(make([]byte, 5000))}})
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 10334 {
		t.Fatalf("oversized insert: %v", err)
	}

	// The errors of create.
	err = db.CreateCollection(ctx, "nosize", options.CreateCollection().SetCapped(true))
	wantCommandError(t, err, 72, "the 'size' field is required when 'capped' is true")
	err = db.RunCommand(ctx, bson.D{{Key: "create", Value: "nocap"}, {Key: "max", Value: 3}}).Err()
	wantCommandError(t, err, 72, "the 'capped' field needs to be true when either the 'size' or 'max' fields are present")

	// A plain collection rejects tailable cursors and capped collMods.
	plain := db.Collection("plain")
	if _, err := plain.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err = plain.Find(ctx, bson.D{}, options.Find().SetCursorType(options.Tailable))
	wantCommandError(t, err, 2, "error processing query: ns=app.plainTree: $and\nSort: {}\nProj: {}\n tailable cursor requested on non capped collection")
	err = db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "plain"}, {Key: "cappedSize", Value: 5000}}).Err()
	wantCommandError(t, err, 72, "Collection must be capped.")

	// cloneCollectionAsCapped and convertToCapped.
	for i := int32(2); i <= 6; i++ {
		if _, err := plain.InsertOne(ctx, bson.D{{Key: "x", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "cloneCollectionAsCapped", Value: "plain"}, {Key: "toCollection", Value: "copy"}, {Key: "size", Value: 100}}).Err(); err != nil {
		t.Fatal(err)
	}
	if got := cappedXs(t, db.Collection("copy"), bson.D{}); !sameInts(got, []int32{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("clone: %v", got)
	}
	var copyStats bson.Raw
	if copyStats, err = db.RunCommand(ctx, bson.D{{Key: "collStats", Value: "copy"}}).Raw(); err != nil {
		t.Fatal(err)
	}
	if copyStats.Lookup("maxSize").Int32() != 256 || copyStats.Lookup("nindexes").Int32() != 1 {
		t.Fatalf("clone's stats: %v", copyStats)
	}
	err = db.RunCommand(ctx, bson.D{{Key: "cloneCollectionAsCapped", Value: "plain"}, {Key: "toCollection", Value: "copy"}, {Key: "size", Value: 100}}).Err()
	wantCommandError(t, err, 48, "cloneCollectionAsCapped failed - destination collection app.copy already exists. source collection: app.plain")
	err = db.RunCommand(ctx, bson.D{{Key: "cloneCollectionAsCapped", Value: "none"}, {Key: "toCollection", Value: "x"}, {Key: "size", Value: 100}}).Err()
	wantCommandError(t, err, 26, "source collection app.none does not exist")
	if err := db.RunCommand(ctx, bson.D{{Key: "convertToCapped", Value: "plain"}, {Key: "size", Value: 1 << 20}}).Err(); err != nil {
		t.Fatal(err)
	}
	var capped bson.Raw
	if capped, err = db.RunCommand(ctx, bson.D{{Key: "collStats", Value: "plain"}}).Raw(); err != nil {
		t.Fatal(err)
	}
	if !capped.Lookup("capped").Boolean() || capped.Lookup("maxSize").Int32() != 1<<20 {
		t.Fatalf("convertToCapped: %v", capped)
	}
	if got := cappedXs(t, plain, bson.D{}); !sameInts(got, []int32{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("converted collection: %v", got)
	}
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n != "log" && n != "plain" && n != "copy" {
			t.Fatalf("convertToCapped left %q behind", n)
		}
	}
}

// A tailable awaitData cursor returns a document inserted while its getMore
// waits: the insert's commit wakes it, long before its wait would end.
func TestMongoTailableAwaitData(t *testing.T) {
	s := harness.Start(t)
	getMoreSent := make(chan struct{})
	var once sync.Once
	monitor := &event.CommandMonitor{Started: func(_ context.Context, ev *event.CommandStartedEvent) {
		if ev.CommandName == "getMore" {
			once.Do(func() { close(getMoreSent) })
		}
	}}
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true").
		SetTimeout(60 * time.Second).SetMonitor(monitor))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	ctx := t.Context()
	db := cl.Database("app")
	if err := db.CreateCollection(ctx, "feed", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	feed := db.Collection("feed")
	if _, err := feed.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	const await = 25 * time.Second
	cur, err := feed.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(await))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(context.Background())
	if !cur.Next(ctx) || cur.Current.Lookup("x").Int32() != 1 {
		t.Fatalf("first document: %v %v", cur.Current, cur.Err())
	}
	if cur.ID() == 0 {
		t.Fatal("the tailable cursor was closed after its first batch")
	}
	got := make(chan int32, 1)
	go func() {
		next, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if cur.Next(next) {
			got <- cur.Current.Lookup("x").Int32()
		}
		close(got)
	}()
	select {
	case <-getMoreSent:
	case <-got:
		t.Fatalf("Next returned before any getMore: %v", cur.Err())
	}
	inserted := time.Now()
	if _, err := feed.InsertOne(ctx, bson.D{{Key: "x", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	x, ok := <-got
	if !ok || x != 2 {
		t.Fatalf("the waiting getMore did not return the new document: %v", cur.Err())
	}
	// Without the commit's wake-up the document would come with the next
	// getMore, once the first had waited its whole 25 s.
	if waited := time.Since(inserted); waited >= await-5*time.Second {
		t.Fatalf("the document came %v after the insert: the getMore was not woken", waited)
	}
	// A plain tailable cursor (no awaitData) may not give maxTimeMS. The
	// getMore runs in the cursor's session, as MongoDB requires.
	sess, err := cl.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(context.Background())
	sctx := mongo.NewSessionContext(ctx, sess)
	plain, err := feed.Find(sctx, bson.D{}, options.Find().SetCursorType(options.Tailable).SetBatchSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(context.Background())
	id := plain.ID()
	err = db.RunCommand(sctx, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "feed"}, {Key: "maxTimeMS", Value: 100}}).Err()
	wantCommandError(t, err, 2, "cannot set maxTimeMS on getMore command for a non-awaitData cursor")
}

// A tailable cursor whose position the capping removed dies with
// CappedPositionLost.
func TestMongoTailableCappedPositionLost(t *testing.T) {
	s := harness.Start(t)
	// No client timeout: the driver would add maxTimeMS to the getMore
	// commands run below, which a cursor without awaitData refuses.
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + s.MongoAddr + "/?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Disconnect(context.Background()) })
	ctx := t.Context()
	db := cl.Database("app")
	if err := db.CreateCollection(ctx, "ring", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096).SetMaxDocuments(2)); err != nil {
		t.Fatal(err)
	}
	ring := db.Collection("ring")
	if _, err := ring.InsertMany(ctx, []any{bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "x", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	res := db.RunCommand(ctx, bson.D{{Key: "find", Value: "ring"}, {Key: "tailable", Value: true}})
	raw, err := res.Raw()
	if err != nil {
		t.Fatal(err)
	}
	id := raw.Lookup("cursor", "id").Int64()
	if id == 0 {
		t.Fatal("tailable cursor closed")
	}
	if _, err := ring.InsertMany(ctx, []any{bson.D{{Key: "x", Value: 3}}, bson.D{{Key: "x", Value: 4}}}); err != nil {
		t.Fatal(err)
	}
	err = db.RunCommand(ctx, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "ring"}}).Err()
	wantCommandError(t, err, 136, "CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(2)")
	// The cursor is gone.
	err = db.RunCommand(ctx, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "ring"}}).Err()
	wantCommandError(t, err, 43, "")

	// On an empty capped collection a tailable find keeps no cursor.
	if err := db.CreateCollection(ctx, "empty", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096)); err != nil {
		t.Fatal(err)
	}
	raw, err = db.RunCommand(ctx, bson.D{{Key: "find", Value: "empty"}, {Key: "tailable", Value: true}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if raw.Lookup("cursor", "id").Int64() != 0 {
		t.Fatalf("a cursor was kept on an empty collection: %v", raw)
	}
}

// The mongosh session of a log collection: created capped with a size
// and a count bound, it keeps the last five entries in insertion order.
func TestMongoshCappedLog(t *testing.T) {
	s := harness.Start(t)
	out := mongosh(t, s, "app", `
db.createCollection("log", {capped: true, size: 4096, max: 5})
for (let i = 1; i <= 7; i++) { db.log.insertOne({n: i, msg: "entry " + i}) }
print("capped=" + db.log.isCapped())
print("count=" + db.log.countDocuments())
print("order=" + db.log.find().toArray().map(d => d.n).join(","))
print("reverse=" + db.log.find().sort({$natural: -1}).toArray().map(d => d.n).join(","))
const st = db.log.stats()
print("maxSize=" + st.maxSize + " max=" + st.max)
db.other.insertOne({n: 0})
print("plain=" + db.other.isCapped())
`)
	wantOutput(t, out, "capped=true", "count=5", "order=3,4,5,6,7", "reverse=7,6,5,4,3", "maxSize=4096 max=5", "plain=false")
}
